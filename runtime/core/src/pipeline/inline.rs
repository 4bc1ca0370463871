//! Tools defined at run time, without generated code: a descriptor the compiler built from a
//! spec the app holds (`toolspec::inline`), and a handler over JSON. Such a tool is held like
//! a generated one ([`Typed`]) and goes through every stage of the pipeline — validation
//! against its schema, the ambient context, `once`, `lock`, the audit trail, the output
//! check — and every adapter alike; only its input and output are JSON, not Rust types.

use std::fmt;
use std::future::Future;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::model::clock::Clock;
use crate::model::context::{Context, Progress};
use crate::model::contract::{BoxFuture, Contract, NoGuard, Operation, Outcome};
use crate::model::descriptor::{SharedDescriptor, Text, ToolKind};
use crate::model::failure::{DeclaredError, Failure};
use crate::model::guard::GuardStop;
use crate::model::registry_error::RegistryError;
use crate::pipeline::typed::Typed;
use crate::registry::{Imp, Registry};

/// The handler of a tool defined at run time: the validated arguments (defaults applied) and
/// the call's context in, the exposed values (checked against the output schema) or a failure
/// out. Any `Fn(Map<String, Value>, InlineContext) -> impl Future<…>` is one.
pub trait InlineHandler: Send + Sync + 'static {
    /// Runs one call.
    fn call(
        &self,
        input: Map<String, Value>,
        cx: InlineContext,
    ) -> BoxFuture<'static, Result<Value, Failure<InlineError>>>;
}

impl<F, Fut> InlineHandler for F
where
    F: Fn(Map<String, Value>, InlineContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Value, Failure<InlineError>>> + Send + 'static,
{
    fn call(
        &self,
        input: Map<String, Value>,
        cx: InlineContext,
    ) -> BoxFuture<'static, Result<Value, Failure<InlineError>>> {
        Box::pin(self(input, cx))
    }
}

/// What the handler of a tool defined at run time gets besides its input: its ambient fields,
/// its descriptor, the cancellation, progress reports and the registry's clock.
pub struct InlineContext {
    ambient: Map<String, Value>,
    tool: SharedDescriptor,
    cancellation: CancellationToken,
    progress: Progress,
    clock: Clock,
}

impl InlineContext {
    /// The tool's fields resolved from the trusted ambient context, by field name.
    pub fn ambient(&self) -> &Map<String, Value> {
        &self.ambient
    }

    /// The tool being called.
    pub fn tool(&self) -> &SharedDescriptor {
        &self.tool
    }

    /// Cancelled when the client cancels the call or its timeout passes.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Reports progress to the client, if its transport supports it.
    pub fn progress(&self, fraction: f64, message: impl Into<String>) {
        self.progress.report(fraction, message);
    }

    /// The time now, by the registry's clock.
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    /// A failure with the declared error `code` (add `.with_details(…)` for the model); a
    /// code the spec does not declare is an internal failure naming it, as a generated
    /// tool's would not compile.
    pub fn fail(&self, code: &str) -> Failure<InlineError> {
        match self.tool.errors.iter().find(|e| e.code == code) {
            Some(declared) => Failure::declared(InlineError {
                code: declared.code.clone(),
                message: declared.message.clone(),
            }),
            None => Failure::internal(format!(
                "`{}` failed with `{code}`, which its spec does not declare",
                self.tool.name
            )),
        }
    }
}

/// A declared error of a tool defined at run time ([`InlineContext::fail`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineError {
    code: Text,
    message: Text,
}

impl fmt::Display for InlineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl DeclaredError for InlineError {
    fn code(&self) -> &str {
        &self.code
    }
}

/// The JSON contract of a tool defined at run time.
pub(crate) struct InlineContract;

impl Contract for InlineContract {
    type Input = Map<String, Value>;
    type Ambient = Map<String, Value>;
    type Output = Value;
    type Error = InlineError;
    type Guard = NoGuard;
    const GUARDS: &'static [NoGuard] = &[];
}

/// A handler bound to the JSON contract.
struct Inline<H>(H);

impl<H: InlineHandler> Operation for Inline<H> {
    type Contract = InlineContract;

    fn run<'a>(
        &'a self,
        input: Map<String, Value>,
        cx: Context<'a, Map<String, Value>>,
    ) -> BoxFuture<'a, Result<Outcome<InlineContract>, GuardStop>> {
        let cx = InlineContext {
            ambient: cx.ambient().clone(),
            tool: cx.tool().clone(),
            cancellation: cx.cancellation().clone(),
            progress: cx.progress_sink(),
            clock: cx.clock(),
        };
        Box::pin(async move { Ok(self.0.call(input, cx).await) })
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

impl Registry {
    /// Adds a tool defined at run time: `tool` (a descriptor the compiler built,
    /// `toolspec::inline::Spec::describe`, which the registry holds from now on) handled by
    /// `handler`. Refused when its name, or its name on one of its adapters, is another tool's,
    /// when it names an adapter the project does not declare, and for what only generated code
    /// can serve: a query tool (its record type) or a tool with guards (a method each).
    pub fn with_tool<F, Fut>(
        self,
        tool: impl Into<SharedDescriptor>,
        handler: F,
    ) -> Result<Self, RegistryError>
    where
        F: Fn(Map<String, Value>, InlineContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, Failure<InlineError>>> + Send + 'static,
    {
        let tool = tool.into();
        let refused = |reason: &str| {
            Err(RegistryError::NotInline {
                tool: tool.name.to_string(),
                reason: reason.to_owned(),
            })
        };
        if tool.kind != ToolKind::Action {
            return refused(
                "only an action can be defined at run time (a query tool is generated)",
            );
        }
        if !tool.guards.is_empty() {
            return refused(
                "a tool defined at run time has no guards: check in the handler and fail with a \
                 declared code",
            );
        }
        let typed = Typed::new(Inline(handler), tool.clone());
        self.insert(tool, Imp::Tool(Box::new(typed)))
    }
}
