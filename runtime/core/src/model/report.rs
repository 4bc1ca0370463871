//! Argument errors as the model reads them: each failing field named by its JSON pointer, at
//! most [`Limits::max_errors`] of them (the rest counted), values quoted only in part and
//! `sensitive` ones never.
//!
//! Formatting only: what is wrong is found by screening (`plan`) and by the schema check
//! (`validate`); this module names and words it.

use std::borrow::Cow;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::{Value, json};
use toolspec_vocab::pointer;

use crate::model::failure::{ToolError, ToolResult};
use crate::model::limits::Limits;
use crate::schema::sensitive::Sensitivity;

/// One failing field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    /// JSON pointer to the field (`/order_id`, `/lines/0/quantity`; `/` for the whole input).
    /// An object key longer than [`Limits::max_quote`] is shortened, ending in `…`.
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

/// The errors of one call: the first [`Limits::max_errors`] in pointer order, and how many
/// more there were.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[doc(hidden)]
pub struct Errors {
    /// The errors shown.
    pub list: Vec<FieldError>,
    /// How many more were found and left out.
    pub more: usize,
}

impl Errors {
    /// One error, at `field`.
    pub fn one(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            list: vec![FieldError {
                field: field.into(),
                message: message.into(),
            }],
            more: 0,
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && self.more == 0
    }

    /// "Invalid arguments: `/order_id`: 0 is less than the minimum of 1; `/reason` is
    /// required; and 3 more errors."
    pub fn summary(&self) -> String {
        format!("Invalid arguments: {}.", self.listing())
    }

    /// "`/order_id`: 0 is less than the minimum of 1; `/reason` is required"
    pub fn listing(&self) -> String {
        let mut out = String::new();
        for (i, e) in self.list.iter().enumerate() {
            if i > 0 {
                out.push_str("; ");
            }
            if e.message == REQUIRED {
                let _ = write!(out, "`{}` is required", e.field);
            } else {
                let _ = write!(out, "`{}`: {}", e.field, e.message);
            }
        }
        match self.more {
            0 => {}
            1 => out.push_str("; and 1 more error"),
            n => {
                let _ = write!(out, "; and {n} more errors");
            }
        }
        out
    }

    /// The `details` of an `invalid_arguments` failure: `{"errors": […]}`, with
    /// `"more_errors": N` when some were left out.
    pub fn details(&self) -> Value {
        let mut details = json!({ "errors": self.list });
        if self.more > 0 {
            details["more_errors"] = json!(self.more);
        }
        details
    }
}

/// The message of a missing required field.
pub(crate) const REQUIRED: &str = "is required";

/// Collects errors up to a limit, counting the rest.
#[derive(Debug)]
pub(crate) struct Report {
    errors: Errors,
    max: usize,
}

impl Report {
    pub(crate) fn new(limits: &Limits) -> Self {
        Self {
            errors: Errors::default(),
            max: limits.max_errors.max(1),
        }
    }

    /// Adds the error `build` makes, or only counts it once the report is full (so a full
    /// report builds no more messages).
    pub(crate) fn add(&mut self, build: impl FnOnce() -> FieldError) {
        if self.errors.list.len() < self.max {
            self.errors.list.push(build());
        } else {
            self.errors.more += 1;
        }
    }

    /// The errors, sorted by field, then message, duplicates removed.
    pub(crate) fn finish(mut self) -> Errors {
        sort(&mut self.errors.list);
        self.errors
    }
}

/// Sorts errors by field, then message, and removes duplicates.
pub(crate) fn sort(errors: &mut Vec<FieldError>) {
    errors.sort_by(|a, b| a.field.cmp(&b.field).then(a.message.cmp(&b.message)));
    errors.dedup();
}

/// One step of a JSON pointer.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Token<'a> {
    Key(&'a str),
    Index(usize),
}

/// Where a walk is, as a chain of frames on the walk's own stack (nothing is allocated until
/// an error needs its pointer).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    token: Option<Token<'a>>,
}

impl<'a> Path<'a> {
    /// The arguments object itself.
    pub(crate) const ROOT: Path<'static> = Path {
        parent: None,
        token: None,
    };

    /// The child of `self` at `token`.
    pub(crate) fn child(&'a self, token: Token<'a>) -> Path<'a> {
        Path {
            parent: Some(self),
            token: Some(token),
        }
    }

    /// The tokens from the root down.
    fn tokens(&self) -> Vec<Token<'a>> {
        let mut tokens = Vec::new();
        let mut at = Some(self);
        while let Some(frame) = at {
            tokens.extend(frame.token);
            at = frame.parent;
        }
        tokens.reverse();
        tokens
    }

    /// The tokens' texts from the root down.
    pub(crate) fn texts(&self) -> Vec<String> {
        self.tokens()
            .into_iter()
            .map(|t| match t {
                Token::Key(key) => key.to_owned(),
                Token::Index(i) => i.to_string(),
            })
            .collect()
    }
}

/// Where an error is, as a model may be shown it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// The JSON pointer: keys longer than [`Limits::max_quote`] shortened, and nothing below a
    /// sensitive value (whose keys are data too): `/card/…`.
    pub(crate) field: String,
    /// Whether the place is in a sensitive value, whose text may not be quoted.
    pub(crate) hidden: bool,
}

impl Place {
    /// The place of the value at `tokens` (unescaped, from the root down).
    pub(crate) fn of<T: AsRef<str>>(
        tokens: &[T],
        limits: &Limits,
        sensitivity: &Sensitivity,
    ) -> Self {
        let prefix = sensitivity.sensitive_prefix(tokens);
        let shown = &tokens[..prefix.unwrap_or(tokens.len())];
        let mut field = String::new();
        for token in shown {
            field.push('/');
            field.push_str(&pointer::escape(&shorten(token.as_ref(), limits.max_quote)));
        }
        if shown.len() < tokens.len() {
            field.push_str("/…");
        }
        if field.is_empty() {
            field.push('/');
        }
        Self {
            field,
            hidden: prefix.is_some(),
        }
    }
}

/// The unescaped tokens of a JSON pointer.
pub(crate) fn pointer_tokens(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .filter(move |t| !t.is_empty() || pointer != "/")
        .map(toolspec_vocab::pointer::unescape)
}

/// `text` cut to `max` characters, ending in `…` when cut.
pub(crate) fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        None => Cow::Borrowed(text),
        Some((end, _)) => Cow::Owned(format!("{}…", &text[..end])),
    }
}

/// How a message refers to a value it may not quote.
pub(crate) const UNQUOTED: &str = "the value";

/// A value as a message quotes it: as JSON when short; a long string as its first
/// `max` characters and its length; a long list or object by its size.
pub(crate) fn quote(value: &Value, max: usize) -> String {
    match value {
        Value::String(text) => {
            let count = text.chars().count();
            if count <= max {
                Value::String(text.clone()).to_string()
            } else {
                let head = Value::String(shorten(text, max).into_owned()).to_string();
                format!("{head} ({count} characters)")
            }
        }
        Value::Array(items) => {
            short_json(value, max).unwrap_or_else(|| format!("a list of {} items", items.len()))
        }
        Value::Object(map) => {
            short_json(value, max).unwrap_or_else(|| format!("an object of {} keys", map.len()))
        }
        scalar => shorten(&scalar.to_string(), max).into_owned(),
    }
}

/// `value` as JSON, if that takes at most `max` characters; the rest of a large value is
/// never written out.
fn short_json(value: &Value, max: usize) -> Option<String> {
    /// Takes bytes up to a limit, then refuses.
    struct Capped(Vec<u8>, usize);
    impl std::io::Write for Capped {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            if self.0.len() + bytes.len() > self.1 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            self.0.extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // A character takes at most four bytes.
    let mut out = Capped(Vec::new(), max.saturating_mul(4));
    serde_json::to_writer(&mut out, value).ok()?;
    let text = String::from_utf8(out.0).ok()?;
    (text.chars().count() <= max).then_some(text)
}

/// A message cut to a length no honest message reaches: the last bound on what one error
/// can cost, whatever produced it.
pub(crate) fn bounded(message: String, limits: &Limits) -> String {
    let max = 8 * limits.max_quote + 160;
    match shorten(&message, max) {
        Cow::Borrowed(_) => message,
        Cow::Owned(cut) => cut,
    }
}

/// Every quoted part (`"…"` or `` `…` ``) of a message longer than `max` characters
/// shortened, or every quoted part replaced by `…` when `hide` (a `sensitive` value): for
/// messages of other libraries (serde), which quote values whole.
pub(crate) fn elide_quotes(message: &str, max: usize, hide: bool) -> String {
    let mut out = String::with_capacity(message.len().min(4 * max + 64));
    let mut rest = message;
    while let Some(open) = rest.find(['"', '`']) {
        let quote = rest.as_bytes()[open] as char;
        out.push_str(&rest[..=open]);
        let inner = &rest[open + 1..];
        let Some(close) = inner.find(quote) else {
            out.push_str(&shorten(inner, max));
            return out;
        };
        if hide {
            out.push('…');
        } else {
            out.push_str(&shorten(&inner[..close], max));
        }
        out.push(quote);
        rest = &inner[close + 1..];
    }
    out.push_str(rest);
    out
}

/// How a JSON value is named in messages (`a list`, `null`…).
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// The `invalid_arguments` failure listing `errors`.
pub(crate) fn invalid_arguments(errors: &Errors) -> ToolResult {
    let error = ToolError::invalid_arguments(errors.summary(), errors.details());
    ToolResult::failed(error, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_quoted_in_part() {
        assert_eq!(quote(&json!("abc"), 5), "\"abc\"");
        assert_eq!(quote(&json!("abcdefg"), 5), "\"abcde…\" (7 characters)");
        assert_eq!(quote(&json!("ééééééé"), 2), "\"éé…\" (7 characters)");
        assert_eq!(quote(&json!([1, 2]), 10), "[1,2]");
        assert_eq!(quote(&json!([1, 2, 3, 4, 5, 6]), 5), "a list of 6 items");
        assert_eq!(quote(&json!({ "a": 1, "b": 2 }), 5), "an object of 2 keys");
        assert_eq!(quote(&json!(12.5), 10), "12.5");
    }

    #[test]
    fn quoted_parts_of_foreign_messages_are_shortened_or_hidden() {
        let message = "invalid value: string \"abcdefgh\", expected `u8`";
        assert_eq!(
            elide_quotes(message, 3, false),
            "invalid value: string \"abc…\", expected `u8`"
        );
        assert_eq!(
            elide_quotes(message, 3, true),
            "invalid value: string \"…\", expected `…`"
        );
        assert_eq!(elide_quotes("open \"abcdef", 2, false), "open \"ab…");
    }

    #[test]
    fn pointers_are_built_from_frames_shortened_and_concealed() {
        let limits = Limits {
            max_quote: 8,
            ..Limits::DEFAULT
        };
        let clear = Sensitivity::default();
        let field = |path: &Path<'_>, sensitivity: &Sensitivity| {
            Place::of(&path.texts(), &limits, sensitivity).field
        };
        let root = Path::ROOT;
        let lines = root.child(Token::Key("lines"));
        let first = lines.child(Token::Index(0));
        let key = "a/b~c".repeat(10);
        let odd = first.child(Token::Key(&key));
        assert_eq!(field(&root, &clear), "/");
        assert_eq!(field(&first, &clear), "/lines/0");
        assert_eq!(field(&odd, &clear), "/lines/0/a~1b~0ca~1b…");
        let card = Sensitivity::compile(Some(r#"{"properties":{"lines":true}}"#));
        assert_eq!(
            field(&odd, &card),
            "/lines/…",
            "keys below a sensitive value are data"
        );
        assert_eq!(field(&lines, &card), "/lines");
        assert!(Place::of(&lines.texts(), &limits, &card).hidden);
        assert_eq!(
            pointer_tokens("/a~1b/0/c~0").collect::<Vec<_>>(),
            ["a/b", "0", "c~"]
        );
        assert_eq!(pointer_tokens("/").count(), 0);
    }

    #[test]
    fn a_full_report_counts_without_building() {
        let mut report = Report::new(&Limits {
            max_errors: 2,
            ..Limits::DEFAULT
        });
        for field in ["/c", "/a", "/b"] {
            report.add(|| FieldError {
                field: field.into(),
                message: "bad".into(),
            });
        }
        report.add(|| unreachable!("a full report builds nothing"));
        let errors = report.finish();
        assert_eq!(errors.more, 2);
        assert_eq!(
            errors.listing(),
            "`/a`: bad; `/c`: bad; and 2 more errors",
            "sorted"
        );
        assert_eq!(errors.details()["more_errors"], 2);
    }
}
