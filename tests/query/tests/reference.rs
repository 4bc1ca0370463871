//! `ref` fields on SQLite and PostgreSQL: the model sends a key, the handler and its guards
//! get the record, loaded within the caller's scope; a missing record and another tenant's
//! fail alike as `not_found`, and the schema shows only the key.

mod support;

use serde_json::{Value, json};
use support::Fixture;

async fn rename(fixture: &Fixture, item: Value, tenant: i64) -> toolspec::ToolResult {
    let ambient = toolspec::AmbientContext::from([("tenant", tenant)]);
    let tool = fixture.registry.get("items_rename").expect("registered");
    tool.invoke(json!({"item": item, "name": "renamed"}), &ambient)
        .await
}

async fn check(fixture: &Fixture) {
    let tool = fixture.registry.get("items_rename").expect("registered");
    let schema = tool.descriptor().input_schema_json();
    assert_eq!(
        schema["properties"]["item"]["type"], "integer",
        "the schema shows the key only"
    );

    let cheap = fixture
        .rows
        .iter()
        .find(|r| r.price < 5_000)
        .expect("a cheap row");
    let done = rename(fixture, json!(cheap.id), cheap.tenant).await;
    let output = done.outcome.expect("the owner renames it");
    assert_eq!(
        output["old_name"],
        json!(cheap.name),
        "the handler got the loaded record"
    );
    assert_eq!(output["id"], cheap.id);

    let other = if cheap.tenant == 1 { 2 } else { 1 };
    let foreign = rename(fixture, json!(cheap.id), other)
        .await
        .outcome
        .unwrap_err();
    let missing = rename(fixture, json!(1_000_000), cheap.tenant)
        .await
        .outcome
        .unwrap_err();
    assert_eq!(foreign.code, "not_found");
    assert_eq!(
        foreign, missing,
        "another tenant's record and no record look the same"
    );

    let dear = fixture
        .rows
        .iter()
        .find(|r| r.price >= 5_000)
        .expect("a dear row");
    let guarded = rename(fixture, json!(dear.id), dear.tenant)
        .await
        .outcome
        .unwrap_err();
    assert_eq!(
        guarded.code, "affordable",
        "the guard saw the record's price"
    );

    let explained = tool
        .explain(
            json!({"item": cheap.id, "name": "x"}),
            &toolspec::AmbientContext::from([("tenant", other)]),
        )
        .await
        .expect("an explanation");
    assert!(!explained.callable);
    assert_eq!(explained.errors[0].field, "/item");
}

#[tokio::test]
async fn sqlite_refs_load_the_callers_record() {
    check(&Fixture::sqlite().await).await;
}

#[tokio::test]
async fn postgres_refs_load_the_callers_record() {
    let Some(url) = support::postgres_url() else {
        return;
    };
    let fixture = Fixture::postgres(&url).await;
    check(&fixture).await;
    fixture.finish().await;
}
