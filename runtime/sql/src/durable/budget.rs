//! Rate budgets every process on the database shares, in `toolspec_budgets`: GCRA in one
//! statement. A budget is its theoretical arrival time (`tat`); a call may pass while `tat` is
//! at most the burst's tolerance (`interval × (burst − 1)`) ahead of now, and moves it one
//! `interval` on from `max(tat, now)`. The upsert applies that rule atomically (its `WHERE`
//! refuses the update of a budget that is spent, and the statement returns nothing then); a
//! refused call reads `tat` to say when one may pass. Rows whose `tat` has passed are swept.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use toolspec_core::storage::StorageError;

use crate::database::{Database, delete_before, now_ms, on_pool};

/// Spends one call of budget `key` (a call every `interval`, `burst` at once): `None` when it
/// may run, else how long until one may.
pub(crate) async fn spend(
    database: &Database,
    key: &str,
    interval: Duration,
    burst: u32,
) -> Result<Option<Duration>, StorageError> {
    database.prepare().await?;
    let now = now_ms();
    let interval = i64::try_from(interval.as_millis())
        .unwrap_or(i64::MAX)
        .max(1);
    let tolerance = interval.saturating_mul(i64::from(burst.max(1) - 1));
    let upsert = match database.kind() {
        "postgres" => UPSERT_POSTGRES,
        _ => UPSERT_SQLITE,
    };
    let admitted: Option<i64> = on_pool!(database, |pool| {
        sqlx::query_scalar(upsert)
            .bind(key)
            .bind(now)
            .bind(interval)
            .bind(tolerance)
            .fetch_optional(pool)
            .await
    })
    .map_err(|e| database.failed("spending a shared rate budget", e))?;
    sweep_now_and_then(database, now).await;
    if admitted.is_some() {
        return Ok(None);
    }
    let tat: Option<i64> = on_pool!(database, |pool| {
        sqlx::query_scalar("SELECT tat FROM toolspec_budgets WHERE key = $1")
            .bind(key)
            .fetch_optional(pool)
            .await
    })
    .map_err(|e| database.failed("reading a shared rate budget", e))?;
    // Refused: the budget frees a call once `tat - tolerance` has passed.
    let wait = tat.map_or(interval, |tat| tat - tolerance - now).max(1);
    Ok(Some(Duration::from_millis(
        u64::try_from(wait).unwrap_or(1),
    )))
}

/// The upsert on SQLite, whose `MAX` of two values is PostgreSQL's `GREATEST`.
const UPSERT_SQLITE: &str = "INSERT INTO toolspec_budgets (key, tat) VALUES ($1, $2 + $3)
     ON CONFLICT (key) DO UPDATE SET tat = MAX(toolspec_budgets.tat, $2) + $3
     WHERE MAX(toolspec_budgets.tat, $2) - $2 <= $4
     RETURNING tat";

/// The upsert on PostgreSQL.
const UPSERT_POSTGRES: &str = "INSERT INTO toolspec_budgets (key, tat) VALUES ($1, $2 + $3)
     ON CONFLICT (key) DO UPDATE SET tat = GREATEST(toolspec_budgets.tat, $2) + $3
     WHERE GREATEST(toolspec_budgets.tat, $2) - $2 <= $4
     RETURNING tat";

/// Deletes the budgets that are full again, on one spending in 256.
async fn sweep_now_and_then(database: &Database, now: i64) {
    static SPENT: AtomicU32 = AtomicU32::new(0);
    if !SPENT.fetch_add(1, Ordering::Relaxed).is_multiple_of(256) {
        return;
    }
    let statement = "DELETE FROM toolspec_budgets WHERE tat <= $1";
    delete_before(database, statement, now, "full rate budgets").await;
}
