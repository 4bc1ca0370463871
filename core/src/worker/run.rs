//! The worker loop: claim what there is room for, run each claimed task beside the others,
//! and sleep until a task is stored or cancelled (the storage's events, from any process on
//! the database), a run ends, or it is time to look for claims whose lease passed (a dead
//! worker's) and to sweep tasks whose retention passed. Idle, it wakes every few seconds and
//! does one query.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::broadcast::error::RecvError;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use toolspec_vocab::codes;

use crate::ambient::AmbientContext;
use crate::call::options::CallOptions;
use crate::caller::Scopes;
use crate::context::{Progress, ProgressUpdate};
use crate::failure::ToolResult;
use crate::registry::Registry;
use crate::storage::{
    ClaimedTask, Renewal, Storage, TASK_LEASE, TASK_RENEWAL, TaskEvent, TaskOutcome,
};
use crate::task::{TaskId, TaskStatus, stored_result};

/// How long an idle worker sleeps before it looks for claims whose lease passed.
const IDLE: Duration = Duration::from_secs(5);
/// How often tasks whose retention passed are deleted.
const SWEEP: Duration = Duration::from_secs(60);
/// How many times writing a task's outcome is tried while the database cannot be reached.
const FINISH_TRIES: u32 = 5;
/// How many times a task is started before it is failed without running again: a task whose
/// worker died that often (a handler that brings its process down, say) would never end.
const MAX_ATTEMPTS: u32 = 5;

/// The tokens of the tasks this worker runs now, by task.
type Running = Arc<Mutex<HashMap<TaskId, CancellationToken>>>;

/// Runs the worker of `registry` over `storage` until the registry is dropped.
pub(super) async fn work(registry: Weak<Registry>, storage: Arc<dyn Storage>, concurrency: usize) {
    let worker = uuid::Uuid::now_v7().simple().to_string();
    let mut events = storage.task_events();
    let running: Running = Arc::default();
    let mut runs = JoinSet::new();
    let mut next_sweep = Instant::now();
    tracing::debug!(worker, concurrency, "task worker started");
    loop {
        // toolspec's tables exist once this succeeds (a no-op after the first time).
        if let Err(e) = storage.prepare().await {
            tracing::warn!(error = %e.chain(), "the task queue could not be prepared");
            tokio::time::sleep(IDLE).await;
            if registry.strong_count() == 0 {
                return;
            }
            continue;
        }
        if Instant::now() >= next_sweep {
            next_sweep = Instant::now() + SWEEP;
            match storage.delete_expired_tasks().await {
                Ok(0) => {}
                Ok(deleted) => tracing::info!(deleted, "deleted tasks past their retention"),
                Err(e) => tracing::warn!(error = %e.chain(), "could not delete expired tasks"),
            }
        }
        while runs.len() < concurrency {
            let Some(registry) = registry.upgrade() else {
                return;
            };
            match storage.claim_task(&worker, TASK_LEASE).await {
                Ok(Some(claimed)) => {
                    let token = CancellationToken::new();
                    lock(&running).insert(claimed.task.id.clone(), token.clone());
                    let run = Run {
                        registry,
                        storage: Arc::clone(&storage),
                        worker: worker.clone(),
                        running: Arc::clone(&running),
                        token,
                    };
                    runs.spawn(run.task(claimed));
                }
                Ok(None) => break,
                Err(e) => {
                    if e.is_unreachable() {
                        storage.suspect(&e.chain());
                    }
                    tracing::warn!(error = %e.chain(), "could not claim a task");
                    break;
                }
            }
        }
        if registry.strong_count() == 0 {
            return;
        }
        tokio::select! {
            event = events.recv() => match event {
                Ok(TaskEvent::Enqueued) | Err(RecvError::Lagged(_)) => {}
                Ok(TaskEvent::Cancelled(id)) => {
                    if let Some(token) = lock(&running).get(&id) {
                        token.cancel();
                    }
                }
                Err(RecvError::Closed) => events = storage.task_events(),
            },
            Some(_) = runs.join_next(), if !runs.is_empty() => {}
            () = tokio::time::sleep(IDLE) => {}
        }
    }
}

/// The map of running tasks, whatever a panicking holder left.
fn lock(running: &Running) -> std::sync::MutexGuard<'_, HashMap<TaskId, CancellationToken>> {
    running
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// One claimed task's run.
struct Run {
    registry: Arc<Registry>,
    storage: Arc<dyn Storage>,
    worker: String,
    running: Running,
    token: CancellationToken,
}

impl Run {
    /// Runs the task, renewing its claim meanwhile, and writes its outcome.
    async fn task(self, claimed: ClaimedTask) {
        let task = claimed.task;
        let id = task.id.clone();
        let latest: Arc<Mutex<Option<ProgressUpdate>>> = Arc::default();
        let outcome = match self.registry.get(&task.tool) {
            _ if claimed.attempt > MAX_ATTEMPTS => Some(failed_outside(format!(
                "the task was started {MAX_ATTEMPTS} times and never ended: its worker died each time"
            ))),
            None => Some(failed_outside(format!(
                "no tool named `{}` is registered on this process",
                task.tool
            ))),
            Some(tool) => {
                let ambient = match task.ambient {
                    Value::Object(map) => AmbientContext::from(map),
                    _ => AmbientContext::from(Map::new()),
                };
                let sink = Arc::clone(&latest);
                let options = CallOptions {
                    adapter: task.adapter.clone(),
                    caller: Some(task.owner.clone()).filter(|o| !o.is_empty()),
                    scopes: scopes(&task.scopes),
                    cancellation: self.token.clone(),
                    progress: Progress::new(move |update| {
                        *sink.lock().unwrap_or_else(|p| p.into_inner()) = Some(update);
                    }),
                    trace_id: task.trace_id.clone(),
                    // Confirmed and filled in when it was stored.
                    continuation: None,
                };
                tracing::info!(task = %id, tool = &*task.tool, attempt = claimed.attempt, "task started");
                let run = tool.run_task(task.arguments, &ambient, options, task.timeout);
                match self.supervised(&id, &latest, run).await {
                    // Nothing ran for want of something that comes back — the database, or the
                    // `once` key still claimed by a run that may be a dead worker's: the task
                    // is left to run again once its own claim lapses.
                    Some(result) if deferred(&result) => {
                        lock(&self.running).remove(&id);
                        let code = result.error().map_or("", |e| e.code.as_str());
                        tracing::info!(task = %id, code, "task deferred: it runs again once its claim lapses");
                        return;
                    }
                    Some(result) => {
                        let bound = self.registry.project().tasks.max_result_bytes;
                        Some(outcome(result, self.token.is_cancelled(), bound))
                    }
                    None => None,
                }
            }
        };
        lock(&self.running).remove(&id);
        let Some(outcome) = outcome else {
            tracing::warn!(task = %id, "task claim lost: another worker runs it now");
            return;
        };
        self.finish(&id, &outcome).await;
    }

    /// Awaits `run` while renewing the claim every [`TASK_RENEWAL`] (with the latest progress);
    /// `None` when the claim was lost (the run is stopped, and its result is not this
    /// worker's to write).
    async fn supervised(
        &self,
        id: &TaskId,
        latest: &Mutex<Option<ProgressUpdate>>,
        run: impl Future<Output = ToolResult>,
    ) -> Option<ToolResult> {
        let mut run = std::pin::pin!(run);
        let mut ticks = tokio::time::interval(TASK_RENEWAL);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks.tick().await;
        let mut lost = false;
        loop {
            tokio::select! {
                result = &mut run => return (!lost).then_some(result),
                _ = ticks.tick() => {
                    let progress = latest.lock().unwrap_or_else(|p| p.into_inner()).take();
                    let renewed = self.storage
                        .renew_task(id, &self.worker, TASK_LEASE, progress.as_ref())
                        .await;
                    match renewed {
                        Ok(Renewal::Held) => {}
                        Ok(Renewal::Cancelled) => self.token.cancel(),
                        Ok(Renewal::Lost) => {
                            lost = true;
                            self.token.cancel();
                        }
                        Err(e) => tracing::warn!(task = %id, error = %e.chain(), "could not renew a task's claim"),
                    }
                }
            }
        }
    }

    /// Writes `outcome`, trying again while the database cannot be reached (past the lease,
    /// another worker runs the task again: at least once).
    async fn finish(&self, id: &TaskId, outcome: &TaskOutcome) {
        let mut pause = Duration::from_millis(200);
        for attempt in 1..=FINISH_TRIES {
            match self.storage.finish_task(id, &self.worker, outcome).await {
                Ok(written) => {
                    tracing::info!(task = %id, status = %outcome.status, written, "task ended");
                    return;
                }
                Err(e) if e.is_unreachable() && attempt < FINISH_TRIES => {
                    tracing::warn!(task = %id, error = %e.chain(), "could not write a task's outcome; trying again");
                    tokio::time::sleep(pause).await;
                    pause *= 2;
                }
                Err(e) => {
                    tracing::error!(task = %id, error = %e.chain(), "could not write a task's outcome: it runs again once its claim lapses");
                    return;
                }
            }
        }
    }
}

/// Whether a run answered `in_progress` (its `once` key is claimed by another run) or
/// `unavailable` (the database could not be reached): both pass, so the task is run again.
fn deferred(result: &ToolResult) -> bool {
    result
        .error()
        .is_some_and(|e| e.code == codes::IN_PROGRESS || e.code == codes::UNAVAILABLE)
}

/// The scopes a task was stored with (`null`: unrestricted).
fn scopes(stored: &Value) -> Scopes {
    match stored {
        Value::Array(list) => Scopes::only(list.iter().filter_map(Value::as_str)),
        _ => Scopes::Unrestricted,
    }
}

/// How a run's `result` ends its task: cancelled when the task was (its token fired and the
/// call failed, however), failed on an internal error or a result over `bound` bytes,
/// completed otherwise (a tool error is the result of a completed task, as a direct call's).
fn outcome(result: ToolResult, cancelled: bool, bound: u64) -> TaskOutcome {
    let code = result.error().map(|e| e.code.as_str());
    // Cancelled by its owner: however the run then failed (`cancelled`, or a handler that saw
    // the cancellation first and gave up its own way), the task is cancelled.
    if cancelled && code.is_some() {
        return TaskOutcome {
            status: TaskStatus::Cancelled,
            result: None,
        };
    }
    let stored = stored_result(&result);
    let size = stored.to_string().len() as u64;
    if size > bound {
        return failed_outside(format!(
            "the task's result is {size} bytes of JSON, over the project's `tasks.max_result_bytes` ({bound})"
        ));
    }
    let status = match code {
        Some(codes::INTERNAL_ERROR) => TaskStatus::Failed,
        _ => TaskStatus::Completed,
    };
    TaskOutcome {
        status,
        result: Some(stored),
    }
}

/// A task that failed outside its tool's contract: an internal error (`exception` is logged,
/// never stored).
fn failed_outside(exception: String) -> TaskOutcome {
    tracing::error!(exception = %exception, "task failed");
    let error = crate::failure::ToolError::internal(None);
    let result = ToolResult::failed(error, None);
    TaskOutcome {
        status: TaskStatus::Failed,
        result: Some(stored_result(&result)),
    }
}
