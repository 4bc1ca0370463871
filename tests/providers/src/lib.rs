//! A crate that adopts toolspec to exercise the function-calling adapters (`openai`,
//! `anthropic`, `gemini`): tools in `specs/` (OpenAI strict by default), handlers here, and a
//! hook that records what reached the invoker, so the tests can check both the native answer
//! and the arguments the adapter passed on.
//!
//! The tests dispatch recorded native tool calls (`fixtures/<provider>/*.json`, whole API
//! responses) and compare the native answers with exact JSON.

use std::sync::{Arc, Mutex};

use serde_json::Value;
use toolspec::{AmbientContext, CallInfo, Caller, Hook};

toolspec::include_tools!();

use tools::{admin, catalog, math, orders, status};

/// One call as it reached the registry.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    /// The canonical tool name.
    pub tool: String,
    /// The adapter the call came through.
    pub adapter: Option<String>,
    /// The caller's id.
    pub caller: Option<String>,
    /// The arguments the adapter handed to the invoker.
    pub arguments: Value,
    /// Whether it was explained rather than made (the explain tool's target).
    pub explaining: bool,
}

/// Records every call that reaches the registry.
#[derive(Debug, Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<Seen>>>);

impl Recorder {
    /// The calls seen so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Each call seen as `tool arguments`, with the arguments as compact JSON (`explained
    /// tool arguments` for an explanation).
    pub fn calls(&self) -> Vec<String> {
        self.seen()
            .iter()
            .map(|seen| {
                let explained = if seen.explaining { "explained " } else { "" };
                format!("{explained}{} {}", seen.tool, seen.arguments)
            })
            .collect()
    }
}

impl Hook for Recorder {
    fn before(&self, call: &CallInfo<'_>) -> Result<(), toolspec::ToolError> {
        let seen = Seen {
            tool: call.tool.name.to_string(),
            adapter: call.adapter.map(str::to_owned),
            caller: call.caller.map(str::to_owned),
            arguments: call.arguments.clone(),
            explaining: call.explaining,
        };
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(seen);
        Ok(())
    }
}

/// Every schema node below `schema` (itself included) that `properties`, `items`,
/// `additionalProperties`, `anyOf`, `oneOf`, `allOf` and `$defs` reach, for checking a
/// dialect's rules on every node.
pub fn schema_nodes(schema: &Value) -> Vec<&serde_json::Map<String, Value>> {
    let mut out = Vec::new();
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        let Some(map) = node.as_object() else {
            continue;
        };
        out.push(map);
        for keyword in ["properties", "$defs"] {
            if let Some(children) = map.get(keyword).and_then(Value::as_object) {
                stack.extend(children.values());
            }
        }
        for keyword in ["items", "additionalProperties"] {
            if let Some(child) = map.get(keyword) {
                stack.push(child);
            }
        }
        for keyword in ["anyOf", "oneOf", "allOf"] {
            if let Some(branches) = map.get(keyword).and_then(Value::as_array) {
                stack.extend(branches);
            }
        }
    }
    out
}

/// The app: every tool's handler.
#[derive(Debug, Clone, Default)]
pub struct App;

/// The registry of `specs/` with a recorder of the calls that reach it.
pub fn registry() -> (toolspec::Registry, Recorder) {
    let recorder = Recorder::default();
    let registry = tools::registry(App).with_hook(recorder.clone());
    (registry, recorder)
}

/// Customer 7, who may read and write orders (not purge caches).
pub fn customer() -> Caller {
    Caller::new("customer-7")
        .with_ambient(AmbientContext::new().with("customer_id", 7))
        .with_scopes(["orders:read", "orders:write"])
}

/// A trusted local caller: every scope, customer 1.
pub fn operator() -> Caller {
    Caller::new("operator").with_ambient(AmbientContext::new().with("customer_id", 1))
}

impl orders::get::Handler for App {
    /// Order 404 does not exist; every other order is the caller's and pending.
    async fn call(
        &self,
        input: orders::get::Input,
        cx: orders::get::Context<'_>,
    ) -> orders::get::Outcome {
        if input.order_id == 404 {
            Err(orders::get::Error::NotFound)?;
        }
        Ok(orders::get::Output {
            order_id: input.order_id,
            customer_id: cx.ambient().customer_id,
            status: "pending".into(),
        })
    }
}

impl orders::cancel::Handler for App {
    /// Order 2 has shipped (with details), order 3 has shipped (without); others cancel.
    async fn call(
        &self,
        input: orders::cancel::Input,
        _cx: orders::cancel::Context<'_>,
    ) -> orders::cancel::Outcome {
        use orders::cancel::Error;
        match input.order_id {
            2 => Err(toolspec::Failure::declared(Error::AlreadyShipped)
                .with_details(serde_json::json!({ "shipped_on": "2026-03-01" }))),
            3 => Err(toolspec::Failure::internal("the carrier API timed out")),
            id => Ok(orders::cancel::Output {
                order_id: id,
                status: "cancelled".into(),
            }),
        }
    }

    /// Order 13 is locked.
    async fn not_locked(
        &self,
        input: &orders::cancel::Input,
        _cx: &orders::cancel::Context<'_>,
    ) -> bool {
        input.order_id != 13
    }
}

impl catalog::search::Handler for App {
    async fn call(
        &self,
        input: catalog::search::Input,
        _cx: catalog::search::Context<'_>,
    ) -> catalog::search::Outcome {
        Ok(catalog::search::Output {
            query: input.query,
            lines: input.lines.map_or(0, |lines| lines.len() as i64),
            city: input.ship_to.map(|address| address.city),
        })
    }
}

impl math::round::Handler for App {
    async fn call(
        &self,
        input: math::round::Input,
        _cx: math::round::Context<'_>,
    ) -> math::round::Outcome {
        let scale = 10f64.powi(input.digits as i32);
        let scaled = input.value * scale;
        let rounded = if input.half_up {
            scaled.round()
        } else {
            scaled.floor()
        };
        Ok(math::round::Output {
            rounded: rounded / scale,
            digits: input.digits,
        })
    }
}

impl admin::purge::Handler for App {
    async fn call(
        &self,
        input: admin::purge::Input,
        _cx: admin::purge::Context<'_>,
    ) -> admin::purge::Outcome {
        Ok(admin::purge::Output {
            purged: input.older_than_days * 10,
        })
    }
}

impl status::ping::Handler for App {
    async fn call(
        &self,
        _input: status::ping::Input,
        _cx: status::ping::Context<'_>,
    ) -> status::ping::Outcome {
        Ok(status::ping::Output { ok: true })
    }
}

impl math::mode::Handler for App {
    async fn call(
        &self,
        input: math::mode::Input,
        _cx: math::mode::Context<'_>,
    ) -> math::mode::Outcome {
        Ok(math::mode::Output {
            mode: input.mode,
            flags: input.flags,
        })
    }
}
