//! Serving an axum router on a TCP listener with every connection bounded: how many are open
//! at once, how long a request's head and body may take to arrive, and how long a connection
//! may sit idle while the server waits on the client. hyper serves each connection (HTTP/1.1);
//! nothing here parses HTTP.
//!
//! "Idle" means nothing moves while the server waits on the client: no request is being
//! handled, or a response is being written that the client does not read. A request the
//! server is still working on is not idle (the tool's own `timeout` bounds that).
//!
//! When every slot is taken and another client connects, the connection that has waited
//! longest on its client without a request in flight is closed to make room: connections
//! that send nothing (or trickle a request head) cannot keep new clients out, even before
//! their header timeout passes.
//!
//! Each request carries its peer's address (axum's `ConnectInfo<SocketAddr>`), for what a route
//! keys by peer (the HTTP API's `/docs` budget of callers without a token).
//!
//! Owns the connections only; what is served on them is the router it is given.

use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::response::Response;
use hyper_util::rt::{TokioIo, TokioTimer};
use pin_project_lite::pin_project;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// Bounds on the connections of an HTTP server. Every field has a default fit for a server
/// on the open internet; see [`ConnectionLimits::DEFAULT`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// The most connections served at once. When all are taken, a new client takes the slot
    /// of the connection that has waited longest on its client with no request in flight;
    /// when every one has a request in flight, it waits in the listen backlog. `None`: 1,024,
    /// or fewer when the process may open fewer files (its `RLIMIT_NOFILE`, less 32
    /// descriptors kept for everything else).
    pub max_connections: Option<usize>,
    /// How long a request's head may take to arrive, from the moment the connection waits
    /// for it (when it opens, or when the previous response ends): so also how long a
    /// kept-alive connection may wait for its next request.
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive in full, from its head.
    pub request_timeout: Duration,
    /// How long a connection may make no progress while the server waits on the client (no
    /// request being handled, or a response the client does not read).
    pub idle_timeout: Duration,
    /// How long a graceful shutdown waits for open connections to finish.
    pub shutdown_grace: Duration,
}

impl ConnectionLimits {
    /// The defaults: connections as the file limit allows (at most 1,024), 10 s for a
    /// request's head, 30 s for its body, 60 s idle, 10 s of grace at shutdown.
    pub const DEFAULT: Self = Self {
        max_connections: None,
        header_timeout: Duration::from_secs(10),
        request_timeout: Duration::from_secs(30),
        idle_timeout: Duration::from_secs(60),
        shutdown_grace: Duration::from_secs(10),
    };

    /// The connection cap in effect: [`max_connections`](Self::max_connections), or the
    /// default derived from the file limit.
    pub fn connection_cap(&self) -> usize {
        self.max_connections.unwrap_or_else(default_cap).max(1)
    }
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// How many connections by default: 1,024, or what the file limit leaves.
fn default_cap() -> usize {
    const CAP: usize = 1024;
    const RESERVED: usize = 32;
    match open_file_limit() {
        Some(limit) => CAP.min(limit.saturating_sub(RESERVED)),
        None => CAP,
    }
}

/// The process's soft `RLIMIT_NOFILE`, if it has one.
#[cfg(unix)]
fn open_file_limit() -> Option<usize> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes one `rlimit` through a valid, exclusive pointer.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0;
    (ok && limit.rlim_cur != libc::RLIM_INFINITY).then_some(limit.rlim_cur as usize)
}

#[cfg(not(unix))]
fn open_file_limit() -> Option<usize> {
    None
}

/// Serves `router` on `listener` until `shutdown` is cancelled, within `limits`, with
/// `TCP_NODELAY` on every connection; then waits up to the grace period for open
/// connections to finish.
pub(crate) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let slots = Arc::new(tokio::sync::Semaphore::new(limits.connection_cap()));
    let open = Arc::new(Open::default());
    let tracker = TaskTracker::new();
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = shutdown.cancelled() => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(e) => {
                // Out of descriptors, or a connection reset before it was accepted: wait a
                // moment rather than spin, and go on serving.
                tracing::debug!(error = %e, "accepting a connection failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let slot = match Arc::clone(&slots).try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                // Full: make room by closing the connection that waits longest on its client.
                open.evict_idlest();
                let slot = tokio::select! {
                    slot = Arc::clone(&slots).acquire_owned() => slot,
                    () = shutdown.cancelled() => break,
                };
                let Ok(slot) = slot else { break };
                slot
            }
        };
        if let Err(e) = stream.set_nodelay(true) {
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        let router = router.clone();
        let shutdown = shutdown.clone();
        let conn = open.add();
        let open = Arc::clone(&open);
        tracker.spawn(async move {
            connection(stream, peer, router, limits, shutdown, &conn).await;
            open.remove(&conn);
            drop(slot);
        });
    }
    tracker.close();
    if tokio::time::timeout(limits.shutdown_grace, tracker.wait())
        .await
        .is_err()
    {
        tracing::info!(
            open = tracker.len(),
            "connections still open after the shutdown grace period"
        );
    }
    Ok(())
}

/// Serves one connection until it ends, idles out or the server shuts down; each request
/// carries the peer's address as axum's `ConnectInfo`, as `axum::serve` gives it with
/// `into_make_service_with_connect_info`.
async fn connection(
    stream: TcpStream,
    peer: SocketAddr,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: CancellationToken,
    conn: &Arc<Conn>,
) {
    let io = TokioIo::new(Watched {
        inner: stream,
        conn: Arc::clone(conn),
    });
    let service = {
        let conn = Arc::clone(conn);
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let mut request =
                request.map(|body| Body::new(Deadline::new(body, limits.request_timeout)));
            request.extensions_mut().insert(ConnectInfo(peer));
            let busy = Busy::start(&conn);
            let response = tower::ServiceExt::oneshot(router.clone(), request);
            async move {
                let response: Response = match response.await {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                Ok::<_, std::convert::Infallible>(response.map(|body| {
                    Body::new(Tracked {
                        inner: body,
                        _busy: busy,
                    })
                }))
            }
        })
    };
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout)
        .keep_alive(true);
    let mut served = std::pin::pin!(builder.serve_connection(io, service).with_upgrades());
    let mut closing = false;
    loop {
        let check = tokio::time::sleep_until(conn.deadline(limits.idle_timeout).into());
        tokio::select! {
            result = served.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                return;
            }
            () = shutdown.cancelled(), if !closing => {
                served.as_mut().graceful_shutdown();
                closing = true;
            }
            () = conn.evicted.cancelled() => {
                tracing::debug!("closing a connection to make room for a new client");
                return;
            }
            () = check => {
                if conn.waiting_on_client() && conn.idle_for() >= limits.idle_timeout {
                    tracing::debug!("closing a connection idle for {:?}", limits.idle_timeout);
                    return;
                }
            }
        }
    }
}

/// The connections being served, so that a full server can make room.
#[derive(Debug, Default)]
struct Open {
    conns: std::sync::Mutex<Vec<Arc<Conn>>>,
}

impl Open {
    fn add(&self) -> Arc<Conn> {
        let conn = Arc::new(Conn::new());
        self.lock().push(Arc::clone(&conn));
        conn
    }

    fn remove(&self, conn: &Arc<Conn>) {
        self.lock().retain(|c| !Arc::ptr_eq(c, conn));
    }

    /// Closes the connection that has waited longest on its client (for a request, however
    /// slowly its bytes trickle in, or for a blocked write), if one does.
    fn evict_idlest(&self) {
        let conns = self.lock();
        let idlest = conns
            .iter()
            .filter(|c| c.waiting_on_client() && !c.evicted.is_cancelled())
            .max_by_key(|c| c.waiting_for());
        if let Some(conn) = idlest {
            conn.evicted.cancel();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One connection: when it last moved, whether a write waits on the client, how many of its
/// requests are in flight.
#[derive(Debug)]
struct Conn {
    opened: Instant,
    /// Milliseconds after `opened` of the last read or write.
    last: AtomicU64,
    /// Whether the last write attempt could not proceed.
    pending: AtomicU64,
    in_flight: AtomicUsize,
    /// Milliseconds after `opened` when the connection last started to wait for a request.
    waiting_since: AtomicU64,
    /// Cancelled to close the connection for a new client.
    evicted: CancellationToken,
}

impl Conn {
    fn new() -> Self {
        Self {
            opened: Instant::now(),
            last: AtomicU64::new(0),
            pending: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
            waiting_since: AtomicU64::new(0),
            evicted: CancellationToken::new(),
        }
    }

    fn now(&self) -> u64 {
        self.opened.elapsed().as_millis() as u64
    }

    /// How long the connection has waited on its client: for its next request, or since it
    /// opened.
    fn waiting_for(&self) -> u64 {
        self.now()
            .saturating_sub(self.waiting_since.load(Ordering::Acquire))
    }

    fn moved(&self) {
        self.last.store(self.now(), Ordering::Release);
    }

    fn idle_for(&self) -> Duration {
        let last = Duration::from_millis(self.last.load(Ordering::Acquire));
        self.opened.elapsed().saturating_sub(last)
    }

    /// When the connection will have been idle for `idle`, as things stand.
    fn deadline(&self, idle: Duration) -> Instant {
        let last = Duration::from_millis(self.last.load(Ordering::Acquire));
        self.opened + last + idle
    }

    /// Whether the server waits on the client: no request in flight, or a write blocked.
    fn waiting_on_client(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) == 0 || self.pending.load(Ordering::Acquire) != 0
    }

    fn note_write<T>(&self, polled: &Poll<T>) {
        match polled {
            Poll::Pending => self.pending.store(1, Ordering::Release),
            Poll::Ready(_) => {
                self.pending.store(0, Ordering::Release);
                self.moved();
            }
        }
    }
}

pin_project! {
    /// A stream that records its activity.
    struct Watched {
        #[pin]
        inner: TcpStream,
        conn: Arc<Conn>,
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = self.project();
        let before = buf.filled().len();
        let polled = this.inner.poll_read(cx, buf);
        if buf.filled().len() > before {
            this.conn.moved();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.project();
        let polled = this.inner.poll_write(cx, data);
        this.conn.note_write(&polled);
        polled
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.project().inner.poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.project().inner.poll_shutdown(cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let this = self.project();
        let polled = this.inner.poll_write_vectored(cx, bufs);
        this.conn.note_write(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// Counts a request in flight on its connection until its response body is done.
#[derive(Debug)]
struct Busy(Arc<Conn>);

impl Busy {
    fn start(conn: &Arc<Conn>) -> Self {
        conn.in_flight.fetch_add(1, Ordering::AcqRel);
        Self(Arc::clone(conn))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        let conn = &self.0;
        if conn.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            conn.waiting_since.store(conn.now(), Ordering::Release);
        }
    }
}

pin_project! {
    /// A response body that keeps its request counted until it is done or dropped.
    struct Tracked {
        #[pin]
        inner: Body,
        _busy: Busy,
    }
}

impl http_body::Body for Tracked {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        self.project().inner.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

pin_project! {
    /// A request body that fails once its deadline passes before it has arrived in full.
    struct Deadline {
        #[pin]
        inner: hyper::body::Incoming,
        #[pin]
        sleep: tokio::time::Sleep,
        limit: Duration,
    }
}

impl Deadline {
    fn new(inner: hyper::body::Incoming, limit: Duration) -> Self {
        Self {
            inner,
            sleep: tokio::time::sleep(limit),
            limit,
        }
    }
}

/// A request body that took too long.
#[derive(Debug)]
struct TooSlow(Duration);

impl std::fmt::Display for TooSlow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the request body did not arrive within {:?}", self.0)
    }
}

impl std::error::Error for TooSlow {}

impl http_body::Body for Deadline {
    type Data = axum::body::Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        let this = self.project();
        if let Poll::Ready(frame) = this.inner.poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(Into::into)));
        }
        match this.sleep.poll(cx) {
            Poll::Ready(()) => Poll::Ready(Some(Err(Box::new(TooSlow(*this.limit))))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_server_closes_the_connection_waiting_longest_on_its_client() {
        let open = Open::default();
        let busy = open.add();
        let oldest = open.add();
        let newest = open.add();
        let _request = Busy::start(&busy);
        oldest.waiting_since.store(0, Ordering::Release);
        std::thread::sleep(Duration::from_millis(5));
        newest.waiting_since.store(newest.now(), Ordering::Release);
        // `busy` has waited longest, but has a request in flight.
        busy.waiting_since.store(0, Ordering::Release);
        open.evict_idlest();
        assert!(oldest.evicted.is_cancelled());
        assert!(!newest.evicted.is_cancelled());
        assert!(!busy.evicted.is_cancelled());
        open.evict_idlest();
        assert!(newest.evicted.is_cancelled(), "then the next one");
        open.evict_idlest();
        assert!(
            !busy.evicted.is_cancelled(),
            "never one the server works for"
        );
    }

    #[test]
    fn a_blocked_write_is_waiting_on_the_client_even_with_a_request_in_flight() {
        let conn = Arc::new(Conn::new());
        let request = Busy::start(&conn);
        assert!(!conn.waiting_on_client());
        conn.note_write(&Poll::<()>::Pending);
        assert!(conn.waiting_on_client());
        conn.note_write(&Poll::Ready(()));
        assert!(!conn.waiting_on_client());
        drop(request);
        assert!(conn.waiting_on_client(), "no request in flight");
    }
}
