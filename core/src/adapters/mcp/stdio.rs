//! MCP over one byte stream each way (stdin/stdout, or any pair): newline-delimited JSON-RPC,
//! each line at most [`MAX_LINE_BYTES`], screened (by `wire`) before rmcp parses it.
//! A line that is too long, not JSON or not a valid message is answered with the JSON-RPC
//! error it deserves (rmcp's own stdio transport drops such lines silently), and the
//! session goes on.
//!
//! When stdin and stdout are both pipes (as when an MCP client starts the server), they are
//! read and written on the runtime's event loop; otherwise (a terminal, a file) through
//! tokio's stdio, which hands every read and write to a blocking thread.
//!
//! A `tools/list` request is given a [`ToolsSlot`]: the server hands its tools over as the
//! bytes prepared when the listing was built, and the writer puts them into the response
//! rmcp serialized around an empty list.
//!
//! A transport only: the server it feeds (`McpServer`) lists and calls; nothing here knows a
//! tool.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::RoleServer;
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, GetExtensions, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::transport::Transport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::listing::{Reply, ToolsSlot};
use super::wire::{self, INVALID_REQUEST, Rejection};
use crate::checks::limits::Limits;

/// The longest line read: as large as an HTTP request body may be by default (4 MiB).
pub const MAX_LINE_BYTES: usize = 4 << 20;

/// How many messages may wait between the reader and rmcp, or between rmcp and the writer.
const QUEUE: usize = 64;

/// The transport rmcp serves: messages from the reader task, lines to the writer task.
pub(crate) struct LineTransport {
    incoming: mpsc::Receiver<ClientJsonRpcMessage>,
    outgoing: mpsc::Sender<Reply>,
    listings: Listings,
}

/// The `tools/list` requests read and not yet answered, with the slots of their tools.
#[derive(Clone, Default)]
struct Listings(Arc<Mutex<HashMap<RequestId, ToolsSlot>>>);

impl Listings {
    /// Gives a `tools/list` request a slot for its tools; forgets one the client cancelled.
    fn note(&self, message: &mut ClientJsonRpcMessage) {
        match message {
            ClientJsonRpcMessage::Request(request)
                if matches!(request.request, ClientRequest::ListToolsRequest(_)) =>
            {
                let slot = ToolsSlot::default();
                request.request.extensions_mut().insert(slot.clone());
                self.lock().insert(request.id.clone(), slot);
            }
            ClientJsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.lock().remove(id);
                }
            }
            _ => {}
        }
    }

    /// The slot of the request `message` answers, if it was a `tools/list`.
    fn answered(&self, message: &ServerJsonRpcMessage) -> Option<ToolsSlot> {
        let id = match message {
            ServerJsonRpcMessage::Response(response) => &response.id,
            ServerJsonRpcMessage::Error(error) => error.id.as_ref()?,
            _ => return None,
        };
        let mut listings = self.lock();
        if listings.is_empty() {
            return None;
        }
        listings.remove(id)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RequestId, ToolsSlot>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Transport<RoleServer> for LineTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        message: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let outgoing = self.outgoing.clone();
        let slot = self.listings.answered(&message);
        async move {
            let line = serde_json::to_vec(&message)?;
            let line = match slot {
                Some(slot) => slot.splice(line),
                None => Reply::plain(line),
            };
            outgoing
                .send(line)
                .await
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.incoming.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.incoming.close();
        Ok(())
    }
}

/// Starts the reader and writer tasks on `input` and `output`; returns the transport and the
/// writer task (done once every line is written).
pub(crate) fn transport<R, W>(
    input: R,
    output: W,
    limits: Limits,
) -> (LineTransport, tokio::task::JoinHandle<()>)
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    let (to_rmcp, incoming) = mpsc::channel(QUEUE);
    let (outgoing, lines) = mpsc::channel(QUEUE);
    let listings = Listings::default();
    tokio::spawn(read(
        input,
        to_rmcp,
        outgoing.clone(),
        listings.clone(),
        limits,
    ));
    let writer = tokio::spawn(write(output, lines));
    let transport = LineTransport {
        incoming,
        outgoing,
        listings,
    };
    (transport, writer)
}

/// Reads lines until the input ends, handing good messages to rmcp and answering bad ones.
async fn read<R: AsyncRead + Unpin>(
    input: R,
    to_rmcp: mpsc::Sender<ClientJsonRpcMessage>,
    answers: mpsc::Sender<Reply>,
    listings: Listings,
    limits: Limits,
) {
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    loop {
        let read = match read_line(&mut input, &mut line, MAX_LINE_BYTES).await {
            Ok(read) => read,
            Err(e) => {
                tracing::debug!(error = %e, "reading the input failed");
                return;
            }
        };
        let rejection = match read {
            Line::End => return,
            Line::TooLong(length) => Some(Rejection::new(
                INVALID_REQUEST,
                format!(
                    "Invalid Request: the message is longer than {MAX_LINE_BYTES} bytes ({length} bytes)"
                ),
                None,
            )),
            Line::Read => {
                let text = trim(&line);
                if text.is_empty() {
                    continue;
                }
                match wire::screen(text, &limits).and_then(|()| parse(text)) {
                    Ok(mut message) => {
                        listings.note(&mut message);
                        if to_rmcp.send(message).await.is_err() {
                            return;
                        }
                        None
                    }
                    Err(rejection) => Some(rejection),
                }
            }
        };
        if let Some(rejection) = rejection {
            tracing::debug!(code = rejection.code, "refused an incoming message");
            if !rejection.is_silent() {
                let answer = Reply::plain(rejection.response().to_string().into_bytes());
                if answers.send(answer).await.is_err() {
                    return;
                }
            }
        }
    }
}

/// A screened line as rmcp's message, or the error a message that does not fit gets.
fn parse(text: &[u8]) -> Result<ClientJsonRpcMessage, Rejection> {
    serde_json::from_slice(text).map_err(|e| {
        let id = serde_json::from_slice::<Value>(text)
            .ok()
            .and_then(|v| v.get("id").cloned())
            .filter(|id| !id.is_null());
        let notification = id.is_none();
        Rejection {
            notification,
            ..Rejection::new(INVALID_REQUEST, format!("Invalid Request: {e}"), id)
        }
    })
}

/// A line without its `\r\n` or `\n` (and a leading byte-order mark).
fn trim(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

/// What one read gave.
enum Line {
    /// A line, in the buffer.
    Read,
    /// A line longer than the limit (its length), skipped whole.
    TooLong(usize),
    /// The end of the input.
    End,
}

/// Reads one line into `line` without ever holding more than `max` bytes of it.
async fn read_line<R: AsyncRead + Unpin>(
    input: &mut BufReader<R>,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Line> {
    line.clear();
    let mut skipped = 0usize;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(match (skipped, line.is_empty()) {
                (0, true) => Line::End,
                (0, false) => Line::Read,
                (n, _) => Line::TooLong(n),
            });
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let taken = chunk.len();
        if skipped > 0 || line.len() + taken > max {
            skipped += line.len() + taken;
            line.clear();
        } else {
            line.extend_from_slice(chunk);
        }
        input.consume(taken);
        if done {
            return Ok(if skipped > 0 {
                Line::TooLong(skipped)
            } else {
                Line::Read
            });
        }
    }
}

/// Writes every reply it is given, each followed by a newline, until every sender is gone.
async fn write<W: AsyncWrite + Unpin>(mut output: W, mut replies: mpsc::Receiver<Reply>) {
    while let Some(reply) = replies.recv().await {
        let line = reply.line();
        let mut written = Ok(());
        for chunk in line.chunks() {
            written = output.write_all(chunk).await;
            if written.is_err() {
                break;
            }
        }
        if let Err(e) = written.and(output.flush().await) {
            tracing::debug!(error = %e, "writing the output failed");
            return;
        }
    }
    let _ = output.shutdown().await;
}

/// Stdin and stdout as non-blocking pipes on the event loop, when both are pipes (checked
/// before either is switched to non-blocking mode, so that a fallback to tokio's stdio never
/// meets a non-blocking descriptor).
#[cfg(unix)]
pub(crate) fn pipes() -> Option<(
    tokio::net::unix::pipe::Receiver,
    tokio::net::unix::pipe::Sender,
)> {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    let input = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned().ok()?);
    let output = std::fs::File::from(std::io::stdout().as_fd().try_clone_to_owned().ok()?);
    let is_pipe = |file: &std::fs::File| file.metadata().is_ok_and(|m| m.file_type().is_fifo());
    if !(is_pipe(&input) && is_pipe(&output)) {
        return None;
    }
    widen(&output);
    let input = tokio::net::unix::pipe::Receiver::from_file(input).ok()?;
    let output = tokio::net::unix::pipe::Sender::from_file(output).ok()?;
    Some((input, output))
}

/// How large the output pipe's buffer is asked to be: Linux's default limit for an
/// unprivileged process (`/proc/sys/fs/pipe-max-size`), a large `tools/list` in a few writes
/// rather than one wake-up per 64 KiB.
#[cfg(target_os = "linux")]
const PIPE_BYTES: libc::c_int = 1 << 20;

/// Asks for a larger buffer on the output pipe (Linux); where that is refused, the pipe
/// keeps the one it has.
#[cfg(unix)]
fn widen(pipe: &std::fs::File) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: `F_SETPIPE_SZ` takes an int and changes only the pipe's capacity; the
        // descriptor is open for the duration of the call.
        let widened = unsafe { libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, PIPE_BYTES) };
        if widened < 0 {
            tracing::debug!(error = %std::io::Error::last_os_error(), "the output pipe kept its size");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = pipe;
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<String> {
        let mut reader = BufReader::with_capacity(4, input);
        let mut line = Vec::new();
        let mut out = Vec::new();
        loop {
            match read_line(&mut reader, &mut line, max).await.unwrap() {
                Line::End => return out,
                Line::Read => out.push(String::from_utf8_lossy(trim(&line)).into_owned()),
                Line::TooLong(n) => out.push(format!("too long: {n}")),
            }
        }
    }

    #[tokio::test]
    async fn lines_are_read_within_the_limit_and_long_ones_skipped_whole() {
        assert_eq!(lines(b"ab\r\ncd\n", 8).await, ["ab", "cd"]);
        assert_eq!(
            lines(b"short\n0123456789abcdef\nnext\n", 8).await,
            ["short", "too long: 17", "next"]
        );
        assert_eq!(
            lines(b"tail without newline", 64).await,
            ["tail without newline"]
        );
        assert_eq!(lines(b"0123456789", 4).await, ["too long: 10"]);
    }
}
