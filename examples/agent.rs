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
//! stdout. A prompt runs at most 16 tool calls of one reply and 64 in all (the store's
//! `/agent` defaults); the model is told why the others did not run. Exit status: 0 on success, 1 when the model could not answer (or the store could
//! not be opened), 2 on a usage error.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use rig_agent::Agent;
use rig_agent::completion::{Message, PromptError};
use serde_json::Value;
use toolspec::rig::{Approvals, Pending};
use toolspec::user_input::InputResponse;
use toolspec::{AmbientContext, Caller, Registry};
use toolspec_store::agent::approvals;
use toolspec_store::agent::limits::ToolCallLimits;
use toolspec_store::agent::model::{self, DEFAULT_BASE_URL, DEFAULT_MODEL, ModelEndpoint};
use toolspec_store::agent::tool_calls::{ToolCall, ToolCallHook};
use toolspec_store::{Location, Store};

/// How long one request to the model may take.
const MODEL_TIMEOUT: Duration = Duration::from_secs(300);

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

/// A failed prompt, for the user: what went wrong and where.
fn describe_failure(error: &PromptError, endpoint: &ModelEndpoint) -> String {
    let described = model::describe_failure(error, endpoint);
    match error {
        PromptError::MaxTurns { .. } => described + " (see --max-turns)",
        _ => described,
    }
}

/// Runs one prompt of the conversation in `history`, printing the answer; `false` when the
/// model could not answer (the history is then unchanged).
async fn ask(
    agent: &Agent,
    prompt: &str,
    history: &mut Vec<Message>,
    endpoint: &ModelEndpoint,
    asking: &Asking<'_>,
) -> bool {
    let mut prompt = prompt.to_owned();
    // A reply whose calls wait for the user's answer is followed by the answers' outcome.
    for _ in 0..MAX_ROUNDS {
        match agent.chat(prompt.as_str(), history).await {
            Ok(response) => {
                let mut stdout = std::io::stdout().lock();
                let _ = writeln!(stdout, "{}", response.output().trim_end());
                let _ = stdout.flush();
            }
            Err(error) => {
                eprintln!("error: {}", describe_failure(&error, endpoint));
                return false;
            }
        }
        let pending = asking.approvals.take();
        if pending.is_empty() {
            return true;
        }
        let mut resumed = Vec::new();
        for call in pending {
            let responses = asking.user_answers(&call).await;
            let result = call.resume(asking.registry, asking.caller, responses).await;
            resumed.push(ToolCall::of_result(call.tool, call.arguments, &result));
        }
        prompt = approvals::prompt(None, &resumed);
    }
    true
}

/// The most rounds of the user's answers one prompt takes.
const MAX_ROUNDS: usize = 4;

/// Who answers what the store's tools ask (a confirmation): the user, on stdin.
struct Asking<'a> {
    approvals: Approvals,
    registry: &'a Registry,
    caller: &'a Caller,
}

impl Asking<'_> {
    /// The user's responses to what `call` asks: each question on stderr, a line of stdin
    /// answers it (`y` accepts; anything else, or the end of input, declines).
    async fn user_answers(&self, call: &Pending) -> BTreeMap<String, InputResponse> {
        let mut responses = BTreeMap::new();
        for request in &call.input.requests {
            eprint!("{} [y/N] ", request.message);
            let _ = std::io::stderr().flush();
            let accepted = matches!(read_line().await, Some(Ok(line)) if line.trim().eq_ignore_ascii_case("y"));
            let response = if accepted {
                InputResponse::Accept(Default::default())
            } else {
                InputResponse::Decline
            };
            responses.insert(request.key.clone(), response);
        }
        responses
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
    let model = setting(cli.model, "OPENAI_MODEL", DEFAULT_MODEL);
    let api_key = std::env::var("OPENAI_API_KEY").unwrap_or_default();
    let endpoint = match ModelEndpoint::new(&base_url, &model, &api_key) {
        Ok(endpoint) => endpoint,
        Err(message) => {
            eprintln!("error: {message:#}");
            return ExitCode::from(2);
        }
    };

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
    // The worker runs the tasks the model starts (`orders_report`), which it reads with
    // `task_status`.
    registry.start_tasks();
    let caller = Arc::new(Caller::new("agent").with_ambient(ambient));
    let chat = match endpoint.connect(MODEL_TIMEOUT) {
        Ok(chat) => chat,
        Err(message) => {
            eprintln!("error: {message:#}");
            return ExitCode::FAILURE;
        }
    };
    // Each tool call and its result on stderr, as it happens.
    let print = ToolCallHook::new(|call| {
        let _ = writeln!(std::io::stderr().lock(), "{call}");
    });
    let limits = ToolCallLimits::DEFAULT;
    let asking = Asking {
        approvals: Approvals::new(),
        registry: &registry,
        caller: &caller,
    };
    let agent = model::agent(
        &chat,
        &registry,
        &caller,
        &asking.approvals,
        cli.max_turns.into(),
        limits,
        print,
    );

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
            all &= ask(&agent, prompt, &mut history, &endpoint, &asking).await;
        }
        all
    } else {
        let prompt = cli.prompt.join(" ");
        ask(&agent, &prompt, &mut history, &endpoint, &asking).await
    };
    store.close().await;
    if answered {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
