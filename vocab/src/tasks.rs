//! Long-running tools as durable tasks, as specs declare them and the runtime follows them: a
//! tool's [`TaskDecl`] (whether it may or must run as a task, how long its task is kept, how
//! long a run may take) and the project's [`TasksConfig`] (the defaults and the bounds).

use std::time::Duration;

/// Whether a tool may or must run as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(databake::Bake), databake(path = toolspec::__private))]
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
#[cfg_attr(feature = "bake", derive(databake::Bake), databake(path = toolspec::__private))]
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
    /// How many unfinished tasks one caller may have; a caller at the bound is refused
    /// (`too_many_tasks`) until one ends.
    pub per_caller: u32,
    /// The largest result a task keeps, in bytes of JSON; a larger one is an internal error.
    pub max_result_bytes: u64,
}

impl TasksConfig {
    /// The defaults: kept a day, an hour per run, four at once per process, a hundred
    /// unfinished per caller, results up to 1 MiB.
    pub const DEFAULT: Self = Self {
        retention: Duration::from_secs(24 * 3600),
        timeout: Duration::from_secs(3600),
        concurrency: 4,
        per_caller: 100,
        max_result_bytes: 1 << 20,
    };
}

impl Default for TasksConfig {
    fn default() -> Self {
        Self::DEFAULT
    }
}
