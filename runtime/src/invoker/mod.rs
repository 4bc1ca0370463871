//! The one sanctioned call path, shared by every adapter:
//!
//! strip a model-sent `ambient_context` → reject (or drop) undeclared keys → coerce wire values
//! → validate against the canonical schema (all errors, by JSON pointer) → refuse at once a
//! call that needs the database while it is known to be down → admit (`once`, `lock`) → load
//! `ref` records → deserialize the typed `Input` → resolve `Ambient` from the trusted context →
//! guards, then the handler, under the tool's timeout, with cancellation and progress, panics
//! caught (a failure caused by an unreachable database answers `unavailable`) → a
//! [`ToolResult`].
//!
//! Anything valid under the published input schema is accepted; coercions only widen that.
//!
//! The steps live in the children: screening and coercion in `plan`, the schema check in
//! `validate`, error messages in `report`, bounds in `limits`, the timeout and cancellation in
//! `supervise`; what a call is made with in `options` and what an explanation holds in
//! `explanation`. This module runs them in order
//! for one typed tool ([`Typed`]). It knows no adapter, no registry and no wire format: the
//! registry calls it, and the adapters call the registry.

// Pipeline steps return the call's final `ToolResult` as their error, so each step can end
// the call early; that value is large, but it is built once, on the failure path only.
#![allow(clippy::result_large_err)]

pub(crate) mod explanation;
pub(crate) mod limits;
pub(crate) mod options;
pub(crate) mod plan;
pub(crate) mod report;
pub(crate) mod supervise;
pub(crate) mod validate;

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::FutureExt;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::ambient::AmbientContext;
use crate::context::{Context, Progress};
use crate::contract::{Contract, DeclaredError, Operation};
use crate::database::error::unreachable_in;
use crate::descriptor::{Descriptor, Field, ToolKind};
use crate::durable::{self, Admission};
use crate::durable_decl::Durability;
use crate::failure::{
    Failure, RETRY_UNAVAILABLE, ToolError, ToolResult, compose_error, error_chain,
};
use crate::guard::{GuardStop, StopReason, panic_message};
use crate::invoker::explanation::{Explanation, GuardCheck};
use crate::invoker::limits::Limits;
use crate::invoker::options::{CallOptions, Rules, UndeclaredKeys};
use crate::invoker::plan::{ArgumentPlan, TopLevel};
use crate::invoker::report::{Errors, FieldError};
use crate::invoker::supervise::{Stop, supervise};
use crate::query::paging;
use crate::query::reference::{self, Unresolved};
use crate::sensitive::Sensitivity;
use toolspec_vocab::Dialect;
use toolspec_vocab::codes;

/// A call's typed input and resolved ambient fields.
type Decoded<C> = (<C as Contract>::Input, <C as Contract>::Ambient);

/// The compiled parts of one tool, built on first use.
struct Compiled {
    /// What screening and coercion look at in the input schema.
    plan: ArgumentPlan,
    /// A query tool's plans on the adapters that narrow it (their schemas leave filters out).
    views: Vec<(&'static str, ArgumentPlan)>,
    /// Where the input (ambient fields included) is sensitive.
    sensitive_input: Sensitivity,
    /// Where the output is sensitive.
    sensitive_output: Sensitivity,
    /// The fields resolved from the ambient context (none for most tools).
    ambient: Vec<&'static Field>,
    input: jsonschema::Validator,
    output: jsonschema::Validator,
    /// The success message template, if the tool has one.
    templates: Option<minijinja::Environment<'static>>,
    /// The success message of a tool without a template (or whose template fails).
    default_message: String,
}

impl Compiled {
    fn new(tool: &'static Descriptor) -> Result<Self, String> {
        let input_schema: Value =
            serde_json::from_str(tool.input_schema).map_err(|e| e.to_string())?;
        let output_schema: Value =
            serde_json::from_str(tool.output_schema).map_err(|e| e.to_string())?;
        let templates = match tool.message {
            Some(message) => {
                let mut templates = minijinja::Environment::new();
                templates.set_undefined_behavior(minijinja::UndefinedBehavior::Lenient);
                templates
                    .add_template("message", message)
                    .map_err(|e| e.to_string())?;
                Some(templates)
            }
            None => None,
        };
        let mut views = Vec::new();
        for binding in tool.adapters {
            let schema = binding
                .view
                .and_then(|_| tool.schema_for(binding.adapter, Dialect::Mcp));
            if let Some(schema) = schema {
                let schema: Value = serde_json::from_str(schema).map_err(|e| e.to_string())?;
                views.push((binding.adapter, ArgumentPlan::compile(&schema, &schema)));
            }
        }
        Ok(Self {
            input: validate::compile(&input_schema, tool.own_ranges_input)?,
            output: validate::compile(&output_schema, tool.own_ranges_output)?,
            plan: ArgumentPlan::compile(&input_schema, &input_schema),
            views,
            sensitive_input: Sensitivity::compile(tool.sensitive_input),
            sensitive_output: Sensitivity::compile(tool.sensitive_output),
            ambient: tool.ambient_fields().collect(),
            templates,
            default_message: default_message(tool),
        })
    }
}

/// A typed tool behind the type-erased registry entry.
pub(crate) struct Typed<O> {
    op: O,
    compiled: OnceLock<Result<Compiled, String>>,
    /// Set once the handler or a guard failed because a database could not be reached: from
    /// then on, calls are refused at once while the registry's database is known to be down.
    handler_needs_database: AtomicBool,
}

impl<O: Operation> Typed<O> {
    pub(crate) fn new(op: O) -> Self {
        Self {
            op,
            compiled: OnceLock::new(),
            handler_needs_database: AtomicBool::new(false),
        }
    }

    fn tool() -> &'static Descriptor {
        <O::Contract as Contract>::descriptor()
    }

    fn compiled(&self) -> Result<&Compiled, ToolResult> {
        match self.compiled.get_or_init(|| Compiled::new(Self::tool())) {
            Ok(compiled) => Ok(compiled),
            Err(e) => Err(internal(
                Self::tool(),
                format!(
                    "the embedded schemas of `{}` do not compile: {e}",
                    Self::tool().name
                ),
            )),
        }
    }

    /// Why `ambient` does not give this tool its ambient fields (missing, or not of their
    /// type), if it does not: for a server to check a fixed caller before it serves.
    pub(crate) fn check_ambient(&self, ambient: &AmbientContext) -> Result<(), String> {
        let compiled = self
            .compiled()
            .map_err(|r| r.exception.unwrap_or_default())?;
        resolve_ambient::<<O::Contract as Contract>::Ambient>(
            Self::tool(),
            &compiled.ambient,
            ambient,
        )
        .map(|_| ())
    }

    /// Redacts the sensitive values of the tool's input (arguments or ambient values) in place.
    pub(crate) fn redact_input(&self, value: &mut Value) {
        match self.compiled() {
            Ok(compiled) => compiled.sensitive_input.redact(value),
            Err(_) => Sensitivity::compile(Self::tool().sensitive_input).redact(value),
        }
    }

    /// Redacts the sensitive values of the tool's output in place.
    pub(crate) fn redact_output(&self, value: &mut Value) {
        match self.compiled() {
            Ok(compiled) => compiled.sensitive_output.redact(value),
            Err(_) => Sensitivity::compile(Self::tool().sensitive_output).redact(value),
        }
    }

    /// Arguments → screened, coerced and validated JSON; or the user-facing argument errors.
    /// A query tool's paging arguments are taken first (see `query::paging`), and its
    /// arguments screened against what `adapter` shows.
    fn prepare(
        &self,
        compiled: &Compiled,
        args: Value,
        adapter: Option<&str>,
        rules: &Rules,
    ) -> Result<Value, Errors> {
        let tool = Self::tool();
        let view = adapter.and_then(|a| tool.view(a));
        let mut map = match args {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                let kind = json_kind(&other);
                let message = format!("arguments must be a JSON object, not {kind}");
                return Err(Errors::one("/", message));
            }
        };
        map.remove("ambient_context");
        // Reported with the schema's errors, below.
        let paging = match tool.query {
            Some(decl) => paging::normalize(&mut map, decl, view),
            None => Vec::new(),
        };
        let mut value = Value::Object(map);
        let top = match rules.undeclared {
            UndeclaredKeys::Reject => TopLevel::Reject,
            UndeclaredKeys::Drop => TopLevel::Drop,
        };
        let plan = view
            .and_then(|_| compiled.views.iter().find(|(a, _)| Some(*a) == adapter))
            .map_or(&compiled.plan, |(_, plan)| plan);
        let screened = plan.screen(&mut value, &rules.limits, &compiled.sensitive_input, top);
        if screened.refused {
            return Err(screened.report.finish());
        }
        // Undeclared keys (removed by screening) are reported with every other error.
        let mut errors = screened.report.finish();
        errors.list.extend(paging.into_iter().map(|e| FieldError {
            field: format!("/{}", e.key),
            message: e.message,
        }));
        let checked = validate::errors(
            &compiled.input,
            &value,
            &rules.limits,
            &compiled.sensitive_input,
        );
        if errors.is_empty() && checked.is_empty() {
            return Ok(value);
        }
        errors.list.extend(checked.list);
        errors.more += checked.more;
        report::sort(&mut errors.list);
        let max = rules.limits.max_errors.max(1);
        if errors.list.len() > max {
            errors.more += errors.list.len() - max;
            errors.list.truncate(max);
        }
        Err(errors)
    }

    /// Validated arguments → the typed input (its errors named by JSON pointer), and the
    /// ambient fields from the trusted context.
    fn decode(
        compiled: &Compiled,
        value: Value,
        ambient: &AmbientContext,
        limits: &Limits,
    ) -> Result<Decoded<O::Contract>, Decoding> {
        let input =
            decode_input(&value, limits, &compiled.sensitive_input).map_err(Decoding::Arguments)?;
        let resolved = resolve_ambient(Self::tool(), &compiled.ambient, ambient)
            .map_err(|e| Decoding::Internal(internal(Self::tool(), e)))?;
        Ok((input, resolved))
    }

    /// The guards in spec order, then the handler; a guard that does not pass (or panics)
    /// ends the call with what [`stopped`] makes of it.
    ///
    /// An `async` block rather than an `async fn`, whose arguments would be stored twice in the
    /// future (the invoker's future is boxed: its size is an allocation per call).
    #[allow(clippy::manual_async_fn)]
    fn run<'a>(
        &'a self,
        input: <O::Contract as Contract>::Input,
        cx: Context<'a, <O::Contract as Contract>::Ambient>,
    ) -> impl Future<Output = Result<Outcome<O>, Halt>> + 'a {
        async move {
            match AssertUnwindSafe(self.op.run(input, cx))
                .catch_unwind()
                .await
            {
                Ok(Ok(outcome)) => Ok(outcome),
                Ok(Err(stop)) => Err(Halt::Guard(stop)),
                Err(panic) => Err(Halt::Panicked(panic_message(panic))),
            }
        }
    }

    /// Whether calls of this tool need the registry's database: to run (a query tool, `ref`
    /// fields, `once`, `lock`, a record written before the answer), or because its handler
    /// or a guard has failed for want of it.
    fn needs_database(&self) -> bool {
        let tool = Self::tool();
        let audit = tool.audit;
        let waits_for_record =
            audit.enabled && (audit.required || audit.durability == Durability::Sync);
        tool.query.is_some()
            || !tool.refs.is_empty()
            || tool.once.is_some()
            || tool.lock.is_some()
            || waits_for_record
            || self.handler_needs_database.load(Ordering::Relaxed)
    }

    /// What a call answers when its handler or a guard failed because a database could not be
    /// reached (`exception` says how): `unavailable`. The tool is then known to need the
    /// database, and the registry's is probed.
    fn unreachable(&self, exception: String, rules: &Rules) -> ToolResult {
        self.handler_needs_database.store(true, Ordering::Relaxed);
        if let Some(database) = &rules.database {
            database.suspect(&exception);
        }
        ToolResult::unavailable(Self::tool(), "the database", RETRY_UNAVAILABLE, exception)
    }

    /// What the call answers when a guard stopped it (see [`stopped`]), or `unavailable` when
    /// the guard failed for want of a database.
    fn guard_stopped(&self, stop: GuardStop, rules: &Rules) -> ToolResult {
        let tool = Self::tool();
        if let StopReason::Internal(e) = &stop.reason
            && unreachable_in(&**e)
        {
            let guard = tool.guards.get(stop.guard).map_or("?", |g| g.name);
            return self.unreachable(
                format!("guard `{guard}` failed: {}", error_chain(&**e)),
                rules,
            );
        }
        stopped(tool, stop)
    }

    pub(crate) async fn invoke(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
        rules: &Rules,
    ) -> ToolResult {
        let tool = Self::tool();
        let compiled = match self.compiled() {
            Ok(c) => c,
            Err(result) => return result,
        };
        let value = match self.prepare(compiled, args, options.adapter.as_deref(), rules) {
            Ok(value) => value,
            Err(errors) => return refused(tool, &errors),
        };
        let database = rules.database.as_ref();
        // While the database is known to be down, a call that needs it is refused at once.
        if let Some(refusal) = database
            .filter(|_| self.needs_database())
            .and_then(|database| database.refusal(tool))
        {
            return refusal;
        }
        let admission =
            durable::admit(tool, &value, ambient, database, &compiled.sensitive_input).await;
        let ticket = match admission {
            Admission::Run(ticket) => ticket,
            Admission::Answer(result) => return result,
        };
        let (result, handler_ran) = self
            .invoke_admitted(compiled, value, ambient, options, rules)
            .await;
        // A guard's answer (even a declared code) is not kept by `once`: the precondition may
        // hold on the next try.
        ticket.finish(Some(&result).filter(|_| handler_ran)).await;
        result
    }

    /// The call once admitted (past `lock` and `once`): `ref` records, guards, the handler;
    /// with whether the handler ran (`once` keeps only what a handler answered).
    async fn invoke_admitted(
        &self,
        compiled: &Compiled,
        mut value: Value,
        ambient: &AmbientContext,
        options: CallOptions,
        rules: &Rules,
    ) -> (ToolResult, bool) {
        let tool = Self::tool();
        match reference::resolve(tool, &mut value, ambient, rules.database.as_ref()).await {
            Ok(()) => {}
            Err(Unresolved::NotFound { field }) => return (not_found(tool, field), false),
            Err(Unresolved::Failed(e)) => return (e.answer(tool), false),
        }
        let (input, resolved) = match Self::decode(compiled, value, ambient, &rules.limits) {
            Ok(decoded) => decoded,
            Err(Decoding::Arguments(errors)) => return (refused(tool, &errors), false),
            Err(Decoding::Internal(result)) => return (result, false),
        };
        let CallOptions {
            cancellation,
            progress,
            ..
        } = options;
        // The guards and the handler see the call's token; a tool with a timeout gives them a
        // token of its own, cancelled with the call or when the timeout passes.
        let own = tool.timeout.map(|_| cancellation.child_token());
        let token = own.clone().unwrap_or_else(|| cancellation.clone());
        let cx = Context::new(&resolved, tool, token, progress);
        let run = std::pin::pin!(self.run(input, cx));
        let outcome = match supervise(tool, &cancellation, own.as_ref(), run).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(Halt::Guard(stop))) => return (self.guard_stopped(stop, rules), false),
            Ok(Err(Halt::Panicked(message))) => {
                let exception = format!("the handler panicked: {message}");
                return (internal(tool, exception), false);
            }
            Err(stop) => return (stop.result(tool), false),
        };
        let result = match outcome {
            Ok(output) => self.succeed(compiled, &output, &rules.limits),
            Err(Failure::Declared { error, details }) => {
                declared(tool, error.code(), &error.to_string(), details)
            }
            // The developer sees the whole chain of causes, as anyhow's `{:#}` shows it.
            Err(Failure::Internal(e)) if unreachable_in(&*e) => {
                self.unreachable(error_chain(&*e), rules)
            }
            Err(Failure::Internal(e)) => internal(tool, error_chain(&*e)),
        };
        (result, true)
    }

    fn succeed(
        &self,
        compiled: &Compiled,
        output: &<O::Contract as Contract>::Output,
        limits: &Limits,
    ) -> ToolResult {
        let tool = Self::tool();
        let value = match serde_json::to_value(output) {
            Ok(value) => value,
            Err(e) => return internal(tool, format!("the output does not serialize: {e}")),
        };
        let errors = validate::errors(&compiled.output, &value, limits, &compiled.sensitive_output);
        if !errors.is_empty() {
            return internal(
                tool,
                format!(
                    "the output does not match the output schema: {}",
                    errors.listing()
                ),
            );
        }
        let template = compiled
            .templates
            .as_ref()
            .and_then(|t| t.get_template("message").ok());
        let message = match template {
            Some(template) => match template.render(minijinja::value::Serde(&value)) {
                Ok(text) => text,
                Err(e) => {
                    tracing::warn!(tool = tool.name, error = %e, "the success message does not render");
                    compiled.default_message.clone()
                }
            },
            None => compiled.default_message.clone(),
        };
        ToolResult {
            outcome: Ok(value),
            message,
            exception: None,
        }
    }

    /// Validates `args` and runs every guard, without the handler. The guards run under the
    /// tool's timeout and `options.cancellation`: a cancelled explanation is an error, guards
    /// not done when the timeout passes are neither passed nor failed.
    pub(crate) async fn explain(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: &CallOptions,
        rules: &Rules,
    ) -> Result<Explanation, ToolResult> {
        let tool = Self::tool();
        let compiled = self.compiled()?;
        let mut explanation = Explanation {
            tool: tool.name.to_owned(),
            callable: false,
            errors: Vec::new(),
            more_errors: 0,
            guards: tool
                .guards
                .iter()
                .map(|g| GuardCheck {
                    name: g.name.into(),
                    description: g.description.into(),
                    passed: None,
                    error: None,
                })
                .collect(),
            once: None,
            lock: None,
        };
        let mut prepared = self.prepare(compiled, args, options.adapter.as_deref(), rules);
        if let Ok(value) = &prepared {
            let database = rules.database.as_ref();
            let reported =
                durable::report(tool, value, ambient, database, &compiled.sensitive_input).await;
            (explanation.once, explanation.lock) = reported.map_err(|e| internal(tool, e))?;
        }
        if let Ok(value) = &mut prepared {
            match reference::resolve(tool, value, ambient, rules.database.as_ref()).await {
                Ok(()) => {}
                Err(Unresolved::NotFound { field }) => {
                    let failed = not_found(tool, field);
                    let message = failed.outcome.err().map(|e| e.message).unwrap_or_default();
                    explanation.errors = vec![FieldError {
                        field: format!("/{field}"),
                        message,
                    }];
                    return Ok(explanation);
                }
                Err(Unresolved::Failed(e)) => return Err(e.answer(tool)),
            }
        }
        let decoded = prepared
            .map_err(Decoding::Arguments)
            .and_then(|value| Self::decode(compiled, value, ambient, &rules.limits));
        let (input, resolved) = match decoded {
            Ok(decoded) => decoded,
            Err(Decoding::Arguments(errors)) => {
                explanation.errors = errors.list;
                explanation.more_errors = errors.more;
                return Ok(explanation);
            }
            Err(Decoding::Internal(result)) => return Err(result),
        };
        let own = tool.timeout.map(|_| options.cancellation.child_token());
        let token = own.clone().unwrap_or_else(|| options.cancellation.clone());
        let cx = Context::new(&resolved, tool, token, Progress::ignore());
        let checked = {
            let guards = &mut explanation.guards;
            let checks = std::pin::pin!(async {
                let which = <O::Contract as Contract>::GUARDS;
                for (index, (&which, check)) in which.iter().zip(guards.iter_mut()).enumerate() {
                    // A panic escaping a hand-written `Operation::guard` is the guard's too.
                    let guard = AssertUnwindSafe(self.op.guard(which, &input, &cx));
                    let (passed, error) = match guard.catch_unwind().await {
                        Ok(Ok(())) => (Some(true), None),
                        Ok(Err(stop)) => {
                            let unmet = matches!(
                                stop.reason,
                                StopReason::Unmet | StopReason::Declared { .. }
                            );
                            (
                                Some(false).filter(|_| unmet),
                                stopped(tool, stop).outcome.err(),
                            )
                        }
                        Err(panic) => {
                            let stop = GuardStop {
                                guard: index,
                                reason: StopReason::Panicked(panic_message(panic)),
                            };
                            (None, stopped(tool, stop).outcome.err())
                        }
                    };
                    (check.passed, check.error) = (passed, error);
                }
            });
            supervise(tool, &options.cancellation, own.as_ref(), checks).await
        };
        match checked {
            Ok(()) | Err(Stop::TimedOut(_)) => {}
            Err(stop @ Stop::Cancelled) => return Err(stop.result(tool)),
        }
        explanation.callable = explanation.guards.iter().all(|g| g.passed == Some(true));
        Ok(explanation)
    }
}

/// What a tool's handler returns.
type Outcome<O> = crate::contract::Outcome<<O as Operation>::Contract>;

/// Why the guards and the handler stopped short of an outcome.
enum Halt {
    /// A guard stopped the call.
    Guard(GuardStop),
    /// The handler (or a hand-written `Operation`) panicked, with this message.
    Panicked(String),
}

/// Why validated arguments did not decode.
enum Decoding {
    /// The typed input refused them: the model's mistake.
    Arguments(Errors),
    /// The ambient fields did not resolve: the developer's.
    Internal(ToolResult),
}

/// Decodes the typed input; an error names the field by its JSON pointer, and quotes a value
/// only in part (or not at all, when it is sensitive).
fn decode_input<I: DeserializeOwned>(
    value: &Value,
    limits: &Limits,
    sensitivity: &Sensitivity,
) -> Result<I, Errors> {
    // Tracking the path costs an allocation per key: decode again to find it, on errors only.
    if let Ok(input) = I::deserialize(value) {
        return Ok(input);
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut tokens = Vec::new();
        for segment in e.path().iter() {
            use serde_path_to_error::Segment;
            match segment {
                Segment::Seq { index } => tokens.push(index.to_string()),
                Segment::Map { key } | Segment::Enum { variant: key } => tokens.push(key.clone()),
                Segment::Unknown => break,
            }
        }
        let place = report::Place::of(&tokens, limits, sensitivity);
        let (field, hidden) = (place.field, place.hidden);
        let message = report::elide_quotes(&e.into_inner().to_string(), limits.max_quote, hidden);
        Errors::one(field, message)
    })
}

/// The ambient fields a tool declares, from the trusted context only; borrowed, not copied.
/// An error is the developer's: why the context does not fit.
fn resolve_ambient<A: DeserializeOwned>(
    tool: &'static Descriptor,
    fields: &[&'static Field],
    ambient: &AmbientContext,
) -> Result<A, String> {
    let missing = std::cell::Cell::new(None);
    let declared = fields.iter().filter_map(|field| {
        let value = ambient.lookup(field.name);
        if value.is_none() && !field.optional && missing.get().is_none() {
            missing.set(Some(field.name));
        }
        value.map(|value| (field.name, value))
    });
    let resolved = A::deserialize(serde::de::value::MapDeserializer::new(declared));
    // A missing field is reported first, even when another one failed to decode before it.
    let missing = missing.get().or_else(|| {
        resolved.is_err().then(|| {
            fields
                .iter()
                .find(|f| !f.optional && ambient.lookup(f.name).is_none())
                .map(|f| f.name)
        })?
    });
    if let Some(name) = missing {
        return Err(format!(
            "the adapter supplied no ambient `{name}`, which `{}` requires",
            tool.name
        ));
    }
    resolved.map_err(|e: serde_json::Error| {
        // The developer sees why, but not a sensitive value.
        let hide = fields.iter().any(|f| f.sensitive);
        let why = report::elide_quotes(&e.to_string(), Limits::DEFAULT.max_quote, hide);
        format!(
            "the ambient context of `{}` does not resolve: {why}",
            tool.name
        )
    })
}

/// The `invalid_arguments` failure listing `errors`.
pub(crate) fn invalid_arguments(errors: &Errors) -> ToolResult {
    let error = ToolError::invalid_arguments(errors.summary(), errors.details());
    ToolResult::failed(error, None)
}

/// A `ref` field names no record the caller may see: `not_found`, with the message of the
/// spec's own `not_found` code when it declares one.
fn not_found(tool: &Descriptor, field: &str) -> ToolResult {
    let (message, standalone) = match tool.error(codes::NOT_FOUND) {
        Some(declared) => (declared.message.to_owned(), declared.standalone),
        None => (format!("No such {field}."), false),
    };
    let error = ToolError {
        code: codes::NOT_FOUND.into(),
        message: compose_error(tool.error_headline, &message, standalone),
        details: None,
    };
    ToolResult::failed(error, None)
}

/// Arguments `tool` refuses: `invalid_arguments`, or Dex's `invalid_params` for a query tool.
fn refused(tool: &Descriptor, errors: &Errors) -> ToolResult {
    if tool.kind != ToolKind::Query {
        return invalid_arguments(errors);
    }
    let error = ToolError::invalid_params(errors.summary(), errors.details());
    ToolResult::failed(error, None)
}

/// A failure whose cause only the developer sees: in the log, and as the exception. A query
/// tool fails with Dex's `query_failed`.
fn internal(tool: &Descriptor, exception: String) -> ToolResult {
    ToolResult::internal(tool, exception)
}

fn default_message(tool: &Descriptor) -> String {
    format!("{} succeeded.", tool.title.unwrap_or(tool.name))
}

/// A declared code's failure, as the model sees it: composed with the tool's headline unless
/// the code stands alone.
fn declared(tool: &Descriptor, code: &str, message: &str, details: Option<Value>) -> ToolResult {
    let standalone = tool.error(code).is_some_and(|e| e.standalone);
    let error = ToolError {
        code: code.to_owned(),
        message: compose_error(tool.error_headline, message, standalone),
        details,
    };
    ToolResult::failed(error, None)
}

/// What the call answers when a guard stops it: the guard's own code and description when
/// its precondition does not hold, the code it failed with as a handler's would be, an
/// internal error (naming the guard for the developer) when it broke.
fn stopped(tool: &Descriptor, stop: GuardStop) -> ToolResult {
    let Some(guard) = tool.guards.get(stop.guard) else {
        return internal(
            tool,
            format!(
                "guard number {} stopped the call, but the tool has {} guards",
                stop.guard,
                tool.guards.len()
            ),
        );
    };
    match stop.reason {
        StopReason::Unmet => ToolResult::failed(
            ToolError {
                code: guard.name.to_owned(),
                message: compose_error(tool.error_headline, guard.description, false),
                details: None,
            },
            None,
        ),
        StopReason::Declared {
            code,
            message,
            details,
        } => declared(tool, code, &message, details),
        StopReason::Internal(e) => internal(
            tool,
            format!("guard `{}` failed: {}", guard.name, error_chain(&*e)),
        ),
        StopReason::Panicked(message) => {
            internal(tool, format!("guard `{}` panicked: {message}", guard.name))
        }
    }
}

/// How a JSON value is named in messages (`a list`, `null`…).
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use std::fmt;

    use serde_json::json;

    use super::*;
    use crate::contract::{BoxFuture, NoGuard};
    use crate::descriptor::ToolKind;
    use crate::project::Project;
    use crate::registry::Registry;

    /// A root cause.
    #[derive(Debug)]
    struct Disk;

    impl fmt::Display for Disk {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the disk is full")
        }
    }

    impl std::error::Error for Disk {}

    /// An error whose cause is [`Disk`].
    #[derive(Debug)]
    struct Ledger(Disk);

    impl fmt::Display for Ledger {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("writing the ledger")
        }
    }

    impl std::error::Error for Ledger {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    /// No declared error codes.
    #[derive(Debug)]
    enum NoCode {}

    impl fmt::Display for NoCode {
        fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
            match *self {}
        }
    }

    impl DeclaredError for NoCode {
        fn code(&self) -> &'static str {
            match *self {}
        }
    }

    static WRITE: Descriptor = Descriptor {
        spec: "write.yaml",
        module: "write",
        kind: ToolKind::Action,
        title: None,
        input_schema: r#"{"type":"object"}"#,
        output_schema: r#"{"type":"object"}"#,
        fields: &[],
        error_headline: Some("Could not write"),
        hints: &[],
        dialects: &[],
        ..Descriptor::explain("write", &[], crate::AuditPolicy::OFF)
    };

    /// A tool whose handler fails with a two-level internal error.
    struct Write;

    impl Contract for Write {
        const NAME: &'static str = "write";
        type Input = Map<String, Value>;
        type Ambient = Map<String, Value>;
        type Output = Value;
        type Error = NoCode;
        type Guard = NoGuard;
        const GUARDS: &'static [NoGuard] = &[];

        fn descriptor() -> &'static Descriptor {
            &WRITE
        }
    }

    impl Operation for Write {
        type Contract = Write;

        fn run<'a>(
            &'a self,
            _input: Map<String, Value>,
            _cx: Context<'a, Map<String, Value>>,
        ) -> BoxFuture<'a, Result<crate::contract::Outcome<Write>, GuardStop>> {
            Box::pin(async { Ok(Err(Failure::from(Ledger(Disk)))) })
        }

        fn guard<'a>(
            &'a self,
            guard: NoGuard,
            _input: &'a Map<String, Value>,
            _cx: &'a Context<'a, Map<String, Value>>,
        ) -> BoxFuture<'a, Result<(), GuardStop>> {
            match guard {}
        }
    }

    #[tokio::test]
    async fn an_internal_failure_keeps_its_whole_chain_for_the_developer() {
        let registry = Registry::builder(&Project::DEFAULT)
            .tool(Write)
            .build()
            .expect("a valid registry");
        let result = registry
            .invoke("write", json!({}), &AmbientContext::new())
            .await
            .expect("a registered tool");
        assert_eq!(
            result.to_model_json(),
            json!({"error": "internal_error", "message": "Could not write"})
        );
        assert_eq!(
            result.exception.as_deref(),
            Some("writing the ledger: the disk is full")
        );
    }
}
