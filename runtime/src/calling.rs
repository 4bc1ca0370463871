//! The shared core of the function-calling adapters (`toolspec::openai`,
//! `toolspec::anthropic`, `toolspec::gemini`); compiled when any of their features is on.
//!
//! Each adapter only knows its provider's envelopes. Everything else lives here, so that the
//! three behave alike:
//!
//! - **Listing**: a registry's members of one adapter (a [`Catalog`]), each with
//!   the input schema in the provider's dialect computed at build time (the strict dialect
//!   when the tool's `strict` setting is on), its `present_as` setting, and filtered by a
//!   [`Caller`]'s scopes.
//! - **Dispatch**: a native tool call is looked up by the adapter's name for the tool; a tool
//!   that does not exist, or that the caller's scopes do not cover, answers with the same
//!   `unknown_tool` failure. Arguments go through the registry's invoker with the caller's
//!   trusted ambient context, never anything the model sent.
//! - **Rendering** ([`Answer`]): success is the exposed values (or the rendered message when
//!   the tool's `present_as` is `message`); failure is `{"error": code, "message", "details"?}`,
//!   never the developer-facing exception.
//! - **Strict nulls** ([`drop_null_optionals`]): OpenAI's strict mode makes every optional
//!   property nullable and sends `null` for "not given"; such nulls are dropped before the
//!   invoker validates against the canonical schema, unless that schema accepts `null` there.
//! - **Spelled enums** ([`restore_spelled_enums`]): Gemini declares every enum as strings;
//!   the spelling of a number or boolean the model sends is turned back into the value.
//!
//! Calls can be cancelled by dropping their future (a handler's future is dropped with it).

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::caller::Caller;
use crate::catalog::{Catalog, Member};
use crate::descriptor::{Descriptor, ToolKind};
use crate::failure::{ToolError, ToolResult};
use crate::invoker::{CallOptions, Errors, invalid_arguments};
use crate::registry::Registry;
use toolspec_vocab::Dialect;
use toolspec_vocab::adapters;
use toolspec_vocab::settings::{PresentAs, SettingValue, Settings};

/// What one tool call answers, before a provider wraps it in its envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// On success, the exposed values (a JSON object), or the rendered message (a JSON
    /// string) when the tool's `present_as` is `message`; on failure,
    /// `{"error": code, "message": …, "details": …}` (`details` only when there are some).
    pub content: Value,
    /// Whether the call failed.
    pub is_error: bool,
}

impl Answer {
    /// A call's result as the model sees it, presented as the tool's setting says.
    pub fn from_result(result: &ToolResult, present_as: PresentAs) -> Self {
        match &result.outcome {
            Ok(value) => Self {
                content: match present_as {
                    PresentAs::Structured => value.clone(),
                    PresentAs::Message => Value::String(result.message.clone()),
                },
                is_error: false,
            },
            Err(error) => Self::failure(error),
        }
    }

    /// A failure: `{"error": code, "message": …, "details": …}`.
    pub fn failure(error: &ToolError) -> Self {
        Self {
            content: serde_json::to_value(error).unwrap_or(Value::Null),
            is_error: true,
        }
    }

    /// The answer to a call of a tool that does not exist, or that the caller may not call:
    /// the same text in both cases, so that a caller cannot tell them apart.
    pub fn unknown_tool(name: &str) -> Self {
        Self::failure(&ToolError::unknown_tool(name))
    }

    /// The answer to arguments that are not JSON at all (`invalid_arguments`, as the invoker
    /// reports argument errors).
    pub fn malformed_arguments(error: &serde_json::Error) -> Self {
        let errors = Errors::one("/", format!("the arguments are not valid JSON ({error})"));
        Self::from_result(&invalid_arguments(&errors), PresentAs::Structured)
    }

    /// The content as text: the message itself when it is one, else its JSON.
    pub fn text(&self) -> String {
        match &self.content {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }
}

/// Parses arguments a provider sends as a JSON string (OpenAI). An empty string means no
/// arguments; anything that is not JSON is an `invalid_arguments` answer.
pub fn parse_arguments(text: &str) -> Result<Value, Answer> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(text).map_err(|e| Answer::malformed_arguments(&e))
}

/// One function-calling provider, as its adapter describes it to the shared core.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Provider {
    /// The adapter's name in specs and in the registry.
    pub adapter: &'static str,
}

/// A tool as a provider declares it: what each adapter puts into its own envelope.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Function {
    /// The tool's name on the adapter.
    pub name: &'static str,
    /// The description models read.
    pub description: &'static str,
    /// The parameters in the provider's dialect; `None` when the provider wants no schema
    /// (a Gemini tool without parameters).
    pub parameters: Option<Value>,
    /// The dialect `parameters` is in.
    pub dialect: Dialect,
}

impl Function {
    /// Whether `parameters` is a strict dialect.
    pub fn strict(&self) -> bool {
        self.dialect.is_strict()
    }
}

impl Provider {
    /// `tool` as this provider declares it, or `None` when it is not a member: in the dialect
    /// its `settings` on the adapter call for ([`Dialect::for_member`]), else the provider's
    /// non-strict dialect (the explain tool has no strict form), else the canonical schema (a
    /// hand-written descriptor without dialects). Without settings (a descriptor on its own),
    /// the strict dialect exactly when the build embedded it, as it does for strict members.
    pub fn function(
        &self,
        tool: &'static Descriptor,
        settings: Option<&Settings<'_>>,
    ) -> Option<Function> {
        let name = tool.name_for(self.adapter)?;
        let wanted = match settings {
            Some(settings) => Dialect::for_member(self.adapter, settings),
            None => {
                let decl = adapters::builtin(self.adapter)?;
                let strict = [("strict", SettingValue::Bool(true))];
                Dialect::for_member(self.adapter, &Settings::new(decl, &strict[..]))
            }
        };
        let (dialect, schema) = [wanted, wanted.relaxed()]
            .into_iter()
            .find_map(|d| tool.dialect(d).map(|schema| (d, schema)))
            .unwrap_or((Dialect::Mcp, tool.input_schema));
        let parameters = match serde_json::from_str::<Value>(schema) {
            Ok(Value::Null) => None,
            Ok(parameters) => Some(parameters),
            Err(e) => {
                tracing::error!(tool = tool.name, adapter = self.adapter, error = %e, "an embedded schema is not JSON; the tool is not offered");
                return None;
            }
        };
        Some(Function {
            name,
            description: tool.description,
            parameters,
            dialect,
        })
    }
}

/// A member as its adapter declares it, with what dispatching to it needs.
#[derive(Debug, Clone)]
struct Declared {
    function: Function,
    /// The canonical input schema and what to repair along it, for tools whose arguments
    /// come in a form the canonical schema does not take.
    repairs: Option<(Arc<Value>, Repairs)>,
}

/// What the dialect a tool was declared in makes a model send differently from the
/// canonical schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Repairs {
    /// `null` for an optional property left out (OpenAI strict).
    nulls: bool,
    /// A string spelling a value of an enum of numbers, booleans… (Gemini).
    spelled_enums: bool,
}

/// The members of one provider's adapter in a registry, projected once.
#[derive(Debug, Clone)]
pub(crate) struct Members {
    provider: Provider,
    catalog: Catalog<Declared>,
}

impl Members {
    /// Every member of `provider`'s adapter in `registry`, with its settings there.
    pub fn new(provider: Provider, registry: &Registry) -> Self {
        let catalog = Catalog::of(registry, provider.adapter, |registered| {
            let settings = registered.settings(provider.adapter)?;
            let descriptor = registered.descriptor();
            let function = provider.function(descriptor, Some(&settings))?;
            let nulls = function.dialect.nulls_optionals();
            let spelled = function.dialect.spells_enums();
            // The canonical schema is parsed only for a tool that may need a repair.
            let repairs = (nulls || spelled)
                .then(|| descriptor.input_schema_json())
                .and_then(|schema| {
                    let wanted = Repairs {
                        nulls,
                        spelled_enums: spelled && has_unspelled_enum(&schema),
                    };
                    (wanted != Repairs::default()).then(|| (Arc::new(schema), wanted))
                });
            Some(Declared { function, repairs })
        });
        Self { provider, catalog }
    }

    /// The declarations `caller` may see (every one without a caller), sorted by name, each
    /// in the adapter's envelope `T`.
    pub fn declarations<T: for<'a> From<&'a Function>>(&self, caller: Option<&Caller>) -> Vec<T> {
        self.catalog
            .visible(caller)
            .map(|member| T::from(&member.declaration.function))
            .collect()
    }

    /// The member `caller` knows as `name`.
    fn find(&self, name: &str, caller: &Caller) -> Option<&Member<Declared>> {
        self.catalog.find(name, caller)
    }
}

/// The members of `provider`'s adapter in `registry` that `caller` may see (all without a
/// caller), each in the adapter's envelope `T`: what every adapter's `tools` functions return.
pub(crate) fn declarations<T: for<'a> From<&'a Function>>(
    provider: Provider,
    registry: &Registry,
    caller: Option<&Caller>,
) -> Vec<T> {
    Members::new(provider, registry).declarations(caller)
}

/// The native calls among `items` (already narrowed to calls of the provider's kind): those
/// that do not deserialize (a call without its id or name) cannot be answered and are skipped
/// with a warning naming `what`.
pub(crate) fn native_calls<'v, T: serde::de::DeserializeOwned>(
    items: impl IntoIterator<Item = &'v Value>,
    what: &str,
) -> Vec<T> {
    items
        .into_iter()
        .filter_map(|item| match T::deserialize(item) {
            Ok(call) => Some(call),
            Err(e) => {
                tracing::warn!(error = %e, "an unanswerable {what} is skipped");
                None
            }
        })
        .collect()
}

/// A registry with one adapter's members projected: what each adapter's `Dispatcher` holds.
#[derive(Debug, Clone)]
pub(crate) struct Core {
    registry: Arc<Registry>,
    members: Members,
}

impl Core {
    pub fn new(provider: Provider, registry: Arc<Registry>) -> Self {
        let members = Members::new(provider, &registry);
        Self { registry, members }
    }

    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    pub fn members(&self) -> &Members {
        &self.members
    }

    /// Calls the tool `caller` knows as `name` on this adapter with `arguments` (or answers
    /// why not), through the invoker with the caller's trusted ambient context and scopes.
    pub async fn call(
        &self,
        caller: &Caller,
        name: &str,
        arguments: Result<Value, Answer>,
    ) -> Answer {
        let adapter = self.members.provider.adapter;
        let Some(member) = self.members.find(name, caller) else {
            tracing::debug!(adapter, tool = name, "a call of an unknown tool");
            return Answer::unknown_tool(name);
        };
        let Some(registered) = self.registry.get(member.descriptor.name) else {
            return Answer::unknown_tool(name);
        };
        let mut arguments = match arguments {
            Ok(arguments) => arguments,
            Err(answer) => return answer,
        };
        if let Some((schema, repairs)) = &member.declaration.repairs {
            repair(&mut arguments, schema, *repairs);
        }
        if member.descriptor.kind == ToolKind::Explain {
            self.repair_explained(&mut arguments, caller);
        }
        let options = CallOptions {
            adapter: Some(adapter.into()),
            caller: caller.id.clone(),
            scopes: caller.scopes.clone(),
            ..CallOptions::default()
        };
        let result = registered
            .invoke_with(arguments, &caller.ambient, options)
            .await;
        Answer::from_result(&result, member.present_as)
    }

    /// The explain tool's `arguments` are the target tool's arguments, in the form the model
    /// learnt them: they are repaired like that tool's own.
    fn repair_explained(&self, arguments: &mut Value, caller: &Caller) {
        let Some(target) = arguments
            .get("tool")
            .and_then(Value::as_str)
            .and_then(|name| self.members.find(name, caller))
        else {
            return;
        };
        if let (Some((schema, repairs)), Some(inner)) =
            (&target.declaration.repairs, arguments.get_mut("arguments"))
        {
            repair(inner, schema, *repairs);
        }
    }
}

/// How deep [`drop_null_optionals`] follows a value (and `$ref`s).
const MAX_DEPTH: usize = 64;

/// How many schema nodes one [`drop_null_optionals`] may visit: a bound on the work a
/// schema that refers to itself could otherwise multiply.
const BUDGET: usize = 100_000;

/// Removes every `null` that stands for "not given": an optional property (one not in its
/// object's `required`) whose value is `null` where `schema` does not accept `null`, at any
/// depth (nested objects, array items, map values, local `$ref`s, the matching branch of an
/// `anyOf` / `oneOf`). `schema` is the tool's canonical input schema; it also resolves
/// `$ref`s. A `null` the schema accepts stays, and so does any other `null` (a required
/// property's, an array item), for validation to judge.
///
/// ```
/// # use serde_json::json;
/// let schema = json!({"type": "object", "properties": {
///     "note": {"type": "string"}, "tag": {"type": ["string", "null"]}}});
/// let mut args = json!({"note": null, "tag": null});
/// toolspec::calling::drop_null_optionals(&mut args, &schema);
/// assert_eq!(args, json!({"tag": null}));
/// ```
pub fn drop_null_optionals(value: &mut Value, schema: &Value) {
    let repairs = Repairs {
        nulls: true,
        ..Repairs::default()
    };
    repair(value, schema, repairs);
}

/// Turns every string that spells a non-string value of its schema's `enum` back into that
/// value (its compact JSON: `"2"` → `2`, `"true"` → `true`), at any depth, as
/// [`drop_null_optionals`] walks. Gemini declares enums as strings only, so a model sends the
/// spelling; a string the `enum` holds as such stays, and anything else is left for
/// validation to judge.
///
/// ```
/// # use serde_json::json;
/// let schema = json!({"type": "object", "properties": {"mode": {"enum": [1, "half", true]}}});
/// let mut args = json!({"mode": "true"});
/// toolspec::calling::restore_spelled_enums(&mut args, &schema);
/// assert_eq!(args, json!({"mode": true}));
/// ```
pub fn restore_spelled_enums(value: &mut Value, schema: &Value) {
    let repairs = Repairs {
        spelled_enums: true,
        ..Repairs::default()
    };
    repair(value, schema, repairs);
}

fn repair(value: &mut Value, schema: &Value, repairs: Repairs) {
    let mut walker = Walker {
        root: schema,
        budget: BUDGET,
        repairs,
    };
    walker.walk(value, schema, 0);
}

/// Whether some `enum` of `schema` holds a value other than a string or `null` (which a
/// dialect of string enums spells).
fn has_unspelled_enum(schema: &Value) -> bool {
    match schema {
        Value::Object(node) => {
            node.get("enum")
                .and_then(Value::as_array)
                .is_some_and(|values| values.iter().any(|v| !v.is_string() && !v.is_null()))
                || node.values().any(has_unspelled_enum)
        }
        Value::Array(items) => items.iter().any(has_unspelled_enum),
        _ => false,
    }
}

/// One walk of a value along its schema, within a budget.
struct Walker<'s> {
    root: &'s Value,
    budget: usize,
    repairs: Repairs,
}

impl<'s> Walker<'s> {
    /// Spends one step at `depth`; false when the walk must stop here.
    fn step(&mut self, depth: usize) -> bool {
        if depth > MAX_DEPTH || self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        true
    }

    /// The target of `node`'s local `$ref` (`#/$defs/Name`, any JSON pointer into the root).
    fn target(&self, node: &Map<String, Value>) -> Option<&'s Value> {
        let pointer = node.get("$ref")?.as_str()?.strip_prefix('#')?;
        if pointer.is_empty() {
            Some(self.root)
        } else {
            self.root.pointer(pointer)
        }
    }

    fn walk(&mut self, value: &mut Value, schema: &'s Value, depth: usize) {
        if !self.step(depth) {
            return;
        }
        let Some(node) = schema.as_object() else {
            return;
        };
        if let Some(target) = self.target(node) {
            self.walk(value, target, depth + 1);
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(branches) = node.get(keyword).and_then(Value::as_array)
                && let Some(branch) = branches.iter().find(|b| self.fits(value, b, depth + 1))
            {
                self.walk(value, branch, depth + 1);
            }
        }
        if let Some(branches) = node.get("allOf").and_then(Value::as_array) {
            for branch in branches {
                self.walk(value, branch, depth + 1);
            }
        }
        if self.repairs.spelled_enums
            && let Value::String(spelled) = &*value
            && let Some(values) = node.get("enum").and_then(Value::as_array)
            && !values.contains(value)
            && let Some(spelt) = values
                .iter()
                .find(|v| !v.is_string() && serde_json::to_string(v).is_ok_and(|s| s == *spelled))
        {
            *value = spelt.clone();
        }
        match value {
            Value::Object(map) => {
                let properties = node.get("properties").and_then(Value::as_object);
                let required: Vec<&str> = node
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let additional = node.get("additionalProperties").filter(|s| s.is_object());
                map.retain(|key, child| {
                    let property = properties.and_then(|p| p.get(key));
                    if child.is_null() && self.repairs.nulls {
                        return match property {
                            Some(property) => {
                                required.contains(&key.as_str())
                                    || self.accepts_null(property, depth + 1)
                            }
                            None => true,
                        };
                    }
                    if let Some(child_schema) = property.or(additional) {
                        self.walk(child, child_schema, depth + 1);
                    }
                    true
                });
            }
            Value::Array(items) => {
                if let Some(item_schema) = node.get("items").filter(|s| s.is_object()) {
                    for item in items.iter_mut().filter(|item| !item.is_null()) {
                        self.walk(item, item_schema, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether `schema` accepts `null`. Conservative: a keyword not understood never refuses
    /// it, and neither does a schema too deep or too costly to look into.
    fn accepts_null(&mut self, schema: &'s Value, depth: usize) -> bool {
        if !self.step(depth) {
            return true;
        }
        let node = match schema {
            Value::Bool(accepts) => return *accepts,
            Value::Object(node) => node,
            _ => return true,
        };
        let by_type = match node.get("type") {
            Some(Value::String(t)) => t == "null",
            Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
            _ => true,
        };
        let by_enum = node
            .get("enum")
            .and_then(Value::as_array)
            .is_none_or(|values| values.contains(&Value::Null));
        let by_const = node.get("const").is_none_or(Value::is_null);
        if !(by_type && by_enum && by_const) {
            return false;
        }
        if let Some(target) = self.target(node)
            && !self.accepts_null(target, depth + 1)
        {
            return false;
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(branches) = node.get(keyword).and_then(Value::as_array)
                && !branches.iter().any(|b| self.accepts_null(b, depth + 1))
            {
                return false;
            }
        }
        if let Some(branches) = node.get("allOf").and_then(Value::as_array)
            && !branches.iter().all(|b| self.accepts_null(b, depth + 1))
        {
            return false;
        }
        match node.get("not") {
            Some(inner) => !self.accepts_null(inner, depth + 1),
            None => true,
        }
    }

    /// Whether `value` looks like an instance of the union branch `schema`: its type fits,
    /// and for an object, every property with one allowed value (a tag) holds it and no key is
    /// undeclared where the branch is closed.
    fn fits(&mut self, value: &Value, schema: &'s Value, depth: usize) -> bool {
        if !self.step(depth) {
            return false;
        }
        let Some(node) = schema.as_object() else {
            return schema.as_bool().unwrap_or(false);
        };
        if let Some(target) = self.target(node) {
            return self.fits(value, target, depth + 1);
        }
        let kind = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let type_fits = |t: &Value| t == kind || (kind == "integer" && t == "number");
        let typed = match node.get("type") {
            Some(Value::Array(types)) => types.iter().any(type_fits),
            Some(t) => type_fits(t),
            None => true,
        };
        if !typed {
            return false;
        }
        let Value::Object(map) = value else {
            return true;
        };
        let properties = node.get("properties").and_then(Value::as_object);
        let closed = node.get("additionalProperties") == Some(&Value::Bool(false));
        if closed
            && map
                .keys()
                .any(|k| properties.is_none_or(|p| !p.contains_key(k)))
        {
            return false;
        }
        properties.into_iter().flatten().all(|(key, property)| {
            let tag = match property.get("const") {
                Some(tag) => Some(tag),
                None => property
                    .get("enum")
                    .and_then(Value::as_array)
                    .filter(|values| values.len() == 1)
                    .and_then(|values| values.first()),
            };
            match (tag, map.get(key)) {
                (Some(tag), Some(sent)) => tag == sent,
                _ => true,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn dropped(schema: Value, mut args: Value) -> Value {
        drop_null_optionals(&mut args, &schema);
        args
    }

    #[test]
    fn drops_optional_nulls_the_schema_refuses() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "note": {"type": "string"},
                "cursor": {"type": ["string", "null"]},
                "mode": {"enum": ["a", "b", null]},
                "any": {},
                "either": {"anyOf": [{"type": "string"}, {"type": "null"}]}
            },
            "required": ["id"]
        });
        let args = json!({"id": null, "note": null, "cursor": null, "mode": null, "any": null, "either": null, "extra": null});
        assert_eq!(
            dropped(schema, args),
            json!({"id": null, "cursor": null, "mode": null, "any": null, "either": null, "extra": null})
        );
    }

    #[test]
    fn follows_nested_objects_arrays_refs_and_maps() {
        let schema = json!({
            "type": "object",
            "properties": {
                "ship_to": {"$ref": "#/$defs/Address"},
                "lines": {"type": "array", "items": {"type": "object", "properties": {
                    "sku": {"type": "string"}, "gift": {"type": "string"}}, "required": ["sku"]}},
                "labels": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Address"}}
            },
            "$defs": {"Address": {"type": "object", "properties": {
                "city": {"type": "string"}, "zip": {"type": "string"}}, "required": ["city"]}}
        });
        let args = json!({
            "ship_to": {"city": "Oslo", "zip": null},
            "lines": [{"sku": "A", "gift": null}, null, {"sku": "B", "gift": "yes"}],
            "labels": {"home": {"city": "Rome", "zip": null}, "gone": null}
        });
        assert_eq!(
            dropped(schema, args),
            json!({
                "ship_to": {"city": "Oslo"},
                "lines": [{"sku": "A"}, null, {"sku": "B", "gift": "yes"}],
                "labels": {"home": {"city": "Rome"}, "gone": null}
            })
        );
    }

    #[test]
    fn picks_the_union_branch_by_its_tag() {
        let schema = json!({
            "type": "object",
            "properties": {"payment": {"anyOf": [
                {"type": "object", "properties": {"kind": {"const": "card"}, "cvc": {"type": ["string", "null"]}}, "required": ["kind"], "additionalProperties": false},
                {"type": "object", "properties": {"kind": {"const": "iban"}, "cvc": {"type": "string"}}, "required": ["kind"], "additionalProperties": false}
            ]}}
        });
        assert_eq!(
            dropped(
                schema.clone(),
                json!({"payment": {"kind": "card", "cvc": null}})
            ),
            json!({"payment": {"kind": "card", "cvc": null}})
        );
        assert_eq!(
            dropped(schema, json!({"payment": {"kind": "iban", "cvc": null}})),
            json!({"payment": {"kind": "iban"}})
        );
    }

    #[test]
    fn restores_spelled_enum_values_and_nothing_else() {
        let schema = json!({
            "type": "object",
            "properties": {
                "level": {"$ref": "#/$defs/Level"},
                "either": {"enum": ["1", 1]},
                "note": {"type": "string"},
                "tags": {"type": "array", "items": {"enum": [true, null]}}
            },
            "$defs": {"Level": {"enum": [0.5, 2]}}
        });
        let mut args = json!({
            "level": "2", "either": "1", "note": "2", "tags": ["true", null, "nope"]
        });
        restore_spelled_enums(&mut args, &schema);
        assert_eq!(
            args,
            json!({"level": 2, "either": "1", "note": "2", "tags": [true, null, "nope"]})
        );
        // Nulls are another repair: this one leaves them alone.
        let mut args = json!({"note": null});
        restore_spelled_enums(&mut args, &schema);
        assert_eq!(args, json!({"note": null}));
        assert!(has_unspelled_enum(&schema));
        assert!(!has_unspelled_enum(&json!({"enum": ["a", null]})));
    }

    #[test]
    fn survives_recursive_and_broken_schemas() {
        let schema = json!({"$ref": "#", "type": "object", "properties": {"next": {"$ref": "#"}, "n": {"type": "integer"}}});
        let mut deep = json!({"n": null});
        for _ in 0..200 {
            deep = json!({"next": deep, "n": null});
        }
        drop_null_optionals(&mut deep, &schema);
        assert_eq!(deep.get("n"), None);
        let mut args = json!({"a": null});
        drop_null_optionals(
            &mut args,
            &json!({"properties": {"a": {"$ref": "#/$defs/missing"}}}),
        );
        assert_eq!(args, json!({"a": null}));
        drop_null_optionals(&mut args, &json!("not a schema"));
        assert_eq!(args, json!({"a": null}));
    }

    #[test]
    fn malformed_arguments_are_invalid_arguments() {
        let answer = parse_arguments("{\"order_id\": 1").unwrap_err();
        assert!(answer.is_error);
        assert_eq!(
            answer.text(),
            r#"{"error":"invalid_arguments","message":"Invalid arguments: `/`: the arguments are not valid JSON (EOF while parsing an object at line 1 column 14).","details":{"errors":[{"field":"/","message":"the arguments are not valid JSON (EOF while parsing an object at line 1 column 14)"}]}}"#
        );
        assert_eq!(parse_arguments("  ").unwrap(), json!({}));
        assert_eq!(parse_arguments("[1]").unwrap(), json!([1]));
    }
}
