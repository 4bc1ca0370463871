//! How deep a schema nests, and where it first nests deeper than [`MAX_DEPTH`].
//!
//! Every schema the compiler emits is embedded in the generated code as JSON, parsed again at
//! run time by `serde_json` (which stops at 128 levels), sent inside protocol envelopes, and
//! walked by the validator, which follows every `$ref`. So the depth counted here is the JSON
//! nesting of arrays and objects, each `$ref` counted as one more level into the schema it
//! names (written out in place, as the validator and Gemini see it); a `$ref` back into a
//! schema it is inside of (recursion through an array or a map) adds nothing. The walk itself
//! never goes deeper than the limit, and every referenced schema is measured once.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::schema_tree::children::children;
use crate::schema_tree::path::Seg;
use crate::schema_tree::refs::{ref_name, resolve_ref};

/// The deepest an emitted schema may nest, in JSON levels (an object field takes two:
/// `properties` and the field; an array's items, a map's values or a named type one): 14
/// objects one in the next, or 29 arrays. Within `serde_json`'s 128 with room for the protocol
/// envelopes around a schema; and it keeps the Rust types generated for it within rustc's
/// default recursion limit (128), which `Option<Vec<Option<Vec<…>>>>` and nested `BTreeMap`s
/// exhaust past about 30 levels when the compiler checks `Send` and the derives.
pub const MAX_DEPTH: usize = 32;

/// The path to the deepest subschema of `schema` on the way to where it first nests deeper
/// than `limit`, or `None` when it does not.
pub fn too_deep(schema: &Value, limit: usize) -> Option<Vec<Seg>> {
    let mut walk = Walk {
        root: schema,
        limit,
        heights: BTreeMap::new(),
        open: Vec::new(),
        steps: Vec::new(),
    };
    let steps = walk.height(schema, 0).err()?;
    Some(subschema_path(schema, &steps))
}

/// One step of a walk through JSON: into a key, an index, or the schema a `$ref` names.
#[derive(Debug, Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
    Ref(&'a str),
}

struct Walk<'a> {
    root: &'a Value,
    limit: usize,
    /// The height of every referenced schema measured so far.
    heights: BTreeMap<&'a str, usize>,
    /// The references being measured (one inside the other).
    open: Vec<&'a str>,
    /// Where the walk is.
    steps: Vec<Step<'a>>,
}

impl<'a> Walk<'a> {
    /// The height of `value` (a scalar 0, an array or object one more than its highest item),
    /// `depth` levels below the root; the steps to where it crosses the limit, if it does.
    fn height(&mut self, value: &'a Value, depth: usize) -> Result<usize, Vec<Step<'a>>> {
        let items: Vec<(Step<'a>, &'a Value)> = match value {
            Value::Object(map) => map.iter().map(|(k, v)| (Step::Key(k), v)).collect(),
            Value::Array(list) => list
                .iter()
                .enumerate()
                .map(|(i, v)| (Step::Index(i), v))
                .collect(),
            _ => return Ok(0),
        };
        if depth >= self.limit {
            return Err(self.steps.clone());
        }
        let mut height = 1;
        for (step, item) in items {
            self.steps.push(step);
            let below = self.height(item, depth + 1)?;
            self.steps.pop();
            height = height.max(below + 1);
        }
        if let Some(Value::String(reference)) = value.get("$ref") {
            height = height.max(self.follow(reference, depth + 1)? + 1);
        }
        Ok(height)
    }

    /// The height of the schema `reference` names, placed `depth` levels below the root.
    fn follow(&mut self, reference: &'a str, depth: usize) -> Result<usize, Vec<Step<'a>>> {
        if self.open.contains(&reference) {
            return Ok(0);
        }
        let Some(target) = resolve_ref(self.root, reference) else {
            return Ok(0);
        };
        if let Some(&height) = self.heights.get(reference)
            && depth + height <= self.limit
        {
            return Ok(height);
        }
        // Not measured yet, or too deep from here: walk it (again) to find where.
        self.open.push(reference);
        self.steps.push(Step::Ref(reference));
        let height = self.height(target, depth);
        self.steps.pop();
        self.open.pop();
        let height = height?;
        self.heights.insert(reference, height);
        Ok(height)
    }
}

/// The steps of a walk as a path of subschemas: as far as they go through subschemas (not
/// into `default` or `examples` values), a `$ref` as the definition it names.
fn subschema_path(root: &Value, steps: &[Step<'_>]) -> Vec<Seg> {
    let mut path = Vec::new();
    let mut node = root;
    let mut rest = steps;
    while let Some((first, after)) = rest.split_first() {
        if let Step::Ref(reference) = first {
            let Some(target) = resolve_ref(root, reference) else {
                break;
            };
            path.push(Seg::Def(ref_name(reference)));
            node = target;
            rest = after;
            continue;
        }
        let Value::Object(map) = node else { break };
        let subschemas = children(map);
        // A subschema is one step below (`items`) or two (`properties/name`, `anyOf/0`).
        let found = (1..=2).find_map(|n| {
            let below = rest.get(..n)?.iter().try_fold(node, |v, s| step(v, *s))?;
            let (segs, _) = subschemas.iter().find(|(_, c)| std::ptr::eq(*c, below))?;
            Some((segs.clone(), below, n))
        });
        let Some((segs, below, n)) = found else { break };
        path.extend(segs);
        node = below;
        rest = &rest[n..];
    }
    path
}

/// The value one step below `value`.
fn step<'v>(value: &'v Value, step: Step<'_>) -> Option<&'v Value> {
    match step {
        Step::Key(key) => value.get(key),
        Step::Index(i) => value.get(i),
        Step::Ref(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// An object nested `n` levels through `properties/a`.
    fn nested(n: usize) -> Value {
        (0..n).fold(
            json!({ "type": "string" }),
            |inner, _| json!({ "type": "object", "properties": { "a": inner } }),
        )
    }

    #[test]
    fn json_levels_are_counted() {
        // n objects through `properties` are 2n + 1 levels.
        assert_eq!(too_deep(&nested(31), 64), None);
        let path = too_deep(&nested(32), 64).expect("65 levels");
        assert_eq!(path, vec![Seg::Prop("a".into()); 32]);
        assert_eq!(too_deep(&nested(15), MAX_DEPTH), None);
        assert!(too_deep(&nested(16), MAX_DEPTH).is_some());
        // Deep values count too; the path stops at the schema that holds them.
        let deep_default = (0..70).fold(json!(1), |v, _| json!([v]));
        let schema = json!({ "properties": { "x": { "default": deep_default } } });
        assert_eq!(too_deep(&schema, 64), Some(vec![Seg::Prop("x".into())]));
    }

    #[test]
    fn references_are_written_out_and_measured_once() {
        // A chain of 100 named types, each only a reference to the next.
        let mut defs = serde_json::Map::new();
        for i in 0..100 {
            defs.insert(
                format!("T{i}"),
                json!({ "$ref": format!("#/$defs/T{}", i + 1) }),
            );
        }
        defs.insert("T100".into(), json!({ "type": "string" }));
        let schema = json!({ "properties": { "x": { "$ref": "#/$defs/T0" } }, "$defs": defs });
        let path = too_deep(&schema, 64).expect("a chain of 100 references");
        assert_eq!(path[0], Seg::Prop("x".into()));
        assert_eq!(path[1], Seg::Def("T0".into()));
        // A diamond of references 40 deep is measured in linear time, not 2^40.
        let mut defs = serde_json::Map::new();
        for i in 0..40 {
            let next = format!("#/$defs/D{}", i + 1);
            defs.insert(
                format!("D{i}"),
                json!({ "anyOf": [{ "$ref": next }, { "$ref": next }] }),
            );
        }
        defs.insert("D40".into(), json!({}));
        let schema = json!({ "$ref": "#/$defs/D0", "$defs": defs });
        assert!(too_deep(&schema, 1_000).is_none());
        // Recursion (through an array) adds nothing.
        let schema = json!({
            "$ref": "#/$defs/Tree",
            "$defs": { "Tree": { "type": "array", "items": { "$ref": "#/$defs/Tree" } } }
        });
        assert_eq!(too_deep(&schema, 8), None);
    }
}
