//! `POST /agent`: one message from an authenticated caller, answered by the store's agent
//! acting as that caller.
//!
//! The body is `{"message": "…"}` (at most [`MAX_MESSAGE_BYTES`]) and/or `"answers"`; the
//! answer `200 {"reply": "…", "tool_calls": [{"tool", "arguments", "result" | "error"}…]}`,
//! with `"pending"` when some calls wait for the customer's answer (a tool that confirms
//! first): each its `tool`, `arguments`, `requests` and `request_state`, which the next
//! request sends back as one of its `answers` with the customer's `responses` (see
//! `approvals`). The agent never answers for the customer. The
//! tools run in the caller's ambient context and scopes, which the authenticator alone decides
//! (the model can set neither). Failures have the HTTP API's one shape, `{error, message}`:
//! `401` when the authenticator refuses the request (`400 invalid_request` for more than one
//! credential), `413` for a body past 64 KiB, `422` for a message that is missing, empty, too
//! long or not a string, `502` when the model endpoint fails or answers something unusable,
//! `504` when the run takes more than its model calls or its time. Each run is bounded by
//! both, and by its tool calls ([`ToolCallLimits`]: those past them are not run, listed with
//! their `tool_call_limit` error, recorded in the audit trail and counted in a log line); a
//! client that goes away stops it.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Value, json};
use toolspec::auth::Authenticator;
use toolspec::gate::failure;
use toolspec::{Code, Registry};

use crate::agent::approvals;
use crate::agent::limits::{self, ToolCallLimits};
use crate::agent::model::{self, ChatModel, ModelEndpoint, RunFailure};
use crate::agent::tool_calls::{ToolCall, ToolCallHook};

/// The route's path.
pub const PATH: &str = "/agent";

/// The longest message taken, in bytes of UTF-8.
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024;

/// The largest request body read.
const MAX_BODY_BYTES: usize = 64 * 1024;

/// How long one run may take by default, every model call and tool call included.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// `POST /agent` over a registry and a model endpoint, its callers from an authenticator.
pub struct AgentApi {
    registry: Arc<Registry>,
    endpoint: ModelEndpoint,
    authenticator: Arc<dyn Authenticator>,
    max_turns: usize,
    tool_calls: ToolCallLimits,
    timeout: Duration,
}

struct Shared {
    registry: Arc<Registry>,
    endpoint: ModelEndpoint,
    model: ChatModel,
    authenticator: Arc<dyn Authenticator>,
    max_turns: usize,
    tool_calls: ToolCallLimits,
    timeout: Duration,
}

impl AgentApi {
    /// The route over `registry`'s rig tools, asking `endpoint`, each request's caller from
    /// `authenticator` (the server's own, so that a token means the same caller everywhere).
    pub fn new(
        registry: Arc<Registry>,
        endpoint: ModelEndpoint,
        authenticator: impl Authenticator,
    ) -> Self {
        Self {
            registry,
            endpoint,
            authenticator: Arc::new(authenticator),
            max_turns: model::DEFAULT_MAX_TURNS,
            tool_calls: ToolCallLimits::DEFAULT,
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// At most `turns` model calls per run (tool rounds plus the answer); `504` past them.
    pub fn max_turns(mut self, turns: usize) -> Self {
        self.max_turns = turns.max(1);
        self
    }

    /// At most `calls` tool calls of one model reply run (the first ones); the model is told
    /// why the others did not.
    pub fn max_tool_calls_per_turn(mut self, calls: usize) -> Self {
        self.tool_calls.per_turn = calls.max(1);
        self
    }

    /// At most `calls` tool calls run per request, every reply together; the model is told
    /// why the others did not.
    pub fn max_tool_calls(mut self, calls: usize) -> Self {
        self.tool_calls.per_run = calls.max(1);
        self
    }

    /// A run still going after `timeout` is stopped and answered `504`.
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The route, to merge into the server's router; `Err` when the HTTP client for the model
    /// cannot be built.
    pub fn router(self) -> anyhow::Result<Router> {
        // The run's own timeout answers first; the client's is a backstop.
        let model = self
            .endpoint
            .connect(self.timeout + Duration::from_secs(5))?;
        let shared = Shared {
            registry: self.registry,
            endpoint: self.endpoint,
            model,
            authenticator: self.authenticator,
            max_turns: self.max_turns,
            tool_calls: self.tool_calls,
            timeout: self.timeout,
        };
        Ok(Router::new()
            .route(PATH, post(run))
            .with_state(Arc::new(shared)))
    }
}

/// The `serve` flags of `POST /agent` (HTTP only; without `--model-url` the route is not
/// served).
#[derive(Debug, Clone, clap::Args)]
pub struct AgentOptions {
    /// HTTP only: also serve `POST /agent`, the store's agent asking the OpenAI-compatible Chat
    /// Completions endpoint at this base URL (e.g. `http://localhost:11434/v1`); a key, when
    /// it needs one, is read from $OPENAI_API_KEY.
    #[arg(long, value_name = "URL", requires = "http")]
    pub model_url: Option<String>,
    /// The model `/agent` asks.
    #[arg(long, value_name = "NAME", default_value = model::DEFAULT_MODEL, requires = "model_url")]
    pub model: String,
    /// The most model calls one `/agent` request may take (tool rounds plus the answer).
    #[arg(long, value_name = "N", default_value_t = model::DEFAULT_MAX_TURNS as u16,
          value_parser = clap::value_parser!(u16).range(1..), requires = "model_url")]
    pub agent_max_turns: u16,
    /// The most tool calls of one model reply an `/agent` request runs (the first ones); the
    /// model is told why the others did not run.
    #[arg(long, value_name = "N",
          default_value_t = limits::DEFAULT_MAX_TOOL_CALLS_PER_TURN as u16,
          value_parser = clap::value_parser!(u16).range(1..), requires = "model_url")]
    pub agent_max_tool_calls_per_turn: u16,
    /// The most tool calls one `/agent` request runs, every model reply together; the model
    /// is told why the others did not run.
    #[arg(long, value_name = "N", default_value_t = limits::DEFAULT_MAX_TOOL_CALLS as u16,
          value_parser = clap::value_parser!(u16).range(1..), requires = "model_url")]
    pub agent_max_tool_calls: u16,
    /// How many seconds one `/agent` request may take, every model and tool call included.
    #[arg(long, value_name = "SECONDS", value_parser = positive_seconds,
          default_value = "120", requires = "model_url")]
    pub agent_timeout: Duration,
}

impl AgentOptions {
    /// The route these flags ask for, over `registry` with the server's `authenticator`:
    /// `None` without `--model-url`; `Err` says what is wrong with the settings.
    pub fn router(
        &self,
        registry: &Arc<Registry>,
        authenticator: impl Authenticator,
    ) -> anyhow::Result<Option<Router>> {
        let Some(url) = &self.model_url else {
            return Ok(None);
        };
        let api_key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
        let endpoint =
            ModelEndpoint::new(url, &self.model, &api_key).map_err(|e| e.context("--model-url"))?;
        AgentApi::new(Arc::clone(registry), endpoint, authenticator)
            .max_turns(self.agent_max_turns.into())
            .max_tool_calls_per_turn(self.agent_max_tool_calls_per_turn.into())
            .max_tool_calls(self.agent_max_tool_calls.into())
            .timeout(self.agent_timeout)
            .router()
            .map(Some)
    }
}

/// Parses a positive number of seconds (`120`, `0.5`).
fn positive_seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("`{text}` is not a positive number of seconds"))
}

async fn run(State(shared): State<Arc<Shared>>, parts: Parts, body: Body) -> Response {
    let caller = match toolspec::auth::authenticate(shared.authenticator.as_ref(), &parts).await {
        Ok(caller) => caller,
        // The HTTP API's own `401` (`400` for ambiguous credentials), its challenge naming
        // the resource's metadata.
        Err(refusal) => {
            let resource = shared.authenticator.protected_resource();
            return toolspec::http::unauthorized(&refusal, resource);
        }
    };
    let (message, answers) = match message(body).await {
        Ok(request) => request,
        Err(refused) => return refused,
    };
    let caller = Arc::new(caller);
    // The calls the customer answered go on first; the agent then reads what they did.
    let resumed = approvals::resume(&shared.registry, &caller, answers).await;
    let message = approvals::prompt(message.as_deref(), &resumed);
    let waiting = toolspec::rig::Approvals::new();
    let calls: Arc<Mutex<Vec<ToolCall>>> = Arc::default();
    let hook = ToolCallHook::new({
        let calls = Arc::clone(&calls);
        move |call| {
            calls
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(call)
        }
    });
    let agent = model::agent(
        &shared.model,
        &shared.registry,
        &caller,
        &waiting,
        shared.max_turns,
        shared.tool_calls,
        hook,
    );
    let ran = tokio::time::timeout(shared.timeout, agent.prompt(message.as_str())).await;
    let calls = std::mem::take(&mut *calls.lock().unwrap_or_else(PoisonError::into_inner));
    let refused = calls.iter().filter(|call| call.refused_by_limit()).count();
    if refused > 0 {
        let ToolCallLimits { per_turn, per_run } = shared.tool_calls;
        tracing::warn!(
            caller = caller.id.as_deref().unwrap_or("-"),
            tool_calls = calls.len(),
            refused,
            "an agent run asked for {refused} tool calls past its limits ({per_turn} per model \
             reply, {per_run} per request); they were not run"
        );
    }
    match ran {
        Ok(Ok(response)) => {
            let tool_calls: Vec<Value> = resumed
                .iter()
                .chain(&calls)
                .map(ToolCall::to_json)
                .collect();
            let mut reply =
                json!({"reply": response.output().to_string(), "tool_calls": tool_calls});
            let pending: Vec<Value> = waiting.take().iter().map(approvals::to_json).collect();
            if !pending.is_empty() {
                reply["pending"] = Value::Array(pending);
            }
            (StatusCode::OK, axum::Json(reply)).into_response()
        }
        Ok(Err(error)) => {
            tracing::warn!(
                caller = caller.id.as_deref().unwrap_or("-"),
                tool_calls = calls.len(),
                "agent run failed: {}",
                model::describe_failure(&error, &shared.endpoint)
            );
            match RunFailure::of(&error) {
                RunFailure::TurnLimit(turns) => failure(
                    StatusCode::GATEWAY_TIMEOUT,
                    "turn_limit",
                    &format!("The model did not answer within {turns} model calls."),
                ),
                RunFailure::Timeout => timed_out(shared.timeout),
                RunFailure::Model { http_status } => {
                    let message = match http_status {
                        Some(status) => {
                            format!("The model endpoint failed: it answered HTTP {status}.")
                        }
                        None => "The model endpoint failed, or answered something that is not a \
                                 usable reply."
                            .to_owned(),
                    };
                    failure(StatusCode::BAD_GATEWAY, "model_failed", &message)
                }
            }
        }
        Err(_) => {
            tracing::warn!(
                caller = caller.id.as_deref().unwrap_or("-"),
                tool_calls = calls.len(),
                "agent run stopped after {:?}",
                shared.timeout
            );
            timed_out(shared.timeout)
        }
    }
}

/// The body's message and answers: a JSON object with `message` — a string that is neither
/// blank nor longer than [`MAX_MESSAGE_BYTES`] — and/or `answers` (see `approvals`); else the
/// answer refusing it.
async fn message(body: Body) -> Result<(Option<String>, Vec<approvals::Answer>), Response> {
    let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY_BYTES).await else {
        return Err(failure(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            &format!("The request body is larger than {MAX_BODY_BYTES} bytes (or did not arrive)."),
        ));
    };
    let refuse = |message: String| {
        failure(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_request",
            &message,
        )
    };
    let mut body = match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(body)) => body,
        Ok(_) => {
            return Err(refuse(
                r#"The body must be a JSON object: {"message": "…"}."#.into(),
            ));
        }
        Err(e) => return Err(refuse(format!("The body is not JSON: {e}."))),
    };
    if let Some(other) = body
        .keys()
        .find(|key| !["message", "answers"].contains(&key.as_str()))
    {
        return Err(refuse(format!(
            "The body has an unknown key `{other}`: it takes `message` and `answers` only (who \
             you are comes from your token)."
        )));
    }
    let answers = match body.remove("answers") {
        Some(answers) => approvals::read(answers).map_err(refuse)?,
        None => Vec::new(),
    };
    let message = match body.remove("message") {
        Some(Value::String(message)) => message,
        Some(_) => return Err(refuse("`message` must be a string.".into())),
        None if !answers.is_empty() => return Ok((None, answers)),
        None => {
            return Err(refuse(
                r#"The body needs a `message`: {"message": "…"}."#.into(),
            ));
        }
    };
    if message.trim().is_empty() {
        return Err(refuse("`message` is empty.".into()));
    }
    if message.len() > MAX_MESSAGE_BYTES {
        return Err(refuse(format!(
            "`message` is {} bytes long; the most is {MAX_MESSAGE_BYTES}.",
            message.len()
        )));
    }
    Ok((Some(message), answers))
}

fn timed_out(timeout: Duration) -> Response {
    failure(
        StatusCode::GATEWAY_TIMEOUT,
        Code::Timeout.as_str(),
        &format!("The agent did not answer within {timeout:?}."),
    )
}
