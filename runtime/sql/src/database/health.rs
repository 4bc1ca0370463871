//! Whether the database is known to be down: state only. `breaker` sets it when a probe
//! cannot reach the database after a statement found it unreachable, and clears it when a
//! probe reaches it again; calls that need the database read it first
//! ([`Health::down_for`]) and answer at once while it is set.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The breaker's state, shared by every clone of a [`Database`](crate::Database).
#[derive(Debug, Default)]
pub(crate) struct Health {
    /// Set while known down: the one thing every call reads.
    down: AtomicBool,
    /// Set while a probe runs (at most one at a time).
    probing: AtomicBool,
    /// Since when, and why (kept while down).
    outage: Mutex<Option<Outage>>,
}

/// One stretch of time the database was down.
#[derive(Debug, Clone)]
struct Outage {
    since: Instant,
    cause: String,
}

impl Health {
    /// While the database is known down: for how long, and the error that showed it.
    pub(crate) fn down_for(&self) -> Option<(Duration, String)> {
        if !self.down.load(Ordering::Acquire) {
            return None;
        }
        let outage = self.outage.lock().ok()?.clone()?;
        Some((outage.since.elapsed(), outage.cause))
    }

    /// Marks the database down because of `cause` (kept from the first failure of an outage).
    pub(crate) fn mark_down(&self, cause: &str) {
        if let Ok(mut outage) = self.outage.lock() {
            outage.get_or_insert_with(|| Outage {
                since: Instant::now(),
                cause: cause.to_owned(),
            });
        }
        self.down.store(true, Ordering::Release);
    }

    /// Marks the database reachable; how long it was down, if it was.
    pub(crate) fn mark_up(&self) -> Option<Duration> {
        self.down.store(false, Ordering::Release);
        let outage = self.outage.lock().ok()?.take()?;
        Some(outage.since.elapsed())
    }

    /// Claims the one probe; false when one already runs.
    pub(crate) fn start_probing(&self) -> bool {
        !self.probing.swap(true, Ordering::AcqRel)
    }

    /// Lets the next failure start a probe again.
    pub(crate) fn stop_probing(&self) {
        self.probing.store(false, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn down_until_marked_up_keeping_the_first_cause() {
        let health = Health::default();
        assert!(health.down_for().is_none());
        health.mark_down("connection refused");
        health.mark_down("pool timed out");
        let (_, cause) = health.down_for().expect("down");
        assert_eq!(cause, "connection refused");
        assert!(health.mark_up().is_some());
        assert!(health.down_for().is_none());
        assert!(health.mark_up().is_none(), "up already");
    }

    #[test]
    fn one_probe_at_a_time() {
        let health = Health::default();
        assert!(health.start_probing());
        assert!(!health.start_probing());
        health.stop_probing();
        assert!(health.start_probing());
    }
}
