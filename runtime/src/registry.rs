//! The tools of one crate, bound to their handlers: lookup by canonical name, by adapter, and
//! by an adapter's own name for a tool (both indexed once, when the registry is built); each
//! tool's effective settings per adapter; calls and explanations through the invoker, with
//! hooks around every call.
//!
//! A registry holds each tool type-erased ([`ErasedTool`]): the generated tools through the
//! invoker's typed path, the built-in explain tool through its own module, which adds itself
//! with [`RegistryBuilder::explain`] (defined there, so that the registry does not depend on
//! it). The registry knows no adapter and no wire format.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;
use std::time::Instant;

use chrono::Utc;
use serde_json::Value;
use tracing::Instrument;
use uuid::Uuid;

use crate::ambient::AmbientContext;
use crate::audit::{AuditRecord, AuditTrail, Call, Redact};
use crate::caller::Caller;
use crate::contract::{BoxFuture, Contract, Operation};
use crate::database::Database;
use crate::descriptor::{Descriptor, ToolKind};
use crate::failure::{RETRY_UNAVAILABLE, ToolError, ToolResult};
use crate::hooks::{CallInfo, Hook};
use crate::invoker::Typed;
use crate::invoker::explanation::Explanation;
use crate::invoker::limits::Limits;
use crate::invoker::options::{CallOptions, Rules, UndeclaredKeys};
use crate::invoker::report::Errors;
use crate::project::Project;
use crate::registry_error::{RegistryError, UnknownTool};
use toolspec_vocab::settings::Settings;

/// A tool with its handler, type-erased: what a registry holds of each tool.
pub(crate) trait ErasedTool: Send + Sync {
    /// Calls the tool (see [`RegisteredTool::invoke_with`]).
    fn invoke<'a>(
        &'a self,
        registry: &'a Registry,
        args: Value,
        ambient: &'a AmbientContext,
        options: CallOptions,
    ) -> BoxFuture<'a, ToolResult>;

    /// Explains a call of the tool (see [`RegisteredTool::explain_with`]).
    fn explain<'a>(
        &'a self,
        registry: &'a Registry,
        args: Value,
        ambient: &'a AmbientContext,
        options: &'a CallOptions,
    ) -> BoxFuture<'a, Result<Explanation, ToolResult>>;

    /// Redacts, in place, the sensitive values of a call's input (its arguments, or its
    /// ambient values) as they reach the tool through `adapter`.
    fn redact_input(&self, registry: &Registry, adapter: Option<&str>, value: &mut Value);

    /// Redacts, in place, the sensitive values of the tool's exposed result.
    fn redact_output(&self, value: &mut Value);

    /// Why `ambient` does not give the tool its ambient fields, if it does not.
    fn check_ambient(&self, _ambient: &AmbientContext) -> Result<(), String> {
        Ok(())
    }
}

impl<O: Operation> ErasedTool for Typed<O> {
    fn invoke<'a>(
        &'a self,
        registry: &'a Registry,
        args: Value,
        ambient: &'a AmbientContext,
        options: CallOptions,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(Typed::invoke(self, args, ambient, options, &registry.rules))
    }

    fn explain<'a>(
        &'a self,
        registry: &'a Registry,
        args: Value,
        ambient: &'a AmbientContext,
        options: &'a CallOptions,
    ) -> BoxFuture<'a, Result<Explanation, ToolResult>> {
        Box::pin(Typed::explain(
            self,
            args,
            ambient,
            options,
            &registry.rules,
        ))
    }

    fn redact_input(&self, _registry: &Registry, _adapter: Option<&str>, value: &mut Value) {
        Typed::redact_input(self, value);
    }

    fn redact_output(&self, value: &mut Value) {
        Typed::redact_output(self, value);
    }

    fn check_ambient(&self, ambient: &AmbientContext) -> Result<(), String> {
        Typed::check_ambient(self, ambient)
    }
}

/// A call's redaction, as its tool does it (for the audit record).
struct Redaction<'a> {
    registry: &'a Registry,
    tool: &'a dyn ErasedTool,
    adapter: Option<&'a str>,
}

impl Redact for Redaction<'_> {
    fn input(&self, value: &mut Value) {
        self.tool.redact_input(self.registry, self.adapter, value);
    }

    fn output(&self, value: &mut Value) {
        self.tool.redact_output(value);
    }
}

struct Entry {
    descriptor: &'static Descriptor,
    imp: Box<dyn ErasedTool>,
}

/// What becomes of a call the registry records: it runs, or its caller refuses it.
enum Run {
    Invoke,
    Refuse(ToolError),
}

/// One registered tool, borrowed from its registry.
#[derive(Clone, Copy)]
pub struct RegisteredTool<'r> {
    registry: &'r Registry,
    entry: &'r Entry,
    /// The tool's position in the registry.
    slot: usize,
}

impl<'r> RegisteredTool<'r> {
    /// The tool's position in its registry: [`Registry::at`] finds it again without a lookup.
    pub(crate) fn slot(&self) -> usize {
        self.slot
    }

    /// Everything known about the tool at build time.
    pub fn descriptor(&self) -> &'static Descriptor {
        self.entry.descriptor
    }

    /// The canonical name.
    pub fn name(&self) -> &'static str {
        self.entry.descriptor.name
    }

    /// The tool's name on `adapter`, if it is a member.
    pub fn name_for(&self, adapter: &str) -> Option<&'static str> {
        self.entry.descriptor.name_for(adapter)
    }

    /// Whether this is the built-in explain tool.
    pub fn is_explain(&self) -> bool {
        self.entry.descriptor.kind == ToolKind::Explain
    }

    /// Redacts, in place, the sensitive values of arguments for this tool through `adapter`.
    pub(crate) fn redact_input(&self, adapter: Option<&str>, value: &mut Value) {
        self.entry.imp.redact_input(self.registry, adapter, value);
    }

    /// The tool's effective settings on `adapter` (None unless it is a member).
    pub fn settings(&self, adapter: &str) -> Option<Settings<'static>> {
        let binding = self.entry.descriptor.binding(adapter)?;
        let decl = self.registry.project.adapter(adapter)?;
        Some(Settings::new(decl, binding.settings))
    }

    /// Calls the tool with the model's raw JSON arguments and the trusted ambient context.
    pub async fn invoke(&self, args: Value, ambient: &AmbientContext) -> ToolResult {
        self.invoke_with(args, ambient, CallOptions::default())
            .await
    }

    /// Calls the tool with options (adapter, caller, cancellation, progress, trace id); a tool
    /// whose audit policy is on is recorded in the registry's audit trail. A `required` tool's
    /// record is committed before the call runs, and the call answers `unavailable` without
    /// running when it cannot be.
    pub async fn invoke_with(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
    ) -> ToolResult {
        self.recorded(args, ambient, options, Run::Invoke).await
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
        self.recorded(args, ambient, options, Run::Refuse(error))
            .await
    }

    /// `run` (a call or a refusal) of the tool, recorded when its audit policy is on.
    async fn recorded(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
        run: Run,
    ) -> ToolResult {
        let tool = self.entry.descriptor;
        let trail = self.registry.audit.as_ref().filter(|_| tool.audit.enabled);
        let Some(trail) = trail else {
            let trace_id = options.trace_id.clone();
            return self
                .run(run, args, ambient, options, trace_id.as_deref())
                .await;
        };
        let id = Uuid::now_v7();
        let trace_id = options
            .trace_id
            .clone()
            .unwrap_or_else(|| id.simple().to_string());
        let started = Instant::now();
        let (adapter, caller) = (options.adapter.clone(), options.caller.clone());
        let redaction = Redaction {
            registry: self.registry,
            tool: self.entry.imp.as_ref(),
            adapter: adapter.as_deref(),
        };
        let mut record = AuditRecord::started(&Call {
            id,
            tool,
            started_at: Utc::now(),
            adapter: adapter.as_deref(),
            caller: caller.as_deref(),
            trace_id: &trace_id,
            arguments: &args,
            ambient,
            redact: &redaction,
        });
        // A refusal runs nothing: its record needs no opening.
        let open = match (tool.audit.required, &run) {
            (true, Run::Invoke) => match trail.open(&record).await {
                Ok(open) => Some(open),
                Err(why) => {
                    let exception = format!(
                        "the call's audit record could not be written before it ran: {why}"
                    );
                    return ToolResult::unavailable(
                        tool,
                        "the audit trail",
                        RETRY_UNAVAILABLE,
                        exception,
                    );
                }
            },
            _ => None,
        };
        let result = self.run(run, args, ambient, options, Some(&trace_id)).await;
        let duration_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        record.finish(&result, duration_us, &redaction);
        trail.finish(record, tool.audit, open).await;
        result
    }

    /// The call, or its refusal.
    async fn run(
        &self,
        run: Run,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
        trace_id: Option<&str>,
    ) -> ToolResult {
        match run {
            Run::Invoke => self.call(args, ambient, options, trace_id).await,
            Run::Refuse(error) => ToolResult::failed(error, Some("refused by its caller".into())),
        }
    }

    /// The call itself: scopes, hooks, the tool's own invocation, under the call's span.
    async fn call(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
        trace_id: Option<&str>,
    ) -> ToolResult {
        let registry = self.registry;
        let tool = self.entry.descriptor;
        if !options.scopes.allow_tool(tool) {
            tracing::debug!(
                tool = tool.name,
                caller = options.caller.as_deref(),
                "the caller lacks the tool's scopes"
            );
            let name = tool.name_for_call(options.adapter.as_deref());
            return ToolResult::failed(ToolError::unknown_tool(name), None);
        }
        let span = tracing::info_span!(
            "tool.call",
            tool = tool.name,
            adapter = options.adapter.as_deref(),
            caller = options.caller.as_deref(),
            trace_id
        );
        let started = Instant::now();
        let adapter = options.adapter.clone();
        let caller = options.caller.clone();
        let call = CallInfo {
            tool,
            adapter: adapter.as_deref(),
            caller: caller.as_deref(),
            arguments: &args,
        };
        for hook in &registry.hooks {
            if let Err(error) = hook.before(&call) {
                let result = ToolResult::failed(error, Some("refused by a hook".into()));
                span.in_scope(|| finish(registry, &call, &result, started));
                return result;
            }
        }
        // Hooks see the arguments as sent; copy them only when someone will look.
        let sent = if registry.hooks.is_empty() {
            Value::Null
        } else {
            args.clone()
        };
        let result = self
            .entry
            .imp
            .invoke(registry, args, ambient, options)
            .instrument(span.clone())
            .await;
        let call = CallInfo {
            tool,
            adapter: adapter.as_deref(),
            caller: caller.as_deref(),
            arguments: &sent,
        };
        span.in_scope(|| finish(registry, &call, &result, started));
        result
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
        self.entry
            .imp
            .explain(self.registry, args, ambient, &options)
            .await
    }
}

fn finish(registry: &Registry, call: &CallInfo<'_>, result: &ToolResult, started: Instant) {
    let took = started.elapsed();
    match result.error() {
        None => tracing::info!(
            tool = call.tool.name,
            took_us = took.as_micros() as u64,
            "tool call succeeded"
        ),
        Some(error) => {
            tracing::info!(tool = call.tool.name, code = %error.code, took_us = took.as_micros() as u64, "tool call failed")
        }
    }
    for hook in &registry.hooks {
        hook.after(call, result, took);
    }
}

impl fmt::Debug for RegisteredTool<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RegisteredTool")
            .field("name", &self.name())
            .finish()
    }
}

/// Assembles a [`Registry`] from operations.
pub struct RegistryBuilder {
    project: &'static Project,
    entries: Vec<Entry>,
    hooks: Vec<Arc<dyn Hook>>,
    limits: Limits,
    database: Option<Database>,
}

impl RegistryBuilder {
    /// The database `ref` fields load their records from (the generated `registry()` sets
    /// it when the project has query tools or `ref` fields).
    pub fn database(mut self, database: Database) -> Self {
        self.database = Some(database);
        self
    }

    /// Adds one tool bound to its handler.
    pub fn tool<O: Operation>(mut self, operation: O) -> Self {
        let descriptor = <O::Contract as Contract>::descriptor();
        self.entries.push(Entry {
            descriptor,
            imp: Box::new(Typed::new(operation)),
        });
        self
    }

    /// Adds a tool of the crate's own making under `descriptor` (the built-in explain tool
    /// adds itself so, through `RegistryBuilder::explain`).
    pub(crate) fn erased(
        mut self,
        descriptor: &'static Descriptor,
        imp: Box<dyn ErasedTool>,
    ) -> Self {
        self.entries.push(Entry { descriptor, imp });
        self
    }

    /// Adds a hook run around every call.
    pub fn hook(mut self, hook: impl Hook) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Bounds every call's arguments and errors by `limits` (default: [`Limits::DEFAULT`]).
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Checks names and adapters, then builds.
    pub fn build(self) -> Result<Registry, RegistryError> {
        let mut seen: BTreeMap<(&str, &str), &str> = BTreeMap::new();
        for entry in &self.entries {
            let d = entry.descriptor;
            let keys = std::iter::once(("", d.name)).chain(
                d.adapters
                    .iter()
                    .map(|b| (b.adapter, b.name.unwrap_or(d.name))),
            );
            for (adapter, name) in keys {
                if !adapter.is_empty() && self.project.adapter(adapter).is_none() {
                    return Err(RegistryError::UnknownAdapter {
                        tool: d.name.into(),
                        adapter: adapter.into(),
                    });
                }
                if let Some(first) = seen.insert((adapter, name), d.spec) {
                    return Err(RegistryError::DuplicateName {
                        adapter: adapter.into(),
                        name: name.into(),
                        specs: [first.into(), d.spec.into()],
                    });
                }
            }
        }
        Ok(self.build_trusted())
    }

    /// Builds without the checks `build` makes: for generated code, whose compiler made them.
    pub(crate) fn build_trusted(mut self) -> Registry {
        self.entries.sort_by_key(|t| t.descriptor.name);
        let mut by_name = HashMap::with_capacity(self.entries.len());
        let mut by_adapter = HashMap::new();
        for (i, entry) in self.entries.iter().enumerate() {
            let d = entry.descriptor;
            by_name.insert(d.name, i);
            // As `RegisteredTool::name_for` reads them: an adapter's first binding counts.
            let firsts = d.adapters.iter().filter(|binding| {
                d.binding(binding.adapter)
                    .is_some_and(|first| std::ptr::eq(first, *binding))
            });
            for binding in firsts {
                by_adapter
                    .entry((binding.adapter, binding.name.unwrap_or(d.name)))
                    .or_insert(i);
            }
        }
        let undeclared = if self.project.drop_undeclared_keys {
            UndeclaredKeys::Drop
        } else {
            UndeclaredKeys::Reject
        };
        // Calls are recorded when some tool's policy says so and there is a database to record
        // them in (the generated `registry()` asks for one then).
        let audited = self.entries.iter().any(|e| e.descriptor.audit.enabled);
        let audit = match &self.database {
            Some(database) if audited => {
                Some(AuditTrail::new(database.clone(), &self.project.audit))
            }
            _ => None,
        };
        Registry {
            project: self.project,
            entries: self.entries,
            by_name,
            by_adapter,
            hooks: self.hooks,
            audit,
            rules: Rules {
                undeclared,
                limits: self.limits,
                database: self.database,
            },
        }
    }
}

/// The tools of one crate with their handlers.
pub struct Registry {
    project: &'static Project,
    entries: Vec<Entry>,
    /// Canonical name → position in `entries`.
    by_name: HashMap<&'static str, usize>,
    /// (adapter, the tool's name there) → position in `entries`.
    by_adapter: HashMap<(&'static str, &'static str), usize>,
    hooks: Vec<Arc<dyn Hook>>,
    /// Where calls are recorded, when any tool's audit policy is on.
    audit: Option<AuditTrail>,
    rules: Rules,
}

impl Registry {
    /// Starts a registry for `project` (the generated `PROJECT`, or [`Project::DEFAULT`]).
    pub fn builder(project: &'static Project) -> RegistryBuilder {
        RegistryBuilder {
            project,
            entries: Vec::new(),
            hooks: Vec::new(),
            limits: Limits::DEFAULT,
            database: None,
        }
    }

    /// Adds a hook run around every call.
    pub fn with_hook(mut self, hook: impl Hook) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Bounds every call's arguments and errors by `limits` (default: [`Limits::DEFAULT`]).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.rules.limits = limits;
        self
    }

    /// The audit trail calls are recorded in: there is one when a tool's audit policy is on and
    /// the registry has a database.
    pub fn audit(&self) -> Option<&AuditTrail> {
        self.audit.as_ref()
    }

    /// Waits until every audit record queued so far is written: call it before the process
    /// exits (on SIGTERM, ctrl-c, a server's shutdown), so no record is lost.
    pub async fn flush_audit(&self) {
        if let Some(trail) = &self.audit {
            trail.flush().await;
        }
    }

    /// The limits every call's arguments and errors are held to.
    pub fn limits(&self) -> &Limits {
        &self.rules.limits
    }

    /// The project configuration the tools were compiled with.
    pub fn project(&self) -> &'static Project {
        self.project
    }

    fn handle(&self, slot: usize) -> RegisteredTool<'_> {
        RegisteredTool {
            registry: self,
            entry: &self.entries[slot],
            slot,
        }
    }

    /// The tool at position `slot` (see [`RegisteredTool::slot`]).
    pub(crate) fn at(&self, slot: usize) -> Option<RegisteredTool<'_>> {
        (slot < self.entries.len()).then(|| self.handle(slot))
    }

    /// The tool with canonical name `name`.
    pub fn get(&self, name: &str) -> Option<RegisteredTool<'_>> {
        self.by_name.get(name).map(|&i| self.handle(i))
    }

    /// Every tool, sorted by canonical name (the explain tool included).
    pub fn tools(&self) -> impl ExactSizeIterator<Item = RegisteredTool<'_>> {
        (0..self.entries.len()).map(|i| self.handle(i))
    }

    /// The members of `adapter`, sorted by their name on that adapter.
    pub fn tools_for(&self, adapter: &str) -> Vec<RegisteredTool<'_>> {
        let mut members: Vec<(&str, RegisteredTool<'_>)> = self
            .tools()
            .filter_map(|t| t.name_for(adapter).map(|name| (name, t)))
            .collect();
        members.sort_by_key(|(name, _)| *name);
        members.into_iter().map(|(_, t)| t).collect()
    }

    /// The member of `adapter` that the adapter calls `name`.
    pub fn find(&self, adapter: &str, name: &str) -> Option<RegisteredTool<'_>> {
        self.by_adapter
            .get(&(adapter, name))
            .map(|&slot| self.handle(slot))
    }

    /// Why `caller` could not call some tools of `adapter`: each tool it may call there whose
    /// ambient fields its context does not give (missing, or not of their type). A server
    /// whose caller is fixed (MCP over stdio) checks this before it serves, so that the
    /// mistake shows at start rather than as an internal error in the first call.
    pub fn check_caller(&self, adapter: &str, caller: &Caller) -> Result<(), Vec<String>> {
        let problems: Vec<String> = self
            .entries
            .iter()
            .filter(|e| e.descriptor.is_member(adapter))
            .filter(|e| caller.scopes.allow_tool(e.descriptor))
            .filter_map(|e| e.imp.check_ambient(&caller.ambient).err())
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems)
        }
    }

    /// The effective settings of tool `tool` on `adapter` (None unless it is a member).
    pub fn settings(&self, tool: &str, adapter: &str) -> Option<Settings<'static>> {
        self.get(tool)?.settings(adapter)
    }

    /// Calls tool `name` (canonical) through the invoker.
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
        let tool = match options.adapter.as_deref() {
            Some(adapter) => self.find(adapter, name),
            None => self.get(name),
        };
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
        let tool = match options.adapter.as_deref() {
            Some(adapter) => self.find(adapter, name),
            None => self.get(name),
        };
        let tool = tool.ok_or_else(|| UnknownTool(name.to_owned()))?;
        match tool.explain_with(args, ambient, options).await {
            Ok(explanation) => Ok(explanation),
            Err(result) => {
                let message = result.error().map(|e| e.message.clone());
                let errors = Errors::one("/", message.unwrap_or_default());
                Ok(Explanation::refused(tool.name(), errors))
            }
        }
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl fmt::Debug for Registry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list()
            .entries(self.entries.iter().map(|t| t.descriptor.name))
            .finish()
    }
}

/// Used by generated `registry()` functions.
#[doc(hidden)]
pub fn generated_registry(builder: RegistryBuilder) -> Registry {
    builder.build_trusted()
}
