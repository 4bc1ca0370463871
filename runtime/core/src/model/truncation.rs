//! What an answer cut to fit its tool's [`ResultCap`] says about the cut ([`Truncation`]):
//! the cap, and each list that lost items — where it is, how many items it kept of how many —
//! in the forms the adapters show it (JSON, a sentence, an HTTP header's ASCII text).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};
use toolspec_vocab::result_cap::ResultCap;

/// The `_meta` key of an MCP result that carries the notice (function calling puts it under
/// [`ANSWER_KEY`], the HTTP API in the [`HEADER`]).
#[doc(hidden)]
pub const META_KEY: &str = "toolspec/truncated";
/// The key of a function call's answer (beside the exposed values, which never start with
/// `_`) that carries the notice.
#[doc(hidden)]
pub const ANSWER_KEY: &str = "_truncated";
/// The HTTP API's response header carrying the notice as JSON.
#[doc(hidden)]
pub const HEADER: &str = "toolspec-truncated";
/// How many cut lists a notice names; the rest are counted in [`Truncation::more`].
#[doc(hidden)]
pub const MAX_LISTED: usize = 16;

/// An answer was cut to fit the tool's result cap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truncation {
    /// The cap applied.
    pub limit: Limit,
    /// The lists cut, in the order they ended (a list inside another before it; at most
    /// [`MAX_LISTED`]).
    pub cut: Vec<Cut>,
    /// How many lists were cut beyond those `cut` names.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more: u64,
}

/// A result cap as a notice states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Limit {
    /// The most bytes of compact JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// The most items kept of a list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<u32>,
}

impl From<ResultCap> for Limit {
    fn from(cap: ResultCap) -> Self {
        Self {
            bytes: cap.bytes,
            items: cap.items,
        }
    }
}

impl From<Limit> for ResultCap {
    fn from(limit: Limit) -> Self {
        Self {
            bytes: limit.bytes,
            items: limit.items,
        }
    }
}

/// One list that lost items.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cut {
    /// Where the list is in the answer, as a JSON pointer (`/orders`, `/orders/3/lines`).
    pub at: String,
    /// How many of its first items the answer keeps.
    pub kept: u64,
    /// How many items it had.
    pub total: u64,
    /// What stopped it: the cap's `items`, or its `bytes`.
    pub by: CutBy,
}

/// What part of the cap cut a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CutBy {
    /// The most items per list.
    Items,
    /// The most bytes of the whole answer.
    Bytes,
}

/// `value` (the exposed values, an object) with `notice`, when there is one, under
/// [`ANSWER_KEY`]: what a model reads of a result over function calling.
pub(crate) fn beside(
    mut value: serde_json::Value,
    notice: Option<&Truncation>,
) -> serde_json::Value {
    if let (Some(notice), serde_json::Value::Object(map)) = (notice, &mut value) {
        let notice = serde_json::to_value(notice).unwrap_or_default();
        map.insert(ANSWER_KEY.into(), notice);
    }
    value
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Truncation {
    /// The notice as a model reads it: `The answer was cut to fit its cap (64 KiB of JSON):
    /// /orders keeps 120 of 2500 items.`
    pub fn sentence(&self) -> String {
        let mut text = format!(
            "The answer was cut to fit its cap ({}):",
            ResultCap::from(self.limit)
        );
        for (i, cut) in self.cut.iter().enumerate() {
            let separator = if i == 0 { " " } else { "; " };
            let at = if cut.at.is_empty() { "/" } else { &cut.at };
            let _ = write!(
                text,
                "{separator}{at} keeps {} of {} items",
                cut.kept, cut.total
            );
        }
        if self.more > 0 {
            let _ = write!(text, "; {} more lists were cut", self.more);
        }
        text.push('.');
        text
    }

    /// The notice as JSON text in ASCII only (anything else escaped `\uXXXX`), as an HTTP
    /// header's value may hold it.
    pub fn header_value(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        let mut ascii = String::with_capacity(json.len());
        for c in json.chars() {
            if c.is_ascii() {
                ascii.push(c);
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(ascii, "\\u{unit:04x}");
                }
            }
        }
        ascii
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notice() -> Truncation {
        Truncation {
            limit: Limit {
                bytes: Some(64 << 10),
                items: Some(100),
            },
            cut: vec![
                Cut {
                    at: "/orders".into(),
                    kept: 100,
                    total: 2500,
                    by: CutBy::Items,
                },
                Cut {
                    at: "/notes/é".into(),
                    kept: 0,
                    total: 2,
                    by: CutBy::Bytes,
                },
            ],
            more: 3,
        }
    }

    #[test]
    fn a_notice_reads_as_a_sentence_and_as_json() {
        let notice = notice();
        assert_eq!(
            notice.sentence(),
            "The answer was cut to fit its cap (64 KiB of JSON, 100 items per list): /orders \
             keeps 100 of 2500 items; /notes/é keeps 0 of 2 items; 3 more lists were cut."
        );
        let json = serde_json::to_value(&notice).unwrap();
        assert_eq!(json["cut"][0]["by"], "items");
        assert_eq!(serde_json::from_value::<Truncation>(json).unwrap(), notice);
    }

    #[test]
    fn the_header_value_is_ascii_json_that_reads_back() {
        let value = notice().header_value();
        assert!(value.is_ascii(), "{value}");
        assert!(value.contains(r"/notes/\u00e9"), "{value}");
        let back: Truncation = serde_json::from_str(&value).unwrap();
        assert_eq!(back, notice());
    }
}
