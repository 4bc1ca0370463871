//! What a call asks its user (`confirm`, `ask`), over MCP. A client that declared the
//! elicitation capability is asked:
//!
//! - on protocol 2026-07-28 and later, with an `input_required` result — the requests as
//!   `elicitation/create` forms, and the sealed `requestState` — which it answers by calling
//!   the tool again with `inputResponses` and the state;
//! - on earlier protocols, with `elicitation/create` requests sent during the call, whose
//!   answers continue it at once (each waited for a bounded time, after which the question is
//!   withdrawn and counts as dismissed); an answer is read by the rule every continuation
//!   follows, and one that breaks it (an accepted `content` that is not an object) is an
//!   invalid-params error, as on 2026-07-28.
//!
//! A client without the capability gets a tool error saying that the tool needs a client that
//! can ask its user. A continuation whose state is refused (altered, expired, replayed, another
//! caller's) is a JSON-RPC invalid-params error: nothing ran.

use std::collections::BTreeMap;
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ElicitRequestParams, ErrorData, InputRequest,
    InputRequiredResult, ProtocolVersion,
};
use rmcp::service::{Peer, RequestContext};
use serde_json::{Map, Value, json};
use toolspec_vocab::codes;

use crate::model::failure::ToolResult;
use crate::model::user_input::{Continuation, InputRequired};

/// The most rounds of `elicitation/create` one call asks before it gives up.
pub(super) const MAX_ROUNDS: usize = 10;

/// How long a call waits by default for its client to answer one `elicitation/create` (see
/// [`McpServer::with_elicitation_timeout`](super::McpServer::with_elicitation_timeout)).
pub const ELICITATION_TIMEOUT: Duration = Duration::from_secs(120);

/// How a call's client can be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Asking {
    /// With an `input_required` result (2026-07-28).
    Result,
    /// With `elicitation/create` requests during the call (earlier protocols).
    Elicitation,
    /// Not at all: a 2026-07-28 client without the elicitation capability (the call is a
    /// missing-capability error, as that protocol wants it).
    Missing,
    /// Not at all: an earlier client without the elicitation capability (the call is a tool
    /// error saying so).
    Never,
}

/// How the client of `context` can be asked.
pub(super) fn asking(context: &RequestContext<RoleServer>) -> Asking {
    let elicits = context
        .client_capabilities()
        .is_some_and(|caps| caps.elicitation.is_some());
    let current = context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    match (elicits, current) {
        (false, true) => Asking::Missing,
        (false, false) => Asking::Never,
        (true, true) => Asking::Result,
        (true, false) => Asking::Elicitation,
    }
}

/// The continuation a `tools/call` brings: its `requestState` and `inputResponses` (without a
/// state, they can answer forms only); a response that is not one is an invalid-params error.
pub(super) fn continuation(
    request: &CallToolRequestParams,
) -> Result<Option<Continuation>, ErrorData> {
    if request.request_state.is_none() && request.input_responses.is_none() {
        return Ok(None);
    }
    let responses: Map<String, Value> = request
        .input_responses
        .iter()
        .flatten()
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    Continuation::from_json(request.request_state.clone(), &Value::Object(responses))
        .map(Some)
        .map_err(|e| ErrorData::invalid_params(format!("inputResponses: {e}"), None))
}

/// `input` as an `input_required` result: each request an `elicitation/create` form.
pub(super) fn result(input: &InputRequired) -> Result<InputRequiredResult, ErrorData> {
    let mut requests = BTreeMap::new();
    for request in &input.requests {
        let wire = json!({
            "method": "elicitation/create",
            "params": form(&request.message, &request.schema),
        });
        let request_json = serde_json::from_value::<InputRequest>(wire)
            .map_err(|e| ErrorData::internal_error(format!("an input request: {e}"), None))?;
        requests.insert(request.key.clone(), request_json);
    }
    Ok(InputRequiredResult::new(
        Some(requests),
        Some(input.request_state.clone()),
    ))
}

/// An `elicitation/create` form's parameters.
fn form(message: &str, schema: &Value) -> Value {
    json!({ "mode": "form", "message": message, "requestedSchema": schema })
}

/// Asks `peer` each of `input`'s requests with `elicitation/create`, in order, waiting for each
/// answer at most `wait`: the answers, as the continuation of the call, read by the rule every
/// continuation follows ([`Continuation::from_json`]: an accepted answer's `content` is an
/// object), so that an answer another path refuses is refused here too (invalid params, as a
/// 2026-07-28 retry's `inputResponses`). A request the client does not answer in time — it is
/// then told the request is cancelled — or fails to answer counts as dismissed (`cancel`).
pub(super) async fn elicit(
    peer: &Peer<RoleServer>,
    input: &InputRequired,
    wait: Duration,
) -> Result<Continuation, ErrorData> {
    let mut responses = Map::new();
    for request in &input.requests {
        let params =
            serde_json::from_value::<ElicitRequestParams>(form(&request.message, &request.schema));
        let answered = match params {
            Ok(params) => peer
                .create_elicitation_with_timeout(params, Some(wait))
                .await
                .map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let response = match answered {
            Ok(result) => serde_json::to_value(&result).unwrap_or(Value::Null),
            Err(e) => {
                tracing::info!(tool = %input.tool, error = %e, "a question went without an answer: it counts as dismissed");
                json!({ "action": "cancel" })
            }
        };
        // Only an accepted request lets the call go on: the others need not be asked.
        let stop = response["action"] != "accept";
        responses.insert(request.key.clone(), response);
        if stop {
            break;
        }
    }
    Continuation::from_json(Some(input.request_state.clone()), &Value::Object(responses))
        .map_err(|e| ErrorData::invalid_params(format!("elicitation/create answers: {e}"), None))
}

/// The error of a call whose 2026-07-28 client cannot be asked: the elicitation capability
/// is missing (`-32021`, the capability in `data`), and the message says so.
pub(super) fn elicitation_required() -> ErrorData {
    let required = ErrorData::missing_required_client_capability(
        ClientCapabilities::builder().enable_elicitation().build(),
    );
    let message = "This call asks its user first (a confirmation or a form): call it from a \
                   client that declares the `elicitation` capability; this client does not.";
    ErrorData::new(required.code, message, required.data)
}

/// The tool error of a call whose client cannot be asked.
pub(super) fn unanswerable(input: &InputRequired) -> ToolResult {
    input.refusal(
        "this client cannot ask its user (it did not declare the elicitation capability): use \
         a client that can",
    )
}

/// The JSON-RPC error of a continuation whose state was refused (nothing ran).
pub(super) fn refused_state(result: &ToolResult) -> Option<ErrorData> {
    let error = result.error()?;
    let refused = [codes::INVALID_REQUEST_STATE, codes::REQUEST_STATE_EXPIRED];
    refused.contains(&error.code.as_str()).then(|| {
        ErrorData::invalid_params(error.message.clone(), Some(json!({ "code": error.code })))
    })
}
