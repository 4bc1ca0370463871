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
//! The renderer is written by hand so that its output is exact and stable. Its output is
//! bounded whatever the specs hold: [`render_all`] shows the first [`MAX_SHOWN`] diagnostics
//! and counts the rest, a source line longer than [`MAX_LINE_WIDTH`] columns is shown as a
//! window around its caret, and a message, label, note or help longer than [`MAX_TEXT`]
//! characters is cut.

use std::borrow::Cow;

use std::fmt;

use crate::source::{Sources, Span};

/// How many diagnostics [`render_all`] shows (errors first); the others are counted in one line.
/// Build scripts print as many `cargo::error=` and `cargo::warning=` lines at most.
pub const MAX_SHOWN: usize = 100;

/// The widest source line shown in full, in columns; a wider one is shown as a window around the
/// caret, cut with `...`.
pub const MAX_LINE_WIDTH: usize = 120;

/// How many characters of a message, label, note or help are shown; a longer one is cut with `…`.
pub const MAX_TEXT: usize = 500;

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
        let message = clip(&self.message).replace(['\r', '\n'], " ");
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
        let message = clip(&self.message).replace(['\r', '\n'], " ");
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
                p.span
                    .and_then(|span| Some(snippet(sources.line(p.file, span.start.line)?, span)))
            })
            .collect();
        let width = snippets
            .iter()
            .flatten()
            .map(|s| s.line.to_string().len())
            .max()
            .unwrap_or(1);
        let blank = " ".repeat(width);

        let mut out = format!("{}: {}\n", self.severity, clip(&self.message));
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
                    .map(|l| format!(" {}", clip(l).replace(['\r', '\n'], " ")))
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
            let text = clip(text).lines().collect::<Vec<_>>().join(&indent);
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

/// `text` cut to [`MAX_TEXT`] characters, with `…` where it was cut.
fn clip(text: &str) -> Cow<'_, str> {
    match text.char_indices().nth(MAX_TEXT) {
        Some((cut, _)) => Cow::Owned(format!("{}…", &text[..cut])),
        None => Cow::Borrowed(text),
    }
}

/// The line `span` starts on and its underline: the span's characters on that line, to the end
/// of the line for a span that goes on, and one column for an empty span. A line wider than
/// [`MAX_LINE_WIDTH`] is cut to a window that shows the start of the underline.
fn snippet(line: &str, span: Span) -> Snippet {
    let chars: Vec<char> = line.chars().collect();
    let col = |c: u32| {
        usize::try_from(c)
            .unwrap_or(usize::MAX)
            .saturating_sub(1)
            .min(chars.len())
    };
    let start = col(span.start.col);
    let end = if span.end.line > span.start.line {
        chars.len()
    } else if span.end.line == span.start.line {
        col(span.end.col)
    } else {
        start
    };
    let width = |cs: &[char]| cs.iter().copied().map(display_width).sum::<usize>();
    let indent = width(&chars[..start]);
    let underline = width(&chars[start..end.max(start)]).max(1);
    let text = line.replace('\t', &" ".repeat(TAB_WIDTH));
    let (text, indent, underline) = window(&text, indent, underline);
    Snippet {
        line: span.start.line,
        text,
        indent,
        underline,
    }
}

/// Columns shown before the caret when a long line is cut to a window.
const WINDOW_LEAD: usize = 40;

/// A line (tabs expanded) cut to [`MAX_LINE_WIDTH`] columns around `indent`, with `...` where
/// it was cut; the underline's indent and width in the window.
fn window(text: &str, indent: usize, underline: usize) -> (String, usize, usize) {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= MAX_LINE_WIDTH {
        return (text.to_owned(), indent, underline);
    }
    let from = indent.saturating_sub(WINDOW_LEAD).min(chars.len());
    let to = (from + MAX_LINE_WIDTH).min(chars.len());
    let mut shown = String::new();
    let mut indent = indent - from;
    if from > 0 {
        shown.push_str("...");
        indent += 3;
    }
    shown.extend(&chars[from..to]);
    if to < chars.len() {
        shown.push_str("...");
    }
    let room = (to - from + 3).saturating_sub(indent);
    (shown, indent, underline.min(room).max(1))
}

/// Renders the diagnostics: errors first, then warnings, each group sorted by file, line and
/// column (a diagnostic without a span first in its file, then by message, then input order),
/// each followed by a blank line. Only the first [`MAX_SHOWN`] are shown; a line
/// "… and 9900 more errors" counts the others. When there is at least one error, a summary
/// line follows: "error: could not compile specs: 3 errors, 1 warning". Deterministic.
pub fn render_all(diagnostics: &[Diagnostic], sources: &Sources) -> String {
    let mut sorted: Vec<&Diagnostic> = diagnostics.iter().collect();
    sorted.sort_by(|a, b| sort_key(a).cmp(&sort_key(b)));
    let mut out = String::new();
    for d in sorted.iter().take(MAX_SHOWN) {
        out.push_str(&d.render(sources));
        out.push('\n');
    }
    let count =
        |list: &[&Diagnostic], severity| list.iter().filter(|d| d.severity == severity).count();
    let hidden = sorted.get(MAX_SHOWN..).unwrap_or_default();
    let (hidden_errors, hidden_warnings) = (
        count(hidden, Severity::Error),
        count(hidden, Severity::Warning),
    );
    if !hidden.is_empty() {
        let mut parts = Vec::new();
        if hidden_errors > 0 {
            parts.push(plural(hidden_errors, "more error"));
        }
        if hidden_warnings > 0 {
            parts.push(plural(hidden_warnings, "more warning"));
        }
        out.push_str(&format!("… and {}\n\n", parts.join(" and ")));
    }
    let (errors, warnings) = (
        count(&sorted, Severity::Error),
        count(&sorted, Severity::Warning),
    );
    if errors > 0 {
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

/// What [`render_all`] sorts by: severity, file, line and column, message.
fn sort_key(d: &Diagnostic) -> (Severity, &str, Option<(u32, u32)>, &str) {
    let at = d.span.map(|s| (s.start.line, s.start.col));
    (d.severity, &d.file, at, &d.message)
}

/// The most candidates [`did_you_mean`] compares a word with.
pub const MAX_CANDIDATES: usize = 1_000;

/// "1 error", "3 errors".
pub fn plural(n: usize, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// The candidate closest to `word`, for "did you mean" hints; first in candidate order on ties.
///
/// A candidate equal to `word` ignoring case and `-`/`_` wins outright. Otherwise the winner
/// has the smallest Damerau–Levenshtein distance (on the same normalized text), which must be
/// at most `max(1, len / 3)`, `len` being the length of `word` in characters. Among more than
/// [`MAX_CANDIDATES`] candidates there is no suggestion: the search costs what the spec
/// language's own lists do, however many named types a project declares.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let normalize = |s: &str| s.to_lowercase().replace('-', "_");
    let word_n = normalize(word);
    let limit = (word.chars().count() / 3).max(1);
    let word_len = word_n.chars().count();
    let candidates: Vec<&'a str> = candidates.into_iter().take(MAX_CANDIDATES + 1).collect();
    if candidates.len() > MAX_CANDIDATES {
        return None;
    }
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let candidate_n = normalize(candidate);
        // The difference in length is a lower bound of the distance: no need to compute it.
        if word_len.abs_diff(candidate_n.chars().count()) > limit {
            continue;
        }
        let distance = strsim::damerau_levenshtein(&word_n, &candidate_n);
        if distance == 0 {
            return Some(candidate);
        }
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// One `cargo::{kind}=` line for each of the first [`MAX_SHOWN`] diagnostics, and
/// one that counts the others.
pub fn print_cargo_lines(kind: &str, diagnostics: &[&Diagnostic]) {
    for d in diagnostics.iter().take(MAX_SHOWN) {
        println!("cargo::{kind}={}", d.located_message());
    }
    if let Some(hidden) = diagnostics.len().checked_sub(MAX_SHOWN)
        && hidden > 0
    {
        println!(
            "cargo::{kind}=… and {}",
            plural(hidden, &format!("more {kind}"))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::yaml;
    use crate::source::Pos;

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
    fn render_all_shows_the_first_diagnostics_and_counts_the_rest() {
        let files = sources(&[("a.yaml", "x: 1\n")]);
        let mut diagnostics: Vec<Diagnostic> = (0..MAX_SHOWN + 50)
            .map(|i| Diagnostic::error("a.yaml", Some(span(1, 1, 1, 2)), format!("e{i:03}")))
            .collect();
        diagnostics.push(Diagnostic::warning("a.yaml", None, "w"));
        let out = render_all(&diagnostics, &files);
        assert_eq!(out.matches("\nerror: e").count() + 1, MAX_SHOWN, "{out}");
        assert!(out.starts_with("error: e000\n") && out.contains("error: e099\n"));
        assert!(!out.contains("e100"));
        assert!(out.ends_with(
            "… and 50 more errors and 1 more warning\n\nerror: could not compile specs: 150 errors, 1 warning\n"
        ));
    }

    #[test]
    fn long_lines_are_shown_as_a_window_and_long_texts_cut() {
        let line = format!("{}bad{}", "a".repeat(1_000), "z".repeat(1_000));
        let d = Diagnostic::error("a.yaml", Some(span(1, 1_001, 1, 1_004)), "x".repeat(10_000))
            .with_label("here");
        let out = d.render(&sources(&[("a.yaml", &line)]));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0].chars().count(), "error: ".len() + MAX_TEXT + 1);
        assert!(lines[0].ends_with("x…"));
        let (source, caret) = (lines[3], lines[4]);
        assert!(
            source.starts_with("1 | ...a") && source.ends_with("z..."),
            "{source}"
        );
        assert_eq!(source.chars().count(), "1 | ".len() + MAX_LINE_WIDTH + 6);
        let at = caret.find('^').expect("a caret");
        assert_eq!(&source[at..at + 3], "bad");
        assert_eq!(&caret[at..], "^^^ here");
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
        // A word far longer than every candidate is not compared letter by letter.
        assert_eq!(did_you_mean(&"a".repeat(1_000_000), keys), None);
    }
}
