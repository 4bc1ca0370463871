//! Reading typed values out of YAML nodes, reporting every mismatch as a diagnostic that
//! names the key, the expected kind and what was found.

use std::collections::BTreeMap;

use serde_json::Number;
use toolspec_vocab::settings::{SettingKind, SettingValue};

use crate::diagnostic::kind::Kind;
use crate::diagnostic::{Diagnostic, did_you_mean};
use crate::read::yaml::{Node, Value};
use crate::source::Span;
use crate::source::Spanned;

/// The keys of one map of the spec language (a tool spec, a field, the project config…), as
/// an enum readers dispatch on. Declare one with [`section!`](crate::read::reader::section).
pub trait Section: Copy + PartialEq + 'static {
    /// Every key with its spelling, in the order they are read and help lists them.
    const KEYS: &'static [(&'static str, Self)];

    /// The key's spelling in specs.
    fn spelling(self) -> &'static str {
        Self::KEYS
            .iter()
            .find(|(_, key)| *key == self)
            .map_or("", |(name, _)| *name)
    }
}

/// Declares a [`Section`]: an enum of keys, each with its spelling in specs.
macro_rules! section {
    ($(#[$doc:meta])* $vis:vis enum $name:ident { $($(#[$vdoc:meta])* $variant:ident = $key:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $crate::read::reader::Section for $name {
            const KEYS: &'static [(&'static str, Self)] = &[$(($key, Self::$variant)),*];
        }
    };
}
pub(crate) use section;

/// Collects the diagnostics of one file.
pub struct Reader<'a> {
    /// The display path of the file.
    pub file: &'a str,
    /// Where diagnostics go.
    pub diagnostics: &'a mut Vec<Diagnostic>,
    /// The project's ambient fields (`toolspec.yaml`'s `ambient:`), which give an ambient
    /// field without a `type` its type.
    pub ambient: &'a [crate::spec::AmbientDecl],
}

impl<'a> Reader<'a> {
    /// One of `choices` by its spelling (`key` is the setting's path, `what` what its value is);
    /// anything else is an error with a did-you-mean, or
    /// `help` when nothing is close.
    pub fn choice<T: Copy>(
        &mut self,
        node: &Node,
        key: &str,
        what: &str,
        choices: &[(&str, T)],
        help: &str,
    ) -> Option<T> {
        let spelled = self.string(node, key)?;
        if let Some((_, value)) = choices.iter().find(|(name, _)| *name == spelled) {
            return Some(*value);
        }
        let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
        let expected = names
            .iter()
            .map(|name| format!("`{name}`"))
            .collect::<Vec<_>>()
            .join(" or ");
        let help = did_you_mean(&spelled, names.iter().copied())
            .map_or_else(|| help.to_owned(), |m| format!("did you mean `{m}`?"));
        self.report(
            self.error(
                Kind::UnknownName,
                node.span,
                format!("unknown {what} `{spelled}`"),
            )
            .with_label(format!("expected {expected}"))
            .with_help(help),
        );
        None
    }

    /// Starts reading `file`.
    pub fn new(file: &'a str, diagnostics: &'a mut Vec<Diagnostic>) -> Self {
        Self {
            file,
            diagnostics,
            ambient: &[],
        }
    }

    /// The same reader, knowing the project's ambient fields.
    pub fn with_ambient(mut self, ambient: &'a [crate::spec::AmbientDecl]) -> Self {
        self.ambient = ambient;
        self
    }

    /// An error of `kind` at `span` in this file, to [`report`](Self::report).
    #[must_use = "a diagnostic counts once reported"]
    pub fn error(&self, kind: Kind, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::error(kind, self.file, Some(span), message)
    }

    /// Records a diagnostic.
    pub fn report(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Reports `what` as having the wrong kind of value; when `expected` is a boolean or a
    /// number and `node` a string that reads like one (`"yes"`, `"1"`), the help says how to
    /// write it.
    pub fn wrong_kind(&mut self, node: &Node, what: &str, expected: &str) {
        self.wrong_kind_as(node, what, expected, None);
    }

    /// [`wrong_kind`](Self::wrong_kind), with a help for a string that reads like the
    /// `setting` kind expected.
    pub fn wrong_kind_as(
        &mut self,
        node: &Node,
        what: &str,
        expected: &str,
        setting: Option<SettingKind>,
    ) {
        let message = format!("{what} must be {expected}, found {}", article(node.kind()));
        let help = setting.and_then(|kind| unquote_hint(node, kind));
        self.report(
            self.error(Kind::InvalidValue, node.span, message)
                .with_label(format!("expected {expected}"))
                .with_help_opt(help),
        );
    }

    /// The entries of a map, or an error.
    pub fn map<'n>(&mut self, node: &'n Node, what: &str) -> Option<&'n [(Node, Node)]> {
        match node.as_map() {
            Some(entries) => Some(entries),
            None => {
                self.wrong_kind(node, what, "a map");
                None
            }
        }
    }

    /// The entries of a map whose keys are `S`'s, each with its key, in `S`'s order (readers
    /// of later keys may rely on earlier ones); every other key is reported with a
    /// did-you-mean, as is a key that is not a string.
    pub fn section<'n, S: Section>(
        &mut self,
        entries: &'n [(Node, Node)],
        context: &str,
    ) -> Vec<(S, &'n Node, &'n Node)> {
        self.section_showing(entries, context, |_| true)
    }

    /// [`section`](Self::section), whose did-you-means and lists of known keys offer only
    /// the keys `shown` keeps (the others are read, for their reader to say why they do not
    /// belong).
    pub fn section_showing<'n, S: Section>(
        &mut self,
        entries: &'n [(Node, Node)],
        context: &str,
        shown: impl Fn(S) -> bool,
    ) -> Vec<(S, &'n Node, &'n Node)> {
        let names: Vec<&str> = S::KEYS.iter().map(|(name, _)| *name).collect();
        let listed: Vec<&str> = S::KEYS
            .iter()
            .filter(|(_, key)| shown(*key))
            .map(|(name, _)| *name)
            .collect();
        self.check_keys_listing(entries, &names, &listed, context);
        let mut known: Vec<(usize, S, &Node, &Node)> = entries
            .iter()
            .filter_map(|(key, value)| {
                let name = key.as_str()?;
                let at = S::KEYS.iter().position(|(n, _)| *n == name)?;
                Some((at, S::KEYS[at].1, key, value))
            })
            .collect();
        known.sort_by_key(|(at, ..)| *at);
        known.into_iter().map(|(_, s, k, v)| (s, k, v)).collect()
    }

    /// Reports every key not in `allowed` (with a did-you-mean), and every key that is not a
    /// string.
    pub fn check_keys(&mut self, entries: &[(Node, Node)], allowed: &[&str], context: &str) {
        self.check_keys_listing(entries, allowed, allowed, context);
    }

    /// [`check_keys`](Self::check_keys), offering only `listed` in its helps.
    fn check_keys_listing(
        &mut self,
        entries: &[(Node, Node)],
        allowed: &[&str],
        listed: &[&str],
        context: &str,
    ) {
        for (key, value) in entries {
            let Some(name) = key.as_str() else {
                self.wrong_kind(key, "a key", "a string");
                continue;
            };
            if allowed.contains(&name) {
                continue;
            }
            let help = if looks_like_prose(name, value) {
                Some(
                    "this looks like the end of the text before it: in a flow map `{ … }` a comma \
                     ends a value, so quote a value that holds one (`description: \"…, …\"`)"
                        .to_owned(),
                )
            } else {
                suggest(name, listed.iter().copied()).map(|m| format!("did you mean `{m}`?"))
            };
            self.report(
                self.error(
                    Kind::UnknownKey,
                    key.span,
                    format!("unknown key `{name}` in {context}"),
                )
                .with_label("not a known key")
                .with_help_opt(help.or_else(|| Some(format!("known keys: {}", listed.join(", "))))),
            );
        }
    }

    /// The name a built-in tool (`what`: `explain`, `task status`) is given at `node` (the
    /// value of `key`), when it is a valid tool name.
    pub fn builtin_name(&mut self, node: &Node, key: &str, what: &str) -> Option<String> {
        let name = self.string(node, key)?;
        if toolspec_vocab::naming::is_canonical(&name) {
            return Some(name);
        }
        self.report(
            self.error(
                Kind::InvalidValue,
                node.span,
                format!("{what} tool name `{name}` is not a valid tool name"),
            )
            .with_label("not a tool name")
            .with_help("use 1–64 lowercase letters, digits and underscores"),
        );
        None
    }

    /// A string value.
    pub fn string(&mut self, node: &Node, what: &str) -> Option<String> {
        match &node.value {
            Value::Str(s) => Some(s.clone()),
            _ => {
                self.wrong_kind(node, what, "a string");
                None
            }
        }
    }

    /// A string value that must not be blank.
    pub fn non_empty_string(&mut self, node: &Node, what: &str) -> Option<String> {
        let s = self.string(node, what)?;
        if s.trim().is_empty() {
            self.report(
                self.error(
                    Kind::InvalidValue,
                    node.span,
                    format!("{what} must not be empty"),
                )
                .with_label("empty"),
            );
            return None;
        }
        Some(s)
    }

    /// The non-blank string at key `key` of the map `node`; a missing one is reported at
    /// `at` (`what` has no `key`), with `help`.
    pub fn required_string(
        &mut self,
        node: &Node,
        key: &str,
        at: Span,
        what: &str,
        help: Option<&str>,
    ) -> Option<String> {
        if let Some(value) = node.get(key) {
            return self.non_empty_string(value, &format!("`{key}`"));
        }
        self.report(
            self.error(Kind::MissingKey, at, format!("{what} has no `{key}`"))
                .with_label(format!("missing `{key}`"))
                .with_help_opt(help.map(str::to_owned)),
        );
        None
    }

    /// A string with its span.
    pub fn spanned_string(&mut self, node: &Node, what: &str) -> Option<Spanned<String>> {
        self.string(node, what).map(|s| Spanned::new(s, node.span))
    }

    /// A boolean value.
    pub fn bool(&mut self, node: &Node, what: &str) -> Option<bool> {
        match node.value {
            Value::Bool(b) => Some(b),
            _ => {
                self.wrong_kind_as(
                    node,
                    what,
                    "a boolean (`true` or `false`)",
                    Some(SettingKind::Boolean),
                );
                None
            }
        }
    }

    /// A non-negative integer.
    pub fn u64(&mut self, node: &Node, what: &str) -> Option<u64> {
        match node.value {
            Value::Int(i) if i >= 0 => Some(i as u64),
            Value::Int(_) => {
                self.report(
                    self.error(
                        Kind::InvalidValue,
                        node.span,
                        format!("{what} must not be negative"),
                    )
                    .with_label("negative"),
                );
                None
            }
            _ => {
                self.wrong_kind_as(node, what, "a whole number", Some(SettingKind::Integer));
                None
            }
        }
    }

    /// Any number.
    pub fn number(&mut self, node: &Node, what: &str) -> Option<Number> {
        match node.value {
            Value::Int(i) => Some(Number::from(i)),
            Value::Float(f) => match Number::from_f64(f) {
                Some(n) => Some(n),
                None => {
                    self.report(
                        self.error(
                            Kind::InvalidValue,
                            node.span,
                            format!("{what} must be a finite number"),
                        )
                        .with_label("not finite"),
                    );
                    None
                }
            },
            _ => {
                self.wrong_kind_as(node, what, "a number", Some(SettingKind::Integer));
                None
            }
        }
    }

    /// A list of nodes.
    pub fn seq<'n>(&mut self, node: &'n Node, what: &str) -> Option<&'n [Node]> {
        match node.as_seq() {
            Some(items) => Some(items),
            None => {
                self.wrong_kind(node, what, "a list");
                None
            }
        }
    }

    /// A list of strings (a single string is accepted as a one-item list).
    pub fn string_list(&mut self, node: &Node, what: &str) -> Vec<Spanned<String>> {
        if let Value::Str(s) = &node.value {
            return vec![Spanned::new(s.clone(), node.span)];
        }
        let Some(items) = self.seq(node, what) else {
            return Vec::new();
        };
        items
            .iter()
            .filter_map(|item| self.spanned_string(item, &format!("each item of {what}")))
            .collect()
    }

    /// A setting value (string, boolean or integer).
    pub fn setting_value(&mut self, node: &Node, what: &str) -> Option<Spanned<SettingValue>> {
        let value = match &node.value {
            Value::Str(s) => SettingValue::Str(s.clone().into()),
            Value::Bool(b) => SettingValue::Bool(*b),
            Value::Int(i) => SettingValue::Int(*i),
            _ => {
                self.wrong_kind(node, what, "a string, boolean or integer");
                return None;
            }
        };
        Some(Spanned::new(value, node.span))
    }
}

/// Sibling names that become one kind of Rust identifier (a struct's fields, a trait's
/// methods, an enum's variants): reports a name whose Rust spelling an earlier one has.
pub struct Spellings {
    /// What the names are, plural (`fields`).
    what: &'static str,
    /// What they become, before the spelling (`the Rust field`).
    rust: &'static str,
    /// Every spelling so far, with the name and the place that took it.
    seen: BTreeMap<String, (String, Span)>,
}

impl Spellings {
    /// No names yet.
    pub fn new(what: &'static str, rust: &'static str) -> Self {
        Self {
            what,
            rust,
            seen: BTreeMap::new(),
        }
    }

    /// Takes `spelled` for `name` (written at `span`); false, with an error, if an earlier name
    /// has it.
    pub fn admit(&mut self, r: &mut Reader<'_>, name: &str, span: Span, spelled: String) -> bool {
        let Some((first, first_span)) = self.seen.get(&spelled) else {
            self.seen.insert(spelled, (name.to_owned(), span));
            return true;
        };
        let d = Diagnostic::error(
            Kind::NameClash,
            r.file,
            Some(span),
            format!(
                "{} `{first}` and `{name}` are both {} `{spelled}`",
                self.what, self.rust
            ),
        )
        .with_label(format!("also `{spelled}` in Rust"))
        .with_related(r.file, *first_span, "the first one")
        .with_help("rename one of them: Rust would see the same name twice");
        r.report(d);
        false
    }
}

/// A help for a string written where a boolean or number was expected, when the string
/// looks like one (`"true"`, `yes`, `"1"`).
pub fn unquote_hint(node: &Node, expected: SettingKind) -> Option<String> {
    let Value::Str(text) = &node.value else {
        return None;
    };
    let t = text.trim();
    match expected {
        SettingKind::Boolean => match t.to_ascii_lowercase().as_str() {
            "true" | "false" if node.quoted => {
                Some(format!("remove the quotes: `{}`", t.to_ascii_lowercase()))
            }
            "true" | "yes" | "on" | "y" => Some("write `true` (without quotes)".into()),
            "false" | "no" | "off" | "n" => Some("write `false` (without quotes)".into()),
            _ => None,
        },
        SettingKind::Integer => (!t.is_empty() && t.parse::<f64>().is_ok_and(f64::is_finite))
            .then(|| format!("remove the quotes: `{t}`")),
        SettingKind::String => None,
    }
}

/// A "did you mean" candidate: the closest by edit distance, else the only candidate that
/// starts with `word` (`present` → `present_as`, `ambient` → `ambient_context`).
pub fn suggest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let candidates: Vec<&'a str> = candidates.into_iter().collect();
    if let Some(m) = did_you_mean(word, candidates.iter().copied()) {
        return Some(m);
    }
    let normalize = |s: &str| s.to_lowercase().replace('-', "_");
    let word = normalize(word);
    if word.chars().count() < 3 {
        return None;
    }
    let mut prefixed = candidates
        .iter()
        .copied()
        .filter(|c| normalize(c).starts_with(&word));
    match (prefixed.next(), prefixed.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// "a map", "an integer"…
pub fn article(kind: &str) -> String {
    match kind.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => format!("an {kind}"),
        _ => format!("a {kind}"),
    }
}

/// "on an `integer` field"
pub fn on_field(kind: &str) -> String {
    let an = kind.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']);
    format!("on {} `{kind}` field", if an { "an" } else { "a" })
}

/// Whether `s` is an identifier in the spec sense: `[a-z][a-z0-9_]*`.
pub fn is_snake_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// Whether an unknown key is rather the rest of a text a comma cut off in a flow map
/// (`{ description: Text to look for, case-insensitive. }`): no value, and not shaped like a
/// key (spaces, or punctuation other than `_` and `-`).
fn looks_like_prose(name: &str, value: &Node) -> bool {
    matches!(value.value, Value::Null)
        && !value.quoted
        && name
            .chars()
            .any(|c| c.is_whitespace() || (c.is_ascii_punctuation() && c != '_' && c != '-'))
}

/// A snake_case identifier (a guard's, a form's…) at `node`, or `None` (reported).
pub fn check_identifier(r: &mut Reader<'_>, node: &Node, what: &str) -> Option<Spanned<String>> {
    let s = r.spanned_string(node, what)?;
    if !is_snake_identifier(&s.value) {
        let suggestion = toolspec_vocab::naming::snake_case(&s.value);
        r.report(
            r.error(
                Kind::InvalidValue,
                node.span,
                format!("{what} `{}` is not snake_case", s.value),
            )
            .with_label("not snake_case")
            .with_help(if is_snake_identifier(&suggestion) {
                format!("use lowercase letters, digits and underscores, like `{suggestion}`")
            } else {
                "use lowercase letters, digits and underscores, starting with a letter".into()
            }),
        );
        return None;
    }
    Some(s)
}
