//! Tool names: the one canonical, provider-safe name every tool gets, and the per-transport
//! rules that per-adapter name overrides must follow.
//!
//! An explicit `name:` wins; otherwise the name is derived from the spec's path below the
//! specs directory (`orders/cancel.yaml` → `orders_cancel`), configured prefixes are stripped,
//! and the result is snake_case in `[a-z0-9_]`, 1–64 characters, never blank.

use std::fmt;

/// The longest canonical tool name (OpenAI's and Anthropic's limit).
pub const MAX_NAME_LEN: usize = 64;

/// Why a name could not be derived.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameError {
    /// Nothing was left after snake-casing and stripping prefixes.
    Empty,
    /// The name is longer than [`MAX_NAME_LEN`].
    TooLong(String),
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("the derived tool name is empty"),
            Self::TooLong(name) => write!(
                f,
                "the derived tool name `{name}` is {} characters long (at most {MAX_NAME_LEN})",
                name.chars().count()
            ),
        }
    }
}

impl std::error::Error for NameError {}

/// Converts any text to snake_case in `[a-z0-9_]`: word boundaries (case changes, separators,
/// any other character) become single underscores; leading/trailing underscores are dropped.
///
/// ```
/// assert_eq!(toolspec_vocab::naming::snake_case("PlaceOrder"), "place_order");
/// assert_eq!(toolspec_vocab::naming::snake_case("orders/cancel-now"), "orders_cancel_now");
/// assert_eq!(toolspec_vocab::naming::snake_case("HTTPServer2"), "http_server2");
/// ```
pub fn snake_case(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut pending_sep = false;
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_alphanumeric() {
            if c.is_ascii_uppercase() && i > 0 {
                let prev = chars[i - 1];
                let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
                if prev.is_ascii_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_ascii_uppercase() && next_lower)
                {
                    pending_sep = true;
                }
            }
            if pending_sep && !out.is_empty() {
                out.push('_');
            }
            pending_sep = false;
            out.push(c.to_ascii_lowercase());
        } else {
            pending_sep = true;
        }
    }
    out
}

/// Derives the canonical tool name from a spec path relative to the specs directory
/// (`orders/cancel.yaml`), stripping the first matching prefix of `strip_prefixes`.
///
/// ```
/// use toolspec_vocab::naming::derive_name;
/// assert_eq!(derive_name("orders/cancel.yaml", &[]).unwrap(), "orders_cancel");
/// assert_eq!(derive_name("tools/orders/Place.yml", &["tools_"]).unwrap(), "orders_place");
/// ```
pub fn derive_name(spec_path: &str, strip_prefixes: &[&str]) -> Result<String, NameError> {
    let without_ext = spec_path
        .strip_suffix(".yaml")
        .or_else(|| spec_path.strip_suffix(".yml"))
        .unwrap_or(spec_path);
    let name = snake_case(without_ext);
    normalize(&name, strip_prefixes)
}

/// Strips configured prefixes from an already snake-cased name and checks its length.
pub fn normalize(name: &str, strip_prefixes: &[&str]) -> Result<String, NameError> {
    let mut name = name;
    for prefix in strip_prefixes {
        if let Some(rest) = name.strip_prefix(prefix) {
            name = rest;
            break;
        }
    }
    let name = name.trim_matches('_');
    if name.is_empty() {
        return Err(NameError::Empty);
    }
    if name.chars().count() > MAX_NAME_LEN {
        return Err(NameError::TooLong(name.to_owned()));
    }
    Ok(name.to_owned())
}

/// Whether `name` is a valid canonical tool name.
pub fn is_canonical(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_LEN
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// The tool names a transport accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameRule {
    /// MCP: 1–128 characters of `A-Z a-z 0-9 _ - .`.
    Mcp,
    /// OpenAI, Anthropic, rig: `^[a-zA-Z0-9_-]{1,64}$`.
    FunctionCalling,
    /// Gemini: a letter or `_`, then `A-Z a-z 0-9 _ . : -`, at most 64 characters.
    Gemini,
}

/// A tool name its transport does not accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InvalidName {
    rule: NameRule,
}

impl InvalidName {
    /// The rule the name breaks.
    pub fn rule(&self) -> NameRule {
        self.rule
    }
}

impl std::fmt::Display for InvalidName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rule = self.rule;
        write!(
            f,
            "{} tool names must match {}",
            rule.transport(),
            rule.pattern()
        )
    }
}

impl std::error::Error for InvalidName {}

impl NameRule {
    /// Checks `name`; the error says what the transport requires.
    ///
    /// ```
    /// use toolspec_vocab::naming::NameRule;
    /// assert!(NameRule::Mcp.check("orders.cancel").is_ok());
    /// assert!(NameRule::FunctionCalling.check("orders.cancel").is_err());
    /// ```
    pub fn check(self, name: &str) -> Result<(), InvalidName> {
        type CharRule = fn(char) -> bool;
        let (max, ok_char, first_ok): (usize, CharRule, CharRule) = match self {
            Self::Mcp => (
                128,
                |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'),
                |_| true,
            ),
            Self::FunctionCalling => (
                64,
                |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'),
                |_| true,
            ),
            Self::Gemini => (
                64,
                |c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'),
                |c| c.is_ascii_alphabetic() || c == '_',
            ),
        };
        let len = name.chars().count();
        let valid = len >= 1
            && len <= max
            && name.chars().all(ok_char)
            && name.chars().next().is_some_and(first_ok);
        if valid {
            Ok(())
        } else {
            Err(InvalidName { rule: self })
        }
    }

    /// Who imposes the rule, for messages.
    pub fn transport(self) -> &'static str {
        match self {
            Self::Mcp => "MCP",
            Self::FunctionCalling => "OpenAI and Anthropic",
            Self::Gemini => "Gemini",
        }
    }

    /// The rule as a regular expression, for messages.
    pub fn pattern(self) -> &'static str {
        match self {
            Self::Mcp => "^[A-Za-z0-9_.-]{1,128}$",
            Self::FunctionCalling => "^[a-zA-Z0-9_-]{1,64}$",
            Self::Gemini => "^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derives_from_paths() {
        assert_eq!(
            derive_name("orders/cancel.yaml", &[]).unwrap(),
            "orders_cancel"
        );
        assert_eq!(
            derive_name("Billing/RefundPayment.yaml", &[]).unwrap(),
            "billing_refund_payment"
        );
        assert_eq!(derive_name("a//b--c.yaml", &[]).unwrap(), "a_b_c");
        assert_eq!(derive_name("tools_x/y.yaml", &["tools_"]).unwrap(), "x_y");
        assert_eq!(derive_name("---.yaml", &[]), Err(NameError::Empty));
        assert_eq!(derive_name("tools.yaml", &["tools"]), Err(NameError::Empty));
        let long = format!("{}.yaml", "a".repeat(65));
        assert!(matches!(
            derive_name(&long, &[]),
            Err(NameError::TooLong(_))
        ));
        assert_eq!(
            derive_name(&format!("{}.yaml", "a".repeat(64)), &[])
                .unwrap()
                .len(),
            64
        );
    }

    #[test]
    fn only_first_matching_prefix_is_stripped() {
        assert_eq!(normalize("tools_tools_x", &["tools_"]).unwrap(), "tools_x");
        assert_eq!(normalize("api_x", &["tools_", "api_"]).unwrap(), "x");
    }

    #[test]
    fn rules() {
        assert!(NameRule::Gemini.check("9lives").is_err());
        assert!(NameRule::Gemini.check("_a.b:c-d").is_ok());
        assert!(NameRule::Mcp.check(&"a".repeat(128)).is_ok());
        assert!(NameRule::Mcp.check(&"a".repeat(129)).is_err());
        assert!(NameRule::FunctionCalling.check("").is_err());
        assert_eq!(
            NameRule::FunctionCalling
                .check("a b")
                .unwrap_err()
                .to_string(),
            "OpenAI and Anthropic tool names must match ^[a-zA-Z0-9_-]{1,64}$"
        );
        assert!(is_canonical("orders_cancel"));
        assert!(!is_canonical("Orders"));
    }
}
