//! `lock`: on PostgreSQL a session advisory lock on the key's number, held by a connection of
//! its own for as long as the call runs (a process that dies lets go with its connection); on
//! SQLite a row of `toolspec_locks` naming the process that holds it (the guarantee processes
//! sharing the file need: a dead process's lock lapses when the process is found dead, within
//! seconds, or when its lease ends). A call polls for the lock until its `wait` passes.

use std::time::{Duration, Instant};

#[cfg(feature = "sqlite")]
use uuid::Uuid;

use crate::database::{Database, Pool};
#[cfg(feature = "sqlite")]
use crate::database::{liveness, now_ms};
#[cfg(feature = "sqlite")]
use crate::durable::lease::lease;
use toolspec_core::BoxFuture;
use toolspec_core::storage::StorageError;
use toolspec_core::storage::{HeldLock, Key};
use toolspec_core::{Descriptor, SharedDescriptor};

/// A lock this call holds.
pub(crate) struct Held {
    how: Option<How>,
}

enum How {
    #[cfg(feature = "postgres")]
    Advisory {
        connection: sqlx::pool::PoolConnection<sqlx::Postgres>,
        number: i64,
    },
    #[cfg(feature = "sqlite")]
    Row {
        database: Database,
        tool: SharedDescriptor,
        key_hash: String,
        holder: String,
    },
}

/// Takes the lock on `key` for a call of `tool`, waiting up to `wait`; `None` when another call
/// held it all that time.
pub(crate) async fn acquire(
    database: &Database,
    tool: &SharedDescriptor,
    key: &Key,
    wait: Duration,
) -> Result<Option<Held>, StorageError> {
    let give_up = Instant::now() + wait;
    let mut pause = Duration::from_millis(2);
    let _ = tool;
    match database.pool() {
        #[cfg(feature = "postgres")]
        Pool::Postgres(pool) => {
            let number = key.number();
            loop {
                // A connection only for the try: a waiting call holds none of the pool's.
                let mut connection = pool
                    .acquire()
                    .await
                    .map_err(|e| database.failed("taking a lock", e))?;
                let got: bool = sqlx::query_scalar("SELECT pg_try_advisory_lock($1)")
                    .bind(number)
                    .fetch_one(&mut *connection)
                    .await
                    .map_err(|e| database.failed("taking a lock", e))?;
                if got {
                    let how = How::Advisory { connection, number };
                    return Ok(Some(Held { how: Some(how) }));
                }
                drop(connection);
                if !pause_until(give_up, &mut pause).await {
                    return Ok(None);
                }
            }
        }
        #[cfg(feature = "sqlite")]
        Pool::Sqlite(pool) => {
            let instance = database.instance().await?.to_owned();
            let holder = Uuid::now_v7().simple().to_string();
            let lease_ms = i64::try_from(lease(tool).as_millis()).unwrap_or(i64::MAX);
            loop {
                let now = now_ms();
                // Taken when free, past its lease, or held by a process found dead.
                let taken = sqlx::query(
                    "INSERT INTO toolspec_locks (tool, key_hash, holder, acquired_at, lease_until, instance)
                     VALUES ($1, $2, $3, $4, $5, $6)
                     ON CONFLICT (tool, key_hash) DO UPDATE SET holder = excluded.holder,
                        acquired_at = excluded.acquired_at, lease_until = excluded.lease_until,
                        instance = excluded.instance
                     WHERE toolspec_locks.lease_until <= excluded.acquired_at
                        OR NOT EXISTS (SELECT 1 FROM toolspec_instances i
                            WHERE i.id = toolspec_locks.instance AND i.seen_at > $7)",
                )
                .bind(&*tool.name)
                .bind(&key.hash)
                .bind(&holder)
                .bind(now)
                .bind(now + lease_ms)
                .bind(&instance)
                .bind(liveness::cutoff(now))
                .execute(pool)
                .await
                .map_err(|e| database.failed("taking a lock", e))?;
                if taken.rows_affected() == 1 {
                    let how = How::Row {
                        database: database.clone(),
                        tool: tool.clone(),
                        key_hash: key.hash.clone(),
                        holder,
                    };
                    return Ok(Some(Held { how: Some(how) }));
                }
                if !pause_until(give_up, &mut pause).await {
                    return Ok(None);
                }
            }
        }
    }
}

/// Sleeps a while (longer each time, never past `give_up`); false once `give_up` has passed.
async fn pause_until(give_up: Instant, pause: &mut Duration) -> bool {
    let now = Instant::now();
    if now >= give_up {
        return false;
    }
    tokio::time::sleep((*pause).min(give_up - now)).await;
    *pause = (*pause * 2).min(Duration::from_millis(50));
    true
}

/// Whether a call holds the lock on `key` now (taking nothing).
pub(crate) async fn held(
    database: &Database,
    tool: &Descriptor,
    key: &Key,
) -> Result<bool, StorageError> {
    let held = match database.pool() {
        #[cfg(feature = "postgres")]
        Pool::Postgres(pool) => {
            // A bigint key shows as its high half in `classid`, its low half in `objid`.
            let number = key.number();
            sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted
                   AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                   AND classid = ($1::bigint)::oid AND objid = ($2::bigint)::oid AND objsubid = 1)",
            )
            .bind((number >> 32) & 0xffff_ffff)
            .bind(number & 0xffff_ffff)
            .fetch_one(pool)
            .await
        }
        #[cfg(feature = "sqlite")]
        Pool::Sqlite(pool) => {
            let now = now_ms();
            sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM toolspec_locks l
                   WHERE l.tool = $1 AND l.key_hash = $2 AND l.lease_until > $3
                     AND EXISTS (SELECT 1 FROM toolspec_instances i
                       WHERE i.id = l.instance AND i.seen_at > $4))",
            )
            .bind(&*tool.name)
            .bind(&key.hash)
            .bind(now)
            .bind(liveness::cutoff(now))
            .fetch_one(pool)
            .await
        }
    };
    let _ = tool;
    held.map_err(|e| database.failed("looking at a lock", e))
}

impl HeldLock for Held {
    fn release(mut self: Box<Self>) -> BoxFuture<'static, ()> {
        let how = self.how.take();
        Box::pin(release(how))
    }
}

/// Lets the lock go.
async fn release(how: Option<How>) {
    {
        let released = match how {
            #[cfg(feature = "postgres")]
            Some(How::Advisory {
                mut connection,
                number,
            }) => sqlx::query("SELECT pg_advisory_unlock($1)")
                .bind(number)
                .execute(&mut *connection)
                .await
                .map(drop),
            #[cfg(feature = "sqlite")]
            Some(How::Row {
                database,
                tool,
                key_hash,
                holder,
            }) => delete_row(&database, &tool.name, &key_hash, &holder).await,
            None => Ok(()),
        };
        if let Err(e) = released {
            tracing::warn!(error = %e, "a lock could not be let go; it lapses with its connection or lease");
        }
    }
}

impl Drop for Held {
    /// A call dropped while it held the lock (its client went away) lets go all the same: the
    /// advisory lock's connection is closed rather than returned to the pool, the row deleted.
    fn drop(&mut self) {
        match self.how.take() {
            #[cfg(feature = "postgres")]
            Some(How::Advisory { connection, .. }) => drop(connection.detach()),
            #[cfg(feature = "sqlite")]
            Some(How::Row {
                database,
                tool,
                key_hash,
                holder,
            }) => {
                if let Ok(runtime) = tokio::runtime::Handle::try_current() {
                    runtime.spawn(async move {
                        let _ = delete_row(&database, &tool.name, &key_hash, &holder).await;
                    });
                }
            }
            None => {}
        }
    }
}

#[cfg(feature = "sqlite")]
async fn delete_row(
    database: &Database,
    tool: &str,
    key_hash: &str,
    holder: &str,
) -> Result<(), sqlx::Error> {
    match database.pool() {
        Pool::Sqlite(pool) => sqlx::query(
            "DELETE FROM toolspec_locks WHERE tool = $1 AND key_hash = $2 AND holder = $3",
        )
        .bind(tool)
        .bind(key_hash)
        .bind(holder)
        .execute(pool)
        .await
        .map(drop),
        #[cfg(feature = "postgres")]
        Pool::Postgres(_) => Ok(()),
    }
}
