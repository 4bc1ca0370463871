//! The floor: the same tool served over stdio by the least code that can speak MCP — a
//! blocking loop on stdin and stdout, `serde_json` and nothing else (no runtime, no tasks, no
//! schema validation). What a stdio server cannot go below on this machine.

use std::io::{BufRead, Write};

use serde::Deserialize;
use serde_json::{Value, json};

use crate::UNIT_PRICE;
use crate::macros::{Quote, QuoteRequest};

/// One JSON-RPC message from the client; only what the floor reads of it.
#[derive(Deserialize)]
struct Message {
    id: Option<Value>,
    method: Option<String>,
    #[serde(default)]
    params: Value,
}

/// `tools/call`'s parameters.
#[derive(Deserialize)]
struct Call {
    name: String,
    arguments: QuoteRequest,
}

/// Serves stdin and stdout until stdin ends.
pub fn serve() -> anyhow::Result<()> {
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lines() {
        let line = line?;
        let message: Message = serde_json::from_str(&line)?;
        let (Some(id), Some(method)) = (message.id, message.method) else {
            continue; // a notification or a response
        };
        let answer = match method.as_str() {
            "initialize" => Ok(json!({
                "protocolVersion": message.params["protocolVersion"],
                "capabilities": { "tools": {} },
                "serverInfo": { "name": "floor", "version": "0" },
            })),
            "tools/list" => Ok(json!({ "tools": [{
                "name": "catalog_quote",
                "description": "Price a quantity of one product in a currency.",
                "inputSchema": { "type": "object" },
            }]})),
            "tools/call" => call(message.params),
            "ping" => Ok(json!({})),
            _ => Err(json!({ "code": -32601, "message": format!("Method not found: {method}") })),
        };
        let response = match answer {
            Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error }),
        };
        serde_json::to_writer(&mut stdout, &response)?;
        stdout.write_all(b"\n")?;
        stdout.flush()?;
    }
    Ok(())
}

fn call(params: Value) -> Result<Value, Value> {
    let call: Call = serde_json::from_value(params)
        .map_err(|e| json!({ "code": -32602, "message": e.to_string() }))?;
    if call.name != "catalog_quote" {
        return Err(json!({ "code": -32602, "message": "Unknown tool" }));
    }
    let request = call.arguments;
    let quote = Quote {
        total: request.quantity * UNIT_PRICE,
        sku: request.sku,
        quantity: request.quantity,
        currency: request.currency,
    };
    let structured = serde_json::to_value(&quote).map_err(|e| json!(e.to_string()))?;
    Ok(json!({
        "content": [{ "type": "text", "text": structured.to_string() }],
        "structuredContent": structured,
    }))
}
