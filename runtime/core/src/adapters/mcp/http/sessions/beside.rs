//! A session's plain `tools/call` requests answered beside its worker.
//!
//! rmcp's session worker serves a request by handing it, through channels, to the session's
//! service loop, which spawns a task for the handler and hands the answer back to the worker,
//! which numbers it and sends it down the request's stream: three hand-overs between tasks
//! for a call that takes microseconds. A request whose body is a plain `tools/call`
//! ([`direct::Plain`]: nothing in `_meta` but a progress token, no continuation), in a session
//! that finished initializing, whose tool needs nothing of rmcp's peer (no task, nothing to
//! ask), is answered here instead — in the request's own task, once the session guard has
//! made sure every check rmcp's transport would make of it passes, through the same pipeline,
//! as the same message ([`direct::answered`]).
//!
//! Its stream is the one the worker would have written: the priming event when rmcp sends one,
//! then the call's progress and its answer, each event numbered `index/stream` as the worker
//! numbers them, on stream numbers the worker never reaches (from 2^63; it counts from 0 in
//! each session). A client that loses the stream resumes it with `Last-Event-ID` as it would
//! the worker's: it gets the cached events from the one it names on (the worker's cache size)
//! while the call runs, and the call goes on writing to the resumed stream. As with the worker,
//! an answered stream is let go with its answer; a dropped stream does not cancel its call;
//! `notifications/cancelled` does, and ends its stream unanswered, kept as long as the worker
//! keeps a cancelled one; closing the session cancels every call still running. A call holds
//! its request's id (`in_flight`) until it has answered, or, cancelled, until its handler has
//! stopped: no other request of the session runs with that id meanwhile, so the calls running
//! here are kept by id without one displacing another.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures_util::Stream;
use rmcp::model::{RequestId, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::session::local::SessionConfig;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::adapters::mcp::McpServer;
use crate::adapters::mcp::direct::{self, Plain, Progress, Write};
use crate::model::caller::Caller;

use super::in_flight::Hold;

/// The first number of a stream answered here: far beyond the worker's, which count from 0.
const FIRST_STREAM: u64 = 1 << 63;

/// How streams are primed, cached and kept: the settings of rmcp's session worker.
#[derive(Debug, Clone, Copy)]
pub(super) struct Settings {
    /// The `retry` of the priming event each stream opens with, if it has one.
    retry: Option<Duration>,
    /// How many of a stream's last events are kept for a client that resumes it.
    capacity: usize,
    /// How long a stream's events are kept once its call was cancelled.
    keep: Duration,
}

impl From<&SessionConfig> for Settings {
    fn from(config: &SessionConfig) -> Self {
        Self {
            retry: config.sse_retry,
            capacity: config.channel_capacity.max(1),
            keep: config.completed_cache_ttl,
        }
    }
}

/// One session's calls answered here: the streams a client may still resume, and the calls
/// still running, by request id.
#[derive(Debug)]
pub(super) struct Beside {
    settings: Settings,
    next: u64,
    streams: HashMap<u64, Shared>,
    running: HashMap<RequestId, Running>,
    /// When streams cancelled long enough ago were last let go.
    swept: Instant,
}

#[derive(Debug)]
struct Running {
    cancellation: CancellationToken,
    replay: Shared,
}

type Shared = Arc<Mutex<Replay>>;

/// `mutex`'s guard, whether or not a panic poisoned it (nothing it guards is left half-done).
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Beside {
    pub(super) fn new(settings: Settings) -> Self {
        Self {
            settings,
            next: FIRST_STREAM,
            streams: HashMap::new(),
            running: HashMap::new(),
            swept: Instant::now(),
        }
    }

    /// A new stream, primed; cancelled calls' streams whose keep has run out are let go (at
    /// most once a second).
    fn open(&mut self) -> Replay {
        let now = Instant::now();
        if now.duration_since(self.swept) >= Duration::from_secs(1) {
            let keep = self.settings.keep;
            self.streams.retain(|_, replay| {
                lock(replay)
                    .ended_at
                    .is_none_or(|at| now.duration_since(at) < keep)
            });
            self.swept = now;
        }
        let stream = self.next;
        self.next = self.next.wrapping_add(1).max(FIRST_STREAM);
        let mut replay = Replay {
            stream,
            events: VecDeque::new(),
            capacity: self.settings.capacity,
            next_index: 0,
            sink: Sink::Held(Vec::new()),
            ended_at: None,
        };
        if let Some(retry) = self.settings.retry {
            replay.write(ServerSseMessage::retry(retry));
        }
        replay
    }

    /// Cancels the running call `id` answered here, if there is one, and ends its stream
    /// unanswered (kept a while for a client that resumes it, as the worker keeps it).
    pub(super) fn cancel(&mut self, id: &RequestId) {
        if let Some(running) = self.running.remove(id) {
            running.cancellation.cancel();
            lock(&running.replay).end();
        }
    }

    /// Cancels every call still running (the session is closing) and ends their streams.
    pub(super) fn close(&mut self) {
        for (_, running) in self.running.drain() {
            running.cancellation.cancel();
            lock(&running.replay).end();
        }
        self.streams.clear();
    }

    /// The stream `last_event_id` names from the event it names, if it is a stream answered
    /// here that is still kept — its call running, or cancelled a short while ago (`None`:
    /// the worker's, or one answered or let go, which the worker has no more than it keeps
    /// its own); `Err` for an event it no longer has.
    pub(super) fn resume(&self, last_event_id: &str) -> Option<Result<Events, ()>> {
        let (index, stream) = last_event_id.split_once('/')?;
        let (index, stream) = (index.parse::<usize>().ok()?, stream.parse::<u64>().ok()?);
        if stream < FIRST_STREAM {
            return None;
        }
        let replay = self.streams.get(&stream)?;
        Some(lock(replay).resume(index))
    }
}

/// A stream's events, numbered, the last of them kept for a client that resumes it; and where
/// new ones go.
#[derive(Debug)]
struct Replay {
    stream: u64,
    events: VecDeque<ServerSseMessage>,
    capacity: usize,
    next_index: usize,
    sink: Sink,
    /// When its call answered or was cancelled: no more events come.
    ended_at: Option<Instant>,
}

/// Where a stream's new events go.
#[derive(Debug)]
enum Sink {
    /// Nowhere yet: the call is being polled where it was asked, before its stream is sent.
    Held(Vec<ServerSseMessage>),
    /// Down the stream the client reads.
    Sending(mpsc::UnboundedSender<ServerSseMessage>),
    /// Nowhere: the call has answered.
    Ended,
}

impl Replay {
    /// `event`, numbered, kept and sent (held events are kept once their stream is sent:
    /// a call answered where it was asked is never resumed).
    fn write(&mut self, mut event: ServerSseMessage) {
        if self.ended_at.is_some() {
            return;
        }
        event.event_id = Some(format!("{}/{}", self.next_index, self.stream));
        self.next_index += 1;
        match &mut self.sink {
            Sink::Held(held) => held.push(event),
            Sink::Sending(to) => {
                // The client may have gone: the event is kept for when it resumes.
                let _ = to.send(event.clone());
                self.keep(event);
            }
            Sink::Ended => self.keep(event),
        }
    }

    /// `event` kept for a client that resumes the stream, the oldest let go past capacity.
    fn keep(&mut self, event: ServerSseMessage) {
        if self.events.len() >= self.capacity {
            self.events.pop_front();
        }
        self.events.push_back(event);
    }

    /// The call's answer, its stream's last event.
    fn answer(&mut self, message: ServerJsonRpcMessage) {
        self.write(ServerSseMessage::from_message(message));
        self.end();
    }

    /// No more events: the stream ends after those sent (those held are sent by whoever
    /// holds the call).
    fn end(&mut self) {
        self.ended_at.get_or_insert_with(Instant::now);
        if let Sink::Sending(_) = self.sink {
            self.sink = Sink::Ended;
        }
    }

    /// The events written while the call was polled where it was asked, and from now on a
    /// channel for the rest.
    fn send_from_now(&mut self) -> mpsc::UnboundedReceiver<ServerSseMessage> {
        let (to, from) = mpsc::unbounded_channel();
        if let Sink::Held(held) = std::mem::replace(&mut self.sink, Sink::Ended) {
            for event in held {
                let _ = to.send(event.clone());
                self.keep(event);
            }
        }
        if self.ended_at.is_none() {
            self.sink = Sink::Sending(to);
        }
        from
    }

    /// The kept events from the one numbered `index` on, as rmcp's worker replays them, and
    /// the rest as they come if the call is still running.
    fn resume(&mut self, index: usize) -> Result<Events, ()> {
        let first = self.next_index - self.events.len();
        let skip = index.saturating_sub(first);
        if skip > self.events.len() {
            return Err(());
        }
        let (to, from) = mpsc::unbounded_channel();
        for event in self.events.iter().skip(skip) {
            let _ = to.send(event.clone());
        }
        if self.ended_at.is_none() {
            self.sink = Sink::Sending(to);
        }
        Ok(Events::Live(from))
    }
}

/// The events of a stream answered here.
#[derive(Debug)]
pub(super) enum Events {
    /// All of them: the call answered where it was asked.
    Ready(std::vec::IntoIter<ServerSseMessage>),
    /// Those written so far and then the rest, until the call answers.
    Live(mpsc::UnboundedReceiver<ServerSseMessage>),
}

impl Stream for Events {
    type Item = ServerSseMessage;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.get_mut() {
            Self::Ready(events) => Poll::Ready(events.next()),
            Self::Live(from) => from.poll_recv(cx),
        }
    }
}

/// The call `plain` by `caller` in the session `beside` keeps (of a protocol before
/// 2026-07-28, as every session is), run through `server`'s pipeline: polled here once, its
/// stream whole when it answers at once (every check done, no I/O to wait for); else spawned,
/// its stream fed as it goes. Cancelled with `shutdown` too. Its id is held (`hold`) until it
/// has answered or, cancelled, its handler has stopped.
pub(super) async fn answer(
    beside: &Arc<Mutex<Beside>>,
    server: &McpServer,
    plain: Plain,
    caller: Arc<Caller>,
    (shutdown, hold): (&CancellationToken, Hold),
) -> Events {
    let opened = lock(beside).open();
    let stream = opened.stream;
    let replay = Arc::new(Mutex::new(opened));
    let cancellation = shutdown.child_token();
    let progress = plain.progress_token.map(|token| Progress {
        token,
        write: writer(&replay),
    });
    let id = plain.id;
    let called = server
        .clone()
        .call_plain(plain.params, caller, cancellation.clone(), progress);
    let mut answering = Box::pin(direct::answered(id.clone(), called, false));
    let polled = std::future::poll_fn(|cx| Poll::Ready(answering.as_mut().poll(cx))).await;
    if let Poll::Ready(message) = polled {
        let mut replay = lock(&replay);
        replay.answer(message);
        // Held until now: a stream is sent only once its call waits.
        let held = match std::mem::replace(&mut replay.sink, Sink::Ended) {
            Sink::Held(held) => held,
            Sink::Sending(_) | Sink::Ended => Vec::new(),
        };
        return Events::Ready(held.into_iter());
    }
    // Resumable while it runs.
    {
        let mut kept = lock(beside);
        kept.streams.insert(stream, Arc::clone(&replay));
        kept.running.insert(
            id.clone(),
            Running {
                cancellation,
                replay: Arc::clone(&replay),
            },
        );
    }
    let from = lock(&replay).send_from_now();
    let beside = Arc::clone(beside);
    tokio::spawn(async move {
        let message = answering.await;
        // Its handler has stopped: whatever comes next, the id is the session's again.
        let _hold = hold;
        // A call the client cancelled (or whose session closed) is not answered; one that
        // answers is no longer resumable, as the worker's.
        let answers = {
            let mut kept = lock(&beside);
            let answers = kept.running.remove(&id).is_some();
            if answers {
                kept.streams.remove(&stream);
            }
            answers
        };
        if answers {
            lock(&replay).answer(message);
        }
    });
    Events::Live(from)
}

/// Writes a call's progress notifications into its stream.
fn writer(replay: &Shared) -> Write {
    let replay = Arc::clone(replay);
    Arc::new(move |message| {
        lock(&replay).write(ServerSseMessage::from_message(message));
        Box::pin(std::future::ready(()))
    })
}

#[cfg(test)]
mod tests {
    use rmcp::model::{CustomNotification, ServerNotification};

    use super::*;

    fn note(n: usize) -> ServerSseMessage {
        let notification = CustomNotification::new(format!("note/{n}"), None);
        ServerSseMessage::from_message(ServerJsonRpcMessage::notification(
            ServerNotification::CustomNotification(notification),
        ))
    }

    /// The event ids `from` holds now, and whether it has ended.
    fn drain(from: &mut mpsc::UnboundedReceiver<ServerSseMessage>) -> (Vec<String>, bool) {
        let mut ids = Vec::new();
        loop {
            match from.try_recv() {
                Ok(event) => ids.push(event.event_id.unwrap_or_default()),
                Err(mpsc::error::TryRecvError::Empty) => return (ids, false),
                Err(mpsc::error::TryRecvError::Disconnected) => return (ids, true),
            }
        }
    }

    fn live(events: Result<Events, ()>) -> mpsc::UnboundedReceiver<ServerSseMessage> {
        match events {
            Ok(Events::Live(from)) => from,
            other => panic!("a live stream: {other:?}"),
        }
    }

    #[test]
    fn events_are_numbered_kept_and_resumed_as_the_worker_does_it() {
        let mut beside = Beside::new(Settings {
            retry: Some(Duration::from_secs(3)),
            capacity: 3,
            keep: Duration::from_secs(60),
        });
        let mut replay = beside.open();
        let stream = replay.stream;
        assert_eq!(stream, FIRST_STREAM);
        let id = |index: usize| format!("{index}/{stream}");
        // The priming event, held until the stream goes live; then four more.
        let mut from = replay.send_from_now();
        for n in 0..4 {
            replay.write(note(n));
        }
        assert_eq!(drain(&mut from), ((0..5).map(id).collect(), false));
        // Three are kept: resumed from the one named on (as the worker's `sync`), from the
        // oldest kept for an index before it, refused for one never written.
        assert_eq!(drain(&mut live(replay.resume(3))).0, vec![id(3), id(4)]);
        assert_eq!(
            drain(&mut live(replay.resume(0))).0,
            vec![id(2), id(3), id(4)]
        );
        assert!(replay.resume(9).is_err());
        // The resumed stream is the one written to from now on, and ends with the call.
        let mut resumed = live(replay.resume(5));
        replay.answer(ServerJsonRpcMessage::notification(
            ServerNotification::CustomNotification(CustomNotification::new("done", None)),
        ));
        assert_eq!(drain(&mut resumed), (vec![id(5)], true));
        assert!(replay.ended_at.is_some());
        replay.write(note(9));
        assert_eq!(replay.next_index, 6, "nothing is written once it has ended");
        // The next stream has the next number; the worker's numbers are left alone.
        assert_eq!(beside.open().stream, stream + 1);
        assert!(beside.resume(&format!("0/{}", FIRST_STREAM - 1)).is_none());
    }
}
