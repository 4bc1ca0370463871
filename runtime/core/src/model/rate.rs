//! Rate limits at run time: one tool's [`Limiter`] — its [`RateLimit`] per caller, in this
//! process's memory — and the budget of each caller's task requests
//! ([`task_request_limit`]), kept by the same kind of limiter. The budget is governor's keyed
//! GCRA (one small state per caller in a sharded map: a flood from one caller spends only that
//! caller's budget and never waits on another's lock for long); the calls in flight are one
//! counter per caller. Idle callers' state is forgotten as the maps grow.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

use dashmap::DashMap;
use governor::clock::Clock as _;
use governor::{DefaultKeyedRateLimiter, Quota};
pub use toolspec_vocab::rate::RateLimit;

/// The default budget of one caller's task requests — reading, listing and cancelling its
/// tasks over MCP and the HTTP API — when it may have `per_caller` unfinished tasks: twice
/// what polling every one of them at the interval tasks advertise
/// ([`POLL_INTERVAL`](crate::model::task::POLL_INTERVAL), a second) takes, per interval, in bursts as
/// large (and at least ten); no bound on how many run at once beyond it.
#[doc(hidden)]
pub fn task_request_limit(per_caller: u32) -> RateLimit {
    let calls = per_caller.saturating_mul(2).max(10);
    let interval = crate::model::task::POLL_INTERVAL.as_millis();
    RateLimit {
        calls,
        period_ms: u64::try_from(interval).unwrap_or(u64::MAX),
        burst: calls,
        in_flight: 0,
    }
}

/// How many admissions pass between two looks for idle callers to forget.
const PRUNE_EVERY: u64 = 4096;
/// How many callers a limiter keeps before it forgets the idle ones.
const KEEP: usize = 10_000;

/// One tool's budget, per caller.
#[doc(hidden)]
pub struct Limiter {
    limit: RateLimit,
    /// `None` when the budget never refills: no call passes.
    rate: Option<DefaultKeyedRateLimiter<String>>,
    running: DashMap<String, Arc<AtomicU32>>,
    admissions: AtomicU64,
}

impl std::fmt::Debug for Limiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Limiter")
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

/// Why a call was not admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub enum Refusal {
    /// The caller spent its budget: a call may pass again after this long.
    TooFast(Duration),
    /// As many of the caller's calls as allowed are running.
    TooMany(u32),
}

/// An admitted call: its place among the caller's calls in flight, given back when dropped.
#[derive(Debug)]
#[doc(hidden)]
pub struct Permit {
    running: Option<Arc<AtomicU32>>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        if let Some(running) = &self.running {
            running.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

impl Limiter {
    /// A limiter of `limit` per caller.
    pub fn new(limit: RateLimit) -> Self {
        let rate = limit.refill().and_then(Quota::with_period).map(|quota| {
            let burst = NonZeroU32::new(limit.burst).unwrap_or(NonZeroU32::MIN);
            DefaultKeyedRateLimiter::keyed(quota.allow_burst(burst))
        });
        Self {
            limit,
            rate,
            running: DashMap::new(),
            admissions: AtomicU64::new(0),
        }
    }

    /// The limit it keeps.
    pub fn limit(&self) -> RateLimit {
        self.limit
    }

    /// Admits one call of `caller`, or says why not. A call refused for the calls in flight
    /// spends none of the budget.
    pub fn admit(&self, caller: &String) -> Result<Permit, Refusal> {
        let permit = self.enter(caller)?;
        self.spend(caller)?;
        Ok(permit)
    }

    /// Spends one call of `caller`'s budget in this process, or says how long until one may
    /// pass.
    pub(crate) fn spend(&self, caller: &String) -> Result<(), Refusal> {
        let Some(rate) = &self.rate else {
            return Err(Refusal::TooFast(self.limit.period()));
        };
        rate.check_key(caller)
            .map_err(|not_until| Refusal::TooFast(not_until.wait_time_from(rate.clock().now())))
    }

    /// A place among `caller`'s calls in flight, spending none of this process's budget (for a
    /// budget the processes share, spent elsewhere).
    pub(crate) fn enter(&self, caller: &String) -> Result<Permit, Refusal> {
        // Every admission enters, whichever budget it then spends: idle callers are forgotten
        // here.
        if self.admissions.fetch_add(1, Ordering::Relaxed) % PRUNE_EVERY == PRUNE_EVERY - 1 {
            self.prune();
        }
        let bound = self.limit.in_flight;
        if bound == 0 {
            return Ok(Permit { running: None });
        }
        let running = match self.running.get(caller) {
            Some(running) => Arc::clone(&running),
            None => Arc::clone(&self.running.entry(caller.clone()).or_default()),
        };
        let mut now = running.load(Ordering::Acquire);
        loop {
            if now >= bound {
                return Err(Refusal::TooMany(bound));
            }
            match running.compare_exchange_weak(now, now + 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    return Ok(Permit {
                        running: Some(running),
                    });
                }
                Err(seen) => now = seen,
            }
        }
    }

    /// Forgets the callers with nothing running and a full budget, once there are many.
    fn prune(&self) {
        if self.running.len() > KEEP {
            self.running
                .retain(|_, running| running.load(Ordering::Acquire) > 0);
        }
        if let Some(rate) = &self.rate
            && rate.len() > KEEP
        {
            rate.retain_recent();
            rate.shrink_to_fit();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limit(calls: u32, period_ms: u64, burst: u32, in_flight: u32) -> RateLimit {
        RateLimit {
            calls,
            period_ms,
            burst,
            in_flight,
        }
    }

    #[test]
    fn a_burst_passes_then_the_caller_waits_for_its_budget_and_others_do_not() {
        // One call a minute, bursts of 3: the fourth call waits about a minute.
        let limiter = Limiter::new(limit(1, 60_000, 3, 0));
        let (ada, grace) = ("ada".to_owned(), "grace".to_owned());
        for _ in 0..3 {
            assert!(limiter.admit(&ada).is_ok());
        }
        match limiter.admit(&ada) {
            Err(Refusal::TooFast(wait)) => {
                assert!(
                    wait > Duration::from_secs(55) && wait <= Duration::from_secs(60),
                    "{wait:?}"
                )
            }
            other => panic!("{other:?}"),
        }
        // Another caller has a budget of its own.
        for _ in 0..3 {
            assert!(limiter.admit(&grace).is_ok());
        }
    }

    #[test]
    fn calls_in_flight_are_bounded_per_caller_and_given_back_when_they_end() {
        let limiter = Limiter::new(limit(1000, 1000, 1000, 2));
        let (ada, grace) = ("ada".to_owned(), "grace".to_owned());
        let first = limiter.admit(&ada).unwrap();
        let second = limiter.admit(&ada).unwrap();
        assert_eq!(limiter.admit(&ada).unwrap_err(), Refusal::TooMany(2));
        assert!(
            limiter.admit(&grace).is_ok(),
            "another caller's calls are its own"
        );
        drop(first);
        let third = limiter.admit(&ada).unwrap();
        drop((second, third));
        assert_eq!(
            limiter.running.get(&ada).unwrap().load(Ordering::Acquire),
            0
        );
    }

    #[test]
    fn the_task_request_budget_is_twice_the_polling_of_every_unfinished_task() {
        let budget = task_request_limit(100);
        assert_eq!(budget, limit(200, 1000, 200, 0));
        assert_eq!(budget.refill(), Some(Duration::from_millis(5)));
        assert_eq!(task_request_limit(1).calls, 10, "at least ten");
        // Polling a hundred tasks once a second passes, second after second.
        let limiter = Limiter::new(budget);
        let ada = "ada".to_owned();
        for _ in 0..100 {
            assert!(limiter.admit(&ada).is_ok());
        }
    }

    #[test]
    fn a_budget_that_never_refills_admits_nothing() {
        let limiter = Limiter::new(limit(0, 1000, 5, 0));
        assert!(matches!(
            limiter.admit(&"ada".to_owned()),
            Err(Refusal::TooFast(_))
        ));
    }

    #[test]
    fn idle_callers_are_forgotten_once_there_are_many() {
        let limiter = Limiter::new(limit(1000, 1, 1000, 4));
        let callers: Vec<String> = (0..=KEEP).map(|i| format!("caller-{i}")).collect();
        for caller in &callers {
            drop(limiter.admit(caller).unwrap());
        }
        let held = limiter.admit(&callers[0]).unwrap();
        limiter.prune();
        assert_eq!(
            limiter.running.len(),
            1,
            "only the caller with a call running"
        );
        drop(held);
    }
}
