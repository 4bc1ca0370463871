//! `toolspec::testing` over a private in-memory SQLite database: an app's tests call its query
//! tool as a caller would, by canonical name and through one adapter's narrowed view.

use serde_json::json;
use toolspec::testing::{Harness, memory_database};
use toolspec::{AmbientContext, Caller};

#[tokio::test]
async fn a_query_tool_answers_its_callers_tenant_over_an_in_memory_database() {
    let (pool, database) = memory_database().await.expect("an in-memory database");
    sqlx::query(toolspec_test_query::schema(true))
        .execute(&pool)
        .await
        .expect("the app's table");
    for (id, tenant, name) in [(1, 1, "hammer"), (2, 1, "saw"), (3, 2, "drill")] {
        sqlx::query(
            "INSERT INTO items VALUES ($1, $2, $3, 'tools', 1200, NULL, 1,
                '7d0a2f2e-3f6c-4a47-9c3a-8f1de0b8a9e1', '2026-03-01', '2026-03-01T10:00:00Z')",
        )
        .bind(id)
        .bind(tenant)
        .bind(name)
        .execute(&pool)
        .await
        .expect("a row");
    }
    let tenant_1 = Caller::new("t1").with_ambient(AmbientContext::from([("tenant", 1)]));
    let harness = Harness::new(toolspec_test_query::tools::registry(
        toolspec_test_query::Items,
        database,
    ))
    .with_caller(tenant_1);

    let page = harness
        .call("items_search", json!({"sort": "name"}))
        .await
        .ok();
    let names: Vec<&str> = page["records"]
        .as_array()
        .expect("records")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert_eq!(names, ["hammer", "saw"], "only the caller's tenant");
    assert_eq!(page["total"], 2);

    // OpenAI's view hides `name_contains`: through it, the filter is an undeclared argument.
    let openai = harness.calls().through("openai");
    let hidden = openai
        .call("items_search", json!({"name_contains": "ham"}))
        .await
        .error("invalid_arguments");
    assert_eq!(
        hidden.details.as_ref().map(|d| &d["errors"][0]["field"]),
        Some(&json!("/name_contains"))
    );
    // By canonical name, it is a filter like any other.
    let found = harness
        .call("items_search", json!({"name_contains": "ham"}))
        .await
        .ok();
    assert_eq!(found["total"], 1);
}
