//! Regular expressions (`pattern`) as the runtime runs them.
//!
//! The runtime's validator (jsonschema) translates every ECMA 262 `pattern` to the `regex`
//! crate's syntax with `jsonschema-regex` and compiles it on the `regex` engine within
//! [`SIZE_LIMIT`]: matching takes time linear in the input, and there are no backreferences
//! or lookaround. This module does the same, with the same translation crate at the same
//! version: [`check`] refuses at build time, with the reason, what the runtime would refuse,
//! and [`Pattern::new`] gives the matcher the checks of `default:` values use, so that both
//! sides agree on what matches. It does not know where patterns are written.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};

use jsonschema_regex::{Search, is_valid_ecma_regex, search_form, to_rust_regex};

/// The most bytes a compiled pattern may take, and the lazy DFA's cache too: the runtime's
/// limit (`PATTERN_SIZE_LIMIT` in the runtime's validator).
pub const SIZE_LIMIT: usize = 1 << 20;

/// A pattern the runtime accepts, ready to match.
#[derive(Debug, Clone)]
pub struct Pattern(regex::Regex);

impl Pattern {
    /// The pattern, when the runtime can run it.
    pub fn new(pattern: &str) -> Option<Self> {
        check(pattern).ok()?;
        let translated = to_rust_regex(pattern).ok()?;
        build(&translated).ok().map(Pattern)
    }

    /// Whether `text` matches (anywhere, as JSON Schema's `pattern` does).
    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }
}

/// The `regex` engine with the runtime's limits.
fn build(translated: &str) -> Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(translated)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
}

/// Whether the runtime's validator accepts `pattern`: it translates it, and compiles the
/// translation (or the cheaper form it searches with) within the limits.
fn runtime_accepts(pattern: &str) -> bool {
    let Ok(translated) = to_rust_regex(pattern) else {
        return false;
    };
    match search_form(pattern, &translated) {
        Some(Search::RepeatedClass(_)) => true,
        Some(Search::Collapsed(collapsed)) => build(&collapsed).is_ok(),
        None => build(&translated).is_ok(),
    }
}

/// Why a pattern cannot be used, for a diagnostic on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// What is wrong, after "`pattern` `…` ".
    pub reason: &'static str,
    /// Under the caret.
    pub label: String,
    /// What to do.
    pub help: &'static str,
}

const ECMA_HELP: &str =
    "patterns are ECMA 262 regular expressions; escape a literal `[`, `(` or `{` with `\\`";
const ENGINE_HELP: &str = "patterns run in linear time on the `regex` crate's engine, which has no \
     backreferences or lookaround; write the pattern without them, or check the value in the handler";
const SIZE_HELP: &str =
    "write smaller counted repetitions (`{n,m}`), or check the value in the handler";

/// The verdicts on short patterns seen lately in this process: a pattern repeated across
/// fields, or specs checked again and again (tests, a fuzzer), is compiled once. Bounded:
/// patterns up to [`CACHED_LENGTH`] bytes, forgotten all at once at [`CACHED_PATTERNS`].
static VERDICTS: LazyLock<Mutex<HashMap<String, Result<(), Refusal>>>> =
    LazyLock::new(Mutex::default);
const CACHED_LENGTH: usize = 256;
const CACHED_PATTERNS: usize = 1024;

/// Whether the runtime can run `pattern`; if not, why. A pattern costs at most two compiles
/// within [`SIZE_LIMIT`], so however pathological, it costs a bounded time.
pub fn check(pattern: &str) -> Result<(), Refusal> {
    if pattern.len() > CACHED_LENGTH {
        return verdict(pattern);
    }
    let verdicts = || VERDICTS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(known) = verdicts().get(pattern) {
        return known.clone();
    }
    let found = verdict(pattern);
    let mut verdicts = verdicts();
    if verdicts.len() >= CACHED_PATTERNS {
        verdicts.clear();
    }
    verdicts.insert(pattern.to_owned(), found.clone());
    found
}

fn verdict(pattern: &str) -> Result<(), Refusal> {
    if runtime_accepts(pattern) {
        return Ok(());
    }
    if let Some(feature) = backtracking_feature(pattern) {
        return Err(Refusal {
            reason: "cannot run on the runtime's regex engine",
            label: format!("uses {feature}"),
            help: ENGINE_HELP,
        });
    }
    let translated = match to_rust_regex(pattern) {
        Ok(translated) if is_valid_ecma_regex(pattern) => translated,
        _ => {
            return Err(Refusal {
                reason: "is not a valid regular expression",
                label: syntax_problem(pattern).unwrap_or("does not compile").into(),
                help: ECMA_HELP,
            });
        }
    };
    let engine_error = build(&translated).err();
    if let Some(regex::Error::CompiledTooBig(_)) = engine_error {
        return Err(Refusal {
            reason: "is too large for the runtime's regex engine",
            label: format!("more than {} MiB once compiled", SIZE_LIMIT >> 20),
            help: SIZE_HELP,
        });
    }
    // Valid ECMA 262 that the `regex` engine refuses for another reason: say which.
    let why = match engine_error {
        Some(regex::Error::Syntax(text)) => text
            .lines()
            .last()
            .map(|l| l.trim_start_matches("error: ").to_owned()),
        _ => None,
    };
    Err(Refusal {
        reason: "cannot run on the runtime's regex engine",
        label: why.unwrap_or_else(|| "not supported by the `regex` engine".into()),
        help: ENGINE_HELP,
    })
}

/// The feature of `pattern` that needs a backtracking engine: lookaround (`(?=`, `(?!`, `(?<=`,
/// `(?<!`) or a backreference (`\1`, `\k<name>`), outside character classes.
pub fn backtracking_feature(pattern: &str) -> Option<&'static str> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '\\' => {
                match chars.get(i + 1) {
                    Some('1'..='9') if !in_class => return Some("a backreference"),
                    Some('k') if !in_class && chars.get(i + 2) == Some(&'<') => {
                        return Some("a backreference");
                    }
                    _ => {}
                }
                i += 2;
                continue;
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            '(' if !in_class => {
                let next: String = chars[i + 1..chars.len().min(i + 4)].iter().collect();
                if ["?=", "?!", "?<=", "?<!"]
                    .iter()
                    .any(|p| next.starts_with(p))
                {
                    return Some("lookaround");
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// A common reason a regular expression does not compile: an unclosed `[` or `(`, or an
/// unmatched `)`.
fn syntax_problem(pattern: &str) -> Option<&'static str> {
    let mut chars = pattern.chars();
    let mut in_class = false;
    let mut depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            ']' if in_class => in_class = false,
            _ if in_class => {}
            '[' => in_class = true,
            '(' => depth += 1,
            ')' if depth == 0 => return Some("unmatched `)`"),
            ')' => depth -= 1,
            _ => {}
        }
    }
    if in_class {
        Some("`[` is never closed")
    } else if depth > 0 {
        Some("`(` is never closed")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(pattern: &str) -> String {
        check(pattern).err().map(|r| r.label).unwrap_or_default()
    }

    #[test]
    fn linear_patterns_pass() {
        for pattern in [
            "^[a-z]+$",
            r"^-?[0-9]{1,28}(\.[0-9]+)?$",
            r"^\d{3}-\w+$",
            r"\p{Greek}",
            "(?i)abc",
            r"^[a-z(?=]+\\1$",
            "(?<name>a)",
        ] {
            assert_eq!(check(pattern), Ok(()), "{pattern}");
        }
    }

    #[test]
    fn the_verdicts_are_the_runtime_validators() {
        let patterns = [
            "^[a-z]+$",
            r"^\d{3}-\w+$",
            r"\p{Greek}",
            "(?i)abc",
            "(?<name>a)",
            r"^[A-Z0-9-]{3,20}$",
            "^[a-z]{1,100000}$",
            "(a{1000}){1000}",
            r"^(a+)+\1$",
            "^(?!admin).*$",
            "(?<!x)y",
            "[a-",
            "(ab",
            "ab)",
            "a{2,1}",
            r"\cJ",
            r"[\d-z]",
            r"\u{1F600}",
            r"\x41",
            "a{,3}",
            r"^\S+@\S+$",
            "[[:alpha:]]",
            r"\Qa\E",
            "(?P<n>a)",
            "a++",
            "^$",
            "",
        ];
        for pattern in patterns {
            let runtime = jsonschema::options()
                .with_pattern_options(
                    jsonschema::PatternOptions::regex()
                        .size_limit(SIZE_LIMIT)
                        .dfa_size_limit(SIZE_LIMIT),
                )
                .build(&serde_json::json!({ "pattern": pattern }))
                .is_ok();
            assert_eq!(check(pattern).is_ok(), runtime, "{pattern}");
        }
    }

    #[test]
    fn backtracking_size_and_syntax_are_told_apart() {
        assert_eq!(label(r"^(a+)+\1$"), "uses a backreference");
        assert_eq!(label(r"(?<n>a)\k<n>"), "uses a backreference");
        assert_eq!(label("^(?!admin).*$"), "uses lookaround");
        assert_eq!(label("(?<!x)y"), "uses lookaround");
        assert_eq!(label("(a{1000}){1000}"), "more than 1 MiB once compiled");
        assert_eq!(label("[a-"), "`[` is never closed");
        assert_eq!(label("(ab"), "`(` is never closed");
        assert_eq!(label("ab)"), "unmatched `)`");
        assert_eq!(
            check("a{2,1}").map_err(|r| r.reason),
            Err("is not a valid regular expression")
        );
    }
}
