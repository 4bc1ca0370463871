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

use std::sync::Arc;

use rig_core::message::ToolName;
use rig_core::tool::{DynamicTool, ToolErrorKind, ToolExecutionError, ToolOutput};

use crate::call::options::CallOptions;
use crate::caller::Caller;
use crate::catalog::{Catalog, Member};
use crate::failure::{ToolError, ToolResult};
use crate::pipeline::ForModel;
use crate::registry::{RegisteredTool, Registry};
use toolspec_vocab::settings::PresentAs;
use toolspec_vocab::{Dialect, codes};

#[doc(no_inline)]
pub use rig_core;

/// The adapter's name in specs (`tool: {rig: …}`) and in the registry.
pub const ADAPTER: &str = "rig";

/// Every rig member of `registry` that `caller` may call, sorted by its rig name.
pub fn tools(registry: &Arc<Registry>, caller: &Arc<Caller>) -> Vec<DynamicTool> {
    let catalog = Catalog::of(registry, ADAPTER, declare);
    catalog
        .visible(Some(caller))
        .map(|member| dynamic_tool(registry, member, caller))
        .collect()
}

/// Tool `name` (canonical) as a rig tool calling into `registry` as `caller`; `None` when
/// there is no such tool or it is not a rig member.
pub fn wrap(registry: &Arc<Registry>, name: &str, caller: &Arc<Caller>) -> Option<DynamicTool> {
    let member = Member::of(&registry.get(name)?, ADAPTER, declare)?;
    Some(dynamic_tool(registry, &member, caller))
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
) -> DynamicTool {
    let descriptor = member.descriptor;
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
            Box::pin(async move {
                let Some(tool) = member.tool(&registry) else {
                    let error = ToolError::unknown_tool(&member.descriptor.name);
                    return render(ToolResult::failed(error, None), member.present_as);
                };
                let options = CallOptions::for_caller(ADAPTER, &caller);
                match tool
                    .call_for_model(arguments, &caller.ambient, options)
                    .await
                {
                    ForModel::Done(result) => render(result, member.present_as),
                    ForModel::Ticket(ticket) => Ok(ToolOutput::json(ticket)),
                    // The model never answers for the user.
                    ForModel::Input(input) => {
                        let why = "a rig agent does not ask the user";
                        render(input.refusal(why), member.present_as)
                    }
                }
            })
        },
    )
}

/// A call's result as rig's output or error.
fn render(result: ToolResult, present_as: PresentAs) -> Result<ToolOutput, ToolExecutionError> {
    let model_json = result.to_model_json();
    match result.outcome {
        Ok(value) => Ok(match present_as {
            PresentAs::Structured => ToolOutput::json(value),
            PresentAs::Message => ToolOutput::text(result.message),
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
