//! One error or warning about the specs: what is wrong, of which kind, where, and what to do.

use std::fmt;
use toolspec_vocab::Dialect;

use crate::diagnostic::kind::Kind;
use crate::source::Span;

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
    /// What sort of problem it is: stable, for tools that read diagnostics.
    pub kind: Kind,
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
    /// For a fallback (a schema feature a provider dialect cannot express, stated in the
    /// description instead): the dialect.
    pub fallback: Option<Dialect>,
}

impl Diagnostic {
    fn new(
        severity: Severity,
        kind: Kind,
        file: String,
        span: Option<Span>,
        message: String,
    ) -> Self {
        Diagnostic {
            severity,
            kind,
            message,
            file,
            span,
            label: None,
            help: None,
            notes: Vec::new(),
            related: Vec::new(),
            fallback: None,
        }
    }

    /// Whether this is a fallback warning (see [`with_fallback`](Self::with_fallback)).
    pub fn is_fallback(&self) -> bool {
        self.severity == Severity::Warning && self.fallback.is_some()
    }

    /// Marks the warning as a fallback of `dialect` (summarised unless asked for in full).
    pub fn with_fallback(mut self, dialect: Dialect) -> Self {
        self.fallback = Some(dialect);
        self
    }

    /// An error of `kind` at `span` in `file`.
    pub fn error(
        kind: Kind,
        file: impl Into<String>,
        span: Option<Span>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic::new(Severity::Error, kind, file.into(), span, message.into())
    }

    /// A warning of `kind` at `span` in `file`.
    pub fn warning(
        kind: Kind,
        file: impl Into<String>,
        span: Option<Span>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic::new(Severity::Warning, kind, file.into(), span, message.into())
    }

    /// Sets the text shown under the caret, when there is one.
    pub fn with_label_opt(mut self, l: Option<String>) -> Self {
        self.label = l;
        self
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

    /// Sets the `= help:` line, when there is one.
    pub fn with_help_opt(mut self, h: Option<String>) -> Self {
        self.help = h;
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
}
