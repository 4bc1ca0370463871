//! Scalars resolved with the YAML 1.2 core schema: `null`, booleans, integers and floats are
//! recognised in plain scalars only, and `yes`/`no`/`on`/`off` stay strings. Knows nothing of
//! positions.

use std::borrow::Cow;

use saphyr_parser::{ScalarStyle, Tag};

use crate::read::yaml::node::Value;

/// The full tag that `!!str` expands to.
const STR_TAG: &str = "tag:yaml.org,2002:str";

/// The value of a scalar written `text` in `style`, tagged `tag`. Quoted and block scalars,
/// and plain ones tagged `!!str`, are strings. `None` for an integer that does not fit in an
/// `i64`.
pub fn resolve(text: Cow<'_, str>, style: ScalarStyle, tag: Option<&Tag>) -> Option<Value> {
    let is_str_tag = tag.is_some_and(|t| format!("{}{}", t.handle, t.suffix) == STR_TAG);
    if style == ScalarStyle::Plain && !is_str_tag {
        resolve_plain(&text)
    } else {
        Some(Value::Str(text.into_owned()))
    }
}

/// Resolves a plain scalar with the YAML 1.2 core schema. `None` for an integer that does not
/// fit in an `i64`.
fn resolve_plain(s: &str) -> Option<Value> {
    Some(match s {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Value::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Value::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => Value::Float(f64::NAN),
        _ => {
            let digits =
                |t: &str, radix: u32| !t.is_empty() && t.chars().all(|c| c.is_digit(radix));
            if let Some(hex) = s.strip_prefix("0x").filter(|t| digits(t, 16)) {
                return i64::from_str_radix(hex, 16).ok().map(Value::Int);
            }
            if let Some(oct) = s.strip_prefix("0o").filter(|t| digits(t, 8)) {
                return i64::from_str_radix(oct, 8).ok().map(Value::Int);
            }
            let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
            if digits(unsigned, 10) {
                return s.parse::<i64>().ok().map(Value::Int);
            }
            if is_core_float(unsigned) {
                return Some(
                    s.parse::<f64>()
                        .map_or_else(|_| Value::Str(s.to_owned()), Value::Float),
                );
            }
            Value::Str(s.to_owned())
        }
    })
}

/// `(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, the core schema's float without its sign.
fn is_core_float(s: &str) -> bool {
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let all_digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => {
            all_digits(int) && all_digits(frac) && !(int.is_empty() && frac.is_empty())
        }
        None => !mantissa.is_empty() && all_digits(mantissa),
    };
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all_digits(e)
    });
    mantissa_ok && exponent_ok && (mantissa.contains('.') || exponent.is_some())
}
