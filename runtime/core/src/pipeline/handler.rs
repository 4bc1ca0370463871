//! Stage: the guards in spec order, then the handler with what they loaded — under the tool's
//! timeout and the call's cancellation, panics caught — or, to explain a call, every guard on
//! its own (the handler never runs). A failure whose cause is a database that could not be
//! reached answers `unavailable`, marks the tool as needing the database (see
//! `availability`) and has the registry's database probed.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::FutureExt;

use crate::call::options::CallOptions;
use crate::context::{Context, Progress};
use crate::contract::{Contract, DeclaredError as _, Operation, Outcome};
use crate::descriptor::Descriptor;
use crate::explain::explanation::GuardCheck;
use crate::failure::{Failure, RETRY_UNAVAILABLE, ToolResult, error_chain};
use crate::guard::{GuardStop, StopReason, panic_message};
use crate::pipeline::answers::{declared, stopped};
use crate::pipeline::supervise::{Stop, supervise};
use crate::storage::{Storage, unreachable_in};

/// How the guards and the handler ended.
pub(crate) enum Handled<T> {
    /// The handler's output, to be checked.
    Output(T),
    /// A failure: the call's answer (boxed: the output is the common case), and whether the
    /// handler gave it (`once` keeps only a handler's answer).
    Failed {
        result: Box<ToolResult>,
        by_handler: bool,
    },
}

/// What a failed guard or handler needs to be answered: the tool, whether it is known to
/// need the database, and the database to probe.
pub(crate) struct Failing<'a> {
    pub(crate) tool: &'static Descriptor,
    pub(crate) learned: &'a AtomicBool,
    pub(crate) storage: Option<&'a dyn Storage>,
    /// The registry's clock, which the guards and the handler read.
    pub(crate) clock: &'a crate::clock::Clock,
}

impl Failing<'_> {
    /// What tells the storage's driver errors apart.
    fn availability(&self) -> Option<&dyn crate::storage::Availability> {
        self.storage.map(|s| s as &dyn crate::storage::Availability)
    }
}

/// Runs `op`'s guards, then its handler, for `input` and the resolved `ambient` fields.
///
/// An `async` block rather than an `async fn`, whose arguments would be stored twice in the
/// (boxed) future of the call.
pub(crate) fn run<'a, O: Operation>(
    op: &'a O,
    input: <O::Contract as Contract>::Input,
    ambient: &'a <O::Contract as Contract>::Ambient,
    options: CallOptions,
    limit: Option<std::time::Duration>,
    failing: Failing<'a>,
) -> impl Future<Output = Handled<<O::Contract as Contract>::Output>> + Send + 'a {
    async move {
        let tool = failing.tool;
        let CallOptions {
            cancellation,
            progress,
            ..
        } = options;
        // The guards and the handler see the call's token; a call with a time limit gives them
        // a token of its own, cancelled with the call or when the limit passes.
        let own = limit.map(|_| cancellation.child_token());
        let token = own.clone().unwrap_or_else(|| cancellation.clone());
        let cx = Context::new(ambient, tool, token, progress).with_clock(failing.clock.clone());
        let run = std::pin::pin!(guarded(op, input, cx));
        let outcome = match supervise(limit, &cancellation, own.as_ref(), run).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(Halt::Guard(stop))) => {
                let result = guard_stopped(stop, &failing);
                return Handled::Failed {
                    result: Box::new(result),
                    by_handler: false,
                };
            }
            Ok(Err(Halt::Panicked(message))) => {
                let result = ToolResult::internal(tool, format!("the handler panicked: {message}"));
                return Handled::Failed {
                    result: Box::new(result),
                    by_handler: false,
                };
            }
            Err(stop) => {
                return Handled::Failed {
                    result: Box::new(stop.result(tool)),
                    by_handler: false,
                };
            }
        };
        let result = match outcome {
            Ok(output) => return Handled::Output(output),
            Err(Failure::Declared { error, details }) => {
                declared(tool, error.code(), &error.to_string(), details)
            }
            // The developer sees the whole chain of causes, as anyhow's `{:#}` shows it.
            Err(Failure::Internal(e)) if unreachable_in(&*e, failing.availability()) => {
                unreachable(error_chain(&*e), &failing)
            }
            Err(Failure::Internal(e)) => ToolResult::internal(tool, error_chain(&*e)),
        };
        Handled::Failed {
            result: Box::new(result),
            by_handler: true,
        }
    }
}

/// Runs each of `op`'s guards on its own for an explanation, filling in `checks` (one per
/// guard, in spec order); an error when the call was cancelled.
pub(crate) async fn explain_guards<O: Operation>(
    op: &O,
    input: &<O::Contract as Contract>::Input,
    ambient: &<O::Contract as Contract>::Ambient,
    options: &CallOptions,
    tool: &'static Descriptor,
    clock: &crate::clock::Clock,
    checks: &mut [GuardCheck],
) -> Result<(), ToolResult> {
    let own = tool.timeout().map(|_| options.cancellation.child_token());
    let token = own.clone().unwrap_or_else(|| options.cancellation.clone());
    let cx = Context::new(ambient, tool, token, Progress::ignore()).with_clock(clock.clone());
    let checked = {
        let all = std::pin::pin!(async {
            let which = <O::Contract as Contract>::GUARDS;
            for (index, (&which, check)) in which.iter().zip(checks.iter_mut()).enumerate() {
                // A panic escaping a hand-written `Operation::guard` is the guard's too.
                let guard = AssertUnwindSafe(op.guard(which, input, &cx));
                let (passed, error) = match guard.catch_unwind().await {
                    Ok(Ok(())) => (Some(true), None),
                    Ok(Err(stop)) => {
                        let unmet =
                            matches!(stop.reason, StopReason::Unmet | StopReason::Declared { .. });
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
        supervise(tool.timeout(), &options.cancellation, own.as_ref(), all).await
    };
    match checked {
        Ok(()) | Err(Stop::TimedOut(_)) => Ok(()),
        Err(stop @ Stop::Cancelled) => Err(stop.result(tool)),
    }
}

/// Runs `op`'s guards in spec order, under the tool's timeout and the call's cancellation, for
/// a call that asks its user to confirm it: the first guard that stops the call gives its
/// answer (so that nobody is asked about a call that would fail anyway). What the guards load
/// is dropped; they run again, under admission, once the call is confirmed.
pub(crate) async fn check_guards<O: Operation>(
    op: &O,
    input: &<O::Contract as Contract>::Input,
    ambient: &<O::Contract as Contract>::Ambient,
    options: &CallOptions,
    failing: &Failing<'_>,
) -> Result<(), ToolResult> {
    let tool = failing.tool;
    let own = tool.timeout().map(|_| options.cancellation.child_token());
    let token = own.clone().unwrap_or_else(|| options.cancellation.clone());
    let cx =
        Context::new(ambient, tool, token, Progress::ignore()).with_clock(failing.clock.clone());
    let all = std::pin::pin!(async {
        let which = <O::Contract as Contract>::GUARDS;
        for (index, &which) in which.iter().enumerate() {
            let stop = match AssertUnwindSafe(op.guard(which, input, &cx))
                .catch_unwind()
                .await
            {
                Ok(Ok(())) => continue,
                Ok(Err(stop)) => stop,
                Err(panic) => GuardStop {
                    guard: index,
                    reason: StopReason::Panicked(panic_message(panic)),
                },
            };
            return Err(guard_stopped(stop, failing));
        }
        Ok(())
    });
    match supervise(tool.timeout(), &options.cancellation, own.as_ref(), all).await {
        Ok(checked) => checked,
        Err(stop) => Err(stop.result(tool)),
    }
}

/// Why the guards and the handler stopped short of an outcome.
enum Halt {
    /// A guard stopped the call.
    Guard(GuardStop),
    /// The handler (or a hand-written `Operation`) panicked, with this message.
    Panicked(String),
}

/// The guards in spec order, then the handler; panics caught.
///
/// An `async` block rather than an `async fn`, whose arguments would be stored twice in the
/// future (the pipeline's future is boxed: its size is an allocation per call).
#[allow(clippy::manual_async_fn)]
fn guarded<'a, O: Operation>(
    op: &'a O,
    input: <O::Contract as Contract>::Input,
    cx: Context<'a, <O::Contract as Contract>::Ambient>,
) -> impl Future<Output = Result<Outcome<O::Contract>, Halt>> + 'a {
    async move {
        match AssertUnwindSafe(op.run(input, cx)).catch_unwind().await {
            Ok(Ok(outcome)) => Ok(outcome),
            Ok(Err(stop)) => Err(Halt::Guard(stop)),
            Err(panic) => Err(Halt::Panicked(panic_message(panic))),
        }
    }
}

/// What the call answers when a guard stopped it (see [`stopped`]), or `unavailable` when the
/// guard failed for want of a database.
fn guard_stopped(stop: GuardStop, failing: &Failing<'_>) -> ToolResult {
    let tool = failing.tool;
    if let StopReason::Internal(e) = &stop.reason
        && unreachable_in(&**e, failing.availability())
    {
        let guard = tool.guards.get(stop.guard).map_or("?", |g| &g.name);
        let exception = format!("guard `{guard}` failed: {}", error_chain(&**e));
        return unreachable(exception, failing);
    }
    stopped(tool, stop)
}

/// What a call answers when its handler or a guard failed because a database could not be
/// reached (`exception` says how): `unavailable`. The tool is then known to need the
/// database, and the registry's is probed.
fn unreachable(exception: String, failing: &Failing<'_>) -> ToolResult {
    failing.learned.store(true, Ordering::Relaxed);
    if let Some(storage) = failing.storage {
        storage.suspect(&exception);
    }
    ToolResult::unavailable(failing.tool, "the database", RETRY_UNAVAILABLE, exception)
}
