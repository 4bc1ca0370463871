//! Provider dialects: the JSON Schema each adapter's provider accepts, derived at build time
//! from every tool's canonical input schema (JSON Schema 2020-12).
//!
//! | dialect | used by | what changes |
//! |---|---|---|
//! | `mcp` | `mcp`, `http`, custom adapters | nothing: the canonical schema |
//! | `openai` | `openai` with `strict: false`, `rig` | objects get `properties`, arrays `items` |
//! | `openai-strict` | `openai` with `strict: true` | see [`openai`] |
//! | `anthropic` | `anthropic` with `strict: false` | nothing |
//! | `anthropic-strict` | `anthropic` with `strict: true` | see [`anthropic`] |
//! | `gemini` | `gemini` | see [`gemini`] |
//!
//! Each dialect is a pass over the schema tree ([`pass::walk`] with a [`pass::Visitor`]): a constraint the
//! dialect cannot express is removed and stated in the description of the schema it was on, as
//! a sentence ("Must be at most 500 characters."), and reported as a build warning at the spec
//! line of the field it came from; the invoker still validates calls against the canonical
//! schema, so nothing is loosened at run time. A schema a dialect cannot express at all (a map
//! in strict mode, recursion on Gemini, over OpenAI's strict limits…) is a build error — but
//! only for the dialects a tool is a member of ([`members::member_dialects`]).
//!
//! Decisions where the provider documentation is silent:
//! - `rig` hands its tool definitions to whichever provider it is configured with, in that
//!   provider's non-strict mode: it gets the `openai` dialect. `http` (OpenAPI 3.1 speaks JSON
//!   Schema 2020-12) and custom adapters get the canonical `mcp` dialect.
//! - Annotations a dialect does not list are not constraints: `examples` and `deprecated` are
//!   stated in the description ("Example: …", "Deprecated."), `title`, `$comment` and the like
//!   are dropped, all without a warning.
//! - Warnings are deduplicated per (dialect, spec location, keyword): a named type used by many
//!   tools warns once, at its own definition.
//! - The dialect pass runs only when the project has no other errors, so that a broken spec
//!   does not also report dialect errors that follow from it.
//! - Strict modes need a type on every schema and a closed object everywhere: a `json` field
//!   (any value), a `map` and an object without properties are errors there, not warnings.
//!   An open object with properties (possible in a `shape`) is closed, with a warning.
//! - OpenAI's "10 levels of nesting" counts objects, the tool's input being level 1 (the
//!   stricter reading).
//! - `openai-strict` makes optional properties nullable; its adapter must drop a `null` the
//!   model sends for a property whose canonical schema does not accept `null` ("not given")
//!   before validating. `gemini` sends numeric and boolean enums as strings; the function-calling
//!   adapters turn them back.
//! - Anthropic's per-request strict limits (20 tools, 24 optional parameters, 16 union
//!   parameters) are errors for one tool over them, and a warning when the strict tools of the
//!   project together exceed them (an adapter may send a subset per request).
//! - A dialect's schema may nest no deeper than the canonical one may ([`MAX_DEPTH`]): a
//!   deeper one (wrapped nulls, named types written out) is not expressible.
//! - Tool names: per-adapter `name:` overrides are checked where they are written; a
//!   canonical name passes every built-in rule except Gemini's first character (a letter or
//!   `_`), which the analysis checks.

pub mod anthropic;
pub mod gemini;
pub mod locate;
pub mod mcp;
pub mod members;
pub mod openai;
pub mod pass;
pub mod rewrite;
pub mod text;

use serde_json::Value;
use toolspec_vocab::Dialect;

use crate::derive::dialect::pass::{Derived, Refusal};
use crate::schema_tree::{MAX_DEPTH, too_deep};

/// Derives `dialect` from a canonical input schema. Like the canonical schema, a dialect states
/// only the bounds a spec wrote: the range of `i64` an `integer` has at run time is the
/// invoker's to enforce, not a constraint a model needs.
pub fn derive(dialect: Dialect, canonical: &Value) -> Derived {
    let mut derived = match dialect {
        Dialect::Mcp => mcp::derive(canonical),
        Dialect::OpenAi => openai::derive(canonical),
        Dialect::OpenAiStrict => openai::derive_strict(canonical),
        Dialect::Anthropic => anthropic::derive(canonical),
        Dialect::AnthropicStrict => anthropic::derive_strict(canonical),
        Dialect::Gemini => gemini::derive(canonical),
    };
    // A dialect may nest deeper than the canonical schema (wrapped nulls, written-out
    // named types): it too must stay within the limit.
    if derived.is_expressible()
        && let Some(path) = too_deep(&derived.schema, MAX_DEPTH)
    {
        derived.refusals.push(Refusal {
            path,
            reason: format!("it would nest more than {MAX_DEPTH} levels deep there"),
        });
    }
    derived
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the dialects.

// ---------------------------------------------------------------------------------------------
// Tools: membership, diagnostics, native tool definitions.

#[cfg(test)]
mod tests;
