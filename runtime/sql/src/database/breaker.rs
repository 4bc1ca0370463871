//! The breaker: a statement that finds the database unreachable starts a probe, which
//! connects on its own (outside the pool, so that a pool busy with long calls is not taken for
//! a server that is down). While the probe cannot connect, the database is known to be down:
//! every call that needs it answers `unavailable` at once (`Database::known_down`) instead of
//! waiting for the pool's timeout. The probe tries again every [`PROBE_EVERY`] and clears the
//! state when it connects; nothing waits for it, and recovery needs nobody.

use std::time::Duration;

use sqlx::Connection;

use toolspec_core::storage::StorageError;

use crate::database::error;
use crate::database::{Database, Pool, WeakDatabase};

/// How often a probe tries to reach a database that is down.
pub(crate) const PROBE_EVERY: Duration = Duration::from_secs(1);

/// How long one probe may take to connect.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

impl Database {
    /// The error of a driver `error` while `doing` something; one that says the database could
    /// not be reached starts a probe.
    pub(crate) fn failed(&self, doing: &str, error: sqlx::Error) -> StorageError {
        let failed = error::of(doing, error);
        if failed.is_unreachable() {
            self.suspect(&failed.chain());
        }
        failed
    }

    /// Starts a probe (unless one runs) because something found the database unreachable:
    /// `cause` says what.
    pub(crate) fn suspect(&self, cause: &str) {
        if !self.health().start_probing() {
            return;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn(probe(self.downgrade(), cause.to_owned()))),
            Err(_) => self.health().stop_probing(),
        }
    }

    /// While the database is known to be down: why, for the developer.
    pub(crate) fn known_down(&self) -> Option<String> {
        let (down_for, cause) = self.health().down_for()?;
        Some(format!(
            "the database has been unreachable for {:.1} s ({cause})",
            down_for.as_secs_f64()
        ))
    }
}

/// Tries to reach `database` until it can, marking it down meanwhile and up when it can.
async fn probe(database: WeakDatabase, cause: String) {
    let mut tries = 0u64;
    loop {
        let Some(db) = database.upgrade() else {
            return;
        };
        match tokio::time::timeout(PROBE_TIMEOUT, reach(&db)).await {
            Ok(Ok(())) => {
                if let Some(down_for) = db.health().mark_up() {
                    let down_for_ms = u64::try_from(down_for.as_millis()).unwrap_or(u64::MAX);
                    tracing::warn!(down_for_ms, "the database is reachable again");
                }
                db.health().stop_probing();
                return;
            }
            Ok(Err(e)) if tries == 0 => {
                tracing::error!(cause, probe = %e, "the database is unreachable: calls that need it answer `unavailable` until a probe reaches it");
            }
            Err(_) if tries == 0 => {
                tracing::error!(
                    cause,
                    "the database is unreachable (a probe timed out): calls that need it answer `unavailable` until a probe reaches it"
                );
            }
            _ => {}
        }
        db.health().mark_down(&cause);
        tries += 1;
        drop(db);
        tokio::time::sleep(PROBE_EVERY).await;
    }
}

/// Connects to the database on a connection of its own and pings it.
async fn reach(database: &Database) -> Result<(), sqlx::Error> {
    match database.pool() {
        #[cfg(feature = "sqlite")]
        Pool::Sqlite(pool) => {
            let mut connection =
                sqlx::SqliteConnection::connect_with(&pool.connect_options()).await?;
            connection.ping().await?;
            connection.close().await
        }
        #[cfg(feature = "postgres")]
        Pool::Postgres(pool) => {
            let mut connection = sqlx::PgConnection::connect_with(&pool.connect_options()).await?;
            connection.ping().await?;
            connection.close().await
        }
    }
}
