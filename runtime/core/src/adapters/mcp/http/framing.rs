//! What rmcp's streamable HTTP transport does with a request and its answer, for the requests
//! answered beside it (`stateless`, `sessions`): the checks of a request's headers that are
//! sure to pass (`Accept`, `Content-Type`, a header given once), and its SSE answers — each
//! event's data, id and `retry` as rmcp writes them, kept alive and ended at shutdown as its
//! settings say ([`Streams`]).

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::http::{HeaderMap, HeaderName, header};
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt as _};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use sse_stream::{KeepAlive, Sse, SseBody};
use tokio_util::sync::CancellationToken;

pub(super) const JSON: &str = "application/json";
/// The header that names a session.
pub(super) const SESSION_HEADER: &str = "mcp-session-id";
pub(super) const SSE: &str = "text/event-stream";

/// Whether the `Accept` headers name both JSON and SSE, each entry a bare media type (one
/// with parameters, a weight say, is rmcp's to weigh).
pub(super) fn accepts_json_and_sse(headers: &HeaderMap) -> bool {
    let (mut json, mut sse) = (false, false);
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else {
            continue;
        };
        for entry in value.split(',') {
            if entry.contains([';', '"']) {
                return false;
            }
            let essence = entry.trim();
            json |= essence.eq_ignore_ascii_case(JSON);
            sse |= essence.eq_ignore_ascii_case(SSE);
        }
    }
    json && sse
}

/// Whether the (first) `Content-Type` is JSON, as rmcp reads it.
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

/// Whether `response`'s content is of the media type `essence`.
pub(super) fn is_of_type(response: &Response, essence: &str) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| value.starts_with(essence))
}

/// How SSE answers stream: rmcp's settings.
#[derive(Clone)]
pub(super) struct Streams {
    /// How often an idle stream is sent a keep-alive comment.
    pub(super) keep_alive: Option<Duration>,
    /// Ends every stream when the server shuts down.
    pub(super) shutdown: CancellationToken,
}

impl Streams {
    /// `events` as an SSE answer, each framed as rmcp frames it: its message as `data` (a
    /// priming event's empty), its id, its `retry` in milliseconds.
    pub(super) fn respond(
        &self,
        events: impl Stream<Item = ServerSseMessage> + Send + 'static,
    ) -> Response {
        let events = events
            .map(|event| {
                let data = match &event.message {
                    Some(message) => serde_json::to_string(message).unwrap_or_else(|e| {
                        tracing::error!(error = %e, "a message could not be serialized");
                        String::new()
                    }),
                    None => String::new(),
                };
                let mut sse = Sse::default().data(data);
                sse.id = event.event_id;
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
