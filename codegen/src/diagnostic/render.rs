//! Diagnostics as text: one rustc-style block each with its source lines ([`render_all`] for a
//! whole run), and one-line forms for logs and cargo. Bounded whatever the specs hold: a source
//! line longer than [`MAX_LINE_WIDTH`] columns is shown as a window around its caret, a text
//! longer than [`MAX_TEXT`] characters is cut.

use std::borrow::Cow;

use crate::diagnostic::message::{Diagnostic, Severity};
use crate::diagnostic::suggest::plural;
use crate::source::{Sources, Span};

/// How many diagnostics [`render_all`] shows (errors first); the others are counted in one line.
/// Build scripts print as many `cargo::error=` and `cargo::warning=` lines at most.
pub const MAX_SHOWN: usize = 100;

/// The widest source line shown in full, in columns; a wider one is shown as a window around the
/// caret, cut with `...`.
pub const MAX_LINE_WIDTH: usize = 120;

/// How many characters of a message, label, note or help are shown; a longer one is cut with `…`.
pub const MAX_TEXT: usize = 500;

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

/// [`render_all`], with the fallback warnings (what a dialect cannot express, stated in a
/// description instead) summed up in one line: what builds and the CLI print unless asked for
/// every detail.
pub fn render_summary(diagnostics: &[Diagnostic], sources: &Sources) -> String {
    let (fallbacks, others): (Vec<Diagnostic>, Vec<Diagnostic>) = diagnostics
        .iter()
        .cloned()
        .partition(Diagnostic::is_fallback);
    let mut out = render_all(&others, sources);
    if let Some(line) = fallback_summary(&fallbacks) {
        out.push_str(&format!("warning: {line}\n"));
    }
    out
}

/// "12 schema features … (gemini: 3, openai-strict: 9) …", or `None` without fallbacks.
pub fn fallback_summary(diagnostics: &[Diagnostic]) -> Option<String> {
    let mut by_dialect: std::collections::BTreeMap<&str, usize> = Default::default();
    for dialect in diagnostics
        .iter()
        .filter_map(|d| d.fallback.filter(|_| d.is_fallback()))
    {
        *by_dialect.entry(dialect.name()).or_default() += 1;
    }
    let total: usize = by_dialect.values().sum();
    if total == 0 {
        return None;
    }
    let counts: Vec<String> = by_dialect
        .iter()
        .map(|(d, n)| format!("{d}: {n}"))
        .collect();
    let features = if total == 1 {
        "schema feature is"
    } else {
        "schema features are"
    };
    Some(format!(
        "{total} {features} stated in tool descriptions because a dialect cannot express them ({}); \
         `-v` lists each, `fallbacks: {{ accept: [..] }}` in toolspec.yaml accepts them",
        counts.join(", ")
    ))
}

/// What [`render_all`] sorts by: severity, file, line and column, message.
pub(crate) fn sort_key(d: &Diagnostic) -> (Severity, &str, Option<(u32, u32)>, &str) {
    let at = d.span.map(|s| (s.start.line, s.start.col));
    (d.severity, &d.file, at, &d.message)
}

impl Diagnostic {
    /// "specs/orders/cancel.yaml:7:11: error: unknown type `strng`" — one line, for cargo::error= and logs.
    /// Line breaks in the message become spaces.
    pub fn one_line(&self) -> String {
        let message = clip(&self.message).replace(['\r', '\n'], " ");
        let location = location(&self.file, self.span);
        if location.is_empty() {
            format!("{}[{}]: {message}", self.severity, self.kind.code())
        } else {
            format!(
                "{location}: {}[{}]: {message}",
                self.severity,
                self.kind.code()
            )
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

        let mut out = format!(
            "{}[{}]: {}\n",
            self.severity,
            self.kind.code(),
            clip(&self.message)
        );
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
