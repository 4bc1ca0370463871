//! How the names a spec writes become Rust identifiers: the one rule for every place one does
//! (fields, guards, error codes, enum values, union variants, named types, spec files and
//! folders).
//!
//! - Values (fields, guards) and modules are `snake_case`; types and variants `UpperCamelCase`;
//!   all ASCII.
//! - A keyword of any edition, 2015 to 2024 (strict, reserved and weak: [`KEYWORDS`]), is written
//!   raw (`r#type`), so generated code compiles in every edition.
//! - The five names that cannot be raw (`self`, `Self`, `super`, `crate`, `_`) get a trailing
//!   underscore (`self_`, `Self_`); serde keeps the spec's spelling on the wire.
//! - A value name that is empty or starts with a digit gets `f_` in front (`2fa` → `f_2fa`); a
//!   module name cannot, so such a file or folder is refused ([`module_name`]).
//!
//! The checker compares these spellings to report two spec names that would be one Rust
//! identifier; the emitter turns them into tokens with [`ident`]. This module knows nothing of
//! specs or diagnostics.

use std::borrow::Cow;

use proc_macro2::{Ident, Span};

/// Every keyword of every edition (2015–2024): strict, reserved and weak, and `_`.
#[rustfmt::skip]
pub const KEYWORDS: &[&str] = &[
    // Strict in every edition.
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
    "use", "where", "while",
    // Strict since 2018.
    "async", "await", "dyn",
    // Reserved (`try` since 2018, `gen` since 2024).
    "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof",
    "unsized", "virtual", "yield", "try", "gen",
    // Weak: keywords in some places only.
    "macro_rules", "union", "safe", "raw",
    // The placeholder.
    "_",
];

/// The keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// `text`, an identifier, spelled so that Rust accepts it: a trailing `_` for a name that
/// cannot be raw. Other keywords are left as they are ([`ident`] makes them raw).
pub fn spelling(text: &str) -> Cow<'_, str> {
    if NOT_RAW.contains(&text) {
        Cow::Owned(format!("{text}_"))
    } else {
        Cow::Borrowed(text)
    }
}

/// The spelling of a field or guard named `name`: `orderId` → `order_id`, `2fa` → `f_2fa`,
/// `self` → `self_`.
pub fn value_name(name: &str) -> String {
    let snake = toolspec_vocab::naming::snake_case(name);
    let snake = if snake.is_empty() || snake.starts_with(|c: char| c.is_ascii_digit()) {
        format!("f_{snake}")
    } else {
        snake
    };
    spelling(&snake).into_owned()
}

/// Why a file or folder name has no module spelling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoModule {
    /// No ASCII letter or digit.
    Empty,
    /// It starts with a digit.
    Digit,
}

/// The spelling of the module for a spec file or folder named `segment` (without `.yaml`).
pub fn module_name(segment: &str) -> Result<String, NoModule> {
    let snake = toolspec_vocab::naming::snake_case(segment);
    match snake.chars().next() {
        None => Err(NoModule::Empty),
        Some(c) if c.is_ascii_digit() => Err(NoModule::Digit),
        Some(_) => Ok(spelling(&snake).into_owned()),
    }
}

/// The `UpperCamelCase` spelling of a type or variant named after `text` (any text, such as an
/// enum value): ASCII letters and digits only, never empty (`Empty`), never starting with a
/// digit (`V2`), never `Self` (`Self_`).
pub fn type_name(text: &str) -> String {
    let ascii: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect();
    let name = heck::AsUpperCamelCase(ascii.trim()).to_string();
    let name = if name.is_empty() {
        "Empty".into()
    } else if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{name}")
    } else {
        name
    };
    spelling(&name).into_owned()
}

/// The `n`th spelling for `base` when earlier ones are taken (`Reason2`; `Self_` gives `Self2`,
/// as a digit after `_` is not camel case).
pub fn numbered(base: &str, n: usize) -> String {
    format!("{}{n}", base.trim_end_matches('_'))
}

/// The identifier for a spelling: raw for a keyword. Total: characters Rust does not allow in
/// an identifier become `_` (the spellings above have none).
pub fn ident(spelling_: &str) -> Ident {
    let mut text: String = spelling_
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if text.is_empty() || text.starts_with(|c: char| c.is_ascii_digit()) {
        text.insert(0, '_');
    }
    let text = spelling(&text);
    if KEYWORDS.contains(&text.as_ref()) {
        Ident::new_raw(&text, Span::call_site())
    } else {
        Ident::new(&text, Span::call_site())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_get_a_spelling_rust_accepts() {
        for keyword in KEYWORDS {
            let value = value_name(keyword);
            let ty = type_name(keyword);
            for text in [value.as_str(), ty.as_str(), &spelling(keyword)] {
                let ident = ident(text).to_string();
                syn::parse_str::<syn::Ident>(ident.trim_start_matches("r#"))
                    .or_else(|_| syn::parse_str::<syn::Ident>(&ident))
                    .unwrap_or_else(|e| panic!("{keyword}: `{ident}` does not parse: {e}"));
            }
        }
        assert_eq!(value_name("self"), "self_");
        assert_eq!(value_name("Self"), "self_");
        assert_eq!(value_name("_"), "f_");
        assert_eq!(value_name("type"), "type");
        assert_eq!(ident("type").to_string(), "r#type");
        assert_eq!(ident("gen").to_string(), "r#gen");
        assert_eq!(type_name("self"), "Self_");
        assert_eq!(type_name("Größe"), "GrE");
        assert_eq!(type_name("²"), "Empty");
        assert_eq!(type_name("2fa"), "V2fa");
        assert_eq!(numbered(&type_name("Self"), 2), "Self2");
        assert_eq!(module_name("Self"), Ok("self_".into()));
        assert_eq!(module_name("2024"), Err(NoModule::Digit));
        assert_eq!(module_name("__"), Err(NoModule::Empty));
        assert_eq!(ident("not an identifier").to_string(), "not_an_identifier");
    }
}
