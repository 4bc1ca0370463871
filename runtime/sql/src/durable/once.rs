//! `once` in `toolspec_once`: one row per (tool, key) — `running` while the first call runs,
//! naming the process that runs it (an instance, see `database::liveness`), `done` with the
//! recorded result until the ttl passes. A repeat that finds the key running waits a moment
//! for its result ([`WAIT_FOR_RUNNING`]), then answers `in_progress` rather than hold its
//! caller; a claim whose process is dead (not seen for the liveness lapse, seconds) or whose
//! lease has passed is taken over by the next call with its key.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, SecondsFormat};
use serde_json::Value;
use uuid::Uuid;

use crate::database::liveness;
use crate::database::{Database, now_ms, on_pool};
use crate::durable::lease::lease;
use toolspec_core::BoxFuture;
use toolspec_core::OnceStatus;
use toolspec_core::ToolResult;
use toolspec_core::storage::Key;
use toolspec_core::storage::StorageError;
use toolspec_core::storage::{Claimed, OnceClaim, WAIT_FOR_RUNNING};
use toolspec_core::tasks::{result_from_stored, stored_result};
use toolspec_core::{Descriptor, SharedDescriptor};

/// A claimed key: this call runs.
pub(crate) struct Claim {
    database: Database,
    tool: SharedDescriptor,
    key_hash: String,
    holder: String,
    /// The claiming call's audit record, kept with its result for the records of replays.
    record: Option<Uuid>,
    finished: bool,
}

/// The row of a key.
struct Row {
    state: String,
    holder: String,
    lease_until: i64,
    finished_at: Option<i64>,
    expires_at: Option<i64>,
    outcome: Option<String>,
    result: Option<String>,
    /// When the claim's process was last seen alive (none: no such process).
    seen_at: Option<i64>,
}

/// Claims `key` for a call of `tool`: runs it, answers with a recorded result, or waits a
/// moment for a call with the same key that runs now.
pub(crate) async fn claim(
    database: &Database,
    tool: &SharedDescriptor,
    key: &Key,
    record: Option<Uuid>,
) -> Result<Claimed, StorageError> {
    let instance = database.instance().await?.to_owned();
    let holder = Uuid::now_v7().simple().to_string();
    let lease_ms = millis(lease(tool));
    let give_up = Instant::now() + WAIT_FOR_RUNNING;
    let mut pause = Duration::from_millis(5);
    let shown = Value::Object(key.shown.clone()).to_string();
    loop {
        let now = now_ms();
        let inserted = on_pool!(database, |pool| {
            sqlx::query(
                "INSERT INTO toolspec_once (tool, key_hash, key, state, holder, started_at, lease_until, instance)
                 VALUES ($1, $2, $3, 'running', $4, $5, $6, $7) ON CONFLICT (tool, key_hash) DO NOTHING",
            )
            .bind(&*tool.name)
            .bind(&key.hash)
            .bind(&shown)
            .bind(&holder)
            .bind(now)
            .bind(now + lease_ms)
            .bind(&instance)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
        })
        .map_err(|e| database.failed("claiming a `once` key", e))?;
        if inserted == 1 {
            return Ok(Claimed::Run(Box::new(Claim::new(
                database, tool, key, holder, record,
            ))));
        }
        let Some(row) = read(database, tool, &key.hash).await? else {
            continue;
        };
        let expired = row.expires_at.is_some_and(|at| at <= now);
        let stale = row.state == "running"
            && (row.lease_until <= now || !liveness::alive(row.seen_at, now));
        if row.state == "done" && !expired {
            return replay(&row).map(Claimed::Replay);
        }
        if expired || stale {
            let taken = on_pool!(database, |pool| {
                sqlx::query(
                    "UPDATE toolspec_once SET state = 'running', holder = $1, started_at = $2,
                        lease_until = $3, finished_at = NULL, expires_at = NULL, outcome = NULL,
                        result = NULL, key = $4, instance = $5
                     WHERE tool = $6 AND key_hash = $7 AND holder = $8 AND state = $9",
                )
                .bind(&holder)
                .bind(now)
                .bind(now + lease_ms)
                .bind(&shown)
                .bind(&instance)
                .bind(&*tool.name)
                .bind(&key.hash)
                .bind(&row.holder)
                .bind(&row.state)
                .execute(pool)
                .await
                .map(|done| done.rows_affected())
            })
            .map_err(|e| database.failed("taking over a `once` key", e))?;
            if taken == 1 {
                if stale {
                    tracing::warn!(
                        tool = &*tool.name,
                        "a `once` claim left by a process that died (or past its lease) was taken over"
                    );
                }
                return Ok(Claimed::Run(Box::new(Claim::new(
                    database, tool, key, holder, record,
                ))));
            }
            continue;
        }
        // A call with this key runs now, in a live process: its result answers this one too,
        // if it comes soon.
        if Instant::now() >= give_up {
            return Ok(Claimed::Running);
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// What explain says of `key`.
pub(crate) async fn status(
    database: &Database,
    tool: &Descriptor,
    key: &Key,
) -> Result<OnceStatus, StorageError> {
    let now = now_ms();
    let row = read(database, tool, &key.hash).await?;
    let rfc3339 = |ms: Option<i64>| {
        ms.and_then(DateTime::from_timestamp_millis)
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Millis, true))
    };
    let mut status = OnceStatus {
        key: key.shown.clone(),
        status: "new",
        at: None,
        outcome: None,
        expires_at: None,
    };
    match row {
        Some(row) if row.state == "done" && row.expires_at.is_some_and(|at| at > now) => {
            status.status = "done";
            status.at = rfc3339(row.finished_at);
            status.outcome = row.outcome;
            status.expires_at = rfc3339(row.expires_at);
        }
        Some(row)
            if row.state == "running"
                && row.lease_until > now
                && liveness::alive(row.seen_at, now) =>
        {
            status.status = "running"
        }
        _ => {}
    }
    Ok(status)
}

async fn read(
    database: &Database,
    tool: &Descriptor,
    key_hash: &str,
) -> Result<Option<Row>, StorageError> {
    on_pool!(database, |pool| {
        async {
            use sqlx::Row as _;
            let row = sqlx::query(
                "SELECT o.state, o.holder, o.lease_until, o.finished_at, o.expires_at, o.outcome,
                    o.result, i.seen_at
                 FROM toolspec_once o LEFT JOIN toolspec_instances i ON i.id = o.instance
                 WHERE o.tool = $1 AND o.key_hash = $2",
            )
            .bind(&*tool.name)
            .bind(key_hash)
            .fetch_optional(pool)
            .await?;
            row.map(|row| {
                Ok::<_, sqlx::Error>(Row {
                    state: row.try_get("state")?,
                    holder: row.try_get("holder")?,
                    lease_until: row.try_get("lease_until")?,
                    finished_at: row.try_get("finished_at")?,
                    expires_at: row.try_get("expires_at")?,
                    outcome: row.try_get("outcome")?,
                    result: row.try_get("result")?,
                    seen_at: row.try_get("seen_at")?,
                })
            })
            .transpose()
        }
        .await
    })
    .map_err(|e| database.failed("reading a `once` key", e))
}

/// The recorded result of a `done` row (kept as tasks keep theirs: `stored_result`'s form),
/// naming the record of the call that made it (the nil id when that call was not recorded).
fn replay(row: &Row) -> Result<ToolResult, StorageError> {
    let text = row.result.as_deref().unwrap_or("null");
    let stored: Value = serde_json::from_str(text).map_err(|e| {
        StorageError::invalid(format!("a recorded `once` result does not parse: {e}"))
    })?;
    let mut result = result_from_stored(&stored).ok_or_else(|| {
        StorageError::invalid("a recorded `once` result is neither a value nor an error")
    })?;
    let record = stored["record"].as_str().and_then(|id| id.parse().ok());
    result.replay_of = Some(record.unwrap_or(Uuid::nil()));
    Ok(result)
}

impl Claim {
    fn new(
        database: &Database,
        tool: &SharedDescriptor,
        key: &Key,
        holder: String,
        record: Option<Uuid>,
    ) -> Self {
        Self {
            database: database.clone(),
            tool: tool.clone(),
            key_hash: key.hash.clone(),
            holder,
            record,
            finished: false,
        }
    }

    /// Records `kept`, the result repeats answer with, or frees the key when there is none (a
    /// retry runs).
    async fn end(mut self, kept: Option<&ToolResult>) {
        self.finished = true;
        let done = match kept {
            Some(result) => self.record(result).await,
            None => self.free().await,
        };
        if let Err(e) = done {
            tracing::warn!(tool = &*self.tool.name, error = %e.chain(), "a `once` key could not be finished; it frees when its lease ends");
        }
    }

    async fn record(&self, result: &ToolResult) -> Result<(), StorageError> {
        let now = now_ms();
        let ttl = self.tool.once.as_ref().map_or(0, |once| millis(once.ttl()));
        let outcome = match &result.outcome {
            Ok(_) => "ok",
            Err(error) => error.code.as_str(),
        };
        let mut stored = stored_result(result);
        if let (Some(record), Value::Object(stored)) = (self.record, &mut stored) {
            stored.insert("record".into(), Value::String(record.to_string()));
        }
        let stored = stored.to_string();
        on_pool!(self.database, |pool| {
            sqlx::query(
                "UPDATE toolspec_once SET state = 'done', finished_at = $1, expires_at = $2,
                    outcome = $3, result = $4
                 WHERE tool = $5 AND key_hash = $6 AND holder = $7",
            )
            .bind(now)
            .bind(now + ttl)
            .bind(outcome)
            .bind(&stored)
            .bind(&*self.tool.name)
            .bind(&self.key_hash)
            .bind(&self.holder)
            .execute(pool)
            .await
            .map(drop)
        })
        .map_err(|e| self.database.failed("recording a `once` result", e))?;
        self.sweep_now_and_then(now).await;
        Ok(())
    }

    async fn free(&self) -> Result<(), StorageError> {
        free(
            &self.database,
            &self.tool.name,
            &self.key_hash,
            &self.holder,
        )
        .await
    }

    /// Deletes this tool's expired rows, on one recorded result in 64.
    async fn sweep_now_and_then(&self, now: i64) {
        static RECORDED: AtomicU32 = AtomicU32::new(0);
        if !RECORDED.fetch_add(1, Ordering::Relaxed).is_multiple_of(64) {
            return;
        }
        let swept = on_pool!(self.database, |pool| {
            sqlx::query(
                "DELETE FROM toolspec_once WHERE tool = $1 AND state = 'done' AND expires_at <= $2",
            )
            .bind(&*self.tool.name)
            .bind(now)
            .execute(pool)
            .await
            .map(drop)
        });
        if let Err(e) = swept {
            tracing::warn!(tool = &*self.tool.name, error = %e, "deleting expired `once` keys failed");
        }
    }
}

impl OnceClaim for Claim {
    fn finish<'a>(self: Box<Self>, kept: Option<&'a ToolResult>) -> BoxFuture<'a, ()> {
        Box::pin(self.end(kept))
    }
}

impl Drop for Claim {
    /// A call dropped while it ran (its client went away) frees its key, so that a retry runs.
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let (database, tool, key_hash, holder) = (
                self.database.clone(),
                self.tool.clone(),
                std::mem::take(&mut self.key_hash),
                std::mem::take(&mut self.holder),
            );
            runtime.spawn(async move {
                let _ = free(&database, &tool.name, &key_hash, &holder).await;
            });
        }
    }
}

async fn free(
    database: &Database,
    tool: &str,
    key_hash: &str,
    holder: &str,
) -> Result<(), StorageError> {
    on_pool!(database, |pool| {
        sqlx::query("DELETE FROM toolspec_once WHERE tool = $1 AND key_hash = $2 AND holder = $3")
            .bind(tool)
            .bind(key_hash)
            .bind(holder)
            .execute(pool)
            .await
            .map(drop)
    })
    .map_err(|e| database.failed("freeing a `once` key", e))
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
