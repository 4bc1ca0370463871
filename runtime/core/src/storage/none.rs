//! [`NoDatabase`]: the storage of a build without a database backend.

use std::error::Error;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::audit_record::{AuditEntry, AuditPage, AuditQuery};
use crate::model::ambient::AmbientContext;
use crate::model::context::ProgressUpdate;
use crate::model::contract::BoxFuture;
use crate::model::descriptor::{Descriptor, SharedDescriptor};
use crate::model::descriptor::{QueryDecl, RefDecl};
use crate::model::explain::status::OnceStatus;
use crate::model::task::{Task, TaskId};
use crate::storage::error::StorageError;
use crate::storage::key::Key;
use crate::storage::seams::{
    Admission, AuditSink, Availability, Claimed, HeldLock, QueryExecutor, RecordSource, Storage,
};
use crate::storage::tasks::{
    ClaimedTask, Enqueued, NewTask, Renewal, ServedTool, TaskEvent, TaskOutcome, TaskQueue,
    TasksConfig,
};

/// No database: a type with no values, for builds without a backend (the `toolspec` façade's
/// `Database` then), so that generated code naming a database compiles while a registry that
/// needs one cannot be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoDatabase {}

impl Storage for NoDatabase {
    fn kind(&self) -> &'static str {
        match *self {}
    }

    fn prepare(&self) -> BoxFuture<'_, Result<(), StorageError>> {
        match *self {}
    }
}

impl Availability for NoDatabase {
    fn known_down(&self) -> Option<String> {
        match *self {}
    }

    fn suspect(&self, _cause: &str) {
        match *self {}
    }

    fn unreachable(&self, _error: &(dyn Error + 'static)) -> bool {
        match *self {}
    }
}

impl Admission for NoDatabase {
    fn claim_once<'a>(
        &'a self,
        _tool: &'a SharedDescriptor,
        _key: &'a Key,
        _record: Option<uuid::Uuid>,
    ) -> BoxFuture<'a, Result<Claimed, StorageError>> {
        match *self {}
    }

    fn once_status<'a>(
        &'a self,
        _tool: &'a Descriptor,
        _key: &'a Key,
    ) -> BoxFuture<'a, Result<OnceStatus, StorageError>> {
        match *self {}
    }

    fn acquire_lock<'a>(
        &'a self,
        _tool: &'a SharedDescriptor,
        _key: &'a Key,
        _wait: Duration,
    ) -> BoxFuture<'a, Result<Option<Box<dyn HeldLock>>, StorageError>> {
        match *self {}
    }

    fn lock_held<'a>(
        &'a self,
        _tool: &'a Descriptor,
        _key: &'a Key,
    ) -> BoxFuture<'a, Result<bool, StorageError>> {
        match *self {}
    }

    fn spend_request_state<'a>(
        &'a self,
        _id: &'a str,
        _expires_at_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StorageError>> {
        match *self {}
    }

    fn spend_budget<'a>(
        &'a self,
        _key: &'a str,
        _interval: Duration,
        _burst: u32,
    ) -> BoxFuture<'a, Result<Option<Duration>, StorageError>> {
        match *self {}
    }
}

impl RecordSource for NoDatabase {
    fn load_record<'a>(
        &'a self,
        _reference: &'a RefDecl,
        _key: &'a Value,
        _ambient: &'a AmbientContext,
    ) -> BoxFuture<'a, Result<Option<Value>, StorageError>> {
        match *self {}
    }
}

impl QueryExecutor for NoDatabase {
    fn run_query<'a>(
        &'a self,
        _decl: &'a QueryDecl,
        _args: &'a Map<String, Value>,
        _ambient: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Value, StorageError>> {
        match *self {}
    }
}

impl AuditSink for NoDatabase {
    fn write_audit<'a>(
        &'a self,
        _records: &'a [AuditEntry],
    ) -> BoxFuture<'a, Result<(), StorageError>> {
        match *self {}
    }

    fn interrupt_audit(
        &self,
        _id: Uuid,
        _duration_us: u64,
    ) -> BoxFuture<'_, Result<(), StorageError>> {
        match *self {}
    }

    fn interrupt_dead_audit(&self) -> BoxFuture<'_, Result<u64, StorageError>> {
        match *self {}
    }

    fn delete_audit_before(
        &self,
        _cutoff: DateTime<Utc>,
    ) -> BoxFuture<'_, Result<u64, StorageError>> {
        match *self {}
    }

    fn read_audit<'a>(
        &'a self,
        _query: &'a AuditQuery,
    ) -> BoxFuture<'a, Result<AuditPage, StorageError>> {
        match *self {}
    }
}

impl TaskQueue for NoDatabase {
    fn enqueue_task<'a>(
        &'a self,
        _task: &'a NewTask,
        _bounds: &'a TasksConfig,
    ) -> BoxFuture<'a, Result<Enqueued, StorageError>> {
        match *self {}
    }

    fn read_task<'a>(
        &'a self,
        _id: &'a TaskId,
        _owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StorageError>> {
        match *self {}
    }

    fn cancel_task<'a>(
        &'a self,
        _id: &'a TaskId,
        _owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StorageError>> {
        match *self {}
    }

    fn list_tasks<'a>(
        &'a self,
        _owner: &'a str,
        _limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Task>, StorageError>> {
        match *self {}
    }

    fn serve_tasks<'a>(
        &'a self,
        _worker: &'a str,
        _tools: &'a [ServedTool<'a>],
    ) -> BoxFuture<'a, Result<(), StorageError>> {
        match *self {}
    }

    fn stop_serving<'a>(&'a self, _worker: &'a str) -> BoxFuture<'a, Result<(), StorageError>> {
        match *self {}
    }

    fn claim_task<'a>(
        &'a self,
        _worker: &'a str,
        _lease: Duration,
        _bounds: &'a TasksConfig,
    ) -> BoxFuture<'a, Result<Option<ClaimedTask>, StorageError>> {
        match *self {}
    }

    fn claim_unrecorded<'a>(
        &'a self,
        _worker: &'a str,
        _lease: Duration,
    ) -> BoxFuture<'a, Result<Option<ClaimedTask>, StorageError>> {
        match *self {}
    }

    fn recorded<'a>(
        &'a self,
        _id: &'a TaskId,
        _worker: &'a str,
    ) -> BoxFuture<'a, Result<(), StorageError>> {
        match *self {}
    }

    fn renew_task<'a>(
        &'a self,
        _id: &'a TaskId,
        _worker: &'a str,
        _lease: Duration,
        _progress: Option<&'a ProgressUpdate>,
    ) -> BoxFuture<'a, Result<Renewal, StorageError>> {
        match *self {}
    }

    fn finish_task<'a>(
        &'a self,
        _id: &'a TaskId,
        _worker: &'a str,
        _outcome: &'a TaskOutcome,
    ) -> BoxFuture<'a, Result<bool, StorageError>> {
        match *self {}
    }

    fn delete_expired_tasks(&self) -> BoxFuture<'_, Result<u64, StorageError>> {
        match *self {}
    }

    fn task_events(&self) -> tokio::sync::broadcast::Receiver<TaskEvent> {
        match *self {}
    }
}
