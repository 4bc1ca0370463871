//! An answer past its tool's result cap, over stdio and streamable HTTP: the structured content
//! is cut (and still matches the output schema the tool lists), a second text block says what
//! was cut, and `_meta` carries the notice.

use rmcp::model::{CallToolResult, ProtocolVersion};
use serde_json::{Value, json};

use crate::orders::add_orders;
use crate::support::*;

/// What a model reads of the cut.
const SENTENCE: &str = "The answer was cut to fit its cap (256 KiB of JSON, 100 items per list): \
                        /orders keeps 100 of 154 items.";

/// Checks the store's export of customer 1 (4 seeded orders and 150 more) on `client`.
async fn cut_with_a_notice(client: &Client) {
    let export: CallToolResult = result(client, "orders_export", json!({})).await;
    assert_eq!(export.is_error, Some(false), "{export:?}");
    let content = export
        .structured_content
        .as_ref()
        .expect("structured content");
    assert_eq!(content["orders"].as_array().unwrap().len(), 100);
    assert_eq!(content["count"], 154);
    let listed = client.list_all_tools().await.unwrap();
    let tool = listed.iter().find(|t| t.name == "orders_export").unwrap();
    let schema = Value::Object((*tool.output_schema.clone().unwrap()).clone());
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(
        validator.is_valid(content),
        "the cut answer matches its schema"
    );
    assert!(
        tool.description
            .as_deref()
            .unwrap()
            .contains("at most 100 items")
    );

    let notice = &export.meta.as_ref().expect("_meta").0["toolspec/truncated"];
    assert_eq!(
        notice["cut"],
        json!([{"at": "/orders", "kept": 100, "total": 154, "by": "items"}])
    );
    let said = export.content[1].as_text().expect("a second text block");
    assert_eq!(said.text, SENTENCE);
}

#[tokio::test]
async fn over_stdio_a_cut_answer_carries_its_notice() {
    let scratch = Scratch::new();
    add_orders(&scratch.db(), 1, 150).await;
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    cut_with_a_notice(&client).await;
}

#[tokio::test]
async fn over_streamable_http_a_cut_answer_carries_its_notice() {
    let scratch = Scratch::new();
    add_orders(&scratch.db(), 1, 150).await;
    let server = HttpServer::start(&scratch).await;
    for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let client = server.client("ada-token", version).await;
        cut_with_a_notice(&client).await;
    }
    // The audit trail keeps the cut result, and the notice's sentence as its message.
    let status = server.stop_with("-TERM").await;
    assert!(status.success(), "a graceful shutdown: {status}");
    let recorded = records(&scratch.db().display().to_string(), "orders_export").await;
    assert_eq!(recorded.len(), 2);
    for record in recorded {
        assert_eq!(record.outcome.as_deref(), Some("ok"));
        assert_eq!(record.message.as_deref(), Some(SENTENCE));
        let kept = record.result.as_ref().unwrap()["orders"]
            .as_array()
            .unwrap()
            .len();
        assert_eq!(kept, 100);
    }
}
