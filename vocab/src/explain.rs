//! The built-in `explain` tool's published surface: its description, its input schema (in
//! each provider dialect too), and the one schema of an explanation, which the runtime declares
//! as the tool's output and the OpenAPI document publishes for every
//! `POST /tools/{name}/explain`.

use std::borrow::Cow;

use crate::dialect::Dialect;

/// The description of the explain tool.
pub const DESCRIPTION: &str = "Check whether another tool can be called with given arguments, without running it: returns every argument error and whether each of its preconditions holds.";

/// The input schema of the explain tool.
pub const INPUT_SCHEMA: &str = r#"{"type":"object","properties":{"tool":{"type":"string","description":"The name of the tool to check."},"arguments":{"type":"object","description":"The arguments you would call it with."}},"required":["tool"],"additionalProperties":false}"#;

/// The explain tool's input schema in each provider dialect, sorted by dialect (what
/// the runtime's `Descriptor::explain` embeds). Only the non-strict dialects:
/// the free-form `arguments` object has no strict form, so adapters declare explain
/// non-strict. The compiler's own derivations are checked against these in its dialect tests.
pub const DIALECTS: &[(Dialect, Cow<'static, str>)] = &[
    (Dialect::Anthropic, Cow::Borrowed(INPUT_SCHEMA)),
    (
        Dialect::Gemini,
        Cow::Borrowed(
            r#"{"type":"OBJECT","properties":{"tool":{"type":"STRING","description":"The name of the tool to check."},"arguments":{"type":"OBJECT","description":"The arguments you would call it with."}},"required":["tool"],"propertyOrdering":["tool","arguments"]}"#,
        ),
    ),
    (
        Dialect::OpenAi,
        Cow::Borrowed(
            r#"{"type":"object","properties":{"tool":{"type":"string","description":"The name of the tool to check."},"arguments":{"type":"object","properties":{},"description":"The arguments you would call it with."}},"required":["tool"],"additionalProperties":false}"#,
        ),
    ),
];

/// The JSON Schema of an explanation: whether the call could run, the argument errors, each
/// guard's result (with the error the call would answer unless it passed), and what `once`
/// and `lock` would do.
pub const OUTPUT_SCHEMA: &str = r#"{"type":"object","properties":{"tool":{"type":"string"},"callable":{"type":"boolean"},"errors":{"type":"array","items":{"type":"object","properties":{"field":{"type":"string"},"message":{"type":"string"}},"required":["field","message"],"additionalProperties":false}},"more_errors":{"type":"integer","minimum":1},"guards":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"description":{"type":"string"},"passed":{"type":["boolean","null"]},"error":{"type":"object","properties":{"error":{"type":"string"},"message":{"type":"string"},"details":{}},"required":["error","message"],"additionalProperties":false}},"required":["name","description","passed"],"additionalProperties":false}},"once":{"type":"object","properties":{"key":{"type":"object"},"status":{"enum":["new","running","done"]},"at":{"type":"string"},"outcome":{"type":"string"},"expires_at":{"type":"string"}},"required":["key","status"],"additionalProperties":false},"lock":{"type":"object","properties":{"key":{"type":"object"},"held":{"type":"boolean"},"wait_ms":{"type":"integer","minimum":0}},"required":["key","held","wait_ms"],"additionalProperties":false},"ask":{"type":"array","items":{"type":"object","properties":{"form":{"type":"string"},"message":{"type":"string"},"fields":{"type":"array","items":{"type":"string"}}},"required":["form","message","fields"],"additionalProperties":false}},"confirm":{"type":"string"},"result_cap":{"type":"object","description":"The tool's result cap: past it, an answer is cut to fit (with a notice of the cut) or refused with result_too_large.","properties":{"bytes":{"type":"integer","minimum":1},"items":{"type":"integer","minimum":1}},"additionalProperties":false}},"required":["tool","callable","errors","guards"],"additionalProperties":false}"#;
