//! The catalog of a few tools: every tool a section with its anchors, its tables and example
//! calls; every text escaped in HTML, every table cell kept to one line in Markdown.

use std::borrow::Cow;

use crate::model::descriptor::{
    AdapterBinding, AuditPolicy, Descriptor, DescriptorParts, ErrorCode, Guard, ToolKind,
};

use super::ToolDocs;

/// A tool with a hostile description, nested input with constraints, and an error and a
/// guard, on MCP, the HTTP API and OpenAI.
fn tool(name: &'static str) -> Descriptor {
    static ADAPTERS: [AdapterBinding; 3] = [
        AdapterBinding::member("http"),
        AdapterBinding::member("mcp"),
        AdapterBinding::member("openai"),
    ];
    Descriptor::baked(DescriptorParts {
        kind: ToolKind::Action,
        title: Some(Cow::Borrowed("Place <b>order</b>")),
        summary: Cow::Borrowed("Places an order. <script>alert('x')</script> | piped"),
        input_schema: Cow::Borrowed(
            r##"{"type":"object","properties":{
                "lines":{"type":"array","minItems":1,"items":{"$ref":"#/$defs/Line"}},
                "note":{"type":"string","maxLength":500,"description":"A note\nfor the courier."}
              },"required":["lines"],
              "$defs":{"Line":{"type":"object","properties":{
                "sku":{"type":"string","pattern":"^[A-Z]+$"},
                "quantity":{"type":"integer","minimum":1,"maximum":100}
              },"required":["sku","quantity"]}}}"##,
        ),
        output_schema: Cow::Borrowed(
            r#"{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}"#,
        ),
        errors: Cow::Owned(vec![ErrorCode {
            code: Cow::Borrowed("out_of_stock"),
            message: Cow::Borrowed("An item is <out> of stock."),
            standalone: false,
            http_status: None,
        }]),
        guards: Cow::Owned(vec![Guard {
            name: Cow::Borrowed("customer_active"),
            description: Cow::Borrowed("The customer account must be active."),
        }]),
        scopes: Cow::Owned(vec![Cow::Borrowed("orders:write")]),
        hints: Cow::Owned(vec![Cow::Borrowed("destructive")]),
        ..Descriptor::explain(
            Cow::Borrowed(name),
            Cow::Borrowed(&ADAPTERS),
            AuditPolicy::OFF,
        )
        .0
    })
}

#[test]
fn every_tool_has_its_section_anchors_tables_and_examples() {
    let (place, other) = (tool("orders_place"), tool("orders_other"));
    let html = ToolDocs::new("Shop", [&place, &other])
        .base_url("https://shop.example/")
        .html();
    for name in ["orders_other", "orders_place"] {
        assert!(
            html.contains(&format!("<section class=\"tool\" id=\"tool-{name}\"")),
            "{html}"
        );
        assert!(
            html.contains(&format!("<a href=\"#tool-{name}\">")),
            "{html}"
        );
        for part in [
            "inputs",
            "outputs",
            "errors",
            "adapters",
            "example-1",
            "example-2",
            "example-3",
        ] {
            assert!(
                html.contains(&format!("id=\"tool-{name}-{part}\"")),
                "{name} {part}"
            );
        }
    }
    // Sorted by name: the other tool first.
    assert!(html.find("id=\"tool-orders_other\"") < html.find("id=\"tool-orders_place\""));
    // Nested fields, named types followed, constraints in words.
    for row in [
        "<code>lines[].sku</code></th><td>string</td><td>yes</td><td>matches ^[A-Z]+$</td>",
        "<code>lines[].quantity</code></th><td>integer</td><td>yes</td><td>≥ 1; ≤ 100</td>",
        "<code>lines</code></th><td>array of object</td><td>yes</td><td>at least 1 item</td>",
        "<code>note</code></th><td>string</td><td>no</td><td>at most 500 characters</td>",
    ] {
        assert!(html.contains(row), "{row}\n{html}");
    }
    // The examples' arguments are what the schema asks for, the curl one at the base URL.
    assert!(
        html.contains("curl -X POST https:&#x2f;&#x2f;shop.example&#x2f;tools&#x2f;orders_place")
    );
    assert!(
        html.contains(
            "{&quot;lines&quot;:[{&quot;quantity&quot;:1,&quot;sku&quot;:&quot;text&quot;}]}"
        ) || html.contains(
            "{&quot;lines&quot;:[{&quot;sku&quot;:&quot;text&quot;,&quot;quantity&quot;:1}]}"
        ),
        "{html}"
    );
    assert!(html.contains("&quot;method&quot;: &quot;tools&#x2f;call&quot;"));
    assert!(html.contains("&quot;type&quot;: &quot;function&quot;"));
    assert!(html.contains("<caption>Error codes of <code>orders_place</code></caption>"));
    assert!(html.contains("<td>Guard: The customer account must be active.</td>"));
}

#[test]
fn every_text_is_escaped_in_html() {
    let place = tool("orders_place");
    let html = ToolDocs::new("<Shop>", [&place]).html();
    assert!(!html.contains("<script>"), "{html}");
    assert!(!html.contains("<b>order</b>"), "{html}");
    assert!(
        html.contains("&lt;script&gt;alert(&#x27;x&#x27;)&lt;&#x2f;script&gt;"),
        "{html}"
    );
    assert!(html.contains("<title>&lt;Shop&gt;</title>"));
    assert!(html.contains("An item is &lt;out&gt; of stock."));
    // No script of its own either, and what a phone needs.
    assert_eq!(html.matches("<script").count(), 0);
    assert!(
        html.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
    );
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
}

#[test]
fn markdown_tables_keep_each_cell_on_its_line() {
    let place = tool("orders_place");
    let markdown = ToolDocs::new("Shop", [&place]).markdown();
    assert!(markdown.starts_with("# Shop\n"), "{markdown}");
    assert!(markdown.contains("<a id=\"tool-orders_place\"></a>"));
    assert!(
        markdown.contains(
            "| `note` | string | no | at most 500 characters | A note for the courier. |"
        ),
        "{markdown}"
    );
    assert!(markdown.contains("Places an order. <script>alert('x')</script> | piped"));
    assert!(
        markdown.contains("```sh\ncurl -X POST http://localhost:8787/tools/orders_place"),
        "{markdown}"
    );
    for line in markdown.lines().filter(|l| l.starts_with('|')) {
        assert!(line.ends_with('|'), "a row on one line: {line}");
    }
}

#[test]
fn no_tool_is_a_page_that_says_so() {
    let docs = ToolDocs::new("Empty", []);
    assert!(docs.is_empty());
    assert!(docs.html().contains("<p>0 tools:"));
}

#[test]
fn a_ref_fields_not_found_rate_limits_and_sensitive_fields_are_shown() {
    use crate::model::descriptor::{ColumnType, RateLimit, RecordColumn, RefDecl, ScopeColumn};

    static RECORD: [RecordColumn; 1] = [RecordColumn {
        name: Cow::Borrowed("id"),
        column: Cow::Borrowed("id"),
        ty: ColumnType::Integer,
        nullable: false,
    }];
    static SCOPE: [ScopeColumn; 1] = [ScopeColumn {
        column: Cow::Borrowed("owner"),
        ambient: Cow::Borrowed("owner"),
        ty: ColumnType::Integer,
    }];
    let item = RefDecl {
        field: Cow::Borrowed("item"),
        source: Cow::Borrowed("items"),
        key: Cow::Borrowed("id"),
        key_type: ColumnType::Integer,
        record: Cow::Borrowed(&RECORD),
        scope: Cow::Borrowed(&SCOPE),
    };
    // An undeclared `not_found`: listed after the declared codes, worded as the call words it.
    let archive = Descriptor::baked(DescriptorParts {
        refs: Cow::Owned(vec![item.clone()]),
        sensitive_input: Some(Cow::Borrowed(
            r#"{"properties":{"lines":{"items":{"properties":{"sku":true}}},"note":true}}"#,
        )),
        rate_limit: Some(RateLimit {
            calls: 6,
            period_ms: 60_000,
            burst: 5,
            in_flight: 2,
        }),
        ..tool("items_archive").0
    });
    let html = ToolDocs::new("Shop", [&archive]).html();
    assert!(
        html.contains(
            "<tr><th scope=\"row\"><code>out_of_stock</code></th><td>An item is &lt;out&gt; of stock.</td></tr>\n\
             <tr><th scope=\"row\"><code>not_found</code></th><td>No such item.</td></tr>"
        ),
        "{html}"
    );
    assert!(
        html.contains(
            "<dt>Rate limit</dt><dd>6 calls per 1m per caller, bursts of 5, at most 2 at once</dd>"
        ),
        "{html}"
    );
    for row in [
        "<code>note</code></th><td>string</td><td>no</td><td>sensitive: kept out of audit records and logs; at most 500 characters</td>",
        "<code>lines[].sku</code></th><td>string</td><td>yes</td><td>sensitive: kept out of audit records and logs; matches ^[A-Z]+$</td>",
        "<code>lines[].quantity</code></th><td>integer</td><td>yes</td><td>≥ 1; ≤ 100</td>",
    ] {
        assert!(html.contains(row), "{row}\n{html}");
    }
    let markdown = ToolDocs::new("Shop", [&archive]).markdown();
    assert!(
        markdown.contains("| `not_found` | No such item. |"),
        "{markdown}"
    );
    assert!(
        markdown
            .contains("- Rate limit: 6 calls per 1m per caller, bursts of 5, at most 2 at once")
    );
    assert!(markdown.contains("| `note` | string | no | sensitive: kept out of audit records and logs; at most 500 characters |"));

    // A declared `not_found` is listed once, as declared; a tool without a limit says so.
    let declared = Descriptor::baked(DescriptorParts {
        refs: Cow::Owned(vec![item]),
        errors: Cow::Owned(vec![ErrorCode {
            code: Cow::Borrowed("not_found"),
            message: Cow::Borrowed("No such item here."),
            standalone: true,
            http_status: None,
        }]),
        rate_limit: None,
        ..tool("items_rename").0
    });
    let html = ToolDocs::new("Shop", [&declared]).html();
    assert_eq!(html.matches("<code>not_found</code>").count(), 1, "{html}");
    assert!(html.contains("<td>No such item here.</td>"));
    assert!(html.contains("<dt>Rate limit</dt><dd>none</dd>"));
}
