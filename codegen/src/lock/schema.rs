//! The difference between two JSON Schemas of one tool, classified by what it does to a
//! client: an input the model may no longer send or must now send is breaking, an output
//! field a client may no longer find (or find retyped) is breaking; the opposite directions
//! are compatible (inputs may widen, outputs may narrow). Named types (`$ref` into `$defs`)
//! are followed, each pair of definitions once.

use std::collections::BTreeSet;

use serde_json::Value as Json;

use crate::lock::class::Class;

/// Which side of the tool a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Input,
    Output,
}

/// One difference: its class, the field it is at (names from the root, `[]` for an array's
/// items, `*` for a map's values; empty for the whole input or output), what changed, and
/// the locked value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    pub(crate) class: Class,
    pub(crate) path: Vec<String>,
    pub(crate) what: String,
    pub(crate) locked: Option<Json>,
}

/// Every difference from `old` to `new`, in the order of the fields.
pub(crate) fn diff(old: &Json, new: &Json, side: Side) -> Vec<Change> {
    let mut walk = Walk {
        roots: (old, new),
        side,
        seen: BTreeSet::new(),
        out: Vec::new(),
    };
    walk.compare(old, new, &mut Vec::new());
    walk.out
}

/// The lower and upper bounds a schema may set, by keyword.
const LOWER: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
];
const UPPER: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
];
/// Keywords whose any change narrows what a value may be.
const RULES: &[&str] = &["pattern", "format", "multipleOf", "uniqueItems"];
/// Keywords that only describe.
const WORDS: &[&str] = &["description", "title", "examples", "deprecated"];

struct Walk<'a> {
    roots: (&'a Json, &'a Json),
    side: Side,
    /// The pairs of named types compared so far (a recursive type is compared once).
    seen: BTreeSet<(String, String)>,
    out: Vec<Change>,
}

impl<'a> Walk<'a> {
    fn push(&mut self, class: Class, path: &[String], what: String, locked: Option<&Json>) {
        self.out.push(Change {
            class,
            path: path.to_vec(),
            what,
            locked: locked.cloned(),
        });
    }

    /// `narrowed` on the input, `widened` on the output: what a client may break on.
    fn breaks(&self, narrowed: bool) -> bool {
        match self.side {
            Side::Input => narrowed,
            Side::Output => !narrowed,
        }
    }

    /// A change that narrows (or widens) what a value may be: breaking where a client may
    /// break on it, else `otherwise`.
    fn class(&self, narrowed: bool, otherwise: Class) -> Class {
        match self.breaks(narrowed) {
            true => Class::Breaking,
            false => otherwise,
        }
    }

    fn compare(&mut self, old: &Json, new: &Json, path: &mut Vec<String>) {
        let (old, old_ref) = resolve(self.roots.0, old);
        let (new, new_ref) = resolve(self.roots.1, new);
        if let (Some(a), Some(b)) = (old_ref, new_ref)
            && !self.seen.insert((a.to_owned(), b.to_owned()))
        {
            return;
        }
        if old == new && old_ref.is_none() && new_ref.is_none() {
            return;
        }
        if !self.types(old, new, path) {
            return;
        }
        self.values(old, new, path);
        self.bounds(old, new, path);
        self.objects(old, new, path);
        for (key, step) in [("items", "[]"), ("additionalProperties", "*")] {
            if let (Some(a @ Json::Object(_)), Some(b @ Json::Object(_))) =
                (old.get(key), new.get(key))
            {
                path.push(step.to_owned());
                self.compare(a, b, path);
                path.pop();
            }
        }
        self.variants(old, new, path);
        self.words(old, new, path);
    }

    /// The types; whether the rest is worth comparing (it is not once the type changed).
    fn types(&mut self, old: &Json, new: &Json, path: &[String]) -> bool {
        let (a, b) = (types(old), types(new));
        if a.is_empty() || b.is_empty() || a == b {
            return true;
        }
        // A number takes every integer.
        let within = |x: &BTreeSet<&str>, y: &BTreeSet<&str>| {
            x.iter()
                .all(|t| y.contains(t) || (*t == "integer" && y.contains("number")))
        };
        let (listed_a, listed_b) = (listed(&a), listed(&b));
        let only_null = b.difference(&a).all(|t| *t == "null") && a.is_subset(&b);
        match self.side {
            Side::Input if within(&a, &b) => self.push(
                Class::Compatible,
                path,
                format!("accepts {listed_b} (was {listed_a})"),
                old.get("type"),
            ),
            Side::Output if within(&b, &a) => self.push(
                Class::Compatible,
                path,
                format!("is always {listed_b} (was {listed_a})"),
                old.get("type"),
            ),
            Side::Output if only_null => self.push(
                Class::Breaking,
                path,
                "may now be null".to_owned(),
                old.get("type"),
            ),
            _ => self.push(
                Class::Breaking,
                path,
                format!("retyped from {listed_a} to {listed_b}"),
                old.get("type"),
            ),
        }
        false
    }

    /// `enum` and `const`.
    fn values(&mut self, old: &Json, new: &Json, path: &[String]) {
        let (a, b) = (allowed(old), allowed(new));
        match (a, b) {
            (None, None) => {}
            (Some(a), Some(b)) => {
                let gone: Vec<&Json> = a.iter().filter(|v| !b.contains(v)).collect();
                let added: Vec<&Json> = b.iter().filter(|v| !a.contains(v)).collect();
                let locked = old.get("enum").or(old.get("const"));
                if !gone.is_empty() {
                    let class = self.class(true, Class::Compatible);
                    let verb = if self.side == Side::Input {
                        "no longer accepts"
                    } else {
                        "is never"
                    };
                    self.push(class, path, format!("{verb} {}", values(&gone)), locked);
                }
                if !added.is_empty() {
                    let (class, verb) = match self.side {
                        Side::Input => (Class::Compatible, "also accepts"),
                        Side::Output => (Class::NeedsReview, "may now be"),
                    };
                    self.push(class, path, format!("{verb} {}", values(&added)), locked);
                }
            }
            (None, Some(b)) => {
                let class = self.class(true, Class::Compatible);
                self.push(
                    class,
                    path,
                    format!("is now one of {}", values(&b.iter().collect::<Vec<_>>())),
                    None,
                );
            }
            (Some(_), None) => {
                let class = match self.breaks(false) {
                    true => Class::NeedsReview,
                    false => Class::Compatible,
                };
                let locked = old.get("enum").or(old.get("const"));
                self.push(
                    class,
                    path,
                    "is no longer limited to a list of values".to_owned(),
                    locked,
                );
            }
        }
    }

    /// Bounds and rules (`pattern`, `format`…).
    fn bounds(&mut self, old: &Json, new: &Json, path: &[String]) {
        for (keys, lower) in [(LOWER, true), (UPPER, false)] {
            for key in keys {
                let (a, b) = (
                    old.get(*key).and_then(Json::as_f64),
                    new.get(*key).and_then(Json::as_f64),
                );
                let narrowed = match (a, b) {
                    (Some(a), Some(b)) if a == b => continue,
                    (Some(a), Some(b)) => (b > a) == lower,
                    (None, Some(_)) => true,
                    (Some(_), None) => false,
                    (None, None) => continue,
                };
                let what = match (old.get(*key), new.get(*key)) {
                    (Some(a), Some(b)) => format!("`{key}` {a} → {b}"),
                    (None, Some(b)) => format!("`{key}` {b} added"),
                    (Some(a), _) => format!("`{key}` {a} removed"),
                    _ => continue,
                };
                self.bound(narrowed, path, what, old.get(*key));
            }
        }
        for key in RULES {
            let (a, b) = (old.get(*key), new.get(*key));
            if a == b {
                continue;
            }
            let what = match (a, b) {
                (Some(a), Some(b)) => format!("`{key}` {a} → {b}"),
                (None, Some(b)) => format!("`{key}` {b} added"),
                (Some(a), None) => format!("`{key}` {a} removed"),
                (None, None) => continue,
            };
            // A rule taken away widens; added or changed, it may narrow.
            self.bound(b.is_some(), path, what, a);
        }
    }

    fn bound(&mut self, narrowed: bool, path: &[String], what: String, locked: Option<&Json>) {
        let class = match (self.side, narrowed) {
            (Side::Input, true) => Class::Breaking,
            (Side::Output, false) => Class::NeedsReview,
            _ => Class::Compatible,
        };
        let verb = if narrowed { "narrowed" } else { "widened" };
        self.push(class, path, format!("{verb}: {what}"), locked);
    }

    /// Properties and `required`.
    fn objects<'b>(&mut self, old: &'b Json, new: &'b Json, path: &mut Vec<String>) {
        let empty = serde_json::Map::new();
        let props = |s: &'b Json| s.get("properties").and_then(Json::as_object);
        let (a, b) = (props(old), props(new));
        if a.is_none() && b.is_none() {
            return;
        }
        let (a, b) = (a.unwrap_or(&empty), b.unwrap_or(&empty));
        let (ra, rb) = (required(old), required(new));
        for (name, schema) in a {
            path.push(name.clone());
            match b.get(name) {
                None => {
                    let what = match self.side {
                        Side::Input => "input field removed",
                        Side::Output => "output field removed",
                    };
                    self.push(Class::Breaking, path, what.to_owned(), Some(schema));
                }
                Some(now) => {
                    match (
                        ra.contains(name.as_str()),
                        rb.contains(name.as_str()),
                        self.side,
                    ) {
                        (false, true, Side::Input) => {
                            self.push(Class::Breaking, path, "is now required".to_owned(), None)
                        }
                        (true, false, Side::Input) => {
                            self.push(Class::Compatible, path, "is now optional".to_owned(), None)
                        }
                        (true, false, Side::Output) => {
                            self.push(Class::Breaking, path, "may now be absent".to_owned(), None)
                        }
                        (false, true, Side::Output) => self.push(
                            Class::Compatible,
                            path,
                            "is now always present".to_owned(),
                            None,
                        ),
                        _ => {}
                    }
                    self.compare(schema, now, path);
                }
            }
            path.pop();
        }
        for name in b.keys().filter(|name| !a.contains_key(*name)) {
            path.push(name.clone());
            let (class, what) = match (self.side, rb.contains(name.as_str())) {
                (Side::Input, true) => (Class::Breaking, "new required input"),
                (Side::Input, false) => (Class::Compatible, "new optional input"),
                (Side::Output, _) => (Class::Compatible, "new output field"),
            };
            self.push(class, path, what.to_owned(), None);
            path.pop();
        }
        let closed = |s: &Json| s.get("additionalProperties") == Some(&Json::Bool(false));
        if closed(old) != closed(new) {
            let narrowed = closed(new);
            let what = if narrowed {
                "takes no other keys"
            } else {
                "takes other keys"
            };
            let class = self.class(narrowed, Class::Compatible);
            self.push(
                class,
                path,
                what.to_owned(),
                old.get("additionalProperties"),
            );
        }
    }

    /// `anyOf` and `oneOf`: variants compared whole.
    fn variants(&mut self, old: &Json, new: &Json, path: &[String]) {
        for key in ["anyOf", "oneOf"] {
            let (a, b) = (
                old.get(key).and_then(Json::as_array),
                new.get(key).and_then(Json::as_array),
            );
            if a == b {
                continue;
            }
            let (a, b) = (
                a.map_or(&[][..], Vec::as_slice),
                b.map_or(&[][..], Vec::as_slice),
            );
            let kept = |x: &[Json], y: &[Json]| x.iter().all(|v| y.contains(v));
            let (class, what) = match self.side {
                Side::Input if kept(a, b) => (Class::Compatible, "accepts more shapes"),
                Side::Output if kept(b, a) => (Class::Compatible, "has fewer shapes"),
                Side::Input => (Class::Breaking, "no longer accepts every shape it did"),
                Side::Output => (Class::Breaking, "may now have another shape"),
            };
            self.push(class, path, what.to_owned(), old.get(key));
        }
    }

    /// Descriptions and defaults.
    fn words(&mut self, old: &Json, new: &Json, path: &[String]) {
        if let Some(key) = WORDS.iter().find(|k| old.get(**k) != new.get(**k)) {
            self.push(
                Class::Compatible,
                path,
                format!("`{key}` changed"),
                old.get(*key),
            );
        }
        if old.get("default") != new.get("default") {
            self.push(
                Class::NeedsReview,
                path,
                "its default changed (calls that leave it out act otherwise)".to_owned(),
                old.get("default"),
            );
        }
    }
}

/// A schema with its `$ref` into the root's `$defs` followed (a few steps at most), and the
/// name of the definition it came from.
fn resolve<'a>(root: &'a Json, mut schema: &'a Json) -> (&'a Json, Option<&'a str>) {
    let mut name = None;
    for _ in 0..8 {
        let Some(target) = schema.get("$ref").and_then(Json::as_str) else {
            break;
        };
        let Some(def) = target.strip_prefix("#/$defs/") else {
            break;
        };
        match root.get("$defs").and_then(|d| d.get(def)) {
            Some(found) => (schema, name) = (found, Some(def)),
            None => break,
        }
    }
    (schema, name)
}

/// The types a schema names (`type` as a string or a list).
fn types(schema: &Json) -> BTreeSet<&str> {
    match schema.get("type") {
        Some(Json::String(t)) => BTreeSet::from([t.as_str()]),
        Some(Json::Array(ts)) => ts.iter().filter_map(Json::as_str).collect(),
        _ => BTreeSet::new(),
    }
}

fn listed(types: &BTreeSet<&str>) -> String {
    types.iter().copied().collect::<Vec<_>>().join(" or ")
}

/// The values an `enum` or `const` allows.
fn allowed(schema: &Json) -> Option<Vec<Json>> {
    match (schema.get("enum"), schema.get("const")) {
        (Some(Json::Array(values)), _) => Some(values.clone()),
        (_, Some(value)) => Some(vec![value.clone()]),
        _ => None,
    }
}

fn values(values: &[&Json]) -> String {
    let shown: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    shown.join(", ")
}

/// The names a schema's `required` lists.
fn required(schema: &Json) -> BTreeSet<&str> {
    schema
        .get("required")
        .and_then(Json::as_array)
        .map(|names| names.iter().filter_map(Json::as_str).collect())
        .unwrap_or_default()
}
