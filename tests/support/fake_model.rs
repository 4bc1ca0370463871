//! A scripted OpenAI-compatible Chat Completions endpoint, in the test's process: each request
//! is recorded and answered with the next reply of the script (a 500 once the script is over).
//! Shared by `tests/agent.rs` (the example) and `tests/agent_api.rs` (the store's `/agent`),
//! which each use part of it.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};

/// One answer of the script.
pub enum Reply {
    /// An assistant message, sent as a whole chat completion.
    Message(Value),
    /// This status and body, as they are (an error, or something that is not a completion).
    Raw(u16, String),
    /// No answer at all: the request hangs until the client gives up.
    Stall,
    /// An assistant message made from the request (a call whose arguments come from an
    /// earlier tool result, as a model would write it).
    From(fn(&Value) -> Value),
}

/// A scripted Chat Completions endpoint at `http://127.0.0.1:PORT/v1`.
pub struct FakeOpenAi {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Value>>,
    /// Each request's `Authorization` header.
    authorizations: Mutex<Vec<Option<String>>>,
}

impl FakeOpenAi {
    /// Serves `replies` (assistant messages), one per request, on an ephemeral port. Returns
    /// the server and its base URL.
    pub async fn start(replies: Vec<Value>) -> (Arc<Self>, String) {
        Self::scripted(replies.into_iter().map(Reply::Message).collect()).await
    }

    /// Serves `replies`, one per request, on an ephemeral port.
    pub async fn scripted(replies: Vec<Reply>) -> (Arc<Self>, String) {
        let fake = Arc::new(Self {
            replies: Mutex::new(replies.into()),
            requests: Mutex::new(Vec::new()),
            authorizations: Mutex::new(Vec::new()),
        });
        let app = axum::Router::new()
            .route("/v1/chat/completions", post(completions))
            .with_state(fake.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind an ephemeral port");
        let addr = listener.local_addr().expect("the bound address");
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        (fake, format!("http://{addr}/v1"))
    }

    /// Every request so far, as JSON.
    pub fn requests(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }

    /// Every request's `Authorization` header so far.
    pub fn authorizations(&self) -> Vec<Option<String>> {
        self.authorizations.lock().unwrap().clone()
    }
}

async fn completions(
    State(fake): State<Arc<FakeOpenAi>>,
    headers: HeaderMap,
    body: String,
) -> Response {
    let authorization = headers
        .get(header::AUTHORIZATION)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    fake.authorizations.lock().unwrap().push(authorization);
    let request: Value = match serde_json::from_str(&body) {
        Ok(request) => request,
        Err(e) => return (StatusCode::BAD_REQUEST, format!("not JSON: {e}")).into_response(),
    };
    let model = request["model"].clone();
    fake.requests.lock().unwrap().push(request.clone());
    let reply = fake.replies.lock().unwrap().pop_front();
    let message = match reply {
        Some(Reply::Message(message)) => message,
        Some(Reply::From(make)) => make(&request),
        Some(Reply::Raw(status, body)) => {
            let status = StatusCode::from_u16(status).expect("a valid status");
            return (status, [(header::CONTENT_TYPE, "application/json")], body).into_response();
        }
        Some(Reply::Stall) => std::future::pending().await,
        None => {
            let error = json!({"error": {"message": "the script has no more replies", "type": "server_error"}});
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                [(header::CONTENT_TYPE, "application/json")],
                error.to_string(),
            )
                .into_response();
        }
    };
    let finish_reason = if message.get("tool_calls").is_some() {
        "tool_calls"
    } else {
        "stop"
    };
    let reply = json!({
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 1_767_225_600,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    });
    (
        [(header::CONTENT_TYPE, "application/json")],
        reply.to_string(),
    )
        .into_response()
}

/// An assistant message calling tools: `(call id, tool, arguments)`.
pub fn tool_calls(calls: &[(&str, &str, Value)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, arguments)| {
            json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": arguments.to_string()}
            })
        })
        .collect();
    json!({"role": "assistant", "content": null, "tool_calls": calls})
}

/// An assistant message answering in text.
pub fn text(content: &str) -> Value {
    json!({"role": "assistant", "content": content})
}

/// The names of the tools a request offers the model.
pub fn offered(request: &Value) -> Vec<String> {
    request["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| {
            t["function"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        })
        .collect()
}

/// The `role: tool` messages of a request, by `tool_call_id`, their content parsed as JSON.
pub fn tool_messages(request: &Value) -> Vec<(String, Value)> {
    request["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            let content = m["content"]
                .as_str()
                .expect("a tool message's content is a string");
            let content = serde_json::from_str(content)
                .unwrap_or_else(|e| panic!("tool content is not JSON ({e}): {content}"));
            (
                m["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                content,
            )
        })
        .collect()
}

/// The content of the tool message answering `call_id`.
pub fn tool_result<'a>(messages: &'a [(String, Value)], call_id: &str) -> &'a Value {
    &messages
        .iter()
        .find(|(id, _)| id == call_id)
        .unwrap_or_else(|| panic!("no tool message for {call_id} in {messages:?}"))
        .1
}
