//! Long-running tools as durable tasks, as specs declare them and the runtime follows them: a
//! tool's [`TaskDecl`] (whether it may or must run as a task, how long its task is kept, how
//! long a run may take), the project's [`TasksConfig`] (the defaults and the bounds), what a
//! task looks like to its caller ([`TASK_SCHEMA`]) and the built-in task status tool's
//! published surface ([`status_tool`]).

use std::time::Duration;

/// Whether a tool may or must run as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub enum TaskSupport {
    /// Runs inline unless the caller can take a task handle and the adapter asks for one.
    Optional,
    /// Never runs inline: a caller that cannot take a task handle is refused.
    Required,
}

impl TaskSupport {
    /// The spelling in specs (`optional`, `required`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
}

/// A tool's `task:`, resolved at build time over the project's `tasks:` defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct TaskDecl {
    /// Whether the tool may or must run as a task.
    pub support: TaskSupport,
    /// How long a task is kept from its creation, its result included, in milliseconds
    /// ([`retention`](Self::retention)): MCP's `ttlMs`.
    pub retention_ms: u64,
    /// How long one run of the task may take, in milliseconds ([`timeout`](Self::timeout));
    /// the tool's own `timeout` bounds its inline calls.
    pub timeout_ms: u64,
}

impl TaskDecl {
    /// How long a task is kept from its creation.
    pub const fn retention(&self) -> Duration {
        Duration::from_millis(self.retention_ms)
    }

    /// How long one run may take.
    pub const fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms)
    }

    /// Whether the tool never runs inline.
    pub const fn is_required(&self) -> bool {
        matches!(self.support, TaskSupport::Required)
    }
}

/// The project's `tasks:`: the defaults of every tool's `task:` and the bounds of the queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TasksConfig {
    /// How long a task is kept from its creation unless its tool says otherwise.
    pub retention: Duration,
    /// How long a run may take unless its tool says otherwise.
    pub timeout: Duration,
    /// How many tasks one process runs at once.
    pub concurrency: u32,
    /// How many of one caller's tasks run at once, across every process on the database: its
    /// share of the workers (its other tasks wait, and other callers' go first).
    pub running_per_caller: u32,
    /// How many unfinished tasks one caller may have; a caller at the bound is refused
    /// (`too_many_tasks`) until one ends.
    pub per_caller: u32,
    /// How many tasks one caller may keep, ended ones included until their retention passes;
    /// a caller at the bound is refused (`too_many_tasks`) until one is deleted.
    pub kept_per_caller: u32,
    /// How many bytes of results one caller's kept tasks may hold; a caller at the bound is
    /// refused (`too_many_tasks`) until one is deleted.
    pub kept_bytes_per_caller: u64,
    /// The largest result a task keeps, in bytes of JSON; a larger one is an internal error.
    pub max_result_bytes: u64,
}

impl TasksConfig {
    /// The defaults: kept a day, an hour per run, four at once per process and two of one
    /// caller's at once, a hundred unfinished and a thousand kept per caller, results up to
    /// 1 MiB each and 64 MiB per caller.
    pub const DEFAULT: Self = Self {
        retention: Duration::from_secs(24 * 3600),
        timeout: Duration::from_secs(3600),
        concurrency: 4,
        running_per_caller: 2,
        per_caller: 100,
        kept_per_caller: 1000,
        kept_bytes_per_caller: 64 << 20,
        max_result_bytes: 1 << 20,
    };
}

impl Default for TasksConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The JSON Schema of a task as its caller sees it: the HTTP API's `Task`, and what the task
/// status tool answers.
pub const TASK_SCHEMA: &str = concat!(
    r#"{"type":"object","properties":{"task_id":{"type":"string","pattern":"^[0-9a-f]{32}$"},"tool":{"type":"string"},"status":{"type":"string","enum":["working","completed","failed","cancelled"]},"created_at":{"type":"string","format":"date-time"},"updated_at":{"type":"string","format":"date-time"},"expires_at":{"type":"string","format":"date-time"},"poll_interval_ms":{"type":"integer","minimum":0},"progress":{"type":"object","properties":{"fraction":{"type":"number","minimum":0,"maximum":1},"message":{"type":"string"}},"required":["fraction","message"]},"status_message":{"type":"string"},"result":{"description":"Once completed without an error: the tool's exposed values."},"error":{"type":"object","properties":{"error":{"type":"string"},"message":{"type":"string"},"details":{}},"required":["error","message"]},"truncated":"#,
    crate::truncation_schema!(),
    r#"},"required":["task_id","tool","status","created_at","updated_at","expires_at"]}"#
);

/// The built-in task status tool: how a caller without a task surface of its own (a model over
/// function calling, a rig agent) reads one of its tasks — its status and progress, then its
/// result. The compiler offers it on those adapters when some tool declares `task:`, under the
/// name `tasks: { status_tool: … }` gives (`task_status` by default), and derives its
/// dialects from [`INPUT_SCHEMA`](status_tool::INPUT_SCHEMA) like any tool's.
pub mod status_tool {
    use crate::adapters;

    /// Its name unless `tasks: { status_tool: … }` says otherwise.
    pub const DEFAULT_NAME: &str = "task_status";

    /// Whether it is offered on `adapter` (where some member declares `task:`): on every adapter
    /// but MCP and the HTTP API, which read tasks natively.
    pub fn offered_on(adapter: &str) -> bool {
        ![adapters::MCP, adapters::HTTP].contains(&adapter)
    }

    /// The longest a call may wait for its task to end (`wait_seconds`).
    pub const MAX_WAIT_SECONDS: u64 = 30;

    /// Its title.
    pub const TITLE: &str = "Read a task";

    /// Its description.
    pub const DESCRIPTION: &str = "Read a task that another tool started: its status and progress while it runs, then its result or error. Call it with the task_id that tool answered; wait_seconds waits for the task to end before answering.";

    /// Its input schema.
    pub const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{"task_id":{"type":"string","pattern":"^[0-9a-f]{32}$","description":"The task's id, as the tool that started it answered."},"wait_seconds":{"type":"integer","minimum":0,"maximum":30,"description":"Wait up to this many seconds for the task to end before answering (0, the default: answer at once)."}},"required":["task_id"],"additionalProperties":false}"#;
}
