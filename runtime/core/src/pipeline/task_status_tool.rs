//! The built-in task status tool: what the pipeline runs in place of a tool's own stages when
//! it is called. Its arguments are checked against its published schema; the task they name
//! is read as the call's caller owns it (another caller's task does not exist for it, here as
//! on every task surface), waiting up to `wait_seconds` for it to end; the task, with its
//! result once it has one, is the answer. It never runs a handler.

use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use crate::call::{Answer, Call, Mode};
use crate::model::descriptor::Descriptor;
use crate::model::failure::{ToolError, ToolResult};
use crate::model::report::{Errors, invalid_arguments};
use crate::model::task::{Task, TaskId};
use crate::pipeline::builtin::BuiltinSchema;
use crate::pipeline::task::queue_failed;
use crate::registry::{Imp, RegisteredTool, Registry};
use crate::storage::Storage;
use toolspec_vocab::codes;
use toolspec_vocab::tasks::status_tool;

/// The tool's arguments, checked against its published schema.
pub(crate) static ARGUMENTS: BuiltinSchema = BuiltinSchema::new(status_tool::INPUT_SCHEMA);

/// How often a waiting call reads its task again: the first read after `FIRST_POLL`, each
/// next one twice as late, at most [`POLL_CAP`] apart.
const FIRST_POLL: Duration = Duration::from_millis(100);
/// The longest pause between two reads of a waited-for task.
const POLL_CAP: Duration = Duration::from_secs(1);

/// The task status tool's stages for `call` with its arguments `args`.
pub(crate) async fn run(registry: &Registry, call: Call<'_>, args: Value) -> Answer {
    let args = if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    };
    if call.mode == Mode::Explain {
        let explanation = ARGUMENTS.explain(&call.tool.name, &args, registry.limits());
        return Answer::Explained(Ok(Box::new(explanation)));
    }
    let errors = ARGUMENTS.errors(&args, registry.limits());
    if !errors.is_empty() {
        return Answer::Called(invalid_arguments(&errors));
    }
    let id = args
        .get("task_id")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let wait = args
        .get("wait_seconds")
        .and_then(Value::as_u64)
        .unwrap_or(0);
    let wait = Duration::from_secs(wait.min(status_tool::MAX_WAIT_SECONDS));
    let owner = call.options.caller.as_deref().unwrap_or_default();
    let cancelled = call.options.cancellation.clone();
    let read = async {
        // The schema's pattern refused a malformed id already; this is the same rule.
        let id = TaskId::parse(id).map_err(|e| {
            let errors = Errors::one("/task_id", e.to_string());
            invalid_arguments(&errors)
        })?;
        let Some(storage) = call.rules.storage.as_deref() else {
            return Err(ToolResult::internal(
                call.tool,
                "no database keeps tasks".into(),
            ));
        };
        let deadline = Instant::now() + wait;
        let mut pause = FIRST_POLL;
        loop {
            let task = read_task(call.tool, storage, &id, owner).await?;
            let now = Instant::now();
            if task.status.is_terminal() || now >= deadline {
                return Ok(task);
            }
            tokio::time::sleep(pause.min(deadline - now)).await;
            pause = (pause * 2).min(POLL_CAP);
        }
    };
    let result = tokio::select! {
        read = read => match read {
            Ok(task) => answer(&task),
            Err(result) => result,
        },
        _ = cancelled.cancelled() => ToolResult::failed(ToolError::cancelled(), None),
    };
    Answer::Called(result)
}

/// The task as the tool answers it: its JSON, and a sentence for the model.
fn answer(task: &Task) -> ToolResult {
    let message = match task.status_message() {
        Some(status) => format!(
            "Task {} of `{}` is {}: {status}",
            task.id, task.tool, task.status
        ),
        None => format!("Task {} of `{}` is {}.", task.id, task.tool, task.status),
    };
    ToolResult {
        outcome: Ok(task.to_json()),
        message,
        exception: None,
        replay_of: None,
        truncated: None,
    }
}

/// Task `id` of `owner`, read from `storage` — or why not, as the tool answers it.
async fn read_task(
    tool: &Descriptor,
    storage: &dyn Storage,
    id: &TaskId,
    owner: &str,
) -> Result<Task, ToolResult> {
    let read = match storage.prepare().await {
        Ok(()) => storage.read_task(id, owner).await,
        Err(e) => Err(e),
    };
    match read {
        Ok(Some(task)) => Ok(task),
        Ok(None) => {
            let error = ToolError {
                code: codes::UNKNOWN_TASK.into(),
                message: "There is no task with this id: it may have expired. Call the tool \
                          that started it again if you still need its result."
                    .into(),
                details: None,
            };
            Err(ToolResult::failed(error, None))
        }
        Err(e) => Err(queue_failed(tool, storage, e, "reading the task")),
    }
}

/// Redacts, in place, what a task read through the tool shows of its tool's result: as that
/// tool redacts its own output (a tool no longer registered: the result is hidden whole).
pub(crate) fn redact_output(registry: &Registry, value: &mut Value) {
    let Value::Object(task) = value else { return };
    let tool = task.get("tool").and_then(Value::as_str).unwrap_or_default();
    let imp = registry.get(tool).map(|t: RegisteredTool<'_>| t.imp());
    let Some(result) = task.get_mut("result") else {
        return;
    };
    match imp {
        Some(Imp::Tool(stages)) => stages.sensitive_output().redact(result),
        _ => *result = Value::String(crate::schema::sensitive::REDACTED.to_owned()),
    }
}
