//! Durable tasks in `toolspec_tasks`: stored before their caller gets the handle, claimed by
//! one worker at a time under a lease (on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so that
//! workers of several processes never wait on each other; on SQLite the one statement holds
//! the database's write lock), renewed while they run, ended once, swept past their retention.
//! Workers are woken by events (`events`): in the process at once, and on PostgreSQL from
//! every process through `LISTEN`/`NOTIFY`.

pub(crate) mod events;

use std::time::Duration;

use chrono::DateTime;
use serde_json::Value;
use toolspec_core::ProgressUpdate;
use toolspec_core::storage::{ClaimedTask, Enqueued, NewTask, Renewal, StorageError, TaskOutcome};
use toolspec_core::tasks::{Task, TaskId, TaskStatus, result_from_stored};

use crate::database::{Database, Pool, now_ms, on_pool};

/// The columns a caller's view of a task is read from.
const VIEW: &str = "id, tool, status, created_at, updated_at, expires_at, progress, \
                    progress_message, attempts, result";

/// Stores `task` unless its owner has `per_owner` unfinished tasks.
pub(crate) async fn enqueue(
    database: &Database,
    task: &NewTask,
    per_owner: u32,
) -> Result<Enqueued, StorageError> {
    const INSERT: &str = "INSERT INTO toolspec_tasks (id, owner, tool, adapter, scopes, ambient, \
            arguments, trace_id, status, attempts, timeout_ms, created_at, updated_at, expires_at)
         SELECT $1, $2, $3, $4, $5, $6, $7, $8, 'working', 0, $9, $10, $10, $11
         WHERE (SELECT COUNT(*) FROM toolspec_tasks WHERE owner = $2 AND status = 'working') < $12";
    let created = task.created_at.timestamp_millis();
    let expires = task.expires_at.timestamp_millis();
    let timeout = i64::try_from(task.timeout.as_millis()).unwrap_or(i64::MAX);
    let (scopes, ambient, arguments) = (
        task.scopes.to_string(),
        task.ambient.to_string(),
        task.arguments.to_string(),
    );
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
                .bind(i64::from(per_owner))
                .execute($executor)
                .await
                .map(|done| done.rows_affected())
        };
    }
    let inserted = match database.pool() {
        // One statement: SQLite's write lock makes the count and the insert one step.
        #[cfg(feature = "sqlite")]
        Pool::Sqlite(pool) => insert!(pool),
        // The owner's advisory lock makes the count and the insert one step across processes;
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
        return Ok(Enqueued::OwnerAtBound);
    }
    let _ = database
        .task_events()
        .send(toolspec_core::storage::TaskEvent::Enqueued);
    Ok(Enqueued::Stored)
}

/// Task `id` of `owner`, unless its retention passed.
pub(crate) async fn read(
    database: &Database,
    id: &TaskId,
    owner: &str,
) -> Result<Option<Task>, StorageError> {
    let sql = format!(
        "SELECT {VIEW} FROM toolspec_tasks WHERE id = $1 AND owner = $2 AND expires_at > $3"
    );
    let rows = on_pool!(database, |pool| {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(id.as_str())
            .bind(owner)
            .bind(now_ms())
            .fetch_optional(pool)
            .await
            .and_then(|row| row.as_ref().map(view).transpose())
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
        "SELECT {VIEW} FROM toolspec_tasks WHERE owner = $1 AND status = 'working' \
         AND expires_at > $2 ORDER BY created_at DESC, id LIMIT $3"
    );
    let rows = on_pool!(database, |pool| {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(owner)
            .bind(now_ms())
            .bind(i64::from(limit))
            .fetch_all(pool)
            .await
            .and_then(|rows| rows.iter().map(view).collect())
    });
    rows.map_err(|e| database.failed("listing tasks", e))
}

/// Cancels task `id` of `owner` unless it ended, and tells the worker running it.
pub(crate) async fn cancel(
    database: &Database,
    id: &TaskId,
    owner: &str,
) -> Result<Option<Task>, StorageError> {
    const CANCEL: &str = "UPDATE toolspec_tasks SET status = 'cancelled', updated_at = $1, \
            arguments = NULL, ambient = NULL, progress = NULL, progress_message = NULL
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
        let event = toolspec_core::storage::TaskEvent::Cancelled(id.clone());
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

/// Claims the oldest task nobody holds for `worker`.
pub(crate) async fn claim(
    database: &Database,
    worker: &str,
    lease: Duration,
) -> Result<Option<ClaimedTask>, StorageError> {
    let skip_locked = match database.pool() {
        #[cfg(feature = "postgres")]
        Pool::Postgres(_) => " FOR UPDATE SKIP LOCKED",
        #[allow(unreachable_patterns)]
        _ => "",
    };
    let sql = format!(
        "UPDATE toolspec_tasks SET claimed_by = $1, lease_until = $2, attempts = attempts + 1, \
            updated_at = $3
         WHERE id = (SELECT id FROM toolspec_tasks WHERE status = 'working' \
            AND (lease_until IS NULL OR lease_until < $3) ORDER BY created_at, id LIMIT 1{skip_locked})
           AND status = 'working'
         RETURNING id, owner, tool, adapter, scopes, ambient, arguments, trace_id, timeout_ms, \
            created_at, expires_at, attempts"
    );
    let now = now_ms();
    let claimed = on_pool!(database, |pool| {
        async {
            use sqlx::Row as _;
            let Some(row) = sqlx::query(sqlx::AssertSqlSafe(sql))
                .bind(worker)
                .bind(now + millis(lease))
                .bind(now)
                .fetch_optional(pool)
                .await?
            else {
                return Ok(None);
            };
            let json = |column: &str| -> Result<Value, sqlx::Error> {
                let text: Option<String> = row.try_get(column)?;
                Ok(text
                    .and_then(|t| serde_json::from_str(&t).ok())
                    .unwrap_or(Value::Null))
            };
            let id: String = row.try_get("id")?;
            let timeout: i64 = row.try_get("timeout_ms")?;
            let attempts: i32 = row.try_get("attempts")?;
            Ok::<_, sqlx::Error>(Some(ClaimedTask {
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
            }))
        }
        .await
    });
    claimed.map_err(|e| database.failed("claiming a task", e))
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

/// Ends task `id` with `outcome`, if `worker` still holds it.
pub(crate) async fn finish(
    database: &Database,
    id: &TaskId,
    worker: &str,
    outcome: &TaskOutcome,
) -> Result<bool, StorageError> {
    const FINISH: &str = "UPDATE toolspec_tasks SET status = $1, result = $2, updated_at = $3, \
            claimed_by = NULL, lease_until = NULL, arguments = NULL, ambient = NULL, \
            progress = NULL, progress_message = NULL
         WHERE id = $4 AND claimed_by = $5 AND status = 'working'";
    let result = outcome.result.as_ref().map(Value::to_string);
    let done = on_pool!(database, |pool| {
        sqlx::query(FINISH)
            .bind(outcome.status.as_str())
            .bind(result.as_deref())
            .bind(now_ms())
            .bind(id.as_str())
            .bind(worker)
            .execute(pool)
            .await
            .map(|done| done.rows_affected())
    })
    .map_err(|e| database.failed("ending a task", e))?;
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

/// A caller's view of the task in `row` (the [`VIEW`] columns).
fn view<R: sqlx::Row>(row: &R) -> Result<Task, sqlx::Error>
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
