//! Spent request states in `toolspec_spent_states`: a round trip's sealed state opens once,
//! across every process on the database. Inserting its id is the spending; a conflict means it
//! was spent before. Rows are swept once their state has expired (it could not open anyway).

use std::sync::atomic::{AtomicU32, Ordering};

use toolspec_core::storage::StorageError;

use crate::database::{Database, delete_before, now_ms, on_pool};

/// Spends the state `id`, which opens until `expires_at_ms`: `true` the first time.
pub(crate) async fn spend(
    database: &Database,
    id: &str,
    expires_at_ms: i64,
) -> Result<bool, StorageError> {
    database.prepare().await?;
    let now = now_ms();
    let inserted = on_pool!(database, |pool| {
        sqlx::query(
            "INSERT INTO toolspec_spent_states (id, spent_at, expires_at) VALUES ($1, $2, $3)
             ON CONFLICT (id) DO NOTHING",
        )
        .bind(id)
        .bind(now)
        .bind(expires_at_ms)
        .execute(pool)
        .await
        .map(|done| done.rows_affected())
    })
    .map_err(|e| database.failed("spending a request state", e))?;
    sweep_now_and_then(database, now).await;
    Ok(inserted == 1)
}

/// Deletes the rows of expired states, on one spending in 64.
async fn sweep_now_and_then(database: &Database, now: i64) {
    static SPENT: AtomicU32 = AtomicU32::new(0);
    if !SPENT.fetch_add(1, Ordering::Relaxed).is_multiple_of(64) {
        return;
    }
    let statement = "DELETE FROM toolspec_spent_states WHERE expires_at <= $1";
    delete_before(database, statement, now, "expired request states").await;
}
