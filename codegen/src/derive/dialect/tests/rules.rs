//! A checker of the providers' rules, written from their documentation (`docs/providers.md`)
//! rather than from the compiler's code: it reads a dialect's output and lists every rule it
//! breaks, so the tests can run it over every tool of a corpus in every dialect.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};
use toolspec_vocab::Dialect;

/// Every schema node with a readable path, descending only into keywords that hold schemas
/// (never into `enum`, `default`, `examples` values).
fn schema_nodes(schema: &Value) -> Vec<(String, &Map<String, Value>)> {
    fn go<'a>(value: &'a Value, path: String, out: &mut Vec<(String, &'a Map<String, Value>)>) {
        let Value::Object(node) = value else { return };
        out.push((path.clone(), node));
        for (key, sub) in node {
            match (key.as_str(), sub) {
                (
                    "properties" | "$defs" | "definitions" | "patternProperties"
                    | "dependentSchemas",
                    Value::Object(map),
                ) => {
                    for (name, s) in map {
                        go(s, format!("{path}/{key}/{name}"), out);
                    }
                }
                ("anyOf" | "oneOf" | "allOf" | "prefixItems" | "items", Value::Array(list)) => {
                    for (i, s) in list.iter().enumerate() {
                        go(s, format!("{path}/{key}/{i}"), out);
                    }
                }
                (
                    "items"
                    | "additionalProperties"
                    | "not"
                    | "if"
                    | "then"
                    | "else"
                    | "contains"
                    | "propertyNames"
                    | "unevaluatedProperties"
                    | "unevaluatedItems",
                    Value::Object(_),
                ) => go(sub, format!("{path}/{key}"), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    go(schema, String::new(), &mut out);
    out
}

fn type_names(node: &Map<String, Value>) -> Vec<String> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

fn property_keys(node: &Map<String, Value>) -> Vec<String> {
    match node.get("properties") {
        Some(Value::Object(p)) => p.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

fn required_keys(node: &Map<String, Value>) -> Vec<String> {
    match node.get("required") {
        Some(Value::Array(r)) => r
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether a schema accepts `null`: by type, by a union branch, or by enum value.
fn accepts_null(node: &Map<String, Value>) -> bool {
    let listed = match node.get("enum") {
        Some(Value::Array(values)) => values.contains(&Value::Null),
        _ => true,
    };
    (type_names(node).iter().any(|t| t == "null") && listed)
        || (!node.contains_key("type")
            && !node.contains_key("anyOf")
            && node.get("enum").is_some()
            && listed)
        || matches!(node.get("anyOf"), Some(Value::Array(b)) if b.iter().any(|b| matches!(b, Value::Object(b) if accepts_null(b))))
}

fn uses_lookaround_or_backreference(pattern: &str) -> bool {
    ["(?=", "(?!", "(?<=", "(?<!", "\\k<"]
        .iter()
        .any(|s| pattern.contains(s))
        || pattern
            .as_bytes()
            .windows(2)
            .any(|w| w[0] == b'\\' && (b'1'..=b'9').contains(&w[1]))
}

/// `$ref`s reachable from the root through other `$ref`s lead back into themselves.
pub fn is_recursive(schema: &Value) -> bool {
    fn refs(value: &Value) -> Vec<String> {
        schema_nodes(value)
            .into_iter()
            .filter_map(|(_, n)| n.get("$ref").and_then(Value::as_str).map(str::to_owned))
            .collect()
    }
    fn visit(r: &str, schema: &Value, stack: &mut Vec<String>) -> bool {
        if stack.iter().any(|s| s == r) {
            return true;
        }
        let Some(target) = r.strip_prefix('#').and_then(|p| schema.pointer(p)) else {
            return false;
        };
        stack.push(r.to_owned());
        let mut target = target.clone();
        if let Value::Object(t) = &mut target {
            t.remove("$defs");
        }
        let found = refs(&target).iter().any(|next| visit(next, schema, stack));
        stack.pop();
        found
    }
    let mut root = schema.clone();
    if let Value::Object(r) = &mut root {
        r.remove("$defs");
    }
    refs(&root)
        .iter()
        .any(|r| visit(r, schema, &mut Vec::new()))
}

/// The deepest nesting of objects (the root object is level 1), following `$ref`s once.
fn object_depth(value: &Value, root: &Value, stack: &mut Vec<String>) -> usize {
    let Value::Object(node) = value else { return 0 };
    let own = usize::from(type_names(node).iter().any(|t| t == "object"));
    let mut deepest = 0;
    if let Some(r) = node.get("$ref").and_then(Value::as_str)
        && !stack.iter().any(|s| s == r)
        && let Some(target) = r.strip_prefix('#').and_then(|p| root.pointer(p))
    {
        stack.push(r.to_owned());
        deepest = deepest.max(object_depth(target, root, stack));
        stack.pop();
    }
    for (key, sub) in node {
        match (key.as_str(), sub) {
            ("properties", Value::Object(map)) => {
                for s in map.values() {
                    deepest = deepest.max(object_depth(s, root, stack));
                }
            }
            ("anyOf", Value::Array(list)) => {
                for s in list {
                    deepest = deepest.max(object_depth(s, root, stack));
                }
            }
            ("items", s @ Value::Object(_)) => deepest = deepest.max(object_depth(s, root, stack)),
            _ => {}
        }
    }
    own + deepest
}

const OPENAI_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "$ref",
    "$defs",
    "description",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];
const OPENAI_STRICT_FORBIDDEN: &[&str] = &[
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "oneOf",
    "patternProperties",
    "prefixItems",
    "uniqueItems",
    "default",
    "minLength",
    "maxLength",
];
const OPENAI_STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
const ANTHROPIC_STRICT_FORBIDDEN: &[&str] = &[
    "minimum",
    "maximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "exclusiveMinimum",
    "exclusiveMaximum",
];
const ANTHROPIC_STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];
const GEMINI_KEYWORDS: &[&str] = &[
    "type",
    "format",
    "description",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "propertyOrdering",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "default",
];
const GEMINI_TYPES: &[&str] = &["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"];

/// Every rule of `docs/providers.md` that `schema` (dialect `dialect` of `canonical`) breaks.
pub fn check(dialect: Dialect, schema: &Value, canonical: &Value) -> Vec<String> {
    let mut bad = Vec::new();
    let canonical_keys = match canonical {
        Value::Object(c) => property_keys(c),
        _ => Vec::new(),
    };
    if dialect == Dialect::Gemini && schema.is_null() {
        if !canonical_keys.is_empty() {
            bad.push("gemini: parameters left out of a tool that has some".to_owned());
        }
        return bad;
    }
    let Value::Object(root) = schema else {
        return vec![format!("{dialect}: the schema is not an object")];
    };
    // Every dialect: the same parameters, in spec order.
    if property_keys(root) != canonical_keys {
        bad.push(format!(
            "{dialect}: root properties {:?} differ from the canonical {:?}",
            property_keys(root),
            canonical_keys
        ));
    }
    let root_type = if dialect == Dialect::Gemini {
        "OBJECT"
    } else {
        "object"
    };
    if root.get("type") != Some(&json!(root_type)) || root.contains_key("anyOf") {
        bad.push(format!("{dialect}: the root is not `type: {root_type}`"));
    }
    let nodes = schema_nodes(schema);
    let mut say = |path: &str, what: String| bad.push(format!("{dialect}: at `{path}`: {what}"));
    match dialect {
        Dialect::Mcp => {
            if schema != canonical {
                say("", "mcp is not the canonical schema".into());
            }
        }
        Dialect::Anthropic => {}
        Dialect::OpenAi => {
            for (path, node) in &nodes {
                let types = type_names(node);
                if types.iter().any(|t| t == "object") && !node.contains_key("properties") {
                    say(path, "object schema missing properties".into());
                }
                if types.iter().any(|t| t == "array") && !node.contains_key("items") {
                    say(path, "array schema missing items".into());
                }
            }
        }
        Dialect::OpenAiStrict => {
            let mut properties = 0;
            let mut enum_values = 0;
            for (path, node) in &nodes {
                for key in node.keys() {
                    if OPENAI_STRICT_FORBIDDEN.contains(&key.as_str()) {
                        say(path, format!("unsupported keyword `{key}`"));
                    } else if !OPENAI_STRICT_KEYWORDS.contains(&key.as_str()) {
                        say(
                            path,
                            format!("keyword `{key}` is not in the supported list"),
                        );
                    }
                }
                if node.contains_key("$ref") && node.len() > 1 {
                    say(path, "siblings beside `$ref`".into());
                }
                if let Some(r) = node.get("$ref").and_then(Value::as_str)
                    && !r.starts_with('#')
                {
                    say(path, format!("non-local `$ref` {r}"));
                }
                if let Some(Value::String(f)) = node.get("format")
                    && !OPENAI_STRICT_FORMATS.contains(&f.as_str())
                {
                    say(path, format!("unsupported format `{f}`"));
                }
                if !["type", "anyOf", "$ref", "enum"]
                    .iter()
                    .any(|k| node.contains_key(*k))
                    && !path.ends_with("/$defs")
                {
                    say(path, "a schema without `type`".into());
                }
                if type_names(node).iter().any(|t| t == "object") {
                    if node.get("additionalProperties") != Some(&json!(false)) {
                        say(path, "object without `additionalProperties: false`".into());
                    }
                    let keys: BTreeSet<String> = property_keys(node).into_iter().collect();
                    let required: BTreeSet<String> = required_keys(node).into_iter().collect();
                    if !node.contains_key("required") || keys != required {
                        say(
                            path,
                            format!("`required` {required:?} is not every property {keys:?}"),
                        );
                    }
                }
                properties += property_keys(node).len();
                if let Some(Value::Array(v)) = node.get("enum") {
                    enum_values += v.len();
                }
            }
            if properties > 5000 {
                say("", format!("{properties} properties (at most 5000)"));
            }
            if enum_values > 1000 {
                say("", format!("{enum_values} enum values (at most 1000)"));
            }
            let depth = object_depth(schema, schema, &mut Vec::new());
            if depth > 10 {
                say(
                    "",
                    format!("objects nested {depth} levels deep (at most 10)"),
                );
            }
            // Optional canonical parameters are required and nullable.
            if let (Value::Object(c), Some(Value::Object(props))) =
                (canonical, root.get("properties"))
            {
                let required = required_keys(c);
                for (name, p) in props {
                    if !required.contains(name) && !matches!(p, Value::Object(p) if accepts_null(p))
                    {
                        say(
                            &format!("/properties/{name}"),
                            "an optional parameter that does not accept null".into(),
                        );
                    }
                }
            }
        }
        Dialect::AnthropicStrict => {
            let mut optional = 0;
            let mut unions = 0;
            for (path, node) in &nodes {
                for key in node.keys() {
                    if ANTHROPIC_STRICT_FORBIDDEN.contains(&key.as_str()) {
                        say(path, format!("unsupported keyword `{key}`"));
                    }
                }
                if let Some(min) = node.get("minItems")
                    && min != &json!(0)
                    && min != &json!(1)
                {
                    say(path, format!("`minItems: {min}`"));
                }
                if let Some(Value::String(f)) = node.get("format")
                    && !ANTHROPIC_STRICT_FORMATS.contains(&f.as_str())
                {
                    say(path, format!("unsupported format `{f}`"));
                }
                if let Some(Value::String(p)) = node.get("pattern")
                    && uses_lookaround_or_backreference(p)
                {
                    say(
                        path,
                        format!("pattern `{p}` uses lookaround or backreferences"),
                    );
                }
                if let Some(Value::Array(values)) = node.get("enum")
                    && values.iter().any(|v| v.is_object() || v.is_array())
                {
                    say(path, "an enum of non-primitive values".into());
                }
                if type_names(node).iter().any(|t| t == "object")
                    && node.get("additionalProperties") != Some(&json!(false))
                {
                    say(path, "object without `additionalProperties: false`".into());
                }
                let required = required_keys(node);
                if let Some(Value::Object(props)) = node.get("properties") {
                    for (name, p) in props {
                        optional += usize::from(!required.contains(name));
                        unions += usize::from(
                            p.get("anyOf").is_some()
                                || matches!(p.get("type"), Some(Value::Array(_))),
                        );
                    }
                }
            }
            if is_recursive(schema) {
                say("", "a recursive schema".into());
            }
            if optional > 24 {
                say("", format!("{optional} optional parameters (at most 24)"));
            }
            if unions > 16 {
                say(
                    "",
                    format!("{unions} parameters with anyOf or type lists (at most 16)"),
                );
            }
        }
        Dialect::Gemini => {
            for (path, node) in &nodes {
                for key in node.keys() {
                    if !GEMINI_KEYWORDS.contains(&key.as_str()) {
                        say(
                            path,
                            format!("keyword `{key}` is not in the OpenAPI subset"),
                        );
                    }
                }
                match node.get("type") {
                    None => {}
                    Some(Value::String(t)) if GEMINI_TYPES.contains(&t.as_str()) => {}
                    Some(other) => {
                        say(path, format!("type {other} is not one of {GEMINI_TYPES:?}"))
                    }
                }
                if let Some(Value::Array(values)) = node.get("enum") {
                    if !values.iter().all(Value::is_string) {
                        say(path, "an enum of non-strings".into());
                    }
                    if node.get("type") != Some(&json!("STRING")) {
                        say(path, "an enum that is not `type: STRING`".into());
                    }
                }
                let keys = property_keys(node);
                if !keys.is_empty() {
                    let ordering: Vec<String> = match node.get("propertyOrdering") {
                        Some(Value::Array(o)) => o
                            .iter()
                            .filter_map(|v| v.as_str().map(str::to_owned))
                            .collect(),
                        _ => Vec::new(),
                    };
                    if ordering != keys {
                        say(
                            path,
                            format!("propertyOrdering {ordering:?} is not {keys:?}"),
                        );
                    }
                }
                for r in required_keys(node) {
                    if !keys.contains(&r) {
                        say(path, format!("required `{r}` is not a property"));
                    }
                }
            }
        }
    }
    bad
}
