//! Long-running tools as durable tasks: a call of a tool that declares `task:` is handed to a
//! queue in the database (the pipeline's `task` stage) and answered at once with a [`Task`]
//! handle; a worker on any process sharing the database claims it, runs the rest of the
//! pipeline with the caller's stored identity and ambient context, and keeps the result (or
//! the error) for the caller to read until the task's retention passes.
//!
//! - [`TaskId`]: an unguessable id (122 random bits), and the checks of an id a client sends;
//! - [`Task`]: what a caller sees of its task — status, progress, and once it ended the
//!   result exactly as a direct call would have answered;
//! - [`MalformedTaskId`]: a client's id that is not one;
//! - [`Accept`]: whether the caller of a call can take a task handle instead of a result;
//! - [`Submitted`]: what a call that may become a task answers.
//!
//! A task belongs to the caller that created it: reading or cancelling another caller's task
//! answers exactly as an unknown id does. Its arguments and ambient context are kept only
//! while it may still run (they are erased when it ends); its result is kept until the
//! retention passes, then deleted with the task by the worker's sweep.

use std::fmt;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Deserialize as _;
use serde_json::{Map, Value, json};

use crate::model::context::ProgressUpdate;
use crate::model::failure::{ToolError, ToolResult};
use crate::model::truncation::Truncation;

/// How often a client is asked to look at a task that has not ended (MCP `pollIntervalMs`).
#[doc(hidden)]
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// A task's id: 32 lowercase hexadecimal digits, 122 of whose bits are random.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskId(String);

impl TaskId {
    /// A new random id.
    pub fn random() -> Self {
        Self(uuid::Uuid::new_v4().simple().to_string())
    }

    /// The id `text` spells, if it is one (a client's: anything else is refused before the
    /// database is asked).
    pub fn parse(text: &str) -> Result<Self, MalformedTaskId> {
        let well_formed = text.len() == 32
            && text
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        match well_formed {
            true => Ok(Self(text.to_owned())),
            false => Err(MalformedTaskId),
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskStatus {
    /// Waiting for a worker, or running.
    Working,
    /// The tool ran: its result, a success or a tool error (a declared code, a guard's, a
    /// timeout), is the task's.
    Completed,
    /// The run failed outside the tool's contract (an internal error, a result too large):
    /// the error is the task's.
    Failed,
    /// Cancelled by its caller before it ended.
    Cancelled,
}

impl TaskStatus {
    /// The status as MCP and the HTTP API spell it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Working => "working",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }

    /// The status `text` spells (as a storage keeps it).
    pub fn parse(text: &str) -> Option<Self> {
        [
            Self::Working,
            Self::Completed,
            Self::Failed,
            Self::Cancelled,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }

    /// Whether the task has ended.
    pub const fn is_terminal(self) -> bool {
        !matches!(self, Self::Working)
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a caller sees of one of its tasks.
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// Its id.
    pub id: TaskId,
    /// The tool it runs (canonical name).
    pub tool: String,
    /// Where it is.
    pub status: TaskStatus,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it last changed (claimed, progressed, ended).
    pub updated_at: DateTime<Utc>,
    /// When it and its result are deleted.
    pub expires_at: DateTime<Utc>,
    /// The handler's last progress report, while it runs.
    pub progress: Option<ProgressUpdate>,
    /// How many times a worker has started it (more than once when a worker died running it).
    pub attempts: u32,
    /// While it waits for a worker to start it (again): why.
    pub queued: Option<Queued>,
    /// Once it ended (completed or failed): the result, as a direct call would have answered.
    pub result: Option<ToolResult>,
}

/// Why a task that is not running waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Queued {
    /// A live process serves its tool: a worker starts it once it has room and its caller's
    /// share of the workers allows.
    ForWorker,
    /// No live process serves its tool (the servers sharing the database serve other tools):
    /// it starts once one does.
    NoWorker,
}

impl Task {
    /// How long the task is kept from its creation (MCP `ttlMs`).
    pub fn ttl(&self) -> Duration {
        (self.expires_at - self.created_at)
            .to_std()
            .unwrap_or_default()
    }

    /// A sentence for a person: why it waits, the progress message while it runs, the error's
    /// once it failed.
    pub fn status_message(&self) -> Option<String> {
        match self.status {
            TaskStatus::Working => match self.queued {
                Some(Queued::ForWorker) => Some("Waiting for a worker to start it.".into()),
                Some(Queued::NoWorker) => Some(format!(
                    "Waiting: no running server serves `{}` tasks; it starts once one does.",
                    self.tool
                )),
                None => self.progress.as_ref().map(|p| p.message.clone()),
            },
            TaskStatus::Cancelled => Some("The task was cancelled.".into()),
            TaskStatus::Completed | TaskStatus::Failed => self
                .result
                .as_ref()
                .and_then(|r| r.error())
                .map(|e| e.message.clone()),
        }
    }

    /// The task as every adapter shows it to a model or a client: `{task_id, tool, status,
    /// created_at, updated_at, expires_at, poll_interval_ms, progress?, status_message?,
    /// result? | error?}` (the result as a direct call's answer: the exposed values, or the
    /// error with its code).
    pub fn to_json(&self) -> Value {
        let mut task = Map::new();
        task.insert("task_id".into(), json!(self.id.as_str()));
        task.insert("tool".into(), json!(self.tool));
        task.insert("status".into(), json!(self.status.as_str()));
        task.insert("created_at".into(), json!(timestamp(self.created_at)));
        task.insert("updated_at".into(), json!(timestamp(self.updated_at)));
        task.insert("expires_at".into(), json!(timestamp(self.expires_at)));
        if !self.status.is_terminal() {
            let interval = POLL_INTERVAL.as_millis() as u64;
            task.insert("poll_interval_ms".into(), json!(interval));
        }
        if let Some(progress) = &self.progress
            && !self.status.is_terminal()
        {
            let progress = json!({"fraction": progress.fraction, "message": progress.message});
            task.insert("progress".into(), progress);
        }
        if let Some(message) = self.status_message() {
            task.insert("status_message".into(), json!(message));
        }
        if let Some(result) = &self.result {
            match &result.outcome {
                Ok(value) => task.insert("result".into(), value.clone()),
                Err(error) => task.insert("error".into(), json!(error)),
            };
            if let Some(notice) = &result.truncated {
                task.insert("truncated".into(), json!(notice));
            }
        }
        Value::Object(task)
    }
}

impl Task {
    /// The task as a model that called its tool sees it: its JSON, with `next` saying which
    /// tool (`status_tool`, the task status tool's name on the model's adapter) reads it.
    pub fn to_model_json(&self, status_tool: &str) -> Value {
        let mut task = self.to_json();
        let next = format!(
            "This call runs as a task. Call `{status_tool}` with {{\"task_id\": \"{}\"}} to read \
             its status and, once it has ended, its result (`wait_seconds` waits for it to end).",
            self.id
        );
        if let Value::Object(map) = &mut task {
            map.insert("next".into(), Value::String(next));
        }
        task
    }

    /// The task as a call's result: what the audit trail, hooks and adapters without a task
    /// surface of their own record and show (its JSON, [`to_json`](Self::to_json)).
    pub fn ticket(&self) -> ToolResult {
        ToolResult {
            outcome: Ok(self.to_json()),
            message: format!(
                "Started task {} of `{}`: its result will be kept until {}.",
                self.id,
                self.tool,
                timestamp(self.expires_at)
            ),
            exception: None,
            replay_of: None,
            truncated: None,
        }
    }
}

/// `at` in RFC 3339, to the millisecond, in UTC.
#[doc(hidden)]
pub fn timestamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A task id a client sent that is not one: 32 lowercase hexadecimal digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("`task_id` is not a task id: expected 32 lowercase hexadecimal digits")]
pub struct MalformedTaskId;

/// Whether the caller of a call can take a task handle instead of the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Accept {
    /// No: a tool whose `task` is `required` answers `task_required`, an `optional` one runs
    /// inline.
    #[default]
    ResultsOnly,
    /// Only where the tool requires it (function calling: the model gets a ticket for a
    /// `required` tool, an `optional` one runs inline).
    WhenRequired,
    /// Whenever the tool may run as a task (an MCP client with the tasks extension, an HTTP
    /// request with `Prefer: respond-async`).
    Tasks,
}

/// What a call that may become a task answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Submitted {
    /// It ran inline (or was refused): its result.
    Done(ToolResult),
    /// It was stored as a task, which a worker will run.
    Task(Task),
    /// It needs its user's answers first (the tool's `ask` or `confirm`): nothing was done;
    /// the same call again, with the answers as its
    /// [`continuation`](crate::CallOptions::continuation), goes on.
    Input(crate::model::user_input::InputRequired),
}

impl Submitted {
    /// The result: a task as its [`ticket`](Task::ticket).
    pub fn into_result(self) -> ToolResult {
        match self {
            Self::Done(result) => result,
            Self::Task(task) => task.ticket(),
            Self::Input(input) => input.to_result(),
        }
    }
}

/// A result as a task keeps it: the model-facing outcome and message, and the notice of a
/// cut, never the developer's exception (`{value, message, truncated?}` or `{error, message}`).
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    value: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<ToolError>,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    truncated: Option<Box<Truncation>>,
}

/// `result` as a storage keeps it (a task's result, a `once` key's), never with its
/// exception; [`result_from_stored`] reads it back.
#[doc(hidden)]
pub fn stored_result(result: &ToolResult) -> Value {
    let (value, error) = match &result.outcome {
        Ok(value) => (Some(value.clone()), None),
        Err(error) => (None, Some(error.clone())),
    };
    let stored = Stored {
        value,
        error,
        message: result.message.clone(),
        truncated: result.truncated.clone(),
    };
    serde_json::to_value(stored).unwrap_or(Value::Null)
}

/// The result a storage kept (the form `stored_result` gives it).
#[doc(hidden)]
pub fn result_from_stored(stored: &Value) -> Option<ToolResult> {
    let Stored {
        value,
        error,
        message,
        truncated,
    } = Stored::deserialize(stored).ok()?;
    let outcome = match (value, error) {
        (Some(value), None) => Ok(value),
        (None, Some(error)) => Err(error),
        _ => return None,
    };
    Some(ToolResult {
        outcome,
        message,
        exception: None,
        replay_of: None,
        truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_random_and_only_well_formed_ones_parse() {
        let (a, b) = (TaskId::random(), TaskId::random());
        assert_ne!(a, b);
        assert_eq!(TaskId::parse(a.as_str()).ok(), Some(a));
        for bad in [
            "",
            "abc",
            "../../etc/passwd",
            &"A".repeat(32),
            &"0".repeat(33),
        ] {
            assert_eq!(TaskId::parse(bad), Err(MalformedTaskId), "{bad}");
        }
    }

    #[test]
    fn a_stored_result_reads_back_without_its_exception() {
        let ok = ToolResult {
            outcome: Ok(json!({"rows": 3})),
            message: "Exported 3 rows.".into(),
            exception: None,
            replay_of: None,
            truncated: Some(Box::new(Truncation {
                limit: crate::model::truncation::Limit {
                    bytes: None,
                    items: Some(3),
                },
                cut: vec![crate::model::truncation::Cut {
                    at: "/rows".into(),
                    kept: 3,
                    total: 9,
                    by: crate::model::truncation::CutBy::Items,
                }],
                more: 0,
            })),
        };
        assert_eq!(result_from_stored(&stored_result(&ok)), Some(ok));
        let failed = ToolResult::failed(
            ToolError {
                code: "empty".into(),
                message: "Nothing to export".into(),
                details: Some(json!({"orders": 0})),
            },
            Some("secret detail".into()),
        );
        let back = result_from_stored(&stored_result(&failed)).expect("a result");
        assert_eq!(back.outcome, failed.outcome);
        assert_eq!(back.exception, None);
        assert_eq!(result_from_stored(&json!({"message": "x"})), None);
    }
}
