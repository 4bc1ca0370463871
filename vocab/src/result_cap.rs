//! Result caps: how large a tool's answer may get ([`ResultCap`]) — bytes of its JSON, and
//! items kept of each list in it — as specs declare them and the runtime applies them, and
//! the words every surface (descriptions, `explain`, the OpenAPI document, the catalog) says
//! them in.

use std::fmt;

/// The JSON Schema of a truncation notice, as a literal (`concat!` takes it into other
/// schemas).
#[macro_export]
#[doc(hidden)]
macro_rules! truncation_schema {
    () => {
        r#"{"type":"object","description":"The answer was cut to fit the tool's result cap: the cap, and each list that lost items (where, as a JSON pointer; how many of its first items were kept, of how many; whether items or bytes stopped it).","properties":{"limit":{"type":"object","properties":{"bytes":{"type":"integer","minimum":0},"items":{"type":"integer","minimum":0}}},"cut":{"type":"array","items":{"type":"object","properties":{"at":{"type":"string"},"kept":{"type":"integer","minimum":0},"total":{"type":"integer","minimum":0},"by":{"type":"string","enum":["items","bytes"]}},"required":["at","kept","total","by"]}},"more":{"type":"integer","minimum":0,"description":"How many more lists were cut than `cut` names."}},"required":["limit","cut"]}"#
    };
}

/// The JSON Schema of a truncation notice: what the MCP adapter puts in a result's `_meta`,
/// the HTTP API in a response header, and function calling beside the answer.
pub const TRUNCATION_SCHEMA: &str = truncation_schema!();

/// One tool's cap on the size of its answers. An answer past it is cut: lists lose their last
/// items until the rest fits, and the answer carries a notice of what was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct ResultCap {
    /// The most bytes of compact JSON the answer's value may take (`None`: no bound).
    pub bytes: Option<u64>,
    /// The most items kept of any one list in the answer (`None`: no bound).
    pub items: Option<u32>,
}

impl ResultCap {
    /// Every tool's cap unless the project or the tool says otherwise: 1 MiB of JSON, lists
    /// unbounded — a safety net far above what a model reads, not a budget.
    pub const DEFAULT: Self = Self {
        bytes: Some(1 << 20),
        items: None,
    };

    /// The fewest bytes a cap may allow: room for a small object and a notice.
    pub const MIN_BYTES: u64 = 256;
    /// The most bytes a cap may allow: 64 MiB.
    pub const MAX_BYTES: u64 = 64 << 20;
    /// The most items a cap may keep of a list.
    pub const MAX_ITEMS: u32 = 1_000_000;

    /// Whether the cap bounds nothing.
    pub const fn is_unbounded(&self) -> bool {
        self.bytes.is_none() && self.items.is_none()
    }
}

impl Default for ResultCap {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The cap in words: `1 MiB of JSON, 100 items per list`.
impl fmt::Display for ResultCap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.bytes, self.items) {
            (Some(bytes), Some(items)) => {
                write!(f, "{} of JSON, {items} items per list", Size(bytes))
            }
            (Some(bytes), None) => write!(f, "{} of JSON", Size(bytes)),
            (None, Some(items)) => write!(f, "{items} items per list"),
            (None, None) => f.write_str("no cap"),
        }
    }
}

/// A size as people read it: `1 MiB`, `64 KiB`, `1500 bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size(pub u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            b if b >= 1 << 20 && b % (1 << 20) == 0 => write!(f, "{} MiB", b >> 20),
            b if b >= 1 << 10 && b % (1 << 10) == 0 => write!(f, "{} KiB", b >> 10),
            1 => f.write_str("1 byte"),
            b => write!(f, "{b} bytes"),
        }
    }
}

/// The sentence a tool's description ends with when its cap is not the default one.
pub fn description_sentence(cap: &ResultCap) -> String {
    let mut parts = Vec::new();
    if let Some(items) = cap.items {
        parts.push(format!("each list keeps at most {items} items"));
    }
    if let Some(bytes) = cap.bytes {
        parts.push(format!("an answer is at most {} of JSON", Size(bytes)));
    }
    format!(
        "Answers are capped: {}; an answer that was cut says what it left out.",
        parts.join(" and ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_and_sizes_read_as_words() {
        assert_eq!(ResultCap::DEFAULT.to_string(), "1 MiB of JSON");
        let both = ResultCap {
            bytes: Some(64 << 10),
            items: Some(100),
        };
        assert_eq!(both.to_string(), "64 KiB of JSON, 100 items per list");
        assert_eq!(Size(1500).to_string(), "1500 bytes");
        assert_eq!(
            description_sentence(&both),
            "Answers are capped: each list keeps at most 100 items and an answer is at most \
             64 KiB of JSON; an answer that was cut says what it left out."
        );
        assert!(
            ResultCap {
                bytes: None,
                items: None
            }
            .is_unbounded()
        );
    }
}
