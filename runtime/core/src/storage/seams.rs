//! The traits a storage implements, and the times they share.

use std::error::Error;
use std::fmt;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use uuid::Uuid;

use crate::audit_record::{AuditEntry, AuditPage, AuditQuery};
use crate::model::ambient::AmbientContext;
use crate::model::contract::BoxFuture;
use crate::model::descriptor::{Descriptor, SharedDescriptor};
use crate::model::descriptor::{QueryDecl, RefDecl};
use crate::model::explain::status::OnceStatus;
use crate::model::failure::ToolResult;
use crate::storage::error::StorageError;
use crate::storage::key::Key;
use crate::storage::tasks::TaskQueue;

/// Whether some error in `error`'s chain of causes says a database could not be reached: one
/// of toolspec's own, or — asked of `storage` — its driver's (an app's handler using sqlx on
/// the same database).
#[doc(hidden)]
pub fn unreachable_in(error: &(dyn Error + 'static), storage: Option<&dyn Availability>) -> bool {
    let mut cause = Some(error);
    // A chain that loops ends here.
    for _ in 0..32 {
        let Some(error) = cause else { break };
        if let Some(e) = error.downcast_ref::<StorageError>() {
            return e.is_unreachable();
        }
        if storage.is_some_and(|storage| storage.unreachable(error)) {
            return true;
        }
        cause = error.source();
    }
    false
}

/// How long a repeat of a `once` call waits for the call with its key that runs now before it
/// answers `in_progress`: long enough for most calls to end, short enough not to hold a
/// connection.
#[doc(hidden)]
pub const WAIT_FOR_RUNNING: Duration = Duration::from_secs(2);

/// When a repeat answered `in_progress` may be tried again.
#[doc(hidden)]
pub const RETRY_RUNNING: Duration = Duration::from_secs(2);

/// How long a process sharing the database may go unseen before it counts as dead: what it
/// left (a `once` claim, a lock, an open audit record) is then taken over or closed. The audit
/// trail looks for records left open by dead processes as often.
#[doc(hidden)]
pub const LAPSE: Duration = Duration::from_secs(10);

/// A database as the pipeline uses it: every need below, and its own tables.
pub trait Storage:
    Availability
    + Admission
    + RecordSource
    + QueryExecutor
    + AuditSink
    + TaskQueue
    + fmt::Debug
    + Send
    + Sync
    + 'static
{
    /// Which database this is (`sqlite`, `postgres`).
    fn kind(&self) -> &'static str;

    /// Creates or updates the backend's own tables, once (a failure is tried again on the
    /// next call).
    fn prepare(&self) -> BoxFuture<'_, Result<(), StorageError>>;
}

/// Whether the database can be reached.
pub trait Availability {
    /// While the database is known to be down: why, for the developer. Calls that need it
    /// answer `unavailable` at once rather than wait for it.
    fn known_down(&self) -> Option<String>;

    /// Something found the database unreachable (`cause` says what): the backend may start
    /// probing it, and answer [`known_down`](Self::known_down) until it is back.
    fn suspect(&self, cause: &str);

    /// Whether `error` — one error of a chain, an app's handler's — is the backend's driver
    /// saying the database could not be reached ([`unreachable_in`] walks the chain).
    fn unreachable(&self, error: &(dyn Error + 'static)) -> bool;
}

/// How a `once` key's claim came out.
pub enum Claimed {
    /// This call runs: finish the claim with its result.
    Run(Box<dyn OnceClaim>),
    /// A call with this key ran within the ttl: its recorded result.
    Replay(ToolResult),
    /// A call with this key still runs, in a live process, after [`WAIT_FOR_RUNNING`].
    Running,
}

/// A claimed `once` key: this call runs.
pub trait OnceClaim: Send {
    /// Ends the claim: `kept` is the result repeats answer with until the ttl passes (a
    /// success or a declared error), or none, which frees the key so that a retry runs. A
    /// claim dropped unfinished (its call was dropped) frees its key too. What cannot be
    /// written is logged: the key then frees when its lease ends.
    fn finish<'a>(self: Box<Self>, kept: Option<&'a ToolResult>) -> BoxFuture<'a, ()>;
}

/// A held `lock`: let go when released or dropped.
pub trait HeldLock: Send {
    /// Lets the lock go.
    fn release(self: Box<Self>) -> BoxFuture<'static, ()>;
}

/// `once` keys and `lock`s, shared by every process on the database.
pub trait Admission {
    /// Claims `key` for a call of `tool` (`record`: the call's audit record, which a replay
    /// names as [`ToolResult::replay_of`]): it runs, answers with a recorded result, or waits
    /// up to [`WAIT_FOR_RUNNING`] for a call with the same key that runs now.
    fn claim_once<'a>(
        &'a self,
        tool: &'a SharedDescriptor,
        key: &'a Key,
        record: Option<Uuid>,
    ) -> BoxFuture<'a, Result<Claimed, StorageError>>;

    /// What explain says of `key`, claiming nothing.
    fn once_status<'a>(
        &'a self,
        tool: &'a Descriptor,
        key: &'a Key,
    ) -> BoxFuture<'a, Result<OnceStatus, StorageError>>;

    /// Waits up to `wait` until no other call holds `key`'s lock, and holds it; `None` when it
    /// stayed held.
    fn acquire_lock<'a>(
        &'a self,
        tool: &'a SharedDescriptor,
        key: &'a Key,
        wait: Duration,
    ) -> BoxFuture<'a, Result<Option<Box<dyn HeldLock>>, StorageError>>;

    /// Whether a call holds `key`'s lock now, taking nothing.
    fn lock_held<'a>(
        &'a self,
        tool: &'a Descriptor,
        key: &'a Key,
    ) -> BoxFuture<'a, Result<bool, StorageError>>;

    /// Records the request state `id` (which opens until `expires_at_ms`, Unix milliseconds)
    /// as spent: `true` the first time, `false` when any process spent it already. Spent ids
    /// may be forgotten once they have expired.
    fn spend_request_state<'a>(
        &'a self,
        id: &'a str,
        expires_at_ms: i64,
    ) -> BoxFuture<'a, Result<bool, StorageError>>;

    /// Spends one call of the budget `key` that every process on the database shares (a
    /// caller's budget for a tool: one call per `interval`, at most `burst` at once after a
    /// quiet spell — GCRA): `None` when the call may run, else how long until one may.
    fn spend_budget<'a>(
        &'a self,
        key: &'a str,
        interval: Duration,
        burst: u32,
    ) -> BoxFuture<'a, Result<Option<Duration>, StorageError>>;
}

/// The records `ref` fields name.
pub trait RecordSource {
    /// The record `key` names within `reference`'s scope (its columns bound from `ambient`);
    /// `None` when there is none the caller may see.
    fn load_record<'a>(
        &'a self,
        reference: &'a RefDecl,
        key: &'a Value,
        ambient: &'a AmbientContext,
    ) -> BoxFuture<'a, Result<Option<Value>, StorageError>>;
}

/// Query tools.
pub trait QueryExecutor {
    /// Runs one call of the query tool `decl` with its validated, normalized arguments and the
    /// caller's ambient values: `{ records, total, limit, offset }`.
    fn run_query<'a>(
        &'a self,
        decl: &'a QueryDecl,
        args: &'a Map<String, Value>,
        ambient: &'a Map<String, Value>,
    ) -> BoxFuture<'a, Result<Value, StorageError>>;
}

/// Where the audit trail's records go.
pub trait AuditSink {
    /// Writes `records` in one transaction: a `started` record is inserted (naming this
    /// process, so that others can tell when it died), a finished one inserted or, when it
    /// was opened before, finished in place.
    fn write_audit<'a>(
        &'a self,
        records: &'a [AuditEntry],
    ) -> BoxFuture<'a, Result<(), StorageError>>;

    /// Marks the opened record `id` `interrupted` (its call was dropped after `duration_us`).
    fn interrupt_audit(
        &self,
        id: Uuid,
        duration_us: u64,
    ) -> BoxFuture<'_, Result<(), StorageError>>;

    /// Marks `interrupted` the records opened by processes that are dead now; how many.
    fn interrupt_dead_audit(&self) -> BoxFuture<'_, Result<u64, StorageError>>;

    /// Deletes the records of calls started before `cutoff`; how many.
    fn delete_audit_before(
        &self,
        cutoff: DateTime<Utc>,
    ) -> BoxFuture<'_, Result<u64, StorageError>>;

    /// The page of records `query` asks for (its limit already within bounds).
    fn read_audit<'a>(
        &'a self,
        query: &'a AuditQuery,
    ) -> BoxFuture<'a, Result<AuditPage, StorageError>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unreachable_storage_error_is_found_anywhere_in_the_chain() {
        #[derive(Debug, thiserror::Error)]
        #[error("loading order 3")]
        struct Loading(#[source] StorageError);
        let down = StorageError::unreachable("reading", std::io::Error::other("refused"));
        assert!(unreachable_in(&Loading(down), None));
        let failed = StorageError::invalid("no such table");
        assert!(!unreachable_in(&Loading(failed), None));
    }
}
