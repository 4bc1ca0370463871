//! The schemas of a query tool as one adapter shows it: the canonical input without the
//! filters and sorts the adapter's narrowing leaves out, then in the adapter's dialect.

use serde_json::Value;
use toolspec_vocab::Dialect;
use toolspec_vocab::query::{SORT, Sort};

use crate::analyze::membership::View;
use crate::spec::query::QuerySpec;

/// The canonical input schema narrowed to `view`: the left-out filters are no property, and
/// `sort` lists only the view's sorts (or is gone when it has none).
pub fn narrow(input: &Value, query: &QuerySpec, view: &View) -> Value {
    let mut schema = input.clone();
    let hidden: Vec<&str> = query
        .filters
        .iter()
        .map(|f| f.name.value.as_str())
        .filter(|name| !view.filters.iter().any(|f| f == name))
        .chain(view.sorts.is_empty().then_some(SORT))
        .collect();
    if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        for name in &hidden {
            properties.shift_remove(*name);
        }
        if let Some(values) = properties
            .get_mut(SORT)
            .and_then(|s| s.get_mut("enum"))
            .and_then(Value::as_array_mut)
        {
            values.retain(|v| {
                v.as_str()
                    .is_some_and(|v| view.sorts.iter().any(|s| s == Sort::parse(v).column))
            });
        }
    }
    if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
        required.retain(|r| r.as_str().is_none_or(|r| !hidden.contains(&r)));
    }
    schema
}

/// The narrowed schema in `dialect` and, for every dialect but `mcp`, in `mcp` (the narrowed
/// canonical schema) too. A dialect that cannot express it is left out: the un-narrowed
/// schema's derivation reports why.
pub fn view_schemas(narrowed: Value, dialect: Dialect) -> Vec<(Dialect, Value)> {
    let mut out = Vec::new();
    if dialect != Dialect::Mcp {
        let derived = crate::derive::dialect::derive(dialect, &narrowed);
        if derived.is_expressible() {
            out.push((dialect, derived.schema));
        }
    }
    out.push((Dialect::Mcp, narrowed));
    out.sort_by_key(|(d, _)| *d);
    out
}
