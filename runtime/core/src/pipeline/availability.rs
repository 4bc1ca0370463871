//! Stage: a call that needs the registry's database while it is known to be down is refused at
//! once with `unavailable`, rather than waiting for the pool's timeout. A tool needs it to run
//! (a query tool, `ref` fields, `once`, `lock`, a record written before the answer), or because
//! its handler or a guard has failed for want of it before (learned, see `handler`).

use crate::model::descriptor::Descriptor;
use crate::model::descriptor::Durability;
use crate::model::failure::{RETRY_UNAVAILABLE, ToolResult};
use crate::storage::Storage;

/// The refusal of a call of `tool` (`learned`: its handler needs the database) while
/// `database` is known to be down.
pub(crate) fn refusal(
    tool: &Descriptor,
    learned: bool,
    storage: Option<&dyn Storage>,
) -> Option<ToolResult> {
    let storage = storage?;
    if !needs_database(tool, learned) {
        return None;
    }
    let why = storage.known_down()?;
    Some(ToolResult::unavailable(
        tool,
        "the database",
        RETRY_UNAVAILABLE,
        why,
    ))
}

fn needs_database(tool: &Descriptor, learned: bool) -> bool {
    let audit = tool.audit;
    let waits_for_record =
        audit.enabled && (audit.required || audit.durability == Durability::Sync);
    tool.query.is_some()
        || !tool.refs.is_empty()
        || tool.once.is_some()
        || tool.lock.is_some()
        || waits_for_record
        || learned
}
