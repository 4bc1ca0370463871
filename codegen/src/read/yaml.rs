//! A YAML document as a tree of nodes that remember where they came from.
//!
//! [`parse`] reads one YAML document with `yaml-rust2`'s event parser and builds a [`Node`]
//! tree in which every node (map keys included) carries the [`Span`] of its source text, so
//! later stages can point diagnostics at the exact characters a user wrote. Plain scalars are
//! resolved with the YAML 1.2 core schema (`yes`/`no`/`on`/`off` stay strings).

use std::collections::HashMap;
use std::fmt;

use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, ScanError, TScalarStyle};

use crate::source::{Lines, Pos, Span};

/// Deepest nesting of maps and lists accepted: far more than a spec within the schema depth
/// limit (`dialect::MAX_DEPTH`, 32 levels) can use, and a bound on every recursion over the
/// tree and over the fields read from it.
const MAX_DEPTH: usize = 128;
/// Most nodes that aliases may copy in one document (guards against "billion laughs").
const MAX_ALIAS_NODES: usize = 100_000;
/// yaml-rust2's message for a tab right after `:`.
const TAB_AFTER_COLON: &str = "':' must be followed by a valid YAML whitespace";
/// The full tag that `!!str` expands to.
const STR_TAG: &str = "tag:yaml.org,2002:str";

/// The value of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`, `~` or nothing.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A decimal, `0x` or `0o` integer that fits in an `i64`.
    Int(i64),
    /// A floating-point number, `.inf` and `.nan` included.
    Float(f64),
    /// Any other scalar, and every quoted or block scalar.
    Str(String),
    /// A sequence, in source order.
    Seq(Vec<Node>),
    /// A mapping, entries in source order; keys are nodes so they keep their spans.
    Map(Vec<(Node, Node)>),
}

/// A YAML value with the span of the source text it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where the value is written. An alias has the span of the node it refers to.
    pub span: Span,
    /// Whether the scalar was written in single or double quotes.
    pub quoted: bool,
}

/// A YAML syntax error, or a document this module refuses (duplicate keys, several documents…).
#[derive(Debug, Clone, PartialEq)]
pub struct YamlError {
    /// What is wrong, without position.
    pub message: String,
    /// Where it is wrong; zero-width for syntax errors.
    pub span: Span,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Pos { line, col, .. } = self.span.start;
        write!(f, "{line}:{col}: {}", self.message)
    }
}

impl std::error::Error for YamlError {}

impl Node {
    /// The kind of value, as a word for messages: "null", "boolean", "integer", "number",
    /// "string", "list" or "map".
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Seq(_) => "list",
            Value::Map(_) => "map",
        }
    }

    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The entries, if this is a map.
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items, if this is a list.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The value stored under the string key `key`, if this is a map that has one.
    /// Keys that are not strings (`1:`, `true:`) never match.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The value as JSON. Non-finite floats become `null`; map keys that are not strings are
    /// written as their scalar text (`1`, `true`, `null`), or as compact JSON for list and map keys.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (key_text(k), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// The text of a key as shown in JSON objects and messages.
fn key_text(key: &Node) -> String {
    match &key.value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_nan() => ".nan".to_owned(),
        Value::Float(f) if f.is_infinite() => if *f > 0.0 { ".inf" } else { "-.inf" }.to_owned(),
        Value::Float(f) => {
            serde_json::Number::from_f64(*f).map_or_else(String::new, |n| n.to_string())
        }
        Value::Str(s) => s.clone(),
        Value::Seq(_) | Value::Map(_) => key.to_json().to_string(),
    }
}

/// Parses `source`, which must hold at most one YAML document. An empty document (no content,
/// or only comments) is a [`Value::Null`] node at line 1, column 1. A leading byte order mark is
/// skipped: it counts in byte offsets but not in columns.
pub fn parse(source: &str) -> Result<Node, YamlError> {
    let (base, text) = match source.strip_prefix('\u{feff}') {
        Some(rest) => ('\u{feff}'.len_utf8(), rest),
        None => (0, source),
    };
    // yaml-rust2 treats NUL as the end of the input; refuse it rather than silently truncate.
    if let Some(nul) = text.find('\0') {
        return Err(Builder::new(Text::new(text, base)).error_at(
            nul,
            nul,
            "the file contains a NUL character",
        ));
    }
    match Builder::new(Text::new(text, base)).run() {
        Err(e) if e.message == TAB_AFTER_COLON => repair_tabs(text, base, e),
        result => result,
    }
}

/// yaml-rust2 rejects a tab between `:` and a value (`type:\tstring`), which YAML allows: such
/// a tab is only separation. One repair pass turns every run of blanks with a tab right after a
/// `:` into spaces (same bytes, same columns) and parses again; runs that turn out to be inside
/// a string (quoted, or a block scalar) are put back and the text parsed a last time. So a
/// file is parsed at most three times, however many tabs it has; an error that remains is
/// reported where it is (at a tab, if one is still refused).
fn repair_tabs(text: &str, base: usize, error: YamlError) -> Result<Node, YamlError> {
    let gaps = tab_gaps(text);
    if gaps.is_empty() {
        return Err(error);
    }
    let patched = with_spaces(text, &gaps);
    let root = Builder::new(Text::new(&patched, base)).run()?;
    let strings = string_spans(&root);
    let is_content = |gap: &std::ops::Range<usize>| {
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
fn tab_gaps(text: &str) -> Vec<std::ops::Range<usize>> {
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
fn with_spaces(text: &str, gaps: &[std::ops::Range<usize>]) -> String {
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

// ---------------------------------------------------------------------------------------------
// Source text and positions
// ---------------------------------------------------------------------------------------------

/// The text being parsed, with its line tables to turn byte offsets and markers into positions.
struct Text<'s> {
    src: &'s str,
    /// Bytes before `src` in the caller's string (a byte order mark).
    base: usize,
    lines: Lines,
}

impl<'s> Text<'s> {
    fn new(src: &'s str, base: usize) -> Self {
        Text {
            src,
            base,
            lines: Lines::new(src),
        }
    }

    fn len(&self) -> usize {
        self.src.len()
    }

    /// The character at byte `b`, if any.
    fn char_at(&self, b: usize) -> Option<char> {
        self.src.get(b..).and_then(|s| s.chars().next())
    }

    /// The byte after the character at `b`.
    fn next_char(&self, b: usize) -> usize {
        b + self.char_at(b).map_or(1, char::len_utf8)
    }

    /// The character just before byte `b`, if any.
    fn char_before(&self, b: usize) -> Option<char> {
        self.src.get(..b).and_then(|s| s.chars().next_back())
    }

    fn line_start(&self, b: usize) -> usize {
        self.lines.start(self.lines.index_of(b))
    }

    fn line_end(&self, b: usize) -> usize {
        self.lines.end(self.lines.index_of(b))
    }

    /// Clamps `b` into the text, on a character boundary.
    fn clamp(&self, b: usize) -> usize {
        let mut b = b.min(self.src.len());
        while !self.src.is_char_boundary(b) {
            b -= 1;
        }
        b
    }

    /// The position of byte `b`.
    fn pos(&self, b: usize) -> Pos {
        let b = self.clamp(b);
        let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Pos {
            line: to_u32(self.lines.index_of(b) + 1),
            col: to_u32(self.lines.column(b)),
            offset: self.base + b,
        }
    }

    /// The byte a yaml-rust2 marker (1-based line, 0-based char column) points at. Markers are
    /// converted from line and column because yaml-rust2's own index is not always in bytes.
    fn marker_byte(&self, m: &Marker) -> usize {
        let idx = m.line().clamp(1, self.lines.count()) - 1;
        self.lines.byte_at(idx, m.col() + 1)
    }
}

fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_flow_indicator(c: char) -> bool {
    matches!(c, ',' | '[' | ']' | '{' | '}')
}

// ---------------------------------------------------------------------------------------------
// Building the tree from parser events
// ---------------------------------------------------------------------------------------------

/// A node that is complete, with how far it reaches in the source (an alias's own text, not the
/// span of the node it copies) and its size and height (for the alias and depth limits).
struct Built {
    node: Node,
    start: usize,
    end: usize,
    size: usize,
    height: usize,
}

/// An anchored node, ready to be copied by aliases.
struct Anchored {
    node: Node,
    size: usize,
    height: usize,
}

/// A key as far as duplicate detection is concerned.
#[derive(PartialEq, Eq, Hash)]
enum KeyRepr {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
}

impl KeyRepr {
    fn of(value: &Value) -> Option<KeyRepr> {
        Some(match value {
            Value::Null => KeyRepr::Null,
            Value::Bool(b) => KeyRepr::Bool(*b),
            Value::Int(i) => KeyRepr::Int(*i),
            Value::Float(f) => KeyRepr::Float(f.to_bits()),
            Value::Str(s) => KeyRepr::Str(s.clone()),
            Value::Seq(_) | Value::Map(_) => return None,
        })
    }
}

/// Structural equality that ignores spans and quoting (for list and map keys).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Seq(x), Value::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(&p.value, &q.value))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|((k1, v1), (k2, v2))| {
                    same_value(&k1.value, &k2.value) && same_value(&v1.value, &v2.value)
                })
        }
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

enum Collection {
    Seq(Vec<Node>),
    Map {
        entries: Vec<(Node, Node)>,
        pending_key: Option<Node>,
        /// Scalar keys seen so far, to the index of their entry.
        scalar_keys: HashMap<KeyRepr, usize>,
    },
}

/// A list or map whose end event has not arrived yet.
struct Frame {
    collection: Collection,
    anchor: usize,
    /// Written with `[` or `{`.
    flow: bool,
    start: usize,
    end: usize,
    size: usize,
    height: usize,
}

struct Builder<'s> {
    text: Text<'s>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Anchored>,
    /// The byte after the last token accounted for; used to place empty scalars and block
    /// scalar headers, which yaml-rust2 does not mark.
    cursor: usize,
    /// Nodes copied by aliases so far.
    alias_nodes: usize,
    root: Option<Node>,
}

impl<'s> Builder<'s> {
    fn new(text: Text<'s>) -> Self {
        Builder {
            text,
            stack: Vec::new(),
            anchors: HashMap::new(),
            cursor: 0,
            alias_nodes: 0,
            root: None,
        }
    }

    fn span(&mut self, start: usize, end: usize) -> Span {
        let start = self.text.pos(start);
        let end = self.text.pos(end);
        Span {
            start,
            end: end.max(start),
        }
    }

    fn error_at(&mut self, start: usize, end: usize, message: impl Into<String>) -> YamlError {
        YamlError {
            message: message.into(),
            span: self.span(start, end),
        }
    }

    fn scan_error(&mut self, e: &ScanError) -> YamlError {
        let b = self.text.marker_byte(e.marker());
        self.error_at(b, b, strip_position(e.info()))
    }

    fn run(mut self) -> Result<Node, YamlError> {
        let mut parser = Parser::new_from_str(self.text.src);
        let mut documents = 0;
        loop {
            let (event, mark) = parser.next_token().map_err(|e| self.scan_error(&e))?;
            match event {
                Event::StreamEnd => break,
                Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
                Event::DocumentStart => {
                    let b = self.text.marker_byte(&mark);
                    let explicit = self.text.src[b..].starts_with("---");
                    if documents > 0 {
                        let at = if explicit {
                            b
                        } else {
                            self.first_non_blank_of_line(b)
                        };
                        let end = if explicit { b + 3 } else { at };
                        return Err(self.error_at(
                            at,
                            end,
                            "expected one YAML document, found several",
                        ));
                    }
                    documents += 1;
                    if explicit {
                        self.cursor = b + 3;
                    }
                }
                Event::Alias(id) => self.alias(id, &mark)?,
                Event::Scalar(value, style, anchor, tag) => {
                    self.scalar(value, style, anchor, tag.as_ref(), &mark)?
                }
                Event::SequenceStart(anchor, _) => self.open(anchor, false, &mark)?,
                Event::MappingStart(anchor, _) => self.open(anchor, true, &mark)?,
                Event::SequenceEnd | Event::MappingEnd => self.close(&mark)?,
            }
        }
        if let Some(frame) = self.stack.last() {
            let b = frame.start;
            return Err(self.error_at(b, b, "unexpected end of the document"));
        }
        match self.root.take() {
            Some(root) => Ok(root),
            None => {
                let at = self.text.pos(0);
                Ok(Node {
                    value: Value::Null,
                    span: Span { start: at, end: at },
                    quoted: false,
                })
            }
        }
    }

    fn first_non_blank_of_line(&self, b: usize) -> usize {
        let start = self.text.line_start(b);
        let line = &self.text.src[start..self.text.line_end(b)];
        start + (line.len() - line.trim_start().len())
    }

    fn open(&mut self, anchor: usize, map: bool, mark: &Marker) -> Result<(), YamlError> {
        let b = self.text.marker_byte(mark);
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error_at(
                b,
                b,
                format!("nesting too deep (more than {MAX_DEPTH} levels)"),
            ));
        }
        let flow = self.text.char_at(b) == Some(if map { '{' } else { '[' });
        let start = if flow || map { b } else { self.dash_before(b) };
        let collection = if map {
            Collection::Map {
                entries: Vec::new(),
                pending_key: None,
                scalar_keys: HashMap::new(),
            }
        } else {
            Collection::Seq(Vec::new())
        };
        self.stack.push(Frame {
            collection,
            anchor,
            flow,
            start,
            end: start,
            size: 1,
            height: 1,
        });
        if flow {
            self.cursor = b + 1;
        } else if !map {
            self.cursor = start;
        }
        Ok(())
    }

    /// A block list is marked at its first item when it is not indented under its key; its
    /// span should start at the `-` before that.
    fn dash_before(&self, b: usize) -> usize {
        if self.text.char_at(b) == Some('-') {
            return b;
        }
        let line_start = self.text.line_start(b);
        let mut i = b;
        while i > line_start {
            match self.text.char_before(i) {
                Some(' ' | '\t') => i -= 1,
                Some('-') => return i - 1,
                _ => break,
            }
        }
        b
    }

    fn close(&mut self, mark: &Marker) -> Result<(), YamlError> {
        let b = self.text.marker_byte(mark);
        let Some(frame) = self.stack.pop() else {
            return Err(self.error_at(b, b, "unexpected end of a collection"));
        };
        let end = if frame.flow {
            let end = if matches!(self.text.char_at(b), Some(']' | '}')) {
                b + 1
            } else {
                b
            };
            self.cursor = end;
            end.max(frame.end)
        } else {
            frame.end
        };
        let value = match frame.collection {
            Collection::Seq(items) => Value::Seq(items),
            Collection::Map {
                mut entries,
                pending_key,
                ..
            } => {
                if let Some(key) = pending_key {
                    // The parser always sends a value after a key; stay total anyway.
                    let at = key.span.end;
                    entries.push((
                        key,
                        Node {
                            value: Value::Null,
                            span: Span { start: at, end: at },
                            quoted: false,
                        },
                    ));
                }
                Value::Map(entries)
            }
        };
        let span = self.span(frame.start, end);
        let built = Built {
            node: Node {
                value,
                span,
                quoted: false,
            },
            start: frame.start,
            end,
            size: frame.size,
            height: frame.height,
        };
        self.finish(built, frame.anchor)
    }

    fn alias(&mut self, id: usize, mark: &Marker) -> Result<(), YamlError> {
        let start = self.text.marker_byte(mark);
        let mut end = start;
        if self.text.char_at(end) == Some('*') {
            end += 1;
            while let Some(c) = self.text.char_at(end) {
                if is_ws(c) || is_flow_indicator(c) {
                    break;
                }
                end += c.len_utf8();
            }
        }
        self.cursor = end;
        let name = self.text.src[start..end].to_owned();
        // An anchor is registered when its node starts, so an alias inside that node finds no
        // finished node to copy.
        let Some((size, height)) = self.anchors.get(&id).map(|a| (a.size, a.height)) else {
            return Err(self.error_at(
                start,
                end,
                format!("alias `{name}` refers to a node that contains it"),
            ));
        };
        if self.stack.len() + height > MAX_DEPTH {
            return Err(self.error_at(
                start,
                end,
                format!("nesting too deep (more than {MAX_DEPTH} levels)"),
            ));
        }
        self.alias_nodes = self.alias_nodes.saturating_add(size);
        if self.alias_nodes > MAX_ALIAS_NODES {
            return Err(self.error_at(
                start,
                end,
                format!("aliases expand to too many nodes (more than {MAX_ALIAS_NODES})"),
            ));
        }
        let Some(node) = self.anchors.get(&id).map(|a| a.node.clone()) else {
            return Err(self.error_at(
                start,
                end,
                format!("alias `{name}` refers to a node that contains it"),
            ));
        };
        self.finish(
            Built {
                node,
                start,
                end,
                size,
                height,
            },
            0,
        )
    }

    fn scalar(
        &mut self,
        text: String,
        style: TScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        mark: &Marker,
    ) -> Result<(), YamlError> {
        let b = self.text.marker_byte(mark);
        let (start, end) = match style {
            TScalarStyle::Plain if text.is_empty() => {
                let at = self.empty_scalar_pos();
                (at, at)
            }
            TScalarStyle::Plain => (b, self.plain_end(b, &text)),
            TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted => (b, self.quoted_end(b)),
            TScalarStyle::Literal | TScalarStyle::Folded => self.block_extent(b, &text),
        };
        self.cursor = end.max(self.cursor);
        let is_str_tag = tag.is_some_and(|t| format!("{}{}", t.handle, t.suffix) == STR_TAG);
        let quoted = matches!(
            style,
            TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
        );
        let value = if style == TScalarStyle::Plain && !is_str_tag {
            match resolve_plain(&text) {
                Some(value) => value,
                None => return Err(self.error_at(start, end, "integer out of range")),
            }
        } else {
            Value::Str(text)
        };
        let span = self.span(start, end);
        let built = Built {
            node: Node {
                value,
                span,
                quoted,
            },
            start,
            end,
            size: 1,
            height: 1,
        };
        self.finish(built, anchor)
    }

    /// Stores an anchored node and hands the node to its parent (or makes it the root).
    fn finish(&mut self, built: Built, anchor: usize) -> Result<(), YamlError> {
        if anchor != 0 {
            let anchored = Anchored {
                node: built.node.clone(),
                size: built.size,
                height: built.height,
            };
            self.anchors.insert(anchor, anchored);
        }
        let Some(frame) = self.stack.last_mut() else {
            self.root = Some(built.node);
            return Ok(());
        };
        frame.size = frame.size.saturating_add(built.size);
        frame.height = frame.height.max(built.height + 1);
        frame.end = frame.end.max(built.end);
        let duplicate_of = match &mut frame.collection {
            Collection::Seq(items) => {
                items.push(built.node);
                return Ok(());
            }
            Collection::Map {
                entries,
                pending_key,
                scalar_keys,
            } => {
                if let Some(key) = pending_key.take() {
                    entries.push((key, built.node));
                    return Ok(());
                }
                if !frame.flow && entries.is_empty() {
                    frame.start = frame.start.min(built.start);
                }
                let first = match KeyRepr::of(&built.node.value) {
                    Some(repr) => match scalar_keys.get(&repr) {
                        Some(&i) => Some(i),
                        None => {
                            scalar_keys.insert(repr, entries.len());
                            None
                        }
                    },
                    None => entries
                        .iter()
                        .position(|(k, _)| same_value(&k.value, &built.node.value)),
                };
                match first.and_then(|i| entries.get(i)) {
                    Some((first, _)) => first.span.start.line,
                    None => {
                        *pending_key = Some(built.node);
                        return Ok(());
                    }
                }
            }
        };
        let message = format!(
            "duplicate key `{}` (first defined on line {duplicate_of})",
            key_text(&built.node)
        );
        Err(self.error_at(built.start, built.end, message))
    }

    // -- Where scalars start and end ------------------------------------------------------------

    /// Skips whitespace, comments, document markers and directives from `b`.
    fn skip_trivia(&self, mut b: usize) -> usize {
        let src = self.text.src;
        while let Some(c) = self.text.char_at(b) {
            let at_line_start = b == self.text.line_start(b);
            if is_ws(c) {
                b += 1;
            } else if (c == '#' && self.text.char_before(b).is_none_or(is_ws))
                || (at_line_start && c == '%')
            {
                // A comment, or a directive.
                b = self.text.line_end(b);
            } else if at_line_start
                && (src[b..].starts_with("---") || src[b..].starts_with("..."))
                && self.text.char_at(b + 3).is_none_or(is_ws)
            {
                b += 3;
            } else {
                break;
            }
        }
        b
    }

    /// Where an empty plain scalar (`key:` with nothing after it) is: just after its `:`, `-`
    /// or `?` indicator and any anchor or tag, or else just after the previous token.
    fn empty_scalar_pos(&self) -> usize {
        let b = self.skip_trivia(self.cursor);
        let mut at = match self.text.char_at(b) {
            Some(':') => b + 1,
            Some('-' | '?') if self.text.char_at(b + 1).is_none_or(is_ws) => b + 1,
            _ => return self.cursor,
        };
        loop {
            let mut p = at;
            while matches!(self.text.char_at(p), Some(' ' | '\t')) {
                p += 1;
            }
            if !matches!(self.text.char_at(p), Some('&' | '!')) {
                return at;
            }
            while let Some(c) = self.text.char_at(p) {
                if is_ws(c) || is_flow_indicator(c) {
                    break;
                }
                p += c.len_utf8();
            }
            at = p;
        }
    }

    /// The end of a plain scalar starting at `b` whose (folded) value is `value`.
    fn plain_end(&self, b: usize, value: &str) -> usize {
        let mut src = b;
        let mut end = b;
        let mut chars = value.chars().peekable();
        while let Some(c) = chars.next() {
            if is_ws(c) {
                while chars.next_if(|&c| is_ws(c)).is_some() {}
                while self.text.char_at(src).is_some_and(is_ws) {
                    src += 1;
                }
            } else if self.text.char_at(src) == Some(c) {
                src += c.len_utf8();
                end = src;
            } else {
                break;
            }
        }
        end
    }

    /// The byte after the closing quote of the quoted scalar starting at `b`.
    fn quoted_end(&self, b: usize) -> usize {
        let Some(quote) = self.text.char_at(b).filter(|&q| q == '"' || q == '\'') else {
            return b;
        };
        let mut i = b + 1;
        while let Some(c) = self.text.char_at(i) {
            i += c.len_utf8();
            if quote == '"' && c == '\\' {
                i = self.text.next_char(i);
            } else if c == quote {
                if quote == '\'' && self.text.char_at(i) == Some('\'') {
                    i += 1;
                } else {
                    return i;
                }
            }
        }
        self.text.len()
    }

    /// The extent of a block scalar (`|` or `>`) whose content is marked at `content`: from its
    /// header to the end of its last non-blank content line.
    fn block_extent(&self, content: usize, value: &str) -> (usize, usize) {
        let limit = if content > self.cursor {
            content
        } else {
            self.text.len()
        };
        let mut header = None;
        let mut i = self.cursor;
        while i <= limit {
            match self.text.char_at(i) {
                Some('#') if self.text.char_before(i).is_none_or(is_ws) => {
                    i = self.text.line_end(i)
                }
                Some('|' | '>') => {
                    header = Some(i);
                    break;
                }
                Some(c) => i += c.len_utf8(),
                None => break,
            }
        }
        let Some(header) = header else {
            return (content, self.plain_end(content, value.trim()));
        };
        let mut end = header + 1;
        while self
            .text
            .char_at(end)
            .is_some_and(|c| matches!(c, '-' | '+' | '0'..='9'))
        {
            end += 1;
        }
        if value.trim().is_empty() || content <= header {
            return (header, end);
        }
        let indent = self.text.src[self.text.line_start(content)..content]
            .chars()
            .count();
        let lines = &self.text.lines;
        for idx in lines.index_of(content)..lines.count() {
            let line = &self.text.src[lines.start(idx)..lines.end(idx)];
            if line.trim().is_empty() {
                continue;
            }
            let leading = line.len() - line.trim_start_matches(' ').len();
            let marker = (line.starts_with("---") || line.starts_with("..."))
                && line[3..].chars().next().is_none_or(is_ws);
            if leading < indent || (indent == 0 && marker) {
                break;
            }
            end = lines.end(idx);
        }
        (header, end)
    }
}

/// Removes a trailing " at byte N line L column C" from a yaml-rust2 message.
fn strip_position(message: &str) -> &str {
    if let Some((head, tail)) = message.rsplit_once(" at byte ") {
        let words: Vec<&str> = tail.split(' ').collect();
        let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
        if let [n, "line", l, "column", c] = words.as_slice()
            && numeric(n)
            && numeric(l)
            && numeric(c)
        {
            return head;
        }
    }
    message
}

/// Resolves a plain scalar with the YAML 1.2 core schema. `None` for an integer that does not
/// fit in an `i64`.
fn resolve_plain(s: &str) -> Option<Value> {
    Some(match s {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Value::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => Value::Float(f64::NAN),
        _ => {
            let digits =
                |t: &str, radix: u32| !t.is_empty() && t.chars().all(|c| c.is_digit(radix));
            if let Some(hex) = s.strip_prefix("0x").filter(|t| digits(t, 16)) {
                return i64::from_str_radix(hex, 16).ok().map(Value::Int);
            }
            if let Some(oct) = s.strip_prefix("0o").filter(|t| digits(t, 8)) {
                return i64::from_str_radix(oct, 8).ok().map(Value::Int);
            }
            let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
            if digits(unsigned, 10) {
                return s.parse::<i64>().ok().map(Value::Int);
            }
            if is_core_float(unsigned) {
                return Some(
                    s.parse::<f64>()
                        .map_or_else(|_| Value::Str(s.to_owned()), Value::Float),
                );
            }
            Value::Str(s.to_owned())
        }
    })
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, the core schema's float without its sign.
fn is_core_float(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => {
            all_digits(int) && all_digits(frac) && !(int.is_empty() && frac.is_empty())
        }
        None => !mantissa.is_empty() && all_digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    mantissa_ok && exponent_ok && (mantissa.contains('.') || exponent.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(src: &str) -> Node {
        match parse(src) {
            Ok(node) => node,
            Err(e) => panic!("unexpected error {e} in {src:?}"),
        }
    }

    fn parse_err(src: &str) -> YamlError {
        match parse(src) {
            Ok(node) => panic!("expected an error for {src:?}, got {node:?}"),
            Err(e) => e,
        }
    }

    /// The source text a span covers.
    fn text(src: &str, span: Span) -> &str {
        &src[span.start.offset..span.end.offset]
    }

    /// (line, col) of a span's start and end.
    fn lc(span: Span) -> ((u32, u32), (u32, u32)) {
        (
            (span.start.line, span.start.col),
            (span.end.line, span.end.col),
        )
    }

    fn entry<'a>(node: &'a Node, key: &str) -> (&'a Node, &'a Node) {
        let map = node.as_map().expect("a map");
        let (k, v) = map
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .expect("the key");
        (k, v)
    }

    #[test]
    fn block_map_spans() {
        let src = "name: cancel\nargs:\n  id:\n    type: strng\n";
        let root = parse_ok(src);
        assert_eq!(lc(root.span).0, (1, 1));
        let (k, v) = entry(&root, "name");
        assert_eq!(lc(k.span), ((1, 1), (1, 5)));
        assert_eq!(text(src, k.span), "name");
        assert_eq!(lc(v.span), ((1, 7), (1, 13)));
        assert_eq!(text(src, v.span), "cancel");
        let (_, args) = entry(&root, "args");
        assert_eq!(lc(args.span).0, (3, 3));
        let (id_key, id) = entry(args, "id");
        assert_eq!(lc(id_key.span), ((3, 3), (3, 5)));
        assert_eq!(lc(id.span).0, (4, 5));
        let (tk, tv) = entry(id, "type");
        assert_eq!(text(src, tk.span), "type");
        assert_eq!(lc(tv.span), ((4, 11), (4, 16)));
        assert_eq!(text(src, tv.span), "strng");
        assert_eq!(text(src, id.span), "type: strng");
        assert_eq!(text(src, root.span), src.trim_end());
    }

    #[test]
    fn flow_spans() {
        let src = "id: { type: string, optional: true }\ntags: [a, \"b c\", 'd''e']\nempty: {}\n";
        let root = parse_ok(src);
        let (_, id) = entry(&root, "id");
        assert_eq!(text(src, id.span), "{ type: string, optional: true }");
        let (k, v) = entry(id, "optional");
        assert_eq!(lc(k.span), ((1, 21), (1, 29)));
        assert_eq!(v.value, Value::Bool(true));
        assert_eq!(text(src, v.span), "true");
        let (_, tags) = entry(&root, "tags");
        assert_eq!(text(src, tags.span), "[a, \"b c\", 'd''e']");
        let items = tags.as_seq().expect("a list");
        assert_eq!(
            items.iter().map(|n| text(src, n.span)).collect::<Vec<_>>(),
            ["a", "\"b c\"", "'d''e'"]
        );
        assert_eq!(items[2].as_str(), Some("d'e"));
        assert!(items[1].quoted && !items[0].quoted);
        let (_, empty) = entry(&root, "empty");
        assert_eq!(text(src, empty.span), "{}");
        assert_eq!(empty.as_map().map(<[_]>::len), Some(0));
    }

    #[test]
    fn nested_block_lists() {
        let src = "a:\n  - x\n  - - y\n    - z\n  - k: 1\n    j: 2\nb:\n- &q one\n-\n- \"two\"\n";
        let root = parse_ok(src);
        let (_, a) = entry(&root, "a");
        assert_eq!(lc(a.span).0, (2, 3));
        let items = a.as_seq().expect("a list");
        assert_eq!(text(src, items[1].span), "- y\n    - z");
        assert_eq!(text(src, items[2].span), "k: 1\n    j: 2");
        let (_, b) = entry(&root, "b");
        // A list that is not indented under its key starts at its first `-`.
        assert_eq!(lc(b.span).0, (8, 1));
        let items = b.as_seq().expect("a list");
        assert_eq!(text(src, items[0].span), "one");
        assert_eq!(items[1].value, Value::Null);
        assert_eq!(lc(items[1].span), ((9, 2), (9, 2)));
        assert_eq!(text(src, items[2].span), "\"two\"");
    }

    #[test]
    fn empty_values_sit_after_their_colon() {
        let src = "k:\nj: # nothing\nl: ~\n";
        let root = parse_ok(src);
        assert_eq!(lc(entry(&root, "k").1.span), ((1, 3), (1, 3)));
        assert_eq!(lc(entry(&root, "j").1.span), ((2, 3), (2, 3)));
        assert_eq!(text(src, entry(&root, "l").1.span), "~");
    }

    #[test]
    fn scalar_resolution() {
        let cases: &[(&str, Value)] = &[
            ("null", Value::Null),
            ("Null", Value::Null),
            ("NULL", Value::Null),
            ("~", Value::Null),
            ("", Value::Null),
            ("true", Value::Bool(true)),
            ("True", Value::Bool(true)),
            ("FALSE", Value::Bool(false)),
            ("0", Value::Int(0)),
            ("-17", Value::Int(-17)),
            ("+5", Value::Int(5)),
            ("007", Value::Int(7)),
            ("0x1F", Value::Int(31)),
            ("0o17", Value::Int(15)),
            ("9223372036854775807", Value::Int(i64::MAX)),
            ("-9223372036854775808", Value::Int(i64::MIN)),
            ("1.5", Value::Float(1.5)),
            ("-0.25", Value::Float(-0.25)),
            ("1e3", Value::Float(1000.0)),
            ("2.5E-1", Value::Float(0.25)),
            (".5", Value::Float(0.5)),
            ("1.", Value::Float(1.0)),
            (".inf", Value::Float(f64::INFINITY)),
            ("-.inf", Value::Float(f64::NEG_INFINITY)),
            ("yes", Value::Str("yes".into())),
            ("no", Value::Str("no".into())),
            ("on", Value::Str("on".into())),
            ("off", Value::Str("off".into())),
            ("0x", Value::Str("0x".into())),
            ("1_000", Value::Str("1_000".into())),
            ("1.2.3", Value::Str("1.2.3".into())),
            ("e3", Value::Str("e3".into())),
            ("nan", Value::Str("nan".into())),
            ("inf", Value::Str("inf".into())),
            ("0b101", Value::Str("0b101".into())),
            ("-0x10", Value::Str("-0x10".into())),
        ];
        for (text, want) in cases {
            let root = parse_ok(&format!("v: {text}\n"));
            let got = &entry(&root, "v").1.value;
            assert_eq!(got, want, "resolving {text:?}");
        }
        let root = parse_ok("v: .nan\n");
        assert!(matches!(entry(&root, "v").1.value, Value::Float(f) if f.is_nan()));
    }

    #[test]
    fn quoted_block_and_tagged_scalars_are_strings() {
        let src = "a: \"42\"\nb: 'true'\nc: !!str 12\nd: |\n  x: 1\n  y\ne: >-\n  folded\n  text\n\n# after\nf: |+\n\n";
        let root = parse_ok(src);
        let (_, a) = entry(&root, "a");
        assert_eq!((a.as_str(), a.quoted), (Some("42"), true));
        assert_eq!(text(src, a.span), "\"42\"");
        assert_eq!(entry(&root, "b").1.as_str(), Some("true"));
        let (_, c) = entry(&root, "c");
        assert_eq!((c.as_str(), c.quoted), (Some("12"), false));
        assert_eq!(text(src, c.span), "12");
        let (_, d) = entry(&root, "d");
        assert_eq!((d.as_str(), d.quoted), (Some("x: 1\ny\n"), false));
        assert_eq!(text(src, d.span), "|\n  x: 1\n  y");
        let (_, e) = entry(&root, "e");
        assert_eq!(e.as_str(), Some("folded text"));
        assert_eq!(text(src, e.span), ">-\n  folded\n  text");
        let (_, f) = entry(&root, "f");
        assert_eq!(f.as_str(), Some("\n"));
        assert_eq!(text(src, f.span), "|+");
    }

    #[test]
    fn integer_out_of_range() {
        let e = parse_err("n: 9223372036854775808\n");
        assert_eq!(e.message, "integer out of range");
        assert_eq!(lc(e.span), ((1, 4), (1, 23)));
        assert_eq!(
            parse_err("n: 0x8000000000000000\n").message,
            "integer out of range"
        );
    }

    #[test]
    fn duplicate_key() {
        let src = "name: a\nx: 1\nname: b\n";
        let e = parse_err(src);
        assert_eq!(e.message, "duplicate key `name` (first defined on line 1)");
        assert_eq!(lc(e.span), ((3, 1), (3, 5)));
        assert_eq!(text(src, e.span), "name");
        let e = parse_err("m: {a: 1, 'a': 2}\n");
        assert_eq!(e.message, "duplicate key `a` (first defined on line 1)");
        assert_eq!(lc(e.span).0, (1, 11));
        // A string and an integer are different keys.
        assert!(parse("1: a\n'1': b\n").is_ok());
    }

    #[test]
    fn syntax_error_position() {
        let e = parse_err("a: [1, 2\n");
        assert_eq!(
            e.message,
            "while parsing a flow sequence, expected ',' or ']'"
        );
        assert_eq!(
            e.span.start,
            Pos {
                line: 2,
                col: 1,
                offset: 9
            }
        );
        assert_eq!(e.span.end, e.span.start);
        let e = parse_err("k: 1\nk2: \"open\n");
        assert!(e.message.contains("quoted scalar"), "{}", e.message);
        assert_eq!((e.span.start.line, e.span.start.col), (2, 5));
        let e = parse_err("a: b\n  c: d\n");
        assert_eq!(e.span.start.line, 2);
    }

    #[test]
    fn aliases_copy_the_anchored_node() {
        let src = "base: &b\n  type: string\ncopy: *b\nname: &n x\nagain: *n\n";
        let root = parse_ok(src);
        let (_, base) = entry(&root, "base");
        let (_, copy) = entry(&root, "copy");
        assert_eq!(copy, base);
        assert_eq!(lc(copy.span).0, (2, 3));
        let (_, again) = entry(&root, "again");
        assert_eq!(again.as_str(), Some("x"));
        assert_eq!(text(src, again.span), "x");
        let e = parse_err("a: &x [1, *x]\n");
        assert_eq!(e.message, "alias `*x` refers to a node that contains it");
        assert_eq!(text("a: &x [1, *x]\n", e.span), "*x");
    }

    #[test]
    fn alias_expansion_is_bounded() {
        let mut src = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        let mut prev = 'a';
        for name in 'b'..='h' {
            src.push_str(&format!("{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
            prev = name;
        }
        assert!(
            parse_err(&src)
                .message
                .starts_with("aliases expand to too many nodes")
        );
    }

    #[test]
    fn deep_nesting_is_an_error() {
        // yaml-rust2 has a recursion limit of its own; either limit gives a clean error.
        for (open, close) in [("[", "]"), ("{", "}"), ("{a: ", "}"), ("- ", "")] {
            let src = format!("{}{}", open.repeat(100_000), close.repeat(100_000));
            assert_eq!(parse_err(&src).span.start.line, 1, "{open}");
        }
        let src = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&src).is_ok(), "{MAX_DEPTH} levels are read");
        let mut src = String::new();
        for depth in 0..1000 {
            src.push_str(&format!("{}k:\n", " ".repeat(depth)));
        }
        assert!(parse(&src).is_err());
    }

    #[test]
    fn several_documents() {
        let e = parse_err("a: 1\n---\nb: 2\n");
        assert_eq!(e.message, "expected one YAML document, found several");
        assert_eq!(lc(e.span), ((2, 1), (2, 4)));
        let e = parse_err("a: 1\n...\nb: 2\n");
        assert_eq!(lc(e.span).0, (3, 1));
        // One explicit document is fine.
        assert_eq!(
            parse_ok("---\na: 1\n...\n").get("a").map(|n| &n.value),
            Some(&Value::Int(1))
        );
    }

    #[test]
    fn empty_documents() {
        let origin = Span {
            start: Pos {
                line: 1,
                col: 1,
                offset: 0,
            },
            end: Pos {
                line: 1,
                col: 1,
                offset: 0,
            },
        };
        for src in ["", "# only a comment\n", "\n\n"] {
            let node = parse_ok(src);
            assert_eq!((node.value, node.span), (Value::Null, origin), "{src:?}");
        }
    }

    #[test]
    fn columns_count_characters() {
        let src = "héllo: wörld\n\"ключ\": значение\n";
        let root = parse_ok(src);
        let (k, v) = entry(&root, "héllo");
        assert_eq!(lc(k.span), ((1, 1), (1, 6)));
        assert_eq!(lc(v.span), ((1, 8), (1, 13)));
        assert_eq!(text(src, v.span), "wörld");
        let (_, v) = entry(&root, "ключ");
        assert_eq!(lc(v.span), ((2, 9), (2, 17)));
        assert_eq!(text(src, v.span), "значение");
        let e = parse_err("é: [1\n");
        assert_eq!(
            e.span.start,
            Pos {
                line: 2,
                col: 1,
                offset: 7
            }
        );
    }

    #[test]
    fn crlf_tabs_and_bom() {
        let src = "\u{feff}a: x\tz\r\nb: [1,\r\n  2]\r\nc: |\r\n  t\r\n";
        let root = parse_ok(src);
        let (k, v) = entry(&root, "a");
        assert_eq!(lc(k.span), ((1, 1), (1, 2)));
        assert_eq!(k.span.start.offset, 3);
        assert_eq!(v.as_str(), Some("x\tz"));
        assert_eq!(text(src, v.span), "x\tz");
        let (_, b) = entry(&root, "b");
        assert_eq!(text(src, b.span), "[1,\r\n  2]");
        assert_eq!(lc(b.as_seq().expect("a list")[1].span).0, (3, 3));
        let (_, c) = entry(&root, "c");
        assert_eq!(c.as_str(), Some("t\n"));
        assert_eq!(text(src, c.span), "|\r\n  t");
        // A tab as the only separator after `:` is accepted.
        let src = "a:\tx\nb:\t\t- 1\n";
        let e = parse_err(src);
        assert_eq!(lc(e.span).0.0, 2);
        let root = parse_ok("a:\tx\nb: \t[1]\nc:\t'q'\n");
        assert_eq!(lc(entry(&root, "a").1.span), ((1, 4), (1, 5)));
        assert_eq!(entry(&root, "c").1.as_str(), Some("q"));
    }

    #[test]
    fn every_tab_separator_is_repaired_in_one_pass() {
        // More separators than the old one-repair-per-parse loop allowed (200).
        let src: String = (0..300)
            .map(|i| format!("f{i}:\t{{ type:\tstring }}\n"))
            .collect();
        let root = parse_ok(&src);
        assert_eq!(root.as_map().map(<[_]>::len), Some(300));
        let (_, f299) = entry(&root, "f299");
        assert_eq!(lc(entry(f299, "type").1.span).0, (300, 15));
        // Tabs after a `:` inside strings are content and stay, next to a repaired separator.
        let src = "a: \"x:\ty\"\nb:\t'p:\tq'\nc: |\n  k:\tv\nd:\t1\n";
        let root = parse_ok(src);
        assert_eq!(entry(&root, "a").1.as_str(), Some("x:\ty"));
        assert_eq!(entry(&root, "b").1.as_str(), Some("p:\tq"));
        assert_eq!(entry(&root, "c").1.as_str(), Some("k:\tv\n"));
        assert_eq!(entry(&root, "d").1.value, Value::Int(1));
        // What the repair cannot fix is still reported where it is.
        let e = parse_err("a:\tx\nb: [1\n");
        assert_eq!(lc(e.span).0.0, 3);
    }

    #[test]
    fn multi_line_plain_scalar() {
        let src = "d: a long\n  description\n\n  here\nn: 1\n";
        let root = parse_ok(src);
        let (_, d) = entry(&root, "d");
        assert_eq!(d.as_str(), Some("a long description\nhere"));
        assert_eq!(text(src, d.span), "a long\n  description\n\n  here");
    }

    #[test]
    fn helpers_and_json() {
        let src = "s: x\ni: 3\nf: 1.5\nn: ~\nb: false\nl: [1, .inf]\nm: {1: a, true: b, null: c}\n";
        let root = parse_ok(src);
        let kinds: Vec<_> = root
            .as_map()
            .expect("a map")
            .iter()
            .map(|(_, v)| v.kind())
            .collect();
        assert_eq!(
            kinds,
            [
                "string", "integer", "number", "null", "boolean", "list", "map"
            ]
        );
        assert_eq!(root.get("s").and_then(Node::as_str), Some("x"));
        assert!(root.get("missing").is_none());
        assert!(root.get("s").and_then(|s| s.get("x")).is_none());
        assert_eq!(
            root.to_json(),
            serde_json::json!({
                "s": "x", "i": 3, "f": 1.5, "n": null, "b": false,
                "l": [1, null], "m": {"1": "a", "true": "b", "null": "c"}
            })
        );
        assert_eq!(
            serde_json::to_string(&root.to_json()).ok().as_deref(),
            Some(
                r#"{"s":"x","i":3,"f":1.5,"n":null,"b":false,"l":[1,null],"m":{"1":"a","true":"b","null":"c"}}"#
            )
        );
    }

    #[test]
    fn nul_is_refused() {
        let e = parse_err("a: b\0c\n");
        assert_eq!(
            e.span.start,
            Pos {
                line: 1,
                col: 5,
                offset: 4
            }
        );
    }
}
