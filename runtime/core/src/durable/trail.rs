//! The audit trail: a bounded queue in front of one writer task that writes records in
//! batches into the registry's [`AuditSink`](crate::storage::AuditSink).
//!
//! A call is recorded when its tool's `audit` policy is on. The call does not wait for its
//! record, unless its policy is `sync` (the record is committed before the answer leaves) or
//! `required` (see below). [`AuditTrail::flush`] waits for what is queued, for a graceful
//! shutdown; [`AuditQuery::read`] reads the records back.
//!
//! A call queues its record and goes on (`async`), or waits until the batch holding it is
//! committed (`sync`). A `required` tool's call first *opens* its record ([`AuditTrail::open`]):
//! the record, without an outcome, is committed before anything of the call runs, and when that
//! cannot be done the call does not run at all. The call then *finishes* it (the same row, with
//! its outcome), and its answer waits for that commit. An opened record whose call never ends —
//! its process was killed — stays `started` until a live process finds that process dead and
//! marks the record `interrupted` ([`AuditTrail::reconcile`]: when the writer starts, then
//! every ten seconds, as often as a dead process can be found); one whose call is dropped
//! midway (its client went away) is marked `interrupted` at once.
//!
//! A flood of refusals does not grow the table with it: the calls of one caller and tool
//! refused alike before anything ran (out of scope, over the rate limit) within one second of
//! the clock are recorded as at most two records — the first refusal's own, and one standing
//! for the others (`calls`), written when the second is over ([`AuditTrail::refused`]).
//!
//! The writer takes whatever is queued, up to [`MAX_BATCH`] records (waiting up to [`LINGER`]
//! for more when nobody waits for the batch), writes them in one statement (finishing opened
//! records in place), and tries a failed batch once more before
//! counting its records as failed and logging it. Nothing waits on a full queue but the calls
//! that fill it, so records are never dropped for lack of room. The writer starts with the first
//! record (inside the caller's tokio runtime) and stops when every handle of the trail is gone
//! and the queue is empty; it also deletes records older than the retention, hourly (or at a
//! tenth of a shorter retention).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{Notify, mpsc, oneshot};
use uuid::Uuid;

use crate::audit_record::{AuditEntry, AuditPage, AuditQuery};
use crate::model::descriptor::{AuditConfig, AuditPolicy, Durability};
use crate::storage::{LAPSE, Storage, StorageError};

/// The most records one insert writes.
#[doc(hidden)]
pub const MAX_BATCH: usize = 256;

/// How many records may wait for the writer before calls wait for room.
pub const QUEUE: usize = 8192;

/// How long the writer lets `async` records gather before it writes a batch that is not full:
/// calls made one after another then share one insert, and queue their records without waking
/// the writer each time. A call that waits for its record (`sync`, `required`), and a flush,
/// cut it short.
pub const LINGER: Duration = Duration::from_millis(2);

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
    storage: Arc<dyn Storage>,
    retention: Option<Duration>,
    sender: mpsc::Sender<Message>,
    /// Taken by the writer when it starts.
    receiver: Mutex<Option<mpsc::Receiver<Message>>>,
    /// Whether the writer was started (a call does not lock `receiver` to learn it).
    started: AtomicBool,
    counters: Arc<Counters>,
    /// Told when something queued is waited for: the writer stops lingering.
    urgent: Arc<Notify>,
    /// The refusals of this second, by caller, tool and outcome.
    refusals: Mutex<HashMap<Refused, Window>>,
}

/// Whose refusals are counted together: the tool, the caller, the outcome.
type Refused = (String, Option<String>, String);

/// The refusals of one caller and tool with one outcome within one second: the first has a
/// record of its own; the others are counted on the record of the second.
#[derive(Debug)]
struct Window {
    /// The second of the clock (since the Unix epoch).
    second: i64,
    /// The record standing for the refusals after the first, with how many so far.
    more: Option<Box<AuditEntry>>,
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
        record: Box<AuditEntry>,
        /// Told when the record's batch is committed (or failed), for calls that wait.
        done: Option<oneshot::Sender<Result<(), String>>>,
    },
    /// An opened record whose call was dropped before it ended.
    Interrupt { id: Uuid, duration_us: u64 },
    /// Answered once everything queued before it is written (or failed).
    Flush(oneshot::Sender<()>),
}

/// A `required` call's record, committed before the call ran: finish it with
/// [`AuditTrail::finish`]. Dropped unfinished (the call's future was dropped), it marks the
/// record `interrupted`.
#[derive(Debug)]
pub(crate) struct OpenRecord {
    trail: AuditTrail,
    id: Uuid,
    opened: Instant,
    finished: bool,
}

impl Drop for OpenRecord {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let duration_us = u64::try_from(self.opened.elapsed().as_micros()).unwrap_or(u64::MAX);
        let message = Message::Interrupt {
            id: self.id,
            duration_us,
        };
        let sender = self.trail.shared.sender.clone();
        if let Err(mpsc::error::TrySendError::Full(message)) = sender.try_send(message)
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move { sender.send(message).await });
        }
    }
}

impl AuditTrail {
    /// A trail into `database`, deleting records older than `config.retention`.
    pub fn new(database: impl Storage, config: &AuditConfig) -> Self {
        Self::shared(Arc::new(database), config)
    }

    /// A trail into `storage`, shared with the registry.
    pub(crate) fn shared(storage: Arc<dyn Storage>, config: &AuditConfig) -> Self {
        let (sender, receiver) = mpsc::channel(QUEUE);
        Self {
            shared: Arc::new(Shared {
                storage,
                retention: config.retention,
                sender,
                receiver: Mutex::new(Some(receiver)),
                started: AtomicBool::new(false),
                counters: Arc::default(),
                urgent: Arc::default(),
                refusals: Mutex::default(),
            }),
        }
    }

    /// The database the records go to.
    pub fn database(&self) -> &dyn Storage {
        &*self.shared.storage
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

    /// Waits until every record queued before this call is written (or counted as failed),
    /// those of refusals still being counted included: for a graceful shutdown.
    pub async fn flush(&self) {
        let counted: Vec<Window> = {
            let mut windows = lock(&self.shared.refusals);
            windows.drain().map(|(_, window)| window).collect()
        };
        for window in counted {
            self.shared.write_counted(window).await;
        }
        if self.shared.writer_idle() {
            return;
        }
        let (tx, rx) = oneshot::channel();
        if self.shared.sender.send(Message::Flush(tx)).await.is_ok() {
            self.shared.urgent.notify_one();
            let _ = rx.await;
        }
    }

    /// Opens the record of a `required` call before it runs: committed when this returns
    /// `Ok`. An error (the database known to be down, the record not written) says why the
    /// call must not run; nothing of it is recorded.
    pub(crate) async fn open(&self, record: &AuditEntry) -> Result<OpenRecord, String> {
        if let Some(why) = self.shared.storage.known_down() {
            return Err(why);
        }
        self.shared.write(Box::new(record.clone()), true).await?;
        Ok(OpenRecord {
            trail: self.clone(),
            id: record.id,
            opened: Instant::now(),
            finished: false,
        })
    }

    /// Writes the finished `record` of a call of `tool` by the tool's `policy`: queued
    /// (`async`), or committed before this returns (`sync`, `required`); `open` is its record
    /// opened before the call ran, if it was. The call already ran: a record that cannot be
    /// written is logged (an opened one then stays `started`), never turned into the call's
    /// answer.
    pub(crate) async fn finish(
        &self,
        tool: &str,
        record: Box<AuditEntry>,
        policy: AuditPolicy,
        open: Option<OpenRecord>,
    ) {
        let wait = policy.required || policy.durability == Durability::Sync;
        let written = self.shared.write(record, wait).await;
        if let Some(mut open) = open {
            open.finished = true;
        }
        match written {
            Ok(()) => {}
            Err(e) if policy.required => {
                tracing::error!(tool, error = %e, "the outcome of a `required` call was not recorded: its record, written before the call ran, stays `started`");
            }
            Err(e) => {
                tracing::warn!(tool, error = %e, "an audit record was not written; the call goes on");
            }
        }
    }

    /// Records a call of `tool` by `caller` refused with `outcome` before anything of it ran
    /// (`record` makes its record, finished): the first such refusal of a second is queued at
    /// once; the others of that second are counted on one more record (the first of them),
    /// queued once the second is over. Nothing waits for either.
    pub(crate) async fn refused(
        &self,
        tool: &str,
        caller: Option<&str>,
        outcome: &str,
        record: impl FnOnce() -> Box<AuditEntry>,
    ) {
        let second = chrono::Utc::now().timestamp();
        let key: Refused = (
            tool.to_owned(),
            caller.map(str::to_owned),
            outcome.to_owned(),
        );
        let stale = {
            let mut windows = lock(&self.shared.refusals);
            match windows.get_mut(&key) {
                Some(window) if window.second == second => {
                    match &mut window.more {
                        Some(more) => more.calls += 1,
                        None => window.more = Some(record()),
                    }
                    return;
                }
                _ => windows.insert(key.clone(), Window { second, more: None }),
            }
        };
        if let Some(stale) = stale {
            self.shared.write_counted(stale).await;
        }
        if let Err(e) = self.shared.write(record(), false).await {
            tracing::warn!(tool, error = %e, "the record of a refused call was not written");
        }
        // The second's count is written once it is over (unless a refusal of the next second
        // came first and wrote it).
        let shared = Arc::clone(&self.shared);
        tokio::spawn(async move {
            let now = chrono::Utc::now();
            let left = 1000 - i64::from(now.timestamp_subsec_millis()).min(999);
            tokio::time::sleep(Duration::from_millis(left as u64 + 10)).await;
            let over = {
                let mut windows = lock(&shared.refusals);
                match windows.get(&key) {
                    Some(window) if window.second == second => windows.remove(&key),
                    _ => None,
                }
            };
            if let Some(over) = over {
                shared.write_counted(over).await;
            }
        });
    }

    /// Marks `interrupted` the records opened by processes that are dead now (see
    /// [`AuditTrail`]'s module); how many. Run when the writer starts and every ten seconds;
    /// call it at start-up to learn how many calls an earlier crash left without an outcome.
    /// An error is for the developer.
    pub async fn reconcile(&self) -> Result<u64, StorageError> {
        let storage = &self.shared.storage;
        storage.prepare().await?;
        storage.interrupt_dead_audit().await
    }
}

impl Shared {
    /// Whether no writer ever started (nothing was recorded yet).
    fn writer_idle(&self) -> bool {
        !self.started.load(Ordering::Acquire)
    }

    /// Queues `record`; when `wait`, until its batch is committed (or failed).
    async fn write(&self, record: Box<AuditEntry>, wait: bool) -> Result<(), String> {
        let (done, committed) = match wait {
            true => {
                let (tx, rx) = oneshot::channel();
                (Some(tx), Some(rx))
            }
            false => (None, None),
        };
        self.start_writer();
        let message = Message::Write { record, done };
        if self.sender.send(message).await.is_err() {
            return Err("the audit writer stopped".to_owned());
        }
        if wait {
            self.urgent.notify_one();
        }
        match committed {
            Some(rx) => rx
                .await
                .unwrap_or_else(|_| Err("the audit writer stopped".into())),
            None => Ok(()),
        }
    }

    /// Queues the record of the refusals `window` counted after its first, if any.
    async fn write_counted(&self, window: Window) {
        let Some(more) = window.more else {
            return;
        };
        let tool = more.tool.clone();
        if let Err(e) = self.write(more, false).await {
            tracing::warn!(tool, error = %e, "the record of refused calls was not written");
        }
    }

    fn start_writer(&self) {
        // Marked first: a flush that sees it queues behind the records the writer will take.
        if self.started.swap(true, Ordering::AcqRel) {
            return;
        }
        let receiver = self.receiver.lock().ok().and_then(|mut r| r.take());
        if let Some(receiver) = receiver {
            let writer = Writer {
                storage: Arc::clone(&self.storage),
                retention: self.retention,
                counters: Arc::clone(&self.counters),
                urgent: Arc::clone(&self.urgent),
            };
            tokio::spawn(writer.run(receiver));
        }
    }
}

/// The refusals being counted, whatever a panicking holder left.
fn lock(
    refusals: &Mutex<HashMap<Refused, Window>>,
) -> std::sync::MutexGuard<'_, HashMap<Refused, Window>> {
    refusals
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The messages one insert answers.
#[derive(Default)]
struct Batch {
    records: Vec<AuditEntry>,
    waiters: Vec<oneshot::Sender<Result<(), String>>>,
    interrupted: Vec<(Uuid, u64)>,
    flushes: Vec<oneshot::Sender<()>>,
}

impl Batch {
    /// Whether someone waits for this batch (a `sync` or `required` call, a flush).
    fn awaited(&self) -> bool {
        !self.waiters.is_empty() || !self.flushes.is_empty()
    }

    fn take(&mut self, message: Message) {
        match message {
            Message::Write { record, done } => {
                self.records.push(*record);
                self.waiters.extend(done);
            }
            Message::Interrupt { id, duration_us } => self.interrupted.push((id, duration_us)),
            Message::Flush(done) => self.flushes.push(done),
        }
    }
}

/// The task that writes records.
struct Writer {
    storage: Arc<dyn Storage>,
    retention: Option<Duration>,
    counters: Arc<Counters>,
    urgent: Arc<Notify>,
}

impl Writer {
    async fn run(self, mut receiver: mpsc::Receiver<Message>) {
        let every = self
            .retention
            .map_or(Duration::from_secs(3600), sweep_every);
        // The first sweep one period after the writer starts, not at once: a short-lived
        // process (the store's CLI) would otherwise race it against closing its database.
        let mut sweep = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // As often as a process can be found dead; the first tick at once, for what a crash
        // left open before this process started.
        let mut reconcile = tokio::time::interval(LAPSE);
        reconcile.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                message = receiver.recv() => {
                    let Some(message) = message else { break };
                    self.batch(message, &mut receiver).await;
                }
                _ = sweep.tick(), if self.retention.is_some() => self.sweep().await,
                _ = reconcile.tick() => self.reconcile().await,
            }
        }
    }

    /// Writes `first` and whatever else is queued (up to a batch), then answers the waiters.
    /// A batch of `async` records that is not full waits up to [`LINGER`] for more.
    async fn batch(&self, first: Message, receiver: &mut mpsc::Receiver<Message>) {
        let mut batch = Batch::default();
        batch.take(first);
        drain(&mut batch, receiver);
        if batch.records.len() < MAX_BATCH && !batch.awaited() {
            tokio::select! {
                () = tokio::time::sleep(LINGER) => {}
                () = self.urgent.notified() => {}
            }
            drain(&mut batch, receiver);
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
        for (id, duration_us) in batch.interrupted {
            if let Err(e) = self.storage.interrupt_audit(id, duration_us).await {
                tracing::warn!(%id, error = %e.chain(), "a dropped call's record could not be marked `interrupted`; it is when its process is found dead");
            }
        }
        // Freed before a flush is answered: what follows a flush (a shutdown, the next burst of
        // calls) does not share the allocator with the frees of what it waited for.
        drop(batch.records);
        for flush in batch.flushes {
            let _ = flush.send(());
        }
    }

    /// Inserts `records`, once more after a pause if the first try fails.
    async fn write(&self, records: &[AuditEntry]) -> Result<(), String> {
        match self.try_write(records).await {
            Ok(()) => Ok(()),
            Err(first) => {
                tracing::warn!(error = %first, "writing audit records failed; trying once more");
                tokio::time::sleep(Duration::from_millis(200)).await;
                self.try_write(records).await
            }
        }
    }

    async fn try_write(&self, records: &[AuditEntry]) -> Result<(), String> {
        let written = match self.storage.prepare().await {
            Ok(()) => self.storage.write_audit(records).await,
            Err(e) => Err(e),
        };
        written.map_err(|e| e.chain())
    }

    async fn reconcile(&self) {
        let reconciled = match self.storage.prepare().await {
            Ok(()) => self.storage.interrupt_dead_audit().await,
            Err(e) => Err(e),
        };
        match reconciled {
            Ok(0) => {}
            Ok(count) => tracing::warn!(
                records = count,
                "calls of `required` tools were left without an outcome by a process that died: their records are now `interrupted`"
            ),
            Err(e) => {
                tracing::debug!(error = %e.chain(), "looking for calls left open by dead processes failed")
            }
        }
    }

    async fn sweep(&self) {
        let Some(retention) = self.retention else {
            return;
        };
        let Ok(age) = chrono::Duration::from_std(retention) else {
            return;
        };
        let cutoff = chrono::Utc::now() - age;
        let swept = match self.storage.prepare().await {
            Ok(()) => self.storage.delete_audit_before(cutoff).await,
            Err(e) => Err(e),
        };
        match swept {
            Ok(0) => {}
            Ok(deleted) => tracing::info!(deleted, "deleted audit records past the retention"),
            Err(e) => tracing::warn!(error = %e.chain(), "deleting old audit records failed"),
        }
    }
}

/// Moves what is queued into `batch`, up to a batch's records.
fn drain(batch: &mut Batch, receiver: &mut mpsc::Receiver<Message>) {
    while batch.records.len() < MAX_BATCH {
        match receiver.try_recv() {
            Ok(message) => batch.take(message),
            Err(_) => break,
        }
    }
}

impl AuditQuery {
    /// Reads the page from `database` (toolspec's tables are created if missing): a
    /// registry's trail's [`database`](AuditTrail::database), or the app's `Database`.
    pub async fn read(
        &self,
        database: &(impl Storage + ?Sized),
    ) -> Result<AuditPage, StorageError> {
        let mut query = self.clone();
        query.limit = query.limit.clamp(1, Self::MAX_LIMIT);
        database.prepare().await?;
        database.read_audit(&query).await
    }
}
