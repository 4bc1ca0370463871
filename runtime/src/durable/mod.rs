//! `once` (an idempotency key) and `lock` (an advisory lock), kept in the app's database so that
//! they hold across every process sharing it.
//!
//! A call of a tool with either is *admitted* after its arguments validate and before anything
//! else runs (`ref` records, guards, the handler): its key — the values of the declared fields,
//! ambient ones from the trusted context — is hashed; `once` claims the key: the first claim
//! runs, a repeat within the ttl answers with the recorded result, and a repeat that arrives
//! while the first still runs waits a moment for its result, then answers `in_progress` (a
//! claim left by a dead process is taken over instead, see `database::liveness`); then `lock`
//! waits (up to its `wait`) until no other call holds its key, and holds it. When the admitted call ends, its result is
//! recorded for `once` (successes and declared errors; an internal error, a timeout or a
//! cancellation frees the key so that a retry runs) and the lock is let go.
//!
//! `explain` reports both without taking anything: whether the key already ran (when, with
//! which outcome) and whether the lock is held now.

#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod key;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod lease;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod lock;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod once;

#[cfg(any(feature = "sqlite", feature = "postgres"))]
use std::time::Duration;

use serde_json::Value;

use crate::ambient::AmbientContext;
use crate::database::Database;
use crate::descriptor::Descriptor;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
use crate::failure::ToolError;
use crate::failure::ToolResult;
use crate::sensitive::Sensitivity;

#[cfg(any(feature = "sqlite", feature = "postgres"))]
use crate::database::error::DatabaseError;
use crate::explain::status::{LockStatus, OnceStatus};
#[cfg(any(feature = "sqlite", feature = "postgres"))]
use key::Key;

/// What a call of a tool with `once` or `lock` may do.
pub(crate) enum Admission {
    /// Run it; then [`Ticket::finish`] with its result.
    Run(Ticket),
    /// Answer with this: a repeat's recorded result, or why the call could not be admitted.
    Answer(ToolResult),
}

/// What an admitted call holds until it ends.
#[derive(Default)]
pub(crate) struct Ticket {
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    lock: Option<lock::Held>,
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    once: Option<once::Claim>,
}

/// Admits a call of `tool` with validated `args`: at once when it has neither `once` nor `lock`.
pub(crate) async fn admit(
    tool: &'static Descriptor,
    args: &Value,
    ambient: &AmbientContext,
    database: Option<&Database>,
    redaction: &Sensitivity,
) -> Admission {
    if tool.once.is_none() && tool.lock.is_none() {
        return Admission::Run(Ticket::default());
    }
    let Some(database) = database else {
        return Admission::Answer(ToolResult::internal(
            tool,
            "the tool has `once` or `lock` but the registry has no database".into(),
        ));
    };
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    {
        admit_on(tool, args, ambient, database, redaction).await
    }
    #[cfg(not(any(feature = "sqlite", feature = "postgres")))]
    {
        let _ = (args, ambient, redaction, database);
        Admission::Run(Ticket::default())
    }
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
async fn admit_on(
    tool: &'static Descriptor,
    args: &Value,
    ambient: &AmbientContext,
    database: &Database,
    redaction: &Sensitivity,
) -> Admission {
    if let Err(e) = database.migrate().await {
        return Admission::Answer(e.answer(tool));
    }
    let mut ticket = Ticket::default();
    // `once` first: a repeat of a finished call answers at once, and repeats of a running one
    // wait for its result rather than in the lock's queue.
    if let Some(decl) = &tool.once {
        let key = Key::of(tool, &decl.key, args, ambient, redaction);
        match once::claim(database, tool, &key).await {
            Ok(once::Claimed::Run(claim)) => ticket.once = Some(claim),
            Ok(once::Claimed::Replay(result)) => return Admission::Answer(result),
            Ok(once::Claimed::Running) => return Admission::Answer(in_progress(tool)),
            Err(e) => return Admission::Answer(e.answer(tool)),
        }
    }
    if let Some(decl) = &tool.lock {
        let key = Key::of(tool, &decl.key, args, ambient, redaction);
        let answer = match lock::acquire(database, tool, &key, decl.wait()).await {
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

impl Ticket {
    /// Records `result` for `once` (when there is one to keep) and lets the lock go.
    pub(crate) async fn finish(self, result: Option<&ToolResult>) {
        #[cfg(any(feature = "sqlite", feature = "postgres"))]
        {
            if let Some(claim) = self.once {
                claim.finish(result).await;
            }
            if let Some(held) = self.lock {
                held.release().await;
            }
        }
        #[cfg(not(any(feature = "sqlite", feature = "postgres")))]
        let _ = (self, result);
    }
}

/// What explain reports of `once` and `lock` for a call with validated `args`, taking nothing.
pub(crate) async fn report(
    tool: &'static Descriptor,
    args: &Value,
    ambient: &AmbientContext,
    database: Option<&Database>,
    redaction: &Sensitivity,
) -> Result<(Option<OnceStatus>, Option<LockStatus>), String> {
    if tool.once.is_none() && tool.lock.is_none() {
        return Ok((None, None));
    }
    let database =
        database.ok_or("the tool has `once` or `lock` but the registry has no database")?;
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    {
        let e = |e: DatabaseError| e.to_string();
        database.migrate().await.map_err(e)?;
        let once = match &tool.once {
            Some(decl) => {
                let key = Key::of(tool, &decl.key, args, ambient, redaction);
                Some(once::status(database, tool, &key).await.map_err(e)?)
            }
            None => None,
        };
        let lock = match &tool.lock {
            Some(decl) => {
                let key = Key::of(tool, &decl.key, args, ambient, redaction);
                let held = lock::held(database, tool, &key).await.map_err(e)?;
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
    #[cfg(not(any(feature = "sqlite", feature = "postgres")))]
    {
        let _ = (args, ambient, redaction, database);
        Ok((None, None))
    }
}

/// A repeat of a call that still runs, past [`once::WAIT_FOR_RUNNING`].
#[cfg(any(feature = "sqlite", feature = "postgres"))]
fn in_progress(tool: &Descriptor) -> ToolResult {
    let waited = format!(
        "a call with the same `once` key was still running after {:?}",
        once::WAIT_FOR_RUNNING
    );
    let error = ToolError::in_progress(tool.error_headline.as_deref(), once::RETRY_RUNNING);
    ToolResult::failed(error, Some(waited))
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
fn locked(tool: &Descriptor, wait: Duration) -> ToolResult {
    let waited = format!("another call with the same key held the lock for over {wait:?}");
    ToolResult::failed(
        ToolError::locked(tool.error_headline.as_deref()),
        Some(waited),
    )
}
