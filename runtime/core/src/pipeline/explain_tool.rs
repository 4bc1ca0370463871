//! The built-in explain tool: what the pipeline runs in place of a tool's own stages when it is
//! called. Its arguments are checked against its published schema and name the tool to
//! explain ([`target`]); the pipeline then enters that tool's call where every call enters it,
//! in [`Mode::Explain`] (its scopes, rate limit, hooks and span, as for a call), and the
//! [`Explanation`] it gives is the answer ([`answered`]). It never runs a handler.

use serde_json::{Map, Value};

use crate::call::{Answer, Call, Mode};
use crate::model::explain::explanation::Explanation;
use crate::model::failure::{ToolError, ToolResult};
use crate::model::limits::Limits;
use crate::model::report::{Errors, invalid_arguments};
use crate::pipeline::builtin::BuiltinSchema;
use crate::registry::{Imp, RegisteredTool, Registry};
use crate::schema::sensitive::REDACTED;

/// The call of the explain tool that `call` makes: the tool to explain, by the name it was
/// asked by, with the arguments to explain.
pub(crate) struct Target<'r> {
    pub(crate) tool: RegisteredTool<'r>,
    pub(crate) name: String,
    pub(crate) arguments: Value,
}

/// The tool `call` (of the explain tool, with its arguments `args`) asks to explain; or the
/// explain tool's own answer: its arguments refused, the tool unknown, or — `call` itself
/// being explained — its explanation.
pub(crate) fn target<'r>(
    registry: &'r Registry,
    call: &Call<'_>,
    args: Value,
) -> Result<Target<'r>, Answer> {
    let mut args = if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    };
    if call.mode == Mode::Explain {
        return Err(Answer::Explained(Ok(Box::new(itself(registry, &args)))));
    }
    let errors = argument_errors(&args, registry.limits());
    if !errors.is_empty() {
        return Err(Answer::Called(invalid_arguments(&errors)));
    }
    let name = args
        .get("tool")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let arguments = args.get_mut("arguments").map_or(Value::Null, Value::take);
    match find(registry, call.options.adapter.as_deref(), &name) {
        Some(tool) => Ok(Target {
            tool,
            name,
            arguments,
        }),
        None => Err(Answer::Called(ToolResult::failed(
            ToolError::unknown_tool(&name),
            None,
        ))),
    }
}

/// The explain tool's answer once the tool `name` was explained: the explanation as its
/// result, or why none could be made (the tool out of the caller's scopes: unknown, as
/// everywhere).
pub(crate) fn answered(name: &str, explained: Answer) -> Answer {
    match explained.into_explanation() {
        Ok(explanation) => Answer::Called(explanation.to_result(name)),
        Err(result) => Answer::Called(result),
    }
}

/// The explanation of a call of the explain tool itself: it always runs; only its own
/// arguments can be wrong.
fn itself(registry: &Registry, args: &Value) -> Explanation {
    ARGUMENTS.explain(registry.project().explain.name, args, registry.limits())
}

/// The explained tool's arguments are redacted as that tool redacts its own; when the tool
/// is unknown, they are hidden whole.
pub(crate) fn redact_input(registry: &Registry, adapter: Option<&str>, value: &mut Value) {
    let Value::Object(map) = value else { return };
    let name = map.get("tool").and_then(Value::as_str).unwrap_or_default();
    let target = find(registry, adapter, name);
    let Some(arguments) = map.get_mut("arguments") else {
        return;
    };
    match target.map(|t| t.imp()) {
        Some(Imp::Tool(stages)) => stages.sensitive_input().redact(arguments),
        // The task status tool's arguments hold nothing sensitive.
        Some(Imp::TaskStatus) => {}
        _ => *arguments = Value::String(REDACTED.to_owned()),
    }
}

/// The tool `name` names, as `adapter` knows it (any tool by canonical name without one);
/// never the explain tool itself.
fn find<'r>(
    registry: &'r Registry,
    adapter: Option<&str>,
    name: &str,
) -> Option<RegisteredTool<'r>> {
    registry.lookup(adapter, name).filter(|t| !t.is_explain())
}

/// The explain tool's arguments, checked against its published schema.
static ARGUMENTS: BuiltinSchema = BuiltinSchema::new(crate::model::explain::INPUT_SCHEMA);

/// The explain tool's own argument errors.
fn argument_errors(args: &Value, limits: &Limits) -> Errors {
    ARGUMENTS.errors(args, limits)
}
