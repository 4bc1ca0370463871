//! Stage: what a call asks its user (the tool's `ask` and `confirm`), after its arguments are
//! validated and before it is handed to the task queue or admitted (`once`, `lock`).
//!
//! A call that continues a round trip ([`CallOptions::continuation`]) first opens its sealed
//! state — bound to the caller, the tool, the digest of the validated arguments the model
//! sent, and an expiry — and spends it (single use, in the storage every process shares, or
//! in this process without one); a state refused for any reason runs nothing, and so does a
//! continuation of a tool that asks nothing (no state of it was ever handed out). The answers it
//! carries and the responses it brings are merged into the arguments, which are validated
//! again. Then the forms whose fields are still missing are asked; once none is, the
//! confirmation (after the guards pass: `run` checks them first), unless the user gave it.

use chrono::{TimeZone, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::call::options::{CallOptions, Rules};
use crate::model::descriptor::{AskForm, Descriptor};
use crate::model::failure::{ToolError, ToolResult};
use crate::model::report::{Errors, invalid_arguments};
use crate::model::request_state::{RequestState, StateError};
use crate::model::user_input::{CONFIRM, InputRequest, InputRequired, InputResponse};
use crate::pipeline::compiled::Compiled;
use crate::pipeline::screen::{self, Refused};

/// How long a state opens: long enough for a person to read and answer, short enough that an
/// answer still fits the moment it was asked in.
const STATE_TTL: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// What a round trip carries from one round to the next, sealed in its state.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Carried {
    /// The fields the user filled in so far.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    answers: Map<String, Value>,
    /// Whether the user confirmed the call.
    #[serde(default)]
    pub(crate) confirmed: bool,
    /// The requests the round asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    asked: Vec<String>,
}

/// One round of a call that may ask its user.
#[derive(Debug)]
pub(crate) struct Round {
    /// The validated arguments as the model sent them: what a state is bound to.
    sent: Value,
    /// What earlier rounds gathered.
    pub(crate) carried: Carried,
}

impl Round {
    /// Whether the user confirmed the call in an earlier round.
    pub(crate) fn confirmed(&self) -> bool {
        self.carried.confirmed
    }
}

/// The call's arguments with what its user answered, and its round; or why the continuation
/// was refused (nothing runs).
pub(crate) async fn resume(
    tool: &Descriptor,
    compiled: &Compiled,
    value: Value,
    options: &CallOptions,
    rules: &Rules,
) -> Result<(Value, Round), ToolResult> {
    let Some(continuation) = &options.continuation else {
        let round = Round {
            sent: value.clone(),
            carried: Carried::default(),
        };
        return Ok((value, round));
    };
    let mut carried = match &continuation.request_state {
        Some(sealed) => {
            let caller = options.caller.as_deref().unwrap_or("");
            let now = Utc::now().timestamp_millis();
            let state = rules
                .sealing
                .keys
                .open(sealed, caller, &tool.name, &value, now)
                .map_err(|e| state_refused(tool, e))?;
            spend(&state, rules, now).await.map_err(|r| r.of(tool))?;
            serde_json::from_value(state.data).unwrap_or_default()
        }
        // Answers without a state: forms only (their fields are arguments like any other),
        // never a confirmation.
        None => Carried {
            asked: tool.ask.iter().map(|form| form.name.to_string()).collect(),
            ..Carried::default()
        },
    };
    for key in std::mem::take(&mut carried.asked) {
        match continuation.responses.get(&key) {
            // Asked again below.
            None => {}
            Some(InputResponse::Decline | InputResponse::Cancel) => {
                return Err(declined(tool, &key));
            }
            Some(InputResponse::Accept(content)) if key == CONFIRM => {
                if let Some(held) = content.keys().next() {
                    let why = "a confirmation's answer holds nothing";
                    return Err(unasked(&key, held, why, rules.limits.max_quote));
                }
                carried.confirmed = true;
            }
            Some(InputResponse::Accept(content)) => {
                let Some(form) = tool.ask.iter().find(|f| f.name == key) else {
                    continue;
                };
                // Bounded like the arguments: only the form's fields, each checked with them.
                let field_of = |k: &String| form.fields.iter().any(|f| f.as_ref() == k.as_str());
                if let Some(other) = content.keys().find(|k| !field_of(k)) {
                    let why = format!("it is not a field of the form `{key}`");
                    return Err(unasked(&key, other, &why, rules.limits.max_quote));
                }
                for field in form.fields.iter() {
                    if let Some(answer) = content.get(field.as_ref()) {
                        carried.answers.insert(field.to_string(), answer.clone());
                    }
                }
            }
        }
    }
    let sent = value;
    if carried.answers.is_empty() {
        let value = sent.clone();
        return Ok((value, Round { sent, carried }));
    }
    let mut merged = sent.clone();
    if let Value::Object(map) = &mut merged {
        for (field, answer) in &carried.answers {
            map.entry(field.clone()).or_insert_with(|| answer.clone());
        }
    }
    // The answers are arguments like the others: checked against the same schema.
    let adapter = options.adapter.as_deref();
    match screen::screen(tool, compiled, merged, adapter, rules) {
        Ok(value) => Ok((value, Round { sent, carried })),
        Err(Refused::Arguments(errors)) => Err(invalid_arguments(&errors)),
        Err(Refused::Schema(result)) => Err(*result),
    }
}

/// `invalid_arguments`: the answer to request `key` holds `held` (quoted up to `max_quote`
/// characters), which it may not (`why`); nothing runs.
fn unasked(key: &str, held: &str, why: &str, max_quote: usize) -> ToolResult {
    let mut quoted: String = held.chars().take(max_quote).collect();
    if quoted.len() < held.len() {
        quoted.push('…');
    }
    let at = format!("/responses/{key}/content/{quoted}");
    invalid_arguments(&Errors::one(at, why))
}

/// The answer to a continuation of a call of `tool`, which asks its user nothing: there is no
/// round trip to continue, and nothing runs.
pub(crate) fn nothing_to_continue(tool: &Descriptor) -> ToolResult {
    let why = format!(
        "`{}` asks its user nothing, so no request state of it opens",
        tool.name
    );
    tracing::info!(
        tool = &*tool.name,
        "a continuation of a tool that asks nothing was refused"
    );
    ToolResult::failed(ToolError::invalid_request_state(&why), None)
}

/// Why spending a state failed.
enum Unspent {
    /// It was spent before.
    Replayed,
    /// The storage could not say.
    Unavailable(String),
}

impl Unspent {
    fn of(self, tool: &Descriptor) -> ToolResult {
        match self {
            Self::Replayed => ToolResult::failed(
                ToolError::invalid_request_state(
                    "the request state was used already (each opens once)",
                ),
                None,
            ),
            Self::Unavailable(why) => ToolResult::unavailable(
                tool,
                "the record of request states",
                crate::model::failure::RETRY_UNAVAILABLE,
                why,
            ),
        }
    }
}

/// Spends `state`: in the storage when there is one, else in this process.
async fn spend(state: &RequestState, rules: &Rules, now: i64) -> Result<(), Unspent> {
    let spent = match rules.storage.as_deref() {
        Some(storage) => storage
            .spend_request_state(&state.id, state.expires_at_ms)
            .await
            .map_err(|e| Unspent::Unavailable(crate::model::failure::error_chain(&e)))?,
        None => rules
            .sealing
            .spent
            .spend(&state.id, state.expires_at_ms, now)
            .map_err(|_| {
                Unspent::Unavailable("this process's ledger of request states is full".into())
            })?,
    };
    if spent {
        Ok(())
    } else {
        Err(Unspent::Replayed)
    }
}

/// The answer to a state refused by `open`.
fn state_refused(tool: &Descriptor, error: StateError) -> ToolResult {
    tracing::info!(tool = &*tool.name, %error, "a request state was refused");
    let error = match error {
        StateError::Expired => ToolError::request_state_expired(),
        other => ToolError::invalid_request_state(&other.to_string()),
    };
    ToolResult::failed(error, None)
}

/// The answer when the user declined the request `key`.
fn declined(tool: &Descriptor, key: &str) -> ToolResult {
    let what = if key == CONFIRM {
        "The user did not confirm the call".to_owned()
    } else {
        format!("The user declined to answer `{key}`")
    };
    let error = ToolError::declined(tool.error_headline.as_deref(), &what);
    ToolResult::failed(error, None)
}

/// The forms of `tool` some of whose fields `value` lacks, in spec order.
pub(crate) fn missing<'t>(tool: &'t Descriptor, value: &Value) -> Vec<&'t AskForm> {
    tool.ask
        .iter()
        .filter(|form| {
            form.fields
                .iter()
                .any(|field| value.get(field.as_ref()).is_none())
        })
        .collect()
}

/// What `forms` ask.
pub(crate) fn form_requests(forms: &[&AskForm]) -> Vec<InputRequest> {
    forms
        .iter()
        .map(|form| InputRequest {
            key: form.name.to_string(),
            message: form.message.to_string(),
            schema: serde_json::from_str(&form.schema).unwrap_or(Value::Null),
        })
        .collect()
}

/// The confirmation the call must be given — its message over `value` (the arguments, with
/// what `ref` fields loaded) — or none: the tool has none, its `when` is false, or the user
/// gave it already.
pub(crate) fn confirmation(
    tool: &Descriptor,
    compiled: &Compiled,
    confirmed: bool,
    value: &Value,
) -> Result<Option<InputRequest>, ToolResult> {
    let Some(confirm) = &tool.confirm else {
        return Ok(None);
    };
    if confirmed {
        return Ok(None);
    }
    let failed = |what: &str, e: minijinja::Error| {
        ToolResult::internal(tool, format!("the `confirm` {what} failed: {e:#}"))
    };
    let Some(templates) = &compiled.templates else {
        return Ok(None);
    };
    let context = minijinja::Value::from(minijinja::value::Serde(value));
    if let Some(when) = &confirm.when {
        let expression = templates
            .compile_expression(when)
            .map_err(|e| failed("condition", e))?;
        let holds = expression
            .eval(context.clone())
            .map_err(|e| failed("condition", e))?;
        if !holds.is_true() {
            return Ok(None);
        }
    }
    let message = templates
        .get_template("confirm")
        .and_then(|t| t.render(&context))
        .map_err(|e| failed("message", e))?;
    Ok(Some(InputRequest {
        key: CONFIRM.to_owned(),
        message,
        schema: serde_json::json!({ "type": "object", "properties": {} }),
    }))
}

/// The call's answer asking `requests` of its user, with the state sealed for the next round.
pub(crate) fn ask(
    tool: &Descriptor,
    mut round: Round,
    requests: Vec<InputRequest>,
    options: &CallOptions,
    rules: &Rules,
) -> InputRequired {
    round.carried.asked = requests.iter().map(|r| r.key.clone()).collect();
    let caller = options.caller.as_deref().unwrap_or("");
    let now = Utc::now().timestamp_millis();
    let data = serde_json::to_value(&round.carried).unwrap_or(Value::Null);
    let state = RequestState::new(caller, &tool.name, &round.sent, now, STATE_TTL, data);
    let expires_at = Utc
        .timestamp_millis_opt(state.expires_at_ms)
        .single()
        .unwrap_or_else(Utc::now);
    InputRequired {
        tool: tool.name.to_string(),
        requests,
        request_state: rules.sealing.keys.seal(&state),
        expires_at,
    }
}
