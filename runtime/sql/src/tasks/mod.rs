//! Durable tasks in `toolspec_tasks`: stored before their caller gets the handle (within its
//! owner's bounds), claimed by one worker at a time under a lease — only by a worker that
//! serves the task's tool (`toolspec_task_workers`), and fairly: an owner's tasks run at most
//! its share at once, and each owner's first waiting task goes before any owner's second (a
//! task's turn: how many of its owner's were unfinished when it was stored) —, renewed while
//! they run, ended once, swept past their retention. On PostgreSQL the
//! claims of every process are taken one at a time (a transaction-scoped advisory lock), so
//! that each sees the others' and no owner's share is overrun; on SQLite the one statement
//! holds the database's write lock. Workers are woken by events (`events`): in the process at
//! once, and on PostgreSQL from every process through `LISTEN`/`NOTIFY`.

pub(crate) mod events;

use std::time::Duration;

use chrono::DateTime;
use serde_json::Value;
use toolspec_core::ProgressUpdate;
use toolspec_core::storage::{
    ClaimedTask, Enqueued, NewTask, OwnerBound, Renewal, ServedTool, StorageError, TaskEvent,
    TaskOutcome, TasksConfig,
};
use toolspec_core::tasks::{Queued, Task, TaskId, TaskStatus, result_from_stored};

use crate::database::liveness;
use crate::database::{Database, Pool, now_ms, on_pool};

/// The columns a caller's view of a task is read from (`t`), with whether it waits and for
/// what (`queued`: 0 running or ended, 1 for a worker, 2 for a live process serving its tool),
/// at the time bound to `now` among live instances seen after the time bound to `cutoff`.
fn view(now: &str, cutoff: &str) -> String {
    format!(
        "t.id, t.tool, t.status, t.created_at, t.updated_at, t.expires_at, t.progress, \
         t.progress_message, t.attempts, t.result, \
         CASE WHEN t.status <> 'working' OR t.lease_until >= {now} THEN 0 \
              WHEN EXISTS (SELECT 1 FROM toolspec_task_workers w \
                   JOIN toolspec_instances i ON i.id = w.instance \
                   WHERE w.tool = t.tool AND i.seen_at > {cutoff}) THEN 1 \
              ELSE 2 END AS queued"
    )
}

/// The owner's tasks: unfinished, kept (until their retention passes), and the bytes of their
/// kept results (`$1` the owner, `$2` now).
const OWNER_HOLDS: &str = "(SELECT COUNT(*) FROM toolspec_tasks WHERE owner = $1 AND status = 'working'), \
     (SELECT COUNT(*) FROM toolspec_tasks WHERE owner = $1 AND expires_at > $2), \
     (SELECT CAST(COALESCE(SUM(result_bytes), 0) AS BIGINT) FROM toolspec_tasks \
        WHERE owner = $1 AND expires_at > $2)";

/// Stores `task` unless its owner is at one of `bounds`'.
pub(crate) async fn enqueue(
    database: &Database,
    task: &NewTask,
    bounds: &TasksConfig,
) -> Result<Enqueued, StorageError> {
    // Its turn: how many of its owner's tasks are unfinished (below the bound).
    const INSERT: &str = "INSERT INTO toolspec_tasks (id, owner, tool, adapter, scopes, ambient, \
            arguments, trace_id, status, attempts, timeout_ms, created_at, updated_at, expires_at, \
            turn)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, 'working', 0, $9, $10, $10, $11, unfinished.n
         FROM (SELECT COUNT(*) AS n FROM toolspec_tasks WHERE owner = $2 AND status = 'working')
            AS unfinished
         WHERE unfinished.n < $12
           AND (SELECT COUNT(*) FROM toolspec_tasks WHERE owner = $2 AND expires_at > $10) < $13
           AND (SELECT CAST(COALESCE(SUM(result_bytes), 0) AS BIGINT) FROM toolspec_tasks
                WHERE owner = $2 AND expires_at > $10) < $14";
    let created = task.created_at.timestamp_millis();
    let expires = task.expires_at.timestamp_millis();
    let timeout = i64::try_from(task.timeout.as_millis()).unwrap_or(i64::MAX);
    let (scopes, ambient, arguments) = (
        task.scopes.to_string(),
        task.ambient.to_string(),
        task.arguments.to_string(),
    );
    let kept_bytes = i64::try_from(bounds.kept_bytes_per_caller).unwrap_or(i64::MAX);
    macro_rules! insert {
        ($executor:expr) => {
            sqlx::query(INSERT)
                .bind(task.id.as_str())
                .bind(&task.owner)
                .bind(&task.tool)
                .bind(task.adapter.as_deref())
                .bind(&scopes)
                .bind(&ambient)
                .bind(&arguments)
                .bind(task.trace_id.as_deref())
                .bind(timeout)
                .bind(created)
                .bind(expires)
                .bind(i64::from(bounds.per_caller))
                .bind(i64::from(bounds.kept_per_caller))
                .bind(kept_bytes)
                .execute($executor)
                .await
                .map(|done| done.rows_affected())
        };
    }
    let inserted = match database.pool() {
        // One statement: SQLite's write lock makes the counts and the insert one step.
        #[cfg(feature = "sqlite")]
        Pool::Sqlite(pool) => insert!(pool),
        // The owner's advisory lock makes the counts and the insert one step across processes;
        // the notification wakes every process's workers when the transaction commits.
        #[cfg(feature = "postgres")]
        Pool::Postgres(pool) => {
            async {
                let mut tx = pool.begin().await?;
                sqlx::query("SELECT pg_advisory_xact_lock(hashtext($1))")
                    .bind(&task.owner)
                    .execute(&mut *tx)
                    .await?;
                let inserted = insert!(&mut *tx)?;
                if inserted == 1 {
                    events::notify(&mut *tx, events::ENQUEUED).await?;
                }
                tx.commit().await?;
                Ok::<_, sqlx::Error>(inserted)
            }
            .await
        }
    }
    .map_err(|e| database.failed("storing a task", e))?;
    if inserted == 0 {
        return bound_reached(database, &task.owner, created, bounds).await;
    }
    let _ = database.task_events().send(TaskEvent::Enqueued);
    Ok(Enqueued::Stored)
}

/// Which of `bounds` the owner of a task that was not stored is at.
async fn bound_reached(
    database: &Database,
    owner: &str,
    now: i64,
    bounds: &TasksConfig,
) -> Result<Enqueued, StorageError> {
    let sql = format!("SELECT {OWNER_HOLDS}");
    let (unfinished, kept, kept_bytes): (i64, i64, i64) = on_pool!(database, |pool| {
        sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(owner)
            .bind(now)
            .fetch_one(pool)
            .await
    })
    .map_err(|e| database.failed("counting a caller's tasks", e))?;
    let bound = if unfinished >= i64::from(bounds.per_caller) {
        OwnerBound::Unfinished
    } else if kept >= i64::from(bounds.kept_per_caller) {
        OwnerBound::Kept
    } else if u64::try_from(kept_bytes).unwrap_or(0) >= bounds.kept_bytes_per_caller {
        OwnerBound::KeptBytes
    } else {
        // Room was made between the two statements (a task ended or expired): the caller may
        // try again at once; its unfinished tasks are the bound it meets first.
        OwnerBound::Unfinished
    };
    Ok(Enqueued::OwnerAtBound(bound))
}

/// Task `id` of `owner`, unless its retention passed.
pub(crate) async fn read(
    database: &Database,
    id: &TaskId,
    owner: &str,
) -> Result<Option<Task>, StorageError> {
    let sql = format!(
        "SELECT {} FROM toolspec_tasks t WHERE t.id = $1 AND t.owner = $2 AND t.expires_at > $3",
        view("$3", "$4")
    );
    let now = now_ms();
    let rows = on_pool!(database, |pool| {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id.as_str())
            .bind(owner)
            .bind(now)
            .bind(liveness::cutoff(now))
            .fetch_optional(pool)
            .await
            .and_then(|row| row.as_ref().map(task_of).transpose())
    });
    rows.map_err(|e| database.failed("reading a task", e))
}

/// The unfinished tasks of `owner`, newest first.
pub(crate) async fn list(
    database: &Database,
    owner: &str,
    limit: u32,
) -> Result<Vec<Task>, StorageError> {
    let sql = format!(
        "SELECT {} FROM toolspec_tasks t WHERE t.owner = $1 AND t.status = 'working' \
         AND t.expires_at > $2 ORDER BY t.created_at DESC, t.id LIMIT $3",
        view("$2", "$4")
    );
    let now = now_ms();
    let rows = on_pool!(database, |pool| {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(owner)
            .bind(now)
            .bind(i64::from(limit))
            .bind(liveness::cutoff(now))
            .fetch_all(pool)
            .await
            .and_then(|rows| rows.iter().map(task_of).collect())
    });
    rows.map_err(|e| database.failed("listing tasks", e))
}

/// Cancels task `id` of `owner` unless it ended, and tells the worker running it.
pub(crate) async fn cancel(
    database: &Database,
    id: &TaskId,
    owner: &str,
) -> Result<Option<Task>, StorageError> {
    // A task no worker holds keeps what it stored until its end is recorded (`unrecorded`).
    const CANCEL: &str = "UPDATE toolspec_tasks SET status = 'cancelled', updated_at = $1, \
            unrecorded = CASE WHEN lease_until IS NULL OR lease_until < $1 THEN 1 ELSE 0 END, \
            arguments = CASE WHEN lease_until IS NULL OR lease_until < $1 THEN arguments END, \
            ambient = CASE WHEN lease_until IS NULL OR lease_until < $1 THEN ambient END, \
            progress = NULL, progress_message = NULL
         WHERE id = $2 AND owner = $3 AND status = 'working' AND expires_at > $1";
    let now = now_ms();
    let cancelled = on_pool!(database, |pool| {
        sqlx::query(CANCEL)
            .bind(now)
            .bind(id.as_str())
            .bind(owner)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
    })
    .map_err(|e| database.failed("cancelling a task", e))?;
    if cancelled == 1 {
        let event = TaskEvent::Cancelled(id.clone());
        #[cfg(feature = "postgres")]
        if let Pool::Postgres(pool) = database.pool() {
            let payload = events::cancelled(id);
            events::notify(pool, &payload)
                .await
                .map_err(|e| database.failed("telling the workers a task was cancelled", e))?;
        }
        let _ = database.task_events().send(event);
    }
    read(database, id, owner).await
}

/// Says that `worker`, of this process's instance, serves `tools`.
pub(crate) async fn serve(
    database: &Database,
    worker: &str,
    tools: &[ServedTool<'_>],
) -> Result<(), StorageError> {
    let instance = database.instance().await?;
    let served = on_pool!(database, |pool| {
        async {
            let mut tx = pool.begin().await?;
            sqlx::query("DELETE FROM toolspec_task_workers WHERE worker = $1")
                .bind(worker)
                .execute(&mut *tx)
                .await?;
            for tool in tools {
                sqlx::query(
                    "INSERT INTO toolspec_task_workers (worker, instance, tool, in_flight) \
                     VALUES ($1, $2, $3, $4)",
                )
                .bind(worker)
                .bind(instance)
                .bind(tool.name)
                .bind(i32::try_from(tool.in_flight).unwrap_or(i32::MAX))
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await
        }
        .await
    });
    served.map_err(|e| database.failed("saying which tasks a worker runs", e))
}

/// Says that `worker` serves nothing any more.
pub(crate) async fn stop_serving(database: &Database, worker: &str) -> Result<(), StorageError> {
    let stopped = on_pool!(database, |pool| {
        sqlx::query("DELETE FROM toolspec_task_workers WHERE worker = $1")
            .bind(worker)
            .execute(pool)
            .await
            .map(drop)
    });
    stopped.map_err(|e| database.failed("saying a worker stopped", e))
}

/// Claims a task of a tool `worker` serves, fairly (see the module's doc).
pub(crate) async fn claim(
    database: &Database,
    worker: &str,
    lease: Duration,
    bounds: &TasksConfig,
) -> Result<Option<ClaimedTask>, StorageError> {
    // `running`: each owner's tasks of each tool whose claim holds; `owners`: their sums.
    // `leased`: the tasks whose claim holds (by the lease's index); `running`: each owner's
    // running tasks of each tool; `full`: the owners at their share; `busy`: the owners at a
    // tool's bound of it. Of the waiting tasks of the tools the worker serves and of owners
    // neither full nor busy, the lowest turn, then the oldest (the turns' index, in order).
    const CLAIM: &str = concat!(
        "WITH leased AS MATERIALIZED (
            SELECT owner, tool, status FROM toolspec_tasks WHERE lease_until >= $3),
         running AS (SELECT owner, tool, COUNT(*) AS n FROM leased WHERE status = 'working'
            GROUP BY owner, tool),
         full_owners AS (SELECT owner FROM running GROUP BY owner HAVING SUM(n) >= $4),
         busy AS (SELECT r.owner, r.tool FROM running r
            JOIN toolspec_task_workers w ON w.worker = $1 AND w.tool = r.tool
            WHERE w.in_flight > 0 AND r.n >= w.in_flight)
         UPDATE toolspec_tasks SET claimed_by = $1, lease_until = $2, attempts = attempts + 1, \
            updated_at = $3
         WHERE id = (SELECT t.id FROM toolspec_tasks t
             WHERE t.status = 'working' AND (t.lease_until IS NULL OR t.lease_until < $3)
               AND t.tool IN (SELECT tool FROM toolspec_task_workers WHERE worker = $1)
               AND t.owner NOT IN (SELECT owner FROM full_owners)
               AND (t.owner, t.tool) NOT IN (SELECT owner, tool FROM busy)
             ORDER BY t.turn, t.created_at, t.id LIMIT 1)
           AND status = 'working'
         RETURNING ",
        claimed_columns!()
    );
    let now = now_ms();
    macro_rules! claim {
        ($executor:expr) => {
            sqlx::query(CLAIM)
                .bind(worker)
                .bind(now + millis(lease))
                .bind(now)
                .bind(i64::from(bounds.running_per_caller))
                .fetch_optional($executor)
                .await
        };
    }
    let row = match database.pool() {
        #[cfg(feature = "sqlite")]
        Pool::Sqlite(pool) => claim!(pool).and_then(|row| row.as_ref().map(claimed).transpose()),
        // One claim at a time across processes: each counts the running tasks the others
        // claimed. The transaction begins holding the lock (one round trip: sqlx sends a
        // custom `BEGIN` as a simple query, which may hold two statements).
        #[cfg(feature = "postgres")]
        Pool::Postgres(pool) => {
            async {
                let mut tx = pool.begin_with(CLAIMING).await?;
                let row = claim!(&mut *tx)?;
                let task = row.as_ref().map(claimed).transpose()?;
                tx.commit().await?;
                Ok::<_, sqlx::Error>(task)
            }
            .await
        }
    };
    row.map_err(|e| database.failed("claiming a task", e))
}

/// Claims a task cancelled before a worker ran it, of a tool `worker` serves, whose end is
/// not recorded yet.
pub(crate) async fn claim_unrecorded(
    database: &Database,
    worker: &str,
    lease: Duration,
) -> Result<Option<ClaimedTask>, StorageError> {
    const CLAIM: &str = concat!(
        "UPDATE toolspec_tasks SET claimed_by = $1, lease_until = $2
         WHERE id = (SELECT t.id FROM toolspec_tasks t
             JOIN toolspec_task_workers w ON w.worker = $1 AND w.tool = t.tool
             WHERE t.unrecorded = 1 AND t.status = 'cancelled'
               AND (t.lease_until IS NULL OR t.lease_until < $3)
             ORDER BY t.updated_at, t.id LIMIT 1)
           AND status = 'cancelled' AND unrecorded = 1
           AND (lease_until IS NULL OR lease_until < $3)
         RETURNING ",
        claimed_columns!()
    );
    let now = now_ms();
    let claimed = on_pool!(database, |pool| {
        sqlx::query(CLAIM)
            .bind(worker)
            .bind(now + millis(lease))
            .bind(now)
            .fetch_optional(pool)
            .await
            .and_then(|row| row.as_ref().map(claimed).transpose())
    });
    claimed.map_err(|e| database.failed("claiming a cancelled task to record", e))
}

/// Says that the end of cancelled task `id`, claimed by `worker`, is recorded.
pub(crate) async fn recorded(
    database: &Database,
    id: &TaskId,
    worker: &str,
) -> Result<(), StorageError> {
    const RECORDED: &str = "UPDATE toolspec_tasks SET unrecorded = 0, arguments = NULL, \
            ambient = NULL, claimed_by = NULL, lease_until = NULL
         WHERE id = $1 AND claimed_by = $2 AND unrecorded = 1";
    let done = on_pool!(database, |pool| {
        sqlx::query(RECORDED)
            .bind(id.as_str())
            .bind(worker)
            .execute(pool)
            .await
            .map(drop)
    });
    done.map_err(|e| database.failed("saying a cancelled task is recorded", e))
}

/// The beginning of a claim's transaction on PostgreSQL: the advisory lock claims are taken
/// under, in the two-key space (apart from `lock`'s and the enqueue's one-key locks):
/// toolspec's tasks (`0x74736b73`, "tsks"), claims (1).
#[cfg(feature = "postgres")]
const CLAIMING: &str = "BEGIN; SELECT pg_advisory_xact_lock(1953721203, 1)";

/// The columns a claim returns, which [`claimed`] reads.
macro_rules! claimed_columns {
    () => {
        "id, owner, tool, adapter, scopes, ambient, arguments, trace_id, timeout_ms, created_at, \
         expires_at, attempts"
    };
}
use claimed_columns;

/// The task a claim returned.
fn claimed<R: sqlx::Row>(row: &R) -> Result<ClaimedTask, sqlx::Error>
where
    for<'r> &'r str: sqlx::ColumnIndex<R>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i32: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let json = |column: &str| -> Result<Value, sqlx::Error> {
        let text: Option<String> = row.try_get(column)?;
        Ok(text
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or(Value::Null))
    };
    let id: String = row.try_get("id")?;
    let timeout: i64 = row.try_get("timeout_ms")?;
    let attempts: i32 = row.try_get("attempts")?;
    Ok(ClaimedTask {
        task: NewTask {
            id: TaskId::parse(&id).map_err(|e| sqlx::Error::Decode(Box::new(e)))?,
            owner: row.try_get("owner")?,
            tool: row.try_get("tool")?,
            adapter: row.try_get("adapter")?,
            scopes: json("scopes")?,
            ambient: json("ambient")?,
            arguments: json("arguments")?,
            trace_id: row.try_get("trace_id")?,
            created_at: time(row.try_get("created_at")?),
            expires_at: time(row.try_get("expires_at")?),
            timeout: Duration::from_millis(u64::try_from(timeout).unwrap_or(0)),
        },
        attempt: u32::try_from(attempts).unwrap_or(0),
    })
}

/// Renews `worker`'s claim of task `id`, writing `progress` with it.
pub(crate) async fn renew(
    database: &Database,
    id: &TaskId,
    worker: &str,
    lease: Duration,
    progress: Option<&ProgressUpdate>,
) -> Result<Renewal, StorageError> {
    const RENEW: &str = "UPDATE toolspec_tasks SET lease_until = $1,
            updated_at = CASE WHEN $2 IS NULL THEN updated_at ELSE $3 END,
            progress = COALESCE($2, progress), progress_message = COALESCE($4, progress_message)
         WHERE id = $5 AND claimed_by = $6 AND status = 'working'";
    let now = now_ms();
    let renewed = on_pool!(database, |pool| {
        sqlx::query(RENEW)
            .bind(now + millis(lease))
            .bind(progress.map(|p| p.fraction))
            .bind(now)
            .bind(progress.map(|p| p.message.as_str()))
            .bind(id.as_str())
            .bind(worker)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
    })
    .map_err(|e| database.failed("renewing a task's claim", e))?;
    if renewed == 1 {
        return Ok(Renewal::Held);
    }
    let status: Option<String> = on_pool!(database, |pool| {
        sqlx::query_scalar("SELECT status FROM toolspec_tasks WHERE id = $1")
            .bind(id.as_str())
            .fetch_optional(pool)
            .await
    })
    .map_err(|e| database.failed("renewing a task's claim", e))?;
    Ok(match status.as_deref() {
        Some("cancelled") => Renewal::Cancelled,
        _ => Renewal::Lost,
    })
}

/// Ends task `id` with `outcome`, if `worker` still holds it, and wakes this process's workers:
/// its owner's next task may be claimed now. (Not the other processes': a notification per
/// ended task serializes PostgreSQL's commits on its queue; their workers look for work within
/// seconds anyway.)
pub(crate) async fn finish(
    database: &Database,
    id: &TaskId,
    worker: &str,
    outcome: &TaskOutcome,
) -> Result<bool, StorageError> {
    const FINISH: &str = "UPDATE toolspec_tasks SET status = $1, result = $2, result_bytes = $3, \
            updated_at = $4, claimed_by = NULL, lease_until = NULL, arguments = NULL, \
            ambient = NULL, progress = NULL, progress_message = NULL
         WHERE id = $5 AND claimed_by = $6 AND status = 'working'";
    let result = outcome.result.as_ref().map(Value::to_string);
    let bytes = result
        .as_ref()
        .map_or(0, |r| i64::try_from(r.len()).unwrap_or(i64::MAX));
    macro_rules! bound {
        ($sql:expr) => {
            sqlx::query($sql)
                .bind(outcome.status.as_str())
                .bind(result.as_deref())
                .bind(bytes)
                .bind(now_ms())
                .bind(id.as_str())
                .bind(worker)
        };
    }
    let done = on_pool!(database, |pool| {
        bound!(FINISH)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
    })
    .map_err(|e| database.failed("ending a task", e))?;
    if done == 1 {
        let _ = database.task_events().send(TaskEvent::Ended);
    }
    Ok(done == 1)
}

/// Deletes the tasks whose retention passed (a running one once its claim lapsed too).
pub(crate) async fn delete_expired(database: &Database) -> Result<u64, StorageError> {
    const DELETE: &str = "DELETE FROM toolspec_tasks WHERE expires_at <= $1 \
         AND (status <> 'working' OR lease_until IS NULL OR lease_until < $1)";
    on_pool!(database, |pool| {
        sqlx::query(DELETE)
            .bind(now_ms())
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
    })
    .map_err(|e| database.failed("deleting expired tasks", e))
}

/// A caller's view of the task in `row` (the columns of [`view`]).
fn task_of<R: sqlx::Row>(row: &R) -> Result<Task, sqlx::Error>
where
    for<'r> &'r str: sqlx::ColumnIndex<R>,
    for<'r> String: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i64: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> i32: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<f64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    let decode = |e: Box<dyn std::error::Error + Send + Sync>| sqlx::Error::Decode(e);
    let id: String = row.try_get("id")?;
    let status: String = row.try_get("status")?;
    let status = TaskStatus::parse(&status)
        .ok_or_else(|| decode(format!("unknown task status `{status}`").into()))?;
    let progress: Option<f64> = row.try_get("progress")?;
    let message: Option<String> = row.try_get("progress_message")?;
    let result: Option<String> = row.try_get("result")?;
    let attempts: i32 = row.try_get("attempts")?;
    let queued: i32 = row.try_get("queued")?;
    Ok(Task {
        id: TaskId::parse(&id).map_err(|e| decode(Box::new(e)))?,
        tool: row.try_get("tool")?,
        status,
        created_at: time(row.try_get("created_at")?),
        updated_at: time(row.try_get("updated_at")?),
        expires_at: time(row.try_get("expires_at")?),
        progress: progress.map(|fraction| ProgressUpdate {
            fraction,
            message: message.unwrap_or_default(),
        }),
        attempts: u32::try_from(attempts).unwrap_or(0),
        queued: match queued {
            1 => Some(Queued::ForWorker),
            2 => Some(Queued::NoWorker),
            _ => None,
        },
        result: result
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
            .and_then(|stored| result_from_stored(&stored)),
    })
}

/// A time the table keeps (milliseconds since the Unix epoch).
fn time(ms: i64) -> chrono::DateTime<chrono::Utc> {
    DateTime::from_timestamp_millis(ms).unwrap_or_default()
}

/// `duration` in whole milliseconds.
fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}
