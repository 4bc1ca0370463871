//! The shared core of the function-calling adapters (`toolspec::openai`,
//! `toolspec::anthropic`, `toolspec::gemini`); compiled when any of their features is on.
//!
//! Each adapter only knows its provider's envelopes. Everything else lives here, so that the
//! three behave alike:
//!
//! - **Listing**: a registry's members of one adapter (a `Catalog`), each with
//!   the input schema in the provider's dialect computed at build time (the strict dialect
//!   when the tool's `strict` setting is on), its `present_as` setting, and filtered by a
//!   [`Caller`]'s scopes.
//! - **Dispatch**: a native tool call is looked up by the adapter's name for the tool; a tool
//!   that does not exist, or that the caller's scopes do not cover, answers with the same
//!   `unknown_tool` failure. Arguments go through the registry's pipeline with the caller's
//!   trusted ambient context, never anything the model sent.
//! - **Rendering** ([`Answer`]): success is the exposed values (or the rendered message when
//!   the tool's `present_as` is `message`); failure is `{"error": code, "message", "details"?}`,
//!   never the developer-facing exception.
//! - **Tasks**: a tool whose `task` is `required` answers a ticket (the task, and `next`: call
//!   the task status tool with its id), an `optional` one runs inline.
//! - **Strict nulls** ([`drop_null_optionals`]): OpenAI's strict mode makes every optional
//!   property nullable and sends `null` for "not given"; such nulls are dropped before the
//!   pipeline validates against the canonical schema, unless that schema accepts `null` there.
//! - **Spelled enums** ([`restore_spelled_enums`]): Gemini declares every enum as strings;
//!   the spelling of a number or boolean the model sends is turned back into the value.
//!
//! Calls can be cancelled by dropping their future (a handler's future is dropped with it).
//!
//! This module holds the declarations and the dispatch; `answer` renders results and reads a
//! provider's calls, `repair` undoes what a dialect made the model send. It owns no wire
//! format (each adapter's module does) and never validates, coerces or decodes arguments: the
//! registry's pipeline does, on the one call path every adapter shares.

mod answer;
mod repair;

use std::sync::Arc;

use serde_json::Value;

pub use answer::Answer;
pub(crate) use answer::native_calls;
#[doc(hidden)]
pub use answer::parse_arguments;
use repair::{Repairs, has_unspelled_enum, repair};
#[doc(hidden)]
pub use repair::{drop_null_optionals, restore_spelled_enums};

use crate::call::options::CallOptions;
use crate::model::caller::Caller;
use crate::model::descriptor::{Descriptor, Text, ToolKind};
use crate::model::user_input::{Continuation, InputRequired};
use crate::pipeline::ForModel;
use crate::registry::Registry;
use crate::registry::catalog::{Catalog, Selection};
use toolspec_vocab::Dialect;
use toolspec_vocab::adapters;
use toolspec_vocab::settings::{SettingValue, Settings};

/// One function-calling provider, as its adapter describes it to the shared core.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Provider {
    /// The adapter's name in specs and in the registry.
    pub adapter: &'static str,
}

/// What a tool call dispatched by an app answers: the message for the model, or what the call
/// asks its user first (its `confirm` or `ask`). The app asks its user — never the model —
/// and dispatches the same call again with the answers as its
/// [`Continuation`]: [`Continuation::confirm`] to approve,
/// a [`decline`](crate::model::user_input::InputResponse::Decline) to refuse (the model then reads
/// that the user declined and nothing was done).
#[derive(Debug, Clone, PartialEq)]
pub enum Dispatched<M> {
    /// The answer for the model.
    Answer(M),
    /// The questions for the user, and the sealed state to continue with.
    Ask(InputRequired),
}

impl<M> Dispatched<M> {
    /// The answer, wrapped by `f`.
    pub(crate) fn map<N>(self, f: impl FnOnce(M) -> N) -> Dispatched<N> {
        match self {
            Self::Answer(answer) => Dispatched::Answer(f(answer)),
            Self::Ask(input) => Dispatched::Ask(input),
        }
    }
}

/// A tool as a provider declares it: what each adapter puts into its own envelope.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Function {
    /// The tool's name on the adapter.
    pub name: Text,
    /// The description models read.
    pub description: Text,
    /// The parameters in the provider's dialect; `None` when the provider wants no schema
    /// (a Gemini tool without parameters).
    pub parameters: Option<Value>,
    /// The dialect `parameters` is in.
    pub dialect: Dialect,
}

impl Function {
    /// Whether `parameters` is a strict dialect (Gemini's never is).
    #[cfg_attr(not(any(feature = "openai", feature = "anthropic")), allow(dead_code))]
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
        tool: &Descriptor,
        settings: Option<&Settings<'_, Text>>,
    ) -> Option<Function> {
        let name = tool.name_text_for(self.adapter)?;
        let wanted = match settings {
            Some(settings) => Dialect::for_member(self.adapter, settings),
            None => {
                let decl = adapters::builtin(self.adapter)?;
                let strict = [("strict", SettingValue::Bool(true))];
                Dialect::for_member(self.adapter, &Settings::new(decl, &strict[..]))
            }
        };
        let (dialect, schema) = tool.declared_for(self.adapter, wanted);
        let parameters = match serde_json::from_str::<Value>(schema) {
            Ok(Value::Null) => None,
            Ok(parameters) => Some(parameters),
            Err(e) => {
                tracing::error!(tool = &*tool.name, adapter = self.adapter, error = %e, "an embedded schema is not JSON; the tool is not offered");
                return None;
            }
        };
        Some(Function {
            name,
            description: tool.description_text_for(self.adapter),
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

    /// Keeps the members `selection` admits.
    fn retain(&mut self, selection: &Selection) {
        self.catalog.retain(selection);
    }

    /// The declarations `caller` may see (every one without a caller), sorted by name, each
    /// in the adapter's envelope `T`.
    pub fn declarations<T: for<'a> From<&'a Function>>(&self, caller: Option<&Caller>) -> Vec<T> {
        self.catalog
            .visible(caller)
            .map(|member| T::from(&member.declaration.function))
            .collect()
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

    /// Offers and dispatches to the members `selection` admits only.
    pub fn select(&mut self, selection: &Selection) {
        self.members.retain(selection);
    }

    /// Calls the tool `caller` knows as `name` on this adapter with `arguments` (or answers
    /// why not), through the pipeline with the caller's trusted ambient context and scopes. A
    /// call that asks its user answers the model that this dispatch cannot ask
    /// (`input_required`): [`dispatch`](Self::dispatch) hands the question to the app instead.
    pub async fn call(
        &self,
        caller: &Caller,
        name: &str,
        arguments: Result<Value, Answer>,
    ) -> Answer {
        match self.dispatch(caller, name, arguments, None).await {
            Dispatched::Answer(answer) => answer,
            Dispatched::Ask(input) => {
                let why = "this app dispatches calls without asking its user";
                Answer::failure_of(&input.refusal(why))
            }
        }
    }

    /// [`call`](Self::call) for an app that asks its user: a call that needs the user's
    /// answers is [`Dispatched::Ask`], which the app shows its user, then dispatches the same
    /// call again with the answers as `continuation`.
    pub async fn dispatch(
        &self,
        caller: &Caller,
        name: &str,
        arguments: Result<Value, Answer>,
        continuation: Option<Continuation>,
    ) -> Dispatched<Answer> {
        let adapter = self.members.provider.adapter;
        let Some((member, registered)) =
            self.members.catalog.dispatch(&self.registry, name, caller)
        else {
            tracing::debug!(adapter, tool = name, "a call of an unknown tool");
            return Dispatched::Answer(Answer::unknown_tool(name));
        };
        let mut arguments = match arguments {
            Ok(arguments) => arguments,
            Err(answer) => return Dispatched::Answer(answer),
        };
        if let Some((schema, repairs)) = &member.declaration.repairs {
            repair(&mut arguments, schema, *repairs);
        }
        if member.descriptor.kind == ToolKind::Explain {
            self.repair_explained(&mut arguments, caller);
        }
        let options = CallOptions {
            continuation,
            ..CallOptions::for_caller(adapter, caller)
        };
        Dispatched::Answer(
            match registered
                .call_for_model(arguments, &caller.ambient, options)
                .await
            {
                ForModel::Done(result) => Answer::from_result(&result, member.present_as),
                ForModel::Ticket(content) => Answer::ticket(content),
                // The app asks its user; the model never answers for them.
                ForModel::Input(input) => return Dispatched::Ask(input),
            },
        )
    }

    /// The explain tool's `arguments` are the target tool's arguments, in the form the model
    /// learnt them: they are repaired like that tool's own.
    fn repair_explained(&self, arguments: &mut Value, caller: &Caller) {
        let Some(target) = arguments
            .get("tool")
            .and_then(Value::as_str)
            .and_then(|name| self.members.catalog.find(name, caller))
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
