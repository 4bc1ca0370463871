//! The runtime's data: what a tool is and what a call carries, asks and answers — the
//! descriptor, the caller and its ambient context, a handler's context, results and errors,
//! guards, hooks, what is asked of a user, what a task is. Plain types and their rules; the
//! stages that act on them are `pipeline`'s.

pub(crate) mod ambient;
pub(crate) mod caller;
pub(crate) mod canonical;
pub(crate) mod clock;
pub(crate) mod context;
pub(crate) mod contract;
pub mod descriptor;
pub mod explain;
pub(crate) mod failure;
pub(crate) mod guard;
pub(crate) mod hooks;
pub(crate) mod limits;
mod macros;
pub mod project;
pub mod rate;
pub(crate) mod registry_error;
pub(crate) mod report;
pub mod request_state;
pub(crate) mod task;
pub mod truncation;
pub mod user_input;
