//! Lines and columns of a source text: where each line starts and ends, and byte offsets turned
//! into 1-based columns that count characters, and back.
//!
//! Every lookup is a binary search over tables built once, so converting any number of positions
//! in any order stays linear in the text: nothing rescans a line from its start (a file written
//! on one line, 80,000 maps long, costs what a short one does per position). Lines end at `\n`,
//! `\r\n` or `\r`, as the YAML parser counts them. This module knows nothing about YAML or spans.

/// The line and character tables of one text.
#[derive(Debug, Clone, Default)]
pub struct Lines {
    /// Byte offset of the start of every line (the first is 0).
    starts: Vec<usize>,
    /// Byte offset of the end of every line, before its line break.
    ends: Vec<usize>,
    /// Every character longer than one byte, in order.
    wide: Vec<Wide>,
}

/// A character longer than one byte.
#[derive(Debug, Clone, Copy)]
struct Wide {
    /// Its byte offset.
    offset: usize,
    /// How many characters come before it.
    index: usize,
    /// The bytes beyond one of this character and of every one before it, in total.
    extra: usize,
}

impl Lines {
    /// The tables of `text`.
    pub fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut lines = Lines {
            starts: vec![0],
            ends: Vec::new(),
            wide: Vec::new(),
        };
        let mut extra = 0;
        for (i, c) in text.char_indices() {
            if c.len_utf8() > 1 {
                let index = i - extra;
                extra += c.len_utf8() - 1;
                lines.wide.push(Wide {
                    offset: i,
                    index,
                    extra,
                });
            }
            let breaks = match c {
                '\r' if bytes.get(i + 1) == Some(&b'\n') => false,
                '\r' | '\n' => true,
                _ => false,
            };
            if breaks {
                let end = if c == '\n' && i > 0 && bytes[i - 1] == b'\r' {
                    i - 1
                } else {
                    i
                };
                lines.ends.push(end);
                lines.starts.push(i + 1);
            }
        }
        lines.ends.push(text.len());
        lines
    }

    /// How many lines the text has (an empty text has one).
    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// The 0-based line that byte `b` is on.
    pub fn index_of(&self, b: usize) -> usize {
        self.starts.partition_point(|&s| s <= b).saturating_sub(1)
    }

    /// Where line `idx` (0-based) starts.
    pub fn start(&self, idx: usize) -> usize {
        self.starts[idx.min(self.starts.len() - 1)]
    }

    /// Where line `idx` (0-based) ends, before its line break.
    pub fn end(&self, idx: usize) -> usize {
        self.ends[idx.min(self.ends.len() - 1)]
    }

    /// The text of line `idx` (0-based), without its line break; `None` past the last line.
    pub fn line<'t>(&self, text: &'t str, idx: usize) -> Option<&'t str> {
        (idx < self.count()).then(|| &text[self.start(idx)..self.end(idx)])
    }

    /// The 1-based column of byte `b`, in characters.
    pub fn column(&self, b: usize) -> usize {
        let start = self.start(self.index_of(b));
        self.chars_before(b) - self.chars_before(start) + 1
    }

    /// The byte at 1-based column `col` of line `idx`, or the line's end when it is shorter.
    pub fn byte_at(&self, idx: usize, col: usize) -> usize {
        let start = self.start(idx);
        let char_index = self.chars_before(start) + col.saturating_sub(1);
        self.byte_of_char(char_index).clamp(start, self.end(idx))
    }

    /// How many characters come before byte `b`.
    fn chars_before(&self, b: usize) -> usize {
        match self.wide.partition_point(|w| w.offset < b) {
            0 => b,
            k => b - self.wide[k - 1].extra,
        }
    }

    /// The byte offset of the character with 0-based index `c`.
    fn byte_of_char(&self, c: usize) -> usize {
        match self.wide.partition_point(|w| w.index < c) {
            0 => c,
            k => c + self.wide[k - 1].extra,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Lines;

    /// (line, column) of every character boundary, computed the slow way.
    fn slow(text: &str) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        let (mut line, mut col) = (0, 1);
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            out.push((i, line, col));
            if c == '\n' || (c == '\r' && chars.peek().is_none_or(|&(_, n)| n != '\n')) {
                line += 1;
                col = 1;
            } else if c != '\r' {
                col += 1;
            }
        }
        out.push((text.len(), line, col));
        out
    }

    #[test]
    fn columns_and_bytes_agree_with_a_scan() {
        for text in [
            "",
            "a",
            "ab\ncd",
            "héllo: wörld\n\"ключ\": значение\n",
            "a\r\nb\rc\n\nd",
            "🙂x\r\n🙂🙂y",
        ] {
            let lines = Lines::new(text);
            for (b, line, col) in slow(text) {
                if text[..b].ends_with('\r') && text[b..].starts_with('\n') {
                    continue; // the `\n` of `\r\n` has no column of its own
                }
                assert_eq!(lines.index_of(b), line, "{text:?} byte {b}");
                assert_eq!(lines.column(b), col, "{text:?} byte {b}");
                assert_eq!(lines.byte_at(line, col), b, "{text:?} {line}:{col}");
            }
        }
    }

    #[test]
    fn lines_without_their_breaks() {
        let text = "one\r\ntwo\rthree\n";
        let lines = Lines::new(text);
        let all: Vec<_> = (0..lines.count())
            .map(|i| lines.line(text, i).unwrap_or("?"))
            .collect();
        assert_eq!(all, ["one", "two", "three", ""]);
        assert_eq!(lines.line(text, 4), None);
        assert_eq!(
            lines.byte_at(0, 99),
            3,
            "a column past the end is the line's end"
        );
    }
}
