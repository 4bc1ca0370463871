//! The built-in `explain` tool, which checks a call of another tool without running it: its
//! published surface (description, input and output schemas, the input schema in each
//! provider dialect). Its behaviour and how it joins a registry are `explain_tool`'s.
//!
//! This module owns nothing else: the descriptor the generated code builds from these
//! constants is [`Descriptor::explain`](crate::Descriptor::explain), and the checks it reports
//! are the invoker's. Nothing here may depend on the registry or the invoker, so that
//! descriptors can embed these constants.

use toolspec_vocab::Dialect;

/// The description of the explain tool.
pub const DESCRIPTION: &str = "Check whether another tool can be called with given arguments, without running it: returns every argument error and whether each of its preconditions holds.";

/// The input schema of the explain tool.
pub const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{"tool":{"type":"string","description":"The name of the tool to check."},"arguments":{"type":"object","description":"The arguments you would call it with."}},"required":["tool"],"additionalProperties":false}"#;

/// The explain tool's input schema in each provider dialect, sorted by dialect (what
/// [`Descriptor::explain`](crate::Descriptor::explain) embeds). Only the non-strict dialects:
/// the free-form `arguments` object has no strict form, so adapters declare explain
/// non-strict. The compiler's own derivations are checked against these in its dialect tests.
pub const DIALECTS: &[(Dialect, &str)] = &[
    (Dialect::Anthropic, INPUT_SCHEMA),
    (
        Dialect::Gemini,
        r#"{"type":"OBJECT","properties":{"tool":{"type":"STRING","description":"The name of the tool to check."},"arguments":{"type":"OBJECT","description":"The arguments you would call it with."}},"required":["tool"],"propertyOrdering":["tool","arguments"]}"#,
    ),
    (
        Dialect::OpenAi,
        r#"{"type":"object","properties":{"tool":{"type":"string","description":"The name of the tool to check."},"arguments":{"type":"object","properties":{},"description":"The arguments you would call it with."}},"required":["tool"],"additionalProperties":false}"#,
    ),
];

/// The output schema of the explain tool (the vocabulary's: the OpenAPI document publishes
/// the same).
pub const OUTPUT_SCHEMA: &str = toolspec_vocab::explain::OUTPUT_SCHEMA;
