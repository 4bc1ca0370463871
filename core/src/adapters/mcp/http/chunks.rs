//! A response body of a few buffers, sent as they are: a listing's prepared bytes between the
//! text serialized around them.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;

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
