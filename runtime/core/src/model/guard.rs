//! How a guard answers: `bool` for a plain precondition, or — for a guard whose spec lists
//! `errors` or `loads` — a `Result` whose `Ok` is what the guard loaded for the handler and
//! whose `Err` is a [`GuardFailure`]: the precondition unmet (the guard's own code), or a
//! [`Failure`] as a handler's: one of the codes the spec lets the guard fail with (with
//! details), or an internal one.
//!
//! [`check`] runs one guard for the generated code and erases its answer into a
//! [`GuardStop`] the pipeline turns into the model's error; nothing here knows an adapter.

use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use serde_json::Value;

use crate::model::failure::{DeclaredError, Failure};

/// Why a guard stops the call, for a guard whose spec lists `errors` or `loads`: its
/// precondition is unmet, or it fails as a handler would.
///
/// `?` on any `std::error::Error` gives an internal failure; the guard's generated `Error` (one
/// variant per code its spec lists) converts into a declared one, so
/// `lookup.ok_or(owns_note::Error::NotFound)?` fails the call with `not_found`.
#[derive(Debug)]
pub enum GuardFailure<E> {
    /// The precondition does not hold: the call fails with the guard's name as its code and
    /// its description as the message, as a `bool` guard answering `false` does.
    Unmet,
    /// The guard failed as a handler would: with one of the codes its spec lists (composed
    /// with the headline, `standalone`, details), or internally (the cause logged for the
    /// developer, naming the guard, never shown to the model).
    Failed(Failure<E>),
}

impl<E> GuardFailure<E> {
    /// Fails with a code the guard's spec lists.
    pub fn declared(error: E) -> Self {
        Self::Failed(Failure::declared(error))
    }

    /// Attaches details to a declared failure (no effect on the others).
    pub fn with_details(self, details: impl Into<Value>) -> Self {
        match self {
            Self::Failed(failure) => Self::Failed(failure.with_details(details)),
            unmet => unmet,
        }
    }

    /// An internal failure from any error (including `anyhow::Error` via `.into()`).
    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Failed(Failure::internal(error))
    }
}

impl<E, X> From<X> for GuardFailure<E>
where
    X: std::error::Error + Send + Sync + 'static,
{
    fn from(error: X) -> Self {
        Self::Failed(Failure::Internal(Box::new(error)))
    }
}

/// The codes of a guard whose spec lists none: it can pass, be unmet or fail internally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[doc(hidden)]
pub enum NoError {}

impl std::fmt::Display for NoError {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {}
    }
}

impl DeclaredError for NoError {
    fn code(&self) -> &str {
        match *self {}
    }
}

/// Which guard stopped a call, and why.
#[derive(Debug)]
#[doc(hidden)]
pub struct GuardStop {
    /// The guard's position in the spec (and in the descriptor's `guards`).
    pub guard: usize,
    /// Why.
    pub reason: StopReason,
}

/// Why a guard stopped a call, its codes erased.
#[derive(Debug)]
#[doc(hidden)]
pub enum StopReason {
    /// Its precondition does not hold.
    Unmet,
    /// It failed with a code its spec lists.
    Declared {
        /// The code.
        code: String,
        /// The code's message (its `Display`).
        message: String,
        /// Extra data for the model.
        details: Option<Value>,
    },
    /// It failed internally.
    Internal(Box<dyn std::error::Error + Send + Sync>),
    /// It panicked, with this message.
    Panicked(String),
}

/// What a guard method returns: `bool`, or `Result<T, GuardFailure<E>>`.
pub trait Verdict: Send {
    /// What a passing guard hands to the handler (`()` for a `bool` guard).
    type Loaded: Send;

    /// The value loaded, or why the call stops.
    fn verdict(self) -> Result<Self::Loaded, StopReason>;
}

impl Verdict for bool {
    type Loaded = ();

    fn verdict(self) -> Result<(), StopReason> {
        if self { Ok(()) } else { Err(StopReason::Unmet) }
    }
}

impl<T: Send, E: DeclaredError> Verdict for Result<T, GuardFailure<E>> {
    type Loaded = T;

    fn verdict(self) -> Result<T, StopReason> {
        self.map_err(|failure| match failure {
            GuardFailure::Unmet => StopReason::Unmet,
            GuardFailure::Failed(Failure::Declared { error, details }) => StopReason::Declared {
                code: error.code().to_owned(),
                message: error.to_string(),
                details,
            },
            GuardFailure::Failed(Failure::Internal(e)) => StopReason::Internal(e),
        })
    }
}

/// Runs guard number `guard` (its future `check`): what it loaded, or why the call stops,
/// a panic included.
pub async fn check<V: Verdict>(
    guard: usize,
    check: impl Future<Output = V>,
) -> Result<V::Loaded, GuardStop> {
    let reason = match AssertUnwindSafe(check).catch_unwind().await {
        Ok(verdict) => match verdict.verdict() {
            Ok(loaded) => return Ok(loaded),
            Err(reason) => reason,
        },
        Err(panic) => StopReason::Panicked(panic_message(panic)),
    };
    Err(GuardStop { guard, reason })
}

/// A panic's message. Takes the box itself: a `&Box<dyn Any>` would coerce to `&dyn Any` of
/// the box, and never downcast to the payload.
pub(crate) fn panic_message(panic: Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic payload".into())
}
