//! Rate limits, as specs will declare them and the runtime follows them: how often one caller
//! may call one tool (calls per period, with a burst), and how many of its calls of that tool
//! may run at once ([`RateLimit`]).

use std::time::Duration;

/// One tool's budget per caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct RateLimit {
    /// How many calls the budget refills per [`period`](Self::period).
    pub calls: u32,
    /// The period `calls` are counted over, in milliseconds.
    pub period_ms: u64,
    /// How many calls may come at once after a quiet spell (at least 1).
    pub burst: u32,
    /// How many calls may run at the same time (0: no bound).
    pub in_flight: u32,
}

impl RateLimit {
    /// The default: 100 calls per 10 s (10 a second), bursts of 50, 32 at once — per caller
    /// and tool. A model calling a tool in a loop stays well inside it; a flood does not.
    pub const DEFAULT: Self = Self {
        calls: 100,
        period_ms: 10_000,
        burst: 50,
        in_flight: 32,
    };

    /// The period `calls` are counted over.
    pub const fn period(&self) -> Duration {
        Duration::from_millis(self.period_ms)
    }

    /// How long the budget takes to refill one call (`period / calls`, at least a nanosecond);
    /// `None` when the budget never refills (no calls, or no period).
    pub fn refill(&self) -> Option<Duration> {
        if self.calls == 0 || self.period_ms == 0 {
            return None;
        }
        Some((self.period() / self.calls).max(Duration::from_nanos(1)))
    }
}

/// The budget in words, as the catalog shows it: `100 calls per 10s per caller, bursts of 50, at
/// most 32 at once`.
impl std::fmt::Display for RateLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let calls = match self.calls {
            1 => "1 call".to_owned(),
            n => format!("{n} calls"),
        };
        let period = crate::duration::words(self.period());
        write!(
            f,
            "{calls} per {period} per caller, bursts of {}",
            self.burst
        )?;
        match self.in_flight {
            0 => Ok(()),
            n => write!(f, ", at most {n} at once"),
        }
    }
}

impl Default for RateLimit {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_budget_reads_as_words() {
        assert_eq!(
            RateLimit::DEFAULT.to_string(),
            "100 calls per 10s per caller, bursts of 50, at most 32 at once"
        );
        let slow = RateLimit {
            calls: 1,
            period_ms: 60_000,
            burst: 1,
            in_flight: 0,
        };
        assert_eq!(slow.to_string(), "1 call per 1m per caller, bursts of 1");
    }

    #[test]
    fn the_refill_is_the_period_shared_by_the_calls() {
        assert_eq!(
            RateLimit::DEFAULT.refill(),
            Some(Duration::from_millis(100))
        );
        let huge = RateLimit {
            calls: u32::MAX,
            period_ms: 1,
            ..RateLimit::DEFAULT
        };
        assert_eq!(huge.refill(), Some(Duration::from_nanos(1)), "never zero");
        let none = RateLimit {
            calls: 0,
            ..RateLimit::DEFAULT
        };
        assert_eq!(none.refill(), None);
    }
}
