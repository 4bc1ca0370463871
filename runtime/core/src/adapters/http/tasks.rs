//! Durable tasks over the HTTP API: a call of a tool that declares `task:` with
//! `Prefer: respond-async` (or of one whose task is `required`, whatever the request prefers)
//! answers `202 Accepted`, `Location: /tasks/{id}` and the task; `GET /tasks/{id}` answers the
//! task (`status`, `progress` while it runs, then `result` or `error` as the call would have
//! answered them), `DELETE /tasks/{id}` cancels it, `GET /tasks` lists the caller's unfinished
//! tasks. Another caller's task is `404 unknown_task`, like one that never existed or whose
//! retention passed; an id that is not one is `400 invalid_task_id`. Each of these spends one
//! of the caller's task requests (the registry's budget, shared with MCP's): past it, `429
//! rate_limited` with `Retry-After`.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use toolspec_vocab::codes;
use toolspec_vocab::http as statuses;

use crate::adapters::gate::failure::failure;
use crate::model::caller::Caller;
use crate::model::failure::ToolError;
use crate::model::task::{Accept, Task};
use crate::registry::Registry;
use crate::worker::TaskError;

/// Where a task is read, cancelled: `/tasks/{id}`.
pub(super) fn location(task: &Task) -> String {
    format!("/tasks/{}", task.id)
}

/// What a request to call a tool accepts: a task whenever the tool may run as one when it
/// prefers `respond-async` (RFC 7240), else only where the tool requires it.
pub(super) fn accepts(headers: &HeaderMap) -> Accept {
    let prefers_async = headers
        .get_all("prefer")
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|preference| {
            let name = preference.split(';').next().unwrap_or_default();
            name.trim().eq_ignore_ascii_case("respond-async")
        });
    match prefers_async {
        true => Accept::Tasks,
        false => Accept::WhenRequired,
    }
}

/// `202 Accepted` for a call stored as `task`, with its `Location`.
pub(super) fn accepted(task: &Task, preferred: bool) -> Response {
    let mut response = (StatusCode::ACCEPTED, axum::Json(task.to_json())).into_response();
    let headers = response.headers_mut();
    if let Ok(location) = HeaderValue::from_str(&location(task)) {
        headers.insert(header::LOCATION, location);
    }
    if preferred {
        headers.insert(
            "preference-applied",
            HeaderValue::from_static("respond-async"),
        );
    }
    response
}

/// `GET /tasks/{id}`: task `id` of `caller`.
pub(super) async fn read(registry: &Registry, id: &str, caller: &Caller) -> Response {
    let _permit = match registry.admit_task_request(caller) {
        Ok(permit) => permit,
        Err(error) => return too_many(&error),
    };
    match registry.task(id, caller).await {
        Ok(task) => (StatusCode::OK, axum::Json(task.to_json())).into_response(),
        Err(error) => refused(&error),
    }
}

/// `DELETE /tasks/{id}`: the task as it is once cancelled (or as it ended, when it had).
pub(super) async fn cancel(registry: &Registry, id: &str, caller: &Caller) -> Response {
    let _permit = match registry.admit_task_request(caller) {
        Ok(permit) => permit,
        Err(error) => return too_many(&error),
    };
    match registry.cancel_task(id, caller).await {
        Ok(task) => (StatusCode::OK, axum::Json(task.to_json())).into_response(),
        Err(error) => refused(&error),
    }
}

/// `GET /tasks`: the caller's unfinished tasks, newest first.
pub(super) async fn list(registry: &Registry, caller: &Caller) -> Response {
    let _permit = match registry.admit_task_request(caller) {
        Ok(permit) => permit,
        Err(error) => return too_many(&error),
    };
    match registry.tasks_of(caller).await {
        Ok(tasks) => {
            let tasks: Vec<Value> = tasks.iter().map(Task::to_json).collect();
            (StatusCode::OK, axum::Json(json!({ "tasks": tasks }))).into_response()
        }
        Err(error) => refused(&error),
    }
}

/// `429 rate_limited` for a task request past its caller's budget, with `Retry-After`.
fn too_many(error: &ToolError) -> Response {
    let body = json!({"error": error.code, "message": error.message, "details": error.details});
    let mut response = (StatusCode::TOO_MANY_REQUESTS, axum::Json(body)).into_response();
    let seconds = error
        .details
        .as_ref()
        .and_then(|d| d.get(codes::RETRY_AFTER));
    if let Some(seconds) = seconds.and_then(Value::as_u64) {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, seconds.into());
    }
    response
}

/// Why a task could not be read, as the API answers it.
fn refused(error: &TaskError) -> Response {
    match error {
        TaskError::Malformed(e) => {
            failure(StatusCode::BAD_REQUEST, "invalid_task_id", &e.to_string())
        }
        TaskError::Unknown => failure(
            StatusCode::NOT_FOUND,
            codes::UNKNOWN_TASK,
            "There is no task with this id.",
        ),
        TaskError::NoQueue => failure(
            StatusCode::NOT_FOUND,
            codes::UNKNOWN_TASK,
            "This server keeps no tasks.",
        ),
        error if error.is_unavailable() => {
            tracing::warn!(error = %error, "the task queue is unavailable");
            let mut response = failure(
                StatusCode::from_u16(statuses::UNAVAILABLE)
                    .unwrap_or(StatusCode::SERVICE_UNAVAILABLE),
                toolspec_vocab::codes::UNAVAILABLE,
                "The task queue is unavailable now; try again in a few seconds.",
            );
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("2"));
            response
        }
        error => {
            tracing::error!(error = %error, "a task could not be read");
            failure(
                StatusCode::INTERNAL_SERVER_ERROR,
                toolspec_vocab::codes::INTERNAL_ERROR,
                "The task could not be read.",
            )
        }
    }
}
