//! The argument repairs of the function-calling adapters: what the dialect a tool was
//! declared in makes a model send differently from the canonical schema, turned back before
//! the pipeline validates ([`drop_null_optionals`], [`restore_spelled_enums`]). Repairs only
//! remove or respell what the dialect introduced; they never coerce, validate or refuse.

use serde_json::{Map, Value};

use crate::schema::walk::{Bounds, Property, Visitor, Walker};

/// What the dialect a tool was declared in makes a model send differently from the
/// canonical schema.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Repairs {
    /// `null` for an optional property left out (OpenAI strict).
    pub(crate) nulls: bool,
    /// A string spelling a value of an enum of numbers, booleans… (Gemini).
    pub(crate) spelled_enums: bool,
}

/// How far a repair walks: as deep as the pipeline lets arguments nest, and a bound on the
/// work a schema that refers to itself could otherwise multiply.
const BOUNDS: Bounds = Bounds {
    max_depth: 64,
    budget: 100_000,
};

/// Removes every `null` that stands for "not given": an optional property (one not in its
/// object's `required`) whose value is `null` where `schema` does not accept `null`, at any
/// depth (nested objects, array items, map values, local `$ref`s, the matching branch of an
/// `anyOf` / `oneOf`). `schema` is the tool's canonical input schema; it also resolves
/// `$ref`s. A `null` the schema accepts stays, and so does any other `null` (a required
/// property's, an array item), for validation to judge.
///
/// ```
/// # use serde_json::json;
/// let schema = json!({"type": "object", "properties": {
///     "note": {"type": "string"}, "tag": {"type": ["string", "null"]}}});
/// let mut args = json!({"note": null, "tag": null});
/// toolspec_core::calling::drop_null_optionals(&mut args, &schema);
/// assert_eq!(args, json!({"tag": null}));
/// ```
#[doc(hidden)]
pub fn drop_null_optionals(value: &mut Value, schema: &Value) {
    let repairs = Repairs {
        nulls: true,
        ..Repairs::default()
    };
    repair(value, schema, repairs);
}

/// Turns every string that spells a non-string value of its schema's `enum` back into that
/// value (its compact JSON: `"2"` → `2`, `"true"` → `true`), at any depth, as
/// [`drop_null_optionals`] walks. Gemini declares enums as strings only, so a model sends the
/// spelling; a string the `enum` holds as such stays, and anything else is left for
/// validation to judge.
///
/// ```
/// # use serde_json::json;
/// let schema = json!({"type": "object", "properties": {"mode": {"enum": [1, "half", true]}}});
/// let mut args = json!({"mode": "true"});
/// toolspec_core::calling::restore_spelled_enums(&mut args, &schema);
/// assert_eq!(args, json!({"mode": true}));
/// ```
#[doc(hidden)]
pub fn restore_spelled_enums(value: &mut Value, schema: &Value) {
    let repairs = Repairs {
        spelled_enums: true,
        ..Repairs::default()
    };
    repair(value, schema, repairs);
}

/// Applies `repairs` to `value`, walking it along `schema` (which also resolves `$ref`s).
pub(crate) fn repair(value: &mut Value, schema: &Value, repairs: Repairs) {
    Walker::new(schema, BOUNDS).walk(value, schema, 0, &mut Repairer { repairs });
}

/// Whether some `enum` of `schema` holds a value other than a string or `null` (which a
/// dialect of string enums spells).
pub(crate) fn has_unspelled_enum(schema: &Value) -> bool {
    match schema {
        Value::Object(node) => {
            node.get("enum")
                .and_then(Value::as_array)
                .is_some_and(|values| values.iter().any(|v| !v.is_string() && !v.is_null()))
                || node.values().any(has_unspelled_enum)
        }
        Value::Array(items) => items.iter().any(has_unspelled_enum),
        _ => false,
    }
}

/// What the repairs do along the walk.
struct Repairer {
    repairs: Repairs,
}

impl<'s> Visitor<'s> for Repairer {
    /// A string spelling a non-string value of the node's `enum` becomes that value.
    fn node(&mut self, value: &mut Value, node: &'s Map<String, Value>) {
        if self.repairs.spelled_enums
            && let Value::String(spelled) = &*value
            && let Some(values) = node.get("enum").and_then(Value::as_array)
            && !values.contains(value)
            && let Some(spelt) = values
                .iter()
                .find(|v| !v.is_string() && serde_json::to_string(v).is_ok_and(|s| s == *spelled))
        {
            *value = spelt.clone();
        }
    }

    /// A declared optional property whose `null` its schema refuses is removed; any other
    /// `null` stays as sent.
    fn property(
        &mut self,
        walker: &mut Walker<'s>,
        key: &str,
        child: &Value,
        property: Option<&'s Value>,
        required: &[&str],
        depth: usize,
    ) -> Property {
        if !(self.repairs.nulls && child.is_null()) {
            return Property::Walk;
        }
        match property {
            Some(property)
                if !required.contains(&key) && !walker.accepts_null(property, depth + 1) =>
            {
                Property::Remove
            }
            _ => Property::Keep,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn dropped(schema: Value, mut args: Value) -> Value {
        drop_null_optionals(&mut args, &schema);
        args
    }

    #[test]
    fn drops_optional_nulls_the_schema_refuses() {
        let schema = json!({
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "note": {"type": "string"},
                "cursor": {"type": ["string", "null"]},
                "mode": {"enum": ["a", "b", null]},
                "any": {},
                "either": {"anyOf": [{"type": "string"}, {"type": "null"}]}
            },
            "required": ["id"]
        });
        let args = json!({"id": null, "note": null, "cursor": null, "mode": null, "any": null, "either": null, "extra": null});
        assert_eq!(
            dropped(schema, args),
            json!({"id": null, "cursor": null, "mode": null, "any": null, "either": null, "extra": null})
        );
    }

    #[test]
    fn follows_nested_objects_arrays_refs_and_maps() {
        let schema = json!({
            "type": "object",
            "properties": {
                "ship_to": {"$ref": "#/$defs/Address"},
                "lines": {"type": "array", "items": {"type": "object", "properties": {
                    "sku": {"type": "string"}, "gift": {"type": "string"}}, "required": ["sku"]}},
                "labels": {"type": "object", "additionalProperties": {"$ref": "#/$defs/Address"}}
            },
            "$defs": {"Address": {"type": "object", "properties": {
                "city": {"type": "string"}, "zip": {"type": "string"}}, "required": ["city"]}}
        });
        let args = json!({
            "ship_to": {"city": "Oslo", "zip": null},
            "lines": [{"sku": "A", "gift": null}, null, {"sku": "B", "gift": "yes"}],
            "labels": {"home": {"city": "Rome", "zip": null}, "gone": null}
        });
        assert_eq!(
            dropped(schema, args),
            json!({
                "ship_to": {"city": "Oslo"},
                "lines": [{"sku": "A"}, null, {"sku": "B", "gift": "yes"}],
                "labels": {"home": {"city": "Rome"}, "gone": null}
            })
        );
    }

    #[test]
    fn picks_the_union_branch_by_its_tag() {
        let schema = json!({
            "type": "object",
            "properties": {"payment": {"anyOf": [
                {"type": "object", "properties": {"kind": {"const": "card"}, "cvc": {"type": ["string", "null"]}}, "required": ["kind"], "additionalProperties": false},
                {"type": "object", "properties": {"kind": {"const": "iban"}, "cvc": {"type": "string"}}, "required": ["kind"], "additionalProperties": false}
            ]}}
        });
        assert_eq!(
            dropped(
                schema.clone(),
                json!({"payment": {"kind": "card", "cvc": null}})
            ),
            json!({"payment": {"kind": "card", "cvc": null}})
        );
        assert_eq!(
            dropped(schema, json!({"payment": {"kind": "iban", "cvc": null}})),
            json!({"payment": {"kind": "iban"}})
        );
    }

    #[test]
    fn restores_spelled_enum_values_and_nothing_else() {
        let schema = json!({
            "type": "object",
            "properties": {
                "level": {"$ref": "#/$defs/Level"},
                "either": {"enum": ["1", 1]},
                "note": {"type": "string"},
                "tags": {"type": "array", "items": {"enum": [true, null]}}
            },
            "$defs": {"Level": {"enum": [0.5, 2]}}
        });
        let mut args = json!({
            "level": "2", "either": "1", "note": "2", "tags": ["true", null, "nope"]
        });
        restore_spelled_enums(&mut args, &schema);
        assert_eq!(
            args,
            json!({"level": 2, "either": "1", "note": "2", "tags": [true, null, "nope"]})
        );
        // Nulls are another repair: this one leaves them alone.
        let mut args = json!({"note": null});
        restore_spelled_enums(&mut args, &schema);
        assert_eq!(args, json!({"note": null}));
        assert!(has_unspelled_enum(&schema));
        assert!(!has_unspelled_enum(&json!({"enum": ["a", null]})));
    }

    #[test]
    fn survives_recursive_and_broken_schemas() {
        let schema = json!({"$ref": "#", "type": "object", "properties": {"next": {"$ref": "#"}, "n": {"type": "integer"}}});
        let mut deep = json!({"n": null});
        for _ in 0..200 {
            deep = json!({"next": deep, "n": null});
        }
        drop_null_optionals(&mut deep, &schema);
        assert_eq!(deep.get("n"), None);
        let mut args = json!({"a": null});
        drop_null_optionals(
            &mut args,
            &json!({"properties": {"a": {"$ref": "#/$defs/missing"}}}),
        );
        assert_eq!(args, json!({"a": null}));
        drop_null_optionals(&mut args, &json!("not a schema"));
        assert_eq!(args, json!({"a": null}));
    }
}
