//! A crate that adopts toolspec to exercise its invoker: tools in `specs/` (and, compiled with
//! `invoker: { undeclared_keys: drop }`, in `specs_drop/`), handlers here that behave in the
//! ways the invoker must survive (slow, panicking, failing, waiting for cancellation).
//!
//! Every handler records what it saw in a shared [`Probe`], so tests can check what reached
//! the handler (and that it was never reached at all).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

toolspec::include_tools!();
toolspec::include_tools!(drop_tools, "drop_tools.rs");

use tools::{admin, hostile, jobs, kinds, notes, orders, profile};

/// What the handlers saw, shared with the tests.
#[derive(Debug, Default)]
pub struct Probe {
    /// How many times `orders_cancel`'s handler ran (guards excluded).
    pub cancel_calls: AtomicUsize,
    /// How many times its guards ran.
    pub guard_calls: AtomicUsize,
    /// How many times `profile_update`'s handler ran.
    pub profile_calls: AtomicUsize,
    /// Signalled when `jobs_wait` or `jobs_slow` has started and handed its token to a watcher.
    pub started: Notify,
    /// Signalled by the watcher task when it sees the handler's token cancelled.
    pub watcher_saw_cancel: Notify,
    /// Set by the watcher task when it sees the handler's token cancelled.
    pub watcher_saw: AtomicBool,
    /// Set by `jobs_wait` itself once `cx.cancellation().cancelled().await` returns.
    pub handler_saw: AtomicBool,
    /// Set when `jobs_wait`'s future is dropped: whether its token was cancelled by then.
    pub wait_dropped_cancelled: AtomicBool,
    /// Set when `jobs_slow`'s future is dropped: whether its token was cancelled by then.
    pub slow_dropped_cancelled: AtomicBool,
    /// Set when `jobs_slow` finished sleeping (it should not, past its timeout).
    pub slow_finished: AtomicBool,
    /// Signalled when `jobs_guarded`'s guard has started and handed its token to a watcher.
    pub guard_started: Notify,
    /// Set when `jobs_guarded`'s guard future is dropped: whether its token was cancelled.
    pub guard_dropped_cancelled: AtomicBool,
    /// Set when `jobs_guarded`'s guard finished waiting (it should not, past the timeout).
    pub guard_finished: AtomicBool,
    /// How many times `jobs_guarded`'s handler ran.
    pub guarded_calls: AtomicUsize,
    /// How many times `notes_archive`'s guards looked a note up.
    pub note_lookups: AtomicUsize,
    /// How many times `notes_archive`'s handler ran.
    pub archive_calls: AtomicUsize,
}

/// A note as `notes_archive`'s guard loads it.
#[derive(Debug)]
pub struct Note {
    /// Its title.
    pub title: String,
}

/// The app: every tool's handler.
#[derive(Debug, Clone, Default)]
pub struct App {
    /// Shared with the tests.
    pub probe: Arc<Probe>,
}

impl App {
    /// An app with a fresh probe.
    pub fn new() -> Self {
        Self::default()
    }

    /// The registry of `specs/` bound to this app.
    pub fn registry(&self) -> toolspec::Registry {
        tools::registry(self.clone())
    }

    /// The registry of `specs_drop/` (undeclared keys dropped) bound to this app.
    pub fn drop_registry(&self) -> toolspec::Registry {
        drop_tools::registry(self.clone())
    }

    /// Hands `token` to a task of its own that records when it is cancelled: a handler's
    /// future may be dropped before it can look, a spawned task outlives it.
    fn watch(&self, token: &toolspec::CancellationToken) {
        let token = token.clone();
        let probe = Arc::clone(&self.probe);
        tokio::spawn(async move {
            token.cancelled().await;
            probe.watcher_saw.store(true, Ordering::SeqCst);
            probe.watcher_saw_cancel.notify_one();
        });
    }
}

impl profile::update::Handler for App {
    async fn call(
        &self,
        input: profile::update::Input,
        cx: profile::update::Context<'_>,
    ) -> profile::update::Outcome {
        self.probe.profile_calls.fetch_add(1, Ordering::Relaxed);
        Ok(profile::update::Output {
            user_id: cx.ambient().user.clone(),
            age: input.age,
            score: input.score,
            active: input.active,
            plan: input.plan.as_str().to_owned(),
            nickname: input.nickname,
        })
    }
}

impl orders::cancel::Handler for App {
    async fn call(
        &self,
        input: orders::cancel::Input,
        _cx: orders::cancel::Context<'_>,
    ) -> orders::cancel::Outcome {
        use orders::cancel::Error;
        self.probe.cancel_calls.fetch_add(1, Ordering::SeqCst);
        match input.order_id {
            404 => Err(Error::NotFound)?,
            2 => Err(toolspec::Failure::declared(Error::AlreadyShipped)
                .with_details(serde_json::json!({ "shipped_on": "2026-03-01" }))),
            3 => Err(Error::AlreadyShipped)?,
            500 => Err(toolspec::Failure::internal(
                "connection refused: db.internal:5432",
            )),
            id => Ok(orders::cancel::Output {
                order_id: id,
                status: "cancelled".into(),
                reason: input.reason.as_str().into(),
            }),
        }
    }

    /// Fails for order 13 (and panics for order 66).
    async fn not_locked(
        &self,
        input: &orders::cancel::Input,
        _cx: &orders::cancel::Context<'_>,
    ) -> bool {
        self.probe.guard_calls.fetch_add(1, Ordering::SeqCst);
        assert!(input.order_id != 66, "the lock table is gone");
        input.order_id != 13
    }

    /// Fails for orders 13 and 14.
    async fn in_business_hours(
        &self,
        input: &orders::cancel::Input,
        _cx: &orders::cancel::Context<'_>,
    ) -> bool {
        self.probe.guard_calls.fetch_add(1, Ordering::SeqCst);
        !matches!(input.order_id, 13 | 14)
    }
}

/// `notes_archive`'s notes: 1 and 5 are the caller's, 2 is someone else's, 3 is archived
/// (the details say when), 4 is pinned (twice), 500 is behind a broken table, 66 panics.
impl notes::archive::Handler for App {
    type Note = Note;
    type Pins = i64;

    /// Answers with what the guards loaded: it looks nothing up itself.
    async fn call(
        &self,
        _input: notes::archive::Input,
        loaded: notes::archive::Loaded<Self>,
        _cx: notes::archive::Context<'_>,
    ) -> notes::archive::Outcome {
        self.probe.archive_calls.fetch_add(1, Ordering::SeqCst);
        Ok(notes::archive::Output {
            title: loaded.note.title,
            pins: loaded.pins,
        })
    }

    async fn owns_note(
        &self,
        input: &notes::archive::Input,
        _cx: &notes::archive::Context<'_>,
    ) -> notes::archive::owns_note::Outcome<Note> {
        use notes::archive::owns_note::Error;
        self.probe.note_lookups.fetch_add(1, Ordering::SeqCst);
        match input.note_id {
            1 | 4 | 5 => Ok(Note {
                title: format!("Note {}", input.note_id),
            }),
            3 => Err(toolspec::GuardFailure::declared(Error::Archived)
                .with_details(serde_json::json!({ "archived_on": "2026-11-30" }))),
            500 => Err(std::io::Error::other("the notes table is gone"))?,
            66 => panic!("the notes index is corrupt"),
            _ => Err(Error::NotFound.into()),
        }
    }

    async fn unpinned(
        &self,
        input: &notes::archive::Input,
        _cx: &notes::archive::Context<'_>,
    ) -> notes::archive::unpinned::Outcome<i64> {
        match input.note_id {
            4 => Err(toolspec::GuardFailure::Unmet),
            _ => Ok(0),
        }
    }
}

impl kinds::wide::Handler for App {
    async fn call(
        &self,
        input: kinds::wide::Input,
        _cx: kinds::wide::Context<'_>,
    ) -> kinds::wide::Outcome {
        Ok(kinds::wide::Output { count: input.count })
    }
}

impl jobs::slow::Handler for App {
    async fn call(
        &self,
        input: jobs::slow::Input,
        cx: jobs::slow::Context<'_>,
    ) -> jobs::slow::Outcome {
        self.watch(cx.cancellation());
        let _on_drop = DropProbe {
            token: cx.cancellation().clone(),
            probe: Arc::clone(&self.probe),
            flag: |p| &p.slow_dropped_cancelled,
        };
        self.probe.started.notify_one();
        tokio::time::sleep(Duration::from_millis(input.millis.unsigned_abs())).await;
        self.probe.slow_finished.store(true, Ordering::SeqCst);
        Ok(jobs::slow::Output {
            slept: input.millis,
        })
    }
}

impl jobs::schedule::Handler for App {
    async fn call(
        &self,
        input: jobs::schedule::Input,
        _cx: jobs::schedule::Context<'_>,
    ) -> jobs::schedule::Outcome {
        let urgency = if input.urgent { ", urgently" } else { "" };
        Ok(jobs::schedule::Output {
            scheduled: format!("{} on {} workers{urgency}", input.name, input.workers),
        })
    }
}

impl jobs::guarded::Handler for App {
    async fn call(
        &self,
        _input: jobs::guarded::Input,
        _cx: jobs::guarded::Context<'_>,
    ) -> jobs::guarded::Outcome {
        self.probe.guarded_calls.fetch_add(1, Ordering::SeqCst);
        Ok(jobs::guarded::Output { done: true })
    }

    /// Takes `guard_millis` to answer yes, watching its token like a handler.
    async fn ready(&self, input: &jobs::guarded::Input, cx: &jobs::guarded::Context<'_>) -> bool {
        self.watch(cx.cancellation());
        let _on_drop = DropProbe {
            token: cx.cancellation().clone(),
            probe: Arc::clone(&self.probe),
            flag: |p| &p.guard_dropped_cancelled,
        };
        self.probe.guard_started.notify_one();
        tokio::time::sleep(Duration::from_millis(input.guard_millis.unsigned_abs())).await;
        self.probe.guard_finished.store(true, Ordering::SeqCst);
        true
    }
}

impl kinds::narrow::Handler for App {
    async fn call(
        &self,
        input: kinds::narrow::Input,
        _cx: kinds::narrow::Context<'_>,
    ) -> kinds::narrow::Outcome {
        let total = input.lines.iter().map(|l| i64::from(l.quantity)).sum();
        Ok(kinds::narrow::Output { total })
    }
}

/// Records, when dropped, whether the handler's token was cancelled by then.
struct DropProbe {
    token: toolspec::CancellationToken,
    probe: Arc<Probe>,
    flag: fn(&Probe) -> &AtomicBool,
}

impl Drop for DropProbe {
    fn drop(&mut self) {
        (self.flag)(&self.probe).store(self.token.is_cancelled(), Ordering::SeqCst);
    }
}

impl jobs::wait::Handler for App {
    async fn call(
        &self,
        _input: jobs::wait::Input,
        cx: jobs::wait::Context<'_>,
    ) -> jobs::wait::Outcome {
        self.watch(cx.cancellation());
        let _on_drop = DropProbe {
            token: cx.cancellation().clone(),
            probe: Arc::clone(&self.probe),
            flag: |p| &p.wait_dropped_cancelled,
        };
        self.probe.started.notify_one();
        cx.cancellation().cancelled().await;
        self.probe.handler_saw.store(true, Ordering::SeqCst);
        Ok(jobs::wait::Output { done: false })
    }
}

impl jobs::progress::Handler for App {
    async fn call(
        &self,
        input: jobs::progress::Input,
        cx: jobs::progress::Context<'_>,
    ) -> jobs::progress::Outcome {
        for step in 1..=input.steps {
            cx.progress(
                step as f64 / input.steps as f64,
                format!("step {step} of {}", input.steps),
            );
            tokio::task::yield_now().await;
        }
        Ok(jobs::progress::Output { steps: input.steps })
    }
}

impl jobs::crash::Handler for App {
    async fn call(
        &self,
        input: jobs::crash::Input,
        _cx: jobs::crash::Context<'_>,
    ) -> jobs::crash::Outcome {
        use jobs::crash::Mode;
        match input.mode {
            Mode::Ok => Ok(jobs::crash::Output {
                mode: "ok".into(),
                code: 0,
            }),
            Mode::Panic => panic!("index out of bounds: the len is 0 but the index is 7"),
            Mode::Internal => Err(toolspec::Failure::internal("secret: /var/lib/app is full")),
            Mode::BadOutput => Ok(jobs::crash::Output {
                mode: "bad_output".into(),
                code: -1,
            }),
        }
    }
}

impl jobs::crash_loudly::Handler for App {
    async fn call(
        &self,
        input: jobs::crash_loudly::Input,
        _cx: jobs::crash_loudly::Context<'_>,
    ) -> jobs::crash_loudly::Outcome {
        use jobs::crash_loudly::Mode;
        match input.mode {
            Mode::Panic => panic!("boom"),
            Mode::Internal => Err(std::io::Error::other("EACCES on /etc/secret"))?,
        }
    }
}

impl kinds::coerce::Handler for App {
    async fn call(
        &self,
        input: kinds::coerce::Input,
        _cx: kinds::coerce::Context<'_>,
    ) -> kinds::coerce::Outcome {
        let echo = serde_json::to_value(&input).map_err(toolspec::Failure::internal)?;
        Ok(kinds::coerce::Output { echo })
    }
}

impl admin::purge::Handler for App {
    async fn call(
        &self,
        input: admin::purge::Input,
        cx: admin::purge::Context<'_>,
    ) -> admin::purge::Outcome {
        Ok(admin::purge::Output {
            purged: input.scope.as_str().into(),
            tenant: cx.ambient().tenant.clone(),
        })
    }
}

impl drop_tools::echo::Handler for App {
    async fn call(
        &self,
        input: drop_tools::echo::Input,
        _cx: drop_tools::echo::Context<'_>,
    ) -> drop_tools::echo::Outcome {
        let text = if input.loud {
            input.text.to_uppercase()
        } else {
            input.text
        };
        Ok(drop_tools::echo::Output { text })
    }
}

impl hostile::place::Handler for App {
    async fn call(
        &self,
        input: hostile::place::Input,
        _cx: hostile::place::Context<'_>,
    ) -> hostile::place::Outcome {
        Ok(hostile::place::Output {
            lines: input.lines.len() as i64,
        })
    }
}

/// What `hostile_dump` answers for `rows` rows of `row_bytes` bytes (or one string of
/// `rows × row_bytes` bytes): allocated exactly, so a test can count what it holds.
pub fn dump(rows: usize, row_bytes: usize, as_one_string: bool) -> hostile::dump::Output {
    let note = "That is all.".to_owned();
    if as_one_string {
        let mut blob = String::with_capacity(rows * row_bytes);
        blob.extend(std::iter::repeat_n('x', rows * row_bytes));
        return hostile::dump::Output {
            rows: Vec::new(),
            blob: Some(blob),
            note,
        };
    }
    let mut all = Vec::with_capacity(rows);
    all.extend((0..rows).map(|_| "r".repeat(row_bytes)));
    hostile::dump::Output {
        rows: all,
        blob: None,
        note,
    }
}

impl hostile::dump::Handler for App {
    async fn call(
        &self,
        input: hostile::dump::Input,
        _cx: hostile::dump::Context<'_>,
    ) -> hostile::dump::Outcome {
        let (rows, bytes) = (input.rows as usize, input.row_bytes as usize);
        Ok(dump(rows, bytes, input.as_one_string))
    }
}

impl hostile::pairs::Handler for App {
    async fn call(
        &self,
        input: hostile::pairs::Input,
        _cx: hostile::pairs::Context<'_>,
    ) -> hostile::pairs::Outcome {
        Ok(hostile::pairs::Output {
            pairs: (0..input.count).collect(),
        })
    }
}
