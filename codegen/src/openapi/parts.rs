//! The pieces of JSON the document's operations are made of: the answer of a failure and the
//! description of each status, JSON content, the error and explanation schemas, headers, and
//! the `int64` format every integer is given.

use serde_json::{Map, Value, json};
use toolspec_vocab::{codes, http};

use crate::schema_tree::for_each_child;

/// The `Retry-After` header of a failure that says when to retry.
pub(super) fn retry_after() -> Value {
    json!({ "Retry-After": {
        "description": "In how many seconds a retry may succeed.",
        "schema": { "type": "integer", "minimum": 1 }
    } })
}

/// What a `429` of a caller over a tool's rate limit says.
pub(super) const RATE_LIMITED: &str =
    "The caller is over the tool's rate limit (`rate_limited`: retry after `Retry-After` seconds).";

/// The `429` of a caller over a tool's rate limit.
pub(super) fn rate_limited() -> Value {
    let mut response = failure(RATE_LIMITED, &[codes::RATE_LIMITED]);
    response["headers"] = retry_after();
    response
}

/// The header of an answer cut to fit the tool's `cap`.
pub(super) fn truncated_header(cap: toolspec_vocab::result_cap::ResultCap) -> Value {
    json!({
        "Toolspec-Truncated": {
            "description": format!(
                "Sent when the answer was cut to fit this tool's result cap ({cap}): lists keep \
                 their first items, and this says which lists lost how many (JSON, in ASCII)."
            ),
            "schema": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": { "$ref": "#/components/schemas/Truncation" }
            }
        }
    })
}

/// What a task looks like to its caller.
pub(super) fn task_schema() -> Value {
    serde_json::from_str(toolspec_vocab::tasks::TASK_SCHEMA).unwrap_or_default()
}

/// What a status means, as its response's description.
pub(super) fn describe(status: u16) -> &'static str {
    match status {
        http::INVALID => "The arguments do not fit the tool's input.",
        http::NOT_FOUND => "No such tool for this caller, or no such record.",
        http::GUARD_FAILED => "A precondition of the tool does not hold.",
        http::LOCKED => "Another call with the same key held the tool's lock too long.",
        http::TIMEOUT => "The call ran out of time.",
        http::UNAVAILABLE => {
            "The database or the audit trail the call needs cannot be reached now; nothing ran (retry after `Retry-After` seconds)."
        }
        http::INTERNAL => "The tool failed unexpectedly.",
        http::UNAUTHORIZED => "No valid bearer token.",
        http::FORBIDDEN => "The token lacks the tool's scopes (insufficient_scope).",
        http::PAYLOAD_TOO_LARGE => "The request body is too large.",
        http::TOO_MANY_TASKS => {
            "The caller is at one of its bounds of tasks: unfinished, kept, bytes of results \
             kept (`too_many_tasks`)."
        }
        http::INPUT_REQUIRED => {
            "The call needs its user's answers first (`input_required`: nothing was done): \
             `details.requests` says what to ask (a confirmation, forms), and \
             `details.request_state` goes back to `/tools/{name}/continue` with the answers."
        }
        http::REQUEST_STATE_EXPIRED => {
            "The request state has expired (`request_state_expired`: nothing was done; call \
             the tool again)."
        }
        _ => "The tool failed with one of its declared error codes.",
    }
}

/// A failure response whose `error` is one of `codes` (any code when empty).
pub(super) fn failure(description: &str, codes: &[&str]) -> Value {
    let codes = (!codes.is_empty()).then_some(codes);
    json_content("description", description.into(), error_schema(codes))
}

/// `{ key: value, "content": { "application/json": { "schema": schema } } }`, the schema
/// moved in: `json!` copies what it is given.
pub(super) fn json_content(key: &str, value: Value, schema: Value) -> Value {
    let json = object("application/json", object("schema", schema));
    Value::Object(Map::from_iter([
        (key.into(), value),
        ("content".into(), json),
    ]))
}

/// `{ key: value }`.
pub(super) fn object(key: &str, value: Value) -> Value {
    Value::Object(Map::from_iter([(key.into(), value)]))
}

/// The one error shape.
pub(super) fn error_schema(codes: Option<&[&str]>) -> Value {
    let error = match codes {
        Some(codes) => json!({ "type": "string", "enum": codes }),
        None => json!({ "type": "string" }),
    };
    json!({
        "type": "object",
        "properties": {
            "error": error,
            "message": { "type": "string" },
            "details": {}
        },
        "required": ["error", "message"]
    })
}

/// What `POST /tools/{name}/explain` answers: the explain tool's own output schema.
pub(super) fn explanation_schema() -> Value {
    // A constant of the vocabulary, parsed by this module's test: never the fallback.
    serde_json::from_str(toolspec_vocab::explain::OUTPUT_SCHEMA)
        .unwrap_or_else(|_| json!({ "type": "object" }))
}

/// Gives every `integer` (a node whose types include `integer` but not `number`) without a
/// `format` of its own `format: int64`, below and including `schema`.
pub(super) fn int64(schema: &mut Value) {
    let Value::Object(node) = schema else { return };
    let types: Vec<&str> = match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if types.contains(&"integer") && !types.contains(&"number") && !node.contains_key("format") {
        node.insert("format".into(), json!("int64"));
    }
    for_each_child(node, &mut |_, child| int64(child));
}

/// Whether a schema takes a single value a query parameter can carry.
pub(super) fn is_scalar(schema: &Value) -> bool {
    let scalar = |t: &str| matches!(t, "string" | "integer" | "number" | "boolean" | "null");
    match &schema["type"] {
        Value::String(t) => scalar(t) && t != "null",
        Value::Array(types) => types.iter().all(|t| t.as_str().is_some_and(scalar)),
        _ => false,
    }
}
