//! The time a handler reads ([`Context::now`](crate::Context::now)): the system's, or one a
//! test sets on the registry ([`Registry::with_clock`](crate::Registry::with_clock)) so that
//! what handlers write with it is the same on every run.

use std::fmt;
use std::sync::Arc;

use chrono::{DateTime, Utc};

/// Where a handler's "now" comes from.
#[derive(Clone, Default)]
pub struct Clock(Option<Arc<dyn Fn() -> DateTime<Utc> + Send + Sync>>);

impl Clock {
    /// The system clock.
    pub fn system() -> Self {
        Self(None)
    }

    /// Always `at`.
    pub fn fixed(at: DateTime<Utc>) -> Self {
        Self::from_fn(move || at)
    }

    /// What `now` returns each time (a test's clock that moves when told, say).
    pub fn from_fn(now: impl Fn() -> DateTime<Utc> + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(now)))
    }

    /// The time now, by this clock.
    pub fn now(&self) -> DateTime<Utc> {
        match &self.0 {
            Some(now) => now(),
            None => Utc::now(),
        }
    }
}

impl fmt::Debug for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            None => f.write_str("Clock::system()"),
            Some(_) => f.write_str("Clock::from_fn(..)"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixed_clock_stands_still_and_the_system_one_moves_on() {
        let at = DateTime::parse_from_rfc3339("2026-03-01T11:00:00Z")
            .unwrap()
            .to_utc();
        let fixed = Clock::fixed(at);
        assert_eq!((fixed.now(), fixed.now()), (at, at));
        assert!(Clock::system().now() > at);
    }
}
