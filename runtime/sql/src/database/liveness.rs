//! Which processes sharing the database are alive. Each process registers an instance in
//! `toolspec_instances` the first time it needs one and beats every [`BEAT`] while any handle
//! of its [`Database`] is held; an instance not seen for [`LAPSE`] is dead. What a process
//! leaves behind names its instance — a `once` claim, a SQLite lock, an audit record opened
//! before a `required` call — so another process can tell within seconds that it was left by
//! a dead one (killed, crashed, cut off from the database) and take it over or close it.
//!
//! A process cut off from the database for longer than the lapse looks dead to the others
//! even if it lives: what it held may then be taken over while it still runs. Its own
//! statements fail meanwhile, so what it held cannot commit either, unless the database is
//! reachable from the others and not from it (a partition).

use std::time::Duration;

use uuid::Uuid;

use crate::database::{Database, WeakDatabase, delete_before, now_ms, on_pool};
use toolspec_core::storage::StorageError;

/// How often a live process says so.
pub(crate) const BEAT: Duration = Duration::from_secs(2);

/// How long an instance may go unseen before it counts as dead: the core's.
pub(crate) use toolspec_core::storage::LAPSE;

/// How long a dead instance's row is kept (then any process's heartbeat deletes it).
const FORGET: Duration = Duration::from_secs(24 * 3600);

impl Database {
    /// This process's instance on the database, registered (and its heartbeat started) on
    /// first use.
    pub(crate) async fn instance(&self) -> Result<&str, StorageError> {
        let id = self
            .instance_cell()
            .get_or_try_init(|| async {
                let id = Uuid::now_v7().simple().to_string();
                beat(self, &id).await?;
                tokio::spawn(heartbeat(self.downgrade(), id.clone()));
                Ok::<_, StorageError>(id)
            })
            .await?;
        Ok(id)
    }
}

/// The time (milliseconds since the Unix epoch) a live instance was last seen after, at `now`.
pub(crate) fn cutoff(now: i64) -> i64 {
    now - millis(LAPSE)
}

/// Whether an instance last seen at `seen_at` (none: no such instance) is alive at `now`.
pub(crate) fn alive(seen_at: Option<i64>, now: i64) -> bool {
    seen_at.is_some_and(|seen| seen > cutoff(now))
}

/// Says that instance `id` is alive now (registering it when it is not there).
async fn beat(database: &Database, id: &str) -> Result<(), StorageError> {
    let now = now_ms();
    on_pool!(database, |pool| {
        sqlx::query(
            "INSERT INTO toolspec_instances (id, started_at, seen_at) VALUES ($1, $2, $2)
             ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at",
        )
        .bind(id)
        .bind(now)
        .execute(pool)
        .await
        .map(drop)
    })
    .map_err(|e| database.failed("registering this process on the database", e))
}

/// Beats for instance `id` until every handle of the database is gone; now and then deletes
/// the rows of instances long dead.
async fn heartbeat(database: WeakDatabase, id: String) {
    let mut beats = 0u64;
    loop {
        tokio::time::sleep(BEAT).await;
        let Some(db) = database.upgrade() else {
            return;
        };
        if let Err(e) = beat(&db, &id).await {
            tracing::debug!(error = %e, "a heartbeat was not written");
        }
        beats += 1;
        if beats.is_multiple_of(150) {
            forget_the_dead(&db).await;
        }
    }
}

async fn forget_the_dead(database: &Database) {
    let before = now_ms() - millis(FORGET);
    let statement = "DELETE FROM toolspec_instances WHERE seen_at < $1";
    delete_before(database, statement, before, "dead instances").await;
    // The tools the workers of dead instances served (they claim nothing, and no task waits
    // on them).
    let statement = "DELETE FROM toolspec_task_workers WHERE NOT EXISTS \
        (SELECT 1 FROM toolspec_instances i WHERE i.id = instance AND i.seen_at > $1)";
    delete_before(database, statement, cutoff(now_ms()), "dead workers' tools").await;
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instance_unseen_for_the_lapse_is_dead() {
        let now = 1_000_000;
        assert!(alive(Some(now - 1), now));
        assert!(alive(Some(now - millis(LAPSE) + 1), now));
        assert!(!alive(Some(now - millis(LAPSE)), now));
        assert!(!alive(None, now), "no such instance");
    }
}
