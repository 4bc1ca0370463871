//! What a tool asks its user (`confirm`, `ask`): the words the compiler and the runtime share.

/// The key of a tool's confirmation among the requests of a round trip; no form of `ask:` may
/// take it.
#[doc(hidden)]
pub const CONFIRM: &str = "confirm";
