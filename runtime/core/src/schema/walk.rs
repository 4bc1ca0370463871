//! The one walker of JSON Schemas: a walk of one schema document (whose root resolves its
//! local `$ref`s) that spends a step per schema node it visits and stops where it is too deep
//! or out of budget, so that a schema referring to itself cannot make it loop or multiply its
//! work.
//!
//! Compiling walks visit the schema alone ([`Walker::enter`] at each node; the pipeline's
//! argument plan, the sensitivity maps); [`Walker::walk`] walks a value along its schema,
//! following `$ref`s, the union branches the value fits and every `allOf` part, and lets a
//! [`Visitor`] change the value on the way (the function-calling adapters' argument repairs).
//! What a walk does at each node is its user's; this module only decides where it goes.

use serde_json::{Map, Value};

use crate::schema::refs;

/// How far a walk may go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Bounds {
    /// How deep below the schema it starts at (each property, item, `$ref` and union branch
    /// one level down).
    pub(crate) max_depth: usize,
    /// How many schema nodes it may visit in all.
    pub(crate) budget: usize,
}

/// One walk of a schema document, within its bounds.
#[derive(Debug)]
pub(crate) struct Walker<'s> {
    root: &'s Value,
    max_depth: usize,
    budget: usize,
}

/// What a value walk does with one property of an object it meets.
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Property {
    /// Walk into it (along its schema, or the object's `additionalProperties`), and keep it.
    Walk,
    /// Keep it as it is.
    Keep,
    /// Remove it.
    Remove,
}

/// What a value walk does on its way.
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
pub(crate) trait Visitor<'s> {
    /// At each schema node the value meets, once its `$ref` target, the union branch it fits
    /// and its `allOf` parts were walked, before its properties or items are.
    fn node(&mut self, value: &mut Value, node: &'s Map<String, Value>) {
        let _ = (value, node);
    }

    /// What to do with the property `key` holding `child` of an object whose schema node
    /// declares it as `property` (if at all) and lists `required`; `depth` is the object's.
    fn property(
        &mut self,
        walker: &mut Walker<'s>,
        key: &str,
        child: &Value,
        property: Option<&'s Value>,
        required: &[&str],
        depth: usize,
    ) -> Property {
        let _ = (walker, key, child, property, required, depth);
        Property::Walk
    }
}

impl<'s> Walker<'s> {
    /// A walk of the schema document `root`.
    pub(crate) fn new(root: &'s Value, bounds: Bounds) -> Self {
        Self {
            root,
            max_depth: bounds.max_depth,
            budget: bounds.budget,
        }
    }

    /// Spends one step on a node at `depth`; false when the walk must not visit it (too deep,
    /// or out of budget).
    pub(crate) fn enter(&mut self, depth: usize) -> bool {
        if depth > self.max_depth || self.budget == 0 {
            return false;
        }
        self.budget -= 1;
        true
    }

    /// The target of the local reference `reference` (see [`refs::resolve`]).
    pub(crate) fn resolve(&self, reference: &str) -> Option<&'s Value> {
        refs::resolve(self.root, reference)
    }
}

// A walk of a value along its schema serves the function-calling adapters' argument repairs.
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
impl<'s> Walker<'s> {
    /// The target of `node`'s local `$ref`, if it has one.
    pub(crate) fn target(&self, node: &Map<String, Value>) -> Option<&'s Value> {
        self.resolve(node.get("$ref")?.as_str()?)
    }

    /// Walks `value` along `schema` (at `depth`), `visitor` acting on the way: into the
    /// `$ref` target, the first branch of an `anyOf` / `oneOf` the value
    /// [fits](Self::fits), every `allOf` part, then the properties of an object (declared
    /// ones along their schemas, others along `additionalProperties`) and the items of an
    /// array (`null` items left alone).
    pub(crate) fn walk(
        &mut self,
        value: &mut Value,
        schema: &'s Value,
        depth: usize,
        visitor: &mut impl Visitor<'s>,
    ) {
        if !self.enter(depth) {
            return;
        }
        let Some(node) = schema.as_object() else {
            return;
        };
        if let Some(target) = self.target(node) {
            self.walk(value, target, depth + 1, visitor);
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(branches) = node.get(keyword).and_then(Value::as_array)
                && let Some(branch) = branches.iter().find(|b| self.fits(value, b, depth + 1))
            {
                self.walk(value, branch, depth + 1, visitor);
            }
        }
        if let Some(branches) = node.get("allOf").and_then(Value::as_array) {
            for branch in branches {
                self.walk(value, branch, depth + 1, visitor);
            }
        }
        visitor.node(value, node);
        match value {
            Value::Object(map) => {
                let properties = node.get("properties").and_then(Value::as_object);
                let required: Vec<&str> = node
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let additional = node.get("additionalProperties").filter(|s| s.is_object());
                map.retain(|key, child| {
                    let property = properties.and_then(|p| p.get(key));
                    match visitor.property(self, key, child, property, &required, depth) {
                        Property::Keep => true,
                        Property::Remove => false,
                        Property::Walk => {
                            if let Some(child_schema) = property.or(additional) {
                                self.walk(child, child_schema, depth + 1, visitor);
                            }
                            true
                        }
                    }
                });
            }
            Value::Array(items) => {
                if let Some(item_schema) = node.get("items").filter(|s| s.is_object()) {
                    for item in items.iter_mut().filter(|item| !item.is_null()) {
                        self.walk(item, item_schema, depth + 1, visitor);
                    }
                }
            }
            _ => {}
        }
    }

    /// Whether `schema` (at `depth`) accepts `null`. Conservative: a keyword not understood
    /// never refuses it, and neither does a schema too deep or too costly to look into.
    pub(crate) fn accepts_null(&mut self, schema: &'s Value, depth: usize) -> bool {
        if !self.enter(depth) {
            return true;
        }
        let node = match schema {
            Value::Bool(accepts) => return *accepts,
            Value::Object(node) => node,
            _ => return true,
        };
        let by_type = match node.get("type") {
            Some(Value::String(t)) => t == "null",
            Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
            _ => true,
        };
        let by_enum = node
            .get("enum")
            .and_then(Value::as_array)
            .is_none_or(|values| values.contains(&Value::Null));
        let by_const = node.get("const").is_none_or(Value::is_null);
        if !(by_type && by_enum && by_const) {
            return false;
        }
        if let Some(target) = self.target(node)
            && !self.accepts_null(target, depth + 1)
        {
            return false;
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(branches) = node.get(keyword).and_then(Value::as_array)
                && !branches.iter().any(|b| self.accepts_null(b, depth + 1))
            {
                return false;
            }
        }
        if let Some(branches) = node.get("allOf").and_then(Value::as_array)
            && !branches.iter().all(|b| self.accepts_null(b, depth + 1))
        {
            return false;
        }
        match node.get("not") {
            Some(inner) => !self.accepts_null(inner, depth + 1),
            None => true,
        }
    }

    /// Whether `value` looks like an instance of the union branch `schema` (at `depth`): its
    /// type fits, and for an object, every property with one allowed value (a tag) holds it
    /// and no key is undeclared where the branch is closed.
    pub(crate) fn fits(&mut self, value: &Value, schema: &'s Value, depth: usize) -> bool {
        if !self.enter(depth) {
            return false;
        }
        let Some(node) = schema.as_object() else {
            return schema.as_bool().unwrap_or(false);
        };
        if let Some(target) = self.target(node) {
            return self.fits(value, target, depth + 1);
        }
        let kind = match value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        };
        let type_fits = |t: &Value| t == kind || (kind == "integer" && t == "number");
        let typed = match node.get("type") {
            Some(Value::Array(types)) => types.iter().any(type_fits),
            Some(t) => type_fits(t),
            None => true,
        };
        if !typed {
            return false;
        }
        let Value::Object(map) = value else {
            return true;
        };
        let properties = node.get("properties").and_then(Value::as_object);
        let closed = node.get("additionalProperties") == Some(&Value::Bool(false));
        if closed
            && map
                .keys()
                .any(|k| properties.is_none_or(|p| !p.contains_key(k)))
        {
            return false;
        }
        properties.into_iter().flatten().all(|(key, property)| {
            let tag = match property.get("const") {
                Some(tag) => Some(tag),
                None => property
                    .get("enum")
                    .and_then(Value::as_array)
                    .filter(|values| values.len() == 1)
                    .and_then(|values| values.first()),
            };
            match (tag, map.get(key)) {
                (Some(tag), Some(sent)) => tag == sent,
                _ => true,
            }
        })
    }
}

/// The types a schema node allows (`"type": "x"` or `"type": [...]`; none when it says
/// nothing).
pub(crate) fn types_of(node: &Map<String, Value>) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// The one branch of a union that can hold a value other than `null`, if there is exactly
/// one (an optional value of one type, as the compiler writes it).
pub(crate) fn only_non_null(branches: &[Value]) -> Option<&Value> {
    let mut rest = branches
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
    match (rest.next(), rest.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_walk_stops_past_its_depth_or_its_budget() {
        let root = json!({});
        let mut deep = Walker::new(
            &root,
            Bounds {
                max_depth: 2,
                budget: usize::MAX,
            },
        );
        assert!(deep.enter(0) && deep.enter(2));
        assert!(!deep.enter(3));
        let mut short = Walker::new(
            &root,
            Bounds {
                max_depth: 64,
                budget: 2,
            },
        );
        assert!(short.enter(0) && short.enter(1));
        assert!(!short.enter(1), "out of budget");
    }

    #[test]
    fn only_a_lone_non_null_branch_is_picked() {
        let optional = [json!({"type": "null"}), json!({"type": "integer"})];
        assert_eq!(only_non_null(&optional), Some(&json!({"type": "integer"})));
        let either = [json!({"type": "string"}), json!({"type": "integer"})];
        assert_eq!(only_non_null(&either), None);
        let types = json!({"type": ["integer", "null"]});
        assert_eq!(types_of(types.as_object().unwrap()), ["integer", "null"]);
    }
}
