//! The core's storage seam, implemented by the [`Database`]: each trait's methods hand over to
//! the module that knows the statements (`query`, `durable`, `audit`) and to the breaker.

use std::error::Error;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use toolspec_core::ProgressUpdate;
use toolspec_core::audit::{AuditEntry, AuditPage, AuditQuery, AuditState};
use toolspec_core::descriptor::{QueryDecl, RefDecl};
use toolspec_core::storage::{
    Admission, AuditSink, Availability, Claimed, ClaimedTask, Enqueued, HeldLock, Key, NewTask,
    QueryExecutor, RecordSource, Renewal, ServedTool, Storage, StorageError, TaskEvent,
    TaskOutcome, TaskQueue, TasksConfig,
};
use toolspec_core::tasks::{Task, TaskId};
use toolspec_core::{AmbientContext, BoxFuture, Descriptor, OnceStatus, SharedDescriptor};
use uuid::Uuid;

use crate::database::{Database, error};
use crate::durable::{budget, lock, once, spent};
use crate::tasks;

impl Storage for Database {
    fn kind(&self) -> &'static str {
        Database::kind(self)
    }

    fn prepare(&self) -> BoxFuture<'_, Result<(), StorageError>> {
        Box::pin(Database::prepare(self))
    }
}

impl Availability for Database {
    fn known_down(&self) -> Option<String> {
        Database::known_down(self)
    }

    fn suspect(&self, cause: &str) {
        Database::suspect(self, cause);
    }

    fn unreachable(&self, error: &(dyn Error + 'static)) -> bool {
        error::driver_unreachable(error)
    }
}

impl Admission for Database {
    fn claim_once<'a>(
        &'a self,
        tool: &'a SharedDescriptor,
        key: &'a Key,
        record: Option<Uuid>,
    ) -> BoxFuture<'a, Result<Claimed, StorageError>> {
        Box::pin(once::claim(self, tool, key, record))
    }

    fn once_status<'a>(
        &'a self,
        tool: &'a Descriptor,
        key: &'a Key,
    ) -> BoxFuture<'a, Result<OnceStatus, StorageError>> {
        Box::pin(once::status(self, tool, key))
    }

    fn acquire_lock<'a>(
        &'a self,
        tool: &'a SharedDescriptor,
        key: &'a Key,
        wait: Duration,
    ) -> BoxFuture<'a, Result<Option<Box<dyn HeldLock>>, StorageError>> {
        Box::pin(async move {
            let held = lock::acquire(self, tool, key, wait).await?;
            Ok(held.map(|held| Box::new(held) as Box<dyn HeldLock>))
        })
    }

    fn lock_held<'a>(
        &'a self,
        tool: &'a Descriptor,
        key: &'a Key,
    ) -> BoxFuture<'a, Result<bool, StorageError>> {
        Box::pin(lock::held(self, tool, key))
    }

    fn spend_request_state<'a>(
        &'a self,
        id: &'a str,
        expires_at_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StorageError>> {
        Box::pin(spent::spend(self, id, expires_at_ms))
    }

    fn spend_budget<'a>(
        &'a self,
        key: &'a str,
        interval: Duration,
        burst: u32,
    ) -> BoxFuture<'a, Result<Option<Duration>, StorageError>> {
        Box::pin(budget::spend(self, key, interval, burst))
    }
}

impl RecordSource for Database {
    fn load_record<'a>(
        &'a self,
        reference: &'a RefDecl,
        key: &'a Value,
        ambient: &'a AmbientContext,
    ) -> BoxFuture<'a, Result<Option<Value>, StorageError>> {
        Box::pin(self.load(reference, key, |name| ambient.lookup(name)))
    }
}

impl QueryExecutor for Database {
    fn run_query<'a>(
        &'a self,
        decl: &'a QueryDecl,
        args: &'a Map<String, Value>,
        ambient: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Value, StorageError>> {
        Box::pin(self.run(decl, args, ambient))
    }
}

impl AuditSink for Database {
    fn write_audit<'a>(
        &'a self,
        records: &'a [AuditEntry],
    ) -> BoxFuture<'a, Result<(), StorageError>> {
        Box::pin(async move {
            // Opened records name this process, so that others can tell when it died.
            let opens = records.iter().any(|r| r.state == AuditState::Started);
            let instance = match opens {
                true => Some(self.instance().await?),
                false => None,
            };
            Database::write_audit(self, records, instance).await
        })
    }

    fn interrupt_audit(
        &self,
        id: Uuid,
        duration_us: u64,
    ) -> BoxFuture<'_, Result<(), StorageError>> {
        Box::pin(Database::interrupt_audit(self, id, duration_us))
    }

    fn interrupt_dead_audit(&self) -> BoxFuture<'_, Result<u64, StorageError>> {
        Box::pin(Database::interrupt_dead_audit(self))
    }

    fn delete_audit_before(
        &self,
        cutoff: DateTime<Utc>,
    ) -> BoxFuture<'_, Result<u64, StorageError>> {
        Box::pin(Database::delete_audit_before(self, cutoff))
    }

    fn read_audit<'a>(
        &'a self,
        query: &'a AuditQuery,
    ) -> BoxFuture<'a, Result<AuditPage, StorageError>> {
        Box::pin(self.select_audit(query))
    }
}

impl TaskQueue for Database {
    fn enqueue_task<'a>(
        &'a self,
        task: &'a NewTask,
        bounds: &'a TasksConfig,
    ) -> BoxFuture<'a, Result<Enqueued, StorageError>> {
        Box::pin(tasks::enqueue(self, task, bounds))
    }

    fn read_task<'a>(
        &'a self,
        id: &'a TaskId,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StorageError>> {
        Box::pin(tasks::read(self, id, owner))
    }

    fn cancel_task<'a>(
        &'a self,
        id: &'a TaskId,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Option<Task>, StorageError>> {
        Box::pin(tasks::cancel(self, id, owner))
    }

    fn list_tasks<'a>(
        &'a self,
        owner: &'a str,
        limit: u32,
    ) -> BoxFuture<'a, Result<Vec<Task>, StorageError>> {
        Box::pin(tasks::list(self, owner, limit))
    }

    fn serve_tasks<'a>(
        &'a self,
        worker: &'a str,
        tools: &'a [ServedTool<'a>],
    ) -> BoxFuture<'a, Result<(), StorageError>> {
        Box::pin(tasks::serve(self, worker, tools))
    }

    fn stop_serving<'a>(&'a self, worker: &'a str) -> BoxFuture<'a, Result<(), StorageError>> {
        Box::pin(tasks::stop_serving(self, worker))
    }

    fn claim_task<'a>(
        &'a self,
        worker: &'a str,
        lease: Duration,
        bounds: &'a TasksConfig,
    ) -> BoxFuture<'a, Result<Option<ClaimedTask>, StorageError>> {
        Box::pin(tasks::claim(self, worker, lease, bounds))
    }

    fn claim_unrecorded<'a>(
        &'a self,
        worker: &'a str,
        lease: Duration,
    ) -> BoxFuture<'a, Result<Option<ClaimedTask>, StorageError>> {
        Box::pin(tasks::claim_unrecorded(self, worker, lease))
    }

    fn recorded<'a>(
        &'a self,
        id: &'a TaskId,
        worker: &'a str,
    ) -> BoxFuture<'a, Result<(), StorageError>> {
        Box::pin(tasks::recorded(self, id, worker))
    }

    fn renew_task<'a>(
        &'a self,
        id: &'a TaskId,
        worker: &'a str,
        lease: Duration,
        progress: Option<&'a ProgressUpdate>,
    ) -> BoxFuture<'a, Result<Renewal, StorageError>> {
        Box::pin(tasks::renew(self, id, worker, lease, progress))
    }

    fn finish_task<'a>(
        &'a self,
        id: &'a TaskId,
        worker: &'a str,
        outcome: &'a TaskOutcome,
    ) -> BoxFuture<'a, Result<bool, StorageError>> {
        Box::pin(tasks::finish(self, id, worker, outcome))
    }

    fn delete_expired_tasks(&self) -> BoxFuture<'_, Result<u64, StorageError>> {
        Box::pin(tasks::delete_expired(self))
    }

    fn task_events(&self) -> tokio::sync::broadcast::Receiver<TaskEvent> {
        self.subscribe_tasks()
    }
}
