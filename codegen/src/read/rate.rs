//! Rate limits: a tool's `rate_limit:` and the project's (the default of every tool), each
//! `off` or a map of `calls`, `per`, `burst` and `in_flight`.

use std::time::Duration;

use toolspec_vocab::rate::RateLimit;

use crate::diagnostic::kind::Kind;
use crate::read::durable::read_duration;
use crate::read::reader::Reader;
use crate::read::yaml::{Node, Value};

/// The keys of a `rate_limit:` map.
const KEYS: [&str; 4] = ["calls", "per", "burst", "in_flight"];

/// The longest `per`: a day.
const MAX_PERIOD: Duration = Duration::from_secs(24 * 3600);
/// The most calls a budget may count, and the largest burst or bound of calls in flight.
const MAX_COUNT: u64 = 1_000_000;

/// `rate_limit:` at `node` (`key` names it in diagnostics): `Some(None)` for `off`,
/// `Some(Some(limit))` for a map (`burst` defaults to `calls`, `in_flight` to
/// [`RateLimit::DEFAULT`]'s), `None` when it is wrong (every mistake reported).
pub fn read_rate_limit(r: &mut Reader<'_>, node: &Node, key: &str) -> Option<Option<RateLimit>> {
    let what = format!("`{key}`");
    if let Value::Str(text) = &node.value {
        if text == "off" {
            return Some(None);
        }
        r.report(
            r.error(
                Kind::InvalidValue,
                node.span,
                format!("{what} must be `off` or a map, not `{text}`"),
            )
            .with_label("not a rate limit")
            .with_help("write `off`, or `{ calls: 60, per: 1m, burst: 10, in_flight: 4 }`"),
        );
        return None;
    }
    let entries = r.map(node, &what)?;
    r.check_keys(entries, &KEYS, &what);
    let field = |name: &str| format!("`{key}.{name}`");
    let calls = match node.get("calls") {
        Some(n) => count(r, n, &field("calls"), 1),
        None => missing(r, node, &what, "calls"),
    };
    let per = match node.get("per") {
        Some(n) => period(r, n, &field("per")),
        None => missing(r, node, &what, "per"),
    };
    let burst = node.get("burst").map(|n| count(r, n, &field("burst"), 1));
    let in_flight = node
        .get("in_flight")
        .map(|n| count(r, n, &field("in_flight"), 0));
    let (calls, per) = (calls?, per?);
    Some(Some(RateLimit {
        calls,
        period_ms: u64::try_from(per.as_millis()).unwrap_or(u64::MAX),
        burst: burst.unwrap_or(Some(calls))?,
        in_flight: in_flight.unwrap_or(Some(RateLimit::DEFAULT.in_flight))?,
    }))
}

/// A required key of a `rate_limit:` map that is not there.
fn missing<T>(r: &mut Reader<'_>, node: &Node, what: &str, key: &str) -> Option<T> {
    r.report(
        r.error(Kind::MissingKey, node.span, format!("{what} needs `{key}`"))
            .with_label(format!("no `{key}`"))
            .with_help("a budget is `calls` per `per` (a duration), like `{ calls: 60, per: 1m }`"),
    );
    None
}

/// A whole number from `min` to [`MAX_COUNT`].
fn count(r: &mut Reader<'_>, node: &Node, what: &str, min: u64) -> Option<u32> {
    let value = r.u64(node, what)?;
    if (min..=MAX_COUNT).contains(&value) {
        return u32::try_from(value).ok();
    }
    r.report(
        r.error(
            Kind::InvalidValue,
            node.span,
            format!("{what} must be from {min} to {MAX_COUNT}"),
        )
        .with_label("out of range"),
    );
    None
}

/// A duration longer than zero and at most a day.
fn period(r: &mut Reader<'_>, node: &Node, what: &str) -> Option<Duration> {
    let duration = read_duration(r, node, what, "`1m`")?;
    if !duration.is_zero() && duration <= MAX_PERIOD {
        return Some(duration);
    }
    r.report(
        r.error(
            Kind::InvalidValue,
            node.span,
            format!("{what} must be longer than zero and at most `1d`"),
        )
        .with_label("out of range")
        .with_help("write a duration like `1s`, `1m` or `1h`"),
    );
    None
}
