//! One stored record, and how a call becomes one: opened when the call starts (who called what,
//! with which arguments), finished with its outcome — the arguments and ambient values through
//! the input's sensitivity, the exposed result through the output's, as the called tool redacts
//! them ([`Redact`]): a generated tool by its own spec, the explain tool by the tool it explains.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::model::ambient::AmbientContext;
use crate::model::descriptor::Descriptor;
use crate::model::failure::ToolResult;

/// One call, as the audit trail keeps it; `J`, its JSON values: parsed when read back, JSON
/// text as the writer takes them ([`AuditEntry`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord<J = Value> {
    /// The record's id (UUID v7: ordered by time).
    pub id: Uuid,
    /// When the call started.
    pub started_at: DateTime<Utc>,
    /// How long it took, in microseconds.
    pub duration_us: u64,
    /// The tool's canonical name.
    pub tool: String,
    /// The adapter it came through (`mcp`, `openai`…), if the caller said.
    pub adapter: Option<String>,
    /// Who called, if the adapter knows.
    pub caller: Option<String>,
    /// The tool's ambient fields, from the trusted context (sensitive ones redacted).
    pub ambient: J,
    /// The arguments as received, without a model-sent `ambient_context` (sensitive ones
    /// redacted).
    pub arguments: J,
    /// Whether the call has ended: only a `required` tool's record is stored before its call
    /// runs, and can be read while it is `started` (or `interrupted`).
    pub state: AuditState,
    /// `ok`, or the error code; `None` until the call ends (a `started` or `interrupted`
    /// record).
    pub outcome: Option<String>,
    /// The user-facing error message; on success, none, or the sentence of the notice of an
    /// answer cut to fit its result cap.
    pub message: Option<String>,
    /// The developer-facing exception, for operators only.
    pub exception: Option<String>,
    /// The exposed result on success (sensitive values redacted).
    pub result: Option<J>,
    /// The trace id of the call's span (the caller's, or the record id's).
    pub trace_id: String,
    /// What the user answered, when the call continued a round trip (its tool's `confirm` or
    /// `ask`): each request's response, `{"confirm": {"action": "accept"}}`; none otherwise.
    /// With the outcome, it tells a confirmed call (`ok` after an accepted `confirm`) from one
    /// the user declined (`declined`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answers: Option<J>,
    /// Set when `once` answered the call with the recorded result of an earlier call with the
    /// same key (nothing ran): the id of that call's record, or the nil id when that call was
    /// not recorded. The outcome and result are the earlier call's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replay_of: Option<Uuid>,
    /// How many calls the record stands for: 1, but for refusals coalesced — calls of one
    /// caller and tool refused alike (out of scope, over the rate limit) within one second
    /// past the first, which has a record of its own, are counted on one more record (the
    /// first of them as it came).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub calls: u64,
}

/// One call, as most records stand for.
fn one() -> u64 {
    1
}

fn is_one(calls: &u64) -> bool {
    *calls == 1
}

/// A record as the trail writes it: its JSON values — the ambient values, the arguments, the
/// result, the answers — redacted and serialized already, so that what a call hands to the
/// writer is a few strings and the values' trees are freed where they were built. What an
/// [`AuditSink`](crate::storage::AuditSink) stores; read back, it is an [`AuditRecord`].
#[doc(hidden)]
pub type AuditEntry = AuditRecord<Box<RawValue>>;

/// `value` (a `Value`, or a view of one) as JSON text.
pub(crate) fn json_text(value: &impl Serialize) -> Box<RawValue> {
    // A `Value` always serializes (its keys are strings), and so do the views of one.
    serde_json::value::to_raw_value(value).unwrap_or_else(|_| RawValue::NULL.to_owned())
}

/// `{}`, the ambient values of most calls.
static EMPTY_OBJECT: LazyLock<Box<RawValue>> = LazyLock::new(|| json_text(&Map::new()));

/// How the called tool hides its sensitive values: what a record keeps of a value, as JSON
/// text.
pub(crate) trait Redact: Sync {
    /// A call's input, its arguments or its ambient values, redacted.
    fn input(&self, value: &Value) -> Box<RawValue>;
    /// The exposed result, redacted.
    fn output(&self, value: &Value) -> Box<RawValue>;
}

/// Where a recorded call stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuditState {
    /// Recorded before it ran (a `required` tool), with no outcome yet: it runs now, or the
    /// process running it died and no live process has noticed yet.
    Started,
    /// Ended, with its outcome.
    Finished,
    /// Recorded before it ran, but it never ended with an outcome: the process running it died
    /// (or its caller went away mid-call). Whatever its handler committed, it may or may not
    /// have done.
    Interrupted,
}

impl AuditState {
    /// The spelling in the table and on the command line.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Started => "started",
            Self::Finished => "finished",
            Self::Interrupted => "interrupted",
        }
    }
}

impl std::str::FromStr for AuditState {
    type Err = ParseAuditError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "started" => Ok(Self::Started),
            "finished" => Ok(Self::Finished),
            "interrupted" => Ok(Self::Interrupted),
            other => Err(ParseAuditError::State(other.to_owned())),
        }
    }
}

/// A word that names no state or outcome of a recorded call (from a command line, say).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseAuditError {
    /// Not `started`, `finished` or `interrupted`.
    #[error("`{0}` is not a state of a recorded call: `started`, `finished` or `interrupted`")]
    State(String),
    /// An empty outcome.
    #[error("an outcome is `ok`, `failed` or an error code")]
    EmptyOutcome,
}

/// What the registry knows of a call when it starts.
pub(crate) struct Call<'a> {
    pub(crate) id: Uuid,
    pub(crate) tool: &'a Descriptor,
    pub(crate) started_at: DateTime<Utc>,
    pub(crate) adapter: Option<&'a str>,
    pub(crate) caller: Option<&'a str>,
    pub(crate) trace_id: String,
    pub(crate) arguments: &'a Value,
    /// What the user answered, when the call continues a round trip.
    pub(crate) answers: Option<Value>,
    pub(crate) ambient: &'a AmbientContext,
    /// How the called tool redacts its values.
    pub(crate) redact: &'a dyn Redact,
}

impl AuditEntry {
    /// The record of `call` as it starts (no outcome yet), its sensitive values redacted by
    /// the called tool.
    pub(crate) fn started(call: Call<'_>) -> Self {
        let arguments = match call.arguments {
            // Copied only when a model sent an `ambient_context`, which is not an argument (a
            // scan rather than a lookup: the arguments are serialized whole next anyway).
            Value::Object(map) if map.keys().any(|key| key == "ambient_context") => {
                let mut map = map.clone();
                map.remove("ambient_context");
                call.redact.input(&Value::Object(map))
            }
            other => call.redact.input(other),
        };
        let ambient: Map<String, Value> = call
            .tool
            .ambient_fields()
            .filter_map(|field| {
                let value = call.ambient.get(field.context_key())?;
                Some((field.name.to_string(), value.clone()))
            })
            .collect();
        let ambient = match ambient.is_empty() {
            true => EMPTY_OBJECT.clone(),
            false => call.redact.input(&Value::Object(ambient)),
        };
        Self {
            id: call.id,
            started_at: call.started_at,
            duration_us: 0,
            tool: call.tool.name.to_string(),
            adapter: call.adapter.map(str::to_owned),
            caller: call.caller.map(str::to_owned),
            ambient,
            arguments,
            state: AuditState::Started,
            outcome: None,
            message: None,
            exception: None,
            result: None,
            trace_id: call.trace_id,
            answers: call.answers.as_ref().map(json_text),
            replay_of: None,
            calls: 1,
        }
    }

    /// Ends the record with the call's `result`, which took `duration_us`; the exposed result
    /// redacted by `redact`.
    pub(crate) fn finish(&mut self, result: &ToolResult, duration_us: u64, redact: &dyn Redact) {
        let (outcome, message, value) = match &result.outcome {
            Ok(value) => {
                let notice = result.truncated.as_ref().map(|n| n.sentence());
                ("ok".to_owned(), notice, Some(redact.output(value)))
            }
            Err(error) => (error.code.clone(), Some(error.message.clone()), None),
        };
        self.state = AuditState::Finished;
        self.duration_us = duration_us;
        self.outcome = Some(outcome);
        self.message = message;
        self.exception = result.exception.clone();
        self.result = value;
        self.replay_of = result.replay_of;
    }
}
