//! What the built-in explain tool does when called, and how it joins a registry
//! ([`RegistryBuilder::explain`]): it checks its own arguments against its published
//! schema, finds the tool they name as the call's adapter and caller know it, and answers
//! with that tool's [`Explanation`]. It never runs a handler, and reaches the other tools
//! only through the registry's public surface.

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::ambient::AmbientContext;
use crate::contract::BoxFuture;
use crate::descriptor::Descriptor;
use crate::failure::{ToolError, ToolResult};
use crate::invoker::explanation::Explanation;
use crate::invoker::invalid_arguments;
use crate::invoker::limits::Limits;
use crate::invoker::options::CallOptions;
use crate::invoker::report::Errors;
use crate::invoker::validate;
use crate::registry::{ErasedTool, RegisteredTool, Registry, RegistryBuilder};
use crate::sensitive::{REDACTED, Sensitivity};

impl RegistryBuilder {
    /// Adds the built-in explain tool under `descriptor` (generated as `EXPLAIN`).
    pub fn explain(self, descriptor: &'static Descriptor) -> Self {
        self.erased(descriptor, Box::new(ExplainTool))
    }
}

/// The built-in `explain` tool: checks another tool's call without running it.
struct ExplainTool;

impl ErasedTool for ExplainTool {
    fn invoke<'a>(
        &'a self,
        registry: &'a Registry,
        args: Value,
        ambient: &'a AmbientContext,
        options: CallOptions,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let mut args = if args.is_null() {
                Value::Object(Map::new())
            } else {
                args
            };
            let errors = argument_errors(&args, registry.limits());
            if !errors.is_empty() {
                return invalid_arguments(&errors);
            }
            let name = args
                .get("tool")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let arguments = args.get_mut("arguments").map_or(Value::Null, Value::take);
            let target = target(registry, options.adapter.as_deref(), &name);
            // A tool the caller may not call does not exist for it, here as everywhere.
            let Some(target) = target.filter(|t| options.scopes.allow_tool(t.descriptor())) else {
                return ToolResult::failed(ToolError::unknown_tool(&name), None);
            };
            match target.explain_with(arguments, ambient, options).await {
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
                    }
                }
                Err(result) => result,
            }
        })
    }

    fn explain<'a>(
        &'a self,
        registry: &'a Registry,
        args: Value,
        _ambient: &'a AmbientContext,
        _options: &'a CallOptions,
    ) -> BoxFuture<'a, Result<Explanation, ToolResult>> {
        // The explain tool always runs; only its own arguments can be wrong.
        let errors = argument_errors(&args, registry.limits());
        let mut explanation = Explanation::refused(registry.project().explain.name, errors);
        explanation.callable = explanation.errors.is_empty();
        Box::pin(std::future::ready(Ok(explanation)))
    }

    /// The explained tool's arguments are redacted as that tool redacts its own; when the
    /// tool is unknown, they are hidden whole.
    fn redact_input(&self, registry: &Registry, adapter: Option<&str>, value: &mut Value) {
        let Value::Object(map) = value else { return };
        let name = map.get("tool").and_then(Value::as_str).unwrap_or_default();
        let target = target(registry, adapter, name);
        let Some(arguments) = map.get_mut("arguments") else {
            return;
        };
        match target {
            Some(target) => target.redact_input(adapter, arguments),
            None => *arguments = Value::String(REDACTED.to_owned()),
        }
    }

    /// An explanation holds no value of the explained call but redacted ones.
    fn redact_output(&self, _value: &mut Value) {}
}

/// The tool `name` names, as `adapter` knows it (any tool by canonical name without one);
/// never the explain tool itself.
fn target<'r>(
    registry: &'r Registry,
    adapter: Option<&str>,
    name: &str,
) -> Option<RegisteredTool<'r>> {
    let found = match adapter {
        // Through an adapter, only that adapter's members (by their names there).
        Some(adapter) => registry.find(adapter, name),
        None => registry.get(name),
    };
    found.filter(|t| !t.is_explain())
}

/// The explain tool's own argument errors, checked against its published schema.
fn argument_errors(args: &Value, limits: &Limits) -> Errors {
    static SCHEMA: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
    let validator = SCHEMA.get_or_init(|| {
        serde_json::from_str(crate::explain::INPUT_SCHEMA)
            .ok()
            .and_then(|s| validate::compile(&s, &[]).ok())
    });
    match validator {
        Some(validator) => validate::errors(validator, args, limits, &Sensitivity::default()),
        None => Errors::default(),
    }
}
