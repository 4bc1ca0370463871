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

    /// "specs/orders/cancel.yaml:7:11: unknown type `strng`": the place and the message, for
    /// channels that state the severity themselves (`cargo::error=`, `cargo::warning=`).
    pub fn located_message(&self) -> String {
        let message = self.message.replace(['\r', '\n'], " ");
        let location = location(&self.file, self.span);
        if location.is_empty() {
            message
        } else {
            format!("{location}: {message}")
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

/// Renders all diagnostics: errors first, then warnings, each group sorted by file, line and
/// column (a diagnostic without a span first in its file, then by message, then input order),
/// each followed by a blank line. When there is at least one error, a summary line follows:
/// "error: could not compile specs: 3 errors, 1 warning". Deterministic.
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

/// The candidate closest to `word`, for "did you mean" hints; first in candidate order on ties.
///
/// A candidate equal to `word` ignoring case and `-`/`_` wins outright. Otherwise the winner
/// has the smallest Damerau–Levenshtein distance (on the same normalized text), which must be
/// at most `max(1, len / 3)`, `len` being the length of `word` in characters.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::{self, Pos};

    const CANCEL: &str = "specs/orders/cancel.yaml";
    const CANCEL_SRC: &str = "name: cancel_order\ndescription: Cancel an order.\nargs:\n  order_id:\n    type: string\n  reason:\n    type: strng\n    optional: true\n";

    fn span(l1: u32, c1: u32, l2: u32, c2: u32) -> Span {
        Span {
            start: Pos {
                line: l1,
                col: c1,
                offset: 0,
            },
            end: Pos {
                line: l2,
                col: c2,
                offset: 0,
            },
        }
    }

    fn sources(files: &[(&str, &str)]) -> Sources {
        let mut sources = Sources::new();
        for (file, text) in files {
            sources.insert(*file, *text);
        }
        sources
    }

    fn unknown_type() -> Diagnostic {
        let root = yaml::parse(CANCEL_SRC).expect("valid YAML");
        let ty = root
            .get("args")
            .and_then(|a| a.get("reason"))
            .and_then(|r| r.get("type"))
            .expect("the type");
        Diagnostic::error(CANCEL, Some(ty.span), "unknown type `strng`")
            .with_label("not a known type")
            .with_help("did you mean `string`?")
    }

    #[test]
    fn error_with_label_and_help() {
        let d = unknown_type();
        assert_eq!(
            d.render(&sources(&[(CANCEL, CANCEL_SRC)])),
            "\
error: unknown type `strng`
 --> specs/orders/cancel.yaml:7:11
  |
7 |     type: strng
  |           ^^^^^ not a known type
  |
  = help: did you mean `string`?
"
        );
        assert_eq!(
            d.one_line(),
            "specs/orders/cancel.yaml:7:11: error: unknown type `strng`"
        );
    }

    #[test]
    fn warning_with_notes() {
        let d = Diagnostic::warning(
            CANCEL,
            Some(span(2, 14, 2, 30)),
            "description should not end with a period",
        )
        .with_note("descriptions are shown to the model\nas one sentence")
        .with_note("see the style guide");
        assert_eq!(
            d.render(&sources(&[(CANCEL, CANCEL_SRC)])),
            "\
warning: description should not end with a period
 --> specs/orders/cancel.yaml:2:14
  |
2 | description: Cancel an order.
  |              ^^^^^^^^^^^^^^^^
  |
  = note: descriptions are shown to the model
          as one sentence
  = note: see the style guide
"
        );
        assert_eq!(
            d.one_line(),
            "specs/orders/cancel.yaml:2:14: warning: description should not end with a period"
        );
    }

    #[test]
    fn without_span() {
        let d = Diagnostic::error("specs", None, "no tool specs found")
            .with_help("add a `*.yaml` file");
        assert_eq!(
            d.render(&Sources::new()),
            "\
error: no tool specs found
 --> specs
  |
  = help: add a `*.yaml` file
"
        );
        assert_eq!(d.one_line(), "specs: error: no tool specs found");
        let bare = Diagnostic::error("specs/a.yaml", None, "empty file");
        assert_eq!(
            bare.render(&Sources::new()),
            "error: empty file\n --> specs/a.yaml\n"
        );
    }

    #[test]
    fn source_not_available() {
        let d =
            Diagnostic::error("specs/gone.yaml", Some(span(3, 4, 3, 9)), "bad").with_label("here");
        assert_eq!(
            d.render(&Sources::new()),
            "error: bad\n --> specs/gone.yaml:3:4\n"
        );
        // A line past the end of the text is treated the same way.
        let d = Diagnostic::error(CANCEL, Some(span(40, 1, 40, 2)), "bad");
        assert_eq!(
            d.render(&sources(&[(CANCEL, CANCEL_SRC)])),
            "error: bad\n --> specs/orders/cancel.yaml:40:1\n"
        );
    }

    #[test]
    fn related_span_in_another_file() {
        let other = "specs/orders/create.yaml";
        let d = Diagnostic::error(
            CANCEL,
            Some(span(1, 7, 1, 19)),
            "tool name `cancel_order` is used twice",
        )
        .with_label("used again here")
        .with_related(other, span(3, 7, 3, 19), "first used here");
        let files = sources(&[
            (CANCEL, CANCEL_SRC),
            (other, "# Create.\n\nname: cancel_order\n"),
        ]);
        assert_eq!(
            d.render(&files),
            "\
error: tool name `cancel_order` is used twice
 --> specs/orders/cancel.yaml:1:7
  |
1 | name: cancel_order
  |       ^^^^^^^^^^^^ used again here
  |
 ::: specs/orders/create.yaml:3:7
  |
3 | name: cancel_order
  |       ------------ first used here
"
        );
    }

    #[test]
    fn multi_line_span_underlines_to_the_end_of_its_first_line() {
        let d = Diagnostic::error(CANCEL, Some(span(6, 3, 8, 19)), "field `reason` is invalid")
            .with_label("this field");
        assert_eq!(
            d.render(&sources(&[(CANCEL, CANCEL_SRC)])),
            "\
error: field `reason` is invalid
 --> specs/orders/cancel.yaml:6:3
  |
6 |   reason:
  |   ^^^^^^^ this field
"
        );
    }

    #[test]
    fn zero_width_span_gets_one_caret() {
        let src = "name:\n";
        let root = yaml::parse(src).expect("valid YAML");
        let value = root.get("name").expect("the key");
        let d = Diagnostic::error("a.yaml", Some(value.span), "expected a string, found null")
            .with_label("missing");
        assert_eq!(
            d.render(&sources(&[("a.yaml", src)])),
            "\
error: expected a string, found null
 --> a.yaml:1:6
  |
1 | name:
  |      ^ missing
"
        );
    }

    #[test]
    fn non_ascii_and_tabs_before_the_caret() {
        let src = "beschreibung: \"Größe\" # ünits\nk:\t[é,\tstrng]\n";
        let root = yaml::parse(src).expect("valid YAML");
        let items = root.get("k").and_then(yaml::Node::as_seq).expect("a list");
        let d = Diagnostic::error("a.yaml", Some(items[1].span), "unknown type `strng`")
            .with_label("here");
        assert_eq!(
            d.render(&sources(&[("a.yaml", src)])),
            "\
error: unknown type `strng`
 --> a.yaml:2:8
  |
2 | k:    [é,    strng]
  |              ^^^^^ here
"
        );
        let comment = Diagnostic::warning("a.yaml", Some(span(1, 25, 1, 30)), "units")
            .with_label("ü counts as one column");
        assert_eq!(
            comment.render(&sources(&[("a.yaml", src)])),
            "\
warning: units
 --> a.yaml:1:25
  |
1 | beschreibung: \"Größe\" # ünits
  |                         ^^^^^ ü counts as one column
"
        );
    }

    #[test]
    fn gutter_width_follows_the_widest_line_number() {
        let src = "1\n2\n3\n4\n5\n6\n7\n8\nnine: 9\nten: 10\n";
        let files = sources(&[("a.yaml", src)]);
        let nine = Diagnostic::error("a.yaml", Some(span(9, 1, 9, 5)), "nine");
        assert_eq!(
            nine.render(&files),
            "error: nine\n --> a.yaml:9:1\n  |\n9 | nine: 9\n  | ^^^^\n"
        );
        let ten = Diagnostic::error("a.yaml", Some(span(10, 1, 10, 4)), "ten")
            .with_related("a.yaml", span(9, 1, 9, 5), "nine")
            .with_help("count");
        assert_eq!(
            ten.render(&files),
            "\
error: ten
  --> a.yaml:10:1
   |
10 | ten: 10
   | ^^^
   |
  ::: a.yaml:9:1
   |
9  | nine: 9
   | ---- nine
   |
   = help: count
"
        );
    }

    #[test]
    fn render_all_sorts_and_summarises() {
        let files = sources(&[("b.yaml", "x: 1\ny: 2\n"), ("a.yaml", "z: 3\n")]);
        let diagnostics = [
            Diagnostic::warning("a.yaml", Some(span(1, 1, 1, 2)), "w1"),
            Diagnostic::error("b.yaml", Some(span(2, 1, 2, 2)), "e3"),
            Diagnostic::error("b.yaml", Some(span(1, 4, 1, 5)), "e2"),
            Diagnostic::error("a.yaml", None, "e1"),
        ];
        assert_eq!(
            render_all(&diagnostics, &files),
            "\
error: e1
 --> a.yaml

error: e2
 --> b.yaml:1:4
  |
1 | x: 1
  |    ^

error: e3
 --> b.yaml:2:1
  |
2 | y: 2
  | ^

warning: w1
 --> a.yaml:1:1
  |
1 | z: 3
  | ^

error: could not compile specs: 3 errors, 1 warning
"
        );
        let one = [Diagnostic::error("a.yaml", None, "e")];
        assert!(render_all(&one, &files).ends_with("\nerror: could not compile specs: 1 error\n"));
        let warnings = [Diagnostic::warning("a.yaml", None, "w")];
        assert_eq!(render_all(&warnings, &files), "warning: w\n --> a.yaml\n\n");
        assert_eq!(render_all(&[], &files), "");
    }

    #[test]
    fn did_you_mean_cases() {
        let types = ["string", "integer", "number", "boolean", "list", "map"];
        assert_eq!(did_you_mean("strng", types), Some("string"));
        assert_eq!(did_you_mean("integr", types), Some("integer"));
        assert_eq!(did_you_mean("String", types), Some("string"));
        assert_eq!(did_you_mean("xyz", types), None);
        assert_eq!(did_you_mean("", types), None);
        let keys = ["name", "description", "read_only", "args"];
        assert_eq!(did_you_mean("desription", keys), Some("description"));
        assert_eq!(did_you_mean("read-only", keys), Some("read_only"));
        assert_eq!(did_you_mean("arsg", keys), Some("args"));
        assert_eq!(did_you_mean("nmae", keys), Some("name"));
        assert_eq!(did_you_mean("anything", []), None);
        // Ties go to the first candidate.
        assert_eq!(did_you_mean("cat", ["bat", "hat"]), Some("bat"));
    }
}
