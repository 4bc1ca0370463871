//! The Anthropic adapter (feature `anthropic`): a registry's `anthropic` members as Messages
//! API tools, and their `tool_use` blocks answered through the pipeline.
//!
//! - [`tools`] / [`tools_for`]: `{name, description, input_schema}`, plus `"strict": true` for
//!   a tool whose `strict` setting is on (then `input_schema` is the `anthropic-strict`
//!   dialect, else the `anthropic` one), sorted by the tools' `anthropic` names. [`wrap`]
//!   declares one descriptor.
//! - [`Dispatcher`] answers a [`ToolUse`] block with a [`ToolResultBlock`]
//!   (`{"type": "tool_result", tool_use_id, content, is_error}`, `content` a string), and
//!   every `tool_use` block of an assistant [`Message`] at once (they go back, in order, as
//!   the content of the next user message).
//!
//! The built-in explain tool takes free-form `arguments`, which strict tool use cannot
//! express: it is never declared strict.
//!
//! ```ignore
//! let anthropic = toolspec_core::anthropic::Dispatcher::new(tools::registry(app));
//! let request = json!({ "model": "claude-sonnet-4-5", "max_tokens": 1024, "messages": messages,
//!                       "tools": anthropic.tools_for(&caller) });
//! let message: Message = serde_json::from_value(response)?;
//! let results = anthropic.answer(&message, &caller).await;
//! messages.push(json!({ "role": "user", "content": results }));
//! ```
//!
//! Only the Anthropic envelopes live here: which members are declared in which dialect, the
//! dispatch to the pipeline, the rendering of results and the argument repairs are the calling
//! core's (`crate::adapters::calling`), shared with the other providers.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::adapters::calling::{
    Answer, Core, Dispatched, Function, Provider, declarations, native_calls,
};
use crate::model::caller::Caller;
use crate::model::descriptor::Descriptor;
use crate::model::user_input::Continuation;
use crate::registry::Registry;

/// The adapter's name in specs (`tool: {anthropic: …}`) and in the registry.
#[doc(hidden)]
pub const ADAPTER: &str = "anthropic";

const PROVIDER: Provider = Provider { adapter: ADAPTER };

/// A Messages API tool definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// The tool's `anthropic` name.
    pub name: String,
    /// The description with preconditions and errors.
    pub description: String,
    /// The input schema in the `anthropic` or `anthropic-strict` dialect.
    pub input_schema: Value,
    /// `Some(true)` for strict tool use; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

impl From<&Function> for Tool {
    fn from(function: &Function) -> Self {
        Self {
            name: function.name.to_string(),
            description: function.description.to_string(),
            input_schema: function
                .parameters
                .clone()
                .unwrap_or_else(|| serde_json::json!({"type": "object"})),
            strict: function.strict().then_some(true),
        }
    }
}

/// A `tool_use` content block of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUse {
    /// `"tool_use"`.
    #[serde(rename = "type", default = "tool_use_type")]
    pub kind: String,
    /// The id the answer refers to (`toolu_…`).
    pub id: String,
    /// The tool's `anthropic` name, as the model wrote it.
    pub name: String,
    /// The arguments (an object).
    #[serde(default)]
    pub input: Value,
}

fn tool_use_type() -> String {
    "tool_use".into()
}

/// The answer to a [`ToolUse`]: a `tool_result` content block for the next user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultBlock {
    /// `"tool_result"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The [`ToolUse::id`] answered.
    pub tool_use_id: String,
    /// The exposed values as JSON text, the rendered message, or
    /// `{"error": code, "message", "details"?}` as JSON text.
    pub content: String,
    /// Whether the call failed.
    pub is_error: bool,
}

/// An assistant message as the Messages API returns it; the keys this adapter does not
/// read (`id`, `model`, `stop_reason`, `usage`…) are kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `"assistant"`.
    #[serde(default = "assistant")]
    pub role: String,
    /// The content blocks: `text`, `thinking`, `tool_use`…
    #[serde(default)]
    pub content: Vec<Value>,
    /// Everything else.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

fn assistant() -> String {
    "assistant".into()
}

/// Every `anthropic` member of `registry` as a tool definition, sorted by name.
pub fn tools(registry: &Registry) -> Vec<Tool> {
    declarations(PROVIDER, registry, None)
}

/// The tool definitions `caller` may see and call.
pub fn tools_for(registry: &Registry, caller: &Caller) -> Vec<Tool> {
    declarations(PROVIDER, registry, Some(caller))
}

/// One descriptor as a tool definition, or `None` when it is not an `anthropic` member.
/// `strict` is the tool's setting as the build resolved it (the dialect it embedded).
#[doc(hidden)]
pub fn wrap(tool: &Descriptor) -> Option<Tool> {
    PROVIDER.function(tool, None).as_ref().map(Tool::from)
}

/// The `tool_result` block answering `call`.
fn result_block(call: &ToolUse, answer: &Answer) -> ToolResultBlock {
    ToolResultBlock {
        kind: "tool_result".into(),
        tool_use_id: call.id.clone(),
        content: answer.text(),
        is_error: answer.is_error,
    }
}

/// Answers Anthropic `tool_use` blocks through a registry: its `anthropic` members projected
/// once. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Dispatcher {
    core: Arc<Core>,
}

impl Dispatcher {
    /// Dispatches to the `anthropic` members of `registry`.
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

    /// Every member as a tool definition (as [`tools`]).
    pub fn tools(&self) -> Vec<Tool> {
        self.core.members().declarations(None)
    }

    /// The tool definitions `caller` may see (as [`tools_for`]).
    pub fn tools_for(&self, caller: &Caller) -> Vec<Tool> {
        self.core.members().declarations(Some(caller))
    }

    /// Answers one `tool_use` block, as `caller` (a call that asks its user answers the model
    /// that it cannot be asked here: see [`dispatch`](Self::dispatch)).
    pub async fn call(&self, call: &ToolUse, caller: &Caller) -> ToolResultBlock {
        let answer = self
            .core
            .call(caller, &call.name, Ok(call.input.clone()))
            .await;
        result_block(call, &answer)
    }

    /// Answers one `tool_use` block for an app that asks its user: the `tool_result` block, or
    /// the questions of a call that needs the user's answers first (`confirm`, `ask`); the app
    /// then dispatches the same block again with the answers as `continuation`.
    pub async fn dispatch(
        &self,
        call: &ToolUse,
        caller: &Caller,
        continuation: Option<Continuation>,
    ) -> Dispatched<ToolResultBlock> {
        self.core
            .dispatch(caller, &call.name, Ok(call.input.clone()), continuation)
            .await
            .map(|answer| result_block(call, &answer))
    }

    /// Answers every `tool_use` block of an assistant message, as `caller`: concurrently, in
    /// the order of the blocks. Other blocks are skipped, and so is a `tool_use` block without
    /// `id` or `name`, which cannot be answered.
    pub async fn answer(&self, message: &Message, caller: &Caller) -> Vec<ToolResultBlock> {
        let blocks = message
            .content
            .iter()
            .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"));
        let calls: Vec<ToolUse> = native_calls(blocks, "tool_use block");
        let answers = calls.iter().map(|call| self.call(call, caller));
        futures_util::future::join_all(answers).await
    }
}
