//! A query tool's call and a `ref` field's record, read from the [`Database`]: the page and,
//! when the page alone does not tell, the count of every match, in one read-only transaction
//! (repeatable read on PostgreSQL), so `total` and `records` agree.
//!
//! The SQL text is sea-query's: every value is a bound parameter and every name one the
//! build checked (letters, digits, underscores), quoted; so it is passed as safe.

use serde_json::{Map, Value};

use crate::database::Database;
use crate::database::Pool;
use crate::query::sql::{Backend, lookup, statements};
use toolspec_core::descriptor::{QueryDecl, RefDecl};
use toolspec_core::storage::StorageError;

impl Database {
    /// Runs one call of the query tool `decl` with its validated, normalized arguments and the
    /// caller's ambient values: `{ records, total, limit, offset }`. An error is for the
    /// developer (the model sees `query_failed`, or `unavailable` when the database could not
    /// be reached).
    pub(crate) async fn run(
        &self,
        decl: &QueryDecl,
        args: &Map<String, Value>,
        ambient: &Map<String, Value>,
    ) -> Result<Value, StorageError> {
        let ran = match *self.pool() {
            #[cfg(feature = "sqlite")]
            Pool::Sqlite(ref pool) => match statements(decl, args, ambient, Backend::Sqlite) {
                Ok(built) => sqlite::run(pool, decl, built).await,
                Err(e) => Err(Failed::Other(e)),
            },
            #[cfg(feature = "postgres")]
            Pool::Postgres(ref pool) => match statements(decl, args, ambient, Backend::Postgres) {
                Ok(built) => postgres::run(pool, decl, built).await,
                Err(e) => Err(Failed::Other(e)),
            },
        };
        ran.map_err(|e| self.fail("running a query", e))
    }

    /// The record a `ref` field's key names, within the scope bound from `ambient`; `None`
    /// when there is none (or none the caller may see). An error is for the developer.
    pub(crate) async fn load<'a>(
        &self,
        reference: &RefDecl,
        key: &Value,
        ambient: impl Fn(&str) -> Option<&'a Value>,
    ) -> Result<Option<Value>, StorageError> {
        let loaded = match *self.pool() {
            #[cfg(feature = "sqlite")]
            Pool::Sqlite(ref pool) => match lookup(reference, key, ambient, Backend::Sqlite) {
                Ok(select) => sqlite::load(pool, select, &reference.record).await,
                Err(e) => Err(Failed::Other(e)),
            },
            #[cfg(feature = "postgres")]
            Pool::Postgres(ref pool) => match lookup(reference, key, ambient, Backend::Postgres) {
                Ok(select) => postgres::load(pool, select, &reference.record).await,
                Err(e) => Err(Failed::Other(e)),
            },
        };
        loaded.map_err(|e| self.fail("loading a record", e))
    }

    /// The error of a read that failed while `doing` something.
    fn fail(&self, doing: &str, failed: Failed) -> StorageError {
        match failed {
            Failed::Driver(e) => self.failed(doing, e),
            Failed::Other(message) => StorageError::invalid(format!("{doing}: {message}")),
        }
    }
}

/// Why a read failed: the driver said (the database may be unreachable), or a statement could
/// not be built or a row decoded.
enum Failed {
    Driver(sqlx::Error),
    Other(String),
}

/// One backend's two ways of reading: a query tool's page (and count, when the page does not
/// give it) in one read-only transaction, and a `ref` field's record. The backends differ only
/// in their pool, their query builder, how rows decode and how the transaction starts.
macro_rules! backend {
    ($name:ident, $pool:ty, $builder:expr, $decode:path, $start:expr) => {
        mod $name {
            use sea_query::SelectStatement;
            use sea_query_sqlx::SqlxBinder;
            use serde_json::Value;
            use sqlx::AssertSqlSafe;

            use super::Failed;
            use crate::query::sql::Statements;
            use toolspec_core::descriptor::{QueryDecl, RecordColumn};

            pub(super) async fn run(
                pool: &$pool,
                decl: &QueryDecl,
                built: Statements,
            ) -> Result<Value, Failed> {
                let e = Failed::Driver;
                let mut tx = pool.begin().await.map_err(e)?;
                let start: Option<&'static str> = $start;
                if let Some(start) = start {
                    sqlx::query(start).execute(&mut *tx).await.map_err(e)?;
                }
                let (sql, values) = built.page.build_sqlx($builder);
                let rows = sqlx::query_with(AssertSqlSafe(sql), values)
                    .fetch_all(&mut *tx)
                    .await
                    .map_err(e)?;
                let total = if built.counted_by_page(rows.len()) {
                    None
                } else {
                    let (sql, values) = built.count.build_sqlx($builder);
                    let count = sqlx::query_scalar_with::<_, i64, _>(AssertSqlSafe(sql), values);
                    Some(count.fetch_one(&mut *tx).await.map_err(e)?)
                };
                tx.rollback().await.map_err(e)?;
                let records = rows
                    .iter()
                    .map(|row| $decode(row, &decl.record))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(Failed::Other)?;
                Ok(built.page_of(records, total))
            }

            pub(super) async fn load(
                pool: &$pool,
                select: SelectStatement,
                record: &[RecordColumn],
            ) -> Result<Option<Value>, Failed> {
                let (sql, values) = select.build_sqlx($builder);
                let row = sqlx::query_with(AssertSqlSafe(sql), values)
                    .fetch_optional(pool)
                    .await
                    .map_err(Failed::Driver)?;
                row.map(|row| $decode(&row, record))
                    .transpose()
                    .map_err(Failed::Other)
            }
        }
    };
}

#[cfg(feature = "sqlite")]
backend!(
    sqlite,
    sqlx::SqlitePool,
    sea_query::SqliteQueryBuilder,
    crate::query::rows::sqlite,
    None
);

#[cfg(feature = "postgres")]
backend!(
    postgres,
    sqlx::PgPool,
    sea_query::PostgresQueryBuilder,
    crate::query::rows::postgres,
    Some("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
);
