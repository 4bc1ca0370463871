//! Where the store's data lives — a SQLite file, a private in-memory SQLite database, or a
//! PostgreSQL database — and the one door to it: a transaction ([`Tx`]) on either backend.
//!
//! The store's statements are written once: their SQL is the dialect both databases read
//! (`$1` placeholders, `RETURNING`), their values are types sqlx encodes for both (`i64`,
//! text, `bool`, chrono date-times), and [`on_backend!`] compiles each body once per backend's
//! own types. What differs lives here: the schema of each (`migrations/`), how a writing
//! transaction starts, and how identity keys resume after the seed.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};
use sqlx::{Connection, Postgres, SqlSafeStr, Sqlite, Transaction};

use super::{Doing, StoreError};

/// Where the store keeps its data: what `--db` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file, created on first use.
    File(PathBuf),
    /// A private in-memory SQLite database, gone when the store closes (`:memory:`).
    Memory,
    /// A PostgreSQL database, by its `postgres://` (or `postgresql://`) URL.
    Postgres(String),
}

impl FromStr for Location {
    type Err = String;

    /// `:memory:`, a `postgres://` URL, or else a SQLite file's path (`sqlite:` prefix
    /// optional).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if text.is_empty() {
            return Err(
                "the database is empty: give a SQLite file's path or a postgres:// URL".into(),
            );
        }
        if text == ":memory:" || text == "sqlite::memory:" {
            return Ok(Self::Memory);
        }
        if text.starts_with("postgres://") || text.starts_with("postgresql://") {
            PgConnectOptions::from_str(text)
                .map_err(|e| format!("`{}` is not a PostgreSQL URL: {e}", redacted(text)))?;
            return Ok(Self::Postgres(text.to_owned()));
        }
        if let Some((scheme, _)) = text.split_once("://")
            && scheme != "sqlite"
        {
            return Err(format!(
                "`{scheme}://` is not a database the store runs on: give a SQLite file's path or a postgres:// URL"
            ));
        }
        let path = text
            .strip_prefix("sqlite://")
            .or_else(|| text.strip_prefix("sqlite:"));
        Ok(Self::File(PathBuf::from(path.unwrap_or(text))))
    }
}

/// For messages: the file's absolute path, or the server and database (never a password).
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::File(path) => {
                let path = std::path::absolute(path).unwrap_or_else(|_| path.clone());
                write!(f, "{}", path.display())
            }
            Self::Memory => f.write_str("an in-memory database (gone when this command exits)"),
            Self::Postgres(url) => f.write_str(&redacted(url)),
        }
    }
}

/// `url` without its password.
fn redacted(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    match rest.split_once('@') {
        Some((user, host)) if user.contains(':') => {
            let user = user.split_once(':').map_or(user, |(user, _)| user);
            format!("{scheme}://{user}:***@{host}")
        }
        _ => url.to_owned(),
    }
}

/// One value per backend the store runs on.
#[derive(Debug, Clone)]
pub(super) enum Backend<S, P> {
    Sqlite(S),
    Postgres(P),
}

/// `$body` for whichever backend `$value` holds, with `$inner` bound to what it holds: the body
/// is written once and compiled against each backend's own types.
macro_rules! on_backend {
    ($value:expr, |$inner:ident| $body:expr) => {
        match $value {
            $crate::store::backend::Backend::Sqlite($inner) => $body,
            $crate::store::backend::Backend::Postgres($inner) => $body,
        }
    };
}
pub(super) use on_backend;

/// The store's connections.
pub(super) type Pool = Backend<SqlitePool, PgPool>;

/// An open transaction: every statement of the store runs in one (see `statements.rs`).
pub(super) struct Tx(
    pub(super) Backend<Transaction<'static, Sqlite>, Transaction<'static, Postgres>>,
);

impl Pool {
    /// Connects to `location` (creating a SQLite file when missing) and brings its schema up to
    /// date; a statement waits at most `acquire_timeout` for a connection.
    pub(super) async fn open(
        location: &Location,
        acquire_timeout: Duration,
    ) -> Result<Self, StoreError> {
        let pool = match location {
            Location::Memory => {
                // Each connection to `:memory:` would get its own database: keep exactly one
                // connection, forever.
                let options = SqliteConnectOptions::from_str("sqlite::memory:")
                    .doing(|| "configuring an in-memory database".into())?;
                let pool = SqlitePoolOptions::new()
                    .max_connections(1)
                    .min_connections(1)
                    .idle_timeout(None)
                    .max_lifetime(None)
                    .connect_with(options.foreign_keys(true))
                    .await;
                Self::Sqlite(pool.doing(|| format!("opening {location}"))?)
            }
            Location::File(path) => {
                let options = SqliteConnectOptions::new()
                    .filename(path)
                    .create_if_missing(true)
                    .foreign_keys(true)
                    .busy_timeout(Duration::from_secs(5));
                let pool = SqlitePoolOptions::new()
                    .max_connections(4)
                    .acquire_timeout(acquire_timeout)
                    .connect_with(options)
                    .await;
                Self::Sqlite(pool.doing(|| format!("opening database {location}"))?)
            }
            Location::Postgres(url) => {
                let options = PgConnectOptions::from_str(url)
                    .doing(|| format!("reading the PostgreSQL URL {location}"))?;
                // One connection first, for the server's own answer (refused, unknown
                // database, authentication) rather than the pool's timeout after retrying.
                PgConnection::connect_with(&options)
                    .await
                    .doing(|| format!("connecting to {location}"))?
                    .close()
                    .await
                    .doing(|| format!("connecting to {location}"))?;
                let pool = PgPoolOptions::new()
                    .max_connections(8)
                    .acquire_timeout(acquire_timeout)
                    .connect_with(options)
                    .await;
                Self::Postgres(pool.doing(|| format!("connecting to {location}"))?)
            }
        };
        pool.migrate().await?;
        Ok(pool)
    }

    /// Connections to `location` that may only read (`toolspec::read_only`): every statement
    /// that writes is refused by the database. The store must exist (nothing is created or
    /// migrated); an in-memory database has no second connection to open.
    pub(super) async fn open_read_only(
        location: &Location,
        acquire_timeout: Duration,
    ) -> Result<Self, StoreError> {
        let reading = || format!("opening {location} to read only");
        match location {
            Location::Memory => Err(StoreError::Invalid(
                "a read-only deployment needs a database file or PostgreSQL: an in-memory \
                 database cannot be opened again, read-only"
                    .into(),
            )),
            Location::File(path) => {
                let options = SqliteConnectOptions::new()
                    .filename(path)
                    .busy_timeout(Duration::from_secs(5));
                let pool = SqlitePoolOptions::new()
                    .max_connections(4)
                    .acquire_timeout(acquire_timeout)
                    .connect_with(toolspec::read_only::sqlite(options))
                    .await;
                Ok(Self::Sqlite(pool.doing(reading)?))
            }
            Location::Postgres(url) => {
                let options = PgConnectOptions::from_str(url)
                    .doing(|| format!("reading the PostgreSQL URL {location}"))?;
                let pool = PgPoolOptions::new()
                    .max_connections(8)
                    .acquire_timeout(acquire_timeout)
                    .connect_with(toolspec::read_only::postgres(options))
                    .await;
                Ok(Self::Postgres(pool.doing(reading)?))
            }
        }
    }

    /// Applies the migrations this database has not had yet (sqlx's migrator: applied ones are
    /// recorded, and on PostgreSQL several processes starting at once take turns).
    pub(super) async fn migrate(&self) -> Result<(), StoreError> {
        let applied = match self {
            Self::Sqlite(pool) => {
                migrator(include_str!("../../migrations/sqlite/0001_schema.sql"))
                    .run(pool)
                    .await
            }
            Self::Postgres(pool) => {
                migrator(include_str!("../../migrations/postgres/0001_schema.sql"))
                    .run(pool)
                    .await
            }
        };
        applied.map_err(|e| StoreError::Invalid(format!("migrating the schema: {e}")))
    }

    /// Drops every table of the store, and the record of its migrations.
    pub(super) async fn drop_tables(&self) -> Result<(), StoreError> {
        const DROP: &str = "
            DROP TABLE IF EXISTS order_lines;
            DROP TABLE IF EXISTS orders;
            DROP TABLE IF EXISTS products;
            DROP TABLE IF EXISTS customers;
            DROP TABLE IF EXISTS _sqlx_migrations;
        ";
        let dropped = on_backend!(self, |pool| sqlx::raw_sql(DROP)
            .execute(pool)
            .await
            .map(drop));
        dropped.doing(|| "dropping the store's tables".into())
    }

    /// A transaction for reading.
    pub(super) async fn read(&self, what: &str) -> Result<Tx, StoreError> {
        let tx = match self {
            Self::Sqlite(pool) => pool.begin().await.map(Backend::Sqlite),
            Self::Postgres(pool) => pool.begin().await.map(Backend::Postgres),
        };
        tx.map(Tx)
            .doing(|| format!("starting a transaction for {what}"))
    }

    /// A transaction for writing. On SQLite it takes the write lock up front, so two writers
    /// never deadlock upgrading read locks; on PostgreSQL the statements that change a row
    /// say what they expect of it, and a writer that loses a race reads again.
    pub(super) async fn write(&self, what: &str) -> Result<Tx, StoreError> {
        let tx = match self {
            Self::Sqlite(pool) => pool
                .begin_with("BEGIN IMMEDIATE")
                .await
                .map(Backend::Sqlite),
            Self::Postgres(pool) => pool.begin().await.map(Backend::Postgres),
        };
        tx.map(Tx)
            .doing(|| format!("starting a transaction for {what}"))
    }

    /// The database the query tools and `ref` fields read.
    pub(super) fn database(&self) -> toolspec::Database {
        match self {
            Self::Sqlite(pool) => toolspec::Database::sqlite(pool.clone()),
            Self::Postgres(pool) => toolspec::Database::postgres(pool.clone()),
        }
    }

    /// Closes every connection (waits for those in use).
    pub(super) async fn close(&self) {
        on_backend!(self, |pool| pool.close().await);
    }
}

impl Tx {
    /// Makes the transaction's changes permanent.
    pub(super) async fn commit(self, what: impl FnOnce() -> String) -> Result<(), StoreError> {
        on_backend!(self.0, |tx| tx.commit().await).doing(what)
    }

    /// Ends a transaction that changed nothing.
    pub(super) async fn finish(self) -> Result<(), StoreError> {
        on_backend!(self.0, |tx| tx.rollback().await).doing(|| "ending a read".into())
    }
}

/// The store's migrations: one, its schema.
fn migrator(schema: &'static str) -> Migrator {
    Migrator::with_migrations(vec![Migration::new(
        1,
        "schema".into(),
        MigrationType::Simple,
        schema.into_sql_str(),
        false,
    )])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_read_as_files_memory_or_postgres() {
        let file = |p: &str| Ok(Location::File(PathBuf::from(p)));
        assert_eq!("store.db".parse(), file("store.db"));
        assert_eq!("sqlite://data/shop.db".parse(), file("data/shop.db"));
        assert_eq!("sqlite:shop.db".parse(), file("shop.db"));
        assert_eq!(":memory:".parse(), Ok(Location::Memory));
        let url = "postgres://shop:secret@db.internal:5432/shop";
        assert_eq!(url.parse(), Ok(Location::Postgres(url.into())));
        assert_eq!(
            Location::Postgres(url.into()).to_string(),
            "postgres://shop:***@db.internal:5432/shop"
        );
        assert!(
            "mysql://localhost/shop"
                .parse::<Location>()
                .is_err_and(|e| e.contains("`mysql://` is not a database the store runs on"))
        );
        assert!(
            "postgres://shop@db:notaport/shop"
                .parse::<Location>()
                .is_err()
        );
        assert!("  ".parse::<Location>().is_err());
    }
}
