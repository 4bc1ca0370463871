//! What a handler gets besides its input: the resolved ambient fields, the tool's descriptor,
//! a cancellation token, a progress reporter and the registry's clock.
//!
//! The tool's `timeout` and a client's cancellation stop a handler at its next `.await`: a
//! handler that blocks its thread (a synchronous database driver, a long computation) is not
//! stopped by either, and holds a runtime worker meanwhile. Run such work on tokio's blocking
//! pool, where the timeout still ends the call (the work itself runs to its end):
//!
//! ```ignore
//! async fn call(&self, input: Input, cx: Context<'_>) -> Outcome {
//!     let report = tokio::task::spawn_blocking(move || render_report(&input)).await?;
//!     Ok(Output { report })
//! }
//! ```
//!
//! Handed to handlers by the pipeline; nothing here validates, calls a tool or knows an adapter.

use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::model::clock::Clock;
use crate::model::descriptor::SharedDescriptor;

/// One progress report from a handler.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressUpdate {
    /// Work done, as a fraction in `0.0..=1.0`.
    pub fraction: f64,
    /// What the handler is doing now.
    pub message: String,
}

/// Where progress reports go: the transport's progress channel, or nowhere.
#[derive(Clone, Default)]
pub struct Progress {
    sink: Option<Arc<dyn Fn(ProgressUpdate) + Send + Sync>>,
}

impl Progress {
    /// Reports to `sink`.
    pub fn new(sink: impl Fn(ProgressUpdate) + Send + Sync + 'static) -> Self {
        Self {
            sink: Some(Arc::new(sink)),
        }
    }

    /// Drops every report (the transport has no progress channel).
    pub fn ignore() -> Self {
        Self::default()
    }

    /// Sends one report.
    pub fn report(&self, fraction: f64, message: impl Into<String>) {
        if let Some(sink) = &self.sink {
            sink(ProgressUpdate {
                fraction: fraction.clamp(0.0, 1.0),
                message: message.into(),
            });
        }
    }
}

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Progress")
            .field("connected", &self.sink.is_some())
            .finish()
    }
}

/// A handler's view of the call it serves.
#[derive(Debug)]
pub struct Context<'a, A> {
    ambient: &'a A,
    tool: &'a SharedDescriptor,
    cancellation: CancellationToken,
    progress: Progress,
    clock: Clock,
}

impl<'a, A> Context<'a, A> {
    /// A context for one call (adapters and tests build these).
    pub fn new(
        ambient: &'a A,
        tool: &'a SharedDescriptor,
        cancellation: CancellationToken,
        progress: Progress,
    ) -> Self {
        Self {
            ambient,
            tool,
            cancellation,
            progress,
            clock: Clock::system(),
        }
    }

    /// The same context reading the time from `clock`.
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// The time now, by the registry's clock ([`Registry::with_clock`](crate::Registry::with_clock);
    /// the system's unless a test pinned it). Handlers that store or compare times read it
    /// here, so that tests can fix it.
    pub fn now(&self) -> chrono::DateTime<chrono::Utc> {
        self.clock.now()
    }

    /// The tool's fields resolved from the trusted ambient context.
    pub fn ambient(&self) -> &'a A {
        self.ambient
    }

    /// The tool being called (clone it to keep it past the call).
    pub fn tool(&self) -> &'a SharedDescriptor {
        self.tool
    }

    /// Cancelled when the client cancels the call or its timeout passes.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// Whether the call was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation.is_cancelled()
    }

    /// Reports progress to the client, if its transport supports it.
    pub fn progress(&self, fraction: f64, message: impl Into<String>) {
        self.progress.report(fraction, message);
    }

    /// Where progress reports go, for a handler that keeps them past this borrow.
    pub(crate) fn progress_sink(&self) -> Progress {
        self.progress.clone()
    }

    /// The registry's clock.
    pub(crate) fn clock(&self) -> Clock {
        self.clock.clone()
    }
}
