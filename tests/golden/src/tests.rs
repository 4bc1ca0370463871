//! The generated types behave as their specs say.

use serde_json::json;
use toolspec::{AmbientContext, Described, Failure};

use crate::fields::kitchen::sink;
use crate::{empty, fields, membership, store};

#[test]
fn defaults_apply_when_fields_are_omitted() {
    let input: sink::Input = serde_json::from_value(json!({
        "text": "hi", "email": "a@b.c", "size": 2, "at": null,
        "items": [{ "name": "x" }],
    }))
    .unwrap();
    assert_eq!(input.count, 3);
    assert_eq!(input.ratio, 0.5);
    assert!(input.flag);
    assert_eq!(input.price.to_string(), "9.99");
    assert_eq!(input.level, fields::types::Level::Medium);
    assert_eq!(input.items[0].qty, 1);
    assert_eq!(input.r#type, None);
    assert_eq!(input.at, None);
}

#[test]
fn tagged_and_untagged_unions_round_trip() {
    let input: sink::Input = serde_json::from_value(json!({
        "text": "hi", "email": "a@b.c", "size": 1, "at": "2026-01-02T03:04:05Z",
        "items": [{ "name": "x", "qty": 2 }],
        "payment": { "kind": "bank", "iban": "DE00" },
        "either": 7, "camelCase": true, "type": "t",
    }))
    .unwrap();
    assert!(matches!(input.payment, Some(sink::Payment::Bank(_))));
    assert!(matches!(input.either, Some(sink::Either::Integer(7))));
    assert_eq!(input.camel_case, Some(true));
    let back = serde_json::to_value(&input).unwrap();
    assert_eq!(back["payment"], json!({ "kind": "bank", "iban": "DE00" }));
    assert_eq!(back["camelCase"], json!(true));
    assert_eq!(back["type"], json!("t"));
}

#[test]
fn descriptors_carry_the_spec() {
    let d = sink::Tool::descriptor();
    assert_eq!(sink::Tool::NAME, "kitchen_sink");
    assert_eq!(d.title.as_deref(), Some("Kitchen sink"));
    assert_eq!(d.version, Some(3));
    assert_eq!(d.timeout(), Some(std::time::Duration::from_millis(1500)));
    assert_eq!(
        d.description,
        "Every field type and modifier, in one tool.\nSecond line of the description.\nPreconditions: There must be water. The tap must be open. The pipe must be clear. A bucket must be at hand.\nErrors: has_water, tap_open, pipe_clear, bucket_found, clogged, overflow."
    );
    assert_eq!(
        d.ambient_fields().map(|f| &*f.name).collect::<Vec<_>>(),
        ["user_id", "tenant"]
    );
    let schema = d.input_schema_json();
    assert!(
        schema["properties"].get("user_id").is_none(),
        "ambient fields stay out of the schema"
    );
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(
        fields::TOOLS.iter().map(|t| &*t.name).collect::<Vec<_>>(),
        ["kitchen_sink", "ping"]
    );
    assert!(empty::TOOLS.is_empty());
}

#[test]
fn membership_names_and_settings_resolve() {
    let lookup = membership::agent::lookup::Tool::descriptor();
    assert_eq!(lookup.name_for("mcp"), Some("kb.lookup"));
    assert_eq!(lookup.name_for("openai"), Some("kb-lookup"));
    assert_eq!(lookup.name_for("slack"), None);
    let slack = membership::PROJECT.adapter("slack").unwrap();
    let ticket = membership::agent::support::ticket::Tool::descriptor();
    let settings =
        toolspec::settings::Settings::new(slack, &ticket.binding("slack").unwrap().settings);
    assert_eq!(settings.get_str("channel"), Some("support"));
    assert_eq!(settings.get_int("priority"), Some(2));
    assert_eq!(settings.get_bool("ephemeral"), Some(false));
    let mcp = membership::PROJECT.adapter("mcp").unwrap();
    let settings = toolspec::settings::Settings::new(mcp, &ticket.binding("mcp").unwrap().settings);
    assert_eq!(
        settings.present_as(),
        toolspec::settings::PresentAs::Message,
        "project default"
    );
    assert_eq!(membership::PROJECT.explain.name, "check_call");
    let hidden = membership::internal::hidden::Tool::descriptor();
    assert!(hidden.adapters.is_empty());
}

#[test]
fn audit_once_and_lock_are_declared() {
    use std::time::Duration;
    use toolspec::descriptor::{AuditPolicy, Durability};

    let audited = AuditPolicy {
        enabled: true,
        durability: Durability::Async,
        required: false,
    };
    assert_eq!(membership::PROJECT.audit.policy, audited);
    assert_eq!(
        membership::PROJECT.audit.retention,
        Some(Duration::from_secs(90 * 86_400))
    );
    assert_eq!(membership::EXPLAIN.audit, audited, "the project's policy");
    let ticket = membership::agent::support::ticket::Tool::descriptor();
    assert_eq!(
        ticket.audit,
        AuditPolicy {
            enabled: true,
            durability: Durability::Sync,
            required: true,
        },
        "required implies sync"
    );
    let once = ticket.once.as_ref().unwrap();
    assert_eq!(*once.key, ["customer_id", "subject"]);
    assert_eq!(once.ttl(), Duration::from_secs(600));
    let lock = ticket.lock.as_ref().unwrap();
    assert_eq!(*lock.key, ["customer_id"]);
    assert_eq!(lock.wait(), Duration::ZERO);
    let report = membership::internal::report::Tool::descriptor();
    assert_eq!(report.audit.durability, Durability::Sync);
    assert!(report.audit.enabled && !report.audit.required);
    assert!(report.once.is_none() && report.lock.is_none());
    let hidden = membership::internal::hidden::Tool::descriptor();
    assert!(!hidden.audit.enabled);
    assert_eq!(fields::ping::Tool::descriptor().audit, AuditPolicy::OFF);
    assert_eq!(empty::PROJECT.audit, toolspec::descriptor::AuditConfig::OFF);
}

struct Store;

impl store::orders::get::Handler for Store {
    type Order = store::types::Order;

    async fn call(
        &self,
        _: store::orders::get::Input,
        loaded: store::orders::get::Loaded<Self>,
        _: store::orders::get::Context<'_>,
    ) -> store::orders::get::Outcome {
        Ok(store::orders::get::Output {
            order: loaded.order,
        })
    }

    async fn own_order(
        &self,
        input: &store::orders::get::Input,
        cx: &store::orders::get::Context<'_>,
    ) -> store::orders::get::own_order::Outcome<store::types::Order> {
        if input.order_id != 7 || cx.ambient().customer_id != 1 {
            return Err(store::orders::get::own_order::Error::NotFound.into());
        }
        Ok(store::types::Order {
            id: 7,
            status: store::types::OrderStatus::Pending,
            lines: vec![],
            total: store::types::Money {
                amount: 0,
                currency: store::types::MoneyCurrency::Eur,
            },
            placed_at: "2026-12-01T10:00:00+01:00".parse().unwrap(),
        })
    }
}

impl store::orders::cancel::Handler for Store {
    async fn call(
        &self,
        _: store::orders::cancel::Input,
        _: store::orders::cancel::Context<'_>,
    ) -> store::orders::cancel::Outcome {
        Err(Failure::internal("database is down"))
    }
    async fn not_cancelled(
        &self,
        input: &store::orders::cancel::Input,
        _: &store::orders::cancel::Context<'_>,
    ) -> bool {
        input.order.status != "cancelled"
    }
}

impl store::orders::place::Handler for Store {
    async fn call(
        &self,
        _: store::orders::place::Input,
        _: store::orders::place::Context<'_>,
    ) -> store::orders::place::Outcome {
        Err(Failure::declared(store::orders::place::Error::UnknownSku)
            .with_details(json!({ "skus": ["NOPE"] })))
    }
    async fn customer_active(
        &self,
        _: &store::orders::place::Input,
        _: &store::orders::place::Context<'_>,
    ) -> bool {
        true
    }
}

impl store::orders::refund::Handler for Store {
    async fn call(
        &self,
        _: store::orders::refund::Input,
        _: store::orders::refund::Context<'_>,
    ) -> store::orders::refund::Outcome {
        Err(store::orders::refund::Error::NotDelivered.into())
    }
}

impl store::orders::report::Handler for Store {
    async fn call(
        &self,
        _: store::orders::report::Input,
        _: store::orders::report::Context<'_>,
    ) -> store::orders::report::Outcome {
        // No orders in this fixture.
        Ok(store::orders::report::Output {
            orders: 0,
            totals: Vec::new(),
        })
    }
}

impl store::orders::export::Handler for Store {
    async fn call(
        &self,
        input: store::orders::export::Input,
        _: store::orders::export::Context<'_>,
    ) -> store::orders::export::Outcome {
        // No orders in this fixture; a status filter narrows nothing further.
        let _ = input.status.map(|status| status.as_str());
        Ok(store::orders::export::Output {
            orders: Vec::new(),
            count: 0,
        })
    }
}

impl store::customers::me::Handler for Store {
    async fn call(
        &self,
        _: store::customers::me::Input,
        cx: store::customers::me::Context<'_>,
    ) -> store::customers::me::Outcome {
        Ok(store::customers::me::Output {
            id: cx.ambient().customer_id,
            name: "Ada".into(),
            email: "ada@example.com".into(),
            active: true,
            vip: None,
        })
    }
}

fn block_on<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(future)
}

#[test]
fn registry_binds_handlers_and_reports_outcomes() {
    // The store's query tool and `orders_cancel`'s `ref` read a database: a SQLite file with
    // the two orders the calls below name.
    let dir = tempfile::tempdir().unwrap();
    let url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("golden.db").display()
    );
    let database = block_on(async {
        let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
        sqlx::raw_sql(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, status TEXT);
             INSERT INTO orders VALUES (13, 1, 'cancelled'), (1, 1, 'pending');",
        )
        .execute(&pool)
        .await
        .unwrap();
        toolspec::Database::sqlite(pool)
    });
    let registry = store::registry(Store, database);
    assert_eq!(
        registry.tools().map(|t| t.name()).collect::<Vec<_>>(),
        [
            "customers_me",
            "explain",
            "orders_cancel",
            "orders_export",
            "orders_get",
            "orders_place",
            "orders_refund",
            "orders_report",
            "orders_search",
            "task_status"
        ]
    );
    assert_eq!(
        registry.tools_for("http").len(),
        8,
        "refund excludes http; explain is everywhere; task_status is not on http"
    );
    let ambient = AmbientContext::from([("customer_id", 1)]);
    block_on(async {
        let ok = registry
            .get("orders_get")
            .unwrap()
            .invoke(json!({ "order_id": 7 }), &ambient)
            .await;
        assert_eq!(ok.value().unwrap()["order"]["status"], json!("pending"));

        // A model cannot smuggle ambient context through its arguments.
        let smuggled = json!({ "order_id": 7, "ambient_context": { "customer_id": 2 } });
        let ok = registry
            .get("orders_get")
            .unwrap()
            .invoke(smuggled, &ambient)
            .await;
        assert!(ok.is_ok());

        let other = AmbientContext::from([("customer_id", 2)]);
        let missing = registry
            .get("orders_get")
            .unwrap()
            .invoke(json!({ "order_id": 7 }), &other)
            .await;
        assert_eq!(
            missing.to_model_json(),
            json!({ "error": "not_found", "message": "No such order." })
        );

        let guard = registry
            .get("orders_cancel")
            .unwrap()
            .invoke(json!({ "order": 13 }), &ambient)
            .await;
        assert_eq!(
            guard.to_model_json(),
            json!({ "error": "not_cancelled", "message": "Could not cancel the order: Order must not already be cancelled." })
        );

        // The cancel and the refund ask their user first (the answer holds the sealed state);
        // confirmed, they run.
        let confirmed = async |name: &str, args: serde_json::Value| {
            let tool = registry.get(name).unwrap();
            let asked = tool.invoke(args.clone(), &ambient).await;
            let asked = asked.error().expect("asked").details.clone().unwrap();
            let state = asked["request_state"].as_str().unwrap().to_owned();
            let options = toolspec::CallOptions {
                continuation: Some(toolspec::user_input::Continuation::confirm(state)),
                ..Default::default()
            };
            tool.invoke_with(args, &ambient, options).await
        };
        let internal = confirmed("orders_cancel", json!({ "order": 1 })).await;
        assert_eq!(
            internal.to_model_json(),
            json!({ "error": "internal_error", "message": "Could not cancel the order" })
        );
        assert_eq!(internal.exception.as_deref(), Some("database is down"));

        let details = registry
            .get("orders_place")
            .unwrap()
            .invoke(
                json!({ "lines": [{ "sku": "NOPE-1", "quantity": 1 }] }),
                &ambient,
            )
            .await;
        assert_eq!(
            details.to_model_json(),
            json!({ "error": "unknown_sku", "message": "Could not place the order: A product in the order does not exist.", "details": { "skus": ["NOPE"] } })
        );

        let headline = confirmed("orders_refund", json!({ "order_id": 1 })).await;
        assert_eq!(
            headline.error().unwrap().message,
            "Could not refund the order: Only delivered orders can be refunded."
        );
    });
}

#[test]
fn shape_types_round_trip_through_json() {
    use crate::shapes::{draw, layout, types};

    let value = json!({
        "geometry": {
            "kind": "polygon",
            "points": [{ "x": 0.0, "y": 0.0 }, { "x": 1.0, "y": 0.5 }],
            "label": "a roof",
            "style": { "color": "red" },
        },
        "canvas": { "width": 640, "height": 480, "background": "transparent" },
    });
    let input: draw::Input = serde_json::from_value(value.clone()).unwrap();
    let geometry: &types::DrawGeometry = &input.geometry;
    assert_eq!(geometry.kind, types::DrawGeometryKind::Polygon);
    assert_eq!(geometry.kind.to_string(), "polygon");
    assert_eq!(
        geometry.points[1],
        types::DrawGeometryPointsItem { x: 1.0, y: 0.5 }
    );
    let style: &types::DrawGeometryStyle = geometry.style.as_ref().unwrap();
    assert!(!style.dashed, "schema default");
    let canvas: &types::DrawCanvas = input.canvas.as_ref().unwrap();
    assert_eq!(canvas.width.get(), 640);
    assert_eq!(
        canvas.background,
        Some(types::DrawCanvasBackground::Transparent)
    );
    assert!(canvas.layers.is_empty());

    // Back to JSON: the same value, with the schema's default filled in.
    let mut expected = value;
    expected["geometry"]["style"]["dashed"] = json!(false);
    assert_eq!(serde_json::to_value(&input).unwrap(), expected);

    // The shape's own rules hold on the Rust side too.
    let unknown = json!({ "kind": "point", "points": [], "extra": 1 });
    assert!(serde_json::from_value::<types::DrawGeometry>(unknown).is_err());
    let zero = json!({ "width": 0, "height": 1 });
    assert!(serde_json::from_value::<types::DrawCanvas>(zero).is_err());

    // Every shape's types are in `types`, named after the spec and the field path.
    let page: layout::Page =
        serde_json::from_value(json!({ "margin": { "top": 10, "unit": "mm" } })).unwrap();
    assert_eq!(page.margin.unit, Some(types::LayoutPageMarginUnit::Mm));
    let output = layout::Output {
        error: Some(types::LayoutError {
            code: types::LayoutErrorCode::Overflow,
            detail: None,
        }),
    };
    assert_eq!(
        serde_json::to_value(&output).unwrap(),
        json!({ "error": { "code": "overflow" } })
    );

    // `format`s typify knows map to toolspec's own types.
    let stamp =
        json!({ "at": "2026-12-01T10:00:00+01:00", "by": "67e55044-10b1-426f-9247-bb680e5fe0c8" });
    let parsed: crate::shapes::types::Stamp = serde_json::from_value(stamp.clone()).unwrap();
    assert_eq!(parsed.at.offset().local_minus_utc(), 3600);
    assert_eq!(
        parsed.by.to_string(),
        "67e55044-10b1-426f-9247-bb680e5fe0c8"
    );
    assert_eq!(parsed.day, None);
    assert_eq!(serde_json::to_value(&parsed).unwrap(), stamp);
}
