//! The call pipeline: every call of every tool, through any adapter, is one ordered list of
//! stages over one call — [`stages::STAGES`], the list ARCHITECTURE.md and docs/runtime.md
//! print — each stage a function in a file of its own, run in that order by [`run`].
//!
//! Explaining a call enters the same list in [`Mode::Explain`](crate::call::Mode), where a
//! call enters it: nothing is taken and the handler never runs (each stage's `explaining`
//! says what it does then). The built-in explain tool (`explain_tool`) is what the pipeline
//! runs in place of a tool's own stages when it is called: it enters the list again for the
//! tool it explains.
//!
//! This module adds the registry's call methods ([`RegisteredTool::invoke_with`] and the
//! others): the registry only finds tools.

// Stages return the call's final `ToolResult` as their error, so each stage can end the call
// early; that value is large, but it is built once, on the failure path only.
#![allow(clippy::result_large_err)]
// Stage functions return `async` blocks rather than being `async fn`s, whose arguments would be
// stored twice in the future: every call's future is copied and its own stages' boxed.
#![allow(clippy::manual_async_fn)]

mod answers;
mod audit;
mod availability;
mod builtin;
pub(crate) mod checks;
mod compiled;
mod decode;
mod explain_tool;
mod handler;
mod hooks;
pub(crate) mod inline;
mod output;
mod rate;
mod redaction;
mod refs;
mod run;
mod scopes;
mod screen;
mod stages;
pub(crate) mod supervise;
mod task;
mod task_status_tool;
mod typed;
mod user_input;

use serde_json::Value;

use crate::call::Dispatch;
use crate::call::options::CallOptions;
use crate::model::ambient::AmbientContext;
use crate::model::descriptor::Descriptor;
use crate::model::explain::explanation::Explanation;
use crate::model::failure::{ToolError, ToolResult};
use crate::model::registry_error::UnknownTool;
use crate::model::report::Errors;
use crate::model::task::{Accept, Submitted};
use crate::registry::{Imp, RegisteredTool, Registry, RegistryBuilder};

/// What a model's call answers ([`RegisteredTool::call_for_model`]).
#[cfg_attr(
    not(any(
        feature = "openai",
        feature = "anthropic",
        feature = "gemini",
        feature = "rig"
    )),
    allow(
        dead_code,
        reason = "what function calling and rig share: unused without them"
    )
)]
pub(crate) enum ForModel {
    /// It ran inline (or was refused): its result.
    Done(ToolResult),
    /// It was stored as a task: the ticket the model reads.
    Ticket(Value),
    /// It needs its user's answers: the app asks them, never the model.
    Input(crate::model::user_input::InputRequired),
}

impl RegistryBuilder {
    /// Adds the built-in explain tool under `descriptor` (generated as `EXPLAIN`).
    pub fn explain(self, descriptor: &'static Descriptor) -> Self {
        self.add(descriptor.into(), Imp::Explain)
    }

    /// Adds the built-in task status tool under `descriptor` (generated as `TASK_STATUS`).
    pub fn task_status(self, descriptor: &'static Descriptor) -> Self {
        self.add(descriptor.into(), Imp::TaskStatus)
    }
}

impl<'r> RegisteredTool<'r> {
    /// Calls the tool with the model's raw JSON arguments and the trusted ambient context.
    ///
    /// Like the other ways of calling, a function returning the pipeline's future itself
    /// rather than an `async fn` wrapping it: each wrapper would hold its arguments beside
    /// the future it awaits, and be copied with it.
    pub fn invoke<'a>(
        &self,
        args: Value,
        ambient: &'a AmbientContext,
    ) -> impl Future<Output = ToolResult> + Send + use<'r, 'a>
    where
        'r: 'a,
    {
        self.invoke_with(args, ambient, CallOptions::default())
    }

    /// Calls the tool with options (adapter, caller, cancellation, progress, trace id); a tool
    /// whose audit policy is on is recorded in the registry's audit trail. A `required` tool's
    /// record is committed before the call runs, and the call answers `unavailable` without
    /// running when it cannot be.
    pub fn invoke_with<'a>(
        &self,
        args: Value,
        ambient: &'a AmbientContext,
        options: CallOptions,
    ) -> impl Future<Output = ToolResult> + Send + use<'r, 'a>
    where
        'r: 'a,
    {
        let direct = Dispatch::Direct(Accept::ResultsOnly);
        let call = Box::pin(run::submit(*self, args, ambient, options, None, direct));
        futures_util::FutureExt::map(call, Submitted::into_result)
    }

    /// Calls the tool as [`invoke_with`](Self::invoke_with) does, except that a tool that
    /// declares `task:` is stored as a task when `accept` lets it (see [`Accept`]): the
    /// answer is then the task, which the registry's worker runs
    /// ([`Registry::start_tasks`](crate::Registry::start_tasks)).
    pub async fn submit_with(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
        accept: Accept,
    ) -> Submitted {
        run::submit(
            *self,
            args,
            ambient,
            options,
            None,
            Dispatch::Direct(accept),
        )
        .await
    }

    /// Calls the tool for a model on `options.adapter` (function calling, rig): a tool whose
    /// `task` is `required` is stored as a task and answered with its ticket — the task, and
    /// `next`, naming the task status tool that reads it — when that tool is a member of the
    /// adapter (without it the model could never read the ticket, so the call answers
    /// `task_required`); an `optional` one runs inline.
    #[cfg_attr(
        not(any(
            feature = "openai",
            feature = "anthropic",
            feature = "gemini",
            feature = "rig"
        )),
        allow(
            dead_code,
            reason = "what function calling and rig share: unused without them"
        )
    )]
    pub(crate) async fn call_for_model(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
    ) -> ForModel {
        let adapter = options.adapter.as_deref().unwrap_or_default();
        let status_tool = self.registry().task_status_tool(adapter);
        let accept = match status_tool {
            Some(_) => Accept::WhenRequired,
            None => Accept::ResultsOnly,
        };
        match (
            self.submit_with(args, ambient, options, accept).await,
            status_tool,
        ) {
            (Submitted::Task(task), Some(status_tool)) => {
                ForModel::Ticket(task.to_model_json(status_tool))
            }
            (Submitted::Input(input), _) => ForModel::Input(input),
            (submitted, _) => ForModel::Done(submitted.into_result()),
        }
    }

    /// Answers a call of the tool with `error` without running any of it, recorded in the
    /// audit trail like any call of the tool: for a caller that refuses the call itself (an
    /// agent past its tool-call limits, say), so that the trail shows what was asked.
    pub async fn refuse_with(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
        error: ToolError,
    ) -> ToolResult {
        let direct = Dispatch::Direct(Accept::ResultsOnly);
        let refused = run::refused_by_caller(error);
        let submitted = run::submit(*self, args, ambient, options, Some(refused), direct).await;
        submitted.into_result()
    }

    /// Runs a stored task's call: inline, under the task's `timeout`; a result over the
    /// project's `tasks.max_result_bytes` is an internal error.
    pub(crate) async fn run_task(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
        timeout: std::time::Duration,
    ) -> ToolResult {
        let dispatch = Dispatch::Worker { timeout };
        let submitted = run::submit(*self, args, ambient, options, None, dispatch).await;
        submitted.into_result()
    }

    /// Ends a stored task's call with `result` without running any of it, recorded in the
    /// audit trail like any run of the task (a task its workers gave up on).
    pub(crate) async fn fail_task(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
        result: ToolResult,
    ) -> ToolResult {
        let dispatch = Dispatch::Worker {
            timeout: std::time::Duration::ZERO,
        };
        let submitted = run::submit(*self, args, ambient, options, Some(result), dispatch).await;
        submitted.into_result()
    }

    /// Validates arguments and runs the guards without calling the handler.
    pub async fn explain(
        &self,
        args: Value,
        ambient: &AmbientContext,
    ) -> Result<Explanation, ToolResult> {
        self.explain_with(args, ambient, CallOptions::default())
            .await
    }

    /// [`explain`](Self::explain) for a call with options, as [`invoke_with`](Self::invoke_with)
    /// takes them: the guards run under the tool's timeout and `options.cancellation` (a
    /// cancelled explanation is a `cancelled` error; guards still running when the timeout
    /// passes are neither passed nor failed); progress reports are dropped.
    pub async fn explain_with(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
    ) -> Result<Explanation, ToolResult> {
        run::explain(*self, args, ambient, options).await
    }
}

impl Registry {
    /// Calls tool `name` (canonical) through the pipeline.
    pub async fn invoke(
        &self,
        name: &str,
        args: Value,
        ambient: &AmbientContext,
    ) -> Result<ToolResult, UnknownTool> {
        self.invoke_with(name, args, ambient, CallOptions::default())
            .await
    }

    /// Calls tool `name`: by its name on `options.adapter` when one is given, else canonical.
    pub async fn invoke_with(
        &self,
        name: &str,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
    ) -> Result<ToolResult, UnknownTool> {
        let tool = self.lookup(options.adapter.as_deref(), name);
        let tool = tool.ok_or_else(|| UnknownTool(name.to_owned()))?;
        Ok(tool.invoke_with(args, ambient, options).await)
    }

    /// Validates arguments and runs the guards of tool `name` (canonical) without calling its
    /// handler.
    pub async fn explain(
        &self,
        name: &str,
        args: Value,
        ambient: &AmbientContext,
    ) -> Result<Explanation, UnknownTool> {
        self.explain_with(name, args, ambient, CallOptions::default())
            .await
    }

    /// Explains a call of tool `name` with options, found as [`invoke_with`](Self::invoke_with)
    /// finds it: by its name on `options.adapter` when one is given (members of that adapter
    /// only), else canonical. See [`RegisteredTool::explain_with`]; a failure to explain (the
    /// call cancelled, the ambient context incomplete) is an explanation with that error at `/`.
    pub async fn explain_with(
        &self,
        name: &str,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
    ) -> Result<Explanation, UnknownTool> {
        let tool = self.lookup(options.adapter.as_deref(), name);
        let tool = tool.ok_or_else(|| UnknownTool(name.to_owned()))?;
        match tool.explain_with(args, ambient, options).await {
            Ok(explanation) => Ok(explanation),
            Err(result) => {
                let message = result.error().map(|e| e.message.clone());
                let errors = Errors::one("/", message.unwrap_or_default());
                let mut explanation = Explanation::refused(tool.name(), errors);
                explanation.result_cap = tool.descriptor().result_cap.map(Into::into);
                Ok(explanation)
            }
        }
    }
}
