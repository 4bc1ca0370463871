//! The argument plan, compiled once per tool from its input schema: one walk of the arguments
//! that screens them and coerces wire values, before the schema is checked.
//!
//! Screening refuses, cheaply, what would make checking costly: arguments nested deeper than
//! [`Limits::max_depth`] or holding more than [`Limits::max_values`] values, and arrays longer
//! than their `maxItems` (their items are never looked at). It also names every undeclared
//! key of a closed object (`additionalProperties: false`), at the top level as "not an
//! argument of this tool", and removes it, so that the schema check does not list them again.
//!
//! Coercion turns what models commonly send in place of what the schema says into what it
//! says. Documented and deliberately small:
//!
//! - a string holding a number, where the schema wants an `integer` or `number` (`"42"` → `42`);
//!   for an `integer`, the string of any `i64`, or of an integral number below 2^53 in
//!   magnitude in any other spelling (`"3.0"`, `"1e2"`);
//! - a number without a fractional part below 2^53 in magnitude, where the schema wants an
//!   `integer` (`3.0` → `3`: the schema already accepts it, the typed `i64` would not); at or
//!   past 2^53 a float is not an exact integer (`9007199254740993.0` reads as
//!   `9007199254740992`), and is refused rather than rounded;
//! - `"true"` / `"false"`, where it wants a `boolean`;
//! - a number, where it wants a `string` (`9.99` → `"9.99"`, e.g. for `decimal` fields);
//! - a `uuid` in any form the uuid crate reads (braced, URN, upper case) → hyphenated lower case;
//! - a `date-time` with a space instead of `T`, or a lower-case `z` → RFC 3339.
//!
//! Anything else is left alone for the schema check to judge.
//!
//! The plan is compiled by one walk of the schema (`crate::schema::walk`: `$ref`s followed once
//! each, 128 levels at most); screening reports through `report`, and the schema check that
//! follows is `validate`'s.

use serde_json::{Map, Value};

use crate::model::limits::Limits;
use crate::model::report::{FieldError, Path, Place, Report, Token, UNQUOTED, shorten};
use crate::schema::integers::{EXACT_FLOAT_INTEGERS, TWO_63};
use crate::schema::keys::Keys;
use crate::schema::refs::{self, Refs};
use crate::schema::sensitive::Sensitivity;
use crate::schema::walk::{self, Bounds, Walker};

/// How far a plan follows the schema: 128 levels (`$ref`s included), deeper parts left to the
/// check; no bound on the nodes, since the compiled plan visits each `$ref` target once.
const PLAN_BOUNDS: Bounds = Bounds {
    max_depth: 128,
    budget: usize::MAX,
};

/// How many declared names an undeclared-key message lists.
const MAX_EXPECTED: usize = 20;

/// What the arguments of one tool need before its schema is checked, compiled once: only the
/// parts of the schema that screening or coercion look at, `$ref`s resolved (a recursive type
/// refers to itself by index).
#[derive(Debug, Clone)]
pub struct ArgumentPlan {
    root: Plan,
    /// The plans of `$ref` targets, by index.
    refs: Vec<Plan>,
}

/// What one schema node asks of a value.
#[derive(Debug, Clone, Default)]
enum Plan {
    /// Nothing (the value is still counted, and its depth checked).
    #[default]
    Skip,
    /// The plan of a `$ref` target.
    Ref(usize),
    /// A node with a type, limits or subschemas.
    Node(Box<Node>),
}

#[derive(Debug, Clone, Default)]
struct Node {
    wants: Wants,
    /// A string `format` coercion normalizes.
    format: Option<StringFormat>,
    /// `maxItems`.
    max_items: Option<u64>,
    /// `additionalProperties: false`: only `properties` may appear.
    closed: bool,
    /// Object properties, in schema order (empty when neither closed nor planned).
    properties: Keys,
    /// Their plans, by position (empty when all are `Skip`).
    plans: Vec<Plan>,
    /// Whether the node has `properties` (then `values` does not apply, as in the schema walk).
    has_properties: bool,
    /// The values of a map (`additionalProperties` as a schema).
    values: Option<Plan>,
    /// Array items.
    items: Option<Plan>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Wants {
    integer: bool,
    number: bool,
    boolean: bool,
    string: bool,
}

impl Wants {
    fn any(self) -> bool {
        self.integer || self.number || self.boolean || self.string
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StringFormat {
    Uuid,
    DateTime,
}

/// What a screening walk found.
#[derive(Debug)]
pub(crate) struct Screened {
    /// The errors found (undeclared keys, sizes, inexact integers).
    pub(crate) report: Report,
    /// Whether the arguments are too large to check against the schema at all.
    pub(crate) refused: bool,
}

/// How a screening walk treats undeclared top-level arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TopLevel {
    /// Report them.
    Reject,
    /// Remove them silently.
    Drop,
}

impl ArgumentPlan {
    /// Compiles the plan of `schema`; `root` resolves local `$ref`s.
    pub fn compile(schema: &Value, root: &Value) -> Self {
        let mut compiler = Compiler {
            walker: Walker::new(root, PLAN_BOUNDS),
            refs: Refs::new(),
        };
        let plan = compiler.plan(schema, 0);
        Self {
            root: plan,
            refs: compiler.refs.into_plans(),
        }
    }

    /// Coerces `value` in place (screening with the default limits; what it finds is dropped).
    pub fn coerce(&self, value: &mut Value) {
        let _ = self.screen(
            value,
            &Limits::DEFAULT,
            &Sensitivity::default(),
            TopLevel::Drop,
        );
    }

    /// One walk of `value`: screens it within `limits`, removes undeclared keys and coerces
    /// wire values. `sensitivity` keeps sensitive values out of the messages.
    pub(crate) fn screen(
        &self,
        value: &mut Value,
        limits: &Limits,
        sensitivity: &Sensitivity,
        top: TopLevel,
    ) -> Screened {
        let mut walk = Walk {
            plan: self,
            limits,
            sensitivity,
            top,
            report: Report::new(limits),
            values: 0,
            refused: false,
            stopped: false,
        };
        walk.visit(value, &self.root, &Path::ROOT, 1);
        Screened {
            report: walk.report,
            refused: walk.refused,
        }
    }

    /// Follows `$ref`s to a node (a chain of refs that never reaches one is `Skip`).
    fn resolve<'p>(&'p self, plan: &'p Plan) -> Option<&'p Node> {
        let reference = |plan: &Plan| match plan {
            Plan::Ref(index) => Some(*index),
            _ => None,
        };
        match refs::follow(&self.refs, plan, reference) {
            Some(Plan::Node(node)) => Some(node),
            _ => None,
        }
    }
}

/// One screening walk.
struct Walk<'p> {
    plan: &'p ArgumentPlan,
    limits: &'p Limits,
    sensitivity: &'p Sensitivity,
    top: TopLevel,
    report: Report,
    /// Values seen so far.
    values: usize,
    /// Set when the arguments are too large to check.
    refused: bool,
    /// Set when there are too many values to go on walking.
    stopped: bool,
}

impl Walk<'_> {
    fn visit(&mut self, value: &mut Value, plan: &Plan, path: &Path<'_>, depth: usize) {
        if self.stopped {
            return;
        }
        self.values += 1;
        if self.values > self.limits.max_values {
            let max = self.limits.max_values;
            self.report.add(|| FieldError {
                field: "/".into(),
                message: format!("holds more than {max} values; send less at a time"),
            });
            self.refused = true;
            self.stopped = true;
            return;
        }
        if depth > self.limits.max_depth {
            let (max, field) = (self.limits.max_depth, self.place(path).field);
            self.report.add(|| FieldError {
                field,
                message: format!("is nested deeper than {max} levels"),
            });
            self.refused = true;
            return;
        }
        let node = self.plan.resolve(plan);
        match value {
            Value::Object(map) => self.object(map, node, path, depth),
            Value::Array(items) => {
                if let Some(max) = node.and_then(|n| n.max_items)
                    && items.len() as u64 > max
                {
                    let count = items.len();
                    let field = self.place(path).field;
                    self.report.add(|| FieldError {
                        field,
                        message: format!("has {count} items, more than the {max} allowed"),
                    });
                    self.refused = true;
                    return;
                }
                let item = node.and_then(|n| n.items.as_ref()).unwrap_or(&Plan::Skip);
                for (i, value) in items.iter_mut().enumerate() {
                    self.visit(value, item, &path.child(Token::Index(i)), depth + 1);
                }
            }
            Value::String(text) => {
                if let Some(node) = node
                    && let Some(coerced) = from_string(text, node.wants, node.format)
                {
                    *value = coerced;
                }
            }
            Value::Number(n) => {
                if let Some(node) = node {
                    self.number(value_number(n), value, node, path);
                }
            }
            Value::Bool(_) | Value::Null => {}
        }
    }

    fn number(&mut self, number: Number, value: &mut Value, node: &Node, path: &Path<'_>) {
        let wants = node.wants;
        match number {
            Number::Float(f) if wants.integer && !wants.number && f.fract() == 0.0 => {
                // JSON Schema counts `3.0` (and `1e2`) as integers; serde's `i64` does not.
                if f.abs() < EXACT_FLOAT_INTEGERS {
                    *value = Value::from(f as i64);
                } else if f.abs() < TWO_63 || f == -TWO_63 {
                    // Past the i64 range, the validator's integer range refuses it (see
                    // `schema::integers`); at its very end, -2^63 is the bound itself and would
                    // pass it, though the number sent may have
                    // been any of the integers that round to it (`-9223372036854775809`).
                    let place = self.place(path);
                    let shown = if place.hidden {
                        UNQUOTED.to_owned()
                    } else {
                        shorten(&format!("{f:?}"), self.limits.max_quote).into_owned()
                    };
                    let field = place.field;
                    self.report.add(|| FieldError {
                        field,
                        message: format!(
                            "{shown} is not an exact integer (a number with a fraction or an \
                             exponent is exact only below 2^53); send it without one"
                        ),
                    });
                }
            }
            Number::Float(_) | Number::Integer
                if wants.string && !wants.number && !wants.integer =>
            {
                *value = Value::String(value.to_string());
            }
            _ => {}
        }
    }

    fn object(
        &mut self,
        map: &mut Map<String, Value>,
        node: Option<&Node>,
        path: &Path<'_>,
        depth: usize,
    ) {
        let Some(node) = node else {
            for (key, value) in map.iter_mut() {
                self.visit(value, &Plan::Skip, &path.child(Token::Key(key)), depth + 1);
            }
            return;
        };
        if node.closed {
            self.undeclared(map, node, path, depth == 1);
        }
        let mut next = 0;
        for (key, value) in map.iter_mut() {
            let plan = if node.has_properties {
                match node.properties.find(key, next) {
                    Some(i) => {
                        next = i + 1;
                        node.plans.get(i).unwrap_or(&Plan::Skip)
                    }
                    None => &Plan::Skip,
                }
            } else {
                node.values.as_ref().unwrap_or(&Plan::Skip)
            };
            self.visit(value, plan, &path.child(Token::Key(key)), depth + 1);
        }
    }

    /// Reports (or, at the top level in `Drop` mode, drops) the keys a closed object does
    /// not declare, and removes them.
    fn undeclared(
        &mut self,
        map: &mut Map<String, Value>,
        node: &Node,
        path: &Path<'_>,
        top: bool,
    ) {
        let declared = &node.properties;
        let mut next = 0;
        let any = map.keys().any(|key| match declared.find(key, next) {
            Some(i) => {
                next = i + 1;
                false
            }
            None => true,
        });
        if !any {
            return;
        }
        let mut dropped = 0;
        for key in map.keys().filter(|k| declared.find(k, 0).is_none()) {
            if top && self.top == TopLevel::Drop {
                dropped += 1;
                continue;
            }
            let (limits, sensitivity) = (self.limits, self.sensitivity);
            self.report.add(|| FieldError {
                field: Place::of(&path.child(Token::Key(key)).texts(), limits, sensitivity).field,
                message: undeclared_message(declared.names(), top),
            });
        }
        if dropped > 0 {
            tracing::debug!(keys = dropped, "dropping undeclared argument keys");
        }
        map.retain(|key, _| declared.find(key, 0).is_some());
    }

    /// Where `path` is, as a message may show it.
    fn place(&self, path: &Path<'_>) -> Place {
        Place::of(&path.texts(), self.limits, self.sensitivity)
    }
}

/// A number as coercion sees it.
enum Number {
    /// Read as an integer (`42`, `-7`, `18446744073709551615`).
    Integer,
    /// Read as a float (`3.0`, `1e2`, `2.5`).
    Float(f64),
}

fn value_number(n: &serde_json::Number) -> Number {
    match n.as_f64() {
        Some(f) if n.is_f64() => Number::Float(f),
        _ => Number::Integer,
    }
}

/// "is not an argument of this tool (expected: order_id, reason)" at the top level,
/// "is not a field of this object (expected: sku, quantity)" below.
fn undeclared_message(declared: &[String], top: bool) -> String {
    let expected = if declared.is_empty() {
        if top {
            "this tool takes no arguments".to_owned()
        } else {
            "this object takes no fields".to_owned()
        }
    } else {
        let mut names = declared[..declared.len().min(MAX_EXPECTED)].join(", ");
        if declared.len() > MAX_EXPECTED {
            names.push_str(&format!(", … {} more", declared.len() - MAX_EXPECTED));
        }
        format!("expected: {names}")
    };
    if top {
        format!("is not an argument of this tool ({expected})")
    } else {
        format!("is not a field of this object ({expected})")
    }
}

/// The compilation of one plan: a walk of the schema alone.
struct Compiler<'a> {
    walker: Walker<'a>,
    refs: Refs<'a, Plan>,
}

impl<'a> Compiler<'a> {
    fn plan(&mut self, schema: &'a Value, depth: usize) -> Plan {
        if !self.walker.enter(depth) {
            return Plan::Skip;
        }
        let Some(schema) = schema.as_object() else {
            return Plan::Skip;
        };
        if let Some(Value::String(reference)) = schema.get("$ref") {
            return self.reference(reference, depth);
        }
        if let Some(Value::Array(branches)) = schema.get("anyOf") {
            // Only when exactly one branch can hold a value other than null.
            return match walk::only_non_null(branches) {
                Some(only) => self.plan(only, depth + 1),
                None => Plan::Skip,
            };
        }
        let mut node = Node::default();
        for t in walk::types_of(schema) {
            match t {
                "integer" => node.wants.integer = true,
                "number" => node.wants.number = true,
                "boolean" => node.wants.boolean = true,
                "string" => node.wants.string = true,
                _ => {}
            }
        }
        node.format = match schema.get("format").and_then(Value::as_str) {
            Some("uuid") => Some(StringFormat::Uuid),
            Some("date-time") => Some(StringFormat::DateTime),
            _ => None,
        };
        node.max_items = schema.get("maxItems").and_then(Value::as_u64);
        node.closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
        let properties = schema.get("properties").and_then(Value::as_object);
        if let Some(properties) = properties {
            node.has_properties = true;
            let plans: Vec<Plan> = properties
                .values()
                .map(|property| self.plan(property, depth + 1))
                .collect();
            if plans.iter().any(|p| !matches!(p, Plan::Skip)) {
                node.plans = plans;
            }
        } else if let Some(values) = schema.get("additionalProperties").filter(|v| v.is_object()) {
            node.values = Some(self.plan(values, depth + 1)).filter(|p| !matches!(p, Plan::Skip));
        }
        if node.closed || !node.plans.is_empty() {
            let names = properties.map(|p| p.keys().cloned().collect());
            node.properties = Keys::new(names.unwrap_or_default());
        }
        if let Some(items) = schema.get("items") {
            node.items = Some(self.plan(items, depth + 1)).filter(|p| !matches!(p, Plan::Skip));
        }
        let empty = !node.wants.any()
            && node.max_items.is_none()
            && !node.closed
            && node.plans.is_empty()
            && node.values.is_none()
            && node.items.is_none();
        if empty {
            Plan::Skip
        } else {
            Plan::Node(Box::new(node))
        }
    }

    fn reference(&mut self, reference: &'a str, depth: usize) -> Plan {
        if let Some(index) = self.refs.get(reference) {
            return Plan::Ref(index);
        }
        let Some(target) = self.walker.resolve(reference) else {
            return Plan::Skip;
        };
        let index = self.refs.reserve(reference);
        let plan = self.plan(target, depth + 1);
        self.refs.set(index, plan);
        Plan::Ref(index)
    }
}

fn from_string(text: &str, wants: Wants, format: Option<StringFormat>) -> Option<Value> {
    let trimmed = text.trim();
    if wants.string {
        return match format {
            Some(StringFormat::Uuid) => uuid::Uuid::parse_str(trimmed)
                .ok()
                .map(|u| Value::String(u.hyphenated().to_string()))
                .filter(|v| v.as_str() != Some(text)),
            Some(StringFormat::DateTime) => {
                let fixed = normalize_datetime(trimmed);
                (fixed != text).then_some(Value::String(fixed))
            }
            None => None,
        };
    }
    if wants.integer
        && let Ok(i) = trimmed.parse::<i64>()
    {
        return Some(Value::from(i));
    }
    let numeric = wants.number || wants.integer;
    let finite_text =
        !trimmed.eq_ignore_ascii_case("nan") && !trimmed.to_ascii_lowercase().contains("inf");
    if numeric
        && finite_text
        && let Ok(f) = trimmed.parse::<f64>()
        && f.is_finite()
    {
        if wants.integer && !wants.number {
            // "3.0" → 3 for integers, while the float is exact (below 2^53); "3.5" stays a
            // string and fails validation.
            if f.fract() == 0.0 && f.abs() < EXACT_FLOAT_INTEGERS {
                return Some(Value::from(f as i64));
            }
            return None;
        }
        return serde_json::Number::from_f64(f).map(Value::Number);
    }
    if wants.boolean {
        match trimmed {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    None
}

fn normalize_datetime(text: &str) -> String {
    let mut out = text.to_owned();
    if out.len() > 10 && out.as_bytes().get(10) == Some(&b' ') {
        out.replace_range(10..11, "T");
    }
    if out.ends_with('z') {
        out.pop();
        out.push('Z');
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn run(value: Value, schema: Value) -> Value {
        let mut value = value;
        ArgumentPlan::compile(&schema, &schema).coerce(&mut value);
        value
    }

    #[test]
    fn numbers_booleans_and_strings() {
        let schema = json!({ "type": "object", "properties": {
            "i": { "type": "integer" }, "n": { "type": "number" }, "b": { "type": "boolean" },
            "s": { "type": "string" }, "opt": { "type": ["integer", "null"] }
        }});
        let out = run(
            json!({ "i": "42", "n": "2.5", "b": "true", "s": 9.99, "opt": "7" }),
            schema.clone(),
        );
        assert_eq!(
            out,
            json!({ "i": 42, "n": 2.5, "b": true, "s": "9.99", "opt": 7 })
        );
        let out = run(json!({ "i": "4.5", "b": "yes", "n": "NaN" }), schema);
        assert_eq!(
            out,
            json!({ "i": "4.5", "b": "yes", "n": "NaN" }),
            "not coercible: left for validation"
        );
    }

    #[test]
    fn refs_arrays_maps_and_formats() {
        let schema = json!({
            "type": "object",
            "properties": {
                "lines": { "type": "array", "items": { "$ref": "#/$defs/Line" } },
                "counts": { "type": "object", "additionalProperties": { "type": "integer" } },
                "id": { "type": "string", "format": "uuid" },
                "at": { "type": "string", "format": "date-time" }
            },
            "$defs": { "Line": { "type": "object", "properties": { "qty": { "type": "integer" } } } }
        });
        let out = run(
            json!({ "lines": [{ "qty": "3" }], "counts": { "a": "1" }, "id": "{67E55044-10B1-426F-9247-BB680E5FE0C8}", "at": "2026-01-02 03:04:05z" }),
            schema,
        );
        assert_eq!(
            out,
            json!({ "lines": [{ "qty": 3 }], "counts": { "a": 1 }, "id": "67e55044-10b1-426f-9247-bb680e5fe0c8", "at": "2026-01-02T03:04:05Z" })
        );
    }
}
