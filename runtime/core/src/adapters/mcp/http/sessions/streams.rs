//! A session's event streams. Each `POST` of a request opens one, the session's `GET` its
//! standalone stream (number 0); request streams are numbered from 1 within the session.
//! Every stream opens with a priming event (no data, the `retry` a client waits before it
//! reconnects), and its events are numbered `index/stream`. While a stream is open its last
//! [`KEPT_EVENTS`] events are kept for a client that lost it: a `GET` with `Last-Event-ID`
//! resumes it after the event named, and receives what follows as it comes. A request stream
//! ends with its answer (or its cancellation), and is let go then: a session keeps no more
//! than its open streams.
//!
//! Owns the numbering and the keeping; the session (`super`) decides what goes where. Lock
//! order: the session's state before a stream.

use std::collections::{HashMap, VecDeque};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::Stream;
use tokio::sync::mpsc;

use super::super::framing::Event;

/// How many of a stream's last events are kept for a client that resumes it.
pub(crate) const KEPT_EVENTS: usize = 64;

/// How long a client waits before it reconnects to a stream it lost (each stream's priming
/// event says it).
pub(crate) const RETRY: Duration = Duration::from_secs(3);

/// The standalone stream's number.
pub(super) const STANDALONE: u64 = 0;

/// `mutex`'s guard, whether or not a panic poisoned it (nothing it guards is left half-done).
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// One stream, shared by whatever writes to it.
pub(super) type Shared = Arc<Mutex<EventStream>>;

/// A session's open streams.
#[derive(Debug, Default)]
pub(super) struct SessionStreams {
    /// The number of the last request stream opened.
    next: u64,
    kept: HashMap<u64, Shared>,
}

impl SessionStreams {
    /// A new request stream, primed.
    pub(super) fn open(&mut self) -> Shared {
        self.next = self.next.saturating_add(1);
        self.open_numbered(self.next)
    }

    /// A new standalone stream, in place of the one before it (whose client is gone, or
    /// replaced by this one).
    pub(super) fn open_standalone(&mut self) -> Shared {
        if let Some(earlier) = self.kept.remove(&STANDALONE) {
            lock(&earlier).end();
        }
        self.open_numbered(STANDALONE)
    }

    fn open_numbered(&mut self, number: u64) -> Shared {
        let mut stream = EventStream {
            number,
            kept: VecDeque::new(),
            next_index: 0,
            sink: Sink::Held(Vec::new()),
            ended: false,
        };
        stream.write(Event::priming(RETRY));
        let shared = Arc::new(Mutex::new(stream));
        self.kept.insert(number, Arc::clone(&shared));
        shared
    }

    /// The standalone stream, if a client opened one.
    pub(super) fn standalone(&self) -> Option<&Shared> {
        self.kept.get(&STANDALONE)
    }

    /// Ends `stream` with `answer` (or, without one, unanswered) and lets it go.
    pub(super) fn end(&mut self, stream: &Shared, answer: Option<Event>) {
        let mut ending = lock(stream);
        if let Some(answer) = answer {
            ending.write(answer);
        }
        ending.end();
        self.kept.remove(&ending.number);
    }

    /// The stream `last_event_id` names, from the event after the one it names: `None` for a
    /// stream not open (never opened, or ended) or an event it no longer keeps.
    pub(super) fn resume(&self, last_event_id: &str) -> Option<Events> {
        let (index, number) = last_event_id.split_once('/')?;
        let (index, number) = (index.parse::<usize>().ok()?, number.parse::<u64>().ok()?);
        let stream = self.kept.get(&number)?;
        lock(stream).resume(index)
    }

    /// Ends every stream (the session is closing).
    pub(super) fn close(&mut self) {
        for (_, stream) in self.kept.drain() {
            lock(&stream).end();
        }
    }
}

/// One stream: its events numbered, the last of them kept; and where new ones go.
#[derive(Debug)]
pub(super) struct EventStream {
    number: u64,
    kept: VecDeque<Event>,
    next_index: usize,
    sink: Sink,
    /// Whether it has ended: no more events come.
    ended: bool,
}

/// Where a stream's new events go.
#[derive(Debug)]
enum Sink {
    /// Nowhere yet: its request is being answered where it was asked, before the stream is
    /// sent.
    Held(Vec<Event>),
    /// Down the stream the client reads.
    Sending(mpsc::UnboundedSender<Event>),
    /// Nowhere: it has ended.
    Ended,
}

impl EventStream {
    /// The stream's number.
    #[cfg(test)]
    fn number(&self) -> u64 {
        self.number
    }

    /// `event`, numbered, kept and sent (held events are kept once the stream is sent).
    pub(super) fn write(&mut self, mut event: Event) {
        if self.ended {
            return;
        }
        event.id = Some(format!("{}/{}", self.next_index, self.number));
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

    /// `event` kept for a client that resumes the stream, the oldest let go past
    /// [`KEPT_EVENTS`].
    fn keep(&mut self, event: Event) {
        if self.kept.len() >= KEPT_EVENTS {
            self.kept.pop_front();
        }
        self.kept.push_back(event);
    }

    /// No more events: the stream ends after those sent (those held go to whoever holds the
    /// request).
    fn end(&mut self) {
        self.ended = true;
        if let Sink::Sending(_) = self.sink {
            self.sink = Sink::Ended;
        }
    }

    /// The events written so far, all of them, when the stream is sent whole (its request
    /// answered at once: never resumed).
    pub(super) fn take_held(&mut self) -> Vec<Event> {
        match std::mem::replace(&mut self.sink, Sink::Ended) {
            Sink::Held(held) => held,
            other => {
                self.sink = other;
                Vec::new()
            }
        }
    }

    /// The events written while held, and from now on a channel for the rest.
    pub(super) fn send_from_now(&mut self) -> Events {
        let (to, from) = mpsc::unbounded_channel();
        if let Sink::Held(held) = std::mem::replace(&mut self.sink, Sink::Ended) {
            for event in held {
                let _ = to.send(event.clone());
                self.keep(event);
            }
        }
        if !self.ended {
            self.sink = Sink::Sending(to);
        }
        Events::Live(from)
    }

    /// The kept events after the one numbered `index`, and the rest as they come if the
    /// stream is still open; `None` when the events after it are no longer all kept.
    fn resume(&mut self, index: usize) -> Option<Events> {
        let first = self.next_index - self.kept.len();
        if index.saturating_add(1) < first || index >= self.next_index {
            return None;
        }
        let (to, from) = mpsc::unbounded_channel();
        for event in self.kept.iter().skip(index + 1 - first) {
            let _ = to.send(event.clone());
        }
        if !self.ended {
            // The client reads it here from now on: a stream it lost gets nothing more.
            self.sink = Sink::Sending(to);
        }
        Some(Events::Live(from))
    }
}

/// The events of a stream as a client reads them.
#[derive(Debug)]
pub(super) enum Events {
    /// All of them: its request was answered where it was asked.
    Ready(std::vec::IntoIter<Event>),
    /// Those written so far, then the rest until it ends.
    Live(mpsc::UnboundedReceiver<Event>),
}

impl Stream for Events {
    type Item = Event;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.get_mut() {
            Self::Ready(events) => Poll::Ready(events.next()),
            Self::Live(from) => from.poll_recv(cx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(n: usize) -> Event {
        Event::text(format!("{{\"n\":{n}}}"))
    }

    /// The event ids `events` holds now, and whether it has ended.
    fn drain(events: &mut Events) -> (Vec<String>, bool) {
        let Events::Live(from) = events else {
            panic!("a live stream");
        };
        let mut ids = Vec::new();
        loop {
            match from.try_recv() {
                Ok(event) => ids.push(event.id.unwrap_or_default()),
                Err(mpsc::error::TryRecvError::Empty) => return (ids, false),
                Err(mpsc::error::TryRecvError::Disconnected) => return (ids, true),
            }
        }
    }

    #[test]
    fn events_are_numbered_kept_and_resumed_after_the_one_named() {
        let mut streams = SessionStreams::default();
        let shared = streams.open();
        let number = lock(&shared).number();
        assert_eq!(number, 1, "request streams count from 1");
        let id = |index: usize| format!("{index}/{number}");
        // The priming event, held until the stream goes live; then four more.
        let mut live = lock(&shared).send_from_now();
        for n in 0..4 {
            lock(&shared).write(note(n));
        }
        assert_eq!(drain(&mut live), ((0..5).map(id).collect(), false));
        // Resumed after the event named; the stream is written there from now on.
        let mut resumed = streams.resume(&id(2)).expect("kept");
        assert_eq!(drain(&mut resumed).0, vec![id(3), id(4)]);
        assert!(streams.resume(&id(5)).is_none(), "never written");
        assert!(streams.resume("0/9").is_none(), "never opened");
        streams.end(&shared, Some(note(9)));
        assert_eq!(drain(&mut resumed), (vec![id(5)], true));
        assert!(lock(&shared).ended);
        lock(&shared).write(note(10));
        assert_eq!(
            lock(&shared).next_index,
            6,
            "nothing is written once it has ended"
        );
        assert!(
            streams.resume(&id(4)).is_none(),
            "an ended stream is let go"
        );
        assert_eq!(lock(&streams.open()).number(), 2);
    }

    #[test]
    fn only_the_last_events_are_kept() {
        let mut streams = SessionStreams::default();
        let shared = streams.open();
        let _live = lock(&shared).send_from_now();
        for n in 0..KEPT_EVENTS + 10 {
            lock(&shared).write(note(n));
        }
        assert!(streams.resume("0/1").is_none(), "its successors are gone");
        let last = KEPT_EVENTS + 10;
        assert!(streams.resume(&format!("{}/1", last - 3)).is_some());
    }

    #[test]
    fn a_new_standalone_stream_ends_the_one_before() {
        let mut streams = SessionStreams::default();
        let first = streams.open_standalone();
        let mut live = lock(&first).send_from_now();
        let _second = streams.open_standalone();
        assert_eq!(drain(&mut live), (vec!["0/0".to_owned()], true));
        assert!(streams.standalone().is_some());
    }
}
