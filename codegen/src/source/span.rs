//! Positions in a source text: a line and column for people, a byte offset for slicing.

/// A position in a source text: 1-based line and column (columns count chars), 0-based byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Pos {
    /// Line number, starting at 1.
    pub line: u32,
    /// Column in characters, starting at 1.
    pub col: u32,
    /// Byte offset into the source text, starting at 0.
    pub offset: usize,
}

/// A half-open source range [start, end).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    /// First position covered.
    pub start: Pos,
    /// First position after the range.
    pub end: Pos,
}
