//! The shapes stage: files, names, one type space, typify's output made fit.

use std::collections::BTreeSet;

use serde_json::{Value as Json, json};

use crate::shapes::files::{json_span, relative_to};
use crate::shapes::rust::{leading_crates, post_process};
use crate::shapes::typify::{project_space, quietly, shape_input, try_alone};
use crate::source::Source;

/// The Rust source typify generates for `schema` alone, its root named `root`.
fn generate(root: &str, schema: &Json) -> Result<String, String> {
    let input = shape_input(schema, root)?;
    let tokens = project_space(vec![input])?;
    post_process(tokens, &[root], &[])
}

#[test]
fn paths_resolve_against_the_spec_folder() {
    assert_eq!(relative_to("specs/a.yaml", "s/g.json"), "specs/s/g.json");
    assert_eq!(relative_to("specs/x/a.yaml", "../g.json"), "specs/g.json");
    assert_eq!(
        relative_to("specs/x/a.yaml", "./y/../g.json"),
        "specs/x/g.json"
    );
    assert_eq!(relative_to("a.yaml", "g.json"), "g.json");
    assert_eq!(relative_to("a.yaml", "../g.json"), "../g.json");
    assert_eq!(relative_to("./a.yaml", "g.json"), "./g.json");
}

#[test]
fn json_errors_point_at_their_character() {
    let text = "{\n  \"é\": 1,\n}";
    let e = serde_json::from_str::<Json>(text).unwrap_err();
    let span = json_span(text, e.line(), e.column());
    assert_eq!((span.start.line, span.start.col), (3, 1));
    assert_eq!(&text[span.start.offset..span.end.offset], "}");
    let span = json_span("{\"é\" x}", 1, 7);
    assert_eq!((span.start.col, span.end.col), (6, 7));
    let span = json_span("{", 1, 0);
    assert_eq!((span.start.line, span.start.col), (1, 1));
    let span = json_span("{\n", 2, 0);
    assert_eq!((span.start.offset, span.end.offset), (2, 2));
}

#[test]
fn output_depends_on_toolspec_only() {
    let schema = json!({
        "type": "object",
        "properties": {
            "at": { "type": "string", "format": "date-time" },
            "id": { "type": "string", "format": "uuid" },
            "code": { "type": "string", "pattern": "^[A-Z]{3}$" },
            "name": { "type": "string", "minLength": 1 },
            "extra": { "type": "object", "additionalProperties": { "type": "integer" } },
            "any": {},
        },
    });
    let rust = generate("Record", &schema).unwrap();
    let mut crates = BTreeSet::new();
    leading_crates(&rust.parse().unwrap(), &mut crates);
    assert_eq!(
        crates.into_iter().collect::<Vec<_>>(),
        ["std", "toolspec"],
        "{rust}"
    );
    assert!(rust.contains("serde (crate = \"::toolspec::__private::serde\")"));
    assert!(
        rust.contains(":: toolspec :: __private :: types :: DateTime < :: toolspec :: __private :: types :: FixedOffset >")
    );
    assert!(rust.contains(":: std :: collections :: BTreeMap"));
    assert!(
        !rust.contains("regress"),
        "patterns are left to the canonical schema"
    );
    assert!(
        rust.contains("impl < 'de > :: toolspec :: __private :: serde :: Deserialize < 'de >"),
        "{rust}"
    );
}

#[test]
fn definitions_and_titles_follow_the_root_name() {
    let schema = json!({
        "type": "object",
        "properties": {
            "points": { "type": "array", "items": { "$ref": "#/$defs/Point" } },
            "next": { "$ref": "#" },
            "opt": { "title": "Option", "type": "object", "properties": { "k": { "type": "boolean" } } },
        },
        "$defs": {
            "Point": {
                "type": "object",
                "required": ["x"],
                "properties": { "x": { "type": "number" } },
            },
        },
    });
    let rust = generate("DrawPath", &schema).unwrap();
    assert!(rust.contains("pub struct DrawPath "), "{rust}");
    assert!(rust.contains("pub struct DrawPathPoint "), "{rust}");
    assert!(rust.contains("pub struct DrawPathOption "), "{rust}");
    assert!(
        rust.contains(":: std :: boxed :: Box < DrawPath >"),
        "the recursive reference: {rust}"
    );
    assert!(!rust.contains("struct Point "), "{rust}");
}

#[test]
fn typify_panics_become_reasons() {
    let schema =
        json!({ "type": "object", "if": { "required": ["a"] }, "then": { "required": ["b"] } });
    let input = shape_input(&schema, "Geometry").unwrap();
    assert_eq!(
        try_alone(input, "Geometry"),
        Err("typify: if/then/else schemas are not supported".to_owned())
    );
    assert_eq!(
        quietly(|| -> u8 { panic!("boom\nmore") }),
        Err("typify: boom".to_owned())
    );
    assert_eq!(quietly(|| 7), Ok(7));
}

#[test]
fn shapes_of_a_project_share_one_type_space_with_unique_names() {
    let shape = "shape: { type: object, properties: { kind: { type: string, enum: [a, b] } } }";
    let sources = [
        Source {
            path: "orders/get.yaml".into(),
            text: format!("description: D.\nexpects:\n  filter: {{ {shape} }}\n"),
        },
        Source {
            path: "orders_get.yaml".into(),
            text: format!(
                "description: D.\nname: other\nexpects:\n  filter: {{ {shape} }}\nexposes:\n  rows:\n    type: array\n    items: {{ {shape} }}\n"
            ),
        },
    ];
    let project = crate::project::build(&sources, &[], "specs");
    assert!(!project.has_errors(), "{}", project.render_diagnostics());
    let items = &project.shapes.items;
    for name in [
        "OrdersGetFilter",
        "OrdersGetFilterKind",
        "OrdersGetFilter2",
        "OrdersGetRowsItem",
    ] {
        assert!(
            items.contains(&format!("pub struct {name} "))
                || items.contains(&format!("pub enum {name} ")),
            "{name}: {items}"
        );
    }
    assert_eq!(
        items.matches("pub struct ConversionError").count(),
        1,
        "one conversion error for the project"
    );
}
