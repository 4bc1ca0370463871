//! How long a `once` claim or a SQLite lock stays good without its holder letting go.

use std::time::Duration;

use toolspec_core::Descriptor;

/// How long a claim or a SQLite lock is good for without a timeout on the tool: a process that
/// dies holding one blocks its key this long at most.
const LEASE: Duration = Duration::from_secs(600);

/// How long a `once` claim or SQLite lock of `tool` stays valid: past the tool's timeout (when
/// it has one) with room to record the result.
pub(crate) fn lease(tool: &Descriptor) -> Duration {
    tool.timeout()
        .map_or(LEASE, |t| t + Duration::from_secs(30))
}
