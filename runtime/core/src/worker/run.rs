//! The worker loop: say which tools it serves (again whenever its servers add some), claim
//! what there is room for — of those tools only, each caller within its share —, run each
//! claimed task beside the others, record the end of tasks cancelled before any worker ran
//! them, and sleep until a task is stored, cancelled or ended (the
//! storage's events, from any process on the database), a run ends, or it is time to look for
//! claims whose lease passed (a dead worker's) and to sweep tasks whose retention passed. Idle,
//! it wakes every few seconds and does one query. When the registry is dropped it says it
//! serves nothing any more.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;
use toolspec_vocab::codes;

use crate::call::options::CallOptions;
use crate::model::ambient::AmbientContext;
use crate::model::caller::Scopes;
use crate::model::context::{Progress, ProgressUpdate};
use crate::model::descriptor::Text;
use crate::model::failure::{ToolError, ToolResult};
use crate::model::task::{TaskId, TaskStatus, stored_result};
use crate::registry::{RegisteredTool, Registry};
use crate::storage::{
    ClaimedTask, NewTask, Renewal, ServedTool, Storage, TASK_LEASE, TASK_RENEWAL, TaskEvent,
    TaskOutcome,
};

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

/// Runs the worker of `registry` over `storage` until the registry is dropped, then says it
/// serves nothing.
pub(super) async fn work(registry: Weak<Registry>, storage: Arc<dyn Storage>) {
    let worker = uuid::Uuid::now_v7().simple().to_string();
    let served = match registry.upgrade() {
        Some(registry) => registry.served_tasks().subscribe(),
        None => return,
    };
    let _gone = claim_and_run(&registry, &storage, &worker, served).await;
    if let Err(e) = storage.stop_serving(&worker).await {
        tracing::debug!(error = %e.chain(), "could not say that a task worker stopped");
    }
}

/// The loop of [`work`]; `None` once the registry is dropped.
async fn claim_and_run(
    registry: &Weak<Registry>,
    storage: &Arc<dyn Storage>,
    worker: &str,
    mut served: watch::Receiver<BTreeSet<Text>>,
) -> Option<()> {
    let mut events = storage.task_events();
    let mut claims = Claims {
        registry,
        storage,
        worker,
        running: Arc::default(),
        runs: JoinSet::new(),
    };
    let mut next_sweep = Instant::now();
    // Whether the storage knows what the worker serves now.
    let mut said = false;
    // Whether a task may have been cancelled before any worker ran it since the last look
    // (at the start, on a cancellation, when idle).
    let mut cancelled = true;
    tracing::debug!(worker, "task worker started");
    loop {
        // toolspec's tables exist once this succeeds (a no-op after the first time).
        if let Err(e) = storage.prepare().await {
            tracing::warn!(error = %e.chain(), "the task queue could not be prepared");
            tokio::time::sleep(IDLE).await;
            registry.upgrade()?;
            continue;
        }
        if served.has_changed().unwrap_or(false) {
            said = false;
        }
        if !said {
            let registry = registry.upgrade()?;
            let tools = served_tools(&registry, &served.borrow_and_update());
            match storage.serve_tasks(worker, &tools).await {
                Ok(()) => said = true,
                Err(e) => {
                    tracing::warn!(error = %e.chain(), "could not say which tasks this worker runs")
                }
            }
        }
        if Instant::now() >= next_sweep {
            next_sweep = Instant::now() + SWEEP;
            match storage.delete_expired_tasks().await {
                Ok(0) => {}
                Ok(deleted) => tracing::info!(deleted, "deleted tasks past their retention"),
                Err(e) => tracing::warn!(error = %e.chain(), "could not delete expired tasks"),
            }
        }
        if said {
            claims.what_fits().await?;
            if cancelled {
                cancelled = !claims.cancelled_ones().await?;
            }
        }
        registry.upgrade()?;
        tokio::select! {
            event = events.recv() => match event {
                Ok(TaskEvent::Enqueued | TaskEvent::Ended) => {}
                Ok(TaskEvent::Cancelled(id)) => {
                    if let Some(token) = lock(&claims.running).get(&id) {
                        token.cancel();
                    }
                    cancelled = true;
                }
                Err(RecvError::Lagged(_)) => cancelled = true,
                Err(RecvError::Closed) => events = storage.task_events(),
            },
            Some(_) = claims.runs.join_next(), if !claims.runs.is_empty() => {}
            // An error: the registry, which holds the sender, is gone.
            changed = served.changed() => changed.ok()?,
            () = tokio::time::sleep(IDLE) => cancelled = true,
        }
    }
}

/// What the worker claims, and the runs of what it claimed.
struct Claims<'w> {
    registry: &'w Weak<Registry>,
    storage: &'w Arc<dyn Storage>,
    worker: &'w str,
    running: Running,
    runs: JoinSet<()>,
}

impl Claims<'_> {
    /// Claims tasks and starts their runs while there is room and work; `None` once the
    /// registry is dropped.
    async fn what_fits(&mut self) -> Option<()> {
        loop {
            let registry = self.registry.upgrade()?;
            let bounds = registry.project().tasks;
            if self.runs.len() >= bounds.concurrency.max(1) as usize {
                return Some(());
            }
            match self
                .storage
                .claim_task(self.worker, TASK_LEASE, &bounds)
                .await
            {
                Ok(Some(claimed)) => {
                    let token = CancellationToken::new();
                    lock(&self.running).insert(claimed.task.id.clone(), token.clone());
                    let run = Run {
                        registry,
                        storage: Arc::clone(self.storage),
                        worker: self.worker.to_owned(),
                        running: Arc::clone(&self.running),
                        token,
                    };
                    self.runs.spawn(run.task(claimed));
                }
                Ok(None) => return Some(()),
                Err(e) => {
                    if e.is_unreachable() {
                        self.storage.suspect(&e.chain());
                    }
                    tracing::warn!(error = %e.chain(), "could not claim a task");
                    return Some(());
                }
            }
        }
    }

    /// Records the end of each task cancelled before a worker ran it: whether none is left;
    /// `None` once the registry is dropped.
    async fn cancelled_ones(&self) -> Option<bool> {
        loop {
            let registry = self.registry.upgrade()?;
            match self.storage.claim_unrecorded(self.worker, TASK_LEASE).await {
                Ok(Some(cancelled)) => {
                    record_cancelled(&registry, &**self.storage, self.worker, cancelled).await
                }
                Ok(None) => return Some(true),
                Err(e) => {
                    tracing::warn!(error = %e.chain(), "could not claim a cancelled task to record");
                    return Some(false);
                }
            }
        }
    }
}

/// Records the end of a task cancelled before a worker ran it (its record, like a run's,
/// made by the pipeline without running anything), then lets what it stored go.
async fn record_cancelled(
    registry: &Registry,
    storage: &dyn Storage,
    worker: &str,
    cancelled: ClaimedTask,
) {
    let mut task = cancelled.task;
    let Some(tool) = registry.get(&task.tool) else {
        tracing::error!(task = %task.id, tool = &*task.tool, "claimed a task of a tool this process does not serve");
        return;
    };
    let ambient = ambient(&mut task);
    let options = call_options(&task, CancellationToken::new(), Progress::default());
    let result = ToolResult::failed(
        ToolError::cancelled(),
        Some("cancelled before it ran".into()),
    );
    let arguments = std::mem::take(&mut task.arguments);
    tool.fail_task(arguments, &ambient, options, result).await;
    if let Err(e) = storage.recorded(&task.id, worker).await {
        tracing::warn!(task = %task.id, error = %e.chain(), "could not say a cancelled task is recorded: it is recorded again");
    }
}

/// The trusted ambient context `task` stored (taken from it).
fn ambient(task: &mut NewTask) -> AmbientContext {
    match std::mem::take(&mut task.ambient) {
        Value::Object(map) => AmbientContext::from(map),
        _ => AmbientContext::from(Map::new()),
    }
}

/// The options of a run of `task`: its stored caller, adapter, scopes and trace id.
fn call_options(
    task: &NewTask,
    cancellation: CancellationToken,
    progress: Progress,
) -> CallOptions {
    CallOptions {
        adapter: task.adapter.clone(),
        caller: Some(task.owner.clone()).filter(|o| !o.is_empty()),
        scopes: scopes(&task.scopes),
        cancellation,
        progress,
        trace_id: task.trace_id.clone(),
        // Confirmed and filled in when it was stored.
        continuation: None,
    }
}

/// The tools of `names` as the worker of `registry` serves them: with how many of one caller's
/// tasks of each may run at once (its rate limit's `in_flight` here).
fn served_tools<'r>(registry: &'r Registry, names: &BTreeSet<Text>) -> Vec<ServedTool<'r>> {
    names
        .iter()
        .filter_map(|name| registry.get(name))
        .map(|tool| ServedTool {
            name: &tool.descriptor().name,
            in_flight: tool.limiter().map_or(0, |l| l.limit().in_flight),
        })
        .collect()
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
        let mut task = claimed.task;
        let id = task.id.clone();
        let Some(tool) = self.registry.get(&task.tool) else {
            // Claims are of the tools this worker serves, which are registered here.
            lock(&self.running).remove(&id);
            tracing::error!(task = %id, tool = &*task.tool, "claimed a task of a tool this process does not serve: it runs once its claim lapses");
            return;
        };
        let latest: Arc<Mutex<Option<ProgressUpdate>>> = Arc::default();
        let ambient = ambient(&mut task);
        let sink = Arc::clone(&latest);
        let progress = Progress::new(move |update| {
            *sink.lock().unwrap_or_else(|p| p.into_inner()) = Some(update);
        });
        let options = call_options(&task, self.token.clone(), progress);
        let outcome = if claimed.attempt > MAX_ATTEMPTS {
            // Recorded like any end of the task: its audit record says why.
            let result = gave_up(tool);
            Some(outcome(
                tool.fail_task(task.arguments, &ambient, options, result)
                    .await,
                false,
            ))
        } else {
            tracing::info!(task = %id, tool = &*task.tool, attempt = claimed.attempt, "task started");
            let run = tool.run_task(task.arguments, &ambient, options, task.timeout);
            match self.supervised(&id, &latest, run).await {
                // Nothing ran for want of something that comes back — the database, or the
                // `once` key still claimed by a run that may be a dead worker's: the task is
                // left to run again once its own claim lapses.
                Some(result) if deferred(&result) => {
                    lock(&self.running).remove(&id);
                    let code = result.error().map_or("", |e| e.code.as_str());
                    tracing::info!(task = %id, code, "task deferred: it runs again once its claim lapses");
                    return;
                }
                Some(result) => Some(outcome(result, self.token.is_cancelled())),
                None => None,
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
    /// another worker runs the task again: at least once). The run's end is logged first:
    /// once written, the task's place among its caller's running ones is another's.
    async fn finish(&self, id: &TaskId, outcome: &TaskOutcome) {
        tracing::info!(task = %id, status = %outcome.status, "task ended");
        let mut pause = Duration::from_millis(200);
        for attempt in 1..=FINISH_TRIES {
            match self.storage.finish_task(id, &self.worker, outcome).await {
                Ok(true) => return,
                Ok(false) => {
                    tracing::info!(task = %id, "the task's outcome was not written: it was cancelled, or another worker took it over");
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
/// call failed, however), failed on an internal error (a result over the project's
/// `tasks.max_result_bytes` is one, made by the pipeline), completed otherwise (a tool error is
/// the result of a completed task, as a direct call's).
fn outcome(result: ToolResult, cancelled: bool) -> TaskOutcome {
    let code = result.error().map(|e| e.code.as_str());
    // Cancelled by its owner: however the run then failed (`cancelled`, or a handler that saw
    // the cancellation first and gave up its own way), the task is cancelled.
    if cancelled && code.is_some() {
        return TaskOutcome {
            status: TaskStatus::Cancelled,
            result: None,
        };
    }
    let status = match code {
        Some(codes::INTERNAL_ERROR) => TaskStatus::Failed,
        _ => TaskStatus::Completed,
    };
    TaskOutcome {
        status,
        result: Some(stored_result(&result)),
    }
}

/// The internal error of a task of `tool` started [`MAX_ATTEMPTS`] times without ending (the
/// exception, for operators, says why).
fn gave_up(tool: RegisteredTool<'_>) -> ToolResult {
    let exception = format!(
        "the task was started {MAX_ATTEMPTS} times and never ended: its worker died each time"
    );
    ToolResult::internal(tool.descriptor(), exception)
}
