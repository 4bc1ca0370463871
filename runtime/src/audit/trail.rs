//! The trail: a bounded queue in front of one writer task that inserts records in batches.
//!
//! A call queues its record and goes on (`async`), or waits until the batch holding it is
//! committed (`sync`, `required`). The writer takes whatever is queued, up to [`MAX_BATCH`]
//! records, inserts them in one statement, and tries a failed batch once more before counting
//! its records as failed and logging it. Nothing waits on a full queue but the calls that fill
//! it, so records are never dropped for lack of room. The writer starts with the first record
//! (inside the caller's tokio runtime) and stops when every handle of the trail is gone and the
//! queue is empty; it also deletes records older than the retention, hourly (or at a tenth of a
//! shorter retention).

// Without a database feature no trail can be made (there is no `Database`), and the writer
// is not built.
#![cfg_attr(
    not(any(feature = "sqlite", feature = "postgres")),
    allow(dead_code, reason = "no database backend")
)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};

use crate::audit::record::{AuditRecord, Finished};
use crate::database::Database;
use crate::durable_decl::{AuditConfig, AuditPolicy, Durability};

/// The most records one insert writes.
pub const MAX_BATCH: usize = 256;

/// How many records may wait for the writer before calls wait for room.
pub const QUEUE: usize = 8192;

/// How often records older than the retention are deleted: hourly, or a tenth of a shorter
/// retention (at least every second).
fn sweep_every(retention: Duration) -> Duration {
    (retention / 10).clamp(Duration::from_secs(1), Duration::from_secs(3600))
}

/// Where a registry's calls are recorded: created by the registry when a tool's policy is on
/// and it has a database; cheap to clone (every clone feeds one writer).
#[derive(Debug, Clone)]
pub struct AuditTrail {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    database: Database,
    retention: Option<Duration>,
    sender: mpsc::Sender<Message>,
    /// Taken by the writer when it starts.
    receiver: Mutex<Option<mpsc::Receiver<Message>>>,
    counters: Arc<Counters>,
}

#[derive(Debug, Default)]
struct Counters {
    written: AtomicU64,
    failed: AtomicU64,
}

/// What the writer has done so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditStats {
    /// Records committed.
    pub written: u64,
    /// Records that could not be written (logged when it happened).
    pub failed: u64,
    /// Records waiting in the queue.
    pub queued: u64,
}

#[derive(Debug)]
enum Message {
    Write {
        record: Box<AuditRecord>,
        /// Told when the record's batch is committed (or failed), for `sync` calls.
        done: Option<oneshot::Sender<Result<(), String>>>,
    },
    /// Answered once everything queued before it is written (or failed).
    Flush(oneshot::Sender<()>),
}

impl AuditTrail {
    /// A trail into `database`, deleting records older than `config.retention`.
    pub fn new(database: Database, config: &AuditConfig) -> Self {
        let (sender, receiver) = mpsc::channel(QUEUE);
        Self {
            shared: Arc::new(Shared {
                database,
                retention: config.retention,
                sender,
                receiver: Mutex::new(Some(receiver)),
                counters: Arc::default(),
            }),
        }
    }

    /// The database the records go to.
    pub fn database(&self) -> &Database {
        &self.shared.database
    }

    /// What the writer has done so far.
    pub fn stats(&self) -> AuditStats {
        let counters = &self.shared.counters;
        AuditStats {
            written: counters.written.load(Ordering::Relaxed),
            failed: counters.failed.load(Ordering::Relaxed),
            queued: (QUEUE - self.shared.sender.capacity()) as u64,
        }
    }

    /// Waits until every record queued before this call is written (or counted as failed):
    /// for a graceful shutdown.
    pub async fn flush(&self) {
        if self.shared.writer_idle() {
            return;
        }
        let (tx, rx) = oneshot::channel();
        if self.shared.sender.send(Message::Flush(tx)).await.is_ok() {
            let _ = rx.await;
        }
    }

    /// Records the finished `call` by its tool's `policy`: queued (`async`), or committed
    /// before this returns (`sync`, `required`). An error only when the policy requires the
    /// record and it could not be written: the call must then fail.
    pub(crate) async fn record(
        &self,
        call: &Finished<'_>,
        policy: AuditPolicy,
    ) -> Result<(), String> {
        let record = AuditRecord::of(call);
        let wait = policy.required || policy.durability == Durability::Sync;
        let written = if wait {
            let (tx, rx) = oneshot::channel();
            match self.shared.send(record, Some(tx)).await {
                Ok(()) => rx
                    .await
                    .unwrap_or_else(|_| Err("the audit writer stopped".into())),
                Err(e) => Err(e),
            }
        } else {
            self.shared.send(record, None).await
        };
        match written {
            Err(e) if policy.required => Err(e),
            Err(e) => {
                tracing::warn!(tool = call.tool.name, error = %e, "an audit record was not written; the call goes on");
                Ok(())
            }
            Ok(()) => Ok(()),
        }
    }
}

impl Shared {
    /// Whether no writer ever started (nothing was recorded yet).
    fn writer_idle(&self) -> bool {
        self.receiver
            .lock()
            .map(|receiver| receiver.is_some())
            .unwrap_or(false)
    }

    async fn send(
        &self,
        record: AuditRecord,
        done: Option<oneshot::Sender<Result<(), String>>>,
    ) -> Result<(), String> {
        self.start_writer();
        self.sender
            .send(Message::Write {
                record: Box::new(record),
                done,
            })
            .await
            .map_err(|_| "the audit writer stopped".to_owned())
    }

    fn start_writer(&self) {
        let receiver = self.receiver.lock().ok().and_then(|mut r| r.take());
        #[cfg(not(any(feature = "sqlite", feature = "postgres")))]
        let _ = receiver;
        #[cfg(any(feature = "sqlite", feature = "postgres"))]
        if let Some(receiver) = receiver {
            let writer = Writer {
                database: self.database.clone(),
                retention: self.retention,
                counters: Arc::clone(&self.counters),
            };
            tokio::spawn(writer.run(receiver));
        }
    }
}

/// The messages one insert answers.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
#[derive(Default)]
struct Batch {
    records: Vec<AuditRecord>,
    waiters: Vec<oneshot::Sender<Result<(), String>>>,
    flushes: Vec<oneshot::Sender<()>>,
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
impl Batch {
    fn take(&mut self, message: Message) {
        match message {
            Message::Write { record, done } => {
                self.records.push(*record);
                self.waiters.extend(done);
            }
            Message::Flush(done) => self.flushes.push(done),
        }
    }
}

/// The task that writes records.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
struct Writer {
    database: Database,
    retention: Option<Duration>,
    counters: Arc<Counters>,
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
impl Writer {
    async fn run(self, mut receiver: mpsc::Receiver<Message>) {
        let every = self
            .retention
            .map_or(Duration::from_secs(3600), sweep_every);
        // The first sweep one period after the writer starts, not at once: a short-lived
        // process (the store's CLI) would otherwise race it against closing its database.
        let mut sweep = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                message = receiver.recv() => {
                    let Some(message) = message else { break };
                    self.batch(message, &mut receiver).await;
                }
                _ = sweep.tick(), if self.retention.is_some() => self.sweep().await,
            }
        }
    }

    /// Writes `first` and whatever else is queued (up to a batch), then answers the waiters.
    async fn batch(&self, first: Message, receiver: &mut mpsc::Receiver<Message>) {
        let mut batch = Batch::default();
        batch.take(first);
        while batch.records.len() < MAX_BATCH {
            match receiver.try_recv() {
                Ok(message) => batch.take(message),
                Err(_) => break,
            }
        }
        if !batch.records.is_empty() {
            let written = self.write(&batch.records).await;
            let count = batch.records.len() as u64;
            match &written {
                Ok(()) => {
                    self.counters.written.fetch_add(count, Ordering::Relaxed);
                }
                Err(e) => {
                    let failed = self.counters.failed.fetch_add(count, Ordering::Relaxed) + count;
                    tracing::error!(records = count, failed_so_far = failed, error = %e, "audit records could not be written");
                }
            }
            for waiter in batch.waiters {
                let _ = waiter.send(written.clone());
            }
        }
        for flush in batch.flushes {
            let _ = flush.send(());
        }
    }

    /// Inserts `records`, once more after a pause if the first try fails.
    async fn write(&self, records: &[AuditRecord]) -> Result<(), String> {
        match self.try_write(records).await {
            Ok(()) => Ok(()),
            Err(first) => {
                tracing::warn!(error = %first, "writing audit records failed; trying once more");
                tokio::time::sleep(Duration::from_millis(200)).await;
                self.try_write(records).await
            }
        }
    }

    async fn try_write(&self, records: &[AuditRecord]) -> Result<(), String> {
        self.database.prepare().await?;
        self.database.insert_audit(records).await
    }

    async fn sweep(&self) {
        let Some(retention) = self.retention else {
            return;
        };
        let Ok(age) = chrono::Duration::from_std(retention) else {
            return;
        };
        let cutoff = chrono::Utc::now() - age;
        let swept = match self.database.prepare().await {
            Ok(()) => self.database.delete_audit_before(cutoff).await,
            Err(e) => Err(e),
        };
        match swept {
            Ok(0) => {}
            Ok(deleted) => tracing::info!(deleted, "deleted audit records past the retention"),
            Err(e) => tracing::warn!(error = %e, "deleting old audit records failed"),
        }
    }
}
