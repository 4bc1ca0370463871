//! What a call is made with: the per-call [`CallOptions`] an adapter passes (built from the
//! trusted [`Caller`] with [`CallOptions::for_caller`]), and the [`Rules`] a registry holds
//! every call to. Plain data: nothing here calls a tool.

use tokio_util::sync::CancellationToken;

use crate::model::caller::{Caller, Scopes};
use crate::model::context::Progress;
use crate::model::limits::Limits;
use std::sync::Arc;

use crate::storage::Storage;

/// What to do with argument keys the input schema does not declare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UndeclaredKeys {
    /// Refuse the call, naming the keys (the default).
    #[default]
    Reject,
    /// Drop them silently (logged at debug level).
    Drop,
}

/// What a registry decides for every call it makes: how undeclared keys are treated, the
/// limits, and the database `ref` fields are loaded from.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rules {
    pub(crate) undeclared: UndeclaredKeys,
    pub(crate) limits: Limits,
    pub(crate) storage: Option<Arc<dyn Storage>>,
    /// The bounds of the task queue.
    pub(crate) tasks: toolspec_vocab::tasks::TasksConfig,
    /// How round trips' request states are sealed (and spent without a database).
    pub(crate) sealing: Arc<crate::model::request_state::Sealing>,
    /// Whether the tools' rate budgets are kept in the storage every process shares, rather
    /// than in this process.
    pub(crate) shared_budgets: bool,
    /// What handlers read as "now".
    pub(crate) clock: crate::model::clock::Clock,
}

/// Per-call options an adapter passes along with the arguments.
#[derive(Debug, Clone, Default)]
pub struct CallOptions {
    /// The adapter the call came through.
    pub adapter: Option<String>,
    /// Who is calling.
    pub caller: Option<String>,
    /// The caller's scopes: a tool requiring scopes the caller lacks answers exactly as an
    /// unknown tool would (adapters also hide it from their listings).
    pub scopes: Scopes,
    /// Cancelled by the client (MCP `notifications/cancelled`, a dropped HTTP request…).
    pub cancellation: CancellationToken,
    /// Where progress reports go.
    pub progress: Progress,
    /// The caller's trace id (a W3C `traceparent`'s, say), set on the call's span and its audit
    /// record; without one, an audited call's record id is its trace id.
    pub trace_id: Option<String>,
    /// The user's answers to what an earlier call of the same tool, with the same arguments,
    /// asked ([`InputRequired`](crate::model::user_input::InputRequired)): its sealed state and the
    /// responses. Without one, a call that needs its user's answers asks for them.
    pub continuation: Option<crate::model::user_input::Continuation>,
}

impl CallOptions {
    /// The options of a call through `adapter` by `caller`: its id and scopes, no cancellation
    /// and no progress channel (set those fields on the result when the transport has them).
    ///
    /// ```
    /// let caller = toolspec_core::Caller::new("alice").with_scopes(["orders:read"]);
    /// let options = toolspec_core::CallOptions::for_caller("openai", &caller);
    /// assert_eq!(options.adapter.as_deref(), Some("openai"));
    /// assert_eq!(options.caller.as_deref(), Some("alice"));
    /// assert_eq!(options.scopes, caller.scopes);
    /// ```
    pub fn for_caller(adapter: &str, caller: &Caller) -> Self {
        Self {
            adapter: Some(adapter.to_owned()),
            caller: caller.id.clone(),
            scopes: caller.scopes.clone(),
            ..Self::default()
        }
    }
}
