//! The adapters toolspec ships: their names, and what each lets a tool configure.
//!
//! A project may declare more adapters of its own in `specs/toolspec.yaml`; those are known
//! only by the name and settings the project gives them.

use std::borrow::Cow;

use crate::hints;
use crate::naming::NameRule;
use crate::settings::{self, AdapterDecl, SettingDecl, SettingKind, SettingValue};

/// Anthropic Messages API tools.
pub const ANTHROPIC: &str = "anthropic";
/// Gemini function declarations.
pub const GEMINI: &str = "gemini";
/// The HTTP API.
pub const HTTP: &str = "http";
/// The Model Context Protocol.
pub const MCP: &str = "mcp";
/// OpenAI Chat Completions and Responses API tools.
pub const OPENAI: &str = "openai";
/// rig agents.
pub const RIG: &str = "rig";

const PRESENT_AS_VALUES: &[SettingValue] = &[
    SettingValue::str("structured"),
    SettingValue::str("message"),
];

const fn present_as() -> SettingDecl {
    SettingDecl {
        name: Cow::Borrowed(settings::PRESENT_AS),
        kind: SettingKind::String,
        default: Some(SettingValue::str("structured")),
        allowed: Cow::Borrowed(PRESENT_AS_VALUES),
        overridable: true,
    }
}

const fn strict() -> SettingDecl {
    SettingDecl {
        name: Cow::Borrowed(settings::STRICT),
        kind: SettingKind::Boolean,
        default: Some(SettingValue::Bool(false)),
        allowed: Cow::Borrowed(&[]),
        overridable: true,
    }
}

const fn declare(
    name: &'static str,
    settings: &'static [SettingDecl],
    name_rule: NameRule,
    hints: &'static [Cow<'static, str>],
) -> AdapterDecl {
    AdapterDecl {
        name: Cow::Borrowed(name),
        settings: Cow::Borrowed(settings),
        name_rule,
        hints: Cow::Borrowed(hints),
    }
}

const PRESENT_AS: &[SettingDecl] = &[present_as()];
const STRICT_AND_PRESENT_AS: &[SettingDecl] = &[present_as(), strict()];
const MCP_HINTS: &[Cow<'static, str>] = &[
    Cow::Borrowed(hints::OPEN_WORLD),
    Cow::Borrowed(hints::CLOSED_WORLD),
];

/// The adapters toolspec ships, with their settings at their library defaults, sorted by name.
pub const BUILTIN: &[AdapterDecl] = &[
    declare(
        ANTHROPIC,
        STRICT_AND_PRESENT_AS,
        NameRule::FunctionCalling,
        &[],
    ),
    declare(GEMINI, PRESENT_AS, NameRule::Gemini, &[]),
    declare(HTTP, &[], NameRule::Mcp, &[]),
    declare(MCP, PRESENT_AS, NameRule::Mcp, MCP_HINTS),
    declare(
        OPENAI,
        STRICT_AND_PRESENT_AS,
        NameRule::FunctionCalling,
        &[],
    ),
    declare(RIG, PRESENT_AS, NameRule::FunctionCalling, &[]),
];

/// The built-in adapter called `name`, as shipped.
pub fn builtin(name: &str) -> Option<&'static AdapterDecl> {
    BUILTIN.iter().find(|a| a.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_sorted_and_unique() {
        let names: Vec<&str> = BUILTIN.iter().map(|a| a.name.as_ref()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(names, sorted);
    }

    #[test]
    fn default_hints_are_the_core_then_the_builtin_adapters_own() {
        let mut expected: Vec<&str> = crate::hints::CORE.to_vec();
        for adapter in BUILTIN {
            expected.extend(adapter.hints.iter().map(|h| h.as_ref()));
        }
        assert_eq!(crate::hints::DEFAULT, expected.as_slice());
    }
}
