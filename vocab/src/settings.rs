//! Adapter settings: what each adapter lets a project and a tool configure, and how a tool's
//! effective value is resolved (tool override, else project default, else adapter default).
//!
//! The compiler checks a tool's overrides against an adapter's [`AdapterDecl`]; the adapters
//! read the effective values through [`Settings`] at run time. Both resolve them here.

use std::borrow::Cow;
use std::fmt;

use crate::naming::NameRule;

/// The setting of the adapters that can answer a success with the rendered `message`.
pub const PRESENT_AS: &str = "present_as";
/// The setting that turns a provider's strict mode on.
pub const STRICT: &str = "strict";

/// A setting's value.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub enum SettingValue {
    /// A string (also used for one-of choices such as `present_as: message`).
    Str(Cow<'static, str>),
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
}

impl SettingValue {
    /// A static string value (usable in `const` and `static` items).
    pub const fn str(value: &'static str) -> Self {
        Self::Str(Cow::Borrowed(value))
    }

    /// The value's type.
    pub fn kind(&self) -> SettingKind {
        match self {
            Self::Str(_) => SettingKind::String,
            Self::Bool(_) => SettingKind::Boolean,
            Self::Int(_) => SettingKind::Integer,
        }
    }
}

impl fmt::Display for SettingValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Str(s) => f.write_str(s),
            Self::Bool(b) => write!(f, "{b}"),
            Self::Int(i) => write!(f, "{i}"),
        }
    }
}

/// The type of a setting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SettingKind {
    /// A string.
    String,
    /// `true` or `false`.
    Boolean,
    /// A whole number.
    Integer,
}

impl SettingKind {
    /// The spelling used in specs (`string`, `boolean`, `integer`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::String => "string",
            Self::Boolean => "boolean",
            Self::Integer => "integer",
        }
    }

    /// "a string", "a boolean", "an integer".
    pub fn with_article(self) -> &'static str {
        match self {
            Self::String => "a string",
            Self::Boolean => "a boolean",
            Self::Integer => "an integer",
        }
    }

    /// Parses a spelling used in specs.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "string" => Some(Self::String),
            "boolean" => Some(Self::Boolean),
            "integer" => Some(Self::Integer),
            _ => None,
        }
    }

    /// Every kind's spelling.
    pub const NAMES: &'static [&'static str] = &["string", "boolean", "integer"];
}

/// One setting an adapter declares.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingDecl {
    /// The setting's key under `tool: {ADAPTER: {…}}`.
    pub name: Cow<'static, str>,
    /// Its type.
    pub kind: SettingKind,
    /// The value when neither the project nor the tool sets one.
    pub default: Option<SettingValue>,
    /// The only values allowed (empty: any value of the kind).
    pub allowed: Cow<'static, [SettingValue]>,
    /// Whether a tool may override it.
    pub overridable: bool,
}

impl SettingDecl {
    /// Checks a value against the declaration; the error says what is wrong.
    pub fn check(&self, value: &SettingValue) -> Result<(), SettingError> {
        if value.kind() != self.kind {
            return Err(SettingError::Kind {
                setting: self.name.to_string(),
                expected: self.kind,
                found: value.kind(),
            });
        }
        if !self.allowed.is_empty() && !self.allowed.contains(value) {
            return Err(SettingError::NotAllowed {
                setting: self.name.to_string(),
                value: value.clone(),
                allowed: self.allowed.to_vec(),
            });
        }
        Ok(())
    }
}

/// A value a setting does not take.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum SettingError {
    /// A value of another kind.
    Kind {
        /// The setting.
        setting: String,
        /// The kind it takes.
        expected: SettingKind,
        /// The kind found.
        found: SettingKind,
    },
    /// A value not among the allowed ones.
    NotAllowed {
        /// The setting.
        setting: String,
        /// The value found.
        value: SettingValue,
        /// The values it takes.
        allowed: Vec<SettingValue>,
    },
}

impl std::fmt::Display for SettingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Kind {
                setting,
                expected,
                found,
            } => write!(
                f,
                "setting `{setting}` takes {}, found {}",
                expected.with_article(),
                found.with_article()
            ),
            Self::NotAllowed {
                setting,
                value,
                allowed,
            } => {
                let allowed: Vec<String> = allowed.iter().map(|v| format!("`{v}`")).collect();
                write!(
                    f,
                    "`{value}` is not a valid value for setting `{setting}` (expected one of {})",
                    allowed.join(", ")
                )
            }
        }
    }
}

impl std::error::Error for SettingError {}

/// An adapter as the project knows it: its settings and the tool names it accepts.
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterDecl {
    /// The adapter's key (`mcp`, `openai`, a custom adapter's name).
    pub name: Cow<'static, str>,
    /// Its settings, with the project's defaults applied.
    pub settings: Cow<'static, [SettingDecl]>,
    /// Which tool names the adapter's transport accepts.
    pub name_rule: NameRule,
    /// Semantic hints this adapter registers (like axn-mcp's `open_world`, `closed_world`).
    pub hints: Cow<'static, [Cow<'static, str>]>,
}

impl AdapterDecl {
    /// The declaration of setting `name`.
    pub fn setting(&self, name: &str) -> Option<&SettingDecl> {
        self.settings.iter().find(|s| s.name == name)
    }
}

/// How a successful result is presented by MCP and function-calling adapters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PresentAs {
    /// The exposed values as JSON.
    #[default]
    Structured,
    /// The rendered success message.
    Message,
}

/// A tool's effective settings on one adapter: its overrides (`K` is the key type:
/// `&'static str` in generated descriptors, `String` in the compiler) over the adapter's
/// declared defaults.
#[derive(Debug)]
pub struct Settings<'a, K = &'static str> {
    adapter: &'a AdapterDecl,
    overrides: &'a [(K, SettingValue)],
}

impl<K> Clone for Settings<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for Settings<'_, K> {}

impl<'a, K: AsRef<str>> Settings<'a, K> {
    /// Resolves settings from an adapter's declaration and a tool's overrides on it.
    pub fn new(adapter: &'a AdapterDecl, overrides: &'a [(K, SettingValue)]) -> Self {
        Self { adapter, overrides }
    }

    /// The effective value of `name`: the tool's override, else the project/adapter default.
    pub fn get(&self, name: &str) -> Option<&'a SettingValue> {
        if let Some((_, v)) = self.overrides.iter().find(|(k, _)| k.as_ref() == name) {
            return Some(v);
        }
        self.adapter.setting(name).and_then(|s| s.default.as_ref())
    }

    /// A string setting's value.
    pub fn get_str(&self, name: &str) -> Option<&'a str> {
        match self.get(name)? {
            SettingValue::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A boolean setting's value.
    pub fn get_bool(&self, name: &str) -> Option<bool> {
        match self.get(name)? {
            SettingValue::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// An integer setting's value.
    pub fn get_int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            SettingValue::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The shared `present_as` render toggle (structured when the adapter has no such setting).
    pub fn present_as(&self) -> PresentAs {
        match self.get_str(PRESENT_AS) {
            Some("message") => PresentAs::Message,
            _ => PresentAs::Structured,
        }
    }

    /// The adapter these settings belong to.
    pub fn adapter(&self) -> &'a AdapterDecl {
        self.adapter
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mcp() -> &'static AdapterDecl {
        crate::adapters::builtin(crate::adapters::MCP).unwrap()
    }

    #[test]
    fn override_beats_default() {
        let overrides = [("present_as", SettingValue::str("message"))];
        let settings = Settings::new(mcp(), &overrides[..]);
        assert_eq!(settings.present_as(), PresentAs::Message);
        assert_eq!(
            Settings::<&str>::new(mcp(), &[]).present_as(),
            PresentAs::Structured
        );
    }

    #[test]
    fn check_names_type_and_allowed_values() {
        let decl = mcp().setting("present_as").unwrap();
        assert_eq!(
            decl.check(&SettingValue::Bool(true))
                .unwrap_err()
                .to_string(),
            "setting `present_as` takes a string, found a boolean"
        );
        assert_eq!(
            decl.check(&SettingValue::str("html"))
                .unwrap_err()
                .to_string(),
            "`html` is not a valid value for setting `present_as` (expected one of `structured`, `message`)"
        );
        assert!(decl.check(&SettingValue::str("message")).is_ok());
    }
}
