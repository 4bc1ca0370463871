//! Result caps: a tool's `result_cap:` and the project's, each `off` or a map of `bytes` and
//! `items` (each a number or `off`), read key by key over the cap below it (the project's over
//! [`ResultCap::DEFAULT`], a tool's over the project's).

use toolspec_vocab::result_cap::ResultCap;

use crate::diagnostic::kind::Kind;
use crate::read::reader::Reader;
use crate::read::yaml::{Node, Value};

/// The keys of a `result_cap:` map.
const KEYS: [&str; 2] = ["bytes", "items"];

/// A `result_cap:` as written: `off`, or the keys a map sets (`Some(None)`: that key `off`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapWritten {
    /// `result_cap: off`.
    Off,
    /// `result_cap: { bytes, items }`; a key not written is the cap below's.
    Keys {
        bytes: Option<Option<u64>>,
        items: Option<Option<u32>>,
    },
}

impl CapWritten {
    /// The cap this writes over `below` (`None`: no cap at all).
    pub fn over(self, below: Option<ResultCap>) -> Option<ResultCap> {
        let CapWritten::Keys { bytes, items } = self else {
            return None;
        };
        let below = below.unwrap_or(ResultCap {
            bytes: None,
            items: None,
        });
        let cap = ResultCap {
            bytes: bytes.unwrap_or(below.bytes),
            items: items.unwrap_or(below.items),
        };
        (!cap.is_unbounded()).then_some(cap)
    }
}

/// `result_cap:` at `node` (`key` names it in diagnostics), or `None` when it is wrong (every
/// mistake reported).
pub fn read_result_cap(r: &mut Reader<'_>, node: &Node, key: &str) -> Option<CapWritten> {
    let what = format!("`{key}`");
    if let Value::Str(text) = &node.value {
        if text == "off" {
            return Some(CapWritten::Off);
        }
        r.report(
            r.error(
                Kind::InvalidValue,
                node.span,
                format!("{what} must be `off` or a map, not `{text}`"),
            )
            .with_label("not a result cap")
            .with_help("write `off`, or `{ bytes: 65536, items: 100 }`"),
        );
        return None;
    }
    let entries = r.map(node, &what)?;
    r.check_keys(entries, &KEYS, &what);
    let field = |name: &str| format!("`{key}.{name}`");
    let bytes = node.get("bytes").map(|n| {
        let range = (ResultCap::MIN_BYTES, ResultCap::MAX_BYTES);
        bound(r, n, &field("bytes"), range)
    });
    let items = node.get("items").map(|n| {
        let range = (1, u64::from(ResultCap::MAX_ITEMS));
        bound(r, n, &field("items"), range)
    });
    // Each key: not written (`None`), or read (`Some(Some(_))`), or wrong (`Some(None)`).
    let read = |key: Option<Option<_>>| match key {
        None => Some(None),
        Some(value) => value.map(Some),
    };
    Some(CapWritten::Keys {
        bytes: read(bytes)?,
        // In range, so within `u32`.
        items: read(items)?.map(|items| items.map(|n| n as u32)),
    })
}

/// `off`, or a whole number in `range`: `Some(None)` for `off`, `None` when wrong.
fn bound(r: &mut Reader<'_>, node: &Node, what: &str, range: (u64, u64)) -> Option<Option<u64>> {
    if matches!(&node.value, Value::Str(text) if text == "off") {
        return Some(None);
    }
    let value = r.u64(node, what)?;
    if (range.0..=range.1).contains(&value) {
        return Some(Some(value));
    }
    r.report(
        r.error(
            Kind::InvalidValue,
            node.span,
            format!("{what} must be `off` or from {} to {}", range.0, range.1),
        )
        .with_label("out of range"),
    );
    None
}
