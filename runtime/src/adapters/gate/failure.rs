//! The one error shape of everything served over HTTP but MCP's own messages:
//! `{"error": code, "message": …}` with its status, as JSON.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// `status` with the body `{"error": code, "message": message}`.
pub(crate) fn failure(status: StatusCode, code: &str, message: &str) -> Response {
    let body = json!({"error": code, "message": message}).to_string();
    let json = HeaderValue::from_static("application/json");
    (status, [(header::CONTENT_TYPE, json)], body).into_response()
}
