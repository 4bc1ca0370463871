//! The app's database, as toolspec uses it: SQLite (feature `sqlite`, embedded) or PostgreSQL
//! (feature `postgres`), each behind an sqlx pool the app owns. Query tools and `ref` fields
//! read the app's tables (`crate::query`); the audit trail, `once` keys and SQLite's `lock`s
//! live in toolspec's own tables, created by their migrations the first time something needs
//! them ([`Database::prepare`]), and tracked in `_toolspec_migrations`, apart from the app's
//! own migrations.
//!
//! Values in toolspec's tables are written the way each backend keeps them best: on PostgreSQL
//! `uuid`, `timestamptz` and `jsonb`; on SQLite text (times as RFC 3339 UTC with microseconds,
//! so that text order is time order). [`Codec`] is the one place that knows for the
//! statements sea-query builds; the audit trail's insert, written for speed, binds its values
//! the same way (`audit::sql`).
//!
//! Beside the handle: what a failed statement means for a call (`error`: the database could
//! not be reached, or the statement failed), the breaker that answers at once while the
//! database is known to be down and probes it in the background (`health` holds the state,
//! `breaker` trips and probes), and the liveness of the processes sharing the database
//! (`liveness`: each registers an instance and beats, so that what a dead process left —
//! a `once` claim, a SQLite lock, an open audit record — lapses within seconds).

use std::sync::{Arc, Weak};

use chrono::{DateTime, Utc};

pub(crate) mod breaker;
pub(crate) mod error;
pub(crate) mod health;
pub(crate) mod liveness;

use toolspec_core::storage::StorageError;

/// `$body` for whichever backend `$database` is on, with `$pool` its sqlx pool: the body is
/// written once (static SQL with `$1` placeholders, which both read) and compiled against each
/// backend's own types.
macro_rules! on_pool {
    ($database:expr, |$pool:ident| $body:expr) => {
        match $database.pool() {
            #[cfg(feature = "sqlite")]
            $crate::database::Pool::Sqlite($pool) => $body,
            #[cfg(feature = "postgres")]
            $crate::database::Pool::Postgres($pool) => $body,
        }
    };
}
pub(crate) use on_pool;

/// Milliseconds since the Unix epoch, as toolspec's bookkeeping tables keep time.
pub(crate) fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

/// Runs `statement`, a delete of toolspec's bookkeeping rows past their use whose one parameter
/// (`$1`) is a time, with `before`; a failure is logged (`what` was not deleted) and the rows
/// go on a later sweep.
pub(crate) async fn delete_before(
    database: &Database,
    statement: &'static str,
    before: i64,
    what: &str,
) {
    let deleted = on_pool!(database, |pool| {
        sqlx::query(statement)
            .bind(before)
            .execute(pool)
            .await
            .map(drop)
    });
    if let Err(e) = deleted {
        tracing::warn!(error = %e, "{what} were not deleted");
    }
}

/// How many task events a slow worker may fall behind before it skips some (it then looks for
/// work anyway).
const TASK_EVENTS: usize = 256;

/// Where query tools, `ref` fields, the audit trail, `once` and `lock` keep their data: hand one
/// to the generated `registry(handler, database)`.
///
/// ```ignore
/// let pool = sqlx::SqlitePool::connect("sqlite://store.db").await?;
/// let registry = tools::registry(App::default(), toolspec::Database::sqlite(pool));
/// ```
#[derive(Debug, Clone)]
pub struct Database {
    shared: Arc<Shared>,
}

/// What every clone of a [`Database`] shares.
#[derive(Debug)]
struct Shared {
    pool: Pool,
    /// Whether toolspec's own tables are migrated (once per database handle and its clones).
    prepared: tokio::sync::OnceCell<()>,
    /// Whether the database is known to be down (see `breaker`).
    health: health::Health,
    /// This process's instance on the database, registered on first use (see `liveness`).
    instance: tokio::sync::OnceCell<String>,
    /// What wakes task workers (see `tasks::events`).
    events: tokio::sync::broadcast::Sender<toolspec_core::storage::TaskEvent>,
    /// Whether the PostgreSQL listener of task notifications was started.
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    listening: std::sync::atomic::AtomicBool,
}

/// A [`Database`] that does not keep it open: for the tasks that run beside the calls (the
/// heartbeat, the probe), which end when the app lets go of every handle.
#[derive(Debug, Clone)]
pub(crate) struct WeakDatabase(Weak<Shared>);

impl WeakDatabase {
    /// The database, while some handle of it is still held.
    pub(crate) fn upgrade(&self) -> Option<Database> {
        self.0.upgrade().map(|shared| Database { shared })
    }
}

/// The pool of each backend.
#[derive(Debug, Clone)]
pub(crate) enum Pool {
    #[cfg(feature = "sqlite")]
    Sqlite(sqlx::SqlitePool),
    #[cfg(feature = "postgres")]
    Postgres(sqlx::PgPool),
}

impl Database {
    /// On this SQLite pool.
    #[cfg(feature = "sqlite")]
    pub fn sqlite(pool: sqlx::SqlitePool) -> Self {
        Self::new(Pool::Sqlite(pool))
    }

    /// On this PostgreSQL pool.
    #[cfg(feature = "postgres")]
    pub fn postgres(pool: sqlx::PgPool) -> Self {
        Self::new(Pool::Postgres(pool))
    }

    fn new(pool: Pool) -> Self {
        Self {
            shared: Arc::new(Shared {
                pool,
                prepared: tokio::sync::OnceCell::new(),
                health: health::Health::default(),
                instance: tokio::sync::OnceCell::new(),
                events: tokio::sync::broadcast::channel(TASK_EVENTS).0,
                listening: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    /// A handle that does not keep the database open.
    pub(crate) fn downgrade(&self) -> WeakDatabase {
        WeakDatabase(Arc::downgrade(&self.shared))
    }

    /// Whether the database is known to be down (see `breaker`).
    pub(crate) fn health(&self) -> &health::Health {
        &self.shared.health
    }

    /// The sender of task events (see `tasks::events`).
    pub(crate) fn events(
        &self,
    ) -> &tokio::sync::broadcast::Sender<toolspec_core::storage::TaskEvent> {
        &self.shared.events
    }

    /// Whether this call is the first to ask: the PostgreSQL listener is started once.
    #[cfg(feature = "postgres")]
    pub(crate) fn start_listening(&self) -> bool {
        !self
            .shared
            .listening
            .swap(true, std::sync::atomic::Ordering::AcqRel)
    }

    /// The cell of this process's instance id (see `liveness`).
    pub(crate) fn instance_cell(&self) -> &tokio::sync::OnceCell<String> {
        &self.shared.instance
    }

    /// Which database this is (`sqlite`, `postgres`).
    pub fn kind(&self) -> &'static str {
        match self.shared.pool {
            #[cfg(feature = "sqlite")]
            Pool::Sqlite(_) => "sqlite",
            #[cfg(feature = "postgres")]
            Pool::Postgres(_) => "postgres",
        }
    }

    /// The pool.
    pub(crate) fn pool(&self) -> &Pool {
        &self.shared.pool
    }

    /// How values go into and come out of toolspec's tables here.
    pub(crate) fn codec(&self) -> Codec {
        match self.shared.pool {
            #[cfg(feature = "sqlite")]
            Pool::Sqlite(_) => Codec::Sqlite,
            #[cfg(feature = "postgres")]
            Pool::Postgres(_) => Codec::Postgres,
        }
    }

    /// Creates or updates toolspec's own tables, once per handle (a failure is tried again on
    /// the next call). The error says whether the database could be reached.
    pub async fn prepare(&self) -> Result<(), StorageError> {
        let migrate = || async {
            let migrated = match self.pool() {
                #[cfg(feature = "sqlite")]
                Pool::Sqlite(pool) => migrator(MIGRATIONS_SQLITE).run(pool).await,
                #[cfg(feature = "postgres")]
                Pool::Postgres(pool) => migrator(MIGRATIONS_POSTGRES).run(pool).await,
            };
            migrated.map_err(|e| {
                let e = match e {
                    sqlx::migrate::MigrateError::Execute(e) => e,
                    other => return StorageError::failed("migrating toolspec's tables", other),
                };
                self.failed("migrating toolspec's tables", e)
            })
        };
        self.shared
            .prepared
            .get_or_try_init(migrate)
            .await
            .map(|_| ())
    }
}

/// toolspec's migrations on SQLite, in order.
#[cfg(feature = "sqlite")]
const MIGRATIONS_SQLITE: &[(&str, &str)] = &[
    (
        "toolspec tables",
        include_str!("../../migrations/sqlite/0001_toolspec.sql"),
    ),
    (
        "liveness and open audit records",
        include_str!("../../migrations/sqlite/0002_liveness.sql"),
    ),
    (
        "durable tasks",
        include_str!("../../migrations/sqlite/0003_tasks.sql"),
    ),
    (
        "round trips: spent request states, the answers of audited calls",
        include_str!("../../migrations/sqlite/0004_round_trips.sql"),
    ),
    (
        "rate budgets shared by processes",
        include_str!("../../migrations/sqlite/0005_shared_budgets.sql"),
    ),
    (
        "replays: the record a `once` replay answered with",
        include_str!("../../migrations/sqlite/0006_replays.sql"),
    ),
    (
        "a fair task queue: the tools each worker serves, a task's bound in flight, kept bytes",
        include_str!("../../migrations/sqlite/0007_fair_tasks.sql"),
    ),
    (
        "refusals coalesced: how many calls an audit record stands for",
        include_str!("../../migrations/sqlite/0008_coalesced_refusals.sql"),
    ),
];

/// toolspec's migrations on PostgreSQL, in order.
#[cfg(feature = "postgres")]
const MIGRATIONS_POSTGRES: &[(&str, &str)] = &[
    (
        "toolspec tables",
        include_str!("../../migrations/postgres/0001_toolspec.sql"),
    ),
    (
        "liveness and open audit records",
        include_str!("../../migrations/postgres/0002_liveness.sql"),
    ),
    (
        "durable tasks",
        include_str!("../../migrations/postgres/0003_tasks.sql"),
    ),
    (
        "round trips: spent request states, the answers of audited calls",
        include_str!("../../migrations/postgres/0004_round_trips.sql"),
    ),
    (
        "rate budgets shared by processes",
        include_str!("../../migrations/postgres/0005_shared_budgets.sql"),
    ),
    (
        "replays: the record a `once` replay answered with",
        include_str!("../../migrations/postgres/0006_replays.sql"),
    ),
    (
        "a fair task queue: the tools each worker serves, a task's bound in flight, kept bytes",
        include_str!("../../migrations/postgres/0007_fair_tasks.sql"),
    ),
    (
        "refusals coalesced: how many calls an audit record stands for",
        include_str!("../../migrations/postgres/0008_coalesced_refusals.sql"),
    ),
];

/// A migrator of toolspec's `migrations` (description, SQL), numbered from 1 in order.
fn migrator(migrations: &[(&'static str, &'static str)]) -> sqlx::migrate::Migrator {
    use sqlx::SqlSafeStr;
    use sqlx::migrate::{Migration, MigrationType, Migrator};
    let migrations = migrations
        .iter()
        .zip(1..)
        .map(|(&(description, sql), version)| {
            Migration::new(
                version,
                description.into(),
                MigrationType::Simple,
                sql.into_sql_str(),
                false,
            )
        })
        .collect();
    let mut migrator = Migrator::with_migrations(migrations);
    migrator.dangerous_set_table_name("_toolspec_migrations");
    migrator
}

/// How one backend keeps the values of toolspec's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Codec {
    /// Text for UUIDs, times and JSON.
    #[cfg_attr(
        not(feature = "sqlite"),
        allow(dead_code, reason = "built with `sqlite` only")
    )]
    Sqlite,
    /// `uuid`, `timestamptz`, `jsonb`.
    #[cfg_attr(
        not(feature = "postgres"),
        allow(dead_code, reason = "built with `postgres` only")
    )]
    Postgres,
}

impl Codec {
    /// A point in time.
    pub(crate) fn time(self, at: DateTime<Utc>) -> sea_query::Value {
        match self {
            Self::Sqlite => time_text(at).into(),
            #[cfg(feature = "postgres")]
            Self::Postgres => at.into(),
            #[cfg(not(feature = "postgres"))]
            Self::Postgres => time_text(at).into(),
        }
    }

    /// A UUID.
    pub(crate) fn uuid(self, id: uuid::Uuid) -> sea_query::Value {
        match self {
            Self::Sqlite => id.hyphenated().to_string().into(),
            #[cfg(feature = "postgres")]
            Self::Postgres => id.into(),
            #[cfg(not(feature = "postgres"))]
            Self::Postgres => id.hyphenated().to_string().into(),
        }
    }
}

/// `at` as SQLite keeps it: RFC 3339 in UTC with six fraction digits.
pub(crate) fn time_text(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

impl Database {
    /// Runs a statement sea-query built (every value bound); the rows it affected. An error
    /// says what it was `doing`.
    pub(crate) async fn execute(
        &self,
        statement: &impl sea_query_sqlx::SqlxBinder,
        doing: &str,
    ) -> Result<u64, StorageError> {
        use sqlx::AssertSqlSafe;
        let done = match self.pool() {
            #[cfg(feature = "sqlite")]
            Pool::Sqlite(pool) => {
                let (sql, values) = statement.build_sqlx(sea_query::SqliteQueryBuilder);
                let query = sqlx::query_with(AssertSqlSafe(sql), values);
                query.execute(pool).await.map(|done| done.rows_affected())
            }
            #[cfg(feature = "postgres")]
            Pool::Postgres(pool) => {
                let (sql, values) = statement.build_sqlx(sea_query::PostgresQueryBuilder);
                let query = sqlx::query_with(AssertSqlSafe(sql), values);
                query.execute(pool).await.map(|done| done.rows_affected())
            }
        };
        done.map_err(|e| self.failed(doing, e))
    }
}
