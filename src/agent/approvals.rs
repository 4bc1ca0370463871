//! The calls of a run that wait for the customer's answer — cancelling an order, refunding
//! one: the tools `confirm` first. The agent never answers for the customer: such a call is
//! answered to the client as `pending` (its tool, its arguments, what it asks and the sealed
//! `request_state`), and the client's next request sends `answers`, each a pending call with
//! the customer's `responses`. Those calls go on first (or are refused: another caller's,
//! altered, expired or used state), then the agent reads what they did.

use serde_json::{Map, Value, json};
use toolspec::rig::Pending;
use toolspec::user_input::Continuation;
use toolspec::{Caller, Registry};

use crate::agent::tool_calls::ToolCall;

/// The most answers one request takes.
pub const MAX_ANSWERS: usize = 8;

/// The keys of an answer.
const KEYS: [&str; 4] = ["tool", "arguments", "request_state", "responses"];

/// A pending call with the customer's answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    tool: String,
    arguments: Value,
    continuation: Continuation,
}

/// The answers of a request's `answers` (an array of them), or why they are not.
pub fn read(value: Value) -> Result<Vec<Answer>, String> {
    let Value::Array(items) = value else {
        return Err("`answers` must be an array of the pending calls, answered.".into());
    };
    if items.len() > MAX_ANSWERS {
        return Err(format!(
            "`answers` has {} items; the most is {MAX_ANSWERS}.",
            items.len()
        ));
    }
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| answer(item).map_err(|e| format!("`answers[{i}]`: {e}")))
        .collect()
}

fn answer(item: Value) -> Result<Answer, String> {
    let Value::Object(mut item) = item else {
        return Err("an answer is an object: the pending call's `tool`, `arguments` and `request_state`, with `responses`.".into());
    };
    if let Some(unknown) = item.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(format!("unknown key `{unknown}`"));
    }
    let tool = match item.remove("tool") {
        Some(Value::String(tool)) => tool,
        _ => return Err("`tool` must be the pending call's tool".into()),
    };
    let arguments = match item.remove("arguments") {
        Some(arguments @ Value::Object(_)) => arguments,
        None => Value::Object(Map::new()),
        Some(_) => return Err("`arguments` must be an object".into()),
    };
    let state = match item.remove("request_state") {
        Some(Value::String(state)) => state,
        _ => return Err("`request_state` must be the pending call's".into()),
    };
    let responses = item.remove("responses").unwrap_or(Value::Null);
    let continuation =
        Continuation::from_json(Some(state), &responses).map_err(|e| e.to_string())?;
    Ok(Answer {
        tool,
        arguments,
        continuation,
    })
}

/// A pending call as the client reads it.
pub fn to_json(pending: &Pending) -> Value {
    let mut asked = pending.input.to_json();
    asked["tool"] = json!(pending.tool);
    asked["arguments"] = pending.arguments.clone();
    asked
}

/// Continues each answered call as `caller`: what each did, as the run's tool calls show it.
pub async fn resume(registry: &Registry, caller: &Caller, answers: Vec<Answer>) -> Vec<ToolCall> {
    let mut calls = Vec::with_capacity(answers.len());
    for Answer {
        tool,
        arguments,
        continuation,
    } in answers
    {
        let result =
            toolspec::rig::resume(registry, caller, &tool, arguments.clone(), continuation).await;
        let shown = result.to_model_json();
        calls.push(ToolCall {
            tool,
            arguments,
            outcome: if result.is_ok() {
                Ok(shown)
            } else {
                Err(shown)
            },
        });
    }
    calls
}

/// What the agent is told: the customer's message, after what the answered calls did.
pub fn prompt(message: Option<&str>, resumed: &[ToolCall]) -> String {
    let mut prompt = String::new();
    if !resumed.is_empty() {
        prompt.push_str("The customer answered what the tools asked them; those calls ended so:\n");
        for call in resumed {
            prompt.push_str(&format!("{}\n", call.to_json()));
        }
    }
    if let Some(message) = message {
        prompt.push_str(message);
    } else {
        prompt.push_str("Tell the customer what was done.");
    }
    prompt
}
