//! The database query tools read: SQLite (feature `sqlite`, embedded) or PostgreSQL (feature
//! `postgres`), each behind an sqlx pool the app owns. A call runs its page and, when the page
//! alone does not tell, the count of every match, in one read-only transaction (repeatable
//! read on PostgreSQL), so `total` and `records` agree.
//!
//! The SQL text is sea-query's: every value is a bound parameter and every name one the
//! build checked (letters, digits, underscores), quoted; so it is passed as safe.

use serde_json::{Map, Value};

#[cfg(any(feature = "sqlite", feature = "postgres"))]
use crate::query::sql::{Backend, Statements, lookup, statements};
use crate::query_decl::{QueryDecl, RefDecl};

/// Where query tools read from: hand one to the generated `registry(handler, database)`.
///
/// ```ignore
/// let pool = sqlx::SqlitePool::connect("sqlite://store.db").await?;
/// let registry = tools::registry(App::default(), toolspec::Database::sqlite(pool));
/// ```
#[derive(Debug, Clone)]
pub struct Database {
    pool: Pool,
}

#[derive(Debug, Clone)]
enum Pool {
    #[cfg(feature = "sqlite")]
    Sqlite(sqlx::SqlitePool),
    #[cfg(feature = "postgres")]
    Postgres(sqlx::PgPool),
}

impl Database {
    /// Query tools read from this SQLite pool.
    #[cfg(feature = "sqlite")]
    pub fn sqlite(pool: sqlx::SqlitePool) -> Self {
        Self {
            pool: Pool::Sqlite(pool),
        }
    }

    /// Query tools read from this PostgreSQL pool.
    #[cfg(feature = "postgres")]
    pub fn postgres(pool: sqlx::PgPool) -> Self {
        Self {
            pool: Pool::Postgres(pool),
        }
    }

    /// Which database this is (`sqlite`, `postgres`).
    pub fn kind(&self) -> &'static str {
        match self.pool {
            #[cfg(feature = "sqlite")]
            Pool::Sqlite(_) => "sqlite",
            #[cfg(feature = "postgres")]
            Pool::Postgres(_) => "postgres",
        }
    }

    /// Runs one call of the query tool `decl` with its validated, normalized arguments and the
    /// caller's ambient values: `{ records, total, limit, offset }`. An error is for the
    /// developer (the model sees `query_failed`).
    pub(crate) async fn run(
        &self,
        decl: &QueryDecl,
        args: &Map<String, Value>,
        ambient: &Map<String, Value>,
    ) -> Result<Value, String> {
        let _ = (decl, args, ambient);
        match self.pool {
            #[cfg(feature = "sqlite")]
            Pool::Sqlite(ref pool) => {
                let built = statements(decl, args, ambient, Backend::Sqlite)?;
                sqlite(pool, decl, built).await
            }
            #[cfg(feature = "postgres")]
            Pool::Postgres(ref pool) => {
                let built = statements(decl, args, ambient, Backend::Postgres)?;
                postgres(pool, decl, built).await
            }
        }
    }
}

impl Database {
    /// The record a `ref` field's key names, within the scope bound from `ambient`; `None`
    /// when there is none (or none the caller may see). An error is for the developer.
    pub(crate) async fn load<'a>(
        &self,
        reference: &RefDecl,
        key: &Value,
        ambient: impl Fn(&str) -> Option<&'a Value>,
    ) -> Result<Option<Value>, String> {
        let _ = (reference, key, &ambient);
        match self.pool {
            #[cfg(feature = "sqlite")]
            Pool::Sqlite(ref pool) => {
                use sea_query::SqliteQueryBuilder;
                use sea_query_sqlx::SqlxBinder;
                let select = lookup(reference, key, ambient, Backend::Sqlite)?;
                let (sql, values) = select.build_sqlx(SqliteQueryBuilder);
                let row = sqlx::query_with(sqlx::AssertSqlSafe(sql), values)
                    .fetch_optional(pool)
                    .await
                    .map_err(|e| e.to_string())?;
                row.map(|row| crate::query::rows::sqlite(&row, reference.record))
                    .transpose()
            }
            #[cfg(feature = "postgres")]
            Pool::Postgres(ref pool) => {
                use sea_query::PostgresQueryBuilder;
                use sea_query_sqlx::SqlxBinder;
                let select = lookup(reference, key, ambient, Backend::Postgres)?;
                let (sql, values) = select.build_sqlx(PostgresQueryBuilder);
                let row = sqlx::query_with(sqlx::AssertSqlSafe(sql), values)
                    .fetch_optional(pool)
                    .await
                    .map_err(|e| e.to_string())?;
                row.map(|row| crate::query::rows::postgres(&row, reference.record))
                    .transpose()
            }
        }
    }
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
/// The result of a page: `total` from the page alone when it is the first and not full
/// (nothing lies past it), else from the count.
fn page(records: Vec<Value>, total: Option<i64>, built: &Statements) -> Value {
    let total = total.unwrap_or(records.len() as i64);
    serde_json::json!({ "records": records, "total": total, "limit": built.limit, "offset": built.offset })
}

#[cfg(any(feature = "sqlite", feature = "postgres"))]
/// Whether the page alone gives the total.
fn counted_by_page(rows: usize, built: &Statements) -> bool {
    built.offset == 0 && (rows as u64) < built.limit
}

#[cfg(feature = "sqlite")]
async fn sqlite(
    pool: &sqlx::SqlitePool,
    decl: &QueryDecl,
    built: Statements,
) -> Result<Value, String> {
    use sea_query::SqliteQueryBuilder;
    use sea_query_sqlx::SqlxBinder;
    use sqlx::AssertSqlSafe;
    let e = |e: sqlx::Error| e.to_string();
    let mut tx = pool.begin().await.map_err(e)?;
    let (sql, values) = built.page.build_sqlx(SqliteQueryBuilder);
    let rows = sqlx::query_with(AssertSqlSafe(sql), values)
        .fetch_all(&mut *tx)
        .await
        .map_err(e)?;
    let total = if counted_by_page(rows.len(), &built) {
        None
    } else {
        let (sql, values) = built.count.build_sqlx(SqliteQueryBuilder);
        Some(
            sqlx::query_scalar_with::<_, i64, _>(AssertSqlSafe(sql), values)
                .fetch_one(&mut *tx)
                .await
                .map_err(e)?,
        )
    };
    tx.rollback().await.map_err(e)?;
    let records = rows
        .iter()
        .map(|row| crate::query::rows::sqlite(row, decl.record))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(page(records, total, &built))
}

#[cfg(feature = "postgres")]
async fn postgres(
    pool: &sqlx::PgPool,
    decl: &QueryDecl,
    built: Statements,
) -> Result<Value, String> {
    use sea_query::PostgresQueryBuilder;
    use sea_query_sqlx::SqlxBinder;
    use sqlx::AssertSqlSafe;
    let e = |e: sqlx::Error| e.to_string();
    let mut tx = pool.begin().await.map_err(e)?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(&mut *tx)
        .await
        .map_err(e)?;
    let (sql, values) = built.page.build_sqlx(PostgresQueryBuilder);
    let rows = sqlx::query_with(AssertSqlSafe(sql), values)
        .fetch_all(&mut *tx)
        .await
        .map_err(e)?;
    let total = if counted_by_page(rows.len(), &built) {
        None
    } else {
        let (sql, values) = built.count.build_sqlx(PostgresQueryBuilder);
        Some(
            sqlx::query_scalar_with::<_, i64, _>(AssertSqlSafe(sql), values)
                .fetch_one(&mut *tx)
                .await
                .map_err(e)?,
        )
    };
    tx.rollback().await.map_err(e)?;
    let records = rows
        .iter()
        .map(|row| crate::query::rows::postgres(row, decl.record))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(page(records, total, &built))
}
