//! A query tool as fields: what the model sends (its filters, `sort`, `limit`, `offset`) and
//! what it gets back (`records`, `total`, `limit`, `offset`), so that every later stage
//! handles it like any tool's `expects` and `exposes`.

use serde_json::Value as Json;
use toolspec_vocab::hints::READ_ONLY;
use toolspec_vocab::query::{self, FilterOp, Sort};

use crate::read::query::field_type;
use crate::source::{Span, Spanned};
use crate::spec::query::{FilterDecl, QuerySpec, RecordField};
use crate::spec::{Field, FieldType, ProjectConfig, ToolSpec};

/// Fills `spec.expects` and `spec.exposes` from the query, and marks it read-only. The
/// ambient fields its scope binds (declared in `config`) are its ambient inputs.
pub fn lower(query: &QuerySpec, spec: &mut ToolSpec, config: &ProjectConfig) {
    let at = query.source.span;
    spec.expects = query.filters.iter().map(filter_field).collect();
    if !query.sorts.is_empty() {
        spec.expects.push(sort_field(query, at));
    }
    spec.expects.push(limit_field(query, at));
    let mut offset = integer(
        query::OFFSET,
        at,
        "Records to skip before this page (default 0).",
    );
    offset.optional = true;
    offset.constraints.minimum = Some(0.into());
    spec.expects.push(offset);
    for binding in &query.scope {
        let name = &binding.ambient.value;
        let Some(decl) = config.ambient(name) else {
            continue;
        };
        if spec.expects.iter().any(|f| f.ambient && f.name == *name) {
            continue;
        }
        let mut field = Field::new(name.clone(), binding.ambient.span, binding.ambient.span);
        field.ty = field_type(decl.ty);
        field.description = decl.description.clone();
        field.ambient = true;
        spec.expects.push(field);
    }
    let mut record = Field::new("record".into(), at, at);
    record.ty = FieldType::Object(query.record.iter().map(record_field).collect());
    let mut records = Field::new(query::RECORDS.into(), at, at);
    records.ty = FieldType::Array(Box::new(record));
    records.description = Some("The records of this page.".into());
    spec.exposes = vec![
        records,
        integer(query::TOTAL, at, "How many records match, before paging."),
        integer(query::LIMIT, at, "The page size applied."),
        integer(query::OFFSET, at, "The records skipped before this page."),
    ];
    if !spec.hints.iter().any(|h| h.value == READ_ONLY) {
        spec.hints.insert(0, Spanned::new(READ_ONLY.into(), at));
    }
}

/// A filter as an optional input; `in` takes a list of values.
fn filter_field(filter: &FilterDecl) -> Field {
    let span = filter.name.span;
    let one_of = (!filter.one_of.is_empty()).then(|| Spanned::new(filter.one_of.clone(), span));
    let mut value = Field::new(filter.name.value.clone(), span, span);
    value.ty = field_type(filter.ty);
    let mut field = if filter.op == FilterOp::In {
        value.one_of = one_of;
        let mut list = Field::new(filter.name.value.clone(), span, span);
        list.ty = FieldType::Array(Box::new(value));
        list
    } else {
        value.one_of = one_of;
        value
    };
    field.optional = true;
    field.description = Some(filter.description.clone().unwrap_or_else(|| {
        let what = if filter.op == FilterOp::In {
            "these"
        } else {
            "this"
        };
        let text = match filter.op {
            FilterOp::Contains | FilterOp::StartsWith => " text (case-sensitive)",
            _ => "",
        };
        let about = filter.op.about_records(&filter.column, filter.ty);
        format!("Only records {about} {what}{text}.")
    }));
    field
}

/// `sort`: each sort column, ascending or (with `-`) descending.
fn sort_field(query: &QuerySpec, at: Span) -> Field {
    let mut field = Field::new(query::SORT.into(), at, at);
    field.ty = FieldType::String;
    field.optional = true;
    let mut values = Vec::new();
    for sort in &query.sorts {
        for descending in [false, true] {
            let column = sort.value.as_str();
            values.push(Json::String(Sort { column, descending }.to_string()));
        }
    }
    field.one_of = Some(Spanned::new(values, at));
    let default = query
        .default_sort
        .as_ref()
        .map(|d| format!(" (default {})", d.value))
        .unwrap_or_default();
    field.description = Some(format!(
        "The order of the records: a column, or `-` and a column for largest first{default}."
    ));
    field
}

/// `limit`: records per page.
fn limit_field(query: &QuerySpec, at: Span) -> Field {
    let limit = query.limit;
    let description = format!(
        "Records per page, at most {} (default {}); a larger limit is lowered to {}.",
        limit.max, limit.default, limit.max
    );
    let mut field = integer(query::LIMIT, at, &description);
    field.optional = true;
    field.constraints.minimum = Some(1.into());
    field.constraints.maximum = Some(limit.max.into());
    field
}

/// An integer field.
fn integer(name: &str, at: Span, description: &str) -> Field {
    let mut field = Field::new(name.into(), at, at);
    field.ty = FieldType::Integer;
    field.description = Some(description.into());
    field
}

/// A record field as an output field.
pub fn record_field(field: &RecordField) -> Field {
    let span = field.name.span;
    let mut out = Field::new(field.name.value.clone(), span, span);
    out.ty = field_type(field.ty);
    out.description = field.description.clone();
    out.nullable = field.nullable;
    out.sensitive = field.sensitive;
    out
}
