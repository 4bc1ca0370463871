//! A query tool's paging arguments, taken before anything else is checked:
//! `limit` clamped between 1 and the maximum (never an error), `offset` at least 0, and a
//! `sort` the caller may not use dropped for the default. Only a `limit` or `offset` that is
//! not a whole number is refused, and a text filter holding the NUL character (which no
//! PostgreSQL text can hold); the rest of the filters is the schema's business.

use serde_json::{Map, Value};
use toolspec_vocab::query::{LIMIT, OFFSET, SORT, Sort};

use crate::model::descriptor::{ColumnType, QueryDecl, QueryView};

/// An argument refused before the schema is checked: its key and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ArgumentError {
    /// `limit`, `offset` or a text filter.
    pub(crate) key: String,
    /// What is wrong with it.
    pub(crate) message: String,
}

/// Replaces `limit`, `offset` and `sort` in `args` with the values the query runs with:
/// the limit within `1..=max` (the default when absent), the offset at least 0, the sort when
/// it is one of the tool's (and of `view`'s, when the adapter narrows the tool), else the
/// default sort (or none). What it refuses is returned — a limit or offset that is not a whole
/// number, a sort that is not a string — and replaced by its default, so the rest of the
/// arguments are still checked and reported with it.
pub(crate) fn normalize(
    args: &mut Map<String, Value>,
    decl: &QueryDecl,
    view: Option<&QueryView>,
) -> Vec<ArgumentError> {
    let mut errors = Vec::new();
    let max = u64::from(decl.limit.max);
    let limit = whole(args.get(LIMIT), LIMIT, &mut errors)
        .map_or(u64::from(decl.limit.default), |n| {
            n.clamp(1, max as i128) as u64
        });
    let offset = whole(args.get(OFFSET), OFFSET, &mut errors)
        .map_or(0, |n| n.clamp(0, i64::MAX as i128) as u64);
    for filter in decl.filters.iter().filter(|f| f.ty == ColumnType::String) {
        let text = |v: &Value| v.as_str().is_some_and(|s| s.contains('\0'));
        let nul = match args.get(filter.name.as_ref()) {
            Some(Value::Array(items)) => items.iter().any(text),
            Some(value) => text(value),
            None => false,
        };
        if nul {
            errors.push(ArgumentError {
                key: filter.name.to_string(),
                message: "must not contain the NUL character".into(),
            });
        }
    }
    args.insert(LIMIT.into(), limit.into());
    args.insert(OFFSET.into(), offset.into());
    let allowed = |text: &str| {
        let column = Sort::parse(text).column;
        decl.sorts.iter().any(|s| s == column)
            && view.is_none_or(|v| v.sorts.iter().any(|s| s == column))
    };
    let sent = match args.get(SORT) {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.as_str()),
        Some(_) => {
            errors.push(ArgumentError {
                key: SORT.into(),
                message: "must be a string (a sort the tool lists)".into(),
            });
            None
        }
    };
    let sort = sent
        .filter(|s| allowed(s))
        .map(str::to_owned)
        .or_else(|| decl.default_sort.as_deref().map(str::to_owned));
    match sort {
        Some(sort) => args.insert(SORT.into(), sort.into()),
        None => args.remove(SORT),
    };
    errors
}

/// A whole number (an integral float, or a string of one, as wire values come), or `None`
/// when absent or null; anything else is an error.
fn whole(
    value: Option<&Value>,
    key: &'static str,
    errors: &mut Vec<ArgumentError>,
) -> Option<i128> {
    let number = match value? {
        Value::Null => return None,
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && f.is_finite())
                    .map(|f| f as i128)
            }),
        Value::String(s) => s.trim().parse::<i128>().ok(),
        _ => None,
    };
    if number.is_none() {
        errors.push(ArgumentError {
            key: key.into(),
            message: "must be a whole number".into(),
        });
    }
    number
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use std::borrow::Cow;

    use crate::model::descriptor::PageLimit;

    const DECL: QueryDecl = QueryDecl {
        source: Cow::Borrowed("orders"),
        record: Cow::Borrowed(&[]),
        scope: Cow::Borrowed(&[]),
        filters: Cow::Borrowed(&[]),
        sorts: Cow::Borrowed(&[Cow::Borrowed("created_at"), Cow::Borrowed("total")]),
        default_sort: Some(Cow::Borrowed("-created_at")),
        limit: PageLimit {
            default: 20,
            max: 50,
        },
    };

    fn normalized(args: Value, view: Option<&QueryView>) -> Result<Value, Vec<ArgumentError>> {
        let Value::Object(mut map) = args else {
            unreachable!()
        };
        let errors = normalize(&mut map, &DECL, view);
        if errors.is_empty() {
            Ok(Value::Object(map))
        } else {
            Err(errors)
        }
    }

    #[test]
    fn the_limit_is_clamped_and_defaulted_never_refused() {
        let page = |args| normalized(args, None).unwrap();
        assert_eq!(page(json!({}))["limit"], 20);
        assert_eq!(page(json!({"limit": 500}))["limit"], 50);
        assert_eq!(page(json!({"limit": 0}))["limit"], 1);
        assert_eq!(page(json!({"limit": -3}))["limit"], 1);
        assert_eq!(page(json!({"limit": "7"}))["limit"], 7);
        assert_eq!(page(json!({"limit": 1e30}))["limit"], 50);
        assert_eq!(page(json!({"offset": -5}))["offset"], 0);
        assert_eq!(
            page(json!({"offset": 18446744073709551615u64}))["offset"],
            i64::MAX
        );
    }

    #[test]
    fn a_limit_that_is_no_number_or_a_sort_that_is_no_string_is_refused() {
        let errors = normalized(json!({"limit": "many", "offset": [1]}), None).unwrap_err();
        let keys: Vec<&str> = errors.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["limit", "offset"]);
        assert!(normalized(json!({"limit": 2.5}), None).is_err());
        let errors = normalized(json!({"sort": {}}), None).unwrap_err();
        assert_eq!(errors[0].key, "sort");
        assert!(normalized(json!({"sort": 3}), None).is_err());
    }

    #[test]
    fn text_with_nul_is_refused() {
        const FILTERS: &[crate::model::descriptor::FilterColumn] =
            &[crate::model::descriptor::FilterColumn {
                name: Cow::Borrowed("name"),
                op: crate::model::descriptor::FilterOp::Eq,
                column: Cow::Borrowed("name"),
                ty: ColumnType::String,
            }];
        let decl = QueryDecl {
            filters: Cow::Borrowed(FILTERS),
            ..DECL
        };
        let Value::Object(mut args) = json!({"name": "a\u{0}b"}) else {
            unreachable!()
        };
        let errors = normalize(&mut args, &decl, None);
        assert_eq!(errors[0].key, "name");
    }

    #[test]
    fn an_unknown_or_hidden_sort_gives_way_to_the_default() {
        let sort = |args, view| normalized(args, view).unwrap()["sort"].clone();
        assert_eq!(sort(json!({"sort": "total"}), None), "total");
        assert_eq!(sort(json!({"sort": "-total"}), None), "-total");
        assert_eq!(sort(json!({"sort": "secret"}), None), "-created_at");
        assert_eq!(sort(json!({"sort": null}), None), "-created_at");
        let view = QueryView {
            filters: Cow::Borrowed(&[]),
            sorts: Cow::Borrowed(&[Cow::Borrowed("created_at")]),
            description: Cow::Borrowed(""),
            schemas: Cow::Borrowed(&[]),
        };
        assert_eq!(sort(json!({"sort": "total"}), Some(&view)), "-created_at");
        assert_eq!(
            sort(json!({"sort": "created_at"}), Some(&view)),
            "created_at"
        );
    }
}
