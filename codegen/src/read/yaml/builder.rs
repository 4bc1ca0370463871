//! The tree built from the parser's events, one event at a time with an explicit stack (no
//! recursion), within the limits hostile input needs: nesting depth, the nodes aliases may
//! copy, one document. Duplicate keys are refused here, with the span of the repeat and the
//! line of the first.

use std::borrow::Cow;
use std::collections::HashMap;

use saphyr_parser::{Event, Parser, ScalarStyle, ScanError, Span as Marks, Tag};

use crate::read::yaml::keys::Keys;
use crate::read::yaml::node::{Node, Value, YamlError, key_text};
use crate::read::yaml::scalar::resolve;
use crate::read::yaml::text::Text;
use crate::source::Span;

/// Deepest nesting of maps and lists accepted: far more than a spec within the schema depth
/// limit (`dialect::MAX_DEPTH`, 32 levels) can use, and a bound on every recursion over the
/// tree and over the fields read from it.
pub const MAX_DEPTH: usize = 128;
/// Most nodes that aliases may copy in one document (guards against "billion laughs").
const MAX_ALIAS_NODES: usize = 100_000;

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

enum Collection {
    Seq(Vec<Node>),
    Map {
        entries: Vec<(Node, Node)>,
        pending_key: Option<Node>,
        keys: Keys,
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

/// Builds the tree of one text from its events.
pub struct Builder<'s> {
    text: Text<'s>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Anchored>,
    /// The byte after the last token accounted for; empty scalars and block scalar headers,
    /// which the parser does not mark, are looked for from there.
    cursor: usize,
    /// Nodes copied by aliases so far.
    alias_nodes: usize,
    root: Option<Node>,
}

impl<'s> Builder<'s> {
    pub fn new(text: Text<'s>) -> Self {
        Builder {
            text,
            stack: Vec::new(),
            anchors: HashMap::new(),
            cursor: 0,
            alias_nodes: 0,
            root: None,
        }
    }

    fn scan_error(&self, e: &ScanError) -> YamlError {
        let b = self.text.marker_byte(e.marker());
        self.text.error(b, b, e.info())
    }

    /// The tree of the text's only document; an empty document is a null at line 1, column 1.
    pub fn run(mut self) -> Result<Node, YamlError> {
        let mut parser = Parser::new_from_str(self.text.src());
        let mut documents = 0;
        while let Some(next) = parser.next_event() {
            let (event, marks) = next.map_err(|e| self.scan_error(&e))?;
            let (start, end) = self.bytes(&marks);
            match event {
                Event::StreamEnd => break,
                Event::Nothing | Event::StreamStart | Event::DocumentEnd => {}
                Event::DocumentStart(explicit) => {
                    if documents > 0 {
                        // An explicit start is its `---`; an implicit one, the document's
                        // first token, is pointed at without covering it.
                        let end = if explicit { end } else { start };
                        return Err(self.text.error(
                            start,
                            end,
                            "expected one YAML document, found several",
                        ));
                    }
                    documents += 1;
                    if explicit {
                        self.cursor = end;
                    }
                }
                Event::Alias(id) => self.alias(id, start, end)?,
                Event::Scalar(value, style, anchor, tag) => {
                    self.scalar(value, style, anchor, tag.as_deref(), (start, end))?;
                }
                Event::SequenceStart(anchor, tag) => {
                    let start = self.node_start(start, anchor != 0 || tag.is_some());
                    self.open(anchor, false, start)?;
                }
                Event::MappingStart(anchor, _) => {
                    // A block map is marked at its first key, and the properties there may
                    // be the key's: they are skipped either way.
                    let start = self.node_start(start, true);
                    self.open(anchor, true, start)?;
                }
                Event::SequenceEnd | Event::MappingEnd => self.close(start)?,
            }
        }
        if let Some(frame) = self.stack.last() {
            let b = frame.start;
            return Err(self.text.error(b, b, "unexpected end of the document"));
        }
        match self.root.take() {
            Some(root) => Ok(root),
            None => Ok(Node {
                value: Value::Null,
                span: self.text.span(0, 0),
                quoted: false,
            }),
        }
    }

    /// The bytes an event's marks point at.
    fn bytes(&self, marks: &Marks) -> (usize, usize) {
        let start = self.text.marker_byte(&marks.start);
        let end = self.text.marker_byte(&marks.end);
        (start, end.max(start))
    }

    /// Where a node marked at `start` starts: after its anchor and tag, which the parser's
    /// span includes and ours does not.
    fn node_start(&self, start: usize, has_properties: bool) -> usize {
        if has_properties {
            self.text.after_properties(start)
        } else {
            start
        }
    }

    fn open(&mut self, anchor: usize, map: bool, at: usize) -> Result<(), YamlError> {
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.text.error(
                at,
                at,
                format!("nesting too deep (more than {MAX_DEPTH} levels)"),
            ));
        }
        let flow = self.text.char_at(at) == Some(if map { '{' } else { '[' });
        let start = if flow || map {
            at
        } else {
            self.text.dash_before(at)
        };
        let collection = if map {
            Collection::Map {
                entries: Vec::new(),
                pending_key: None,
                keys: Keys::default(),
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
            self.cursor = at + 1;
        } else if !map {
            self.cursor = start;
        }
        Ok(())
    }

    /// Ends the innermost collection, whose end event the parser marks from `start` (its `]`
    /// or `}` in flow style; the next token in block style).
    fn close(&mut self, start: usize) -> Result<(), YamlError> {
        let Some(frame) = self.stack.pop() else {
            return Err(self
                .text
                .error(start, start, "unexpected end of a collection"));
        };
        let end = if frame.flow {
            // The parser's span reaches over the blanks and the comment after the bracket.
            let end = match self.text.char_at(start) {
                Some(']' | '}') => start + 1,
                _ => start,
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
        let built = Built {
            node: Node {
                value,
                span: self.text.span(frame.start, end),
                quoted: false,
            },
            start: frame.start,
            end,
            size: frame.size,
            height: frame.height,
        };
        self.finish(built, frame.anchor)
    }

    fn alias(&mut self, id: usize, start: usize, end: usize) -> Result<(), YamlError> {
        self.cursor = end;
        let name = &self.text.src()[start..end];
        // An anchor is registered when its node is complete, so an alias inside that node finds
        // nothing to copy.
        let Some(anchored) = self.anchors.get(&id) else {
            return Err(self.text.error(
                start,
                end,
                format!("alias `{name}` refers to a node that contains it"),
            ));
        };
        let (size, height) = (anchored.size, anchored.height);
        if self.stack.len() + height > MAX_DEPTH {
            return Err(self.text.error(
                start,
                end,
                format!("nesting too deep (more than {MAX_DEPTH} levels)"),
            ));
        }
        let alias_nodes = self.alias_nodes.saturating_add(size);
        if alias_nodes > MAX_ALIAS_NODES {
            return Err(self.text.error(
                start,
                end,
                format!("aliases expand to too many nodes (more than {MAX_ALIAS_NODES})"),
            ));
        }
        let node = anchored.node.clone();
        self.alias_nodes = alias_nodes;
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

    /// A scalar that the parser marks at `marks`: from its anchor or tag, if it has one; from
    /// its content, if it is a block scalar with content; anywhere near it, if it is an empty
    /// plain scalar.
    fn scalar(
        &mut self,
        text: Cow<'_, str>,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<&Tag>,
        marks: (usize, usize),
    ) -> Result<(), YamlError> {
        let has_properties = anchor != 0 || tag.is_some();
        let marked = self.node_start(marks.0, has_properties);
        let (start, end) = match style {
            ScalarStyle::Plain if text.is_empty() => {
                let at = self.text.empty_scalar_pos(self.cursor);
                (at, at)
            }
            ScalarStyle::Plain => (marked, marks.1),
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                (marked, self.text.quoted_end(marked, marks.1))
            }
            ScalarStyle::Literal | ScalarStyle::Folded => {
                let header = if has_properties {
                    Some(marked).filter(|&h| matches!(self.text.char_at(h), Some('|' | '>')))
                } else {
                    self.text.block_header(self.cursor, marked)
                };
                self.block_extent(header, (marked, marks.1), text.trim().is_empty())
            }
        };
        self.cursor = end.max(self.cursor);
        let quoted = matches!(style, ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted);
        let Some(value) = resolve(text, style, tag) else {
            return Err(self.text.error(start, end, "integer out of range"));
        };
        let built = Built {
            node: Node {
                value,
                span: self.text.span(start, end),
                quoted,
            },
            start,
            end,
            size: 1,
            height: 1,
        };
        self.finish(built, anchor)
    }

    /// The extent of a block scalar whose header (`|` or `>`) is at `header` and that the
    /// parser marks from `start` (the header or its content) to `end` (the start of the line
    /// after its trailing blank lines): from its header to the end of its last line that is not
    /// blank, or to the end of its header when it has no content.
    fn block_extent(
        &self,
        header: Option<usize>,
        (start, end): (usize, usize),
        blank: bool,
    ) -> (usize, usize) {
        let Some(header) = header else {
            return (start, self.text.last_line_end(start, end));
        };
        let header_end = self.text.header_end(header);
        if blank {
            return (header, header_end);
        }
        (header, self.text.last_line_end(header_end, end))
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
        let first = match &mut frame.collection {
            Collection::Seq(items) => {
                items.push(built.node);
                return Ok(());
            }
            Collection::Map {
                entries,
                pending_key,
                keys,
            } => {
                if let Some(key) = pending_key.take() {
                    entries.push((key, built.node));
                    return Ok(());
                }
                if !frame.flow && entries.is_empty() {
                    frame.start = frame.start.min(built.start);
                }
                match keys
                    .repeated(entries, &built.node.value)
                    .and_then(|i| entries.get(i))
                {
                    Some((first, _)) => first.span.start.line,
                    None => {
                        *pending_key = Some(built.node);
                        return Ok(());
                    }
                }
            }
        };
        let message = format!(
            "duplicate key `{}` (first defined on line {first})",
            key_text(&built.node)
        );
        Err(self.text.error(built.start, built.end, message))
    }
}
