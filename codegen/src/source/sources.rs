//! The texts a compile reads: each file's path and text, kept to show diagnostics in.

use std::collections::BTreeMap;

use crate::source::lines::Lines;

/// One file's text: a spec (`.yaml`, `.yml`) or a JSON Schema for `shape: { file: … }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Its path below the specs directory, '/'-separated.
    pub path: String,
    /// Its text.
    pub text: String,
}

/// The text of every file diagnostics may point into, by display path.
#[derive(Debug, Default, Clone)]
pub struct Sources {
    files: BTreeMap<String, SourceFile>,
}

/// One file's text and its line table (of the text after a byte order mark, as the YAML
/// parser counts lines).
#[derive(Debug, Clone)]
struct SourceFile {
    text: String,
    lines: Lines,
}

impl Sources {
    /// No files.
    pub fn new() -> Self {
        Sources::default()
    }

    /// Records the text of `file`, replacing any earlier text.
    pub fn insert(&mut self, file: impl Into<String>, text: impl Into<String>) {
        let text = text.into();
        let lines = Lines::new(without_bom(&text));
        self.files.insert(file.into(), SourceFile { text, lines });
    }

    /// The text of `file`, if recorded.
    pub fn get(&self, file: &str) -> Option<&str> {
        self.files.get(file).map(|f| f.text.as_str())
    }

    /// Line `line` (1-based) of `file`, without its line break, if the file is recorded and
    /// has that line.
    pub fn line(&self, file: &str, line: u32) -> Option<&str> {
        let source = self.files.get(file)?;
        let idx = usize::try_from(line).ok()?.checked_sub(1)?;
        source.lines.line(without_bom(&source.text), idx)
    }
}

fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}
