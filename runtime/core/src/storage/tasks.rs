//! The task queue a storage keeps: what is stored when a call becomes a task ([`NewTask`]),
//! the bounds of an owner's share ([`TasksConfig`]), what a worker serves and claims
//! ([`ClaimedTask`]) and writes back ([`TaskOutcome`]), and the events that wake workers
//! ([`TaskEvent`]).

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::model::context::ProgressUpdate;
use crate::model::contract::BoxFuture;
use crate::model::task::{Task, TaskId, TaskStatus};
use crate::storage::error::StorageError;
pub use toolspec_vocab::tasks::TasksConfig;

/// How long a worker's claim of a task holds without being renewed: a worker that died (or
/// lost the database) gives its task back after this, and another worker runs it again.
#[doc(hidden)]
pub const TASK_LEASE: Duration = Duration::from_secs(10);

/// How often a running task's claim is renewed, its progress written and its cancellation
/// looked for.
#[doc(hidden)]
pub const TASK_RENEWAL: Duration = Duration::from_secs(2);

/// A call stored as a task: what the worker needs to run it as its caller made it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTask {
    /// Its id.
    pub id: TaskId,
    /// Who may read and cancel it: the caller's id (empty for an anonymous caller).
    pub owner: String,
    /// The tool (canonical name).
    pub tool: String,
    /// The adapter the call came through.
    pub adapter: Option<String>,
    /// The caller's scopes (`null`: unrestricted; a list: exactly those), checked again when
    /// it runs.
    pub scopes: Value,
    /// The caller's trusted ambient context, restored for the handler.
    pub ambient: Value,
    /// The arguments, screened and validated.
    pub arguments: Value,
    /// The call's trace id, which the run keeps.
    pub trace_id: Option<String>,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it and its result are deleted.
    pub expires_at: DateTime<Utc>,
    /// How long one run may take.
    pub timeout: Duration,
}

/// A tool whose tasks a worker runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServedTool<'a> {
    /// Its canonical name.
    pub name: &'a str,
    /// How many of one owner's tasks of it may run at once (the tool's `rate_limit.in_flight`
    /// on the worker's registry; 0: no bound of its own).
    pub in_flight: u32,
}

/// How storing a task came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enqueued {
    /// Stored (committed): a worker will run it.
    Stored,
    /// Not stored: its owner is at one of its bounds.
    OwnerAtBound(OwnerBound),
}

/// Which of an owner's bounds refused a task ([`TasksConfig`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerBound {
    /// As many unfinished tasks as `per_caller`.
    Unfinished,
    /// As many tasks kept (ended ones until their retention passes) as `kept_per_caller`.
    Kept,
    /// Kept results adding up to `kept_bytes_per_caller` bytes or more.
    KeptBytes,
}

/// A task a worker claimed: [`NewTask`]'s fields, and which attempt this is.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimedTask {
    /// The task as it was stored.
    pub task: NewTask,
    /// 1 for the first run; more when a worker died running it before.
    pub attempt: u32,
}

/// What renewing a claim found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Renewal {
    /// The claim holds a lease longer.
    Held,
    /// The task was cancelled: stop it.
    Cancelled,
    /// The claim was lost (another worker took the task over after the lease passed, or the
    /// task is gone): stop it, write nothing.
    Lost,
}

/// How a task ended, as a worker writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskOutcome {
    /// `completed`, `failed` or `cancelled`.
    pub status: TaskStatus,
    /// The stored result (see `tasks::result_from_stored`); none for a cancelled task.
    pub result: Option<Value>,
}

/// What wakes a worker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskEvent {
    /// A task was stored: a worker with room claims it.
    Enqueued,
    /// A task was cancelled: the worker running it stops it.
    Cancelled(TaskId),
    /// A task ended (told to this process's workers only): its owner's next task, held back
    /// by its share, may be claimed.
    Ended,
}

/// Durable tasks, shared by every process on the database. Callers prepare the storage
/// ([`Storage::prepare`](crate::storage::Storage::prepare)) first, as for every other need.
pub trait TaskQueue {
    /// Stores `task` and commits it (a task is stored before its caller gets the handle),
    /// unless its owner is at one of `bounds`' (`per_caller` unfinished tasks,
    /// `kept_per_caller` tasks kept, `kept_bytes_per_caller` bytes of kept results); then
    /// wakes the workers.
    fn enqueue_task<'a>(
        &'a self,
        task: &'a NewTask,
        bounds: &'a TasksConfig,
    ) -> BoxFuture<'a, Result<Enqueued, StorageError>>;

    /// Task `id` of `owner`; `None` when there is none (never existed, deleted, another's).
    fn read_task<'a>(
        &'a self,
        id: &'a TaskId,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StorageError>>;

    /// Cancels task `id` of `owner` unless it has ended (then nothing changes), and wakes the
    /// worker running it; the task as it is now, `None` when there is none. A task no worker
    /// runs now keeps what it stored until a worker serving its tool records its end
    /// ([`claim_unrecorded`](Self::claim_unrecorded)).
    fn cancel_task<'a>(
        &'a self,
        id: &'a TaskId,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StorageError>>;

    /// The unfinished tasks of `owner`, newest first, at most `limit`.
    fn list_tasks<'a>(
        &'a self,
        owner: &'a str,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Task>, StorageError>>;

    /// Says that `worker`, of this process, runs the tasks of `tools` (and no others): what
    /// it claims, and whether a task's tool is served by a live process. Replaces what it
    /// said before.
    fn serve_tasks<'a>(
        &'a self,
        worker: &'a str,
        tools: &'a [ServedTool<'a>],
    ) -> BoxFuture<'a, Result<(), StorageError>>;

    /// Says that `worker` stopped: it serves nothing any more.
    fn stop_serving<'a>(&'a self, worker: &'a str) -> BoxFuture<'a, Result<(), StorageError>>;

    /// Claims a task nobody holds (never claimed, or whose claim's lease passed) of a tool
    /// `worker` serves, for `lease`, fairly: of the tasks of owners below their share — fewer
    /// than `bounds.running_per_caller` tasks running, and fewer than the tool's `in_flight`
    /// of it — the one whose owner had the fewest unfinished tasks when it was stored goes
    /// first (each owner's first waiting task before any owner's second), then the oldest.
    /// Across processes, one claim at a time sees the others' claims.
    fn claim_task<'a>(
        &'a self,
        worker: &'a str,
        lease: Duration,
        bounds: &'a TasksConfig,
    ) -> BoxFuture<'a, Result<Option<ClaimedTask>, StorageError>>;

    /// Claims a task cancelled before a worker ran it, of a tool `worker` serves, whose end is
    /// not recorded yet, for `lease`: what it stored, for the record.
    fn claim_unrecorded<'a>(
        &'a self,
        worker: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<Option<ClaimedTask>, StorageError>>;

    /// Says that the end of cancelled task `id`, claimed by `worker` with
    /// [`claim_unrecorded`](Self::claim_unrecorded), is recorded: its arguments and ambient
    /// context are erased.
    fn recorded<'a>(
        &'a self,
        id: &'a TaskId,
        worker: &'a str,
    ) -> BoxFuture<'a, Result<(), StorageError>>;

    /// Renews `worker`'s claim of task `id` for `lease`, writing the handler's latest
    /// `progress` with it.
    fn renew_task<'a>(
        &'a self,
        id: &'a TaskId,
        worker: &'a str,
        lease: Duration,
        progress: Option<&'a ProgressUpdate>,
    ) -> BoxFuture<'a, Result<Renewal, StorageError>>;

    /// Ends task `id` with `outcome`, if `worker` still holds it and it has not ended; its
    /// arguments and ambient context are erased, and this process's workers woken. Whether it
    /// was written.
    fn finish_task<'a>(
        &'a self,
        id: &'a TaskId,
        worker: &'a str,
        outcome: &'a TaskOutcome,
    ) -> BoxFuture<'a, Result<bool, StorageError>>;

    /// Deletes the tasks whose retention passed; how many.
    fn delete_expired_tasks(&self) -> BoxFuture<'_, Result<u64, StorageError>>;

    /// The events of every process's queue on this database (a task stored, cancelled),
    /// from now on.
    fn task_events(&self) -> tokio::sync::broadcast::Receiver<TaskEvent>;
}
