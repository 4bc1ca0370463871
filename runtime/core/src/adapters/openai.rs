//! The OpenAI adapter (feature `openai`): a registry's `openai` members as function tools of
//! the Chat Completions and Responses APIs, and their tool calls answered through the pipeline.
//!
//! - [`tools`] / [`tools_for`]: Chat Completions tools
//!   `{"type": "function", "function": {name, description, parameters, strict}}`;
//!   [`responses_tools`] / [`responses_tools_for`]: Responses API function tools
//!   `{"type": "function", name, description, parameters, strict}`. Sorted by the tools'
//!   `openai` names; `strict` is always sent, from the tool's `strict` setting (project
//!   default in `toolspec.yaml`), with the `openai-strict` dialect as `parameters` when it is
//!   on and the `openai` dialect when it is off. [`wrap`] and [`wrap_responses`] declare one
//!   descriptor.
//! - [`Dispatcher`] answers a [`ToolCall`] with a [`ToolMessage`]
//!   (`{"role": "tool", "tool_call_id", "content"}`), every call of an [`AssistantMessage`] at
//!   once, and a Responses [`FunctionCallItem`] with a [`FunctionCallOutput`]. Arguments
//!   arrive as a JSON string: one that is not JSON is answered with an `invalid_arguments`
//!   failure naming the parse error, so the model can send them again.
//! - Strict mode makes every optional property nullable, and the model sends `null` for "not
//!   given": such nulls are dropped before the pipeline validates against the canonical schema
//!   (see [`drop_null_optionals`](crate::adapters::calling::drop_null_optionals)).
//!
//! The built-in explain tool takes free-form `arguments`, which strict mode cannot express:
//! it is always declared with `strict: false`.
//!
//! ```ignore
//! let openai = toolspec_core::openai::Dispatcher::new(tools::registry(app));
//! let request = json!({ "model": "gpt-5", "messages": messages, "tools": openai.tools_for(&caller) });
//! let message: AssistantMessage = serde_json::from_value(response["choices"][0]["message"].take())?;
//! for reply in openai.answer(&message, &caller).await { messages.push(serde_json::to_value(reply)?); }
//! ```
//!
//! Only the OpenAI envelopes live here: which members are declared in which dialect, the
//! dispatch to the pipeline, the rendering of results and the argument repairs are the calling
//! core's (`crate::adapters::calling`), shared with the other providers.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::adapters::calling::{
    Answer, Core, Dispatched, Function, Provider, declarations, native_calls, parse_arguments,
};
use crate::model::caller::Caller;
use crate::model::descriptor::Descriptor;
use crate::model::user_input::Continuation;
use crate::registry::Registry;

/// The adapter's name in specs (`tool: {openai: …}`) and in the registry.
#[doc(hidden)]
pub const ADAPTER: &str = "openai";

const PROVIDER: Provider = Provider { adapter: ADAPTER };

fn function_type() -> String {
    "function".into()
}

/// A Chat Completions tool: `{"type": "function", "function": {…}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatTool {
    /// Always `"function"`.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// The function.
    pub function: FunctionDefinition,
}

/// A Chat Completions function definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDefinition {
    /// The tool's `openai` name.
    pub name: String,
    /// The description with preconditions and errors.
    pub description: String,
    /// The input schema in the `openai` or `openai-strict` dialect.
    pub parameters: Value,
    /// Whether OpenAI enforces `parameters` (Structured Outputs); always sent.
    pub strict: bool,
}

/// A Responses API function tool: `{"type": "function", name, description, parameters,
/// strict}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponsesTool {
    /// Always `"function"`.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// The tool's `openai` name.
    pub name: String,
    /// The description with preconditions and errors.
    pub description: String,
    /// The input schema in the `openai` or `openai-strict` dialect.
    pub parameters: Value,
    /// Whether OpenAI enforces `parameters`; always sent.
    pub strict: bool,
}

impl From<&Function> for ChatTool {
    fn from(function: &Function) -> Self {
        Self {
            kind: function_type(),
            function: FunctionDefinition {
                name: function.name.to_string(),
                description: function.description.to_string(),
                parameters: parameters(function),
                strict: function.strict(),
            },
        }
    }
}

impl From<&Function> for ResponsesTool {
    fn from(function: &Function) -> Self {
        Self {
            kind: function_type(),
            name: function.name.to_string(),
            description: function.description.to_string(),
            parameters: parameters(function),
            strict: function.strict(),
        }
    }
}

/// OpenAI always takes an object schema (a tool without parameters has empty `properties`,
/// which every dialect of it already says).
fn parameters(function: &Function) -> Value {
    function
        .parameters
        .clone()
        .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}))
}

/// One entry of an assistant message's `tool_calls`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The id the answer refers to (`call_…`).
    pub id: String,
    /// `"function"`.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// What the model called.
    pub function: FunctionCall,
}

/// The function a [`ToolCall`] calls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool's `openai` name, as the model wrote it.
    pub name: String,
    /// The arguments: a JSON *string*, not always valid JSON.
    #[serde(default)]
    pub arguments: String,
}

/// A Chat Completions assistant message (`choices[0].message`); the keys this adapter does
/// not read are kept, so the message can go back into the conversation as it came.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// `"assistant"`.
    #[serde(default = "assistant")]
    pub role: String,
    /// Text content, usually `null` alongside tool calls.
    #[serde(default)]
    pub content: Option<Value>,
    /// The tool calls, in the order the model made them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Everything else (`refusal`, `annotations`, …).
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

fn assistant() -> String {
    "assistant".into()
}

/// The answer to one tool call: `{"role": "tool", "tool_call_id", "content"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolMessage {
    /// `"tool"`.
    pub role: String,
    /// The [`ToolCall::id`] answered.
    pub tool_call_id: String,
    /// The exposed values as JSON text, the rendered message, or
    /// `{"error": code, "message", "details"?}` as JSON text.
    pub content: String,
}

/// A Responses API `function_call` output item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCallItem {
    /// `"function_call"`.
    #[serde(rename = "type", default = "function_call_type")]
    pub kind: String,
    /// The item's own id (`fc_…`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The id the answer refers to (`call_…`).
    pub call_id: String,
    /// The tool's `openai` name, as the model wrote it.
    pub name: String,
    /// The arguments: a JSON string.
    #[serde(default)]
    pub arguments: String,
    /// `"completed"`, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

fn function_call_type() -> String {
    "function_call".into()
}

/// The answer to a [`FunctionCallItem`]: `{"type": "function_call_output", call_id, output}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCallOutput {
    /// `"function_call_output"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The [`FunctionCallItem::call_id`] answered.
    pub call_id: String,
    /// The same text a [`ToolMessage`] would carry.
    pub output: String,
}

/// Every `openai` member of `registry` as a Chat Completions tool, sorted by name.
pub fn tools(registry: &Registry) -> Vec<ChatTool> {
    declarations(PROVIDER, registry, None)
}

/// The Chat Completions tools `caller` may see and call.
pub fn tools_for(registry: &Registry, caller: &Caller) -> Vec<ChatTool> {
    declarations(PROVIDER, registry, Some(caller))
}

/// Every `openai` member of `registry` as a Responses API function tool, sorted by name.
pub fn responses_tools(registry: &Registry) -> Vec<ResponsesTool> {
    declarations(PROVIDER, registry, None)
}

/// The Responses API function tools `caller` may see and call.
pub fn responses_tools_for(registry: &Registry, caller: &Caller) -> Vec<ResponsesTool> {
    declarations(PROVIDER, registry, Some(caller))
}

/// One descriptor as a Chat Completions tool, or `None` when it is not an `openai` member;
/// strict when the build resolved the tool's `strict` setting on (it then embedded the
/// `openai-strict` dialect).
#[doc(hidden)]
pub fn wrap(tool: &Descriptor) -> Option<ChatTool> {
    PROVIDER.function(tool, None).as_ref().map(ChatTool::from)
}

/// One descriptor as a Responses API function tool (see [`wrap`]).
#[doc(hidden)]
pub fn wrap_responses(tool: &Descriptor) -> Option<ResponsesTool> {
    PROVIDER
        .function(tool, None)
        .as_ref()
        .map(ResponsesTool::from)
}

/// The tool message answering `call`.
fn tool_message(call: &ToolCall, answer: &Answer) -> ToolMessage {
    ToolMessage {
        role: "tool".into(),
        tool_call_id: call.id.clone(),
        content: answer.text(),
    }
}

/// The `function_call_output` item answering `call`.
fn function_output(call: &FunctionCallItem, answer: &Answer) -> FunctionCallOutput {
    FunctionCallOutput {
        kind: "function_call_output".into(),
        call_id: call.call_id.clone(),
        output: answer.text(),
    }
}

/// Answers OpenAI tool calls through a registry: its `openai` members projected once. Cheap
/// to clone.
#[derive(Debug, Clone)]
pub struct Dispatcher {
    core: Arc<Core>,
}

impl Dispatcher {
    /// Dispatches to the `openai` members of `registry`.
    pub fn new(registry: impl Into<Arc<Registry>>) -> Self {
        Self {
            core: Arc::new(Core::new(PROVIDER, registry.into())),
        }
    }

    /// The registry calls go to.
    pub fn registry(&self) -> &Arc<Registry> {
        self.core.registry()
    }

    /// Offers and dispatches to the members `selection` admits only (the tools of some
    /// modules or tags): the others are unknown tools here.
    pub fn select(mut self, selection: &crate::registry::catalog::Selection) -> Self {
        Arc::make_mut(&mut self.core).select(selection);
        self
    }

    /// Every member as a Chat Completions tool (as [`tools`]).
    pub fn tools(&self) -> Vec<ChatTool> {
        self.core.members().declarations(None)
    }

    /// The Chat Completions tools `caller` may see (as [`tools_for`]).
    pub fn tools_for(&self, caller: &Caller) -> Vec<ChatTool> {
        self.core.members().declarations(Some(caller))
    }

    /// Every member as a Responses API function tool (as [`responses_tools`]).
    pub fn responses_tools(&self) -> Vec<ResponsesTool> {
        self.core.members().declarations(None)
    }

    /// The Responses API function tools `caller` may see (as [`responses_tools_for`]).
    pub fn responses_tools_for(&self, caller: &Caller) -> Vec<ResponsesTool> {
        self.core.members().declarations(Some(caller))
    }

    /// Answers one Chat Completions tool call, as `caller` (a call that asks its user answers
    /// the model that it cannot be asked here: see [`dispatch`](Self::dispatch)).
    pub async fn call(&self, call: &ToolCall, caller: &Caller) -> ToolMessage {
        let function = &call.function;
        let answer = self
            .core
            .call(caller, &function.name, parse_arguments(&function.arguments))
            .await;
        tool_message(call, &answer)
    }

    /// Answers one Chat Completions tool call for an app that asks its user: the tool message,
    /// or the questions of a call that needs the user's answers first (`confirm`, `ask`); the
    /// app then dispatches the same call again with the answers as `continuation`.
    pub async fn dispatch(
        &self,
        call: &ToolCall,
        caller: &Caller,
        continuation: Option<Continuation>,
    ) -> Dispatched<ToolMessage> {
        let function = &call.function;
        let arguments = parse_arguments(&function.arguments);
        self.core
            .dispatch(caller, &function.name, arguments, continuation)
            .await
            .map(|answer| tool_message(call, &answer))
    }

    /// Answers every tool call of an assistant message, as `caller`: the calls run
    /// concurrently, the answers come in the order of the calls.
    pub async fn answer(&self, message: &AssistantMessage, caller: &Caller) -> Vec<ToolMessage> {
        let calls = message
            .tool_calls
            .iter()
            .map(|call| self.call(call, caller));
        futures_util::future::join_all(calls).await
    }

    /// Answers one Responses API `function_call` item, as `caller` (see [`call`](Self::call)).
    pub async fn call_function(
        &self,
        call: &FunctionCallItem,
        caller: &Caller,
    ) -> FunctionCallOutput {
        let answer = self
            .core
            .call(caller, &call.name, parse_arguments(&call.arguments))
            .await;
        function_output(call, &answer)
    }

    /// Answers one Responses API `function_call` item for an app that asks its user (see
    /// [`dispatch`](Self::dispatch)).
    pub async fn dispatch_function(
        &self,
        call: &FunctionCallItem,
        caller: &Caller,
        continuation: Option<Continuation>,
    ) -> Dispatched<FunctionCallOutput> {
        let arguments = parse_arguments(&call.arguments);
        self.core
            .dispatch(caller, &call.name, arguments, continuation)
            .await
            .map(|answer| function_output(call, &answer))
    }

    /// Answers every `function_call` item of a Responses API `output` (other items, such as
    /// messages and reasoning, are skipped), as `caller`: concurrently, in order. An item
    /// typed `function_call` that lacks `call_id` or `name` cannot be answered and is skipped.
    pub async fn answer_output(
        &self,
        output: &[Value],
        caller: &Caller,
    ) -> Vec<FunctionCallOutput> {
        let items = output
            .iter()
            .filter(|item| item.get("type").and_then(Value::as_str) == Some("function_call"));
        let calls: Vec<FunctionCallItem> = native_calls(items, "function_call item");
        let answers = calls.iter().map(|call| self.call_function(call, caller));
        futures_util::future::join_all(answers).await
    }
}
