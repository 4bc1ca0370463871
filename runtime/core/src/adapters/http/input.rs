//! Round trips over the HTTP API: a call that needs its user's answers (`confirm`, `ask`)
//! answers `428` with an `input_required` error whose details hold the requests and the sealed
//! `request_state`; `POST /tools/{name}/continue` answers them with
//! `{"arguments": …, "request_state": …, "responses": {key: {"action": …, "content": …}}}` —
//! the arguments as first sent (the state is bound to them). Without the state, only forms can
//! be answered: a confirmation needs the state of the round that asked it.

use axum::response::Response;
use serde_json::Value;
use toolspec_vocab::codes;

use crate::adapters::gate::failure::failure;
use crate::model::user_input::Continuation;
use axum::http::StatusCode;

/// The keys of a continuation's body.
const KEYS: [&str; 3] = ["arguments", "request_state", "responses"];

/// A continuation's arguments and answers, or the `422` refusing its body.
pub(super) fn read(body: Value) -> Result<(Value, Continuation), Box<Response>> {
    let refuse = |message: String| {
        Box::new(failure(
            StatusCode::UNPROCESSABLE_ENTITY,
            codes::INVALID_ARGUMENTS,
            &message,
        ))
    };
    let Value::Object(mut body) = body else {
        return Err(refuse("The body must be a JSON object.".into()));
    };
    if let Some(unknown) = body.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(refuse(format!(
            "Unknown key `{unknown}`: a continuation has `arguments`, `request_state` and `responses`."
        )));
    }
    let arguments = match body.remove("arguments") {
        None => Value::Object(Default::default()),
        Some(arguments @ Value::Object(_)) => arguments,
        Some(_) => return Err(refuse("`arguments` must be an object.".into())),
    };
    let state = match body.remove("request_state") {
        Some(Value::String(state)) => Some(state),
        None | Some(Value::Null) => None,
        Some(_) => return Err(refuse("`request_state` must be a string.".into())),
    };
    let responses = body.remove("responses").unwrap_or(Value::Null);
    let continuation = Continuation::from_json(state, &responses)
        .map_err(|e| refuse(format!("`responses`: {e}.")))?;
    Ok((arguments, continuation))
}
