//! Stages: the call's audit record, when its tool's policy is on. Opened as the call starts
//! (for a `required` tool committed before anything of the call runs, the call refused with
//! `unavailable` when it cannot be), finished with the outcome after it (see `audit::trail`
//! for what each durability promises); a call refused before it starts (out of scope, over the
//! rate limit) is recorded with the others of its caller refused alike within the second.
//! Values are redacted as the called tool redacts them.

use std::time::Instant;

use chrono::Utc;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::audit_record::{AuditEntry, Call, Redact};
use crate::call::options::CallOptions;
use crate::durable::trail::{AuditTrail, OpenRecord};
use crate::model::ambient::AmbientContext;
use crate::model::descriptor::Descriptor;
use crate::model::failure::{RETRY_UNAVAILABLE, ToolResult};
use crate::model::user_input::{CONFIRM, Continuation, InputResponse};
use crate::registry::RegisteredTool;

/// A call's record while the call runs.
pub(crate) struct Recording<'r> {
    trail: &'r AuditTrail,
    /// Boxed as the writer's queue takes it: the call's futures move a pointer, not a record.
    record: Box<AuditEntry>,
    open: Option<OpenRecord>,
    started: Instant,
}

/// Whether calls of `tool` are recorded: its policy is on and its registry has a trail.
pub(crate) fn records(tool: RegisteredTool<'_>) -> bool {
    trail(tool).is_some()
}

fn trail<'r>(tool: RegisteredTool<'r>) -> Option<&'r AuditTrail> {
    let enabled = tool.descriptor().audit.enabled;
    tool.registry().audit().filter(|_| enabled)
}

/// Starts the record of a call of `tool` (one that [`records`]) with `args` (`open`: committed
/// before the call runs, as a `required` tool's must be); `Err` the call's answer when its
/// record could not be opened.
pub(crate) async fn start<'r>(
    tool: RegisteredTool<'r>,
    args: &Value,
    ambient: &AmbientContext,
    options: &CallOptions,
    open: bool,
) -> Result<Recording<'r>, ToolResult> {
    let descriptor = tool.descriptor();
    let Some(trail) = trail(tool) else {
        return Err(ToolResult::internal(
            descriptor,
            "a call was recorded without an audit trail".into(),
        ));
    };
    let started = Instant::now();
    let record = entry(tool, args, ambient, options);
    let open = match open && descriptor.audit.required {
        true => match trail.open(&record).await {
            Ok(open) => Some(open),
            Err(why) => {
                let exception =
                    format!("the call's audit record could not be written before it ran: {why}");
                return Err(ToolResult::unavailable(
                    descriptor,
                    "the audit trail",
                    RETRY_UNAVAILABLE,
                    exception,
                ));
            }
        },
        false => None,
    };
    Ok(Recording {
        trail,
        record,
        open,
        started,
    })
}

/// The record of a call of `tool` as it starts, its values redacted as the tool redacts them.
fn entry(
    tool: RegisteredTool<'_>,
    args: &Value,
    ambient: &AmbientContext,
    options: &CallOptions,
) -> Box<AuditEntry> {
    let id = Uuid::now_v7();
    let trace_id = options.trace_id.clone().unwrap_or_else(|| {
        id.simple()
            .encode_lower(&mut Uuid::encode_buffer())
            .to_owned()
    });
    Box::new(AuditEntry::started(Call {
        id,
        tool: tool.descriptor(),
        started_at: Utc::now(),
        adapter: options.adapter.as_deref(),
        caller: options.caller.as_deref(),
        trace_id,
        arguments: args,
        answers: options
            .continuation
            .as_ref()
            .map(|c| answers(tool.descriptor(), c)),
        ambient,
        redact: &Redaction {
            tool,
            adapter: options.adapter.as_deref(),
        },
    }))
}

/// Records a call of `tool` (one that [`records`]) refused with `result` before anything of it
/// ran (out of scope, over the rate limit), with the others of its caller refused alike
/// within the second (see `trail`): a flood of them is a record or two a second. Nothing
/// waits for it.
pub(crate) async fn refused(
    tool: RegisteredTool<'_>,
    args: &Value,
    ambient: &AmbientContext,
    options: &CallOptions,
    result: &ToolResult,
) {
    let Some(trail) = trail(tool) else {
        return;
    };
    let outcome = result.error().map_or("ok", |e| e.code.as_str());
    let record = || {
        let mut record = entry(tool, args, ambient, options);
        let redaction = Redaction {
            tool,
            adapter: options.adapter.as_deref(),
        };
        record.finish(result, 0, &redaction);
        record
    };
    let descriptor = tool.descriptor();
    let caller = options.caller.as_deref();
    trail
        .refused(&descriptor.name, caller, outcome, record)
        .await;
}

impl Recording<'_> {
    /// The id of the call's record.
    pub(crate) fn id(&self) -> Uuid {
        self.record.id
    }

    /// The trace id of the call (the caller's, or the record's id).
    pub(crate) fn trace_id(&self) -> &str {
        &self.record.trace_id
    }

    /// Finishes the record with the call's `result`.
    pub(crate) async fn finish(
        self,
        tool: RegisteredTool<'_>,
        adapter: Option<&str>,
        result: &ToolResult,
    ) {
        let Self {
            trail,
            mut record,
            open,
            started,
        } = self;
        let duration_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        record.finish(result, duration_us, &Redaction { tool, adapter });
        let descriptor = tool.descriptor();
        trail
            .finish(&descriptor.name, record, descriptor.audit, open)
            .await;
    }
}

/// A call's redaction, as its tool does it.
struct Redaction<'r> {
    tool: RegisteredTool<'r>,
    adapter: Option<&'r str>,
}

impl Redact for Redaction<'_> {
    fn input(&self, value: &Value) -> Box<RawValue> {
        crate::pipeline::redaction::input(self.tool, self.adapter, value)
    }

    fn output(&self, value: &Value) -> Box<RawValue> {
        crate::pipeline::redaction::output(self.tool, value)
    }
}

/// The responses of `continuation` to what `tool` asks, as a record keeps them: a
/// confirmation's action; a form's action and its fields' answers, which are arguments the user
/// typed (a form never asks for a sensitive field). Nothing else a response holds — keys that
/// name no request, content past a form's fields (which the call refuses) — is kept.
fn answers(tool: &Descriptor, continuation: &Continuation) -> Value {
    let kept = continuation.responses.iter().filter_map(|(key, response)| {
        let fields = match &**key {
            CONFIRM if tool.confirm.is_some() => None,
            _ => Some(&tool.ask.iter().find(|form| form.name == *key)?.fields),
        };
        let answer = match (response, fields) {
            (InputResponse::Accept(content), Some(fields)) => {
                let asked = content
                    .iter()
                    .filter(|(k, _)| fields.iter().any(|f| f.as_ref() == k.as_str()));
                let asked: Map<String, Value> =
                    asked.map(|(k, v)| (k.clone(), v.clone())).collect();
                InputResponse::Accept(asked)
            }
            (InputResponse::Accept(_), None) => InputResponse::Accept(Map::new()),
            (other, _) => other.clone(),
        };
        Some((key.clone(), answer.to_json()))
    });
    Value::Object(kept.collect())
}
