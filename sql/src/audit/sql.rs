//! The audit table's statements: a batch written in one statement (an opened record finished
//! in place), records of dropped calls and dead processes marked `interrupted`, records past
//! the retention deleted, a page of records read back.

use chrono::{DateTime, Utc};
use sea_query::{Alias, Expr, ExprTrait, OnConflict, Order, Query, SimpleExpr};
#[cfg(feature = "sqlite")]
use serde_json::Value;
use uuid::Uuid;

use crate::database::liveness;
use crate::database::{Database, Pool, now_ms};
use toolspec_core::audit::{AuditOutcome, AuditPage, AuditQuery};
use toolspec_core::audit::{AuditRecord, AuditState};
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
const COLUMNS: [&str; 17] = [
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
    "instance",
];

/// The columns a page reads.
fn read_columns() -> impl Iterator<Item = Alias> {
    COLUMNS[..COLUMNS.len() - 1].iter().copied().map(Alias::new)
}

fn col(name: &str) -> Expr {
    Expr::col(Alias::new(name))
}

impl Database {
    /// Writes `records` in one statement: a new record is inserted, a finished one replaces
    /// the outcome of its opened record. `instance` (this process's) is written into opened
    /// records.
    pub(crate) async fn write_audit(
        &self,
        records: &[AuditRecord],
        instance: Option<&str>,
    ) -> Result<(), StorageError> {
        let codec = self.codec();
        let mut insert = Query::insert();
        insert
            .into_table(Alias::new(TABLE))
            .columns(COLUMNS.map(Alias::new))
            .on_conflict(
                OnConflict::column(Alias::new("id"))
                    .update_columns(OUTCOME_COLUMNS.map(Alias::new))
                    .to_owned(),
            );
        for r in records {
            let opened = (r.state == AuditState::Started)
                .then_some(instance)
                .flatten();
            let row: [SimpleExpr; 17] = [
                codec.uuid(r.id).into(),
                codec.time(r.started_at).into(),
                i64::try_from(r.duration_us).unwrap_or(i64::MAX).into(),
                r.tool.as_str().into(),
                r.adapter.clone().into(),
                r.caller.clone().into(),
                codec.json(&r.ambient).into(),
                codec.json(&r.arguments).into(),
                r.outcome.clone().into(),
                r.message.clone().into(),
                r.exception.clone().into(),
                codec.json_or_null(r.result.as_ref()).into(),
                r.trace_id.as_str().into(),
                r.state.as_str().into(),
                codec.json_or_null(r.answers.as_ref()).into(),
                codec.uuid_or_null(r.replay_of).into(),
                opened.map(str::to_owned).into(),
            ];
            insert
                .values(row)
                .map_err(|e| StorageError::invalid(format!("building an audit insert: {e}")))?;
        }
        self.execute(&insert, "writing audit records")
            .await
            .map(drop)
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
    })
}
