//! The MCP tasks extension (`io.modelcontextprotocol/tasks`): a call of a tool that declares
//! `task:`, from a client that declared the extension (for its session or in the request's
//! `_meta`), answers a `CreateTaskResult` once the task is stored; `tasks/get` answers the
//! task with its result inlined once it ended — the `CallToolResult` a direct call would have
//! answered, tool errors included (`completed` with `isError`); `failed` carries a JSON-RPC
//! error — and `tasks/cancel` cancels it on whichever process runs it. A task is its caller's:
//! another caller's id answers as an unknown one (`-32602`). A client without the extension
//! that calls a tool whose task is `required` is refused with `-32021`, its message naming the
//! extension the client must declare. `tasks/get`, `tasks/cancel` and `tasks/update` each spend
//! one of the caller's task requests (the registry's budget, shared with the HTTP API's): past
//! it, `-32000` with `data` `{code: rate_limited, retry_after}`.

use rmcp::model::ErrorCode;
use rmcp::model::{
    CallToolResult, ClientCapabilities, CreateTaskResult, DetailedTask, GetTaskResult, JsonObject,
    TASKS_EXTENSION_ID, Task as McpTask, TaskPayload, TaskStatus as McpStatus,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Value, json};
use toolspec_vocab::codes;
use toolspec_vocab::settings::PresentAs;

use crate::model::caller::Caller;
use crate::model::failure::{ToolError, ToolResult};
use crate::model::task::{Accept, POLL_INTERVAL, Task, TaskStatus, timestamp};
use crate::registry::Registry;
use crate::worker::TaskError;

use super::reply::reply;

/// Whether the request's client declared the tasks extension (for its session, or in the
/// request's own `_meta`).
pub(super) fn accepts(context: &RequestContext<RoleServer>) -> Accept {
    let declared = context
        .client_capabilities()
        .is_some_and(|caps| caps.supports_tasks());
    if declared {
        Accept::Tasks
    } else {
        Accept::ResultsOnly
    }
}

/// The refusal of a call of tool `name`, whose task is `required`, by a client without the
/// extension: rmcp's missing-capability error (`-32021`, the capability in `data`), its message
/// saying what the client needs, since a client shows the message and not the data.
pub(super) fn extension_required(name: &str) -> ErrorData {
    let required = ErrorData::missing_required_client_capability(
        ClientCapabilities::builder().enable_tasks().build(),
    );
    let message = format!(
        "`{name}` runs only as a durable task: call it from a client that declares MCP's tasks \
         extension (`{TASKS_EXTENSION_ID}`) in its capabilities; this client does not."
    );
    ErrorData::new(required.code, message, required.data)
}

/// The answer to a call stored as `task`.
pub(super) fn created(task: &Task) -> CreateTaskResult {
    CreateTaskResult::new(base(task))
}

/// Task `id` of `caller`, for `tasks/get`.
pub(super) async fn read(
    registry: &Registry,
    id: &str,
    caller: &Caller,
) -> Result<Task, ErrorData> {
    let _permit = registry.admit_task_request(caller).map_err(too_many)?;
    registry.task(id, caller).await.map_err(refused)
}

/// The answer to `tasks/get` for `task`, whose tool presents its results `present_as`.
pub(super) fn got(task: &Task, present_as: PresentAs) -> GetTaskResult {
    GetTaskResult::new(detailed(task, present_as))
}

/// The answer to `tasks/cancel`: an empty acknowledgement, whether the task was running or
/// had ended already.
pub(super) async fn cancel(
    registry: &Registry,
    id: &str,
    caller: &Caller,
) -> Result<(), ErrorData> {
    let _permit = registry.admit_task_request(caller).map_err(too_many)?;
    registry
        .cancel_task(id, caller)
        .await
        .map(|_| ())
        .map_err(refused)
}

/// The answer to `tasks/update`: toolspec's tasks never wait for input, so there is nothing
/// to update (an unknown task is refused as such).
pub(super) async fn update(
    registry: &Registry,
    id: &str,
    caller: &Caller,
) -> Result<(), ErrorData> {
    let task = read(registry, id, caller).await?;
    Err(ErrorData::invalid_params(
        format!(
            "Task {} is not waiting for input (it is {}).",
            task.id, task.status
        ),
        None,
    ))
}

/// The task's fields every answer carries.
fn base(task: &Task) -> McpTask {
    let mut base = McpTask::new(
        task.id.as_str(),
        status(task.status),
        timestamp(task.created_at),
        timestamp(task.updated_at),
    )
    .with_ttl_ms(u64::try_from(task.ttl().as_millis()).unwrap_or(u64::MAX));
    if !task.status.is_terminal() {
        let poll = u64::try_from(POLL_INTERVAL.as_millis()).unwrap_or(1000);
        base = base.with_poll_interval_ms(poll);
    }
    if let Some(message) = task.status_message() {
        base = base.with_status_message(message);
    }
    base
}

/// The task with its payload: its result once it ended, as a direct call would have answered.
fn detailed(task: &Task, present_as: PresentAs) -> DetailedTask {
    let payload = match (task.status, &task.result) {
        (TaskStatus::Working, _) => TaskPayload::Working,
        (TaskStatus::Cancelled, _) => TaskPayload::Cancelled,
        (TaskStatus::Failed, result) => TaskPayload::Failed {
            error: protocol_error(result.as_ref()),
        },
        (TaskStatus::Completed, Some(result)) => TaskPayload::Completed {
            result: object(reply(result.clone(), present_as)),
        },
        (TaskStatus::Completed, None) => TaskPayload::Failed {
            error: protocol_error(None),
        },
    };
    DetailedTask::new(base(task), payload)
}

/// A failed task's JSON-RPC error: an internal error with the message the model may see.
fn protocol_error(result: Option<&ToolResult>) -> JsonObject {
    let message = result
        .and_then(ToolResult::error)
        .map_or("The task failed.", |e| e.message.as_str());
    let mut error = JsonObject::new();
    error.insert(
        "code".into(),
        json!(ErrorData::internal_error("", None).code.0),
    );
    error.insert("message".into(), json!(message));
    error
}

/// A call's result as the JSON object a task inlines.
fn object(result: CallToolResult) -> JsonObject {
    match serde_json::to_value(result) {
        Ok(Value::Object(map)) => map,
        _ => JsonObject::new(),
    }
}

/// MCP's spelling of a status.
fn status(status: TaskStatus) -> McpStatus {
    match status {
        TaskStatus::Working => McpStatus::Working,
        TaskStatus::Completed => McpStatus::Completed,
        TaskStatus::Failed => McpStatus::Failed,
        TaskStatus::Cancelled => McpStatus::Cancelled,
    }
}

/// The JSON-RPC error of a task request past its caller's budget: `-32000` (a server error),
/// `data` saying `rate_limited` and in how many seconds to retry, as the HTTP API's `429`.
fn too_many(error: ToolError) -> ErrorData {
    let seconds = error
        .details
        .as_ref()
        .and_then(|d| d.get(codes::RETRY_AFTER));
    let data = json!({ "code": error.code, codes::RETRY_AFTER: seconds });
    ErrorData::new(ErrorCode(TOO_MANY_REQUESTS), error.message, Some(data))
}

/// The JSON-RPC code of a request refused for its caller's budget: a server error.
const TOO_MANY_REQUESTS: i32 = -32000;

/// Why a task could not be read or cancelled, as a JSON-RPC error: an unknown (or another
/// caller's, or malformed) id is invalid params, as MCP asks.
fn refused(error: TaskError) -> ErrorData {
    match error {
        TaskError::Malformed(_) | TaskError::Unknown => {
            ErrorData::invalid_params(format!("Unknown task: {error}"), None)
        }
        TaskError::NoQueue => ErrorData::internal_error("This server keeps no tasks.", None),
        e => {
            tracing::warn!(error = %e, "a task could not be read");
            let retry = e.is_unavailable();
            let message = match retry {
                true => "The task queue is unavailable; try again in a few seconds.",
                false => "The task could not be read.",
            };
            ErrorData::internal_error(message, None)
        }
    }
}
