//! The stages of a call, in order, as data: the one list the pipeline's code (`run`) follows
//! and the docs print. ARCHITECTURE.md's table and docs/runtime.md's are rendered from it, and
//! the architecture test fails when either differs (`EXPECTORATE=overwrite` renders them
//! anew). Each field is one literal, Markdown whose links are relative to docs/runtime.md.

/// One stage of a call.
#[allow(
    dead_code,
    reason = "the list the docs print, read from this file by a test"
)]
pub(crate) struct Stage {
    /// What it does.
    pub(crate) what: &'static str,
    /// Where it is, below `runtime/core/src/pipeline/`.
    pub(crate) files: &'static str,
    /// What a call it stops answers (`—`: it stops none).
    pub(crate) stops_with: &'static str,
    /// What it does when the call is explained (`explain`).
    pub(crate) explaining: &'static str,
}

/// Every call's stages, in the order they run (read by the architecture test, from this file). A refusal at one stage answers the call: the
/// later ones do not run, except the hooks after and the audit record's finish.
#[allow(
    dead_code,
    reason = "the list the docs print, read from this file by a test"
)]
pub(crate) const STAGES: &[Stage] = &[
    Stage {
        what: "scopes: a tool the caller may not call answers as a missing one; rate: a caller \
               over the tool's `rate_limit` is refused ([below](#rate-limits)); a refusal runs \
               nothing and is recorded with the others of its caller refused alike within the \
               second ([below](#the-audit-trail-once-and-lock))",
        files: "`scopes.rs`, `rate.rs`",
        stops_with: "`unknown_tool`, `rate_limited`",
        explaining: "the same: explaining spends the tool's budget like a call",
    },
    Stage {
        what: "the audit record started; a `required` tool's committed before anything runs \
               ([below](#the-audit-trail-once-and-lock))",
        files: "`audit.rs`",
        stops_with: "`unavailable`",
        explaining: "none: an explanation is not a call of the tool it explains (a call of the \
                     explain tool is recorded as that tool's)",
    },
    Stage {
        what: "hooks before, in the call's span ([below](#hooks-and-tracing))",
        files: "`hooks.rs`",
        stops_with: "the hook's error",
        explaining: "the same, the hook told it explains (`CallInfo::explaining`), in a \
                     `tool.explain` span",
    },
    Stage {
        what: "screening, coercion and validation ([in detail](#the-call-path))",
        files: "`screen.rs`",
        stops_with: "`invalid_arguments`",
        explaining: "the same: the errors are the explanation's",
    },
    Stage {
        what: "refused at once while the database it needs is known to be down \
               ([below](#a-database-that-is-down))",
        files: "`availability.rs`",
        stops_with: "`unavailable`",
        explaining: "the same",
    },
    Stage {
        what: "what the tool asks its user (`ask`, `confirm`): a continuation's state opened and \
               spent, the answers checked; the forms still missing, then — stages 9 to 11 run \
               first, checking: the `ref` records loaded, the guards passed — the confirmation \
               ([below](#asking-the-user))",
        files: "`user_input.rs`, composed in `run.rs`",
        stops_with: "`input_required`, `declined`, `invalid_request_state`, \
                     `request_state_expired`, the guard's code",
        explaining: "the forms it would ask for end the explanation; no state is opened",
    },
    Stage {
        what: "a tool with `task:` handed to the queue when its caller takes a handle (a worker \
               then runs every stage with the stored caller) ([below](#durable-tasks))",
        files: "`task.rs`",
        stops_with: "`task_required`, `too_many_tasks`, `unavailable`",
        explaining: "none",
    },
    Stage {
        what: "admission: `once` claimed, `lock` taken \
               ([below](#the-audit-trail-once-and-lock))",
        files: "`durable/`",
        stops_with: "a replay, `in_progress`, `locked`",
        explaining: "looked at, not taken: what the explanation says of `once` and `lock`",
    },
    Stage {
        what: "`ref` records loaded",
        files: "`refs.rs`",
        stops_with: "`not_found`",
        explaining: "the same: a missing record is the explanation's error",
    },
    Stage {
        what: "the typed input decoded, the ambient fields resolved",
        files: "`decode.rs`",
        stops_with: "`invalid_arguments`",
        explaining: "the same",
    },
    Stage {
        what: "the guards, then the handler, under the timeout and cancellation, panics caught",
        files: "`handler.rs`",
        stops_with: "the guard's or handler's code, `timeout`, `cancelled`, `internal_error`, \
                     `unavailable`",
        explaining: "each guard on its own, its verdict reported; the handler never runs",
    },
    Stage {
        what: "the output serialized within the tool's result cap (lists cut to fit, the rest \
               counted), checked, the message rendered \
               ([result caps](spec.md#result-caps-result_cap))",
        files: "`output/`",
        stops_with: "`internal_error`, `result_too_large`",
        explaining: "none",
    },
    Stage {
        what: "admission released: `once` keeps the handler's answer, the lock is let go",
        files: "`durable/`",
        stops_with: "—",
        explaining: "none: nothing was taken",
    },
    Stage {
        what: "hooks after, the call's log line",
        files: "`hooks.rs`",
        stops_with: "—",
        explaining: "the same, with the explanation as the explain tool answers it",
    },
    Stage {
        what: "the audit record finished with the outcome",
        files: "`audit.rs`",
        stops_with: "logged, never the answer",
        explaining: "none",
    },
];
