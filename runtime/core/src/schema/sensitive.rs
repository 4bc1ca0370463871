//! Where a tool's values are `sensitive`: the map the compiler embeds in each descriptor
//! (its `sensitive_input` and `sensitive_output`), compiled once, and the two
//! questions asked of it: is the value at this JSON pointer sensitive, and what is this value
//! with every sensitive part replaced by [`REDACTED`] (in place, or as a view that serializes
//! so without copying the value: what an audit record keeps).
//!
//! The map is shaped like the schema, holding only the paths that lead to a sensitive field:
//! `true` marks a sensitive value (everything below it included); `properties`, `items` and
//! `additionalProperties` (a map's values) lead further down; `anyOf` lists the plans of a
//! union's variants (a value is sensitive where any of them says so, since a pointer does not
//! say which variant matched); `$ref` names an entry of the root's `$defs` (named types, which
//! may refer to themselves). Nothing else reads or interprets values here.
//!
//! The map is compiled by one walk of it (`crate::schema::walk`, 128 levels at most, each `$defs`
//! entry once); the pipeline, its reports and the developer's own logs ask the compiled map.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};

use crate::schema::keys::Keys;
use crate::schema::refs::{self, Refs};
use crate::schema::walk::{Bounds, Walker};

/// What a sensitive value is replaced with wherever it would be shown or stored.
pub const REDACTED: &str = "[redacted]";

/// How deep a sensitivity walk follows a value; nothing is sensitive below (the pipeline
/// refuses arguments nested deeper long before).
const MAX_DEPTH: usize = 128;

/// How far compiling a map follows it: as deep as a walk of a value; no bound on the nodes,
/// since each `$defs` entry is compiled once.
const MAP_BOUNDS: Bounds = Bounds {
    max_depth: MAX_DEPTH,
    budget: usize::MAX,
};

/// A compiled sensitivity map. The default marks nothing sensitive.
#[derive(Debug, Clone, Default)]
#[doc(hidden)]
pub struct Sensitivity {
    /// `None`: nothing is sensitive.
    root: Option<Node>,
    /// The plans of `$defs` entries, by index.
    defs: Vec<Node>,
}

/// One node of the map.
#[derive(Debug, Clone, Default)]
enum Node {
    /// Nothing below is sensitive.
    #[default]
    Clear,
    /// This value and everything below it.
    Sensitive,
    /// A `$defs` entry, by index.
    Ref(usize),
    /// Some parts below.
    Parts(Box<Parts>),
}

#[derive(Debug, Clone, Default)]
struct Parts {
    properties: Keys,
    plans: Vec<Node>,
    items: Option<Node>,
    values: Option<Node>,
    any_of: Vec<Node>,
}

impl Sensitivity {
    /// Compiles an embedded map (`None`: nothing is sensitive). A map the compiler did not
    /// write (not JSON, unknown `$ref`s) marks nothing sensitive where it cannot be read.
    pub fn compile(map: Option<&str>) -> Self {
        let Some(root) = map.and_then(|text| serde_json::from_str::<Value>(text).ok()) else {
            return Self::default();
        };
        let mut compiler = Compiler {
            defs_map: root.get("$defs").and_then(Value::as_object),
            walker: Walker::new(&root, MAP_BOUNDS),
            defs: Refs::new(),
        };
        let node = compiler.node(&root, 0);
        Self {
            root: Some(node),
            defs: compiler.defs.into_plans(),
        }
    }

    /// Whether nothing is sensitive.
    pub fn is_empty(&self) -> bool {
        matches!(self.root, None | Some(Node::Clear))
    }

    /// Whether the value at `path` (pointer tokens from the root) is sensitive, or lies inside
    /// a sensitive value. A token is read as an object key and, when it is a number, as an
    /// array index too.
    pub fn covers<T: AsRef<str>>(&self, path: impl IntoIterator<Item = T>) -> bool {
        self.sensitive_prefix(path).is_some()
    }

    /// How many tokens of `path` lead to the sensitive value it lies in (or is), if it lies
    /// in one: what a pointer may show of a path into a sensitive value, whose keys are data.
    pub fn sensitive_prefix<T: AsRef<str>>(
        &self,
        path: impl IntoIterator<Item = T>,
    ) -> Option<usize> {
        let root = self.root.as_ref()?;
        let mut at = vec![root];
        let mut depth = 0;
        for token in path {
            let mut next = Vec::new();
            for node in at {
                if let Step::Sensitive = self.step(node, token.as_ref(), &mut next) {
                    return Some(depth);
                }
            }
            if next.is_empty() {
                return None;
            }
            at = next;
            depth += 1;
        }
        at.into_iter()
            .any(|node| self.is_sensitive(node, 0))
            .then_some(depth)
    }

    /// The node below `node` at `token`, pushed onto `next` (several for unions).
    fn step<'s>(&'s self, node: &'s Node, token: &str, next: &mut Vec<&'s Node>) -> Step {
        match self.resolve(node) {
            Node::Clear | Node::Ref(_) => Step::Went,
            Node::Sensitive => Step::Sensitive,
            Node::Parts(parts) => {
                if let Some(i) = parts.properties.find(token, 0) {
                    next.push(&parts.plans[i]);
                } else if let Some(values) = &parts.values {
                    next.push(values);
                }
                if let Some(items) = &parts.items
                    && token.parse::<usize>().is_ok()
                {
                    next.push(items);
                }
                for branch in &parts.any_of {
                    if let Step::Sensitive = self.step(branch, token, next) {
                        return Step::Sensitive;
                    }
                }
                Step::Went
            }
        }
    }

    /// Whether `node` itself (not only parts of it) is sensitive.
    fn is_sensitive(&self, node: &Node, depth: usize) -> bool {
        match self.resolve(node) {
            Node::Sensitive => true,
            Node::Parts(parts) if depth < MAX_DEPTH => parts
                .any_of
                .iter()
                .any(|branch| self.is_sensitive(branch, depth + 1)),
            _ => false,
        }
    }

    /// Follows `$ref`s (a chain of refs that never reaches a node is nothing sensitive).
    fn resolve<'s>(&'s self, node: &'s Node) -> &'s Node {
        let reference = |node: &Node| match node {
            Node::Ref(index) => Some(*index),
            _ => None,
        };
        refs::follow(&self.defs, node, reference).unwrap_or(&Node::Clear)
    }

    /// `value` with every sensitive part replaced by [`REDACTED`], in place.
    pub fn redact(&self, value: &mut Value) {
        self.redact_with(value, &self.root_plan());
    }

    /// `value` as [`redact`](Self::redact) would leave it, without copying it: serialized,
    /// it writes each sensitive part as [`REDACTED`] and everything else as it is.
    pub fn redacted<'a>(&'a self, value: &'a Value) -> Redacted<'a> {
        Redacted {
            map: self,
            value,
            plan: self.root_plan(),
        }
    }

    fn redact_with(&self, value: &mut Value, plan: &Plan<'_>) {
        let (parts, depth) = match plan {
            Plan::Clear => return,
            Plan::Sensitive => {
                *value = Value::String(REDACTED.into());
                return;
            }
            Plan::Parts(parts, depth) => (parts, *depth),
        };
        match value {
            Value::Object(map) => {
                for (key, child) in map.iter_mut() {
                    self.redact_with(child, &self.field(parts, key, depth));
                }
            }
            Value::Array(items) => {
                let plan = self.item(parts, depth);
                for item in items {
                    self.redact_with(item, &plan);
                }
            }
            _ => {}
        }
    }

    /// What applies to the whole value.
    fn root_plan(&self) -> Plan<'_> {
        self.plan(self.root.as_ref(), 0)
    }

    /// What applies to a value reached through `nodes` at `depth`: `$ref`s followed, a
    /// union's variants gathered beside their union (a variant sensitive whole makes the value
    /// so).
    fn plan<'s>(&'s self, nodes: impl IntoIterator<Item = &'s Node>, depth: usize) -> Plan<'s> {
        let mut parts = Vec::new();
        for node in nodes {
            if self.gather(node, depth, &mut parts) {
                return Plan::Sensitive;
            }
        }
        match parts.is_empty() {
            true => Plan::Clear,
            false => Plan::Parts(parts, depth),
        }
    }

    /// Pushes the parts of `node` (and its variants') onto `parts`; whether it is sensitive.
    fn gather<'s>(&'s self, node: &'s Node, depth: usize, parts: &mut Vec<&'s Parts>) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match self.resolve(node) {
            Node::Clear | Node::Ref(_) => false,
            Node::Sensitive => true,
            Node::Parts(own) => {
                parts.push(own);
                own.any_of
                    .iter()
                    .any(|branch| self.gather(branch, depth + 1, parts))
            }
        }
    }

    /// What applies to the field `key` of an object whose value `parts` describe.
    fn field<'s>(&'s self, parts: &[&'s Parts], key: &str, depth: usize) -> Plan<'s> {
        let below = parts
            .iter()
            .filter_map(|p| match p.properties.find(key, 0) {
                Some(i) => Some(&p.plans[i]),
                None => p.values.as_ref(),
            });
        self.plan(below, depth + 1)
    }

    /// What applies to each item of an array whose value `parts` describe.
    fn item<'s>(&'s self, parts: &[&'s Parts], depth: usize) -> Plan<'s> {
        self.plan(parts.iter().filter_map(|p| p.items.as_ref()), depth + 1)
    }
}

/// What applies to one value: nothing below it, the whole of it, or some parts below (of one
/// node, or of several where a union's variants meet), at its depth.
enum Plan<'s> {
    Clear,
    Sensitive,
    Parts(Vec<&'s Parts>, usize),
}

/// A value with its sensitive parts hidden, for serializing ([`Sensitivity::redacted`]).
#[doc(hidden)]
pub struct Redacted<'a> {
    map: &'a Sensitivity,
    value: &'a Value,
    plan: Plan<'a>,
}

impl Serialize for Redacted<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        Shown {
            map: self.map,
            value: self.value,
            plan: &self.plan,
        }
        .serialize(serializer)
    }
}

/// A part of a [`Redacted`] value, with what applies to it.
struct Shown<'a, 'p> {
    map: &'a Sensitivity,
    value: &'a Value,
    plan: &'p Plan<'a>,
}

impl Serialize for Shown<'_, '_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (parts, depth) = match self.plan {
            Plan::Clear => return self.value.serialize(serializer),
            Plan::Sensitive => return serializer.serialize_str(REDACTED),
            Plan::Parts(parts, depth) => (parts, *depth),
        };
        let map = self.map;
        match self.value {
            Value::Object(fields) => {
                let mut out = serializer.serialize_map(Some(fields.len()))?;
                for (key, value) in fields {
                    let plan = map.field(parts, key, depth);
                    out.serialize_entry(
                        key,
                        &Shown {
                            map,
                            value,
                            plan: &plan,
                        },
                    )?;
                }
                out.end()
            }
            Value::Array(items) => {
                let plan = map.item(parts, depth);
                let mut out = serializer.serialize_seq(Some(items.len()))?;
                for value in items {
                    out.serialize_element(&Shown {
                        map,
                        value,
                        plan: &plan,
                    })?;
                }
                out.end()
            }
            other => other.serialize(serializer),
        }
    }
}

enum Step {
    /// The walk reached a sensitive value.
    Sensitive,
    /// The walk went on (or ended) below.
    Went,
}

/// The compilation of one map: a walk of the map alone, each `$defs` entry compiled once (at
/// the top, wherever it is first referred to), by index.
struct Compiler<'m> {
    /// The root's `$defs`, which `$ref`s name.
    defs_map: Option<&'m Map<String, Value>>,
    walker: Walker<'m>,
    defs: Refs<'m, Node>,
}

impl<'m> Compiler<'m> {
    fn node(&mut self, value: &'m Value, depth: usize) -> Node {
        if !self.walker.enter(depth) {
            return Node::Clear;
        }
        let map = match value {
            Value::Bool(true) => return Node::Sensitive,
            Value::Object(map) => map,
            _ => return Node::Clear,
        };
        if let Some(Value::String(reference)) = map.get("$ref") {
            return self.reference(reference);
        }
        let mut parts = Parts {
            items: self.below(map.get("items"), depth),
            values: self.below(map.get("additionalProperties"), depth),
            ..Parts::default()
        };
        if let Some(Value::Object(properties)) = map.get("properties") {
            parts.properties = Keys::new(properties.keys().cloned().collect());
            parts.plans = properties
                .values()
                .map(|v| self.node(v, depth + 1))
                .collect();
        }
        if let Some(Value::Array(branches)) = map.get("anyOf") {
            parts.any_of = branches.iter().map(|v| self.node(v, depth + 1)).collect();
        }
        Node::Parts(Box::new(parts))
    }

    /// The node of a subschema, unless nothing below it is sensitive.
    fn below(&mut self, value: Option<&'m Value>, depth: usize) -> Option<Node> {
        value
            .map(|v| self.node(v, depth + 1))
            .filter(|n| !matches!(n, Node::Clear))
    }

    /// A `$ref` to an entry of the root's `$defs` (the only kind the compiler writes; any
    /// other marks nothing sensitive).
    fn reference(&mut self, reference: &'m str) -> Node {
        if let Some(index) = self.defs.get(reference) {
            return Node::Ref(index);
        }
        let target = reference
            .strip_prefix("#/$defs/")
            .and_then(|name| self.defs_map?.get(name));
        let Some(target) = target else {
            return Node::Clear;
        };
        let index = self.defs.reserve(reference);
        let node = self.node(target, 0);
        self.defs.set(index, node);
        Node::Ref(index)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn map() -> Sensitivity {
        Sensitivity::compile(Some(
            &json!({
                "properties": {
                    "note": true,
                    "lines": { "items": { "properties": { "gift": true } } },
                    "cards": { "additionalProperties": { "$ref": "#/$defs/Card" } },
                    "contact": { "anyOf": [ { "properties": { "email": true } }, true ] },
                    "tree": { "$ref": "#/$defs/Tree" }
                },
                "$defs": {
                    "Card": { "properties": { "number": true } },
                    "Tree": { "properties": { "secret": true, "children": { "items": { "$ref": "#/$defs/Tree" } } } }
                }
            })
            .to_string(),
        ))
    }

    #[test]
    fn pointers_inside_sensitive_values_are_covered() {
        let map = map();
        let covers = |path: &str| map.covers(path.split('/').skip(1));
        assert!(covers("/note"));
        assert!(covers("/note/deeper"));
        assert!(!covers("/lines"));
        assert!(!covers("/lines/0"));
        assert!(covers("/lines/0/gift"));
        assert!(!covers("/lines/0/sku"));
        assert!(!covers("/lines/x/gift"), "items are reached by index only");
        assert!(covers("/cards/any/number"));
        assert!(!covers("/cards/any/expiry"));
        assert!(covers("/contact"), "a variant that is sensitive whole");
        assert!(covers("/tree/children/3/children/0/secret"));
        assert!(!covers("/tree/children/3/name"));
        assert!(!covers("/other"));
        let prefix = |path: &str| map.sensitive_prefix(path.split('/').skip(1));
        assert_eq!(prefix("/note"), Some(1));
        assert_eq!(prefix("/note/secret-key/deeper"), Some(1));
        assert_eq!(prefix("/lines/3/gift/x"), Some(3));
        assert_eq!(prefix("/lines/3/sku"), None);
        assert!(!Sensitivity::default().covers(["note"]));
        assert!(Sensitivity::default().is_empty());
        assert!(!map.is_empty());
    }

    #[test]
    fn redaction_replaces_every_sensitive_part() {
        let mut value = json!({
            "note": { "a": 1 },
            "lines": [ { "gift": "x", "sku": "A" }, { "sku": "B" } ],
            "cards": { "visa": { "number": "4111", "expiry": "12/30" } },
            "tree": { "secret": 1, "children": [ { "secret": 2, "children": [] } ] },
            "other": "kept"
        });
        map().redact(&mut value);
        assert_eq!(
            value,
            json!({
                "note": REDACTED,
                "lines": [ { "gift": REDACTED, "sku": "A" }, { "sku": "B" } ],
                "cards": { "visa": { "number": REDACTED, "expiry": "12/30" } },
                "tree": { "secret": REDACTED, "children": [ { "secret": REDACTED, "children": [] } ] },
                "other": "kept"
            })
        );
    }

    #[test]
    fn a_redacted_view_serializes_as_the_redacted_copy() {
        let map = map();
        let values = [
            json!({
                "note": { "a": 1 },
                "lines": [ { "gift": "x", "sku": "A" }, { "sku": "B" }, 3 ],
                "cards": { "visa": { "number": "4111", "expiry": "12/30" }, "odd": [1] },
                "contact": { "email": "a@b.c" },
                "tree": { "secret": 1, "children": [ { "secret": 2, "children": [ { "name": "x" } ] } ] },
                "other": "kept"
            }),
            json!({ "lines": { "0": { "gift": "not an array" } }, "tree": [ { "secret": 1 } ] }),
            json!([ { "note": 1 } ]),
            json!("just text"),
        ];
        for value in values {
            let mut copy = value.clone();
            map.redact(&mut copy);
            let shown = serde_json::to_string(&map.redacted(&value)).expect("JSON");
            assert_eq!(shown, copy.to_string(), "{value}");
            let clear = Sensitivity::default();
            let shown = serde_json::to_string(&clear.redacted(&value)).expect("JSON");
            assert_eq!(shown, value.to_string());
        }
    }

    #[test]
    fn a_map_the_compiler_did_not_write_marks_nothing() {
        assert!(Sensitivity::compile(Some("not json")).is_empty());
        let map = Sensitivity::compile(Some(r##"{"properties":{"a":{"$ref":"#/$defs/Nope"}}}"##));
        assert!(!map.covers(["a"]));
        let looped = Sensitivity::compile(Some(
            r##"{"properties":{"a":{"$ref":"#/$defs/A"}},"$defs":{"A":{"$ref":"#/$defs/A"}}}"##,
        ));
        assert!(!looped.covers(["a", "b"]));
    }
}
