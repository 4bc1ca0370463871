//! Response bodies that carry a listing's prepared bytes between the text serialized around
//! them: a body of a few buffers ([`Chunks`]), and a session's SSE answer to `tools/list`
//! ([`ToolsInEvents`]).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;

use super::super::listing::{EMPTY_TOOLS_END, ToolsSlot};

/// A body of a few buffers, sent as they are, of a known length.
pub(super) struct Chunks(VecDeque<Bytes>);

impl From<Vec<Bytes>> for Chunks {
    fn from(chunks: Vec<Bytes>) -> Self {
        Self(chunks.into())
    }
}

impl http_body::Body for Chunks {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let chunk = self.get_mut().0.pop_front();
        Poll::Ready(chunk.map(|chunk| Ok(http_body::Frame::data(chunk))))
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_empty()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.0.iter().map(|chunk| chunk.len() as u64).sum())
    }
}

/// A session's SSE answer to `tools/list` (rmcp's, through its session worker), whose event
/// answering the list gets its tools from the slot the server filled: rmcp serialized the
/// event's data around an empty list, and the page's tools are sent inside it as the listing
/// prepared them. Every other event goes as it is.
pub(super) struct ToolsInEvents {
    events: axum::body::Body,
    slot: ToolsSlot,
    /// What is left of the list's event, once split.
    queued: VecDeque<Bytes>,
}

impl ToolsInEvents {
    pub(super) fn new(events: axum::body::Body, slot: ToolsSlot) -> Self {
        Self {
            events,
            slot,
            queued: VecDeque::new(),
        }
    }
}

impl http_body::Body for ToolsInEvents {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Self::Error>>> {
        let this = self.get_mut();
        if let Some(chunk) = this.queued.pop_front() {
            return Poll::Ready(Some(Ok(http_body::Frame::data(chunk))));
        }
        let frame = match ready!(Pin::new(&mut this.events).poll_frame(cx)) {
            Some(Ok(frame)) => frame,
            ended_or_failed => {
                if ended_or_failed.is_none() && this.slot.is_filled() {
                    // Only a change in how rmcp lays a result out gets here: the session
                    // tests would see the empty list.
                    tracing::error!("a session's tools/list was answered without its tools");
                }
                return Poll::Ready(ended_or_failed);
            }
        };
        let frame = match frame.into_data() {
            Ok(event) if this.slot.is_filled() => {
                this.queued.extend(spliced(&this.slot, event));
                http_body::Frame::data(this.queued.pop_front().unwrap_or_default())
            }
            Ok(event) => http_body::Frame::data(event),
            Err(frame) => frame,
        };
        Poll::Ready(Some(Ok(frame)))
    }

    fn is_end_stream(&self) -> bool {
        self.queued.is_empty() && self.events.is_end_stream()
    }
}

/// `event`, in buffers: with the tools from `slot` inside its data when its data is the list's
/// response (`data: {…"tools":[]}}` and a newline), else as it is.
fn spliced(slot: &ToolsSlot, event: Bytes) -> Vec<Bytes> {
    const DATA: &[u8] = b"data: ";
    let end = event
        .starts_with(DATA)
        .then(|| memchr::memchr(b'\n', &event))
        .flatten();
    let Some(end) = end.filter(|&end| event[..end].ends_with(EMPTY_TOOLS_END)) else {
        return vec![event];
    };
    tracing::debug!("a session's tools/list answered with the listing's prepared tools");
    let mut chunks = slot.splice(event[DATA.len()..end].to_vec()).into_chunks();
    if let Some(head) = chunks.first_mut() {
        *head = [DATA, head].concat().into();
    }
    // The event's other fields (its id) and its end.
    chunks.push(event.slice(end..));
    chunks
}
