//! Positions in the text being parsed. Byte offsets become [`Pos`] and [`Span`], and the
//! parser's markers become byte offsets. Some places are read from the text itself, where the
//! parser's spans are not what a diagnostic should point at: where a node starts after its
//! `&anchor` and `!tag`, the `-` that starts a block list, where a quoted scalar's closing
//! quote is, a block scalar's `|` or `>` header and the end of its last line, and where an
//! empty scalar sits. Knows nothing of the tree.

use saphyr_parser::Marker;

use crate::read::yaml::node::YamlError;
use crate::source::{Lines, Pos, Span};

/// The text being parsed, with its line tables to turn byte offsets and markers into positions.
pub struct Text<'s> {
    src: &'s str,
    /// Bytes before `src` in the caller's string (a byte order mark).
    base: usize,
    lines: Lines,
}

impl<'s> Text<'s> {
    pub fn new(src: &'s str, base: usize) -> Self {
        Text {
            src,
            base,
            lines: Lines::new(src),
        }
    }

    /// The text itself.
    pub fn src(&self) -> &'s str {
        self.src
    }

    /// The character at byte `b`, if any.
    pub fn char_at(&self, b: usize) -> Option<char> {
        self.src.get(b..).and_then(|s| s.chars().next())
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
    pub fn pos(&self, b: usize) -> Pos {
        let b = self.clamp(b);
        let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Pos {
            line: to_u32(self.lines.index_of(b) + 1),
            col: to_u32(self.lines.column(b)),
            offset: self.base + b,
        }
    }

    /// The span from byte `start` to byte `end` (never before `start`).
    pub fn span(&self, start: usize, end: usize) -> Span {
        let start = self.pos(start);
        let end = self.pos(end);
        Span {
            start,
            end: end.max(start),
        }
    }

    /// An error with `message` on the bytes from `start` to `end`.
    pub fn error(&self, start: usize, end: usize, message: impl Into<String>) -> YamlError {
        YamlError {
            message: message.into(),
            span: self.span(start, end),
        }
    }

    /// The byte a parser marker points at. A marker's index counts characters, so it is
    /// converted from its line (1-based) and character column (0-based) instead.
    pub fn marker_byte(&self, m: &Marker) -> usize {
        let idx = m.line().clamp(1, self.lines.count()) - 1;
        self.lines.byte_at(idx, m.col() + 1)
    }

    /// `end` moved back over the whitespace before it, but not before `start`.
    fn trim_end(&self, start: usize, end: usize) -> usize {
        let end = self.clamp(end).max(start);
        start + self.src[start..end].trim_end_matches(is_ws).len()
    }

    /// The byte after the closing quote of the quoted scalar that starts at `b`, looked for
    /// before `limit`. The parser's span of a quoted scalar may reach past its closing quote,
    /// over the blanks and the comment that follow it.
    pub fn quoted_end(&self, b: usize, limit: usize) -> usize {
        let Some(quote) = self.char_at(b).filter(|&q| q == '"' || q == '\'') else {
            return self.trim_end(b, limit);
        };
        let bytes = self.src.as_bytes();
        let limit = self.clamp(limit);
        let mut i = b + 1;
        while i < limit {
            match bytes[i] {
                b'\\' if quote == '"' => i += 2,
                b'\'' if quote == '\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
                c if c == quote as u8 => return i + 1,
                _ => i += 1,
            }
        }
        limit
    }

    /// Where the node whose properties (`&anchor`, `!tag`) start at `b` starts itself, after
    /// them and the blanks and comments that follow them.
    pub fn after_properties(&self, b: usize) -> usize {
        let mut p = b;
        while matches!(self.char_at(p), Some('&' | '!')) {
            p = self.skip_trivia(self.property_end(p));
        }
        p
    }

    /// The byte after the anchor or tag that starts at `b`.
    fn property_end(&self, b: usize) -> usize {
        // A verbatim tag (`!<…>`) may hold flow indicators.
        if self.src[b..].starts_with("!<")
            && let Some(close) = self.src[b..].find('>')
        {
            return b + close + 1;
        }
        let mut p = b;
        while let Some(c) = self.char_at(p) {
            if is_ws(c) || is_flow_indicator(c) {
                break;
            }
            p += c.len_utf8();
        }
        p
    }

    /// A block list is marked at its first item when it is not indented under its key; its
    /// span should start at the `-` before that.
    pub fn dash_before(&self, b: usize) -> usize {
        if self.char_at(b) == Some('-') {
            return b;
        }
        let line_start = self.line_start(b);
        let mut i = b;
        while i > line_start {
            match self.char_before(i) {
                Some(' ' | '\t') => i -= 1,
                Some('-') => return i - 1,
                _ => break,
            }
        }
        b
    }

    /// Skips whitespace, comments, document markers and directives from `b`.
    fn skip_trivia(&self, mut b: usize) -> usize {
        let src = self.src;
        while let Some(c) = self.char_at(b) {
            let at_line_start = b == self.line_start(b);
            if is_ws(c) {
                b += 1;
            } else if (c == '#' && self.char_before(b).is_none_or(is_ws))
                || (at_line_start && c == '%')
            {
                // A comment, or a directive.
                b = self.line_end(b);
            } else if at_line_start
                && (src[b..].starts_with("---") || src[b..].starts_with("..."))
                && self.char_at(b + 3).is_none_or(is_ws)
            {
                b += 3;
            } else {
                break;
            }
        }
        b
    }

    /// Where an empty plain scalar (`key:` with nothing after it) is, given `cursor`, the byte
    /// after the last token accounted for: just after the `:`, `-` or `?` indicator that
    /// follows and any anchor or tag, or else at `cursor`. The parser marks such a scalar at
    /// its indicator or at the next token, which is not where a value would be written.
    pub fn empty_scalar_pos(&self, cursor: usize) -> usize {
        let b = self.skip_trivia(cursor);
        let mut at = match self.char_at(b) {
            Some(':') => b + 1,
            Some('-' | '?') if self.char_at(b + 1).is_none_or(is_ws) => b + 1,
            _ => return cursor,
        };
        loop {
            let mut p = at;
            while matches!(self.char_at(p), Some(' ' | '\t')) {
                p += 1;
            }
            if !matches!(self.char_at(p), Some('&' | '!')) {
                return at;
            }
            at = self.property_end(p);
        }
    }

    /// The `|` or `>` of the block scalar header at or after `from` and not after `limit`,
    /// skipping comments; the parser marks a block scalar at its content, not at its header.
    pub fn block_header(&self, from: usize, limit: usize) -> Option<usize> {
        let mut i = from;
        while i <= limit {
            match self.char_at(i) {
                Some('#') if self.char_before(i).is_none_or(is_ws) => i = self.line_end(i),
                Some('|' | '>') => return Some(i),
                Some(c) => i += c.len_utf8(),
                None => return None,
            }
        }
        None
    }

    /// The byte after the block scalar header (`|`, `>-`, `|2+`…) at `header`.
    pub fn header_end(&self, header: usize) -> usize {
        let mut end = header + 1;
        while self
            .char_at(end)
            .is_some_and(|c| matches!(c, '-' | '+' | '0'..='9'))
        {
            end += 1;
        }
        end
    }

    /// The end of the last line between `start` and `end` that is not blank, or `start` if
    /// there is none. A block scalar's span ends there: the parser's reaches past its trailing
    /// blank lines, to the start of the next line.
    pub fn last_line_end(&self, start: usize, end: usize) -> usize {
        let last = self.trim_end(start, end);
        if last == start {
            return start;
        }
        self.line_end(last - 1).clamp(last, end.max(last))
    }
}

/// A YAML white space or line break character.
fn is_ws(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_flow_indicator(c: char) -> bool {
    matches!(c, ',' | '[' | ']' | '{' | '}')
}
