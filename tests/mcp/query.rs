//! The store's query tool, `orders_search`, over MCP stdio with rmcp's client: declared with
//! its filters, sorts and page (never the scope), read-only, and answering from the database
//! with the caller's rows only — from the store's SQLite file, and from a PostgreSQL database
//! given to `--db` as a URL.

use serde_json::{Value, json};

use crate::support::*;

#[tokio::test]
async fn the_query_tool_is_listed_with_its_filters_and_never_its_scope() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    let tools = client.list_tools(None).await.unwrap().tools;
    let search = tools
        .iter()
        .find(|t| t.name == "orders_search")
        .expect("listed");
    let search = serde_json::to_value(search).unwrap();
    let properties: Vec<&String> = search["inputSchema"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        properties,
        [
            "status",
            "placed_after",
            "placed_before",
            "total_min",
            "note_contains",
            "sort",
            "limit",
            "offset"
        ]
    );
    assert_eq!(search["inputSchema"]["required"], Value::Null);
    assert_eq!(
        search["inputSchema"]["properties"]["sort"]["enum"],
        json!(["placed_at", "-placed_at", "total", "-total"])
    );
    assert_eq!(search["annotations"]["readOnlyHint"], true);
    let description = search["description"].as_str().unwrap();
    assert!(description.starts_with("Search your orders.\nFilters: status (pending, shipped, delivered, cancelled, refunded); placed_after (placed at or after);"), "{description}");
    assert!(
        description
            .contains("Sorts: placed_at, total (`-` first for largest first; default -placed_at)."),
        "{description}"
    );
    assert!(
        description.contains("at most 50 records per page (default 20)"),
        "{description}"
    );
    assert_eq!(
        search["outputSchema"]["required"],
        json!(["records", "total", "limit", "offset"])
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_query_reads_only_the_callers_rows_from_the_database() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    let page = result(&client, "orders_search", json!({})).await;
    assert_eq!(page.is_error, Some(false));
    let page = page.structured_content.expect("structured");
    let ids: Vec<i64> = page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    // Customer 1's four orders, newest first (`-placed_at`, the default sort).
    assert_eq!(ids, [1, 2, 3, 4]);
    assert_eq!(
        (
            page["total"].clone(),
            page["limit"].clone(),
            page["offset"].clone()
        ),
        (json!(4), json!(20), json!(0))
    );

    let pending = result(
        &client,
        "orders_search",
        json!({"status": "pending", "limit": 500, "sort": "customer_id"}),
    )
    .await;
    let pending = pending.structured_content.expect("structured");
    assert_eq!(pending["records"].as_array().unwrap().len(), 1);
    assert_eq!(pending["records"][0]["id"], 1);
    assert_eq!(
        pending["limit"], 50,
        "a limit over the maximum is lowered, never refused"
    );
    client.cancel().await.unwrap();

    // Customer 2 sees their own orders only; the model cannot widen the scope.
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=2"]).await;
    let page = result(
        &client,
        "orders_search",
        json!({"customer_id": 1, "ambient_context": {"customer_id": 1}}),
    )
    .await;
    assert_eq!(
        page.is_error,
        Some(true),
        "customer_id is no argument of the tool"
    );
    let page = result(&client, "orders_search", json!({"sort": "total"})).await;
    let page = page.structured_content.expect("structured");
    let ids: Vec<i64> = page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert!(
        !ids.is_empty() && ids.iter().all(|id| ![1, 2, 3, 4].contains(id)),
        "{ids:?}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn bad_filter_values_are_invalid_arguments_as_on_an_action() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    let failed = result(
        &client,
        "orders_search",
        json!({"status": "lost", "total_min": "lots"}),
    )
    .await;
    assert_eq!(failed.is_error, Some(true));
    let error = failed
        .meta
        .as_ref()
        .and_then(|m| m.get("toolspec/error"))
        .cloned()
        .expect("the error");
    assert_eq!(error["error"], "invalid_arguments");
    let text = text(&failed);
    assert!(
        text.contains("status") && text.contains("total_min"),
        "{text}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_store_serves_a_postgres_database_given_as_a_url() {
    let Some(server) = toolspec_test_postgres::server_url() else {
        return;
    };
    let database = toolspec_test_postgres::Scratch::create(&server).await;
    let url = std::ffi::OsStr::new(database.url());
    let (client, _log) = stdio_on(url, &["--as", "customer_id=1"]).await;
    // Migrated and seeded on first use: customer 1's four orders, newest first.
    assert_eq!(ids(&client, json!({})).await, [1, 2, 3, 4]);
    let cancelled = result(&client, "orders_cancel", json!({"order": 1})).await;
    assert_eq!(cancelled.is_error, Some(false), "{}", text(&cancelled));
    assert_eq!(ids(&client, json!({"status": "cancelled"})).await, [1, 4]);
    let placed = result(
        &client,
        "orders_place",
        json!({"lines": [{"sku": "MUG-001", "quantity": 1}]}),
    )
    .await;
    let placed = placed.structured_content.expect("structured");
    assert_eq!(
        placed["order"]["id"], 8,
        "new ids continue after the seed's"
    );
    client.cancel().await.unwrap();

    // A second server on the same database finds it migrated and seeded: nothing is redone.
    let (client, _log) = stdio_on(url, &["--as", "customer_id=1"]).await;
    assert_eq!(ids(&client, json!({"status": "pending"})).await, [8]);
    client.cancel().await.unwrap();
    database.drop().await;
}

/// The ids of the records `orders_search` answers with `args`.
async fn ids(client: &Client, args: Value) -> Vec<i64> {
    let page = result(client, "orders_search", args).await;
    let page = page.structured_content.expect("structured");
    let records = page["records"].as_array().expect("records").iter();
    records.map(|r| r["id"].as_i64().expect("an id")).collect()
}
