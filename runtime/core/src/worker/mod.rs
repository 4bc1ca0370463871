//! Tasks at run time: the registry's task methods — start this process's worker for the tools
//! its servers serve ([`Registry::start_tasks_of`]), read, cancel and list a caller's tasks —
//! and the worker itself (`run`): it says which tools it serves, claims stored tasks of those
//! from the registry's storage (fairly: each caller within its share), runs each through the
//! pipeline with its caller's stored identity, scopes and ambient context under the task's
//! timeout, renews its claim while the handler runs (writing the handler's progress, stopping
//! it when the task is cancelled on any process), and writes the outcome back.

mod run;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::model::caller::Caller;
use crate::model::descriptor::Descriptor;
use crate::model::task::{MalformedTaskId, Task, TaskId};
use crate::registry::Registry;
use crate::storage::{Storage, StorageError};

/// Why a task could not be read, cancelled or listed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    /// The id is not a task id at all.
    #[error(transparent)]
    Malformed(#[from] MalformedTaskId),
    /// No task of this caller has the id: it never existed, its retention passed, or it is
    /// another caller's (which must look the same).
    #[error("there is no task with this id")]
    Unknown,
    /// The registry has no database to keep tasks in.
    #[error("this server keeps no tasks: it has no database")]
    NoQueue,
    /// The database could not answer.
    #[error("the task queue could not be read")]
    Storage(#[source] StorageError),
}

impl TaskError {
    /// Whether the database could not be reached (the client may retry soon).
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Self::Storage(e) if e.is_unreachable())
    }
}

/// How many of a caller's unfinished tasks [`Registry::tasks_of`] lists at most.
#[doc(hidden)]
pub const MAX_LISTED: u32 = 100;

impl Registry {
    /// Starts this process's task worker, once, for every tool of the registry that declares
    /// `task:` (when there is one and the registry has a database); an app that only enqueues,
    /// or a dedicated worker process, calls it itself. The worker runs until the last handle of
    /// the registry is dropped. Whether a worker runs.
    pub fn start_tasks(self: &Arc<Self>) -> bool {
        let tools: Vec<&Descriptor> = self.tools().map(|t| &**t.descriptor()).collect();
        self.start_tasks_of(tools)
    }

    /// Starts this process's task worker, once, and has it run the tasks of `tools` too (of
    /// those registered here that declare `task:`): a server calls it with the tools it serves
    /// (its `--module`, `--tag` or read-only selection), so that the worker of a replica never
    /// claims a task of a tool the replica does not serve. Whether a worker runs.
    pub fn start_tasks_of<'d>(
        self: &Arc<Self>,
        tools: impl IntoIterator<Item = &'d Descriptor>,
    ) -> bool {
        let Some(storage) = self.rules().storage.clone() else {
            return false;
        };
        if !self.serves_tasks() {
            return false;
        }
        let tools = tools
            .into_iter()
            .filter(|tool| tool.task.is_some() && self.get(&tool.name).is_some());
        self.served_tasks().send_if_modified(|served| {
            let before = served.len();
            // A name already served is not cloned again (a clone of a built descriptor's
            // name is an allocation, and servers call this on every call of a task tool).
            for tool in tools {
                if !served.contains(&*tool.name) {
                    served.insert(tool.name.clone());
                }
            }
            served.len() != before
        });
        if !self.worker_started().swap(true, Ordering::AcqRel) {
            tokio::spawn(run::work(Arc::downgrade(self), storage));
        }
        true
    }

    /// Whether this registry serves tasks (some tool declares `task:`, and there is a database
    /// to keep them in): servers then declare the task surface, and start the worker when they
    /// start serving.
    pub fn serves_tasks(&self) -> bool {
        self.task_tools()
    }

    /// The storage tasks are kept in, prepared.
    async fn queue(&self) -> Result<&dyn Storage, TaskError> {
        let storage = self.rules().storage.as_deref().ok_or(TaskError::NoQueue)?;
        storage.prepare().await.map_err(TaskError::Storage)?;
        Ok(storage)
    }

    /// Task `id` of `caller`, as it is now.
    pub async fn task(&self, id: &str, caller: &Caller) -> Result<Task, TaskError> {
        let id = TaskId::parse(id)?;
        match self.queue().await?.read_task(&id, owner(caller)).await {
            Ok(Some(task)) => Ok(task),
            Ok(None) => Err(TaskError::Unknown),
            Err(e) => Err(TaskError::Storage(e)),
        }
    }

    /// Cancels task `id` of `caller` unless it has ended (then nothing changes: cancelling is
    /// idempotent); the handler running it, on whichever process, sees its cancellation token
    /// fire. The task as it is now.
    pub async fn cancel_task(&self, id: &str, caller: &Caller) -> Result<Task, TaskError> {
        let id = TaskId::parse(id)?;
        match self.queue().await?.cancel_task(&id, owner(caller)).await {
            Ok(Some(task)) => Ok(task),
            Ok(None) => Err(TaskError::Unknown),
            Err(e) => Err(TaskError::Storage(e)),
        }
    }

    /// The unfinished tasks of `caller`, newest first (at most [`MAX_LISTED`]).
    pub async fn tasks_of(&self, caller: &Caller) -> Result<Vec<Task>, TaskError> {
        self.queue()
            .await?
            .list_tasks(owner(caller), MAX_LISTED)
            .await
            .map_err(TaskError::Storage)
    }
}

/// Who owns the tasks `caller` creates: its id, or the anonymous owner.
fn owner(caller: &Caller) -> &str {
    caller.id.as_deref().unwrap_or_default()
}
