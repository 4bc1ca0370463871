//! A query tool's statements, built with sea-query from its declaration: the page (the
//! record's columns, the scope and the filters, the sort, the limit and offset) and the count
//! of every matching row. Every value is a bound parameter; names come from the spec, checked
//! at build time, and are quoted by sea-query.
//!
//! Text filters compare literally and case-sensitively on both databases: `contains` is
//! `instr(column, ?) > 0` on SQLite and `strpos(column, $1) > 0` on PostgreSQL, `starts_with`
//! is `instr(column, ?) = 1` and `starts_with(column, $1)`, so `%`, `_` and `\` are plain
//! characters. NULLs sort last in both directions; ties are broken by the record's first
//! field, so pages never overlap.
//!
//! SQLite keeps date-times as RFC 3339 text, whose order is not the order of the instants
//! once offsets or fractions differ (`…10:00:00Z`, `…11:00:00+01:00`, `…10:00:00.5Z`): they
//! are compared and sorted through `julianday()`, which reads every RFC 3339 form.

use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use sea_query::{
    Alias, Asterisk, Expr, ExprTrait, Func, NullOrdering, Order, Query, SelectStatement, TableRef,
};
use serde_json::{Map, Value};
use toolspec_vocab::query::{LIMIT, OFFSET, SORT, Sort};
use uuid::Uuid;

use toolspec_core::descriptor::{ColumnType, FilterOp, QueryDecl, RefDecl, ScopeColumn};

/// The database a statement is built for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Backend {
    /// SQLite: dates, date-times and UUIDs are text.
    Sqlite,
    /// PostgreSQL: they are `date`, `timestamptz` and `uuid`.
    #[cfg_attr(
        not(feature = "postgres"),
        allow(dead_code, reason = "built with `postgres` only")
    )]
    Postgres,
}

/// A query's statements and its page.
#[derive(Debug)]
pub(crate) struct Statements {
    /// The page's rows.
    pub(crate) page: SelectStatement,
    /// How many rows match.
    pub(crate) count: SelectStatement,
    /// The page size.
    pub(crate) limit: u64,
    /// The rows skipped.
    pub(crate) offset: u64,
}

impl Statements {
    /// Whether the page alone gives the total: it is the first and not full, so nothing lies
    /// past it.
    pub(crate) fn counted_by_page(&self, rows: usize) -> bool {
        self.offset == 0 && (rows as u64) < self.limit
    }

    /// The result of the page: `total` as counted, else from the page alone.
    pub(crate) fn page_of(&self, records: Vec<Value>, total: Option<i64>) -> Value {
        let total = total.unwrap_or(records.len() as i64);
        serde_json::json!({ "records": records, "total": total, "limit": self.limit, "offset": self.offset })
    }
}

/// The statements of a call of `decl` with these (validated, normalized) arguments and the
/// caller's ambient values; an error names what does not fit (a developer's mistake: the
/// arguments were checked against the schema).
pub(crate) fn statements(
    decl: &QueryDecl,
    args: &Map<String, Value>,
    ambient: &Map<String, Value>,
    backend: Backend,
) -> Result<Statements, String> {
    let table = table(&decl.source);
    let mut conditions = scope(&decl.scope, |key| ambient.get(key), backend)?;
    for filter in decl.filters.iter() {
        let Some(value) = args.get(filter.name.as_ref()).filter(|v| !v.is_null()) else {
            continue;
        };
        let condition = condition(filter.op, &filter.column, filter.ty, value, backend)
            .map_err(|e| format!("filter `{}`: {e}", filter.name))?;
        conditions.push(condition);
    }
    let mut count = Query::select();
    count
        .expr(Func::count(Expr::col(Asterisk)))
        .from(table.clone());
    let mut page = Query::select();
    for column in decl.record.iter() {
        page.expr(selected(&column.column, column.ty, backend));
    }
    page.from(table);
    for condition in conditions {
        count.and_where(condition.clone());
        page.and_where(condition);
    }
    let sort = args.get(SORT).and_then(Value::as_str).map(Sort::parse);
    let first = decl.record.first();
    if let Some(sort) = sort {
        let column = decl
            .record
            .iter()
            .find(|c| c.name == sort.column)
            .ok_or_else(|| format!("`{sort}` is not a sort of this tool"))?;
        let order = if sort.descending {
            Order::Desc
        } else {
            Order::Asc
        };
        page.order_by_expr_with_nulls(
            comparable(&column.column, column.ty, backend),
            order,
            NullOrdering::Last,
        );
        if first.is_some_and(|f| f.column != column.column)
            && let Some(first) = first
        {
            page.order_by_expr_with_nulls(
                comparable(&first.column, first.ty, backend),
                Order::Asc,
                NullOrdering::Last,
            );
        }
    } else if let Some(first) = first {
        page.order_by_expr_with_nulls(
            comparable(&first.column, first.ty, backend),
            Order::Asc,
            NullOrdering::Last,
        );
    }
    let number = |key: &str| args.get(key).and_then(Value::as_u64);
    let limit = number(LIMIT).unwrap_or(u64::from(decl.limit.default));
    let offset = number(OFFSET).unwrap_or(0);
    page.limit(limit).offset(offset);
    Ok(Statements {
        page,
        count,
        limit,
        offset,
    })
}

/// The statement loading the record a `ref` field's `key` names, within its scope (at most
/// one row).
pub(crate) fn lookup<'a>(
    reference: &RefDecl,
    key: &Value,
    ambient: impl Fn(&str) -> Option<&'a Value>,
    backend: Backend,
) -> Result<SelectStatement, String> {
    let mut select = Query::select();
    for column in reference.record.iter() {
        select.expr(selected(&column.column, column.ty, backend));
    }
    select.from(table(&reference.source));
    for condition in scope(&reference.scope, ambient, backend)? {
        select.and_where(condition);
    }
    let key = param(key, reference.key_type, backend)
        .map_err(|e| format!("the key of `{}`: {e}", reference.field))?;
    let key = compared(key, reference.key_type, backend);
    select
        .and_where(comparable(&reference.key, reference.key_type, backend).eq(key))
        .limit(1);
    Ok(select)
}

/// The scope's conditions, each column equal to its ambient value; a missing ambient value
/// is an error, never an unscoped statement.
fn scope<'a>(
    columns: &[ScopeColumn],
    ambient: impl Fn(&str) -> Option<&'a Value>,
    backend: Backend,
) -> Result<Vec<Expr>, String> {
    let mut conditions = Vec::with_capacity(columns.len() + 4);
    for scope in columns {
        let value = ambient(&scope.ambient).filter(|v| !v.is_null()).ok_or_else(|| {
            format!(
                "the scope binds `{}` to the ambient field `{}`, which has no value: an unscoped query never runs",
                scope.column, scope.ambient
            )
        })?;
        let value = param(value, scope.ty, backend)
            .map_err(|e| format!("ambient field `{}`: {e}", scope.ambient))?;
        let value = compared(value, scope.ty, backend);
        conditions.push(comparable(&scope.column, scope.ty, backend).eq(value));
    }
    Ok(conditions)
}

/// `orders`, or `sales.orders`.
fn table(source: &str) -> TableRef {
    match source.split_once('.') {
        Some((schema, table)) => (Alias::new(schema), Alias::new(table)).into(),
        None => Alias::new(source).into(),
    }
}

/// A record column as selected: cast on PostgreSQL to the one type it is decoded as, so that
/// an `int4`, a `numeric` or a `timestamp` column reads as well as the exact type.
fn selected(column: &str, ty: ColumnType, backend: Backend) -> Expr {
    let column = Expr::col(Alias::new(column));
    if backend == Backend::Sqlite {
        return column;
    }
    let cast = match ty {
        ColumnType::String => "text",
        ColumnType::Integer => "int8",
        ColumnType::Number => "float8",
        ColumnType::Boolean => "bool",
        ColumnType::Uuid => "uuid",
        ColumnType::Date => "date",
        ColumnType::DateTime => "timestamptz",
    };
    column.cast_as(Alias::new(cast))
}

/// A column as compared and sorted: a SQLite date-time through `julianday()`.
fn comparable(column: &str, ty: ColumnType, backend: Backend) -> Expr {
    let col = Expr::col(Alias::new(column));
    match (ty, backend) {
        (ColumnType::DateTime, Backend::Sqlite) => Func::cust("julianday").arg(col).into(),
        _ => col,
    }
}

/// A bound value as compared with a [`comparable`] column.
fn compared(value: sea_query::Value, ty: ColumnType, backend: Backend) -> Expr {
    match (ty, backend) {
        (ColumnType::DateTime, Backend::Sqlite) => Func::cust("julianday").arg(value).into(),
        _ => Expr::val(value),
    }
}

/// One filter's condition.
fn condition(
    op: FilterOp,
    column: &str,
    ty: ColumnType,
    value: &Value,
    backend: Backend,
) -> Result<Expr, String> {
    let col = comparable(column, ty, backend);
    if op == FilterOp::In {
        let items = value.as_array().ok_or("`in` takes a list")?;
        if items.is_empty() {
            // Nothing is one of no values.
            return Ok(Expr::val(1).eq(0));
        }
        let values = items
            .iter()
            .map(|item| Ok(compared(param(item, ty, backend)?, ty, backend)))
            .collect::<Result<Vec<_>, String>>()?;
        return Ok(col.is_in(values));
    }
    let value = compared(param(value, ty, backend)?, ty, backend);
    Ok(match op {
        FilterOp::Eq => col.eq(value),
        FilterOp::Ne => col.ne(value),
        FilterOp::Lt => col.lt(value),
        FilterOp::Lte => col.lte(value),
        FilterOp::Gt => col.gt(value),
        FilterOp::Gte => col.gte(value),
        FilterOp::Contains => {
            let position = match backend {
                Backend::Sqlite => Func::cust("instr"),
                Backend::Postgres => Func::cust("strpos"),
            };
            Expr::from(position.arg(col).arg(value)).gt(0)
        }
        FilterOp::StartsWith => match backend {
            Backend::Sqlite => Expr::from(Func::cust("instr").arg(col).arg(value)).eq(1),
            Backend::Postgres => Func::cust("starts_with").arg(col).arg(value).into(),
        },
        FilterOp::In => unreachable!("handled above"),
    })
}

/// A JSON value as a bound parameter of a `ty` column.
fn param(value: &Value, ty: ColumnType, backend: Backend) -> Result<sea_query::Value, String> {
    let wrong = || format!("{value} is not a {ty}");
    let text = || value.as_str().ok_or_else(wrong);
    Ok(match ty {
        ColumnType::String => text()?.to_owned().into(),
        ColumnType::Integer => value.as_i64().ok_or_else(wrong)?.into(),
        ColumnType::Number => value.as_f64().ok_or_else(wrong)?.into(),
        ColumnType::Boolean => value.as_bool().ok_or_else(wrong)?.into(),
        ColumnType::Uuid => {
            let uuid = Uuid::parse_str(text()?).map_err(|_| wrong())?;
            typed(Typed::Uuid(uuid), backend)
        }
        ColumnType::Date => {
            let date = NaiveDate::parse_from_str(text()?, "%Y-%m-%d").map_err(|_| wrong())?;
            typed(Typed::Date(date), backend)
        }
        ColumnType::DateTime => {
            let at = DateTime::parse_from_rfc3339(text()?).map_err(|_| wrong())?;
            typed(Typed::DateTime(at.with_timezone(&Utc)), backend)
        }
    })
}

/// A value whose SQL type differs between the databases.
enum Typed {
    Uuid(Uuid),
    Date(NaiveDate),
    DateTime(DateTime<Utc>),
}

/// As SQLite stores it (text: a lowercase hyphenated UUID, `YYYY-MM-DD`, an RFC 3339 UTC
/// date-time ending in `Z`), or as PostgreSQL's own type.
fn typed(value: Typed, backend: Backend) -> sea_query::Value {
    match backend {
        Backend::Sqlite => match value {
            Typed::Uuid(u) => u.hyphenated().to_string().into(),
            Typed::Date(d) => d.format("%Y-%m-%d").to_string().into(),
            Typed::DateTime(t) => t.to_rfc3339_opts(SecondsFormat::AutoSi, true).into(),
        },
        Backend::Postgres => postgres_value(value),
    }
}

#[cfg(feature = "postgres")]
fn postgres_value(value: Typed) -> sea_query::Value {
    match value {
        Typed::Uuid(u) => u.into(),
        Typed::Date(d) => d.into(),
        Typed::DateTime(t) => t.into(),
    }
}

/// Without the `postgres` feature no statement is built for PostgreSQL.
#[cfg(not(feature = "postgres"))]
fn postgres_value(value: Typed) -> sea_query::Value {
    typed(value, Backend::Sqlite)
}
