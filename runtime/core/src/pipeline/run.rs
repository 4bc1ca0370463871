//! The call pipeline's stages run in the order of [`STAGES`](super::stages::STAGES): [`call`]
//! runs the stages every tool has in common around the tool's own, [`tool_stages`] runs a
//! tool's own. A stage is a function in a file of its own (beside this one); adding one is that
//! file, one line here and its entry in the list.
//!
//! In [`Mode::Explain`] the same stages run without taking anything: the admission stage looks
//! at `once` and `lock` instead of claiming them, the guards run one by one instead of guarding
//! the handler, and every refusal becomes the explanation's errors.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde_json::Value;
use tracing::Instrument;
use uuid::Uuid;

use tokio_util::sync::CancellationToken;

use crate::call::options::CallOptions;
use crate::call::{Answer, Call, Dispatch, Mode};
use crate::durable::{self, Admission};
use crate::model::ambient::AmbientContext;
use crate::model::context::Progress;
use crate::model::contract::BoxFuture;
use crate::model::contract::Operation;
use crate::model::descriptor::{AskForm, Descriptor, SharedDescriptor};
use crate::model::explain::explanation::{AskedForm, Explanation, GuardCheck};
use crate::model::failure::{ToolError, ToolResult};
use crate::model::hooks::CallInfo;
use crate::model::report::Errors;
use crate::model::report::invalid_arguments;
use crate::model::task::{Accept, Submitted};
use crate::pipeline::compiled::Compiled;
use crate::pipeline::decode::{Decoding, decode};
use crate::pipeline::handler::{self, Failing, Guards, Handled};
use crate::pipeline::refs::{self, Missing};
use crate::pipeline::screen::Refused;
use crate::pipeline::task::{self, Decision};
use crate::pipeline::task_status_tool;
use crate::pipeline::{
    audit, availability, explain_tool, hooks, output, rate, scopes, screen, user_input,
};
use crate::registry::{Imp, RegisteredTool};

/// A call of `tool` through its registry in `mode` — made, or explained — or, with `unrun`, a
/// call answered without any of it running (its caller's refusal of it, a task given up),
/// recorded like a call. The stages, in the order of [`STAGES`](super::stages::STAGES):
/// stage 1 (scopes, rate) here, stage 2 (the audit record started), stages 3 and 14 (hooks,
/// the span) in [`spanned`], the tool's own stages ([`tool_stages`], or a built-in tool's) in
/// [`own_stages`], stage 15 (the audit record finished) here.
///
/// An explanation goes through the same stages, except that it is not a call of the tool it
/// explains: it has no audit record of its own (a call of the explain tool is recorded as that
/// tool's).
///
/// Like every stage function below, an `async` block rather than an `async fn`, whose arguments
/// would be stored twice in the future (every call's size and copies).
pub(crate) fn call<'a>(
    tool: RegisteredTool<'a>,
    args: Value,
    ambient: &'a AmbientContext,
    options: CallOptions,
    unrun: Option<ToolResult>,
    dispatch: Dispatch,
    mode: Mode,
) -> impl Future<Output = Answer> + Send + 'a {
    async move {
        let recorded = mode == Mode::Invoke && audit::records(tool);
        // Held until the call ends: its place among the caller's calls in flight.
        let permit = match &unrun {
            Some(_) => None,
            None => match admit(tool, &options, dispatch).await {
                Ok(permit) => permit,
                Err(refused) => {
                    if recorded {
                        audit::refused(tool, &args, ambient, &options, &refused).await;
                    }
                    return answer(mode, refused);
                }
            },
        };
        // One future for recorded calls and the others (no box, no second copy of the stages'
        // future): the record's start and finish are awaited apart from the stages, so they
        // share its room.
        let recording = match recorded {
            false => None,
            true => match audit::start(tool, &args, ambient, &options, unrun.is_none()).await {
                Ok(recording) => Some(recording),
                Err(result) => return Answer::Called(result),
            },
        };
        let adapter = recording.as_ref().and_then(|_| options.adapter.clone());
        let answered = match unrun {
            Some(result) => Answer::Called(result),
            None => {
                let mut options = options;
                let callers_trace_id;
                let traced = match &recording {
                    Some(recording) => {
                        // A task stored by this call keeps its trace id: its run's record
                        // shares it.
                        if tool.descriptor().task.is_some() {
                            let trace_id = recording.trace_id();
                            options.trace_id.get_or_insert_with(|| trace_id.to_owned());
                        }
                        Traced {
                            trace_id: Some(recording.trace_id()),
                            record: Some(recording.id()),
                        }
                    }
                    None => {
                        callers_trace_id = options.trace_id.clone();
                        Traced {
                            trace_id: callers_trace_id.as_deref(),
                            record: None,
                        }
                    }
                };
                let answered = spanned(tool, args, ambient, options, traced, dispatch, mode).await;
                drop(permit);
                match (dispatch, answered) {
                    (Dispatch::Worker { .. }, Answer::Called(result)) => {
                        let bound = tool.registry().project().tasks.max_result_bytes;
                        Answer::Called(task::kept(tool.descriptor(), result, bound))
                    }
                    (_, answered) => answered,
                }
            }
        };
        // A call stored as a task is recorded with the task as its result; the task's run has a
        // record of its own.
        if let Some(recording) = recording {
            let result = answered.to_result();
            recording.finish(tool, adapter.as_deref(), &result).await;
        }
        answered
    }
}

/// [`call`] made: its answer as the caller takes it.
pub(crate) fn submit<'a>(
    tool: RegisteredTool<'a>,
    args: Value,
    ambient: &'a AmbientContext,
    options: CallOptions,
    unrun: Option<ToolResult>,
    dispatch: Dispatch,
) -> impl Future<Output = Submitted> + Send + 'a {
    let answered = call(tool, args, ambient, options, unrun, dispatch, Mode::Invoke);
    futures_util::FutureExt::map(answered, move |answered| {
        answered.into_submitted(tool.descriptor())
    })
}

/// [`call`] explained: the explanation, or why none could be made.
pub(crate) fn explain<'a>(
    tool: RegisteredTool<'a>,
    args: Value,
    ambient: &'a AmbientContext,
    options: CallOptions,
) -> impl Future<Output = Result<Explanation, ToolResult>> + Send + 'a {
    let direct = Dispatch::Direct(Accept::ResultsOnly);
    let explained = call(tool, args, ambient, options, None, direct, Mode::Explain);
    futures_util::FutureExt::map(explained, Answer::into_explanation)
}

/// Stage 1 of [`call`]: whether the caller may call the tool (scopes), and may now (rate):
/// the permit it holds until the call ends, or the refusal.
async fn admit(
    tool: RegisteredTool<'_>,
    options: &CallOptions,
    dispatch: Dispatch,
) -> Result<Option<crate::model::rate::Permit>, ToolResult> {
    if let Some(refused) = scopes::refusal(tool.descriptor(), options) {
        return Err(refused);
    }
    rate::admit(tool, options, dispatch).await
}

/// A call its caller refused.
pub(crate) fn refused_by_caller(error: ToolError) -> ToolResult {
    ToolResult::failed(error, Some("refused by its caller".into()))
}

/// How a call is traced: its trace id (set on its span), and its audit record's id.
struct Traced<'a> {
    trace_id: Option<&'a str>,
    record: Option<Uuid>,
}

/// Stages 3 and 14 of [`call`] — hooks, the call's span and log line — around the tool's own.
fn spanned<'a>(
    tool: RegisteredTool<'a>,
    args: Value,
    ambient: &'a AmbientContext,
    options: CallOptions,
    traced: Traced<'a>,
    dispatch: Dispatch,
    mode: Mode,
) -> impl Future<Output = Answer> + Send + 'a {
    async move {
        let Traced { trace_id, record } = traced;
        let descriptor = tool.descriptor();
        let (name, adapter, caller) = (
            &*descriptor.name,
            options.adapter.as_deref(),
            options.caller.as_deref(),
        );
        let span = match mode {
            Mode::Invoke => {
                tracing::info_span!("tool.call", tool = name, adapter, caller, trace_id)
            }
            Mode::Explain => {
                tracing::info_span!("tool.explain", tool = name, adapter, caller, trace_id)
            }
        };
        let started = Instant::now();
        let (adapter, caller) = (options.adapter.clone(), options.caller.clone());
        let hooks = tool.registry().hooks();
        let explaining = mode == Mode::Explain;
        let info = CallInfo {
            tool: descriptor,
            adapter: adapter.as_deref(),
            caller: caller.as_deref(),
            arguments: &args,
            explaining,
        };
        if let Err(result) = hooks::before(hooks, &info) {
            span.in_scope(|| hooks::after(hooks, &info, &result, started));
            return answer(mode, result);
        }
        // Hooks see the arguments as sent; copy them only when someone will look.
        let sent = if hooks.is_empty() {
            Value::Null
        } else {
            args.clone()
        };
        let answered = own_stages(tool, args, ambient, options, dispatch, record, mode)
            .instrument(span.clone())
            .await;
        let answered = match mode {
            // A call's answer is a result, a task or questions, never an explanation.
            Mode::Invoke => match answered {
                Answer::Explained(_) => {
                    Answer::Called(answered.into_submitted(descriptor).into_result())
                }
                answered => answered,
            },
            Mode::Explain => answered,
        };
        let info = CallInfo {
            tool: descriptor,
            adapter: adapter.as_deref(),
            caller: caller.as_deref(),
            arguments: &sent,
            explaining,
        };
        let result = answered.to_result();
        span.in_scope(|| hooks::after(hooks, &info, &result, started));
        drop(result);
        answered
    }
}

/// The tool's own stages of [`call`] (stages 4 to 13), in `mode` (`record`: the call's audit
/// record). The explain tool's enter the pipeline again, for the tool it explains, in
/// [`Mode::Explain`].
fn own_stages<'a>(
    tool: RegisteredTool<'a>,
    args: Value,
    ambient: &'a AmbientContext,
    options: CallOptions,
    dispatch: Dispatch,
    record: Option<Uuid>,
    mode: Mode,
) -> impl Future<Output = Answer> + Send + 'a {
    async move {
        let registry = tool.registry();
        let call = Call {
            tool: tool.descriptor(),
            ambient,
            options,
            rules: registry.rules(),
            mode,
            dispatch,
            record,
        };
        match tool.imp() {
            Imp::Tool(stages) => stages.run(call, args).await,
            Imp::Explain => {
                let target = match explain_tool::target(registry, &call, args) {
                    Ok(target) => target,
                    Err(answer) => return answer,
                };
                // Boxed, as a call within a call must be (and like a tool's own stages, so
                // that its future does not weigh on every call's).
                let direct = Dispatch::Direct(Accept::ResultsOnly);
                let explained: BoxFuture<'a, Answer> = Box::pin(self::call(
                    target.tool,
                    target.arguments,
                    ambient,
                    call.options,
                    None,
                    direct,
                    Mode::Explain,
                ));
                explain_tool::answered(&target.name, explained.await)
            }
            Imp::TaskStatus => Box::pin(task_status_tool::run(registry, call, args)).await,
        }
    }
}

/// What a tool needs of its own to run its stages: its operation, its compiled checks, and
/// whether its handler is known to need the database.
pub(crate) struct Own<'a, O> {
    pub(crate) op: &'a O,
    /// Its compiled checks, or why they could not be compiled (boxed: every call's future
    /// holds this).
    pub(crate) compiled: Result<&'a Compiled, Box<ToolResult>>,
    pub(crate) learned: &'a AtomicBool,
}

/// A tool's own stages of `call`, stages 4 to 13 of [`STAGES`](super::stages::STAGES): from
/// screening the arguments to releasing admission; those after admission in [`admitted`].
///
/// An `async` block rather than an `async fn`, whose arguments would be stored twice in the
/// future (it is boxed: its size is an allocation and a copy per call); likewise below.
pub(crate) fn tool_stages<'a, O: Operation>(
    own: Own<'a, O>,
    call: Call<'a>,
    args: Value,
) -> impl Future<Output = Answer> + Send + 'a {
    async move {
        // The call's fields are read where they are (its options are moved last): bound to
        // locals of their own, they would be stored twice in this future.
        let (tool, ambient, rules) = (call.tool, call.ambient, call.rules);
        let (mode, dispatch, record) = (call.mode, call.dispatch, call.record);
        let compiled = match own.compiled {
            Ok(compiled) => compiled,
            Err(result) => return answer(mode, *result),
        };
        let value =
            match screen::screen(tool, compiled, args, call.options.adapter.as_deref(), rules) {
                Ok(value) => value,
                Err(Refused::Arguments(errors)) => return refusal(mode, tool, errors),
                Err(Refused::Schema(result)) => return answer(mode, *result),
            };
        let storage = rules.storage.as_deref();
        let learned = own.learned.load(Ordering::Relaxed);
        if let Some(refused) = availability::refusal(tool, learned, storage) {
            return answer(mode, refused);
        }
        // What the call asks its user (`ask`, `confirm`) is asked before it may become a task
        // or be admitted; explaining, the forms it would ask for end the explanation.
        let value = match (mode, dispatch) {
            (Mode::Invoke, Dispatch::Direct(_)) if tool.asks_user() => {
                let asking = Box::pin(asking(
                    &own,
                    tool,
                    compiled,
                    value,
                    ambient,
                    &call.options,
                    rules,
                ));
                match asking.await {
                    Ok(value) => value,
                    Err(answer) => return answer,
                }
            }
            // A tool that asks nothing never handed out a state to come back with.
            (Mode::Invoke, Dispatch::Direct(_)) if call.options.continuation.is_some() => {
                return Answer::Called(user_input::nothing_to_continue(tool));
            }
            (Mode::Explain, _) if !tool.ask.is_empty() => {
                let forms = user_input::missing(tool, &value);
                if !forms.is_empty() {
                    let mut explanation = explanation(tool);
                    explanation.ask = forms.iter().map(|form| asked_form(form)).collect();
                    return Answer::Explained(Ok(explanation));
                }
                value
            }
            _ => value,
        };
        if let (Mode::Invoke, Some(decl), Dispatch::Direct(accept)) = (mode, &tool.task, dispatch) {
            match task::decide(decl, accept) {
                Decision::Inline => {}
                Decision::Refuse => return Answer::Called(task::required(tool)),
                Decision::Enqueue => {
                    let handed = task::hand_off(tool, decl, value, ambient, &call.options, rules);
                    return match Box::pin(handed).await {
                        Ok(task) => Answer::Enqueued(Box::new(task)),
                        Err(result) => Answer::Called(result),
                    };
                }
            }
        }
        let redaction = &compiled.sensitive_input;
        // The stages a tool may not need, and explaining, await boxed futures: what every call's
        // future holds (and copies) stays small.
        let admits = tool.once.is_some() || tool.lock.is_some();
        let (ticket, purpose) = match mode {
            Mode::Invoke if !admits => (
                None,
                Purpose::Run {
                    limit: dispatch.limit(tool),
                },
            ),
            Mode::Invoke => {
                let admission = Box::pin(durable::admit(
                    tool, &value, ambient, storage, redaction, record,
                ));
                match admission.await {
                    Admission::Run(ticket) => (
                        Some(ticket),
                        Purpose::Run {
                            limit: dispatch.limit(tool),
                        },
                    ),
                    Admission::Answer(result) => return Answer::Called(result),
                }
            }
            Mode::Explain => {
                let mut explanation = explanation(tool);
                let report = Box::pin(durable::report(tool, &value, ambient, storage, redaction));
                match report.await {
                    Ok((once, lock)) => (explanation.once, explanation.lock) = (once, lock),
                    Err(e) => return answer(mode, e.answer(tool)),
                }
                (None, Purpose::Explain(explanation))
            }
        };
        let CallOptions {
            cancellation,
            progress,
            ..
        } = call.options;
        // Boxed apart, like the handler's future within it: no future of a call is more than
        // 1 KiB (see `Answer`).
        let admitted = Box::pin(admitted(
            own.op,
            own.learned,
            tool,
            compiled,
            value,
            ambient,
            (cancellation, progress),
            rules,
            purpose,
        ));
        let (answer, by_handler) = match admitted.await {
            Admitted::Answer(answer, by_handler) => (answer, by_handler),
            Admitted::Confirmable(_) => (Answer::Called(unrun(tool)), false),
        };
        if let Some(ticket) = ticket {
            let kept = match &answer {
                Answer::Called(result) if by_handler => Some(result),
                _ => None,
            };
            Box::pin(ticket.finish(kept)).await;
        }
        answer
    }
}

/// What a call of a tool with `ask` or `confirm` asks its user (see `user_input`): the forms
/// whose fields are missing; once none is, the confirmation — after the `ref` records are
/// loaded and every guard passes, so that nobody is asked about a call that would fail. The
/// arguments with the user's answers when there is nothing (more) to ask; else the call's
/// answer: the questions, or why the continuation was refused.
fn asking<'a, O: Operation>(
    own: &'a Own<'a, O>,
    tool: &'a SharedDescriptor,
    compiled: &'a Compiled,
    value: Value,
    ambient: &'a AmbientContext,
    options: &'a CallOptions,
    rules: &'a crate::call::options::Rules,
) -> impl Future<Output = Result<Value, Answer>> + Send + 'a {
    async move {
        let (value, round) = match user_input::resume(tool, compiled, value, options, rules).await {
            Ok(resumed) => resumed,
            Err(result) => return Err(Answer::Called(result)),
        };
        let forms = user_input::missing(tool, &value);
        let requests = if !forms.is_empty() {
            user_input::form_requests(&forms)
        } else if tool.confirm.is_none() || round.confirmed() {
            return Ok(value);
        } else {
            // The stages after admission, checking: nobody is asked about a call that would
            // fail anyway.
            let checked = Box::pin(admitted(
                own.op,
                own.learned,
                tool,
                compiled,
                value.clone(),
                ambient,
                (options.cancellation.clone(), Progress::ignore()),
                rules,
                Purpose::Confirm,
            ));
            let shown = match checked.await {
                Admitted::Confirmable(shown) => shown,
                Admitted::Answer(answer, _) => return Err(answer),
            };
            match user_input::confirmation(tool, compiled, false, &shown) {
                Ok(Some(request)) => vec![request],
                Ok(None) => return Ok(value),
                Err(result) => return Err(Answer::Called(result)),
            }
        };
        let asked = user_input::ask(tool, round, requests, options, rules);
        Err(Answer::Asked(Box::new(asked)))
    }
}

/// A form an explained call would ask for.
fn asked_form(form: &AskForm) -> AskedForm {
    AskedForm {
        form: form.name.to_string(),
        message: form.message.to_string(),
        fields: form.fields.iter().map(ToString::to_string).collect(),
    }
}

/// What the stages after admission are run for.
enum Purpose {
    /// The call: the guards, then the handler, within `limit`.
    Run { limit: Option<std::time::Duration> },
    /// Checking the call before asking its user to confirm it (see [`asking`]).
    Confirm,
    /// The explanation, filled in.
    Explain(Box<Explanation>),
}

impl Purpose {
    /// `result` as the answer: an explanation's error when explaining.
    fn answer(&self, result: ToolResult) -> Answer {
        match self {
            Self::Explain(_) => Answer::Explained(Err(result)),
            Self::Run { .. } | Self::Confirm => Answer::Called(result),
        }
    }
}

/// How the stages after admission ended.
enum Admitted {
    /// The answer, and whether the handler gave it (`once` keeps only a handler's answer).
    Answer(Answer, bool),
    /// Checked before a confirmation: nothing stops the call. The arguments with their `ref`
    /// records loaded, which the confirmation shows.
    Confirmable(Value),
}

/// The stages after admission — `ref` records, decode, the guards and the handler, output —
/// run for `purpose`.
#[allow(clippy::too_many_arguments)]
fn admitted<'a, O: Operation>(
    op: &'a O,
    learned: &'a AtomicBool,
    tool: &'a SharedDescriptor,
    compiled: &'a Compiled,
    mut value: Value,
    ambient: &'a AmbientContext,
    (cancellation, progress): (CancellationToken, Progress),
    rules: &'a crate::call::options::Rules,
    purpose: Purpose,
) -> impl Future<Output = Admitted> + Send + 'a {
    async move {
        let storage = rules.storage.as_deref();
        let loaded = match tool.refs.is_empty() {
            true => Ok(()),
            false => Box::pin(refs::load(tool, &mut value, ambient, storage)).await,
        };
        let purpose = match (loaded, purpose) {
            (Ok(()), purpose) => purpose,
            (Err(Missing::NotFound(_, error)), Purpose::Explain(mut explanation)) => {
                explanation.errors = vec![error];
                return Admitted::Answer(Answer::Explained(Ok(explanation)), false);
            }
            (Err(Missing::NotFound(result, _) | Missing::Failed(result)), purpose) => {
                return Admitted::Answer(purpose.answer(result), false);
            }
        };
        // What a confirmation shows: the arguments over the loaded records.
        let shown = match &purpose {
            Purpose::Confirm => Some(value.clone()),
            Purpose::Explain(_) if tool.confirm.is_some() => Some(value.clone()),
            Purpose::Explain(_) | Purpose::Run { .. } => None,
        };
        let (input, resolved) =
            match decode::<O::Contract>(tool, compiled, value, ambient, &rules.limits) {
                Ok(decoded) => decoded,
                Err(Decoding::Arguments(errors)) => {
                    let answer = match purpose {
                        Purpose::Explain(mut explanation) => {
                            explanation.errors = errors.list;
                            explanation.more_errors = errors.more;
                            Answer::Explained(Ok(explanation))
                        }
                        Purpose::Run { .. } | Purpose::Confirm => {
                            Answer::Called(invalid_arguments(&errors))
                        }
                    };
                    return Admitted::Answer(answer, false);
                }
                Err(Decoding::Internal(result)) => {
                    return Admitted::Answer(purpose.answer(result), false);
                }
            };
        let failing = Failing {
            tool,
            learned,
            storage: rules.storage.as_deref(),
            clock: &rules.clock,
        };
        // A call's guards and handler run within its limit and report its progress; checking
        // and explaining run the guards alone, within the tool's timeout, reporting nothing.
        let (limit, progress, confirming) = match &purpose {
            Purpose::Run { limit } => (*limit, progress, false),
            Purpose::Confirm => (tool.timeout(), Progress::ignore(), true),
            Purpose::Explain(_) => (tool.timeout(), Progress::ignore(), false),
        };
        let mut explanation = match purpose {
            Purpose::Explain(explanation) => Some(explanation),
            Purpose::Run { .. } | Purpose::Confirm => None,
        };
        let guards = match (&mut explanation, confirming) {
            (Some(explanation), _) => Guards::Report(&mut explanation.guards),
            (None, true) => Guards::Check,
            (None, false) => Guards::ThenHandler,
        };
        let handled = Box::pin(handler::run(
            op,
            input,
            &resolved,
            cancellation,
            progress,
            limit,
            failing,
            guards,
        ))
        .await;
        match (handled, explanation) {
            (Handled::Output(output), None) if !confirming => {
                let result = output::succeed(tool, compiled, &output, &rules.limits);
                Admitted::Answer(Answer::Called(result), true)
            }
            (Handled::Failed { result, by_handler }, None) => {
                Admitted::Answer(Answer::Called(*result), by_handler)
            }
            (Handled::Checked, None) if confirming => {
                Admitted::Confirmable(shown.unwrap_or_default())
            }
            (Handled::Failed { result, .. }, Some(_)) => {
                Admitted::Answer(Answer::Explained(Err(*result)), false)
            }
            (Handled::Checked, Some(mut explanation)) => {
                explanation.callable = explanation.guards.iter().all(|g| g.passed == Some(true));
                if let (true, Some(shown)) = (explanation.callable, &shown) {
                    match user_input::confirmation(tool, compiled, false, shown) {
                        Ok(request) => explanation.confirm = request.map(|r| r.message),
                        Err(result) => {
                            return Admitted::Answer(Answer::Explained(Err(result)), false);
                        }
                    }
                }
                Admitted::Answer(Answer::Explained(Ok(explanation)), false)
            }
            (_, Some(_)) => Admitted::Answer(Answer::Explained(Err(unrun(tool))), false),
            (_, None) => Admitted::Answer(Answer::Called(unrun(tool)), false),
        }
    }
}

/// The internal error of a runner that answered other than its policy says (never seen: the
/// handler runs only for a call, and a call always ends with its output or a failure).
fn unrun(tool: &Descriptor) -> ToolResult {
    ToolResult::internal(tool, "the guards' runner answered other than asked".into())
}

/// `result` as the answer of a call in `mode` (an explanation's: its error).
fn answer(mode: Mode, result: ToolResult) -> Answer {
    match mode {
        Mode::Invoke => Answer::Called(result),
        Mode::Explain => Answer::Explained(Err(result)),
    }
}

/// Arguments refused: the call's `invalid_arguments`, or the explanation's errors.
fn refusal(mode: Mode, tool: &Descriptor, errors: Errors) -> Answer {
    match mode {
        Mode::Invoke => Answer::Called(invalid_arguments(&errors)),
        Mode::Explain => {
            let mut explanation = explanation(tool);
            explanation.errors = errors.list;
            explanation.more_errors = errors.more;
            Answer::Explained(Ok(explanation))
        }
    }
}

/// An explanation of a call of `tool` with no error yet and none of its guards checked.
fn explanation(tool: &Descriptor) -> Box<Explanation> {
    Box::new(Explanation {
        tool: tool.name.to_string(),
        callable: false,
        errors: Vec::new(),
        more_errors: 0,
        guards: tool
            .guards
            .iter()
            .map(|g| GuardCheck {
                name: g.name.to_string(),
                description: g.description.to_string(),
                passed: None,
                error: None,
            })
            .collect(),
        once: None,
        lock: None,
        ask: Vec::new(),
        confirm: None,
        result_cap: tool.result_cap.map(Into::into),
    })
}
