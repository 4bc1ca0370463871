//! The ids of a session's requests awaiting their answers. JSON-RPC pairs an answer with its
//! request by id, and the session and its rmcp service keep their bookkeeping by it: two
//! requests of one session with one id at once would have one answer go to the other's stream
//! (or be dropped), the other's stream and bookkeeping kept until the session closes. So a
//! request whose id is [taken](InFlight::take) already is refused before it reaches anything
//! that keeps it (a `-32600` error, [`duplicate`]); an id is free again once its request is
//! answered — reusing it then is valid JSON-RPC, and keeping every id a session ever used would
//! grow without bound.
//!
//! An id is held ([`Hold`]) by whatever still has its request: a call the session answers
//! itself until it answers (or, cancelled, until its handler stops); a request handed to the
//! session's rmcp service by its message, which the service keeps until the handler returns,
//! and by the session until its answer is written (or the client cancels it).
//!
//! Owns the ids only; the sessions take them and their requests let them go.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::RequestId;

/// `ids`, whether or not a panic poisoned them (an insert or a removal is never half-done).
fn lock(ids: &Mutex<HashSet<RequestId>>) -> MutexGuard<'_, HashSet<RequestId>> {
    ids.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The ids of one session's requests awaiting their answers.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    ids: Arc<Mutex<HashSet<RequestId>>>,
}

/// An id taken by a request awaiting its answer: free again once the last holder lets go.
pub(crate) type Hold = Arc<Taken>;

/// One taken id.
#[derive(Debug)]
pub(crate) struct Taken {
    ids: Arc<Mutex<HashSet<RequestId>>>,
    id: RequestId,
}

impl Drop for Taken {
    fn drop(&mut self) {
        lock(&self.ids).remove(&self.id);
    }
}

impl InFlight {
    /// Takes `id` for a request, unless another request of the session holds it.
    pub(super) fn take(&self, id: RequestId) -> Option<Hold> {
        if !lock(&self.ids).insert(id.clone()) {
            return None;
        }
        Some(Arc::new(Taken {
            ids: Arc::clone(&self.ids),
            id,
        }))
    }

    /// How many ids are taken.
    #[cfg(test)]
    fn len(&self) -> usize {
        lock(&self.ids).len()
    }
}

/// The `400` refusing a request whose id a request of its session awaiting its answer holds: a
/// JSON-RPC invalid request, with that id.
pub(super) fn duplicate(id: &RequestId) -> Response {
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32600,
            "message": "Invalid Request: this session already has a request with this id \
                        awaiting its answer; give each request of a session an id of its own",
        },
    });
    let json = HeaderValue::from_static("application/json");
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, json)],
        error.to_string(),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_taken_once_until_its_last_holder_lets_go() {
        let in_flight = InFlight::default();
        let first = in_flight.take(RequestId::Number(79)).expect("free");
        assert!(in_flight.take(RequestId::Number(79)).is_none(), "taken");
        let other = in_flight.take(RequestId::String("79".into()));
        assert!(other.is_some(), "another id");
        let second_holder = Arc::clone(&first);
        drop(first);
        assert!(
            in_flight.take(RequestId::Number(79)).is_none(),
            "still held"
        );
        drop((second_holder, other));
        assert_eq!(in_flight.len(), 0, "nothing is left behind");
        assert!(
            in_flight.take(RequestId::Number(79)).is_some(),
            "free again"
        );
    }
}
