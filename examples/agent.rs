//! A small agent over the example store: the store's tools, served through
//! `toolspec::rig::tools`, wired into an LLM by rig's agent loop over any OpenAI-compatible
//! Chat Completions endpoint (OpenAI, Ollama, llama.cpp, vLLM, LM Studio …).
//!
//! ```text
//! cargo run --example agent -- --base-url http://localhost:11434/v1 --model llama3.1 "What is in my order 1?"
//! cargo run --example agent -- --base-url http://localhost:11434/v1 --model llama3.1    # a REPL
//! OPENAI_API_KEY=sk-… cargo run --features tls --example agent -- "Cancel my order 1"
//! ```
//!
//! * `--base-url` defaults to `$OPENAI_BASE_URL`, else `https://api.openai.com/v1`; an
//!   `https` URL needs the `tls` feature. `--model` defaults to `$OPENAI_MODEL`, else
//!   `gpt-4o-mini`. The key is `$OPENAI_API_KEY`; it may be unset or empty for a local server
//!   (no `Authorization` header is sent then).
//! * `--db PATH|URL` is the store's database: a SQLite file (default `store.db`, created and
//!   seeded on first use) or a `postgres://` URL, `--as KEY=VALUE` the trusted ambient context (default `customer_id=1`): the model
//!   never sees it and cannot override it.
//! * The prompt is the positional arguments; without any, each line of stdin is a prompt of
//!   one conversation.
//!
//! Each tool call is printed on stderr (name, arguments, result); the model's answer goes to
//! stdout. Exit status: 0 on success, 1 when the model could not answer (or the store could
//! not be opened), 2 on a usage error.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use rig_agent::agent::{AgentHook, HookContext, OutcomeAction, OutcomeEvent};
use rig_agent::completion::{Message, PromptError};
use rig_agent::{Agent, AgentBuilder};
use serde_json::Value;
use toolspec::rig::rig_core::error::ErrorKind;
use toolspec::rig::rig_core::providers::openai::{OpenAIConfig, wire::Auth};
use toolspec::{AmbientContext, Caller};
use toolspec_store::{Location, Store};

const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
const DEFAULT_MODEL: &str = "gpt-4o-mini";

const PREAMBLE: &str = "You are the assistant of a small online shop. Answer the customer's \
questions about their account and orders with the tools you are given; never guess an order's \
contents, status or total. The tools already know who the customer is. Be brief.";

#[derive(Debug, Parser)]
#[command(
    name = "agent",
    about = "An LLM agent over the toolspec example store (rig, OpenAI-compatible Chat Completions)."
)]
struct Cli {
    /// The endpoint's base URL (default: $OPENAI_BASE_URL, else https://api.openai.com/v1).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The model (default: $OPENAI_MODEL, else gpt-4o-mini).
    #[arg(long, value_name = "NAME")]
    model: Option<String>,
    /// The store's database: a SQLite file, created and seeded on first use, or a
    /// `postgres://` URL.
    #[arg(long, value_name = "PATH|URL", default_value = "store.db")]
    db: Location,
    /// A trusted ambient context entry, e.g. `customer_id=1` (the default); the value is read
    /// as JSON when it parses and as a string otherwise. Repeatable.
    #[arg(long = "as", value_name = "KEY=VALUE", value_parser = parse_ambient)]
    ambient: Vec<(String, Value)>,
    /// The most model calls one prompt may take (tool rounds plus the answer).
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..))]
    max_turns: u16,
    /// The prompt; without one, each line of stdin is a prompt (one conversation).
    #[arg(value_name = "PROMPT")]
    prompt: Vec<String>,
}

/// Parses one `--as KEY=VALUE`, as the store binary does.
fn parse_ambient(entry: &str) -> Result<(String, Value), String> {
    let (key, value) = entry
        .split_once('=')
        .ok_or_else(|| format!("`{entry}` is not KEY=VALUE"))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(format!("`{entry}` has an empty key"));
    }
    let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned()));
    Ok((key.to_owned(), value))
}

/// A flag's value, else the environment variable's (when set and not blank), else `default`.
fn setting(flag: Option<String>, var: &str, default: &str) -> String {
    flag.or_else(|| std::env::var(var).ok())
        .map(|value| value.trim().to_owned())
        .filter(|value| !value.is_empty())
        .unwrap_or_else(|| default.to_owned())
}

/// Checks the base URL before anything is sent; `Err` is the message of a usage error.
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

/// Prints every tool call the agent makes, and its result, on stderr.
struct PrintToolCalls;

impl AgentHook for PrintToolCalls {
    async fn on_outcome(&self, _cx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        let Some(name) = event.tool_name() else {
            return OutcomeAction::proceed();
        };
        let args = event.tool_args().unwrap_or("{}");
        let result = match event.outcome {
            Ok(_) => match event.tool_result() {
                Some(result) => {
                    let output = result.output().render();
                    match result.status_name() {
                        "success" => format!("-> {output}"),
                        status => format!("-> {status}: {output}"),
                    }
                }
                None => "-> (no tool result)".to_owned(),
            },
            Err(report) => format!("-> failed: {report}"),
        };
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "tool call: {name} {args}\n  {result}");
        OutcomeAction::proceed()
    }
}

/// A failed prompt, for the user: what went wrong and where, with every cause rig kept.
fn describe_failure(error: &PromptError, base_url: &str, model: &str) -> String {
    let mut message = format!("the model `{model}` at {base_url} did not answer: {error}");
    let mut causes: Vec<String> = Vec::new();
    match error {
        PromptError::MaxTurns { max_turns, .. } => {
            return format!(
                "the model `{model}` did not answer within {max_turns} model calls \
                 (see --max-turns)"
            );
        }
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

/// Runs one prompt of the conversation in `history`, printing the answer; `false` when the
/// model could not answer (the history is then unchanged).
async fn ask(
    agent: &Agent,
    prompt: &str,
    history: &mut Vec<Message>,
    base_url: &str,
    model: &str,
) -> bool {
    match agent.chat(prompt, history).await {
        Ok(response) => {
            let mut stdout = std::io::stdout().lock();
            let _ = writeln!(stdout, "{}", response.output().trim_end());
            let _ = stdout.flush();
            true
        }
        Err(error) => {
            eprintln!("error: {}", describe_failure(&error, base_url, model));
            false
        }
    }
}

/// Reads one line of stdin off the async runtime; `None` at the end of input.
async fn read_line() -> Option<std::io::Result<String>> {
    let read = tokio::task::spawn_blocking(|| {
        let mut line = String::new();
        std::io::stdin().read_line(&mut line).map(|n| (n, line))
    })
    .await;
    match read {
        Ok(Ok((0, _))) => None,
        Ok(Ok((_, line))) => Some(Ok(line)),
        Ok(Err(error)) => Some(Err(error)),
        Err(error) => Some(Err(std::io::Error::other(error))),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let base_url = setting(cli.base_url, "OPENAI_BASE_URL", DEFAULT_BASE_URL);
    let base_url = base_url.trim_end_matches('/').to_owned();
    let model = setting(cli.model, "OPENAI_MODEL", DEFAULT_MODEL);
    if let Err(message) = check_base_url(&base_url) {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    let api_key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
    if api_key.trim().is_empty() && base_url.starts_with(DEFAULT_BASE_URL) {
        eprintln!(
            "error: OPENAI_API_KEY is not set; {base_url} needs one (a local server such as \
             Ollama does not: pass its --base-url)"
        );
        return ExitCode::from(2);
    }

    let store = match Store::open(&cli.db).await {
        Ok(store) => store,
        Err(error) => {
            eprintln!("error: could not open the store {}: {error}", cli.db);
            return ExitCode::FAILURE;
        }
    };
    let ambient: AmbientContext = if cli.ambient.is_empty() {
        AmbientContext::from([("customer_id", 1)])
    } else {
        cli.ambient.into_iter().collect()
    };
    let registry = Arc::new(toolspec_store::registry(store.clone()));
    let caller = Arc::new(Caller::new("agent").with_ambient(ambient));
    let tools = toolspec::rig::tools(&registry, &caller);

    let http = match rig_reqwest::reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        .timeout(Duration::from_secs(300))
        .build()
    {
        Ok(http) => rig_reqwest::ReqwestClient::from(http),
        Err(error) => {
            eprintln!("error: could not build the HTTP client: {error}");
            return ExitCode::FAILURE;
        }
    };
    let chat = OpenAIConfig::new(api_key.trim())
        .with_base_url(base_url.as_str())
        // No `Authorization` header at all when the key is empty (local servers).
        .with_auth(Auth::OptionalBearer)
        .connect(http)
        .chat(model.as_str());
    let agent = AgentBuilder::new(chat)
        .preamble(PREAMBLE)
        .default_max_turns(cli.max_turns.into())
        .add_hook(PrintToolCalls)
        .dynamic_tools(tools)
        .build();

    let mut history = Vec::new();
    let answered = if cli.prompt.is_empty() {
        let interactive = std::io::stdin().is_terminal();
        let mut all = true;
        loop {
            if interactive {
                eprint!("> ");
                let _ = std::io::stderr().flush();
            }
            let line = match read_line().await {
                None => break,
                Some(Ok(line)) => line,
                Some(Err(error)) => {
                    eprintln!("error: could not read stdin: {error}");
                    all = false;
                    break;
                }
            };
            let prompt = line.trim();
            if prompt.is_empty() {
                continue;
            }
            all &= ask(&agent, prompt, &mut history, &base_url, &model).await;
        }
        all
    } else {
        let prompt = cli.prompt.join(" ");
        ask(&agent, &prompt, &mut history, &base_url, &model).await
    };
    store.close().await;
    if answered {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
