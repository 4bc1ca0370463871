//! The one sanctioned call path, shared by every adapter:
//!
//! strip a model-sent `ambient_context` → reject (or drop) undeclared keys → coerce wire values
//! → validate against the canonical schema (all errors, by JSON pointer) → deserialize the
//! typed `Input` → resolve `Ambient` from the trusted context → guards, then the handler, under
//! the tool's timeout, with cancellation and progress, panics caught → a [`ToolResult`].
//!
//! Anything valid under the published input schema is accepted; coercions only widen that.

// Pipeline steps return the call's final `ToolResult` as their error, so each step can end
// the call early; that value is large, but it is built once, on the failure path only.
#![allow(clippy::result_large_err)]

mod coerce;
mod keys;
mod validate;

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::OnceLock;
use std::task::Poll;
use std::time::Duration;

use futures_util::FutureExt;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

pub use coerce::{Coercion, coerce};
pub use validate::FieldError;
pub(crate) use validate::{compile as compile_schema, errors as schema_errors};

use crate::ambient::AmbientContext;
use crate::context::{Context, Progress};
use crate::contract::{Contract, DeclaredError, Operation};
use crate::descriptor::{Descriptor, Field};
use crate::failure::{Failure, ToolError, ToolResult, compose_error};

/// What to do with argument keys the input schema does not declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UndeclaredKeys {
    /// Refuse the call, naming the keys (the default).
    #[default]
    Reject,
    /// Drop them silently (logged at debug level).
    Drop,
}

/// Built-in error codes.
pub mod codes {
    /// The arguments do not fit the input schema.
    pub const INVALID_ARGUMENTS: &str = "invalid_arguments";
    /// The handler failed in a way it did not declare (or panicked); details are hidden.
    pub const INTERNAL_ERROR: &str = "internal_error";
    /// The handler ran past the tool's timeout.
    pub const TIMEOUT: &str = "timeout";
    /// The client cancelled the call.
    pub const CANCELLED: &str = "cancelled";
    /// No tool by that name (explain only; adapters answer unknown tools natively).
    pub const UNKNOWN_TOOL: &str = "unknown_tool";
}

/// Per-call options an adapter passes along with the arguments.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// The adapter the call came through.
    pub adapter: Option<String>,
    /// Who is calling.
    pub caller: Option<String>,
    /// The caller's scopes: a tool requiring scopes the caller lacks answers exactly as an
    /// unknown tool would (adapters also hide it from their listings).
    pub scopes: crate::caller::Scopes,
    /// Cancelled by the client (MCP `notifications/cancelled`, a dropped HTTP request…).
    pub cancellation: CancellationToken,
    /// Where progress reports go.
    pub progress: Progress,
}

/// A guard's result in an explanation.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GuardCheck {
    /// The guard (also its error code).
    pub name: String,
    /// What must hold.
    pub description: String,
    /// Whether it holds; `None` when the arguments were too wrong to check it.
    pub passed: Option<bool>,
}

/// Whether a call could run, without running it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Explanation {
    /// The tool.
    pub tool: String,
    /// Whether the call would get past validation and every guard.
    pub callable: bool,
    /// Every argument error.
    pub errors: Vec<FieldError>,
    /// Every guard's result, in spec order.
    pub guards: Vec<GuardCheck>,
}

/// A call's typed input and resolved ambient fields.
type Decoded<C> = (<C as Contract>::Input, <C as Contract>::Ambient);

/// The compiled parts of one tool, built on first use.
struct Compiled {
    /// The declared argument keys.
    declared: keys::Keys,
    /// The coercions the input schema allows.
    coercion: Coercion,
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
        let declared: Vec<String> = input_schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
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
        Ok(Self {
            input: validate::compile(&input_schema)?,
            output: validate::compile(&output_schema)?,
            coercion: Coercion::compile(&input_schema, &input_schema),
            ambient: tool.ambient_fields().collect(),
            declared: keys::Keys::new(declared),
            templates,
            default_message: default_message(tool),
        })
    }
}

/// A typed tool behind the type-erased registry entry.
pub(crate) struct Typed<O> {
    op: O,
    compiled: OnceLock<Result<Compiled, String>>,
}

impl<O: Operation> Typed<O> {
    pub(crate) fn new(op: O) -> Self {
        Self {
            op,
            compiled: OnceLock::new(),
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

    /// Arguments → validated, coerced JSON; or the user-facing argument errors.
    fn prepare(
        &self,
        compiled: &Compiled,
        args: Value,
        undeclared: UndeclaredKeys,
    ) -> Result<Value, Vec<FieldError>> {
        let mut map = match args {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => {
                let kind = json_kind(&other);
                return Err(vec![FieldError {
                    field: "/".into(),
                    message: format!("arguments must be a JSON object, not {kind}"),
                }]);
            }
        };
        // One pass over the keys finds both; the common call has neither.
        let (mut sent_ambient, mut any_unknown, mut next) = (false, false, 0);
        for key in map.keys() {
            if key == "ambient_context" {
                sent_ambient = true;
            } else if let Some(i) = compiled.declared.find(key, next) {
                next = i + 1;
            } else {
                any_unknown = true;
            }
        }
        if sent_ambient {
            map.remove("ambient_context");
        }
        let unknown: Vec<String> = if any_unknown {
            map.keys()
                .filter(|k| compiled.declared.find(k, 0).is_none())
                .cloned()
                .collect()
        } else {
            Vec::new()
        };
        // Undeclared keys are reported together with every other error of the call.
        let mut errors = Vec::new();
        if !unknown.is_empty() {
            if undeclared == UndeclaredKeys::Reject {
                let expected = if compiled.declared.names().is_empty() {
                    "this tool takes no arguments".to_owned()
                } else {
                    format!("expected: {}", compiled.declared.names().join(", "))
                };
                errors.extend(unknown.iter().map(|k| FieldError {
                    field: format!("/{}", validate::escape_pointer(k)),
                    message: format!("is not an argument of this tool ({expected})"),
                }));
            } else {
                tracing::debug!(tool = Self::tool().name, keys = ?unknown, "dropping undeclared argument keys");
            }
            for key in &unknown {
                map.remove(key);
            }
        }
        let mut value = Value::Object(map);
        compiled.coercion.apply(&mut value);
        errors.extend(validate::errors(&compiled.input, &value));
        if errors.is_empty() {
            Ok(value)
        } else {
            errors.sort_by(|a, b| a.field.cmp(&b.field).then(a.message.cmp(&b.message)));
            Err(errors)
        }
    }

    /// Validated arguments → the typed input (its errors named by JSON pointer), and the
    /// ambient fields from the trusted context.
    fn decode(
        compiled: &Compiled,
        value: Value,
        ambient: &AmbientContext,
    ) -> Result<Decoded<O::Contract>, Decoding> {
        let input = decode_input(&value).map_err(Decoding::Arguments)?;
        let resolved = resolve_ambient(Self::tool(), &compiled.ambient, ambient)
            .map_err(Decoding::Internal)?;
        Ok((input, resolved))
    }

    /// The guards in spec order, then the handler; a failing or panicking guard ends the call.
    ///
    /// An `async` block rather than an `async fn`, whose arguments would be stored twice in the
    /// future (the invoker's future is boxed: its size is an allocation per call).
    #[allow(clippy::manual_async_fn)]
    fn run<'a>(
        &'a self,
        input: <O::Contract as Contract>::Input,
        cx: Context<'a, <O::Contract as Contract>::Ambient>,
    ) -> impl Future<Output = Result<Outcome<O>, ToolResult>> + 'a {
        async move {
            let tool = Self::tool();
            for (index, guard) in tool.guards.iter().enumerate() {
                let Some(check) = self.op.guard(index, &input, &cx) else {
                    return Err(internal(
                        tool,
                        format!("no guard number {index} (`{}`) is bound", guard.name),
                    ));
                };
                match AssertUnwindSafe(check).catch_unwind().await {
                    Ok(true) => {}
                    Ok(false) => {
                        return Err(ToolResult::failed(
                            ToolError {
                                code: guard.name.to_owned(),
                                message: compose_error(
                                    tool.error_headline,
                                    guard.description,
                                    false,
                                ),
                                details: None,
                            },
                            None,
                        ));
                    }
                    Err(panic) => {
                        return Err(internal(
                            tool,
                            format!("guard `{}` panicked: {}", guard.name, panic_message(panic)),
                        ));
                    }
                }
            }
            match AssertUnwindSafe(self.op.call(input, cx))
                .catch_unwind()
                .await
            {
                Ok(outcome) => Ok(outcome),
                Err(panic) => Err(internal(
                    tool,
                    format!("the handler panicked: {}", panic_message(panic)),
                )),
            }
        }
    }

    pub(crate) async fn invoke(
        &self,
        args: Value,
        ambient: &AmbientContext,
        options: CallOptions,
        undeclared: UndeclaredKeys,
    ) -> ToolResult {
        let tool = Self::tool();
        let compiled = match self.compiled() {
            Ok(c) => c,
            Err(result) => return result,
        };
        let value = match self.prepare(compiled, args, undeclared) {
            Ok(value) => value,
            Err(errors) => return invalid_arguments(&errors),
        };
        let (input, resolved) = match Self::decode(compiled, value, ambient) {
            Ok(decoded) => decoded,
            Err(Decoding::Arguments(errors)) => return invalid_arguments(&errors),
            Err(Decoding::Internal(result)) => return result,
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
            Ok(Err(result)) => return result,
            Err(stop) => return stop.result(tool),
        };
        match outcome {
            Ok(output) => self.succeed(compiled, &output),
            Err(Failure::Declared { error, details }) => {
                let code = error.code();
                let standalone = tool.error(code).is_some_and(|e| e.standalone);
                let message = compose_error(tool.error_headline, &error.to_string(), standalone);
                ToolResult::failed(
                    ToolError {
                        code: code.to_owned(),
                        message,
                        details,
                    },
                    None,
                )
            }
            Err(Failure::Internal(e)) => internal(tool, e.to_string()),
        }
    }

    fn succeed(
        &self,
        compiled: &Compiled,
        output: &<O::Contract as Contract>::Output,
    ) -> ToolResult {
        let tool = Self::tool();
        let value = match serde_json::to_value(output) {
            Ok(value) => value,
            Err(e) => return internal(tool, format!("the output does not serialize: {e}")),
        };
        let errors = validate::errors(&compiled.output, &value);
        if !errors.is_empty() {
            return internal(
                tool,
                format!(
                    "the output does not match the output schema: {}",
                    validate::list(&errors)
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
        undeclared: UndeclaredKeys,
    ) -> Result<Explanation, ToolResult> {
        let tool = Self::tool();
        let compiled = self.compiled()?;
        let mut explanation = Explanation {
            tool: tool.name.to_owned(),
            callable: false,
            errors: Vec::new(),
            guards: tool
                .guards
                .iter()
                .map(|g| GuardCheck {
                    name: g.name.into(),
                    description: g.description.into(),
                    passed: None,
                })
                .collect(),
        };
        let value = match self.prepare(compiled, args, undeclared) {
            Ok(value) => value,
            Err(errors) => {
                explanation.errors = errors;
                return Ok(explanation);
            }
        };
        let (input, resolved) = match Self::decode(compiled, value, ambient) {
            Ok(decoded) => decoded,
            Err(Decoding::Arguments(errors)) => {
                explanation.errors = errors;
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
                for (index, check) in guards.iter_mut().enumerate() {
                    if let Some(guard) = self.op.guard(index, &input, &cx) {
                        check.passed = AssertUnwindSafe(guard).catch_unwind().await.ok();
                    }
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

/// Why validated arguments did not decode.
enum Decoding {
    /// The typed input refused them: the model's mistake.
    Arguments(Vec<FieldError>),
    /// The ambient fields did not resolve: the developer's.
    Internal(ToolResult),
}

/// How a supervised run was stopped.
#[derive(Debug, Clone, Copy)]
enum Stop {
    /// The client cancelled the call.
    Cancelled,
    /// The tool's timeout passed.
    TimedOut(Duration),
}

impl Stop {
    fn result(self, tool: &Descriptor) -> ToolResult {
        match self {
            Self::Cancelled => {
                let error = ToolError {
                    code: codes::CANCELLED.into(),
                    message: "The call was cancelled.".into(),
                    details: None,
                };
                ToolResult::failed(error, Some("cancelled by the client".into()))
            }
            Self::TimedOut(timeout) => {
                let reason = format!("The call did not finish within {}.", human(timeout));
                let error = ToolError {
                    code: codes::TIMEOUT.into(),
                    message: compose_error(tool.error_headline, &reason, false),
                    details: None,
                };
                ToolResult::failed(error, Some(format!("timed out after {timeout:?}")))
            }
        }
    }
}

/// Runs `work` until it finishes, `cancellation` is cancelled or the tool's timeout passes. A
/// call cancelled before it starts never polls `work`. When stopped, `token` (the token of
/// its own `work` sees, if not `cancellation` itself) is cancelled and `work` polled once
/// more, so that it can see that (and clean up) before it is dropped.
///
/// `work` is pinned by the caller: taken by value, it would be stored twice in this future.
async fn supervise<F: Future>(
    tool: &Descriptor,
    cancellation: &CancellationToken,
    token: Option<&CancellationToken>,
    mut work: std::pin::Pin<&mut F>,
) -> Result<F::Output, Stop> {
    if cancellation.is_cancelled() {
        return Err(Stop::Cancelled);
    }
    if tool.timeout.is_none() {
        // Most work is done in its first poll: then there is nothing to wait for.
        let first = std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx))).await;
        if let Poll::Ready(output) = first {
            return Ok(output);
        }
    }
    // Only a tool with a `timeout` needs the tokio time driver; its timer is boxed, so that
    // the (boxed) futures of the others stay small.
    let deadline = async {
        match tool.timeout {
            Some(limit) => {
                Box::pin(tokio::time::sleep(limit)).await;
                limit
            }
            None => std::future::pending().await,
        }
    };
    let stop = tokio::select! {
        biased;
        _ = cancellation.cancelled() => Stop::Cancelled,
        output = work.as_mut() => return Ok(output),
        limit = deadline => Stop::TimedOut(limit),
    };
    if let Some(token) = token {
        token.cancel();
    }
    let _ = work.as_mut().now_or_never();
    Err(stop)
}

/// Decodes the typed input; an error names the field by its JSON pointer.
fn decode_input<I: DeserializeOwned>(value: &Value) -> Result<I, Vec<FieldError>> {
    // Tracking the path costs an allocation per key: decode again to find it, on errors only.
    if let Ok(input) = I::deserialize(value) {
        return Ok(input);
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut field = String::new();
        for segment in e.path().iter() {
            use serde_path_to_error::Segment;
            match segment {
                Segment::Seq { index } => {
                    field.push('/');
                    field.push_str(&index.to_string());
                }
                Segment::Map { key } | Segment::Enum { variant: key } => {
                    field.push('/');
                    field.push_str(&validate::escape_pointer(key));
                }
                Segment::Unknown => break,
            }
        }
        if field.is_empty() {
            field.push('/');
        }
        vec![FieldError {
            field,
            message: e.into_inner().to_string(),
        }]
    })
}

/// The ambient fields a tool declares, from the trusted context only; borrowed, not copied.
fn resolve_ambient<A: DeserializeOwned>(
    tool: &'static Descriptor,
    fields: &[&'static Field],
    ambient: &AmbientContext,
) -> Result<A, ToolResult> {
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
        return Err(internal(
            tool,
            format!(
                "the adapter supplied no ambient `{name}`, which `{}` requires",
                tool.name
            ),
        ));
    }
    resolved.map_err(|e: serde_json::Error| {
        internal(
            tool,
            format!(
                "the ambient context of `{}` does not resolve: {e}",
                tool.name
            ),
        )
    })
}

pub(crate) fn invalid_arguments(errors: &[FieldError]) -> ToolResult {
    let error = ToolError {
        code: codes::INVALID_ARGUMENTS.into(),
        message: validate::summary(errors),
        details: Some(json!({ "errors": errors })),
    };
    ToolResult::failed(error, None)
}

/// A failure whose cause only the developer sees.
fn internal(tool: &Descriptor, exception: String) -> ToolResult {
    tracing::error!(tool = tool.name, exception = %exception, "tool failed");
    let error = ToolError {
        code: codes::INTERNAL_ERROR.into(),
        message: tool
            .error_headline
            .unwrap_or("The tool failed unexpectedly.")
            .to_owned(),
        details: None,
    };
    ToolResult::failed(error, Some(exception))
}

fn default_message(tool: &Descriptor) -> String {
    format!("{} succeeded.", tool.title.unwrap_or(tool.name))
}

/// Takes the box itself: a `&Box<dyn Any>` would coerce to `&dyn Any` of the box, and never
/// downcast to the payload.
fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic payload".into())
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// "30s", "1.5s", "2m" for messages.
fn human(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(60_000) && ms >= 60_000 {
        format!("{}m", ms / 60_000)
    } else if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else if ms >= 1000 {
        format!("{:.1}s", d.as_secs_f64())
    } else {
        format!("{ms}ms")
    }
}
