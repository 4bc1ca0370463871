//! The model side of the agent: an OpenAI-compatible Chat Completions endpoint (checked before
//! anything is sent), the rig agent over it with the store's tools as one caller, and why a
//! run ended without an answer. Owns no caller: whoever builds an agent says who it acts for.

use std::sync::Arc;
use std::time::Duration;

use rig_agent::agent::AgentHook;
use rig_agent::completion::PromptError;
use rig_agent::{Agent, AgentBuilder};
use toolspec::rig::Approvals;
use toolspec::rig::rig_core::DynModel;
use toolspec::rig::rig_core::error::{ErrorKind, ErrorReport};
use toolspec::rig::rig_core::operation::Completion;
use toolspec::rig::rig_core::providers::openai::{OpenAIConfig, wire::Auth};
use toolspec::{Caller, Registry};

use crate::agent::limits::ToolCallLimits;

/// OpenAI's own endpoint, the default base URL.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The model asked when none is named.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";

/// The most model calls one prompt may take by default (tool rounds plus the answer).
pub const DEFAULT_MAX_TURNS: usize = 8;

/// How long connecting to the endpoint may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The system prompt of the store's agent.
pub const PREAMBLE: &str = "You are the assistant of a small online shop. Answer the customer's \
questions about their account and orders with the tools you are given; never guess an order's \
contents, status or total. The tools already know who the customer is. Be brief.";

/// A chat model, erased to its operation (cheap to clone: the HTTP client's pool is shared).
pub type ChatModel = DynModel<Completion>;

/// An OpenAI-compatible Chat Completions endpoint, the model to ask there and its key.
#[derive(Clone)]
pub struct ModelEndpoint {
    base_url: String,
    model: String,
    api_key: String,
}

impl std::fmt::Debug for ModelEndpoint {
    // The key stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelEndpoint")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .finish_non_exhaustive()
    }
}

impl ModelEndpoint {
    /// The endpoint at `base_url` (`http://…` or, with the `tls` feature, `https://…`; a
    /// trailing `/` is dropped) asking `model`, with `api_key` as bearer token when it is not
    /// blank. `Err` says what is wrong with the settings.
    pub fn new(base_url: &str, model: &str, api_key: &str) -> anyhow::Result<Self> {
        let base_url = base_url.trim().trim_end_matches('/');
        check_base_url(base_url).map_err(anyhow::Error::msg)?;
        let model = model.trim();
        if model.is_empty() {
            anyhow::bail!("the model name is empty");
        }
        let api_key = api_key.trim();
        if api_key.is_empty() && base_url.starts_with(DEFAULT_BASE_URL) {
            anyhow::bail!(
                "OPENAI_API_KEY is not set; {base_url} needs one (a local server such as \
                 Ollama does not)"
            );
        }
        Ok(Self {
            base_url: base_url.to_owned(),
            model: model.to_owned(),
            api_key: api_key.to_owned(),
        })
    }

    /// The base URL, without a trailing `/`.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// The chat model over a new HTTP client, whose every request gives up after `timeout`.
    pub fn connect(&self, timeout: Duration) -> anyhow::Result<ChatModel> {
        let http = rig_reqwest::reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT.min(timeout))
            .timeout(timeout)
            .build()
            .map_err(|error| anyhow::anyhow!("could not build the HTTP client: {error}"))?;
        let chat = OpenAIConfig::new(self.api_key.as_str())
            .with_base_url(self.base_url.as_str())
            // No `Authorization` header at all when the key is empty (local servers).
            .with_auth(Auth::OptionalBearer)
            .connect(rig_reqwest::ReqwestClient::from(http))
            .chat(self.model.as_str());
        Ok(chat.into())
    }
}

/// Checks a base URL before anything is sent; `Err` says what is wrong with it.
fn check_base_url(base_url: &str) -> Result<(), String> {
    let rest = if let Some(rest) = base_url.strip_prefix("http://") {
        rest
    } else if let Some(rest) = base_url.strip_prefix("https://") {
        if !cfg!(feature = "tls") {
            return Err(format!(
                "`{base_url}` is an https URL, and this build has no TLS: rebuild with \
                 `--features tls`, or use a plain http endpoint"
            ));
        }
        rest
    } else {
        return Err(format!(
            "the base URL `{base_url}` must start with http:// or https:// \
             (e.g. http://localhost:11434/v1)"
        ));
    };
    if rest.is_empty() || rest.starts_with('/') {
        return Err(format!("the base URL `{base_url}` names no host"));
    }
    Ok(())
}

/// The store's agent on `model`: every rig tool of `registry` that `caller` may call, each
/// call made as `caller` (its ambient context and scopes; the model can set neither), at most
/// `max_turns` model calls and the tool calls `limits` allow per prompt; a call that asks the
/// customer first (a confirmation) waits in `approvals` (a refused one recorded
/// in the registry's audit trail), `hook` watching the run (it sees a refused call with its
/// refusal).
pub fn agent(
    model: &ChatModel,
    registry: &Arc<Registry>,
    caller: &Arc<Caller>,
    approvals: &Approvals,
    max_turns: usize,
    limits: ToolCallLimits,
    hook: impl AgentHook + 'static,
) -> Agent {
    AgentBuilder::new(model.clone())
        .preamble(PREAMBLE)
        .default_max_turns(max_turns)
        .add_hook(limits.for_runs(registry, caller))
        .add_hook(hook)
        .dynamic_tools(toolspec::rig::tools_asking(registry, caller, approvals))
        .build()
}

/// Why a run ended without an answer.
#[derive(Debug)]
pub enum RunFailure {
    /// The model was still calling tools after this many model calls.
    TurnLimit(usize),
    /// A request to the model took too long.
    Timeout,
    /// The endpoint failed (unreachable, or answering this HTTP status) or answered something
    /// unusable.
    Model {
        /// The endpoint's HTTP status, when it answered one.
        http_status: Option<u16>,
    },
}

impl RunFailure {
    /// What `error` means for the caller of the run.
    pub fn of(error: &PromptError) -> Self {
        let report = match error {
            PromptError::MaxTurns { max_turns, .. } => return Self::TurnLimit(*max_turns),
            PromptError::Provider(error) => ErrorReport::from(error),
            PromptError::Report(report) => report.clone(),
            other => ErrorReport::new(ErrorKind::Other, other.to_string()),
        };
        match report.kind {
            ErrorKind::Timeout => Self::Timeout,
            _ => Self::Model {
                http_status: report.http_status,
            },
        }
    }
}

/// A failed prompt, for the operator: what went wrong and where, with every cause rig kept.
pub fn describe_failure(error: &PromptError, endpoint: &ModelEndpoint) -> String {
    let ModelEndpoint {
        base_url, model, ..
    } = endpoint;
    if let PromptError::MaxTurns { max_turns, .. } = error {
        return format!("the model `{model}` did not answer within {max_turns} model calls");
    }
    let mut message = format!("the model `{model}` at {base_url} did not answer: {error}");
    let mut causes: Vec<String> = Vec::new();
    match error {
        // A failure relayed over rig's bus keeps its causes as text.
        PromptError::Report(report) => causes.extend(report.source_chain.iter().cloned()),
        _ => {
            let mut source = std::error::Error::source(error);
            while let Some(cause) = source {
                causes.push(cause.to_string());
                source = cause.source();
            }
        }
    }
    for cause in causes {
        if !message.contains(&cause) {
            message += ": ";
            message += &cause;
        }
    }
    if let PromptError::Report(report) = error
        && report.kind == ErrorKind::Http
        && report.http_status.is_none()
    {
        message += " (is an OpenAI-compatible server listening there?)";
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_checked_before_anything_is_sent() {
        let local = ModelEndpoint::new(" http://localhost:11434/v1/ ", "llama3.1", "").unwrap();
        assert_eq!(
            (local.base_url(), local.model()),
            ("http://localhost:11434/v1", "llama3.1")
        );
        let error =
            |url: &str, model: &str| ModelEndpoint::new(url, model, "").unwrap_err().to_string();
        assert!(error("localhost:11434/v1", "m").contains("must start with http://"));
        assert!(error("http:///v1", "m").contains("names no host"));
        assert!(error("http://localhost/v1", " ").contains("model name is empty"));
        if cfg!(feature = "tls") {
            assert!(error(DEFAULT_BASE_URL, "m").contains("OPENAI_API_KEY"));
        } else {
            assert!(error(DEFAULT_BASE_URL, "m").contains("--features tls"));
        }
    }

    #[test]
    fn the_key_stays_out_of_debug_output() {
        let endpoint = ModelEndpoint::new("http://localhost/v1", "m", "sk-secret").unwrap();
        assert!(!format!("{endpoint:?}").contains("sk-secret"));
    }
}
