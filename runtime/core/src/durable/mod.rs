//! `once` (an idempotency key) and `lock` (an advisory lock), kept by the registry's
//! [`Storage`] so that they hold across every process sharing it.
//!
//! A call of a tool with either is *admitted* after its arguments validate and before anything
//! else runs (`ref` records, guards, the handler): its [`Key`] — the values of the declared
//! fields, ambient ones from the trusted context — is hashed; `once` claims the key: the first
//! claim runs, a repeat within the ttl answers with the recorded result, and a repeat that
//! arrives while the first still runs waits a moment for its result, then answers
//! `in_progress` (a claim left by a dead process is taken over instead); then `lock` waits (up
//! to its `wait`) until no other call holds its key, and holds it. When the admitted call ends,
//! its result is recorded for `once` (successes and declared errors; an internal error, a
//! timeout or a cancellation frees the key so that a retry runs) and the lock is let go.
//!
//! `explain` reports both without taking anything: whether the key already ran (when, with
//! which outcome) and whether the lock is held now.
//!
//! The audit trail's writer (`trail`) is the third thing a call keeps in the storage.

pub(crate) mod trail;

use std::time::Duration;

use serde_json::Value;
use toolspec_vocab::codes;
use uuid::Uuid;

use crate::model::ambient::AmbientContext;
use crate::model::descriptor::{Descriptor, SharedDescriptor};
use crate::model::explain::status::{LockStatus, OnceStatus};
use crate::model::failure::{ToolError, ToolResult};
use crate::schema::sensitive::Sensitivity;
use crate::storage::{
    Claimed, HeldLock, Key, OnceClaim, RETRY_RUNNING, Storage, StorageError, WAIT_FOR_RUNNING,
};

/// What a call of a tool with `once` or `lock` may do.
pub(crate) enum Admission<'a> {
    /// Run it; then [`Ticket::finish`] with its result.
    Run(Ticket<'a>),
    /// Answer with this: a repeat's recorded result, or why the call could not be admitted.
    Answer(ToolResult),
}

/// What an admitted call holds until it ends.
#[derive(Default)]
pub(crate) struct Ticket<'a> {
    /// The tool, when it has `once`.
    tool: Option<&'a Descriptor>,
    lock: Option<Box<dyn HeldLock>>,
    once: Option<Box<dyn OnceClaim>>,
}

/// Admits a call of `tool` with validated `args`: at once when it has neither `once` nor `lock`.
pub(crate) async fn admit<'a>(
    tool: &'a SharedDescriptor,
    args: &Value,
    ambient: &AmbientContext,
    storage: Option<&dyn Storage>,
    redaction: &Sensitivity,
    record: Option<Uuid>,
) -> Admission<'a> {
    if tool.once.is_none() && tool.lock.is_none() {
        return Admission::Run(Ticket::default());
    }
    let Some(storage) = storage else {
        return Admission::Answer(ToolResult::internal(
            tool,
            "the tool has `once` or `lock` but the registry has no database".into(),
        ));
    };
    if let Err(e) = storage.prepare().await {
        return Admission::Answer(e.answer(tool));
    }
    let mut ticket = Ticket {
        tool: Some(&**tool),
        ..Ticket::default()
    };
    // `once` first: a repeat of a finished call answers at once, and repeats of a running one
    // wait for its result rather than in the lock's queue.
    if let Some(decl) = &tool.once {
        let key = Key::of(tool, &decl.key, args, ambient, redaction);
        match storage.claim_once(tool, &key, record).await {
            Ok(Claimed::Run(claim)) => ticket.once = Some(claim),
            Ok(Claimed::Replay(result)) => return Admission::Answer(result),
            Ok(Claimed::Running) => return Admission::Answer(in_progress(tool)),
            Err(e) => return Admission::Answer(e.answer(tool)),
        }
    }
    if let Some(decl) = &tool.lock {
        let key = Key::of(tool, &decl.key, args, ambient, redaction);
        let answer = match storage.acquire_lock(tool, &key, decl.wait()).await {
            Ok(Some(held)) => {
                ticket.lock = Some(held);
                None
            }
            Ok(None) => Some(locked(tool, decl.wait())),
            Err(e) => Some(e.answer(tool)),
        };
        if let Some(answer) = answer {
            ticket.finish(None).await;
            return Admission::Answer(answer);
        }
    }
    Admission::Run(ticket)
}

impl Ticket<'_> {
    /// Records `result` for `once` (when repeats should answer with it) and lets the lock go.
    pub(crate) async fn finish(self, result: Option<&ToolResult>) {
        if let (Some(claim), Some(tool)) = (self.once, self.tool) {
            claim.finish(result.filter(|r| keeps(tool, r))).await;
        }
        if let Some(held) = self.lock {
            held.release().await;
        }
    }
}

/// Whether repeats answer with `result`, a handler's answer (the pipeline passes no other): a
/// success, or an error the handler declared (not a built-in one, not `not_found`). Any other
/// (a failed guard, a record not found, an internal error, a timeout, a cancellation) frees
/// the key, so that a retry runs.
fn keeps(tool: &Descriptor, result: &ToolResult) -> bool {
    match &result.outcome {
        Ok(_) => true,
        Err(error) => {
            let code = error.code.as_str();
            tool.errors.iter().any(|e| e.code == code) && code != codes::NOT_FOUND
        }
    }
}

/// What explain reports of `once` and `lock` for a call with validated `args`, taking nothing.
pub(crate) async fn report(
    tool: &Descriptor,
    args: &Value,
    ambient: &AmbientContext,
    storage: Option<&dyn Storage>,
    redaction: &Sensitivity,
) -> Result<(Option<OnceStatus>, Option<LockStatus>), StorageError> {
    if tool.once.is_none() && tool.lock.is_none() {
        return Ok((None, None));
    }
    let storage = storage.ok_or_else(|| {
        StorageError::invalid("the tool has `once` or `lock` but the registry has no database")
    })?;
    storage.prepare().await?;
    let once = match &tool.once {
        Some(decl) => {
            let key = Key::of(tool, &decl.key, args, ambient, redaction);
            Some(storage.once_status(tool, &key).await?)
        }
        None => None,
    };
    let lock = match &tool.lock {
        Some(decl) => {
            let key = Key::of(tool, &decl.key, args, ambient, redaction);
            let held = storage.lock_held(tool, &key).await?;
            let wait_ms = u64::try_from(decl.wait().as_millis()).unwrap_or(u64::MAX);
            Some(LockStatus {
                key: key.shown,
                held,
                wait_ms,
            })
        }
        None => None,
    };
    Ok((once, lock))
}

/// A repeat of a call that still runs, past [`WAIT_FOR_RUNNING`].
fn in_progress(tool: &Descriptor) -> ToolResult {
    let waited =
        format!("a call with the same `once` key was still running after {WAIT_FOR_RUNNING:?}");
    let error = ToolError::in_progress(tool.error_headline.as_deref(), RETRY_RUNNING);
    ToolResult::failed(error, Some(waited))
}

fn locked(tool: &Descriptor, wait: Duration) -> ToolResult {
    let waited = format!("another call with the same key held the lock for over {wait:?}");
    ToolResult::failed(
        ToolError::locked(tool.error_headline.as_deref()),
        Some(waited),
    )
}
