//! Durable tasks: a tool's `task:` (`optional`, `required`, or a map with `mode`, `retention`
//! and `timeout`), resolved over the project's `tasks:` defaults, and the project's `tasks:`
//! itself.

use std::time::Duration;

use toolspec_vocab::tasks::{TaskDecl, TaskSupport};

use crate::diagnostic::kind::Kind;
use crate::read::durable::read_duration;
use crate::read::reader::Reader;
use crate::read::yaml::{Node, Value};
use crate::source::{Span, Spanned};
use crate::spec::ProjectConfig;

/// The keys of a tool's `task:` map.
const TASK_KEYS: [&str; 3] = ["mode", "retention", "timeout"];
/// The keys of the project's `tasks:`.
const PROJECT_KEYS: [&str; 9] = [
    "retention",
    "timeout",
    "concurrency",
    "running_per_caller",
    "per_caller",
    "kept_per_caller",
    "kept_bytes_per_caller",
    "max_result_bytes",
    "status_tool",
];

/// The longest `retention`: a year.
const MAX_RETENTION: Duration = Duration::from_secs(365 * 24 * 3600);
/// The longest `timeout`: a week.
const MAX_TIMEOUT: Duration = Duration::from_secs(7 * 24 * 3600);
/// The most tasks one process may run at once.
const MAX_CONCURRENCY: u64 = 1024;
/// The most unfinished tasks one caller may have.
const MAX_PER_CALLER: u64 = 1_000_000;
/// The largest result a task may keep: 64 MiB.
const MAX_RESULT_BYTES: u64 = 64 << 20;
/// The most bytes of results one caller may keep: 64 GiB.
const MAX_KEPT_BYTES: u64 = 64 << 30;

/// A tool's `task:` as written; resolved over the project's defaults by [`resolve_task`].
#[derive(Debug, Clone, PartialEq)]
pub struct TaskWritten {
    /// `mode` (or the scalar form).
    pub support: TaskSupport,
    /// `retention`, where written.
    pub retention: Option<Spanned<Duration>>,
    /// `timeout`, where written.
    pub timeout: Option<Spanned<Duration>>,
    /// Where `task:` is written.
    pub at: Span,
}

/// `task: optional | required`, or `task: { mode, retention, timeout }`.
pub fn read_task(r: &mut Reader<'_>, key_node: &Node, node: &Node) -> Option<TaskWritten> {
    if let Value::Str(_) = node.value {
        let support = read_mode(r, node, "`task`")?;
        return Some(TaskWritten {
            support,
            retention: None,
            timeout: None,
            at: key_node.span,
        });
    }
    let Some(entries) = node.as_map() else {
        r.wrong_kind(
            node,
            "`task`",
            "`optional`, `required` or a map with `mode`, `retention` and `timeout`",
        );
        return None;
    };
    r.check_keys(entries, &TASK_KEYS, "`task`");
    let support = match node.get("mode") {
        Some(n) => read_mode(r, n, "`task.mode`")?,
        None => TaskSupport::Optional,
    };
    let retention = node.get("retention").and_then(|n| {
        bounded(r, n, "`task.retention`", "`24h`", MAX_RETENTION, "`365d`")
            .map(|d| Spanned::new(d, n.span))
    });
    let timeout = node.get("timeout").and_then(|n| {
        bounded(r, n, "`task.timeout`", "`30m`", MAX_TIMEOUT, "`7d`")
            .map(|d| Spanned::new(d, n.span))
    });
    Some(TaskWritten {
        support,
        retention,
        timeout,
        at: key_node.span,
    })
}

/// `optional` or `required`.
fn read_mode(r: &mut Reader<'_>, node: &Node, what: &str) -> Option<TaskSupport> {
    let choices = [
        ("optional", TaskSupport::Optional),
        ("required", TaskSupport::Required),
    ];
    let help = "`optional` runs inline unless the caller takes a task handle; `required` always \
                runs as a task";
    r.choice(node, what, "task mode", &choices, help)
}

/// A tool's task, its `retention` and `timeout` over the project's; a retention that would
/// delete a task before its run may end is reported.
pub fn resolve_task(r: &mut Reader<'_>, written: &TaskWritten, config: &ProjectConfig) -> TaskDecl {
    let retention = written
        .retention
        .as_ref()
        .map_or(config.tasks.retention, |s| s.value);
    let timeout = written
        .timeout
        .as_ref()
        .map_or(config.tasks.timeout, |s| s.value);
    if retention <= timeout {
        let at = written
            .retention
            .as_ref()
            .or(written.timeout.as_ref())
            .map_or(written.at, |s| s.span);
        r.report(
            r.error(
                Kind::Conflict,
                at,
                format!(
                    "a task's `retention` ({}) must be longer than its `timeout` ({})",
                    toolspec_vocab::duration::words(retention),
                    toolspec_vocab::duration::words(timeout)
                ),
            )
            .with_label("the task could be deleted while it runs")
            .with_help(
                "`retention` counts from the task's creation: make it longer than `timeout`, \
                 or shorten `timeout`",
            ),
        );
    }
    TaskDecl {
        support: written.support,
        retention_ms: millis(retention),
        timeout_ms: millis(timeout),
    }
}

/// The project's `tasks:` into `config`.
pub fn read_project_tasks(r: &mut Reader<'_>, node: &Node, config: &mut ProjectConfig) {
    let Some(entries) = r.map(node, "`tasks`") else {
        return;
    };
    r.check_keys(entries, &PROJECT_KEYS, "`tasks`");
    let tasks = &mut config.tasks;
    if let Some(n) = node.get("retention")
        && let Some(d) = bounded(r, n, "`tasks.retention`", "`24h`", MAX_RETENTION, "`365d`")
    {
        tasks.retention = d;
    }
    if let Some(n) = node.get("timeout")
        && let Some(d) = bounded(r, n, "`tasks.timeout`", "`1h`", MAX_TIMEOUT, "`7d`")
    {
        tasks.timeout = d;
    }
    if let Some(n) = node.get("concurrency")
        && let Some(v) = count(r, n, "`tasks.concurrency`", MAX_CONCURRENCY)
    {
        tasks.concurrency = v as u32;
    }
    if let Some(n) = node.get("running_per_caller")
        && let Some(v) = count(r, n, "`tasks.running_per_caller`", MAX_CONCURRENCY)
    {
        tasks.running_per_caller = v as u32;
    }
    if let Some(n) = node.get("per_caller")
        && let Some(v) = count(r, n, "`tasks.per_caller`", MAX_PER_CALLER)
    {
        tasks.per_caller = v as u32;
    }
    if let Some(n) = node.get("kept_per_caller")
        && let Some(v) = count(r, n, "`tasks.kept_per_caller`", MAX_PER_CALLER)
    {
        tasks.kept_per_caller = v as u32;
    }
    if let Some(n) = node.get("kept_bytes_per_caller")
        && let Some(v) = count(r, n, "`tasks.kept_bytes_per_caller`", MAX_KEPT_BYTES)
    {
        tasks.kept_bytes_per_caller = v;
    }
    if let Some(n) = node.get("max_result_bytes")
        && let Some(v) = count(r, n, "`tasks.max_result_bytes`", MAX_RESULT_BYTES)
    {
        tasks.max_result_bytes = v;
    }
    if let Some(n) = node.get("status_tool")
        && let Some(name) = r.builtin_name(n, "`tasks.status_tool`", "task status")
    {
        config.task_status_name = name;
    }
}

/// A duration longer than zero and at most `max` (spelled `max_spelled`).
fn bounded(
    r: &mut Reader<'_>,
    node: &Node,
    what: &str,
    example: &str,
    max: Duration,
    max_spelled: &str,
) -> Option<Duration> {
    let duration = read_duration(r, node, what, example)?;
    let (message, label) = if duration.is_zero() {
        (format!("{what} must be longer than zero"), "zero")
    } else if duration > max {
        (format!("{what} must be at most {max_spelled}"), "too long")
    } else {
        return Some(duration);
    };
    r.report(
        r.error(Kind::InvalidValue, node.span, message)
            .with_label(label)
            .with_help(format!("write a duration like {example}")),
    );
    None
}

/// A whole number from 1 to `max`.
fn count(r: &mut Reader<'_>, node: &Node, what: &str, max: u64) -> Option<u64> {
    let value = r.u64(node, what)?;
    if (1..=max).contains(&value) {
        return Some(value);
    }
    r.report(
        r.error(
            Kind::InvalidValue,
            node.span,
            format!("{what} must be from 1 to {max}"),
        )
        .with_label(if value == 0 { "zero" } else { "too large" }),
    );
    None
}

/// `duration` in whole milliseconds.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}
