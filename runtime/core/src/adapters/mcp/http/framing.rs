//! How the transport reads a request's headers and writes its answers: `Accept` and
//! `Content-Type` as HTTP defines them, a header given once, and the SSE events of an answer
//! ([`Event`]: its data, id and `retry`), kept alive and ended at shutdown ([`Streams`]).

use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::{HeaderMap, HeaderName, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt as _};
use rmcp::model::ServerJsonRpcMessage;
use sse_stream::{KeepAlive, Sse, SseBody};
use tokio_util::sync::CancellationToken;

pub(super) const JSON: &str = "application/json";
/// The header that names a session.
pub(super) const SESSION_HEADER: &str = "mcp-session-id";
/// The header that names a protocol version.
pub(super) const VERSION_HEADER: &str = "mcp-protocol-version";
pub(super) const SSE: &str = "text/event-stream";

/// The media types `headers` accept (`Accept`, every value): each entry's essence, entries
/// weighted `q=0` left out.
fn accepted(headers: &HeaderMap) -> impl Iterator<Item = &str> {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| unquoted_split(value, ','))
        .filter_map(|entry| {
            let mut pieces = unquoted_split(entry, ';');
            let essence = pieces.next()?.trim();
            let refused = pieces.any(|parameter| {
                parameter.split_once('=').is_some_and(|(name, value)| {
                    name.trim().eq_ignore_ascii_case("q") && is_zero(value.trim())
                })
            });
            (!essence.is_empty() && !refused).then_some(essence)
        })
}

/// Whether a weight is zero (`0`, `0.`, `0.0`… up to three decimals).
fn is_zero(weight: &str) -> bool {
    match weight.split_once('.') {
        None => weight == "0",
        Some((whole, fraction)) => {
            whole == "0" && fraction.len() <= 3 && fraction.bytes().all(|b| b == b'0')
        }
    }
}

/// `text` split at `delimiter` where it is not inside a quoted string.
fn unquoted_split(text: &str, delimiter: char) -> impl Iterator<Item = &str> {
    let mut rest = Some(text);
    std::iter::from_fn(move || {
        let text = rest?;
        let (mut quoted, mut escaped) = (false, false);
        for (at, c) in text.char_indices() {
            match c {
                _ if escaped => escaped = false,
                '\\' if quoted => escaped = true,
                '"' => quoted = !quoted,
                c if c == delimiter && !quoted => {
                    rest = Some(&text[at + c.len_utf8()..]);
                    return Some(&text[..at]);
                }
                _ => {}
            }
        }
        rest = None;
        Some(text)
    })
}

/// Whether `headers` accept both JSON and SSE, as a `POST` must.
pub(super) fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let (mut json, mut sse) = (false, false);
    for essence in accepted(headers) {
        json |= essence.eq_ignore_ascii_case(JSON);
        sse |= essence.eq_ignore_ascii_case(SSE);
    }
    json && sse
}

/// Whether `headers` accept SSE, as a `GET` must.
pub(super) fn accepts_sse(headers: &HeaderMap) -> bool {
    accepted(headers).any(|essence| essence.eq_ignore_ascii_case(SSE))
}

/// Whether the (first) `Content-Type` is JSON, parameters aside.
pub(super) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split_once(';').map_or(value, |(essence, _)| essence);
            essence.trim().eq_ignore_ascii_case(JSON)
        })
}

/// The header `name`'s value when it is given exactly once, as text.
pub(super) fn sole<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    let mut values = headers.get_all(name).iter();
    let value = values.next()?;
    values.next().is_none().then_some(())?;
    value.to_str().ok()
}

/// One event of an SSE answer: its data (a message, serialized once; empty for an event that
/// only primes the stream), its id, its `retry`.
#[derive(Debug, Clone)]
pub(super) struct Event {
    pub(super) id: Option<String>,
    pub(super) data: Arc<str>,
    pub(super) retry: Option<Duration>,
}

impl Event {
    /// An event carrying `message`.
    pub(super) fn message(message: &ServerJsonRpcMessage) -> Self {
        let data = serde_json::to_string(message).unwrap_or_else(|e| {
            tracing::error!(error = %e, "a message could not be serialized");
            String::new()
        });
        Self::text(data)
    }

    /// An event carrying `data`, serialized already.
    pub(super) fn text(data: String) -> Self {
        Self {
            id: None,
            data: data.into(),
            retry: None,
        }
    }

    /// The event that opens a resumable stream: no data, and how long a client waits before
    /// it reconnects.
    pub(super) fn priming(retry: Duration) -> Self {
        Self {
            id: None,
            data: Arc::from(""),
            retry: Some(retry),
        }
    }
}

/// A whole answer as JSON, with `status`.
pub(super) fn json(status: StatusCode, body: Vec<u8>) -> Response {
    (status, [(header::CONTENT_TYPE, JSON)], body).into_response()
}

/// How SSE answers stream.
#[derive(Clone)]
pub(super) struct Streams {
    /// How often an idle stream is sent a keep-alive comment.
    pub(super) keep_alive: Option<Duration>,
    /// Ends every stream when the server shuts down.
    pub(super) shutdown: CancellationToken,
}

impl Streams {
    /// `events` as an SSE answer.
    pub(super) fn respond(&self, events: impl Stream<Item = Event> + Send + 'static) -> Response {
        let events = events
            .map(|event| {
                let mut sse = Sse::default().data(event.data.to_string());
                sse.id = event.id;
                sse.retry = event
                    .retry
                    .map(|retry| u64::try_from(retry.as_millis()).unwrap_or(u64::MAX));
                Ok::<_, Infallible>(sse)
            })
            .take_until(self.shutdown.clone().cancelled_owned());
        let body = match self.keep_alive {
            Some(interval) => axum::body::Body::new(
                SseBody::new(events)
                    .with_keep_alive::<TokioTimer>(KeepAlive::new().interval(interval)),
            ),
            None => axum::body::Body::new(SseBody::new(events)),
        };
        (
            [
                (header::CONTENT_TYPE, SSE),
                (header::CACHE_CONTROL, "no-cache"),
                (HeaderName::from_static("x-accel-buffering"), "no"),
            ],
            body,
        )
            .into_response()
    }
}

pin_project_lite::pin_project! {
    /// SSE keep-alive on tokio's clock.
    struct TokioTimer {
        #[pin]
        sleep: tokio::time::Sleep,
    }
}

impl Future for TokioTimer {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        self.project().sleep.poll(cx)
    }
}

impl sse_stream::Timer for TokioTimer {
    fn from_duration(duration: Duration) -> Self {
        Self {
            sleep: tokio::time::sleep(duration),
        }
    }

    fn reset(self: Pin<&mut Self>, when: std::time::Instant) {
        self.project()
            .sleep
            .reset(tokio::time::Instant::from_std(when));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepting(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(header::ACCEPT, value.parse().unwrap());
        }
        headers
    }

    #[test]
    fn accept_is_read_as_http_defines_it() {
        assert!(accepts_json_and_sse(&accepting(&[
            "application/json, text/event-stream"
        ])));
        assert!(accepts_json_and_sse(&accepting(&[
            "text/event-stream",
            "Application/JSON"
        ])));
        assert!(accepts_json_and_sse(&accepting(&[
            "application/json;q=0.5, text/event-stream; charset=\"a,b\""
        ])));
        assert!(!accepts_json_and_sse(&accepting(&[
            "application/json;q=0, text/event-stream"
        ])));
        assert!(!accepts_json_and_sse(&accepting(&[
            "application/json;q=0.000, text/event-stream"
        ])));
        assert!(accepts_json_and_sse(&accepting(&[
            "application/json;q=0.001, text/event-stream"
        ])));
        assert!(!accepts_json_and_sse(&accepting(&["application/json"])));
        assert!(!accepts_json_and_sse(&accepting(&["*/*"])));
        assert!(accepts_sse(&accepting(&["text/event-stream"])));
        assert!(!accepts_sse(&accepting(&["text/event-stream;q=0"])));
    }
}
