//! The rig adapter (feature `rig`, rig-core 0.44): every member tool of a [`Registry`] as a
//! rig [`DynamicTool`], called through the pipeline with the app's trusted [`Caller`].
//!
//! ```ignore
//! let registry = Arc::new(tools::registry(app));
//! let caller = Arc::new(Caller::new("agent").with_ambient(AmbientContext::from([("customer_id", 1)])));
//! for tool in toolspec_core::rig::tools(&registry, &caller) {
//!     agent_builder = agent_builder.dynamic_tool(tool); // or however your rig version registers them
//! }
//! ```
//!
//! The parameters are the tool's `openai` dialect (the widest accepted by rig's providers;
//! the canonical schema when the tool has none). Success returns the exposed values as JSON,
//! or the rendered message when the tool's `present_as` setting is `message`; a failure is a
//! [`ToolExecutionError`] whose model output is `{"error": code, "message", "details"}` and
//! whose kind follows the code (`invalid_arguments` → `InvalidArgs`, `timeout`, `cancelled`,
//! `unknown_tool` → `NotFound`, anything else `Other`). The developer-facing exception stays
//! in the error's diagnostic message, which rig never shows the model. A tool whose `task` is
//! `required` answers a ticket (the task, and `next`: call the task status tool, a member like
//! any other, with its id); an `optional` one runs inline.
//!
//! Built like the other adapters: a catalog of the rig members (their rig names), each wrapped
//! as a `DynamicTool` whose calls go to the registered tool through the pipeline. Only rig's types
//! live here; nothing else in the crate depends on rig.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolErrorKind, ToolExecutionError, ToolOutput};

use crate::call::options::CallOptions;
use crate::model::caller::Caller;
use crate::model::failure::{ToolError, ToolResult};
use crate::model::user_input::{Continuation, InputRequired, InputResponse};
use crate::pipeline::ForModel;
use crate::registry::catalog::{Catalog, Member, Selection};
use crate::registry::{RegisteredTool, Registry};
use serde_json::Value;
use toolspec_vocab::settings::PresentAs;
use toolspec_vocab::{Dialect, codes};

#[doc(no_inline)]
pub use rig_core;

/// The adapter's name in specs (`tool: {rig: …}`) and in the registry.
#[doc(hidden)]
pub const ADAPTER: &str = "rig";

/// Every rig member of `registry` that `caller` may call, sorted by its rig name. A call that
/// asks its user (`confirm`, `ask`) answers the model that it cannot be asked here: see
/// [`tools_asking`].
pub fn tools(registry: &Arc<Registry>, caller: &Arc<Caller>) -> Vec<DynamicTool> {
    tools_with(registry, caller, None, &Selection::all())
}

/// [`tools`] or (with `approvals`) [`tools_asking`], of the members `selection` admits only:
/// the tools of some modules or tags.
pub fn selected(
    registry: &Arc<Registry>,
    caller: &Arc<Caller>,
    selection: &Selection,
    approvals: Option<&Approvals>,
) -> Vec<DynamicTool> {
    tools_with(registry, caller, approvals, selection)
}

/// [`tools`] for an app that asks its user: a call that needs the user's answers is kept in
/// `approvals` (its tool, arguments and questions), and the model is told that the user is
/// being asked. The app asks them once the agent's run ends, then continues each call
/// ([`Pending::resume`]) — never the model.
pub fn tools_asking(
    registry: &Arc<Registry>,
    caller: &Arc<Caller>,
    approvals: &Approvals,
) -> Vec<DynamicTool> {
    tools_with(registry, caller, Some(approvals), &Selection::all())
}

fn tools_with(
    registry: &Arc<Registry>,
    caller: &Arc<Caller>,
    approvals: Option<&Approvals>,
    selection: &Selection,
) -> Vec<DynamicTool> {
    let mut catalog = Catalog::of(registry, ADAPTER, declare);
    catalog.retain(selection);
    catalog
        .visible(Some(caller))
        .map(|member| dynamic_tool(registry, member, caller, approvals.cloned()))
        .collect()
}

/// The calls of an agent's run that wait for their user's answers (see [`tools_asking`]).
/// Cheap to clone: clones share the calls.
#[derive(Debug, Clone, Default)]
pub struct Approvals {
    pending: Arc<Mutex<Vec<Pending>>>,
}

impl Approvals {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// The calls waiting, taken out of the set.
    pub fn take(&self) -> Vec<Pending> {
        std::mem::take(&mut *self.pending.lock().unwrap_or_else(PoisonError::into_inner))
    }

    fn push(&self, pending: Pending) {
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(pending);
    }
}

/// A call that waits for its user's answers: the tool (canonical name), its arguments as the
/// model sent them, and what it asks (with the sealed state to continue with).
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The tool's canonical name.
    pub tool: String,
    /// The arguments as the model sent them (the state is bound to them).
    pub arguments: Value,
    /// What the call asks.
    pub input: InputRequired,
}

impl Pending {
    /// Continues the call with its user's `responses` (by request key), as `caller` through
    /// `registry` (see [`resume`]).
    pub async fn resume(
        &self,
        registry: &Registry,
        caller: &Caller,
        responses: BTreeMap<String, InputResponse>,
    ) -> ToolResult {
        let continuation = Continuation {
            request_state: Some(self.input.request_state.clone()),
            responses,
        };
        resume(
            registry,
            caller,
            &self.tool,
            self.arguments.clone(),
            continuation,
        )
        .await
    }
}

/// Continues a rig call of `tool` (canonical name) with `arguments` as the model sent them and
/// its user's answers, as `caller` through `registry`: the call's result — its own,
/// `declined`, or why the state was refused (another caller's, altered, expired, used).
pub async fn resume(
    registry: &Registry,
    caller: &Caller,
    tool: &str,
    arguments: Value,
    continuation: Continuation,
) -> ToolResult {
    let Some(tool) = registry.get(tool).filter(|t| t.name_for(ADAPTER).is_some()) else {
        return ToolResult::failed(ToolError::unknown_tool(tool), None);
    };
    let options = CallOptions {
        continuation: Some(continuation),
        ..CallOptions::for_caller(ADAPTER, caller)
    };
    tool.invoke_with(arguments, &caller.ambient, options).await
}

/// Tool `name` (canonical) as a rig tool calling into `registry` as `caller`; `None` when
/// there is no such tool or it is not a rig member.
#[doc(hidden)]
pub fn wrap(registry: &Arc<Registry>, name: &str, caller: &Arc<Caller>) -> Option<DynamicTool> {
    let member = Member::of(&registry.get(name)?, ADAPTER, declare)?;
    Some(dynamic_tool(registry, &member, caller, None))
}

/// A rig member's name there, when rig takes it as a tool name.
fn declare(tool: &RegisteredTool<'_>) -> Option<ToolName> {
    ToolName::new(tool.name_for(ADAPTER)?).ok()
}

/// `member` as a rig tool: its parameters are the `openai` dialect (the widest accepted by
/// rig's providers), else the canonical schema; each call goes to `member`'s tool in
/// `registry`, as `caller`.
fn dynamic_tool(
    registry: &Arc<Registry>,
    member: &Member<ToolName>,
    caller: &Arc<Caller>,
    approvals: Option<Approvals>,
) -> DynamicTool {
    let descriptor = &member.descriptor;
    let parameters = descriptor
        .schema_for_json(ADAPTER, Dialect::OpenAi)
        .or_else(|| descriptor.schema_for_json(ADAPTER, Dialect::Mcp))
        .unwrap_or_else(|| descriptor.input_schema_json());
    let (registry, caller, target) = (registry.clone(), caller.clone(), member.clone());
    DynamicTool::new(
        member.declaration.clone(),
        descriptor.description_for(ADAPTER),
        parameters,
        move |arguments| {
            let (registry, caller, member) = (registry.clone(), caller.clone(), target.clone());
            let approvals = approvals.clone();
            Box::pin(async move {
                let Some(tool) = member.tool(&registry) else {
                    let error = ToolError::unknown_tool(&member.descriptor.name);
                    return render(ToolResult::failed(error, None), member.present_as);
                };
                let options = CallOptions::for_caller(ADAPTER, &caller);
                let sent = approvals.as_ref().map(|_| arguments.clone());
                match tool
                    .call_for_model(arguments, &caller.ambient, options)
                    .await
                {
                    ForModel::Done(result) => render(result, member.present_as),
                    ForModel::Ticket(ticket) => Ok(ToolOutput::json(ticket)),
                    // The app asks its user; the model never answers for them.
                    ForModel::Input(input) => match (approvals, sent) {
                        (Some(approvals), Some(arguments)) => {
                            let waiting = waiting(&input);
                            approvals.push(Pending {
                                tool: member.descriptor.name.to_string(),
                                arguments,
                                input,
                            });
                            Ok(ToolOutput::json(waiting))
                        }
                        _ => {
                            let why = "this agent does not ask its user";
                            render(input.refusal(why), member.present_as)
                        }
                    },
                }
            })
        },
    )
}

/// What the model reads of a call that waits for its user: what is asked, and to stop there.
fn waiting(input: &InputRequired) -> Value {
    let asked: Vec<&str> = input.requests.iter().map(|r| r.message.as_str()).collect();
    serde_json::json!({
        "status": "waiting_for_user",
        "asked": asked,
        "next": "Nothing was done yet: the user is asked this by the app, and the call goes on \
                 once they answer. Tell the user, and do not call the tool again for it.",
    })
}

/// A call's result as rig's output or error.
fn render(result: ToolResult, present_as: PresentAs) -> Result<ToolOutput, ToolExecutionError> {
    let model_json = result.to_model_json();
    match result.outcome {
        Ok(_) => Ok(match result.presented(present_as) {
            Some(Value::String(text)) => ToolOutput::text(text),
            presented => ToolOutput::json(presented.unwrap_or_default()),
        }),
        Err(error) => {
            let kind = match error.code.as_str() {
                codes::INVALID_ARGUMENTS => ToolErrorKind::InvalidArgs,
                codes::TIMEOUT => ToolErrorKind::Timeout,
                codes::CANCELLED => ToolErrorKind::Cancelled,
                codes::UNKNOWN_TOOL => ToolErrorKind::NotFound,
                _ => ToolErrorKind::Other,
            };
            // The diagnostic message (operators only) carries the exception when there is one.
            let diagnostic = result.exception.unwrap_or(error.message);
            Err(ToolExecutionError::new(kind, diagnostic)
                .with_code(error.code)
                .with_model_output(ToolOutput::json(model_json)))
        }
    }
}
