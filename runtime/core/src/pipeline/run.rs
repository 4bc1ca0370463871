//! The call pipeline's stages, in order: [`call`] runs the stages every tool has in common
//! around the tool's own, [`tool_stages`] runs a tool's own. A stage is a function in a file of
//! its own (beside this one); adding one is that file and one line here.
//!
//! In [`Mode::Explain`] the same stages run up to the handler without taking anything: the
//! admission stage looks at `once` and `lock` instead of claiming them, the guards run one by
//! one instead of guarding the handler, and every refusal becomes the explanation's errors.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde_json::Value;
use tracing::Instrument;
use uuid::Uuid;

use crate::ambient::AmbientContext;
use crate::call::options::CallOptions;
use crate::call::{Answer, Call, Dispatch, Mode};
use crate::checks::report::Errors;
use crate::checks::report::invalid_arguments;
use crate::contract::Operation;
use crate::descriptor::{AskForm, Descriptor};
use crate::durable::{self, Admission};
use crate::explain::explanation::{AskedForm, Explanation, GuardCheck};
use crate::failure::{ToolError, ToolResult};
use crate::hooks::CallInfo;
use crate::pipeline::compiled::Compiled;
use crate::pipeline::decode::{Decoding, decode};
use crate::pipeline::handler::{self, Failing, Handled};
use crate::pipeline::refs::{self, Missing};
use crate::pipeline::screen::Refused;
use crate::pipeline::task::{self, Decision};
use crate::pipeline::task_status_tool;
use crate::pipeline::{
    audit, availability, explain_tool, hooks, output, rate, scopes, screen, user_input,
};
use crate::registry::{Imp, RegisteredTool};
use crate::task::Submitted;

/// A call of `tool` through its registry, or — with `unrun` — a call answered without any of
/// it running (its caller's refusal of it, a task given up), recorded like a call:
///
/// 1. scopes: a tool the caller may not call is an unknown tool; rate: a caller over the
///    tool's budget is refused (`rate_limited`) — a refusal runs nothing and is recorded with
///    the others of its caller refused alike within the second;
/// 2. audit: the record started (a `required` tool's committed before anything runs);
/// 3. hooks before (any may refuse), under the call's `tool.call` span;
/// 4. the tool's own stages ([`tool_stages`], or the explain tool's);
/// 5. hooks after, and the call's log line;
/// 6. audit: the record finished with the outcome.
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
) -> impl Future<Output = Submitted> + Send + 'a {
    async move {
        // Held until the call ends: its place among the caller's calls in flight.
        let permit = match &unrun {
            Some(_) => None,
            None => match admit(tool, &options, dispatch).await {
                Ok(permit) => permit,
                Err(refused) => {
                    if audit::records(tool) {
                        audit::refused(tool, &args, ambient, &options, &refused).await;
                    }
                    return Submitted::Done(refused);
                }
            },
        };
        // One future for recorded calls and the others (no box, no second copy of the stages'
        // future): the record's start and finish are awaited apart from the stages, so they
        // share its room.
        let recording = match audit::records(tool) {
            false => None,
            true => match audit::start(tool, &args, ambient, &options, unrun.is_none()).await {
                Ok(recording) => Some(recording),
                Err(result) => return Submitted::Done(result),
            },
        };
        let adapter = recording.as_ref().and_then(|_| options.adapter.clone());
        let submitted = match unrun {
            Some(result) => Submitted::Done(result),
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
                let submitted = spanned(tool, args, ambient, options, traced, dispatch).await;
                drop(permit);
                match (dispatch, submitted) {
                    (Dispatch::Worker { .. }, Submitted::Done(result)) => {
                        let bound = tool.registry().project().tasks.max_result_bytes;
                        Submitted::Done(task::kept(tool.descriptor(), result, bound))
                    }
                    (_, submitted) => submitted,
                }
            }
        };
        // A call stored as a task is recorded with the task as its result; the task's run has a
        // record of its own.
        if let Some(recording) = recording {
            let ticket;
            let result = match &submitted {
                Submitted::Done(result) => result,
                Submitted::Task(task) => {
                    ticket = task.ticket();
                    &ticket
                }
                Submitted::Input(input) => {
                    ticket = input.to_result();
                    &ticket
                }
            };
            recording.finish(tool, adapter.as_deref(), result).await;
        }
        submitted
    }
}

/// Stage 1 of [`call`]: whether the caller may call the tool (scopes), and may now (rate):
/// the permit it holds until the call ends, or the refusal.
async fn admit(
    tool: RegisteredTool<'_>,
    options: &CallOptions,
    dispatch: Dispatch,
) -> Result<Option<crate::rate::Permit>, ToolResult> {
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

/// Stages 3 to 5 of [`call`].
fn spanned<'a>(
    tool: RegisteredTool<'a>,
    args: Value,
    ambient: &'a AmbientContext,
    options: CallOptions,
    traced: Traced<'a>,
    dispatch: Dispatch,
) -> impl Future<Output = Submitted> + Send + 'a {
    async move {
        let Traced { trace_id, record } = traced;
        let descriptor = tool.descriptor();
        let span = tracing::info_span!(
            "tool.call",
            tool = &*descriptor.name,
            adapter = options.adapter.as_deref(),
            caller = options.caller.as_deref(),
            trace_id
        );
        let started = Instant::now();
        let (adapter, caller) = (options.adapter.clone(), options.caller.clone());
        let hooks = tool.registry().hooks();
        let info = CallInfo {
            tool: descriptor,
            adapter: adapter.as_deref(),
            caller: caller.as_deref(),
            arguments: &args,
        };
        if let Err(result) = hooks::before(hooks, &info) {
            span.in_scope(|| hooks::after(hooks, &info, &result, started));
            return Submitted::Done(result);
        }
        // Hooks see the arguments as sent; copy them only when someone will look.
        let sent = if hooks.is_empty() {
            Value::Null
        } else {
            args.clone()
        };
        let submitted = own_stages(tool, args, ambient, options, dispatch, record)
            .instrument(span.clone())
            .await
            .into_submitted(descriptor);
        let info = CallInfo {
            tool: descriptor,
            adapter: adapter.as_deref(),
            caller: caller.as_deref(),
            arguments: &sent,
        };
        match &submitted {
            Submitted::Done(result) => {
                span.in_scope(|| hooks::after(hooks, &info, result, started));
            }
            Submitted::Task(task) => {
                let ticket = task.ticket();
                span.in_scope(|| hooks::after(hooks, &info, &ticket, started));
            }
            Submitted::Input(input) => {
                let asked = input.to_result();
                span.in_scope(|| hooks::after(hooks, &info, &asked, started));
            }
        }
        submitted
    }
}

/// Stage 4 of [`call`]: the tool's own stages, invoked (`record`: the call's audit record).
fn own_stages<'a>(
    tool: RegisteredTool<'a>,
    args: Value,
    ambient: &'a AmbientContext,
    options: CallOptions,
    dispatch: Dispatch,
    record: Option<Uuid>,
) -> impl Future<Output = Answer> + Send + 'a {
    async move {
        let registry = tool.registry();
        let call = Call {
            tool: tool.descriptor(),
            ambient,
            options,
            rules: registry.rules(),
            mode: Mode::Invoke,
            dispatch,
            record,
        };
        match tool.imp() {
            Imp::Tool(stages) => stages.run(call, args).await,
            // Boxed like a tool's own stages, so that its future does not weigh on every call's.
            Imp::Explain => Box::pin(explain_tool::run(registry, call, args)).await,
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

/// A tool's own stages of `call`:
///
/// 1. screening, coercion and validation (`screen`);
/// 2. refused at once while the database it needs is known to be down (`availability`);
/// 3. admission: `once` claimed, `lock` taken — or, explaining, looked at (`durable`);
/// 4. `ref` records loaded (`refs`);
/// 5. the typed input decoded, the ambient fields resolved (`decode`);
/// 6. the guards, then the handler, under timeout and cancellation — or, explaining, each
///    guard on its own (`handler`);
/// 7. the output checked and the message rendered (`output`);
/// 8. admission released: `once` keeps the handler's answer, the lock is let go.
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
        let (ticket, explanation) = match mode {
            Mode::Invoke if !admits => (None, None),
            Mode::Invoke => {
                let admission = Box::pin(durable::admit(
                    tool, &value, ambient, storage, redaction, record,
                ));
                match admission.await {
                    Admission::Run(ticket) => (Some(ticket), None),
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
                (None, Some(explanation))
            }
        };
        let limit = dispatch.limit(tool);
        // Boxed apart, like the handler's future within it: no future of a call is more than
        // 1 KiB (see `Answer`).
        let (answer, by_handler) = Box::pin(admitted(
            own,
            tool,
            compiled,
            value,
            ambient,
            call.options,
            rules,
            explanation,
            limit,
        ))
        .await;
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
    tool: &'static Descriptor,
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
            let mut shown = value.clone();
            let storage = rules.storage.as_deref();
            if !tool.refs.is_empty()
                && let Err(Missing::NotFound(result, _) | Missing::Failed(result)) =
                    refs::load(tool, &mut shown, ambient, storage).await
            {
                return Err(Answer::Called(result));
            }
            let decoded =
                decode::<O::Contract>(tool, compiled, shown.clone(), ambient, &rules.limits);
            let (input, resolved) = match decoded {
                Ok(decoded) => decoded,
                Err(Decoding::Arguments(errors)) => {
                    return Err(Answer::Called(invalid_arguments(&errors)));
                }
                Err(Decoding::Internal(result)) => return Err(Answer::Called(result)),
            };
            let failing = Failing {
                tool,
                learned: own.learned,
                storage,
                clock: &rules.clock,
            };
            let checked = handler::check_guards(own.op, &input, &resolved, options, &failing);
            if let Err(result) = checked.await {
                return Err(Answer::Called(result));
            }
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

/// Stages 4 to 7 of [`tool_stages`], once admitted; with whether the handler gave the answer.
#[allow(clippy::too_many_arguments)]
fn admitted<'a, O: Operation>(
    own: Own<'a, O>,
    tool: &'static Descriptor,
    compiled: &'a Compiled,
    mut value: Value,
    ambient: &'a AmbientContext,
    options: CallOptions,
    rules: &'a crate::call::options::Rules,
    explanation: Option<Box<Explanation>>,
    limit: Option<std::time::Duration>,
) -> impl Future<Output = (Answer, bool)> + Send + 'a {
    async move {
        let storage = rules.storage.as_deref();
        let loaded = match tool.refs.is_empty() {
            true => Ok(()),
            false => Box::pin(refs::load(tool, &mut value, ambient, storage)).await,
        };
        match loaded {
            Ok(()) => {}
            Err(Missing::NotFound(result, error)) => {
                let answer = match explanation {
                    Some(mut explanation) => {
                        explanation.errors = vec![error];
                        Answer::Explained(Ok(explanation))
                    }
                    None => Answer::Called(result),
                };
                return (answer, false);
            }
            Err(Missing::Failed(result)) => {
                return (answer_or_explained(explanation, result), false);
            }
        }
        // Explaining a call that asks for confirmation: the message, over the loaded records.
        let shown = (explanation.is_some() && tool.confirm.is_some()).then(|| value.clone());
        let decoded = decode::<O::Contract>(tool, compiled, value, ambient, &rules.limits);
        let (input, resolved) = match decoded {
            Ok(decoded) => decoded,
            Err(Decoding::Arguments(errors)) => {
                let answer = match explanation {
                    Some(mut explanation) => {
                        explanation.errors = errors.list;
                        explanation.more_errors = errors.more;
                        Answer::Explained(Ok(explanation))
                    }
                    None => Answer::Called(invalid_arguments(&errors)),
                };
                return (answer, false);
            }
            Err(Decoding::Internal(result)) => {
                return (answer_or_explained(explanation, result), false);
            }
        };
        if let Some(mut explanation) = explanation {
            let checks = &mut explanation.guards;
            let guards = handler::explain_guards(
                own.op,
                &input,
                &resolved,
                &options,
                tool,
                &rules.clock,
                checks,
            );
            return match Box::pin(guards).await {
                Ok(()) => {
                    explanation.callable =
                        explanation.guards.iter().all(|g| g.passed == Some(true));
                    if let (true, Some(shown)) = (explanation.callable, &shown) {
                        match user_input::confirmation(tool, compiled, false, shown) {
                            Ok(request) => explanation.confirm = request.map(|r| r.message),
                            Err(result) => return (Answer::Explained(Err(result)), false),
                        }
                    }
                    (Answer::Explained(Ok(explanation)), false)
                }
                Err(result) => (Answer::Explained(Err(result)), false),
            };
        }
        let failing = Failing {
            tool,
            learned: own.learned,
            storage,
            clock: &rules.clock,
        };
        let handled = Box::pin(handler::run(
            own.op, input, &resolved, options, limit, failing,
        ));
        match handled.await {
            Handled::Output(output) => {
                let result = output::succeed(tool, compiled, &output, &rules.limits);
                (Answer::Called(result), true)
            }
            Handled::Failed { result, by_handler } => (Answer::Called(*result), by_handler),
        }
    }
}

/// `result` as the answer of a call in `mode` (an explanation's: its error).
fn answer(mode: Mode, result: ToolResult) -> Answer {
    match mode {
        Mode::Invoke => Answer::Called(result),
        Mode::Explain => Answer::Explained(Err(result)),
    }
}

/// `result` as the answer: an explanation's error when there is one.
fn answer_or_explained(explanation: Option<Box<Explanation>>, result: ToolResult) -> Answer {
    match explanation {
        Some(_) => Answer::Explained(Err(result)),
        None => Answer::Called(result),
    }
}

/// Arguments refused: the call's `invalid_arguments`, or the explanation's errors.
fn refusal(mode: Mode, tool: &'static Descriptor, errors: Errors) -> Answer {
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
