//! How many tool calls one run of the agent makes: at most so many of one model reply (a turn)
//! and so many in all. A call past either limit is not run: the model gets, as its result, a
//! `tool_call_limit` error in the one error shape saying which limit and what to do instead;
//! the run's record of tool calls ([`tool_calls`](crate::agent::tool_calls)) shows it, and the
//! registry's audit trail records it as the caller's call of that tool, refused
//! ([`RunLimits`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use toolspec::{CallOptions, Caller, Registry, ToolError};

use rig_agent::agent::{
    AgentHook, DispatchAction, DispatchEvent, HookContext, OutcomeAction, OutcomeEvent, RunStart,
    RunStartAction,
};
use serde_json::{Value, json};
use toolspec::rig::rig_core::effect::{EffectId, EffectKind, Outcome};
use toolspec::rig::rig_core::tool::{ToolOutput, ToolResult};

/// The error code of a tool call refused past a limit.
pub const CODE: &str = "tool_call_limit";

/// The most tool calls of one model reply that run, by default.
pub const DEFAULT_MAX_TOOL_CALLS_PER_TURN: usize = 16;

/// The most tool calls one run makes, every reply together, by default.
pub const DEFAULT_MAX_TOOL_CALLS: usize = 64;

/// How many tool calls a run makes: an [`AgentHook`] refusing the ones past its limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolCallLimits {
    /// The most calls of one model reply that run (the first ones, in the reply's order).
    pub per_turn: usize,
    /// The most calls that run in all, every reply of the run together.
    pub per_run: usize,
}

impl ToolCallLimits {
    /// [`DEFAULT_MAX_TOOL_CALLS_PER_TURN`] and [`DEFAULT_MAX_TOOL_CALLS`].
    pub const DEFAULT: Self = Self {
        per_turn: DEFAULT_MAX_TOOL_CALLS_PER_TURN,
        per_run: DEFAULT_MAX_TOOL_CALLS,
    };

    /// Whether call `position` (from 1) of a reply runs when `ran` calls of the run already
    /// did; else why not, for the model.
    fn admit(&self, position: usize, ran: usize) -> Result<(), String> {
        if position > self.per_turn {
            return Err(format!(
                "Not run: at most {} tool calls of one reply run, and this is call {position} of \
                 this reply. Call the tools you still need in your next reply.",
                self.per_turn
            ));
        }
        if ran >= self.per_run {
            return Err(format!(
                "Not run: {} tool calls have already run for this message, the most allowed. \
                 Answer with what they returned.",
                self.per_run
            ));
        }
        Ok(())
    }
}

impl Default for ToolCallLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// [`ToolCallLimits`] for the runs of one caller's agent: an [`AgentHook`] refusing the calls
/// past the limits, each refusal recorded in `registry`'s audit trail as `caller`'s call of the
/// tool through the `rig` adapter.
pub struct RunLimits {
    limits: ToolCallLimits,
    registry: Arc<Registry>,
    caller: Arc<Caller>,
}

impl ToolCallLimits {
    /// These limits for the runs of `caller`'s agent over `registry`'s tools.
    pub fn for_runs(self, registry: &Arc<Registry>, caller: &Arc<Caller>) -> RunLimits {
        RunLimits {
            limits: self,
            registry: Arc::clone(registry),
            caller: Arc::clone(caller),
        }
    }
}

impl RunLimits {
    /// Records the refusal of the call of rig tool `name` with `args` (the model's raw JSON).
    async fn record(&self, name: &str, args: &str, message: &str) {
        let Some(tool) = self.registry.find(toolspec::rig::ADAPTER, name) else {
            return;
        };
        let args = serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.to_owned()));
        let error = ToolError {
            code: CODE.to_owned(),
            message: message.to_owned(),
            details: None,
        };
        let options = CallOptions::for_caller(toolspec::rig::ADAPTER, &self.caller);
        tool.refuse_with(args, &self.caller.ambient, options, error)
            .await;
    }
}

/// What a run has called so far, in its scratchpad: one count per run, so an agent that
/// answers many messages counts each on its own.
#[derive(Clone, Default)]
struct RunCounts(Arc<Mutex<Counts>>);

#[derive(Default)]
struct Counts {
    /// The turn of the last call seen, and how many calls of it were seen.
    turn: usize,
    in_turn: usize,
    /// How many calls of the run ran.
    ran: usize,
    /// The refusal of each refused call, until its outcome is replaced.
    refused: HashMap<EffectId, Value>,
}

impl RunCounts {
    /// The run's counts (made on first use when the run started without them).
    fn of(cx: &HookContext) -> Self {
        if let Some(counts) = cx.scratchpad().get::<Self>() {
            return counts;
        }
        let counts = Self::default();
        cx.scratchpad().insert(counts.clone());
        counts
    }

    fn lock(&self) -> MutexGuard<'_, Counts> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl AgentHook for RunLimits {
    async fn on_run_start(&self, cx: &HookContext, _event: RunStart<'_>) -> RunStartAction {
        cx.scratchpad().insert(RunCounts::default());
        RunStartAction::Continue
    }

    async fn on_dispatch(&self, cx: &HookContext, event: DispatchEvent<'_>) -> DispatchAction {
        let EffectKind::ToolCall { name, args } = event.kind else {
            return DispatchAction::proceed();
        };
        let admitted = {
            let counts = RunCounts::of(cx);
            let mut counts = counts.lock();
            if counts.turn != event.turn {
                counts.turn = event.turn;
                counts.in_turn = 0;
            }
            counts.in_turn += 1;
            let admitted = self.limits.admit(counts.in_turn, counts.ran);
            match &admitted {
                Ok(()) => counts.ran += 1,
                Err(message) => {
                    let refusal = json!({"error": CODE, "message": message});
                    counts.refused.insert(event.id, refusal);
                }
            }
            admitted
        };
        match admitted {
            Ok(()) => DispatchAction::proceed(),
            Err(message) => {
                tracing::debug!(tool = %name, turn = event.turn, "{message}");
                self.record(name, args, &message).await;
                let refusal = json!({"error": CODE, "message": message});
                DispatchAction::skip(refusal.to_string())
            }
        }
    }

    /// A refused call's result is its refusal as JSON, for the model and the record alike.
    async fn on_outcome(&self, cx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        let refusal = RunCounts::of(cx).lock().refused.remove(&event.id);
        match refusal {
            Some(refusal) => {
                let result = ToolResult::skipped(CODE).with_output(ToolOutput::json(refusal));
                OutcomeAction::replace(Ok(Outcome::ToolResult { result }))
            }
            None => OutcomeAction::proceed(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_calls_of_a_reply_run_until_the_run_has_made_its_share() {
        let limits = ToolCallLimits {
            per_turn: 3,
            per_run: 5,
        };
        assert_eq!(limits.admit(1, 0), Ok(()));
        assert_eq!(limits.admit(3, 4), Ok(()));
        let per_turn = limits.admit(4, 0).unwrap_err();
        assert!(
            per_turn
                .starts_with("Not run: at most 3 tool calls of one reply run, and this is call 4"),
            "{per_turn}"
        );
        let per_run = limits.admit(1, 5).unwrap_err();
        assert!(
            per_run.starts_with("Not run: 5 tool calls have already run for this message"),
            "{per_run}"
        );
        assert_eq!(ToolCallLimits::default(), ToolCallLimits::DEFAULT);
    }
}
