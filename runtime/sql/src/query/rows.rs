//! Rows as records: each record column decoded as its declared type into JSON, in the
//! record's order. A NULL in a column the record does not declare `nullable`, or a value of
//! another type, is an error naming the column (the developer's: the record does not
//! describe the table).

use serde_json::{Map, Value};

use toolspec_core::descriptor::{ColumnType, RecordColumn};

/// One column's value as JSON: `read` decodes it as the type the column is declared with
/// (`None` for NULL).
pub(crate) fn column_value(
    column: &RecordColumn,
    read: Result<Option<Value>, String>,
) -> Result<Value, String> {
    match read {
        Ok(Some(value)) => Ok(value),
        Ok(None) if column.nullable => Ok(Value::Null),
        Ok(None) => Err(format!(
            "column `{}` of record field `{}` is NULL, but the field is not `nullable`",
            column.column, column.name
        )),
        Err(e) => Err(format!(
            "column `{}` of record field `{}` does not read as a {}: {e}",
            column.column, column.name, column.ty
        )),
    }
}

/// A record from its columns' values, in record order.
pub(crate) fn record(
    columns: &[RecordColumn],
    mut read: impl FnMut(usize, &RecordColumn) -> Result<Option<Value>, String>,
) -> Result<Value, String> {
    let mut map = Map::with_capacity(columns.len());
    for (i, column) in columns.iter().enumerate() {
        let value = column_value(column, read(i, column))?;
        map.insert(column.name.to_string(), value);
    }
    Ok(Value::Object(map))
}

#[cfg(feature = "sqlite")]
pub(crate) fn sqlite(
    row: &sqlx::sqlite::SqliteRow,
    columns: &[RecordColumn],
) -> Result<Value, String> {
    use sqlx::Row;
    record(columns, |i, column| {
        let e = |e: sqlx::Error| e.to_string();
        Ok(match column.ty {
            ColumnType::Integer => row
                .try_get::<Option<i64>, _>(i)
                .map_err(e)?
                .map(Value::from),
            ColumnType::Number => row
                .try_get::<Option<f64>, _>(i)
                .map_err(e)?
                .map(Value::from),
            ColumnType::Boolean => row
                .try_get::<Option<bool>, _>(i)
                .map_err(e)?
                .map(Value::from),
            ColumnType::String | ColumnType::Uuid | ColumnType::Date | ColumnType::DateTime => row
                .try_get::<Option<String>, _>(i)
                .map_err(e)?
                .map(Value::from),
        })
    })
}

#[cfg(feature = "postgres")]
pub(crate) fn postgres(
    row: &sqlx::postgres::PgRow,
    columns: &[RecordColumn],
) -> Result<Value, String> {
    use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
    use sqlx::Row;
    record(columns, |i, column| {
        let e = |e: sqlx::Error| e.to_string();
        Ok(match column.ty {
            ColumnType::Integer => row
                .try_get::<Option<i64>, _>(i)
                .map_err(e)?
                .map(Value::from),
            ColumnType::Number => row
                .try_get::<Option<f64>, _>(i)
                .map_err(e)?
                .map(Value::from),
            ColumnType::Boolean => row
                .try_get::<Option<bool>, _>(i)
                .map_err(e)?
                .map(Value::from),
            ColumnType::String => row
                .try_get::<Option<String>, _>(i)
                .map_err(e)?
                .map(Value::from),
            ColumnType::Uuid => row
                .try_get::<Option<uuid::Uuid>, _>(i)
                .map_err(e)?
                .map(|u| Value::from(u.hyphenated().to_string())),
            ColumnType::Date => row
                .try_get::<Option<NaiveDate>, _>(i)
                .map_err(e)?
                .map(|d| Value::from(d.format("%Y-%m-%d").to_string())),
            ColumnType::DateTime => row
                .try_get::<Option<DateTime<Utc>>, _>(i)
                .map_err(e)?
                .map(|t| Value::from(t.to_rfc3339_opts(SecondsFormat::AutoSi, true))),
        })
    })
}
