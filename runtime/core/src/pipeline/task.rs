//! Stage: a call of a tool that declares `task:` is handed to the queue instead of running —
//! when the caller can take a task handle and the tool may (or must) run as a task — once its
//! arguments are screened and validated (a call that would be refused is refused at once, not
//! as a task). What is stored is what the run needs: the validated arguments, the caller's
//! identity and scopes, its trusted ambient context and the trace id. A worker then runs the
//! stages from the top with them (`tasks::worker`); a required task refuses a caller that
//! cannot take a handle with `task_required`.

use chrono::Utc;
use serde_json::Value;
use toolspec_vocab::codes;
use toolspec_vocab::tasks::{TaskDecl, TaskSupport};

use crate::call::options::{CallOptions, Rules};
use crate::model::ambient::AmbientContext;
use crate::model::caller::Scopes;
use crate::model::descriptor::Descriptor;
use crate::model::failure::{RETRY_UNAVAILABLE, ToolError, ToolResult};
use crate::model::task::{Accept, Queued, Task, TaskId, TaskStatus};
use crate::storage::{Enqueued, NewTask, OwnerBound, Storage, StorageError, TasksConfig};

/// What becomes of a call of a tool with `task:`.
pub(crate) enum Decision {
    /// It runs inline.
    Inline,
    /// It is handed to the queue.
    Enqueue,
    /// It is refused: the tool runs only as a task and the caller cannot take a handle.
    Refuse,
}

/// What becomes of a call of a tool whose `task:` is `task`, by a caller that accepts `accept`.
pub(crate) fn decide(task: &TaskDecl, accept: Accept) -> Decision {
    match (task.support, accept) {
        (_, Accept::Tasks) | (TaskSupport::Required, Accept::WhenRequired) => Decision::Enqueue,
        (TaskSupport::Required, Accept::ResultsOnly) => Decision::Refuse,
        (TaskSupport::Optional, _) => Decision::Inline,
    }
}

/// `task_required`: `tool` runs only as a task.
pub(crate) fn required(tool: &Descriptor) -> ToolResult {
    let error = ToolError {
        code: codes::TASK_REQUIRED.into(),
        message: format!(
            "`{}` runs only as a task, and this call cannot take a task handle.",
            tool.name
        ),
        details: None,
    };
    ToolResult::failed(error, None)
}

/// Stores the call as a task: the new task, or why it could not be stored.
///
/// An `async` block rather than an `async fn`, whose arguments would be stored twice in the
/// future.
pub(crate) fn hand_off<'a>(
    tool: &'a Descriptor,
    task: &'a TaskDecl,
    arguments: Value,
    ambient: &'a AmbientContext,
    options: &'a CallOptions,
    rules: &'a Rules,
) -> impl Future<Output = Result<Task, ToolResult>> + Send + 'a {
    async move {
        let Some(storage) = rules.storage.as_deref() else {
            return Err(ToolResult::internal(
                tool,
                "the tool runs as a task, and the registry has no database to keep tasks in".into(),
            ));
        };
        // While the database is known to be down, at once (as the availability stage does).
        if let Some(why) = storage.known_down() {
            return Err(ToolResult::unavailable(
                tool,
                "the task queue",
                RETRY_UNAVAILABLE,
                why,
            ));
        }
        if let Err(e) = storage.prepare().await {
            return Err(queue_failed(tool, storage, e, "storing the task"));
        }
        let created_at = Utc::now();
        let retention =
            chrono::Duration::from_std(task.retention()).unwrap_or(chrono::Duration::MAX);
        let new = NewTask {
            id: TaskId::random(),
            owner: options.caller.clone().unwrap_or_default(),
            tool: tool.name.to_string(),
            adapter: options.adapter.clone(),
            scopes: match &options.scopes {
                Scopes::Unrestricted => Value::Null,
                Scopes::Only(held) => held.iter().cloned().collect(),
            },
            ambient: ambient
                .iter()
                .map(|(k, v)| (k.to_owned(), v.clone()))
                .collect(),
            arguments,
            trace_id: options.trace_id.clone(),
            created_at,
            expires_at: created_at + retention,
            timeout: task.timeout(),
        };
        match storage.enqueue_task(&new, &rules.tasks).await {
            Ok(Enqueued::Stored) => Ok(Task {
                id: new.id,
                tool: new.tool,
                status: TaskStatus::Working,
                created_at,
                updated_at: created_at,
                expires_at: new.expires_at,
                progress: None,
                attempts: 0,
                queued: Some(Queued::ForWorker),
                result: None,
            }),
            Ok(Enqueued::OwnerAtBound(bound)) => Err(too_many(bound, &rules.tasks)),
            Err(e) => Err(queue_failed(tool, storage, e, "storing the task")),
        }
    }
}

/// `result`, the answer of a task's run of `tool`, as its task keeps it: an internal error
/// when what is kept would be over `bound` bytes of JSON (the project's
/// `tasks.max_result_bytes`).
pub(crate) fn kept(tool: &Descriptor, result: ToolResult, bound: u64) -> ToolResult {
    let size = crate::model::task::stored_result(&result).to_string().len() as u64;
    if size <= bound {
        return result;
    }
    ToolResult::internal(
        tool,
        format!(
            "the task's result is {size} bytes of JSON, over the project's \
             `tasks.max_result_bytes` ({bound})"
        ),
    )
}

/// `too_many_tasks`: the caller is at `bound` of `config`'s.
fn too_many(bound: OwnerBound, config: &TasksConfig) -> ToolResult {
    let message = match bound {
        OwnerBound::Unfinished => format!(
            "You have {} unfinished tasks, as many as allowed: wait for one to end, or cancel one.",
            config.per_caller
        ),
        OwnerBound::Kept => format!(
            "You keep {} tasks, as many as allowed (an ended task is kept with its result until \
             its retention passes): wait for the oldest to be deleted.",
            config.kept_per_caller
        ),
        OwnerBound::KeptBytes => format!(
            "Your kept tasks' results add up to {} bytes or more, as much as allowed (an ended \
             task is kept with its result until its retention passes): wait for the oldest to \
             be deleted.",
            config.kept_bytes_per_caller
        ),
    };
    let error = ToolError {
        code: codes::TOO_MANY_TASKS.into(),
        message,
        details: None,
    };
    ToolResult::failed(error, None)
}

/// Why the task queue failed a call of `tool` while `doing` ("storing the task"):
/// `unavailable` when the database could not be reached (it is then probed), an internal error
/// otherwise.
pub(super) fn queue_failed(
    tool: &Descriptor,
    storage: &dyn Storage,
    e: StorageError,
    doing: &str,
) -> ToolResult {
    if e.is_unreachable() {
        storage.suspect(&e.to_string());
        return ToolResult::unavailable(tool, "the task queue", RETRY_UNAVAILABLE, e.chain());
    }
    ToolResult::internal(tool, format!("{doing}: {}", e.chain()))
}
