//! A verified token's claims as a caller: its scopes (`scope` or `scp`) and the ambient values
//! the project maps from claims, each made to fit its ambient field's type or refused.

use serde_json::{Map, Number, Value};
use toolspec_vocab::auth::ClaimMapping;
use toolspec_vocab::query::ColumnType;

use toolspec_core::AmbientContext;
use toolspec_core::Scopes;

/// The scopes a token grants: `scope` (a space-separated string, RFC 9068 and RFC 8693) or
/// else `scp` (an array of strings, or one space-separated string); neither is no scope.
pub(crate) fn scopes(claims: &Map<String, Value>) -> Result<Scopes, String> {
    if let Some(scope) = claims.get("scope") {
        return match scope {
            Value::String(text) => Ok(Scopes::only(text.split_ascii_whitespace())),
            other => Err(format!(
                "the token's `scope` claim is {}, not a space-separated string",
                kind(other)
            )),
        };
    }
    match claims.get("scp") {
        None => Ok(Scopes::none()),
        Some(Value::String(text)) => Ok(Scopes::only(text.split_ascii_whitespace())),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(scope) => Ok(scope.as_str()),
                other => Err(format!(
                    "the token's `scp` claim holds {}, not only strings",
                    kind(other)
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Scopes::only),
        Some(other) => Err(format!(
            "the token's `scp` claim is {}, not an array of strings",
            kind(other)
        )),
    }
}

/// The ambient context `mappings` read from `claims`: every mapped claim must be there and fit
/// its field's type.
pub(crate) fn ambient(
    claims: &Map<String, Value>,
    mappings: &[ClaimMapping],
) -> Result<AmbientContext, String> {
    let mut ambient = AmbientContext::new();
    for mapping in mappings {
        let value = claims.get(mapping.claim).ok_or_else(|| {
            format!(
                "the token has no `{}` claim (the ambient `{}`)",
                mapping.claim, mapping.ambient
            )
        })?;
        let typed = typed(value, mapping.ty).map_err(|why| {
            format!(
                "the token's `{}` claim does not fit the ambient `{}` ({}): {why}",
                mapping.claim,
                mapping.ambient,
                mapping.ty.name()
            )
        })?;
        ambient.insert(mapping.ambient, typed);
    }
    Ok(ambient)
}

/// `value` as a value of type `ty`. Claims are often strings whatever they stand for (`sub`
/// always is), so a string spelling the type's value is taken too: digits for an integer, a
/// number, `true`/`false`; a uuid, date or date-time must parse and is kept in its canonical
/// spelling (a date-time may also be seconds since the epoch, as JWT dates are).
pub(crate) fn typed(value: &Value, ty: ColumnType) -> Result<Value, String> {
    let text = value.as_str();
    let refused = || format!("{} is not {}", describe(value), article(ty));
    match ty {
        ColumnType::String => text.map(Value::from).ok_or_else(refused),
        ColumnType::Integer => match value {
            Value::Number(n) => n.as_i64().map(Value::from).ok_or_else(refused),
            Value::String(s) => {
                let digits = s.strip_prefix('-').unwrap_or(s);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(refused());
                }
                s.parse::<i64>().map(Value::from).map_err(|_| refused())
            }
            _ => Err(refused()),
        },
        ColumnType::Number => match value {
            Value::Number(_) => Ok(value.clone()),
            Value::String(s) => s
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map(Value::Number)
                .ok_or_else(refused),
            _ => Err(refused()),
        },
        ColumnType::Boolean => match value {
            Value::Bool(_) => Ok(value.clone()),
            Value::String(s) if s == "true" => Ok(Value::Bool(true)),
            Value::String(s) if s == "false" => Ok(Value::Bool(false)),
            _ => Err(refused()),
        },
        ColumnType::Uuid => text
            .and_then(|s| uuid::Uuid::parse_str(s).ok())
            .map(|id| Value::String(id.hyphenated().to_string()))
            .ok_or_else(refused),
        ColumnType::Date => text
            .and_then(|s| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").ok())
            .map(|date| Value::String(date.format("%Y-%m-%d").to_string()))
            .ok_or_else(refused),
        ColumnType::DateTime => {
            let at = match value {
                Value::String(s) => chrono::DateTime::parse_from_rfc3339(s).ok(),
                Value::Number(n) => n
                    .as_i64()
                    .and_then(|secs| chrono::DateTime::from_timestamp(secs, 0))
                    .map(|at| at.fixed_offset()),
                _ => None,
            };
            at.map(|at| Value::String(at.to_rfc3339()))
                .ok_or_else(refused)
        }
    }
}

fn article(ty: ColumnType) -> &'static str {
    match ty {
        ColumnType::String => "a string",
        ColumnType::Integer => "an integer",
        ColumnType::Number => "a number",
        ColumnType::Boolean => "a boolean",
        ColumnType::Uuid => "a uuid",
        ColumnType::Date => "a date (YYYY-MM-DD)",
        ColumnType::DateTime => "an RFC 3339 date-time",
    }
}

/// A claim's value for a message: short ones quoted, long ones by their kind only.
fn describe(value: &Value) -> String {
    let text = value.to_string();
    if text.len() <= 40 {
        text
    } else {
        kind(value).to_owned()
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn claims(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let of = |value: Value| scopes(&claims(value));
        assert_eq!(
            of(json!({"scope": "orders:read  orders:write"})),
            Ok(Scopes::only(["orders:read", "orders:write"]))
        );
        assert_eq!(
            of(json!({"scp": ["orders:read", "payments:refund"]})),
            Ok(Scopes::only(["orders:read", "payments:refund"]))
        );
        assert_eq!(
            of(json!({"scp": "orders:read"})),
            Ok(Scopes::only(["orders:read"]))
        );
        // `scope` wins over `scp`; neither is no scope at all (never unrestricted).
        assert_eq!(
            of(json!({"scope": "a", "scp": ["b"]})),
            Ok(Scopes::only(["a"]))
        );
        assert_eq!(of(json!({})), Ok(Scopes::none()));
        assert_eq!(of(json!({"scope": ""})), Ok(Scopes::none()));
        assert_eq!(
            of(json!({"scope": ["a"]})),
            Err("the token's `scope` claim is an array, not a space-separated string".into())
        );
        assert_eq!(
            of(json!({"scp": ["a", 1]})),
            Err("the token's `scp` claim holds a number, not only strings".into())
        );
        assert!(of(json!({"scp": {"a": 1}})).is_err());
    }

    #[test]
    fn claims_are_typed_as_their_ambient_fields() {
        use ColumnType::*;
        let ok = |value: Value, ty| typed(&value, ty).unwrap();
        let refused = |value: Value, ty| typed(&value, ty).unwrap_err();
        assert_eq!(ok(json!("1"), Integer), json!(1));
        assert_eq!(ok(json!("-42"), Integer), json!(-42));
        assert_eq!(ok(json!(7), Integer), json!(7));
        assert_eq!(refused(json!("abc"), Integer), "\"abc\" is not an integer");
        for bad in [
            json!("+1"),
            json!(" 1"),
            json!("1.0"),
            json!(1.5),
            json!(""),
            json!(true),
        ] {
            assert!(typed(&bad, Integer).is_err(), "{bad}");
        }
        assert!(typed(&json!("99999999999999999999"), Integer).is_err());
        assert_eq!(ok(json!("2.5"), Number), json!(2.5));
        assert_eq!(ok(json!(3), Number), json!(3));
        assert!(typed(&json!("NaN"), Number).is_err());
        assert_eq!(ok(json!("true"), Boolean), json!(true));
        assert_eq!(ok(json!(false), Boolean), json!(false));
        assert!(typed(&json!("yes"), Boolean).is_err());
        assert_eq!(ok(json!("sub-1"), String), json!("sub-1"));
        assert_eq!(refused(json!(1), String), "1 is not a string");
        assert_eq!(
            ok(json!("67E55044-10B1-426F-9247-BB680E5FE0C8"), Uuid),
            json!("67e55044-10b1-426f-9247-bb680e5fe0c8")
        );
        assert!(typed(&json!("not-a-uuid"), Uuid).is_err());
        assert_eq!(ok(json!("2026-12-04"), Date), json!("2026-12-04"));
        assert!(typed(&json!("2026-13-01"), Date).is_err());
        assert_eq!(
            ok(json!("2026-12-04T10:00:00Z"), DateTime),
            json!("2026-12-04T10:00:00+00:00")
        );
        assert_eq!(ok(json!(0), DateTime), json!("1970-01-01T00:00:00+00:00"));
        assert!(typed(&json!("yesterday"), DateTime).is_err());
        let long = json!("x".repeat(100));
        assert_eq!(refused(long, Integer), "a string is not an integer");
    }

    #[test]
    fn every_mapped_claim_must_be_there_and_fit() {
        const MAPPINGS: &[ClaimMapping] = &[ClaimMapping {
            ambient: "customer_id",
            claim: "sub",
            ty: ColumnType::Integer,
        }];
        let got = ambient(&claims(json!({"sub": "1"})), MAPPINGS).unwrap();
        assert_eq!(got.get("customer_id"), Some(&json!(1)));
        assert_eq!(
            ambient(&claims(json!({"sub": "abc"})), MAPPINGS).unwrap_err(),
            "the token's `sub` claim does not fit the ambient `customer_id` (integer): \
             \"abc\" is not an integer"
        );
        assert_eq!(
            ambient(&claims(json!({})), MAPPINGS).unwrap_err(),
            "the token has no `sub` claim (the ambient `customer_id`)"
        );
        assert!(ambient(&claims(json!({})), &[]).unwrap().is_empty());
    }
}
