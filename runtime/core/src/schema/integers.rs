//! The range of an `integer` at run time. Generated types hold integers as `i64`, and the
//! published schemas state only the bounds a spec wrote (the range of `i64` is no constraint a
//! model or a client needs, and its ends are past JavaScript's safe integers), so the schemas
//! the pipeline checks values against are given the `i64` range where they leave it open: then
//! whatever the check accepts decodes, and an integer past the range is refused by the check
//! with its field and the range named, like any other bound. A `rust_type` field or a `shape`
//! keeps its own range (the compiler lists where they are): its Rust type decides, and decoding
//! names what it refuses.

use serde_json::{Map, Number, Value, json};

use crate::schema::walk::types_of;

/// The smallest integer a value may be: `i64::MIN`.
pub(crate) const INTEGER_MIN: i64 = i64::MIN;
/// The largest integer a value may be: `i64::MAX`.
pub(crate) const INTEGER_MAX: i64 = i64::MAX;

/// 2^63, the first integer past `i64::MAX` (and, negated, exactly `i64::MIN`).
pub(crate) const TWO_63: f64 = 9_223_372_036_854_775_808.0;

/// 2^53: below this magnitude every integral `f64` is exactly one integer (at and past it, a
/// float may stand for several).
pub(crate) const EXACT_FLOAT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// How deep below the root a schema node is still given the range (each subschema one level
/// down; the compiler emits schemas 32 levels deep at most). Deeper integers are left to
/// decoding, which refuses what `i64` cannot hold too.
const MAX_DEPTH: usize = 128;

/// `schema` with every `integer` bounded to `i64` on each side its own bounds leave open or
/// looser: `minimum: -9223372036854775808` and `maximum: 9223372036854775807` added, a looser
/// `minimum` / `maximum` replaced, a looser `exclusiveMinimum` / `exclusiveMaximum` removed (the
/// new bound implies it), so that a value past the range fails once. Subschemas everywhere are
/// visited (`properties`, `items`, `$defs`, unions…) but those at the JSON pointers
/// `own_ranges` (a `rust_type` or a `shape`, whose Rust type decides the range, decoding
/// refusing what it cannot hold); `$ref`s are not followed, their targets being visited where
/// they are defined. An integer with an `enum` or `const` of integers is left as it is.
pub(crate) fn bound_to_i64<S: AsRef<str>>(schema: &mut Value, own_ranges: &[S]) {
    visit(schema, &mut String::new(), own_ranges, 0);
}

fn visit<S: AsRef<str>>(schema: &mut Value, pointer: &mut String, own_ranges: &[S], depth: usize) {
    if depth > MAX_DEPTH || own_ranges.iter().any(|r| r.as_ref() == pointer) {
        return;
    }
    let Value::Object(node) = schema else { return };
    if is_integer(node) && !enumerated(node) {
        bound(node);
    }
    // Into `child`, `steps` below this node.
    let down = |child: &mut Value, pointer: &mut String, steps: &[&str]| {
        let len = pointer.len();
        for step in steps {
            pointer.push('/');
            pointer.push_str(&toolspec_vocab::pointer::escape(step));
        }
        visit(child, pointer, own_ranges, depth + 1);
        pointer.truncate(len);
    };
    for (key, child) in node.iter_mut() {
        match (key.as_str(), child) {
            // A schema.
            (
                "additionalProperties"
                | "items"
                | "contains"
                | "not"
                | "if"
                | "then"
                | "else"
                | "propertyNames"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "additionalItems",
                child,
            ) => down(child, pointer, &[key]),
            // A map of schemas.
            (
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
                Value::Object(children),
            ) => {
                for (name, child) in children.iter_mut() {
                    down(child, pointer, &[key, name]);
                }
            }
            // A list of schemas.
            ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(children)) => {
                for (i, child) in children.iter_mut().enumerate() {
                    down(child, pointer, &[key, &i.to_string()]);
                }
            }
            _ => {}
        }
    }
}

/// Whether the node takes integers and no other numbers.
fn is_integer(node: &Map<String, Value>) -> bool {
    let types = types_of(node);
    types.contains(&"integer") && !types.contains(&"number")
}

/// Whether the node lists its values (each within `i64`, or not a number).
fn enumerated(node: &Map<String, Value>) -> bool {
    let fits = |v: &Value| !v.is_number() || v.is_i64();
    match (node.get("enum"), node.get("const")) {
        (Some(Value::Array(values)), _) => values.iter().all(fits),
        (_, Some(value)) => fits(value),
        _ => false,
    }
}

/// The number `node` has under `key`.
fn number(node: &Map<String, Value>, key: &str) -> Option<Number> {
    match node.get(key) {
        Some(Value::Number(n)) => Some(n.clone()),
        _ => None,
    }
}

fn bound(node: &mut Map<String, Value>) {
    let (minimum, exclusive_minimum) = (number(node, "minimum"), number(node, "exclusiveMinimum"));
    let low_inside = minimum.as_ref().is_some_and(at_least_min)
        || exclusive_minimum.as_ref().is_some_and(at_least_min);
    if !low_inside {
        node.insert("minimum".into(), json!(INTEGER_MIN));
        if exclusive_minimum.is_some() {
            node.remove("exclusiveMinimum");
        }
    }
    let (maximum, exclusive_maximum) = (number(node, "maximum"), number(node, "exclusiveMaximum"));
    let high_inside = maximum.as_ref().is_some_and(|n| at_most_max(n, false))
        || exclusive_maximum
            .as_ref()
            .is_some_and(|n| at_most_max(n, true));
    if !high_inside {
        node.insert("maximum".into(), json!(INTEGER_MAX));
        if exclusive_maximum.is_some() {
            node.remove("exclusiveMaximum");
        }
    }
}

/// Whether a lower bound keeps integers at or above `i64::MIN` (-2^63 is exactly it).
fn at_least_min(n: &Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f >= -TWO_63)
}

/// Whether an upper bound (`exclusive`: one that the value must stay below) keeps integers at
/// or below `i64::MAX`: every float below 2^63 does, and 2^63 itself when exclusive.
fn at_most_max(n: &Number, exclusive: bool) -> bool {
    n.is_i64()
        || n.as_u64()
            .is_some_and(|u| u <= i64::MAX as u64 + u64::from(exclusive))
        || n.as_f64()
            .is_some_and(|f| f < TWO_63 || (exclusive && f <= TWO_63))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounded(schema: Value) -> Value {
        let mut schema = json!({ "properties": { "n": schema } });
        bound_to_i64::<&str>(&mut schema, &[]);
        schema["properties"]["n"].take()
    }

    #[test]
    fn integers_get_the_i64_range_where_they_leave_it_open() {
        let (min, max) = (json!(i64::MIN), json!(i64::MAX));
        assert_eq!(
            bounded(json!({"type": "integer"})),
            json!({"type": "integer", "minimum": min, "maximum": max})
        );
        assert_eq!(
            bounded(json!({"type": ["integer", "null"], "minimum": 1})),
            json!({"type": ["integer", "null"], "minimum": 1, "maximum": max})
        );
        // Bounds within the range stay as they are.
        let within = json!({"type": "integer", "minimum": -5, "exclusiveMaximum": 9_223_372_036_854_775_808u64});
        assert_eq!(bounded(within.clone()), within);
        let within = json!({"type": "integer", "exclusiveMinimum": -9.2e18, "maximum": 9.2e18});
        assert_eq!(bounded(within.clone()), within);
        // Looser ones give way to the range.
        assert_eq!(
            bounded(json!({"type": "integer", "minimum": -1e30, "exclusiveMaximum": 1e30})),
            json!({"type": "integer", "minimum": min, "maximum": max})
        );
        assert_eq!(
            bounded(json!({"type": "integer", "maximum": 9_223_372_036_854_775_808u64})),
            json!({"type": "integer", "maximum": max, "minimum": min})
        );
        // Numbers, enumerated integers and untyped nodes are not integers to bound.
        for schema in [
            json!({"type": "number"}),
            json!({"type": ["integer", "number"]}),
            json!({"type": "integer", "enum": [1, 2, null]}),
            json!({"type": "integer", "const": 3}),
            json!({"enum": [1, 2]}),
            json!({"type": "string"}),
        ] {
            assert_eq!(bounded(schema.clone()), schema);
        }
    }

    #[test]
    fn subschemas_with_their_own_range_are_left_as_they_are() {
        let int = json!({"type": "integer"});
        let mut schema = json!({
            "properties": {
                "big": int, "plain": int, "a/b": int,
                "rows": { "items": { "properties": { "id": int } } },
            },
            "$defs": { "Row": { "anyOf": [int, int] } },
        });
        let own = [
            "/properties/big",
            "/properties/a~1b",
            "/properties/rows/items",
            "/$defs/Row/anyOf/1",
        ];
        bound_to_i64(&mut schema, &own);
        let untouched = [
            "/properties/big",
            "/properties/a~1b",
            "/properties/rows/items/properties/id",
            "/$defs/Row/anyOf/1",
        ];
        for pointer in untouched {
            assert_eq!(schema.pointer(pointer), Some(&int), "{pointer}");
        }
        for pointer in ["/properties/plain", "/$defs/Row/anyOf/0"] {
            assert_eq!(
                schema.pointer(&format!("{pointer}/minimum")),
                Some(&json!(i64::MIN)),
                "{pointer}"
            );
        }
    }

    #[test]
    fn every_subschema_is_visited() {
        let int = json!({"type": "integer"});
        let mut schema = json!({
            "type": "object",
            "properties": { "a": int, "list": { "type": "array", "items": int } },
            "additionalProperties": int,
            "$defs": { "T": { "anyOf": [int, { "type": "string" }] } },
            "prefixItems": [int],
        });
        bound_to_i64::<&str>(&mut schema, &[]);
        for pointer in [
            "/properties/a",
            "/properties/list/items",
            "/additionalProperties",
            "/$defs/T/anyOf/0",
            "/prefixItems/0",
        ] {
            assert_eq!(
                schema.pointer(&format!("{pointer}/maximum")),
                Some(&json!(i64::MAX)),
                "{pointer}"
            );
        }
        assert_eq!(schema["$defs"]["T"]["anyOf"][1], json!({"type": "string"}));
        // Past the depth limit, nothing is changed (and nothing overflows the stack).
        let mut deep = json!({"type": "integer"});
        for _ in 0..10_000 {
            let mut node = Map::new();
            node.insert("items".into(), deep);
            deep = Value::Object(node);
        }
        bound_to_i64::<&str>(&mut deep, &[]);
        let mut deep_leaf = &deep;
        while let Some(next) = deep_leaf.get("items") {
            deep_leaf = next;
        }
        assert_eq!(deep_leaf, &json!({"type": "integer"}));
        drop_deep(deep);
    }

    /// Drops a deeply nested value without recursing (serde_json's drop would).
    fn drop_deep(mut value: Value) {
        while let Some(next) = value.get_mut("items").map(Value::take) {
            value = next;
        }
    }
}
