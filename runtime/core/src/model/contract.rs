//! The typed surface of one tool: the marker type's [`Contract`], its declared errors, and the
//! [`Operation`] the generated code implements to bind a handler to it.
//!
//! Traits and types only: the generated code implements them, the pipeline runs them.

use std::future::Future;
use std::pin::Pin;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::model::context::Context;
use crate::model::descriptor::Descriptor;
pub use crate::model::failure::DeclaredError;
use crate::model::failure::Failure;
use crate::model::guard::GuardStop;

/// A boxed, sendable future.
#[doc(hidden)]
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The types of one tool's calls: implemented by each tool's generated marker type
/// (`tools::orders::cancel::Tool`), and by the JSON contract of a tool defined at run time.
#[doc(hidden)]
pub trait Contract: Send + Sync + 'static {
    /// Model-facing input, defaults applied.
    type Input: DeserializeOwned + Send + Sync + 'static;
    /// Fields resolved from the trusted ambient context.
    type Ambient: DeserializeOwned + Send + Sync + 'static;
    /// Exposed output.
    type Output: Serialize + Send + 'static;
    /// Declared error codes.
    type Error: DeclaredError;
    /// The tool's guards: one value per guard of the spec, each run by a method of the
    /// tool's `Handler` ([`Operation::guard`]); [`NoGuard`] for a tool without any.
    type Guard: Copy + Send + Sync + 'static;
    /// Every guard, in the order of the descriptor's `guards`, which name and describe them.
    const GUARDS: &'static [Self::Guard];
}

/// A contract that is one tool of the crate, known at build time: its name and descriptor
/// (the generated marker types implement it).
#[doc(hidden)]
pub trait Described: Contract {
    /// The canonical tool name.
    const NAME: &'static str;
    /// Everything known about the tool at build time.
    fn descriptor() -> &'static Descriptor;
}

/// A tool bound to its handler; the generated `Bound<H>` implements it.
#[doc(hidden)]
pub trait Operation: Send + Sync + 'static {
    /// The tool.
    type Contract: Contract;

    /// Runs the guards in spec order and, when every one passes, the handler with what they
    /// loaded; the first guard that does not pass stops the call ([`GuardStop`]).
    fn run<'a>(
        &'a self,
        input: <Self::Contract as Contract>::Input,
        cx: Context<'a, <Self::Contract as Contract>::Ambient>,
    ) -> BoxFuture<'a, Result<Outcome<Self::Contract>, GuardStop>>;

    /// Runs `guard` alone, for an explanation: `Ok` when its precondition holds (what it
    /// loaded is dropped).
    fn guard<'a>(
        &'a self,
        guard: <Self::Contract as Contract>::Guard,
        input: &'a <Self::Contract as Contract>::Input,
        cx: &'a Context<'a, <Self::Contract as Contract>::Ambient>,
    ) -> BoxFuture<'a, Result<(), GuardStop>>;
}

/// The guards of a tool without any: no value, so no guard can be asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NoGuard {}

/// What a handler returns.
#[doc(hidden)]
pub type Outcome<C> = Result<<C as Contract>::Output, Failure<<C as Contract>::Error>>;
