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
//! The transport has no task of its own: a line is read and screened when rmcp asks for the
//! next message, and an answer written by the task rmcp sends it from. Every request is
//! answered by rmcp's service loop, which calls the server.
//!
//! A `tools/list` request is given a `ToolsSlot`: the server hands its tools over as the
//! JSON prepared when the listing was built and answers rmcp with an empty list; the writer
//! serializes that response with the prepared tools in it (`listing::Page`).
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

use super::listing::{self, ToolsSlot};
use super::wire::{self, INVALID_REQUEST, Rejection};
use crate::model::limits::Limits;

/// The longest line read: as large as an HTTP request body may be by default (4 MiB).
#[doc(hidden)]
pub const MAX_LINE_BYTES: usize = 4 << 20;

/// The transport rmcp serves: it reads and screens the next line when rmcp asks for a message,
/// and writes each answer itself, one line at a time, in the task rmcp sends it from (no task
/// of its own in between: a call crosses fewer threads).
pub(crate) struct LineTransport<R, W> {
    input: LineReader<R>,
    output: Arc<tokio::sync::Mutex<W>>,
    /// The answers to refused lines being written.
    refusals: tokio::task::JoinSet<()>,
    limits: Limits,
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

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        message: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let output = Arc::clone(&self.output);
        let tools = self
            .listings
            .answered(&message)
            .and_then(|slot| slot.take());
        async move {
            let line = match tools {
                Some(tools) => listing::Page::line(&message, &tools)?,
                None => line_of(&message)?,
            };
            write_line(&output, &line).await
        }
    }

    /// The next message that passes screening; a line that does not is answered (in a task of
    /// its own, so that a receive rmcp drops never leaves half an answer written) and the next
    /// one read. Dropped at any point, it loses nothing: what it has read of a line is kept.
    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        loop {
            let read = match self.input.next_line(MAX_LINE_BYTES).await {
                Ok(read) => read,
                Err(e) => {
                    tracing::debug!(error = %e, "reading the input failed");
                    return None;
                }
            };
            let rejection = match read {
                Line::End => return None,
                Line::TooLong(length) => Rejection::new(
                    INVALID_REQUEST,
                    format!(
                        "Invalid Request: the message is longer than {MAX_LINE_BYTES} bytes ({length} bytes)"
                    ),
                    None,
                ),
                Line::Read => {
                    let text = trim(&self.input.line);
                    if text.is_empty() {
                        continue;
                    }
                    if let Err(rejection) = wire::screen(text, &self.limits) {
                        rejection
                    } else {
                        match parse(text) {
                            Ok(mut message) => {
                                self.listings.note(&mut message);
                                return Some(message);
                            }
                            Err(rejection) => rejection,
                        }
                    }
                }
            };
            tracing::debug!(code = rejection.code, "refused an incoming message");
            if !rejection.is_silent() {
                let mut answer = rejection.response().to_string().into_bytes();
                answer.push(b'\n');
                let output = Arc::clone(&self.output);
                while self.refusals.try_join_next().is_some() {}
                self.refusals.spawn(async move {
                    if let Err(e) = write_line(&output, &answer).await {
                        tracing::debug!(error = %e, "writing the output failed");
                    }
                });
            }
        }
    }

    /// Flushes and closes the output once every answer is written.
    async fn close(&mut self) -> Result<(), Self::Error> {
        while self.refusals.join_next().await.is_some() {}
        self.output.lock().await.shutdown().await
    }
}

/// The transport on `input` and `output`.
pub(crate) fn transport<R, W>(input: R, output: W, limits: Limits) -> LineTransport<R, W>
where
    R: AsyncRead + Send + Unpin + 'static,
    W: AsyncWrite + Send + Unpin + 'static,
{
    LineTransport {
        input: LineReader::new(input),
        output: Arc::new(tokio::sync::Mutex::new(output)),
        refusals: tokio::task::JoinSet::new(),
        limits,
        listings: Listings::default(),
    }
}

/// `message` serialized, and the newline that ends its line.
fn line_of(message: &ServerJsonRpcMessage) -> serde_json::Result<Vec<u8>> {
    let mut line = Vec::with_capacity(512);
    serde_json::to_writer(&mut line, message)?;
    line.push(b'\n');
    Ok(line)
}

/// Writes `line` whole, then flushes: lines never interleave.
async fn write_line<W: AsyncWrite + Unpin>(
    output: &tokio::sync::Mutex<W>,
    line: &[u8],
) -> std::io::Result<()> {
    let mut output = output.lock().await;
    output.write_all(line).await?;
    output.flush().await
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

/// Lines read from a byte stream, one at a time, within a limit: what it has read of a line
/// is kept in it, so a read dropped halfway loses nothing.
struct LineReader<R> {
    input: BufReader<R>,
    /// The line being read, or the last one read.
    line: Vec<u8>,
    /// How long the line being skipped (too long) is so far.
    skipped: usize,
    /// Whether `line` holds a whole line already returned.
    returned: bool,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(input: R) -> Self {
        Self {
            input: BufReader::new(input),
            line: Vec::new(),
            skipped: 0,
            returned: false,
        }
    }

    /// Reads the next line into `line` without ever holding more than `max` bytes of it.
    async fn next_line(&mut self, max: usize) -> std::io::Result<Line> {
        if std::mem::take(&mut self.returned) {
            self.line.clear();
            self.skipped = 0;
        }
        loop {
            // The only wait: until then every byte consumed is already in `line` or counted.
            let available = self.input.fill_buf().await?;
            if available.is_empty() {
                self.returned = true;
                return Ok(match (self.skipped, self.line.is_empty()) {
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
            if self.skipped > 0 || self.line.len() + taken > max {
                self.skipped += self.line.len() + taken;
                self.line.clear();
            } else {
                self.line.extend_from_slice(chunk);
            }
            self.input.consume(taken);
            if done {
                self.returned = true;
                return Ok(if self.skipped > 0 {
                    Line::TooLong(self.skipped)
                } else {
                    Line::Read
                });
            }
        }
    }
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
        let mut reader = LineReader {
            input: BufReader::with_capacity(4, input),
            ..LineReader::new(input)
        };
        let mut out = Vec::new();
        loop {
            match reader.next_line(max).await.unwrap() {
                Line::End => return out,
                Line::Read => out.push(String::from_utf8_lossy(trim(&reader.line)).into_owned()),
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

    #[tokio::test]
    async fn a_read_dropped_halfway_loses_nothing_of_its_line() {
        let (mut client, server) = tokio::io::duplex(64);
        let mut reader = LineReader::new(server);
        client.write_all(b"{\"half\":").await.unwrap();
        let waited = tokio::time::timeout(
            std::time::Duration::from_millis(20),
            reader.next_line(MAX_LINE_BYTES),
        )
        .await;
        assert!(waited.is_err(), "no whole line yet");
        client.write_all(b"true}\nnext\n").await.unwrap();
        assert!(matches!(
            reader.next_line(MAX_LINE_BYTES).await.unwrap(),
            Line::Read
        ));
        assert_eq!(trim(&reader.line), b"{\"half\":true}");
        assert!(matches!(
            reader.next_line(MAX_LINE_BYTES).await.unwrap(),
            Line::Read
        ));
        assert_eq!(trim(&reader.line), b"next");
        drop(client);
        assert!(matches!(
            reader.next_line(MAX_LINE_BYTES).await.unwrap(),
            Line::End
        ));
    }
}
