//! The audit table's statements: a batch written in one statement (an opened record finished
//! in place), records of dropped calls and dead processes marked `interrupted`, records past
//! the retention deleted, a page of records read back.

use chrono::{DateTime, Utc};
use sea_query::{Alias, Expr, ExprTrait, Order, Query};
#[cfg(feature = "sqlite")]
use serde_json::Value;
#[cfg(feature = "sqlite")]
use serde_json::value::RawValue;
use uuid::Uuid;

use crate::database::liveness;
#[cfg(feature = "sqlite")]
use crate::database::time_text;
use crate::database::{Database, Pool, now_ms};
use toolspec_core::audit::{AuditEntry, AuditRecord, AuditState, MAX_BATCH};
use toolspec_core::audit::{AuditOutcome, AuditPage, AuditQuery};
use toolspec_core::storage::StorageError;

const TABLE: &str = "toolspec_audit";

/// The columns a finished record sets over its opened one (all but who called what, when).
const OUTCOME_COLUMNS: [&str; 8] = [
    "duration_us",
    "outcome",
    "message",
    "exception",
    "result",
    "state",
    "replay_of",
    "instance",
];

/// The table's columns, in insert order; all but the last (`instance`, written but never
/// read back) are read ([`read_columns`]).
const COLUMNS: [&str; 18] = [
    "id",
    "started_at",
    "duration_us",
    "tool",
    "adapter",
    "caller",
    "ambient",
    "arguments",
    "outcome",
    "message",
    "exception",
    "result",
    "trace_id",
    "state",
    "answers",
    "replay_of",
    "calls",
    "instance",
];

/// The columns a page reads.
fn read_columns() -> impl Iterator<Item = Alias> {
    COLUMNS[..COLUMNS.len() - 1].iter().copied().map(Alias::new)
}

fn col(name: &str) -> Expr {
    Expr::col(Alias::new(name))
}

/// The sizes a batch is inserted in. Each is one statement, built and prepared once per
/// connection and kept; a batch is padded up to the next size with empty rows (every value
/// NULL), which the insert skips. Steps of about 1.5: at most a third of a statement's rows
/// are padding.
const SIZES: [usize; 16] = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256];
const _: () = assert!(SIZES[SIZES.len() - 1] == MAX_BATCH);

/// The smallest of [`SIZES`] that holds `rows` records, by index.
fn size_for(rows: usize) -> usize {
    SIZES.partition_point(|&size| size < rows)
}

/// The insert of `rows` rows, empty rows skipped, finishing an opened record in place when its
/// id is there already; `numbered`: PostgreSQL's `$1`… placeholders, else SQLite's `?` (SQLite
/// reads `$1` too, but as a named parameter that sqlx looks up by name, once per value).
fn insert_sql(rows: usize, numbered: bool) -> String {
    use std::fmt::Write as _;
    let columns = COLUMNS.join(", ");
    let mut sql = format!("INSERT INTO {TABLE} ({columns}) SELECT * FROM (VALUES ");
    for row in 0..rows {
        sql.push_str(if row == 0 { "(" } else { ", (" });
        for column in 0..COLUMNS.len() {
            let separator = if column == 0 { "" } else { ", " };
            match numbered {
                true => {
                    let _ = write!(sql, "{separator}${}", row * COLUMNS.len() + column + 1);
                }
                false => {
                    let _ = write!(sql, "{separator}?");
                }
            }
        }
        sql.push(')');
    }
    // The first column is the id, NULL only in an empty row.
    sql.push_str(") AS batch WHERE batch.column1 IS NOT NULL ON CONFLICT (id) DO UPDATE SET ");
    for (i, column) in OUTCOME_COLUMNS.iter().enumerate() {
        let separator = if i == 0 { "" } else { ", " };
        let _ = write!(sql, "{separator}{column} = excluded.{column}");
    }
    sql
}

/// The insert of each of [`SIZES`], built on first use.
struct Inserts {
    numbered: bool,
    built: [std::sync::OnceLock<String>; SIZES.len()],
}

impl Inserts {
    const fn new(numbered: bool) -> Self {
        Self {
            numbered,
            built: [const { std::sync::OnceLock::new() }; SIZES.len()],
        }
    }

    /// The insert of `SIZES[size]` rows.
    fn get(&self, size: usize) -> &str {
        self.built[size].get_or_init(|| insert_sql(SIZES[size], self.numbered))
    }
}

/// Binds one row's values, in [`COLUMNS`]' order, as SQLite keeps them: text for UUIDs, times
/// and JSON (`None`: an empty row). sqlx owns what it binds: each text is copied once, into
/// the `Arc<str>` it binds without copying again.
#[cfg(feature = "sqlite")]
fn bind_sqlite<'q>(
    query: sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments>,
    r: Option<&AuditEntry>,
    instance: Option<&str>,
) -> sqlx::query::Query<'q, sqlx::Sqlite, sqlx::sqlite::SqliteArguments> {
    use std::sync::Arc;
    let text = |text: &str| Arc::<str>::from(text);
    let json = |value: &RawValue| text(value.get());
    let Some(r) = r else {
        return (0..COLUMNS.len()).fold(query, |query, _| query.bind(None::<i64>));
    };
    query
        .bind(text(
            &r.id.hyphenated().encode_lower(&mut Uuid::encode_buffer())[..],
        ))
        .bind(time_text(r.started_at))
        .bind(i64::try_from(r.duration_us).unwrap_or(i64::MAX))
        .bind(text(&r.tool))
        .bind(r.adapter.as_deref().map(text))
        .bind(r.caller.as_deref().map(text))
        .bind(json(&r.ambient))
        .bind(json(&r.arguments))
        .bind(r.outcome.as_deref().map(text))
        .bind(r.message.as_deref().map(text))
        .bind(r.exception.as_deref().map(text))
        .bind(r.result.as_deref().map(json))
        .bind(text(&r.trace_id))
        .bind(text(r.state.as_str()))
        .bind(r.answers.as_deref().map(json))
        .bind(r.replay_of.map(|id| id.hyphenated().to_string()))
        .bind(i64::try_from(r.calls).unwrap_or(i64::MAX))
        .bind(instance.map(text))
}

/// Binds one row's values, in [`COLUMNS`]' order, as PostgreSQL keeps them: `uuid`,
/// `timestamptz`, `jsonb` (serialized straight into the message); `None`: an empty row, of
/// the same types.
#[cfg(feature = "postgres")]
fn bind_postgres<'q>(
    query: sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>,
    r: Option<&'q AuditEntry>,
    instance: Option<&'q str>,
) -> sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments> {
    use sqlx::types::Json;
    query
        .bind(r.map(|r| r.id))
        .bind(r.map(|r| r.started_at))
        .bind(r.map(|r| i64::try_from(r.duration_us).unwrap_or(i64::MAX)))
        .bind(r.map(|r| r.tool.as_str()))
        .bind(r.and_then(|r| r.adapter.as_deref()))
        .bind(r.and_then(|r| r.caller.as_deref()))
        .bind(r.map(|r| Json(&*r.ambient)))
        .bind(r.map(|r| Json(&*r.arguments)))
        .bind(r.and_then(|r| r.outcome.as_deref()))
        .bind(r.and_then(|r| r.message.as_deref()))
        .bind(r.and_then(|r| r.exception.as_deref()))
        .bind(r.and_then(|r| r.result.as_deref().map(Json)))
        .bind(r.map(|r| r.trace_id.as_str()))
        .bind(r.map(|r| r.state.as_str()))
        .bind(r.and_then(|r| r.answers.as_deref().map(Json)))
        .bind(r.and_then(|r| r.replay_of))
        .bind(r.map(|r| i64::try_from(r.calls).unwrap_or(i64::MAX)))
        .bind(r.and(instance))
}

impl Database {
    /// Writes `records` in one statement: a new record is inserted, a finished one replaces
    /// the outcome of its opened record. `instance` (this process's) is written into opened
    /// records.
    ///
    /// The statement is the insert of the smallest of [`SIZES`] that holds the batch, padded
    /// with empty rows ([`insert_sql`]), with each value bound as the backend keeps it: a
    /// handful of statements, each prepared once per connection.
    pub(crate) async fn write_audit(
        &self,
        records: &[AuditEntry],
        instance: Option<&str>,
    ) -> Result<(), StorageError> {
        if records.is_empty() {
            return Ok(());
        }
        use sqlx::AssertSqlSafe;
        let size = size_for(records.len());
        let rows = || {
            let padding = std::iter::repeat_n(None, SIZES[size] - records.len());
            records.iter().map(Some).chain(padding)
        };
        let opened =
            |r: Option<&AuditEntry>| r.filter(|r| r.state == AuditState::Started).and(instance);
        let done = match self.pool() {
            #[cfg(feature = "sqlite")]
            Pool::Sqlite(pool) => {
                static INSERTS: Inserts = Inserts::new(false);
                let mut query = sqlx::query(AssertSqlSafe(INSERTS.get(size)));
                for r in rows() {
                    query = bind_sqlite(query, r, opened(r));
                }
                query.execute(pool).await.map(drop)
            }
            #[cfg(feature = "postgres")]
            Pool::Postgres(pool) => {
                static INSERTS: Inserts = Inserts::new(true);
                let mut query = sqlx::query(AssertSqlSafe(INSERTS.get(size)));
                for r in rows() {
                    query = bind_postgres(query, r, opened(r));
                }
                query.execute(pool).await.map(drop)
            }
        };
        done.map_err(|e| self.failed("writing audit records", e))
    }

    /// Marks the opened record `id` `interrupted` (its call was dropped after `duration_us`).
    pub(crate) async fn interrupt_audit(
        &self,
        id: Uuid,
        duration_us: u64,
    ) -> Result<(), StorageError> {
        let mut update = Query::update();
        update
            .table(Alias::new(TABLE))
            .value(Alias::new("state"), AuditState::Interrupted.as_str())
            .value(
                Alias::new("duration_us"),
                i64::try_from(duration_us).unwrap_or(i64::MAX),
            )
            .and_where(col("id").eq(self.codec().uuid(id)))
            .and_where(col("state").eq(AuditState::Started.as_str()));
        self.execute(&update, "marking a dropped call's record interrupted")
            .await
            .map(drop)
    }

    /// Marks `interrupted` every opened record whose process is dead now; how many.
    pub(crate) async fn interrupt_dead_audit(&self) -> Result<u64, StorageError> {
        let cutoff = liveness::cutoff(now_ms());
        let alive = Query::select()
            .expr(Expr::val(1))
            .from(Alias::new("toolspec_instances"))
            .and_where(
                Expr::col((Alias::new("toolspec_instances"), Alias::new("id")))
                    .equals((Alias::new(TABLE), Alias::new("instance"))),
            )
            .and_where(
                Expr::col((Alias::new("toolspec_instances"), Alias::new("seen_at"))).gt(cutoff),
            )
            .to_owned();
        let mut update = Query::update();
        update
            .table(Alias::new(TABLE))
            .value(Alias::new("state"), AuditState::Interrupted.as_str())
            .and_where(col("state").eq(AuditState::Started.as_str()))
            .and_where(Expr::exists(alive).not());
        self.execute(&update, "marking the records of dead processes interrupted")
            .await
    }

    /// Deletes the records of calls started before `cutoff`; how many.
    pub(crate) async fn delete_audit_before(
        &self,
        cutoff: DateTime<Utc>,
    ) -> Result<u64, StorageError> {
        let mut delete = Query::delete();
        delete
            .from_table(Alias::new(TABLE))
            .and_where(col("started_at").lt(self.codec().time(cutoff)));
        self.execute(&delete, "deleting audit records past the retention")
            .await
    }

    /// The records `query` asks for, newest first, and how many match in all.
    pub(crate) async fn select_audit(&self, query: &AuditQuery) -> Result<AuditPage, StorageError> {
        let codec = self.codec();
        let mut conditions = Vec::new();
        if let Some(tool) = &query.tool {
            conditions.push(col("tool").eq(tool.as_str()));
        }
        if let Some(caller) = &query.caller {
            conditions.push(col("caller").eq(caller.as_str()));
        }
        if let Some(state) = query.state {
            conditions.push(col("state").eq(state.as_str()));
        }
        match &query.outcome {
            Some(AuditOutcome::Ok) => conditions.push(col("outcome").eq("ok")),
            Some(AuditOutcome::Failed) => conditions.push(col("outcome").ne("ok")),
            Some(AuditOutcome::Code(code)) => conditions.push(col("outcome").eq(code.as_str())),
            None => {}
        }
        if let Some(since) = query.since {
            conditions.push(col("started_at").gte(codec.time(since)));
        }
        if let Some(until) = query.until {
            conditions.push(col("started_at").lt(codec.time(until)));
        }
        let mut count = Query::select();
        count
            .expr(Expr::col(sea_query::Asterisk).count())
            .from(Alias::new(TABLE));
        let mut page = Query::select();
        page.columns(read_columns())
            .from(Alias::new(TABLE))
            .order_by(Alias::new("started_at"), Order::Desc)
            .order_by(Alias::new("id"), Order::Desc)
            .limit(query.limit)
            .offset(query.offset);
        for condition in conditions {
            count.and_where(condition.clone());
            page.and_where(condition);
        }
        let (records, total) = match self.pool() {
            #[cfg(feature = "sqlite")]
            Pool::Sqlite(pool) => {
                use sea_query_sqlx::SqlxBinder;
                use sqlx::AssertSqlSafe;
                let (sql, values) = page.build_sqlx(sea_query::SqliteQueryBuilder);
                let rows = sqlx::query_with(AssertSqlSafe(sql), values)
                    .fetch_all(pool)
                    .await
                    .map_err(|e| self.failed("reading audit records", e))?;
                let (sql, values) = count.build_sqlx(sea_query::SqliteQueryBuilder);
                let total: i64 = sqlx::query_scalar_with(AssertSqlSafe(sql), values)
                    .fetch_one(pool)
                    .await
                    .map_err(|e| self.failed("counting audit records", e))?;
                let records = rows.iter().map(sqlite_record).collect::<Result<_, _>>()?;
                (records, total)
            }
            #[cfg(feature = "postgres")]
            Pool::Postgres(pool) => {
                use sea_query_sqlx::SqlxBinder;
                use sqlx::AssertSqlSafe;
                let (sql, values) = page.build_sqlx(sea_query::PostgresQueryBuilder);
                let rows = sqlx::query_with(AssertSqlSafe(sql), values)
                    .fetch_all(pool)
                    .await
                    .map_err(|e| self.failed("reading audit records", e))?;
                let (sql, values) = count.build_sqlx(sea_query::PostgresQueryBuilder);
                let total: i64 = sqlx::query_scalar_with(AssertSqlSafe(sql), values)
                    .fetch_one(pool)
                    .await
                    .map_err(|e| self.failed("counting audit records", e))?;
                let records = rows.iter().map(postgres_record).collect::<Result<_, _>>()?;
                (records, total)
            }
        };
        Ok(AuditPage {
            records,
            total: u64::try_from(total).unwrap_or(0),
            limit: query.limit,
            offset: query.offset,
        })
    }
}

/// A SQLite row: UUIDs, times and JSON are text.
#[cfg(feature = "sqlite")]
fn sqlite_record(row: &sqlx::sqlite::SqliteRow) -> Result<AuditRecord, StorageError> {
    use sqlx::Row;
    let e = |e: sqlx::Error| StorageError::failed("decoding an audit record", e);
    let json = |text: String| -> Result<Value, StorageError> {
        serde_json::from_str(&text)
            .map_err(|e| StorageError::failed("a stored JSON value does not parse", e))
    };
    let uuid = |id: &str| -> Result<uuid::Uuid, StorageError> {
        id.parse()
            .map_err(|e| StorageError::failed(format!("a stored id `{id}` is no UUID"), e))
    };
    let id: String = row.try_get("id").map_err(e)?;
    let started_at: String = row.try_get("started_at").map_err(e)?;
    let result: Option<String> = row.try_get("result").map_err(e)?;
    let answers: Option<String> = row.try_get("answers").map_err(e)?;
    let replay_of: Option<String> = row.try_get("replay_of").map_err(e)?;
    let state: String = row.try_get("state").map_err(e)?;
    Ok(AuditRecord {
        id: uuid(&id)?,
        started_at: DateTime::parse_from_rfc3339(&started_at)
            .map_err(|e| {
                StorageError::failed(format!("a stored time `{started_at}` is not RFC 3339"), e)
            })?
            .to_utc(),
        duration_us: u64::try_from(row.try_get::<i64, _>("duration_us").map_err(e)?).unwrap_or(0),
        tool: row.try_get("tool").map_err(e)?,
        adapter: row.try_get("adapter").map_err(e)?,
        caller: row.try_get("caller").map_err(e)?,
        ambient: json(row.try_get("ambient").map_err(e)?)?,
        arguments: json(row.try_get("arguments").map_err(e)?)?,
        state: state
            .parse()
            .map_err(|e| StorageError::failed("decoding an audit record", e))?,
        outcome: row.try_get("outcome").map_err(e)?,
        message: row.try_get("message").map_err(e)?,
        exception: row.try_get("exception").map_err(e)?,
        result: result.map(json).transpose()?,
        trace_id: row.try_get("trace_id").map_err(e)?,
        answers: answers.map(json).transpose()?,
        replay_of: replay_of.map(|id| uuid(&id)).transpose()?,
        calls: u64::try_from(row.try_get::<i64, _>("calls").map_err(e)?).unwrap_or(1),
    })
}

/// A PostgreSQL row: `uuid`, `timestamptz`, `jsonb`.
#[cfg(feature = "postgres")]
fn postgres_record(row: &sqlx::postgres::PgRow) -> Result<AuditRecord, StorageError> {
    use sqlx::Row;
    let e = |e: sqlx::Error| StorageError::failed("decoding an audit record", e);
    let state: String = row.try_get("state").map_err(e)?;
    Ok(AuditRecord {
        id: row.try_get("id").map_err(e)?,
        started_at: row.try_get("started_at").map_err(e)?,
        duration_us: u64::try_from(row.try_get::<i64, _>("duration_us").map_err(e)?).unwrap_or(0),
        tool: row.try_get("tool").map_err(e)?,
        adapter: row.try_get("adapter").map_err(e)?,
        caller: row.try_get("caller").map_err(e)?,
        ambient: row.try_get("ambient").map_err(e)?,
        arguments: row.try_get("arguments").map_err(e)?,
        state: state
            .parse()
            .map_err(|e| StorageError::failed("decoding an audit record", e))?,
        outcome: row.try_get("outcome").map_err(e)?,
        message: row.try_get("message").map_err(e)?,
        exception: row.try_get("exception").map_err(e)?,
        result: row.try_get("result").map_err(e)?,
        trace_id: row.try_get("trace_id").map_err(e)?,
        answers: row.try_get("answers").map_err(e)?,
        replay_of: row.try_get("replay_of").map_err(e)?,
        calls: u64::try_from(row.try_get::<i64, _>("calls").map_err(e)?).unwrap_or(1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_insert_binds_every_column_of_every_row_and_finishes_opened_records() {
        let numbered = insert_sql(2, true);
        let columns = COLUMNS.len();
        assert!(numbered.starts_with(
            "INSERT INTO toolspec_audit (id, started_at, duration_us, tool, adapter, caller, \
             ambient, arguments, outcome, message, exception, result, trace_id, state, answers, \
             replay_of, calls, instance) SELECT * FROM (VALUES ($1, $2, "
        ));
        assert!(numbered.contains(&format!("${})", columns)));
        assert!(numbered.contains(&format!(", (${}, ", columns + 1)));
        assert!(numbered.contains(&format!("${})", 2 * columns)));
        assert!(!numbered.contains(&format!("${}", 2 * columns + 1)));
        assert!(numbered.ends_with(
            ") AS batch WHERE batch.column1 IS NOT NULL \
             ON CONFLICT (id) DO UPDATE SET duration_us = excluded.duration_us, \
             outcome = excluded.outcome, message = excluded.message, \
             exception = excluded.exception, result = excluded.result, state = excluded.state, \
             replay_of = excluded.replay_of, instance = excluded.instance"
        ));
        let anonymous = insert_sql(3, false);
        assert_eq!(anonymous.matches('?').count(), 3 * columns);
        assert!(!anonymous.contains('$'));
    }

    #[test]
    fn a_batch_takes_the_smallest_size_that_holds_it() {
        assert_eq!(SIZES[size_for(1)], 1);
        assert_eq!(SIZES[size_for(5)], 6);
        assert_eq!(SIZES[size_for(129)], 192);
        assert_eq!(SIZES[size_for(MAX_BATCH)], MAX_BATCH);
        for rows in 1..=MAX_BATCH {
            let size = SIZES[size_for(rows)];
            assert!(
                size >= rows && (size - rows) * 3 <= size,
                "{rows} rows in {size}"
            );
        }
    }
}
