//! The seam between the call pipeline and where durable state lives: what the pipeline needs
//! of a database, as traits, so that the crate holding the pipeline knows no driver. A backend
//! (`toolspec-sql` implements them over SQLite and PostgreSQL) implements [`Storage`], the sum
//! of one trait per need:
//!
//! - [`Availability`]: whether the database is known to be down, so that calls needing it are
//!   refused at once (the `availability` stage), and whether an error says it was unreachable;
//! - [`Admission`]: `once` keys (claimed, replayed, recorded, freed) and `lock`s (acquired,
//!   held, released), for the admission stage and explain;
//! - [`RecordSource`]: the record a `ref` field names, for the `refs` stage;
//! - [`QueryExecutor`]: one call of a query tool;
//! - [`AuditSink`]: the audit trail's records, written in batches, closed when their process
//!   died, swept past the retention, and read back;
//! - [`TaskQueue`]: durable tasks, stored before their caller gets the handle, claimed by a
//!   worker of any process under a lease, ended, swept past their retention.
//!
//! Every method answers a [`StorageError`] that says whether the database could not be reached
//! (the call answers `unavailable`, retry soon) or a statement failed on it (the developer's).
//! The keys of `once` and `lock` are computed by the pipeline ([`Key`]); how long a claim or a
//! lock is good for, and how a process is found dead, are the backend's.

mod error;
mod key;
mod none;
mod seams;
mod tasks;

pub use error::StorageError;
pub use key::Key;
pub use none::NoDatabase;
pub use seams::{
    Admission, AuditSink, Availability, Claimed, HeldLock, OnceClaim, QueryExecutor, RecordSource,
    Storage,
};
#[doc(hidden)]
pub use seams::{LAPSE, RETRY_RUNNING, WAIT_FOR_RUNNING, unreachable_in};
pub use tasks::{
    ClaimedTask, Enqueued, NewTask, OwnerBound, Renewal, ServedTool, TaskEvent, TaskOutcome,
    TaskQueue, TasksConfig,
};
#[doc(hidden)]
pub use tasks::{TASK_LEASE, TASK_RENEWAL};
