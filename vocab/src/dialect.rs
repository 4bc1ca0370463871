//! Provider dialects: the forms of a tool's input schema that providers accept, and which one
//! a member of an adapter is declared in.
//!
//! The compiler derives each dialect from the canonical schema at build time; the adapters
//! read the one they need from the tool's descriptor. Both pick it with
//! [`Dialect::for_member`].

use std::fmt;

use crate::adapters::{ANTHROPIC, GEMINI, MCP, OPENAI, RIG};
use crate::settings::{STRICT, Settings};

/// A provider's JSON Schema dialect.
///
/// Declared in the order of their names, so sorting dialects sorts their names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub enum Dialect {
    /// Anthropic Messages `input_schema`, non-strict: the canonical schema.
    Anthropic,
    /// Anthropic strict tool use.
    AnthropicStrict,
    /// Gemini `FunctionDeclaration.parameters` (an OpenAPI 3.0 subset).
    Gemini,
    /// MCP `inputSchema`: the canonical schema, unchanged.
    Mcp,
    /// OpenAI function `parameters`, `strict: false`.
    OpenAi,
    /// OpenAI function `parameters`, `strict: true` (Structured Outputs).
    OpenAiStrict,
}

impl Dialect {
    /// Every dialect, sorted by name.
    pub const ALL: [Dialect; 6] = [
        Self::Anthropic,
        Self::AnthropicStrict,
        Self::Gemini,
        Self::Mcp,
        Self::OpenAi,
        Self::OpenAiStrict,
    ];

    /// The dialect's name (`openai-strict`).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::AnthropicStrict => "anthropic-strict",
            Self::Gemini => "gemini",
            Self::Mcp => "mcp",
            Self::OpenAi => "openai",
            Self::OpenAiStrict => "openai-strict",
        }
    }

    /// The dialect called `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.name() == name)
    }

    /// The adapter whose tool definitions this dialect is written for.
    pub const fn adapter(self) -> &'static str {
        match self {
            Self::Anthropic | Self::AnthropicStrict => ANTHROPIC,
            Self::Gemini => GEMINI,
            Self::Mcp => MCP,
            Self::OpenAi | Self::OpenAiStrict => OPENAI,
        }
    }

    /// Whether this is a provider's strict mode.
    pub const fn is_strict(self) -> bool {
        matches!(self, Self::OpenAiStrict | Self::AnthropicStrict)
    }

    /// The same provider's dialect without its strict mode (itself when it has none).
    pub const fn relaxed(self) -> Self {
        match self {
            Self::OpenAiStrict => Self::OpenAi,
            Self::AnthropicStrict => Self::Anthropic,
            other => other,
        }
    }

    /// Whether the dialect makes every optional property nullable, so that a model sends
    /// `null` for "not given" (OpenAI strict mode): an adapter drops such nulls before the
    /// arguments are checked against the canonical schema.
    pub const fn nulls_optionals(self) -> bool {
        matches!(self, Self::OpenAiStrict)
    }

    /// Whether the dialect declares every enum as strings, so that a model sends the spelling
    /// of a number or boolean (Gemini): an adapter turns it back into the value.
    pub const fn spells_enums(self) -> bool {
        matches!(self, Self::Gemini)
    }

    /// The dialect a member of `adapter` is declared in, given its effective settings there:
    /// OpenAI and Anthropic by their `strict` setting, Gemini its own, rig the non-strict
    /// OpenAI form (it hands definitions to whichever provider it is configured with), and
    /// every other adapter (MCP, HTTP, custom ones) the canonical schema.
    pub fn for_member<K: AsRef<str>>(adapter: &str, settings: &Settings<'_, K>) -> Self {
        let strict = settings.get_bool(STRICT) == Some(true);
        match adapter {
            OPENAI if strict => Self::OpenAiStrict,
            OPENAI | RIG => Self::OpenAi,
            ANTHROPIC if strict => Self::AnthropicStrict,
            ANTHROPIC => Self::Anthropic,
            GEMINI => Self::Gemini,
            _ => Self::Mcp,
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::SettingValue;

    #[test]
    fn all_is_sorted_by_name() {
        let names: Vec<&str> = Dialect::ALL.iter().map(|d| d.name()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        for d in Dialect::ALL {
            assert_eq!(Dialect::parse(d.name()), Some(d));
        }
    }

    #[test]
    fn members_follow_their_strict_setting() {
        let openai = crate::adapters::builtin(OPENAI).unwrap();
        let strict = [("strict", SettingValue::Bool(true))];
        assert_eq!(
            Dialect::for_member(OPENAI, &Settings::new(openai, &strict[..])),
            Dialect::OpenAiStrict
        );
        assert_eq!(
            Dialect::for_member::<&str>(OPENAI, &Settings::new(openai, &[])),
            Dialect::OpenAi
        );
        let mcp = crate::adapters::builtin(MCP).unwrap();
        assert_eq!(
            Dialect::for_member::<&str>("custom", &Settings::new(mcp, &[])),
            Dialect::Mcp
        );
    }
}
