//! Supervising the guards and the handler: they run until they finish, the client cancels the
//! call or the tool's timeout passes; what a stopped run answers ([`Stop`]).

use std::future::Future;
use std::task::Poll;
use std::time::Duration;

use futures_util::FutureExt;
use tokio_util::sync::CancellationToken;

use crate::model::descriptor::Descriptor;
use crate::model::failure::{ToolError, ToolResult};

/// How a supervised run was stopped.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stop {
    /// The client cancelled the call.
    Cancelled,
    /// The tool's timeout passed.
    TimedOut(Duration),
}

impl Stop {
    pub(crate) fn result(self, tool: &Descriptor) -> ToolResult {
        match self {
            Self::Cancelled => ToolResult::failed(
                ToolError::cancelled(),
                Some("cancelled by the client".into()),
            ),
            Self::TimedOut(timeout) => {
                let reason = format!(
                    "The call did not finish within {}.",
                    toolspec_vocab::duration::words(timeout)
                );
                let error = ToolError::timeout(tool.error_headline.as_deref(), &reason);
                ToolResult::failed(error, Some(format!("timed out after {timeout:?}")))
            }
        }
    }
}

/// Runs `work` until it finishes, `cancellation` is cancelled or `limit` passes. A
/// call cancelled before it starts never polls `work`. When stopped, `token` (the token of
/// its own `work` sees, if not `cancellation` itself) is cancelled and `work` polled once
/// more, so that it can see that (and clean up) before it is dropped.
///
/// `work` is pinned by the caller: taken by value, it would be stored twice in this future.
pub(crate) async fn supervise<F: Future>(
    limit: Option<Duration>,
    cancellation: &CancellationToken,
    token: Option<&CancellationToken>,
    mut work: std::pin::Pin<&mut F>,
) -> Result<F::Output, Stop> {
    if cancellation.is_cancelled() {
        return Err(Stop::Cancelled);
    }
    if limit.is_none() {
        // Most work is done in its first poll: then there is nothing to wait for.
        let first = std::future::poll_fn(|cx| Poll::Ready(work.as_mut().poll(cx))).await;
        if let Poll::Ready(output) = first {
            return Ok(output);
        }
    }
    // Only a tool with a `timeout` needs the tokio time driver; its timer is boxed, so that
    // the (boxed) futures of the others stay small.
    let deadline = async {
        match limit {
            Some(limit) => {
                Box::pin(tokio::time::sleep(limit)).await;
                limit
            }
            None => std::future::pending().await,
        }
    };
    let stop = tokio::select! {
        biased;
        _ = cancellation.cancelled() => Stop::Cancelled,
        output = work.as_mut() => return Ok(output),
        limit = deadline => Stop::TimedOut(limit),
    };
    if let Some(token) = token {
        token.cancel();
    }
    let _ = work.as_mut().now_or_never();
    Err(stop)
}
