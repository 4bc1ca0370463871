//! Stage: the guards in spec order, then the handler with what they loaded — under the tool's
//! timeout and the call's cancellation, panics caught — or, to explain a call, every guard on
//! its own (the handler never runs). A failure whose cause is a database that could not be
//! reached answers `unavailable`, marks the tool as needing the database (see
//! `availability`) and has the registry's database probed.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::FutureExt;

use tokio_util::sync::CancellationToken;

use crate::model::context::{Context, Progress};
use crate::model::contract::{Contract, DeclaredError as _, Operation, Outcome};
use crate::model::descriptor::SharedDescriptor;
use crate::model::explain::explanation::GuardCheck;
use crate::model::failure::{Failure, RETRY_UNAVAILABLE, ToolResult, error_chain};
use crate::model::guard::{GuardStop, StopReason, panic_message};
use crate::pipeline::answers::{declared, stopped};
use crate::pipeline::supervise::{Stop, supervise};
use crate::storage::{Storage, unreachable_in};

/// What the guards are run for: one runner, three policies.
pub(crate) enum Guards<'c> {
    /// A call: in spec order, the first guard that stops the call answers it; when every one
    /// passes, the handler runs with what they loaded.
    ThenHandler,
    /// A call about to ask its user to confirm it: in spec order, the first guard that stops the
    /// call answers it (nobody is asked about a call that would fail); what they load is
    /// dropped, and they run again once the call is confirmed.
    Check,
    /// An explanation: each guard on its own, its verdict written into its check (one per
    /// guard, in spec order); guards still running when the timeout passes are neither passed
    /// nor failed.
    Report(&'c mut [GuardCheck]),
}

/// How the guards and the handler ended.
pub(crate) enum Handled<T> {
    /// The handler's output, to be checked.
    Output(T),
    /// The guards ran and none stopped the call ([`Guards::Check`]), or each was reported
    /// ([`Guards::Report`]).
    Checked,
    /// A failure: the call's answer (boxed: the output is the common case), and whether the
    /// handler gave it (`once` keeps only a handler's answer).
    Failed {
        result: Box<ToolResult>,
        by_handler: bool,
    },
}

impl<T> Handled<T> {
    fn failed(result: ToolResult, by_handler: bool) -> Self {
        Self::Failed {
            result: Box::new(result),
            by_handler,
        }
    }
}

/// What a failed guard or handler needs to be answered: the tool, whether it is known to
/// need the database, and the database to probe.
pub(crate) struct Failing<'a> {
    pub(crate) tool: &'a SharedDescriptor,
    pub(crate) learned: &'a AtomicBool,
    pub(crate) storage: Option<&'a dyn Storage>,
    /// The registry's clock, which the guards and the handler read.
    pub(crate) clock: &'a crate::model::clock::Clock,
}

impl Failing<'_> {
    /// What tells the storage's driver errors apart.
    fn availability(&self) -> Option<&dyn crate::storage::Availability> {
        self.storage.map(|s| s as &dyn crate::storage::Availability)
    }
}

/// Runs `op`'s guards for `input` and the resolved `ambient` fields as `guards` says — and,
/// for a call, then its handler — under `limit` and `options`' cancellation (a call's own
/// progress reporter; the others report none), panics caught.
///
/// An `async` block rather than an `async fn`, whose arguments would be stored twice in the
/// (boxed) future of the call.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run<'a, O: Operation>(
    op: &'a O,
    input: <O::Contract as Contract>::Input,
    ambient: &'a <O::Contract as Contract>::Ambient,
    cancellation: CancellationToken,
    progress: Progress,
    limit: Option<std::time::Duration>,
    failing: Failing<'a>,
    guards: Guards<'a>,
) -> impl Future<Output = Handled<<O::Contract as Contract>::Output>> + Send + 'a {
    async move {
        let tool = failing.tool;
        // The guards and the handler see the call's token; a call with a time limit gives them
        // a token of its own, cancelled with the call or when the limit passes.
        let own = limit.map(|_| cancellation.child_token());
        let token = own.clone().unwrap_or_else(|| cancellation.clone());
        let cx = Context::new(ambient, tool, token, progress).with_clock(failing.clock.clone());
        let (outcome, verdicts) = match guards {
            Guards::ThenHandler => {
                let run = std::pin::pin!(guarded(op, input, cx));
                (
                    supervise(limit, &cancellation, own.as_ref(), run).await,
                    None,
                )
            }
            Guards::Check => {
                let each = std::pin::pin!(each_guard(op, &input, &cx, &failing, None));
                (
                    supervise(limit, &cancellation, own.as_ref(), each).await,
                    None,
                )
            }
            Guards::Report(checks) => {
                let each = std::pin::pin!(each_guard(op, &input, &cx, &failing, Some(checks)));
                let reported = supervise(limit, &cancellation, own.as_ref(), each).await;
                (reported, Some(()))
            }
        };
        let outcome = match outcome {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(Halt::Guard(stop))) => {
                return Handled::failed(guard_stopped(stop, &failing), false);
            }
            Ok(Err(Halt::Panicked(message))) => {
                let result = ToolResult::internal(tool, format!("the handler panicked: {message}"));
                return Handled::failed(result, false);
            }
            // Guards still running when an explanation's time is up are neither passed nor
            // failed.
            Err(Stop::TimedOut(_)) if verdicts.is_some() => return Handled::Checked,
            Err(stop) => return Handled::failed(stop.result(tool), false),
        };
        let result = match outcome {
            Ran::Checked => return Handled::Checked,
            Ran::Handled(Ok(output)) => return Handled::Output(output),
            Ran::Handled(Err(Failure::Declared { error, details })) => {
                declared(tool, error.code(), &error.to_string(), details)
            }
            // The developer sees the whole chain of causes, as anyhow's `{:#}` shows it.
            Ran::Handled(Err(Failure::Internal(e)))
                if unreachable_in(&*e, failing.availability()) =>
            {
                unreachable(error_chain(&*e), &failing)
            }
            Ran::Handled(Err(Failure::Internal(e))) => ToolResult::internal(tool, error_chain(&*e)),
        };
        Handled::failed(result, true)
    }
}

/// How far the guards (and the handler) went.
enum Ran<C: Contract> {
    /// The guards were checked, the handler not run.
    Checked,
    /// The handler's outcome.
    Handled(Outcome<C>),
}

/// Each of `op`'s guards on its own, in spec order, panics caught: with `checks`, each
/// guard's verdict written into its check and every guard run; without, the first that stops
/// the call ends the run.
async fn each_guard<O: Operation>(
    op: &O,
    input: &<O::Contract as Contract>::Input,
    cx: &Context<'_, <O::Contract as Contract>::Ambient>,
    failing: &Failing<'_>,
    mut checks: Option<&mut [GuardCheck]>,
) -> Result<Ran<O::Contract>, Halt> {
    let tool = failing.tool;
    for (index, &which) in <O::Contract as Contract>::GUARDS.iter().enumerate() {
        // A panic escaping a hand-written `Operation::guard` is the guard's too.
        let stop = match AssertUnwindSafe(op.guard(which, input, cx))
            .catch_unwind()
            .await
        {
            Ok(Ok(())) => None,
            Ok(Err(stop)) => Some(stop),
            Err(panic) => Some(GuardStop {
                guard: index,
                reason: StopReason::Panicked(panic_message(panic)),
            }),
        };
        let Some(checks) = checks.as_deref_mut() else {
            match stop {
                None => continue,
                Some(stop) => return Err(Halt::Guard(stop)),
            }
        };
        let Some(check) = checks.get_mut(index) else {
            continue;
        };
        (check.passed, check.error) = match stop {
            None => (Some(true), None),
            Some(stop) => {
                // A guard that failed to decide (an error, a panic) neither passed nor failed.
                let unmet = matches!(stop.reason, StopReason::Unmet | StopReason::Declared { .. });
                (
                    Some(false).filter(|_| unmet),
                    stopped(tool, stop).outcome.err(),
                )
            }
        };
    }
    Ok(Ran::Checked)
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
) -> impl Future<Output = Result<Ran<O::Contract>, Halt>> + 'a {
    async move {
        match AssertUnwindSafe(op.run(input, cx)).catch_unwind().await {
            Ok(Ok(outcome)) => Ok(Ran::Handled(outcome)),
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
