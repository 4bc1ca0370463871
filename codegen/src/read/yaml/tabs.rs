//! Tabs after a `:`. The parser rejects a tab between `:` and a value (`type:\tstring`), which
//! YAML allows: such a tab is only separation. This module parses again with those tabs turned
//! into spaces, a bounded number of times.

use std::ops::Range;

use crate::read::yaml::builder::Builder;
use crate::read::yaml::node::{Node, Value, YamlError};
use crate::read::yaml::text::Text;

/// The parser's message for a tab right after `:`.
const TAB_AFTER_COLON: &str = "':' must be followed by a valid YAML whitespace";

/// The tree of `text` (found `base` bytes into the caller's string), with the tabs after a `:`
/// repaired when the parser refuses one.
pub fn build_repairing_tabs(text: &str, base: usize) -> Result<Node, YamlError> {
    match Builder::new(Text::new(text, base)).run() {
        Err(e) if e.message == TAB_AFTER_COLON => repair_tabs(text, base, e),
        result => result,
    }
}

/// One repair pass turns every run of blanks with a tab right after a `:` into spaces (same
/// bytes, same columns) and parses again; runs that turn out to be inside a string (quoted, or
/// a block scalar) are put back and the text parsed a last time. So a file is parsed at most
/// three times, however many tabs it has; an error that remains is reported where it is (at a
/// tab, if one is still refused).
fn repair_tabs(text: &str, base: usize, error: YamlError) -> Result<Node, YamlError> {
    let gaps = tab_gaps(text);
    if gaps.is_empty() {
        return Err(error);
    }
    let patched = with_spaces(text, &gaps);
    let root = Builder::new(Text::new(&patched, base)).run()?;
    let strings = string_spans(&root);
    let is_content = |gap: &Range<usize>| {
        let at = gap.start + base;
        let i = strings.partition_point(|&(start, _)| start <= at);
        i > 0 && at < strings[i - 1].1
    };
    if !gaps.iter().any(is_content) {
        return Ok(root);
    }
    let separators: Vec<_> = gaps.into_iter().filter(|g| !is_content(g)).collect();
    Builder::new(Text::new(&with_spaces(text, &separators), base)).run()
}

/// Every run of spaces and tabs right after a `:` that holds a tab, as byte ranges.
fn tab_gaps(text: &str) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    let mut gaps = Vec::new();
    let mut i = 0;
    while let Some(colon) = bytes[i..].iter().position(|&b| b == b':').map(|p| p + i) {
        let start = colon + 1;
        let end = start
            + bytes[start..]
                .iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
        if bytes[start..end].contains(&b'\t') {
            gaps.push(start..end);
        }
        i = end.max(start);
    }
    gaps
}

/// `text` with the bytes of every range in `gaps` replaced by spaces.
fn with_spaces(text: &str, gaps: &[Range<usize>]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for gap in gaps {
        bytes[gap.clone()].fill(b' ');
    }
    // Only ASCII blanks were replaced by ASCII spaces.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_owned())
}

/// The (start, end) byte offsets of every string node (keys included), sorted.
fn string_spans(root: &Node) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match &node.value {
            Value::Str(_) => spans.push((node.span.start.offset, node.span.end.offset)),
            Value::Seq(items) => stack.extend(items),
            Value::Map(entries) => stack.extend(entries.iter().flat_map(|(k, v)| [k, v])),
            _ => {}
        }
    }
    spans.sort_unstable();
    spans
}
