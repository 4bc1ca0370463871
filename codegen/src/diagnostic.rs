//! Build errors and warnings that point at spec source, rendered the way rustc renders its own.
//!
//! A [`Diagnostic`] names a file and, usually, a [`Span`] in it. [`Diagnostic::render`] prints
//! it with the offending source line and a caret underline, like `rustc`, without colour:
//!
//! ```text
//! error: unknown type `strng`
//!  --> specs/orders/cancel.yaml:7:11
//!   |
//! 7 |     type: strng
//!   |           ^^^^^ not a known type
//!   |
//!   = help: did you mean `string`?
//! ```
//!
//! The renderer is written by hand so that its output is exact and stable.

use std::collections::BTreeMap;
use std::fmt;

use crate::yaml::Span;

/// How bad a diagnostic is. Errors sort before warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Stops the build.
    Error,
    /// Reported, but the build goes on.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// A secondary place shown with a diagnostic (e.g. "first defined here" in another file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    /// Display path of the file.
    pub file: String,
    /// The place in that file.
    pub span: Span,
    /// Text under the `-` underline.
    pub label: String,
}

/// An error or warning about a spec file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, e.g. "unknown type `strng`".
    pub message: String,
    /// Display path, e.g. "specs/orders/cancel.yaml" (always `/` separators).
    pub file: String,
    /// The offending source; `None` when the diagnostic is about the whole file (or directory).
    pub span: Option<Span>,
    /// Text under the caret.
    pub label: Option<String>,
    /// A suggestion, e.g. "did you mean `string`?".
    pub help: Option<String>,
    /// Extra explanations, each rendered as `= note: …`.
    pub notes: Vec<String>,
    /// Other places worth showing.
    pub related: Vec<Related>,
}

impl Diagnostic {
    fn new(severity: Severity, file: String, span: Option<Span>, message: String) -> Self {
        Diagnostic {
            severity,
            message,
            file,
            span,
            label: None,
            help: None,
            notes: Vec::new(),
            related: Vec::new(),
        }
    }

    /// An error at `span` in `file`.
    pub fn error(file: impl Into<String>, span: Option<Span>, message: impl Into<String>) -> Self {
        Diagnostic::new(Severity::Error, file.into(), span, message.into())
    }

    /// A warning at `span` in `file`.
    pub fn warning(
        file: impl Into<String>,
        span: Option<Span>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic::new(Severity::Warning, file.into(), span, message.into())
    }

    /// Sets the text shown under the caret.
    pub fn with_label(mut self, l: impl Into<String>) -> Self {
        self.label = Some(l.into());
        self
    }

    /// Sets the `= help:` line.
    pub fn with_help(mut self, h: impl Into<String>) -> Self {
        self.help = Some(h.into());
        self
    }

    /// Adds a `= note:` line.
    pub fn with_note(mut self, n: impl Into<String>) -> Self {
        self.notes.push(n.into());
        self
    }

    /// Adds a secondary place, shown after the main snippet with a `-` underline.
    pub fn with_related(
        mut self,
        file: impl Into<String>,
        span: Span,
        label: impl Into<String>,
    ) -> Self {
        self.related.push(Related {
            file: file.into(),
            span,
            label: label.into(),
        });
        self
    }

    /// "specs/orders/cancel.yaml:7:11: error: unknown type `strng`" — one line, for cargo::error= and logs.
    /// Line breaks in the message become spaces.
    pub fn one_line(&self) -> String {
        let message = self.message.replace(['\r', '\n'], " ");
        let location = location(&self.file, self.span);
        if location.is_empty() {
            format!("{}: {message}", self.severity)
        } else {
            format!("{location}: {}: {message}", self.severity)
        }
    }

    /// Full multi-line rendering, no colour codes. Every line ends with `\n`.
    ///
    /// The source line of each span is taken from `sources`; when the file is not there, only
    /// its `--> file:line:col` is shown. Notes come before help, as in rustc.
    pub fn render(&self, sources: &Sources) -> String {
        let mut places = vec![Place {
            arrow: "-->",
            file: &self.file,
            span: self.span,
            marker: '^',
            label: self.label.as_deref(),
        }];
        places.extend(self.related.iter().map(|r| Place {
            arrow: ":::",
            file: &r.file,
            span: Some(r.span),
            marker: '-',
            label: Some(&r.label),
        }));
        let snippets: Vec<Option<Snippet>> = places
            .iter()
            .map(|p| {
                let text = sources.get(p.file)?;
                snippet(text, p.span?)
            })
            .collect();
        let width = snippets
            .iter()
            .flatten()
            .map(|s| s.line.to_string().len())
            .max()
            .unwrap_or(1);
        let blank = " ".repeat(width);

        let mut out = format!("{}: {}\n", self.severity, self.message);
        for (i, (place, snippet)) in places.iter().zip(&snippets).enumerate() {
            if i > 0 {
                out.push_str(&format!("{blank} |\n"));
            }
            let location = location(place.file, place.span);
            if !location.is_empty() {
                out.push_str(&format!("{blank}{} {location}\n", place.arrow));
            }
            if let Some(s) = snippet {
                let underline = place.marker.to_string().repeat(s.underline);
                let label = place
                    .label
                    .map(|l| format!(" {}", l.replace(['\r', '\n'], " ")))
                    .unwrap_or_default();
                out.push_str(&format!("{blank} |\n"));
                out.push_str(format!("{:<width$} | {}", s.line, s.text).trim_end());
                out.push('\n');
                out.push_str(&format!(
                    "{blank} | {}{underline}{label}\n",
                    " ".repeat(s.indent)
                ));
            }
        }
        let children: Vec<(&str, &str)> = self
            .notes
            .iter()
            .map(|n| ("note", n.as_str()))
            .chain(self.help.iter().map(|h| ("help", h.as_str())))
            .collect();
        if !children.is_empty() {
            out.push_str(&format!("{blank} |\n"));
        }
        for (kind, text) in children {
            // Continuation lines line up with the text after "= note: ".
            let indent = format!("\n{blank}   {}", " ".repeat(kind.len() + 2));
            let text = text.lines().collect::<Vec<_>>().join(&indent);
            out.push_str(&format!("{blank} = {kind}: {text}\n"));
        }
        out
    }
}

/// `file:line:col`, or just `file` without a span.
fn location(file: &str, span: Option<Span>) -> String {
    match span {
        Some(s) => format!("{file}:{}:{}", s.start.line, s.start.col),
        None => file.to_owned(),
    }
}

/// One `-->` or `:::` section of a rendering.
struct Place<'a> {
    arrow: &'static str,
    file: &'a str,
    span: Option<Span>,
    marker: char,
    label: Option<&'a str>,
}

/// A source line to show, with tabs expanded, and where its underline goes (in columns).
struct Snippet {
    line: u32,
    text: String,
    indent: usize,
    underline: usize,
}

/// Width of a tab in rendered source lines (what rustc uses).
const TAB_WIDTH: usize = 4;

fn display_width(c: char) -> usize {
    if c == '\t' { TAB_WIDTH } else { 1 }
}

/// The line `span` starts on and its underline: the span's characters on that line, to the end
/// of the line for a span that goes on, and one column for an empty span.
fn snippet(text: &str, span: Span) -> Option<Snippet> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let line_no = span.start.line;
    let line = nth_line(text, usize::try_from(line_no).ok()?.checked_sub(1)?)?;
    let chars: Vec<char> = line.chars().collect();
    let col = |c: u32| {
        usize::try_from(c)
            .unwrap_or(usize::MAX)
            .saturating_sub(1)
            .min(chars.len())
    };
    let start = col(span.start.col);
    let end = if span.end.line > line_no {
        chars.len()
    } else if span.end.line == line_no {
        col(span.end.col)
    } else {
        start
    };
    let indent = chars[..start].iter().copied().map(display_width).sum();
    let underline = chars[start..end.max(start)]
        .iter()
        .copied()
        .map(display_width)
        .sum::<usize>()
        .max(1);
    let text = line.replace('\t', &" ".repeat(TAB_WIDTH));
    Some(Snippet {
        line: line_no,
        text,
        indent,
        underline,
    })
}

/// Line `n` (0-based) of `text`; lines end at `\n`, `\r\n` or `\r`, as in the YAML parser.
fn nth_line(text: &str, n: usize) -> Option<&str> {
    let mut rest = text;
    for _ in 0..n {
        let i = rest.find(['\r', '\n'])?;
        let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
        rest = &rest[i + skip..];
    }
    Some(rest.find(['\r', '\n']).map_or(rest, |i| &rest[..i]))
}

/// The text of every file diagnostics may point into, by display path.
#[derive(Debug, Default, Clone)]
pub struct Sources {
    files: BTreeMap<String, String>,
}

impl Sources {
    /// No files.
    pub fn new() -> Self {
        Sources::default()
    }

    /// Records the text of `file`, replacing any earlier text.
    pub fn insert(&mut self, file: impl Into<String>, text: impl Into<String>) {
        self.files.insert(file.into(), text.into());
    }

    /// The text of `file`, if recorded.
    pub fn get(&self, file: &str) -> Option<&str> {
        self.files.get(file).map(String::as_str)
    }
}

/// Renders all diagnostics, errors first then warnings, sorted by (file, line, col) within each severity, each followed by a blank line, then a summary line like "error: could not compile specs: 3 errors, 1 warning" (only when there is at least one error; "1 error" singular).  Deterministic.
///
/// Diagnostics without a span come first in their file; ties are broken by message, then by
/// input order.
pub fn render_all(diagnostics: &[Diagnostic], sources: &Sources) -> String {
    let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
    sorted.sort_by(|a, b| {
        let key = |d: &Diagnostic| {
            let at = d.span.map(|s| (s.start.line, s.start.col));
            (d.severity, d.file.clone(), at, d.message.clone())
        };
        key(a).cmp(&key(b))
    });
    let mut out = String::new();
    for d in &sorted {
        out.push_str(&d.render(sources));
        out.push('\n');
    }
    let count = |severity| {
        diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    };
    let (errors, warnings) = (count(Severity::Error), count(Severity::Warning));
    if errors > 0 {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        out.push_str(&format!(
            "error: could not compile specs: {}",
            plural(errors, "error")
        ));
        if warnings > 0 {
            out.push_str(&format!(", {}", plural(warnings, "warning")));
        }
        out.push('\n');
    }
    out
}

/// The closest candidate by edit distance (strsim Damerau–Levenshtein or Jaro-Winkler; pick a sensible threshold: distance ≤ max(1, len/3), and also accept a candidate that equals the word case-insensitively or with `-`/`_` swapped). Deterministic on ties (first in candidate order).
///
/// Comparison is on lowercased text with `-` read as `_`; a candidate equal to the word that
/// way wins over any other. Otherwise the candidate with the smallest Damerau–Levenshtein
/// distance wins, if that distance is at most `max(1, len / 3)` (`len` in characters of `word`).
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let normalize = |s: &str| s.to_lowercase().replace('-', "_");
    let word_n = normalize(word);
    let limit = (word.chars().count() / 3).max(1);
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let distance = strsim::damerau_levenshtein(&word_n, &normalize(candidate));
        if distance == 0 {
            return Some(candidate);
        }
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}
