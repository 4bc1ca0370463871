//! The invoker's promise, as a property: anything valid under a tool's published input schema
//! is accepted, and anything the `jsonschema` crate finds invalid is rejected with
//! `invalid_arguments` — unless a documented coercion (see `docs/runtime.md`, "The call path",
//! and the invoker's argument plan) turns it into something valid.
//!
//! Values are generated from the input schemas themselves (types, enums, bounds, lengths,
//! patterns, formats, required/optional keys, arrays, nested objects), then mutated. The
//! published schemas bound every `decimal` (to what `rust_decimal` reads), and an `integer`
//! only as its spec does: at run time an integer lies within `i64` (`docs/runtime.md` says so), so
//! the schemas the property judges by are the published ones with that range added where they
//! leave it open, and the generators cover the whole of it.

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::strategy::Union;
use serde_json::{Map, Value, json};
use toolspec::types::{Decimal, NaiveDate, Uuid};
use toolspec::{AmbientContext, Registry, ToolResult};
use toolspec_test_pipeline::App;

/// The pattern every published `decimal` string matches.
const DECIMAL_PATTERN: &str = r"^-?[0-9]{1,28}(\.[0-9]+)?$";

// ---------------------------------------------------------------------------------------------
// The tools under test.

struct Tool {
    name: &'static str,
    /// Whether it is served by the registry that drops undeclared keys.
    drops: bool,
    /// The published input schema, with the run-time range of integers (see [`with_i64_range`]).
    schema: Arc<Value>,
    validator: jsonschema::Validator,
}

/// `schema` with `minimum: i64::MIN` and `maximum: i64::MAX` on every `integer` that leaves
/// either open: the range `docs/runtime.md` gives integers at run time, which the published
/// schemas do not state.
fn with_i64_range(schema: &mut Value) {
    match schema {
        Value::Object(node) => {
            if node.get("type").is_some_and(|t| {
                t == "integer"
                    || t.as_array()
                        .is_some_and(|ts| ts.contains(&json!("integer")))
            }) {
                node.entry("minimum").or_insert(json!(i64::MIN));
                node.entry("maximum").or_insert(json!(i64::MAX));
            }
            node.values_mut().for_each(with_i64_range);
        }
        Value::Array(items) => items.iter_mut().for_each(with_i64_range),
        _ => {}
    }
}

struct Fixture {
    runtime: tokio::runtime::Runtime,
    registry: Registry,
    drop_registry: Registry,
    tools: Vec<Tool>,
}

impl Fixture {
    fn get() -> &'static Fixture {
        static FIXTURE: OnceLock<Fixture> = OnceLock::new();
        FIXTURE.get_or_init(|| {
            let app = App::new();
            let (registry, drop_registry) = (app.registry(), app.drop_registry());
            let names = [
                ("profile_update", false),
                ("kinds_coerce", false),
                ("orders_cancel", false),
                ("jobs_progress", false),
                ("admin_purge", false),
                ("echo", true),
            ];
            let tools = names
                .into_iter()
                .map(|(name, drops)| {
                    let registry = if drops { &drop_registry } else { &registry };
                    let mut schema = registry
                        .get(name)
                        .expect("tool")
                        .descriptor()
                        .input_schema_json();
                    with_i64_range(&mut schema);
                    let validator = jsonschema::options()
                        .should_validate_formats(true)
                        .build(&schema)
                        .expect("the published schema compiles");
                    Tool {
                        name,
                        drops,
                        schema: Arc::new(schema),
                        validator,
                    }
                })
                .collect();
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("runtime");
            Fixture {
                runtime,
                registry,
                drop_registry,
                tools,
            }
        })
    }

    fn invoke(&self, tool: &Tool, args: Value) -> ToolResult {
        let registry = if tool.drops {
            &self.drop_registry
        } else {
            &self.registry
        };
        let ambient = AmbientContext::from([("user_id", "alice")]);
        self.runtime
            .block_on(registry.invoke(tool.name, args, &ambient))
            .expect("tool")
    }
}

fn code(result: &ToolResult) -> Option<&str> {
    result.error().map(|e| e.code.as_str())
}

// ---------------------------------------------------------------------------------------------
// Values from a JSON Schema.

fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
    {
        Some(pointer) => resolve(root.pointer(pointer).expect("local $ref"), root),
        None => schema,
    }
}

/// Values valid under `schema`.
fn valid(schema: &Value, root: &Value) -> BoxedStrategy<Value> {
    let schema = resolve(schema, root);
    let Some(object) = schema.as_object() else {
        return Just(json!("anything")).boxed();
    };
    if let Some(Value::Array(branches)) = object.get("anyOf") {
        return Union::new(branches.iter().map(|b| valid(b, root))).boxed();
    }
    if let Some(Value::Array(values)) = object.get("enum") {
        return proptest::sample::select(values.clone()).boxed();
    }
    if let Some(value) = object.get("const") {
        return Just(value.clone()).boxed();
    }
    match object.get("type") {
        Some(Value::String(t)) => valid_of_type(t, object, root),
        Some(Value::Array(types)) => Union::new(
            types
                .iter()
                .filter_map(Value::as_str)
                .map(|t| valid_of_type(t, object, root)),
        )
        .boxed(),
        _ => prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            "[a-z]{0,5}".prop_map(Value::from)
        ]
        .boxed(),
    }
}

fn bound(object: &Map<String, Value>, key: &str) -> Option<i64> {
    object.get(key).and_then(Value::as_i64)
}

fn valid_of_type(kind: &str, object: &Map<String, Value>, root: &Value) -> BoxedStrategy<Value> {
    match kind {
        "null" => Just(Value::Null).boxed(),
        "boolean" => any::<bool>().prop_map(Value::from).boxed(),
        "integer" => {
            // Every integer is bounded here: by its spec, else by the run-time range.
            let lo = match (bound(object, "minimum"), bound(object, "exclusiveMinimum")) {
                (Some(lo), Some(x)) => lo.max(x + 1),
                (Some(lo), None) => lo,
                (None, Some(x)) => x + 1,
                (None, None) => panic!("an integer without a lower bound: {object:?}"),
            };
            let hi = match (bound(object, "maximum"), bound(object, "exclusiveMaximum")) {
                (Some(hi), Some(x)) => hi.min(x - 1),
                (Some(hi), None) => hi,
                (None, Some(x)) => x - 1,
                (None, None) => panic!("an integer without an upper bound: {object:?}"),
            };
            // The whole range, its ends, and small values (clamped into it).
            let int = prop_oneof![
                3 => lo..=hi,
                1 => prop_oneof![Just(lo), Just(hi)],
                2 => (-1000i64..=1000).prop_map(move |i| i.clamp(lo, hi)),
            ];
            // JSON Schema counts 3.0 as an integer: send some integers as floats, below 2^53
            // (past it, a float read from JSON text may already be another integer, and the
            // invoker refuses it; see `integers_no_float_holds_exactly_are_refused`).
            (int, any::<bool>())
                .prop_map(|(i, float)| {
                    let exact = (i as f64).abs() < EXACT;
                    if float && exact {
                        json!(i as f64)
                    } else {
                        json!(i)
                    }
                })
                .boxed()
        }
        "number" => match (
            object.get("minimum").and_then(Value::as_f64),
            object.get("maximum").and_then(Value::as_f64),
        ) {
            (Some(lo), Some(hi)) => prop_oneof![
                (lo..=hi).prop_map(Value::from),
                Just(json!(lo)),
                Just(json!(hi))
            ]
            .boxed(),
            _ => prop_oneof![
                (proptest::num::f64::NORMAL
                    | proptest::num::f64::SUBNORMAL
                    | proptest::num::f64::ZERO)
                    .prop_map(Value::from),
                (-1000i64..1000).prop_map(|i| json!(i as f64)),
                (-1000i64..1000).prop_map(Value::from),
            ]
            .boxed(),
        },
        "string" => valid_string(object),
        "array" => {
            let item = object
                .get("items")
                .map_or_else(|| Just(Value::Null).boxed(), |s| valid(s, root));
            let min = bound(object, "minItems").unwrap_or(0) as usize;
            let max = bound(object, "maxItems").map_or(min + 3, |m| m as usize);
            proptest::collection::vec(item, min..=max)
                .prop_map(Value::Array)
                .boxed()
        }
        "object" => valid_object(object, root),
        other => panic!("no generator for type {other}"),
    }
}

fn valid_string(object: &Map<String, Value>) -> BoxedStrategy<Value> {
    match object.get("format").and_then(Value::as_str) {
        Some("uuid") => {
            return any::<[u8; 16]>()
                .prop_map(|bytes| json!(Uuid::from_bytes(bytes).hyphenated().to_string()))
                .boxed();
        }
        Some("date") => return date().prop_map(Value::from).boxed(),
        Some("date-time") => return datetime().prop_map(Value::from).boxed(),
        _ => {}
    }
    let min = bound(object, "minLength").unwrap_or(0) as usize;
    let max = bound(object, "maxLength").map_or(min + 20, |m| m as usize);
    if let Some(pattern) = object.get("pattern").and_then(Value::as_str) {
        let pattern = pattern.trim_start_matches('^').trim_end_matches('$');
        return proptest::string::string_regex(pattern)
            .expect("a pattern proptest can generate from")
            .prop_filter("length", move |s| (min..=max).contains(&s.chars().count()))
            .prop_map(Value::from)
            .boxed();
    }
    let char = prop_oneof![4 => proptest::char::range('a', 'z'), 2 => proptest::char::range(' ', '~'), 1 => any::<char>()];
    proptest::collection::vec(char, min..=max)
        .prop_map(|chars| Value::from(String::from_iter(chars)))
        .boxed()
}

fn date() -> impl Strategy<Value = String> {
    (1i32..=9999, 1u32..=12, 1u32..=31)
        .prop_filter("a real date", |&(y, m, d)| {
            NaiveDate::from_ymd_opt(y, m, d).is_some()
        })
        .prop_map(|(y, m, d)| format!("{y:04}-{m:02}-{d:02}"))
}

fn datetime() -> impl Strategy<Value = String> {
    let fraction = prop_oneof![Just(String::new()), "\\.[0-9]{1,9}"];
    let offset = prop_oneof![
        Just("Z".to_owned()),
        (prop_oneof![Just('+'), Just('-')], 0u32..24, 0u32..60)
            .prop_map(|(s, h, m)| format!("{s}{h:02}:{m:02}")),
    ];
    (date(), 0u32..24, 0u32..60, 0u32..60, fraction, offset).prop_map(
        |(date, h, m, s, fraction, offset)| {
            format!("{date}T{h:02}:{m:02}:{s:02}{fraction}{offset}")
        },
    )
}

fn valid_object(object: &Map<String, Value>, root: &Value) -> BoxedStrategy<Value> {
    let required: Vec<&str> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let properties = object
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let fields: Vec<BoxedStrategy<Option<(String, Value)>>> = properties
        .iter()
        .map(|(key, schema)| {
            let key = key.clone();
            let value = valid(schema, root);
            if required.contains(&key.as_str()) {
                value.prop_map(move |v| Some((key.clone(), v))).boxed()
            } else {
                proptest::option::of(value.prop_map(move |v| (key.clone(), v))).boxed()
            }
        })
        .collect();
    let extra = match object.get("additionalProperties") {
        Some(values @ Value::Object(_)) => {
            proptest::collection::btree_map("[a-z]{1,5}", valid(values, root), 0..3).boxed()
        }
        _ => Just(BTreeMap::new()).boxed(),
    };
    (fields, extra)
        .prop_map(|(fields, extra)| {
            let mut map: Map<String, Value> = extra.into_iter().collect();
            map.extend(fields.into_iter().flatten());
            Value::Object(map)
        })
        .boxed()
}

// ---------------------------------------------------------------------------------------------
// Mutations.

/// A step of a path into a value.
#[derive(Debug, Clone)]
enum Step {
    Key(String),
    Item(usize),
}

/// Every node of `value`, with its path.
fn sites(value: &Value, path: &mut Vec<Step>, out: &mut Vec<Vec<Step>>) {
    out.push(path.clone());
    match value {
        Value::Object(map) => {
            for (key, child) in map {
                path.push(Step::Key(key.clone()));
                sites(child, path, out);
                path.pop();
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                path.push(Step::Item(index));
                sites(child, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at<'a>(value: &'a mut Value, path: &[Step]) -> &'a mut Value {
    path.iter().fold(value, |node, step| match step {
        Step::Key(key) => &mut node[key.as_str()],
        Step::Item(index) => &mut node[*index],
    })
}

/// What a model might send instead.
fn pool() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(-1),
        json!(7),
        json!(2.5),
        json!(3.0),
        json!(""),
        json!("x"),
        json!("42"),
        json!("4.5"),
        json!("-3"),
        json!("1e2"),
        json!("true"),
        json!("false"),
        json!("yes"),
        json!("NaN"),
        json!("2026-01-02 03:04:05+02:00"),
        json!("2026-01-02T03:04:05z"),
        json!("2026-01-02 03:04:05"),
        json!("{67E55044-10B1-426F-9247-BB680E5FE0C8}"),
        json!("67e5504410b1426f9247bb680e5fe0c8"),
        json!("free"),
        json!("ABC-12"),
        json!([]),
        json!(["x"]),
        json!({}),
        json!({ "a": 1 }),
        json!("a string that is much longer than any of the length limits"),
    ]
}

#[derive(Debug, Clone)]
enum Mutation {
    /// Replace the node by a value from the pool.
    Replace(Index),
    /// A number or boolean as a string, a string as a number.
    Retype,
    /// Remove a key (of an object node).
    Remove(Index),
    /// Add an undeclared key (to an object node).
    AddKey,
    /// Add the key `ambient_context` (to an object node).
    AddAmbient,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        4 => any::<Index>().prop_map(Mutation::Replace),
        2 => Just(Mutation::Retype),
        2 => any::<Index>().prop_map(Mutation::Remove),
        1 => Just(Mutation::AddKey),
        1 => Just(Mutation::AddAmbient),
    ]
}

fn mutate(value: &mut Value, site: Index, mutation: &Mutation) {
    let mut all = Vec::new();
    sites(value, &mut Vec::new(), &mut all);
    let node = at(value, site.get(&all).as_slice());
    match (mutation, &mut *node) {
        (Mutation::Remove(key), Value::Object(map)) if !map.is_empty() => {
            let key = key.get(&map.keys().cloned().collect::<Vec<_>>()).clone();
            map.remove(&key);
        }
        (Mutation::AddKey, Value::Object(map)) => {
            map.insert("zz_extra".into(), json!(1));
        }
        (Mutation::AddAmbient, Value::Object(map)) => {
            map.insert("ambient_context".into(), json!({ "user_id": "mallory" }));
        }
        (Mutation::Retype, Value::Number(n)) => *node = Value::String(n.to_string()),
        (Mutation::Retype, Value::Bool(b)) => *node = Value::String(b.to_string()),
        (Mutation::Retype, Value::String(s)) => *node = json!(s.chars().count()),
        (Mutation::Replace(choice), _) => *node = choice.get(&pool()).clone(),
        // Not applicable to this node: make it null.
        _ => *node = Value::Null,
    }
}

// ---------------------------------------------------------------------------------------------
// The documented coercions, written from their documentation, not from the invoker's code.

fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    }
}

/// "a string holding a number": what Rust parses as a finite number.
fn number_in(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|f| f.is_finite())
}

/// 2^53: below it, every integer is exactly a float.
const EXACT: f64 = 9_007_199_254_740_992.0;
/// 2^63: `i64` holds -2^63 up to (not including) 2^63.
const I64_END: f64 = 9_223_372_036_854_775_808.0;

fn documented(value: &mut Value, schema: &Value, root: &Value) {
    let schema = resolve(schema, root);
    let types = types(schema);
    let wants = |t: &str| types.contains(&t);
    let format = schema.get("format").and_then(Value::as_str);
    match value {
        Value::String(text) if wants("string") => match format {
            Some("uuid") => {
                if let Ok(uuid) = Uuid::parse_str(text) {
                    *value = json!(uuid.hyphenated().to_string());
                }
            }
            Some("date-time") => {
                let mut fixed = text.clone();
                if fixed.len() > 10 && fixed.as_bytes()[10] == b' ' {
                    fixed.replace_range(10..11, "T");
                }
                if fixed.ends_with('z') {
                    fixed.pop();
                    fixed.push('Z');
                }
                *value = json!(fixed);
            }
            _ => {}
        },
        Value::String(text) if wants("integer") && !wants("number") => {
            // The string of any i64, or an integral number below 2^53 spelled otherwise.
            if let Ok(i) = text.parse::<i64>() {
                *value = json!(i);
            } else if let Some(f) = number_in(text).filter(|f| f.fract() == 0.0 && f.abs() < EXACT)
            {
                *value = json!(f as i64);
            }
        }
        Value::String(text) if wants("number") => {
            if let Some(f) = number_in(text) {
                *value = json!(f);
            }
        }
        Value::String(text) if wants("boolean") => match text.as_str() {
            "true" => *value = json!(true),
            "false" => *value = json!(false),
            _ => {}
        },
        Value::Number(n) if wants("string") && !wants("number") && !wants("integer") => {
            *value = Value::String(n.to_string());
        }
        Value::Number(n) if n.is_f64() && wants("integer") && !wants("number") => {
            // An integral number below 2^53; at or past it and within the i64 range, refused
            // (a value no schema takes stands for the refusal); past the range, the schema's
            // bounds refuse it.
            match n.as_f64().filter(|f| f.fract() == 0.0) {
                Some(f) if f.abs() < EXACT => *value = json!(f as i64),
                Some(f) if (-I64_END..I64_END).contains(&f) => {
                    *value = json!({ "refused": "not an exact integer" })
                }
                _ => {}
            }
        }
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            for (key, child) in map.iter_mut() {
                if let Some(property) = properties.and_then(|p| p.get(key)) {
                    documented(child, property, root);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = schema.get("items") {
                for child in items {
                    documented(child, item, root);
                }
            }
        }
        _ => {}
    }
}

/// What the invoker should validate, from the model's arguments: `ambient_context` stripped,
/// no arguments (`null`) as none, undeclared keys dropped (under that policy), then coerced.
fn prepared(tool: &Tool, args: &Value) -> Value {
    let mut value = if args.is_null() {
        json!({})
    } else {
        args.clone()
    };
    if let Value::Object(map) = &mut value {
        map.remove("ambient_context");
        if tool.drops {
            let declared = tool.schema["properties"]
                .as_object()
                .cloned()
                .unwrap_or_default();
            map.retain(|key, _| declared.contains_key(key));
        }
    }
    documented(&mut value, &tool.schema, &tool.schema);
    value
}

// ---------------------------------------------------------------------------------------------
// The properties.

/// A tool and a valid value of its input schema.
fn tool_and_value() -> impl Strategy<Value = (usize, Value)> {
    let tools = &Fixture::get().tools;
    (0..tools.len()).prop_flat_map(|i| {
        let schema = Arc::clone(&Fixture::get().tools[i].schema);
        (Just(i), valid(&schema, &schema))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_valid_value_is_accepted((index, args) in tool_and_value()) {
        let fixture = Fixture::get();
        let tool = &fixture.tools[index];
        prop_assert!(tool.validator.is_valid(&args), "the generator made an invalid value: {args}");
        let result = fixture.invoke(tool, args.clone());
        prop_assert_ne!(code(&result), Some("invalid_arguments"), "{} rejected {}: {}", tool.name, args, result.message);
        if tool.name != "orders_cancel" {
            // Its handler fails on purpose for some orders; the others always answer.
            prop_assert!(result.is_ok(), "{} failed on {}: {:?}", tool.name, args, result);
        }
    }

    #[test]
    fn invalid_values_are_rejected_unless_a_documented_coercion_fixes_them(
        (index, mut args) in tool_and_value(),
        site in any::<Index>(),
        mutation in mutation(),
    ) {
        let fixture = Fixture::get();
        let tool = &fixture.tools[index];
        mutate(&mut args, site, &mutation);
        let fixed = prepared(tool, &args);
        let acceptable = fixed.is_object() && tool.validator.is_valid(&fixed);
        if tool.validator.is_valid(&args) {
            prop_assert!(acceptable, "a documented coercion broke a valid value: {args} → {fixed}");
        }
        let result = fixture.invoke(tool, args.clone());
        if acceptable {
            prop_assert_ne!(code(&result), Some("invalid_arguments"), "{} rejected {} (as {}): {}", tool.name, args, fixed, result.message);
        } else {
            prop_assert_eq!(code(&result), Some("invalid_arguments"), "{} accepted {} (as {}): {:?}", tool.name, args, fixed, result);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The run-time range of an integer: `i64`, enforced by the invoker, not stated in the schema.

fn tool(name: &str) -> &'static Tool {
    Fixture::get()
        .tools
        .iter()
        .find(|t| t.name == name)
        .expect("tool")
}

#[test]
fn integers_beyond_i64_are_rejected_with_the_range() {
    let fixture = Fixture::get();
    let tool = tool("orders_cancel");
    // The published schema states the spec's bound only.
    let published = fixture
        .registry
        .get("orders_cancel")
        .expect("tool")
        .descriptor()
        .input_schema_json();
    assert_eq!(
        published["properties"]["order_id"],
        json!({ "type": "integer", "minimum": 1 })
    );
    let range = "is outside the integer range, -9223372036854775808 to 9223372036854775807.";
    for (id, shown) in [
        (json!(u64::MAX), "18446744073709551615"),
        (json!(9_223_372_036_854_775_808u64), "9223372036854775808"),
        (json!(1e19), "1e+19"),
        (json!(1e20), "1e+20"),
        // 2^63 as a float: the first integer past i64::MAX.
        (json!(9_223_372_036_854_775_808.0), "9.223372036854776e+18"),
    ] {
        let args = json!({ "order_id": id });
        assert!(!tool.validator.is_valid(&args), "{args}");
        let result = fixture.invoke(tool, args);
        assert_eq!(code(&result), Some("invalid_arguments"));
        assert_eq!(
            result.message,
            format!("Invalid arguments: `/order_id`: {shown} {range}")
        );
        let details = result
            .error()
            .and_then(|e| e.details.clone())
            .expect("the error's details");
        assert_eq!(
            details["errors"][0],
            json!({ "field": "/order_id", "message": format!("{shown} {}", range.trim_end_matches('.')) })
        );
    }
    // The ends of the range are valid, and decode; as a float, only below 2^53.
    for id in [json!(i64::MAX), json!(9_007_199_254_740_991.0)] {
        let args = json!({ "order_id": id });
        assert!(tool.validator.is_valid(&args), "{args}");
        let result = fixture.invoke(tool, args);
        assert!(result.is_ok(), "{result:?}");
    }
}

/// A decimal with more than 28 digits before the point.
const DECIMAL_TOO_LONG: &str = "79228162514264337593543950336";

fn coerce_args(price: &str) -> Value {
    json!({
        "id": "67e55044-10b1-426f-9247-bb680e5fe0c8",
        "day": "2026-01-02",
        "at": "2026-01-02T03:04:05Z",
        "price": price,
        "lines": [{ "sku": "ABC", "quantity": 1 }]
    })
}

#[test]
fn decimals_beyond_28_digits_are_invalid_and_rejected() {
    let fixture = Fixture::get();
    let tool = tool("kinds_coerce");
    assert_eq!(
        tool.schema["properties"]["price"]["pattern"],
        DECIMAL_PATTERN
    );
    let args = coerce_args(DECIMAL_TOO_LONG);
    assert!(!tool.validator.is_valid(&args));
    let result = fixture.invoke(tool, args);
    assert_eq!(
        result.message,
        "Invalid arguments: `/price`: \"79228162514264337593543950336\" does not match \"^-?[0-9]{1,28}(\\.[0-9]+)?$\"."
    );
}

#[test]
fn decimals_with_long_fractions_are_rounded() {
    let fixture = Fixture::get();
    let tool = tool("kinds_coerce");
    let nines = "9".repeat(28);
    for (price, echoed) in [
        (
            format!("{nines}.{nines}"),
            "10000000000000000000000000000".to_owned(),
        ),
        (format!("-{nines}.4{nines}"), format!("-{nines}")),
        (
            format!("0.{}", "3".repeat(60)),
            format!("0.{}", "3".repeat(28)),
        ),
        (
            format!("0.{}1", "0".repeat(60)),
            "0.0000000000000000000000000000".to_owned(),
        ),
    ] {
        let args = coerce_args(&price);
        assert!(tool.validator.is_valid(&args), "{price}");
        let result = fixture.invoke(tool, args);
        assert!(result.is_ok(), "{price}: {result:?}");
        assert_eq!(
            result.value().expect("ok")["echo"]["price"],
            echoed,
            "{price}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    /// `rust_decimal` reads every string the published pattern admits (long fractions rounded).
    #[test]
    fn every_published_decimal_parses(
        text in proptest::string::string_regex(r"-?[0-9]{1,28}(\.[0-9]{1,80})?").expect("regex")
    ) {
        prop_assert!(text.parse::<Decimal>().is_ok(), "{}", text);
    }

    /// And refuses what it stops at, past 28 digits (before the point, where rounding cannot
    /// help) — so the pattern's limit is rust_decimal's.
    #[test]
    fn a_29th_digit_can_overflow(tail in "[8-9][0-9]{27}") {
        let text = format!("9{tail}");
        prop_assert!(text.parse::<Decimal>().is_err(), "{}", text);
    }
}

/// Every schema the compiler wrote for these tools has a fast check: a valid call never needs
/// the general validator compiled (the property above shows the fast check never accepts what
/// the validator refuses).
#[test]
fn every_generated_schema_has_a_fast_check() {
    let app = App::new();
    for registry in [app.registry(), app.drop_registry()] {
        for tool in registry.tools() {
            let descriptor = tool.descriptor();
            let schemas = [
                ("input", descriptor.input_schema_json()),
                ("output", descriptor.output_schema_json()),
            ];
            for (side, schema) in schemas {
                let fast = toolspec::__private::FastCheck::compile(&schema);
                assert!(fast.is_some(), "{} {side}: {schema}", descriptor.name);
            }
        }
    }
}
