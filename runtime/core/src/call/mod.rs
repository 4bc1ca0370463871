//! One tool call as the pipeline carries it, and the seam each tool fills: the [`Call`] (the
//! tool, the trusted ambient context, the caller's options, the registry's rules, the
//! [`Mode`]), what a tool's stages answer ([`Answer`]), and [`Stages`], what a registry holds
//! of each tool. Data and one trait: the stages themselves are `pipeline`'s.

pub(crate) mod options;

use std::borrow::Cow;

use serde_json::Value;

use crate::call::options::{CallOptions, Rules};
use crate::model::ambient::AmbientContext;
use crate::model::contract::BoxFuture;
use crate::model::descriptor::{Descriptor, SharedDescriptor};
use crate::model::explain::explanation::Explanation;
use crate::model::failure::ToolResult;
use crate::model::task::{Accept, Submitted, Task};
use crate::model::user_input::InputRequired;
use crate::schema::sensitive::Sensitivity;

/// What a call is made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Run it.
    Invoke,
    /// Say whether it could run, running the stages up to the handler without taking
    /// anything (`once` and `lock` are looked at, not claimed) and the guards one by one.
    Explain,
}

/// How a call may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dispatch {
    /// Made by an adapter or the app: inline, or handed to the task queue as the tool's `task`
    /// and what its caller accepts decide.
    Direct(Accept),
    /// A worker runs a stored task: inline, under the task's timeout rather than the tool's.
    Worker {
        /// How long the run may take.
        timeout: std::time::Duration,
    },
}

impl Dispatch {
    /// How long the guards and the handler of `tool` may run.
    pub(crate) fn limit(self, tool: &Descriptor) -> Option<std::time::Duration> {
        match self {
            Self::Direct(_) => tool.timeout(),
            Self::Worker { timeout } => Some(timeout),
        }
    }
}

/// One call of one tool, as its stages see it.
pub(crate) struct Call<'a> {
    /// The tool called, as its registry holds it.
    pub(crate) tool: &'a SharedDescriptor,
    /// The trusted ambient context the adapter passed.
    pub(crate) ambient: &'a AmbientContext,
    /// The adapter's options: who calls, through what, the cancellation, progress, trace id.
    pub(crate) options: CallOptions,
    /// What the registry holds every call to.
    pub(crate) rules: &'a Rules,
    pub(crate) mode: Mode,
    /// Whether it may be handed to the task queue, or is a task's run.
    pub(crate) dispatch: Dispatch,
    /// The id of the call's audit record, when it is recorded (a `once` key's claim keeps it,
    /// so that a replay's record can name the call it replays).
    pub(crate) record: Option<uuid::Uuid>,
}

/// What a tool's stages answer. All but a result are boxed: the futures of every call hold an
/// answer, and a future of more than 1 KiB is an allocation glibc serves only after merging
/// every small block freed so far (`malloc_consolidate`).
#[derive(Debug)]
pub(crate) enum Answer {
    /// A call's result ([`Mode::Invoke`]).
    Called(ToolResult),
    /// An explanation, or why none could be made ([`Mode::Explain`]).
    Explained(Result<Box<Explanation>, ToolResult>),
    /// The call was stored as a task ([`Dispatch::Direct`] with a caller that accepts one).
    Enqueued(Box<Task>),
    /// The call needs its user's answers first (`ask`, `confirm`): nothing was done.
    Asked(Box<InputRequired>),
}

impl Answer {
    /// What the call answers: a result, or a task.
    pub(crate) fn into_submitted(self, tool: &Descriptor) -> Submitted {
        match self {
            Self::Called(result) | Self::Explained(Err(result)) => Submitted::Done(result),
            Self::Explained(Ok(_)) => Submitted::Done(ToolResult::internal(
                tool,
                "a call was answered with an explanation".into(),
            )),
            Self::Enqueued(task) => Submitted::Task(*task),
            Self::Asked(input) => Submitted::Input(*input),
        }
    }

    /// What the call answered, as a result: an explanation as the explain tool answers it, a
    /// task as its ticket, the questions as the call's `input_required` result.
    pub(crate) fn to_result(&self) -> Cow<'_, ToolResult> {
        match self {
            Self::Called(result) | Self::Explained(Err(result)) => Cow::Borrowed(result),
            Self::Explained(Ok(explanation)) => {
                Cow::Owned(explanation.to_result(&explanation.tool))
            }
            Self::Enqueued(task) => Cow::Owned(task.ticket()),
            Self::Asked(input) => Cow::Owned(input.to_result()),
        }
    }

    /// The explanation (a result, which an explanation never answers, as its error).
    #[allow(
        clippy::result_large_err,
        reason = "the shape of `explain_with`'s answer"
    )]
    pub(crate) fn into_explanation(self) -> Result<Explanation, ToolResult> {
        match self {
            Self::Explained(explained) => explained.map(|explanation| *explanation),
            Self::Called(result) => Err(result),
            Self::Enqueued(task) => Err(task.ticket()),
            Self::Asked(input) => Err(input.to_result()),
        }
    }
}

/// What a registry holds of one tool, type-erased: the tool's own stages (from screening its
/// arguments to checking its output, see `pipeline`), and how it redacts its values.
pub(crate) trait Stages: Send + Sync {
    /// Runs the tool's stages of `call` over the arguments as sent.
    fn run<'a>(&'a self, call: Call<'a>, args: Value) -> BoxFuture<'a, Answer>;

    /// Where a call's input (its arguments, or its ambient values) is sensitive.
    fn sensitive_input(&self) -> Cow<'_, Sensitivity>;

    /// Where the tool's exposed result is sensitive.
    fn sensitive_output(&self) -> Cow<'_, Sensitivity>;

    /// Why `ambient` does not give the tool its ambient fields, if it does not.
    fn check_ambient(&self, _ambient: &AmbientContext) -> Result<(), String> {
        Ok(())
    }
}
