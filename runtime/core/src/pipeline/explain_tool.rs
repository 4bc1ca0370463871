//! The built-in explain tool: what the pipeline runs in place of a tool's own stages when it is
//! called. Its arguments are checked against its published schema; the tool they name is found
//! as the call's adapter and caller know it (one the caller may not call does not exist for
//! it, here as everywhere); that tool's stages run in [`Mode::Explain`] and its
//! [`Explanation`] is the answer. It never runs a handler.

use serde_json::{Map, Value};

use crate::ambient::AmbientContext;
use crate::call::options::CallOptions;
use crate::call::{Answer, Call, Dispatch, Mode};
use crate::checks::limits::Limits;
use crate::checks::report::{Errors, invalid_arguments};
use crate::explain::explanation::Explanation;
use crate::failure::{ToolError, ToolResult};
use crate::pipeline::builtin::BuiltinSchema;
use crate::pipeline::{rate, task_status_tool};
use crate::registry::{Imp, RegisteredTool, Registry};
use crate::sensitive::REDACTED;
use crate::task::Accept;

/// The explain tool's stages for `call` with its arguments `args`.
pub(crate) async fn run(registry: &Registry, call: Call<'_>, args: Value) -> Answer {
    let mut args = if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    };
    if call.mode == Mode::Explain {
        return Answer::Explained(Ok(Box::new(itself(registry, &args))));
    }
    let errors = argument_errors(&args, registry.limits());
    if !errors.is_empty() {
        return Answer::Called(invalid_arguments(&errors));
    }
    let name = args
        .get("tool")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let arguments = args.get_mut("arguments").map_or(Value::Null, Value::take);
    let target = target(registry, call.options.adapter.as_deref(), &name);
    // A tool the caller may not call does not exist for it, here as everywhere.
    let Some(target) = target.filter(|t| call.options.scopes.allow_tool(t.descriptor())) else {
        return Answer::Called(ToolResult::failed(ToolError::unknown_tool(&name), None));
    };
    let result = match explain(target, arguments, call.ambient, call.options).await {
        Ok(explanation) => {
            let message = if explanation.callable {
                format!("`{name}` can be called with these arguments.")
            } else {
                format!("`{name}` cannot be called with these arguments.")
            };
            let value = serde_json::to_value(&explanation).unwrap_or(Value::Null);
            ToolResult {
                outcome: Ok(value),
                message,
                exception: None,
                replay_of: None,
                truncated: None,
            }
        }
        Err(result) => result,
    };
    Answer::Called(result)
}

/// Runs `target`'s stages in explain mode: its explanation, or why none could be made.
pub(crate) async fn explain(
    target: RegisteredTool<'_>,
    args: Value,
    ambient: &AmbientContext,
    options: CallOptions,
) -> Result<Explanation, ToolResult> {
    let registry = target.registry();
    let dispatch = Dispatch::Direct(Accept::ResultsOnly);
    // Explaining runs the guards: it spends the tool's budget like a call.
    let _permit = rate::admit(target, &options, dispatch).await?;
    let call = Call {
        tool: target.descriptor(),
        ambient,
        options,
        rules: registry.rules(),
        mode: Mode::Explain,
        dispatch,
        record: None,
    };
    match target.imp() {
        Imp::Tool(stages) => stages.run(call, args).await.into_explanation(),
        Imp::Explain => Ok(itself(registry, &args)),
        Imp::TaskStatus => task_status_tool::run(registry, call, args)
            .await
            .into_explanation(),
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
    let target = target(registry, adapter, name);
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
fn target<'r>(
    registry: &'r Registry,
    adapter: Option<&str>,
    name: &str,
) -> Option<RegisteredTool<'r>> {
    registry.lookup(adapter, name).filter(|t| !t.is_explain())
}

/// The explain tool's arguments, checked against its published schema.
static ARGUMENTS: BuiltinSchema = BuiltinSchema::new(crate::explain::INPUT_SCHEMA);

/// The explain tool's own argument errors.
fn argument_errors(args: &Value, limits: &Limits) -> Errors {
    ARGUMENTS.errors(args, limits)
}
