//! The Gemini adapter (feature `gemini`): a registry's `gemini` members as function
//! declarations, and their function calls answered through the pipeline.
//!
//! - [`tools`] / [`tools_for`]: `FunctionDeclaration {name, description, parameters}` with
//!   `parameters` in the `gemini` dialect (an OpenAPI 3.0 subset), absent for a tool without
//!   parameters; sorted by the tools' `gemini` names. They go into a request as
//!   `"tools": [{"functionDeclarations": [...]}]`. [`wrap`] declares one descriptor.
//! - [`Dispatcher`] answers a [`FunctionCall`] (`{name, id?, args}`) with a
//!   [`FunctionResponse`] (`{name, id?, response}`), where `response` is `{"output": …}` on
//!   success and `{"error": {"error": code, "message", "details"?}}` on failure; and every
//!   `functionCall` part of a model [`Content`] at once, as the user content that answers it.
//! - Gemini enums hold strings only: the dialect sends numeric and boolean enums as their
//!   spellings (`"2"`), and the calling core turns each spelling back into the enum's value
//!   ([`restore_spelled_enums`](crate::adapters::calling::restore_spelled_enums)), at any depth
//!   and inside `explain`'s `arguments`, before the pipeline validates.
//!
//! ```ignore
//! let gemini = toolspec_core::gemini::Dispatcher::new(tools::registry(app));
//! let request = json!({ "contents": contents,
//!                       "tools": [{ "functionDeclarations": gemini.tools_for(&caller) }] });
//! let content: Content = serde_json::from_value(response["candidates"][0]["content"].take())?;
//! contents.push(serde_json::to_value(&content)?);
//! contents.push(serde_json::to_value(gemini.answer(&content, &caller).await)?);
//! ```
//!
//! Only the Gemini envelopes live here: which members are declared in which dialect, the
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

/// The adapter's name in specs (`tool: {gemini: …}`) and in the registry.
#[doc(hidden)]
pub const ADAPTER: &str = "gemini";

const PROVIDER: Provider = Provider { adapter: ADAPTER };

/// A function declaration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDeclaration {
    /// The tool's `gemini` name.
    pub name: String,
    /// The description with preconditions and errors.
    pub description: String,
    /// The input schema in the `gemini` dialect; absent when the tool takes no parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
}

impl From<&Function> for FunctionDeclaration {
    fn from(function: &Function) -> Self {
        Self {
            name: function.name.to_string(),
            description: function.description.to_string(),
            parameters: function.parameters.clone(),
        }
    }
}

/// A function call (a part's `functionCall`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// The tool's `gemini` name, as the model wrote it.
    pub name: String,
    /// The call's id, when the API gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The arguments (an object; absent for a call without arguments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Value>,
}

/// The answer to a [`FunctionCall`] (a part's `functionResponse`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionResponse {
    /// The name the call used.
    pub name: String,
    /// The call's id, when it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `{"output": …}`: the exposed values, or the rendered message when the tool's
    /// `present_as` is `message`; or `{"error": {"error": code, "message", "details"?}}`.
    pub response: Value,
}

/// A turn of a conversation: `{role, parts}`; the keys this adapter does not read are kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Content {
    /// `"model"` for the model's turn, `"user"` for the answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The parts: `text`, `functionCall`, `functionResponse`…
    #[serde(default)]
    pub parts: Vec<Value>,
    /// Everything else.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Every `gemini` member of `registry` as a function declaration, sorted by name.
pub fn tools(registry: &Registry) -> Vec<FunctionDeclaration> {
    declarations(PROVIDER, registry, None)
}

/// The function declarations `caller` may see and call.
pub fn tools_for(registry: &Registry, caller: &Caller) -> Vec<FunctionDeclaration> {
    declarations(PROVIDER, registry, Some(caller))
}

/// One descriptor as a function declaration, or `None` when it is not a `gemini` member.
#[doc(hidden)]
pub fn wrap(tool: &Descriptor) -> Option<FunctionDeclaration> {
    PROVIDER
        .function(tool, None)
        .as_ref()
        .map(FunctionDeclaration::from)
}

/// The function response answering `call`.
fn function_response(call: &FunctionCall, answer: Answer) -> FunctionResponse {
    FunctionResponse {
        name: call.name.clone(),
        id: call.id.clone(),
        response: response(answer),
    }
}

/// Answers Gemini function calls through a registry: its `gemini` members projected once.
/// Cheap to clone.
#[derive(Debug, Clone)]
pub struct Dispatcher {
    core: Arc<Core>,
}

impl Dispatcher {
    /// Dispatches to the `gemini` members of `registry`.
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

    /// Every member as a function declaration (as [`tools`]).
    pub fn tools(&self) -> Vec<FunctionDeclaration> {
        self.core.members().declarations(None)
    }

    /// The function declarations `caller` may see (as [`tools_for`]).
    pub fn tools_for(&self, caller: &Caller) -> Vec<FunctionDeclaration> {
        self.core.members().declarations(Some(caller))
    }

    /// Answers one function call, as `caller` (a call that asks its user answers the model that
    /// it cannot be asked here: see [`dispatch`](Self::dispatch)).
    pub async fn call(&self, call: &FunctionCall, caller: &Caller) -> FunctionResponse {
        let arguments = call.args.clone().unwrap_or(Value::Null);
        let answer = self.core.call(caller, &call.name, Ok(arguments)).await;
        function_response(call, answer)
    }

    /// Answers one function call for an app that asks its user: the function response, or the
    /// questions of a call that needs the user's answers first (`confirm`, `ask`); the app then
    /// dispatches the same call again with the answers as `continuation`.
    pub async fn dispatch(
        &self,
        call: &FunctionCall,
        caller: &Caller,
        continuation: Option<Continuation>,
    ) -> Dispatched<FunctionResponse> {
        let arguments = call.args.clone().unwrap_or(Value::Null);
        self.core
            .dispatch(caller, &call.name, Ok(arguments), continuation)
            .await
            .map(|answer| function_response(call, answer))
    }

    /// Answers every `functionCall` part of a model turn, as `caller`: concurrently, in the
    /// order of the parts, as the user turn of `functionResponse` parts that follows it.
    /// Other parts are skipped, and so is a `functionCall` without a `name`.
    pub async fn answer(&self, content: &Content, caller: &Caller) -> Content {
        let parts = content
            .parts
            .iter()
            .filter_map(|part| part.get("functionCall"));
        let calls: Vec<FunctionCall> = native_calls(parts, "functionCall part");
        let answers = calls.iter().map(|call| self.call(call, caller));
        let parts = futures_util::future::join_all(answers)
            .await
            .into_iter()
            .map(|response| {
                let response = serde_json::to_value(response).unwrap_or(Value::Null);
                Value::Object(Map::from_iter([("functionResponse".into(), response)]))
            })
            .collect();
        Content {
            role: Some("user".into()),
            parts,
            other: Map::new(),
        }
    }
}

/// `{"output": …}` or `{"error": …}`.
fn response(answer: Answer) -> Value {
    let key = if answer.is_error { "error" } else { "output" };
    Value::Object(Map::from_iter([(key.into(), answer.content)]))
}
