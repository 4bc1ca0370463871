//! Semantic hints: what a spec may say about a tool's behaviour (`hints: [read_only]`).
//!
//! Every project knows the core hints; adapters register more (MCP's `open_world` and
//! `closed_world`), and a project may add its own in `specs/toolspec.yaml`.

/// Only reads: calling it changes nothing.
pub const READ_ONLY: &str = "read_only";
/// Calling it twice with the same arguments has the effect of calling it once.
pub const IDEMPOTENT: &str = "idempotent";
/// May destroy or overwrite data.
pub const DESTRUCTIVE: &str = "destructive";

/// Reaches beyond the app's own data (MCP's `openWorldHint`).
pub const OPEN_WORLD: &str = "open_world";
/// Works only on the app's own data.
pub const CLOSED_WORLD: &str = "closed_world";

/// The hints every project knows.
pub const CORE: &[&str] = &[READ_ONLY, IDEMPOTENT, DESTRUCTIVE];

/// The hints of a project that declares none: the core hints, then those the built-in
/// adapters register, in adapter order.
pub const DEFAULT: &[&str] = &[READ_ONLY, IDEMPOTENT, DESTRUCTIVE, OPEN_WORLD, CLOSED_WORLD];

/// Two hints no tool may declare together, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Contradiction {
    /// The two hints.
    pub hints: [&'static str; 2],
    /// Why they cannot both hold.
    pub reason: &'static str,
}

/// Every pair of hints that contradict each other.
pub const CONTRADICTIONS: &[Contradiction] = &[
    Contradiction {
        hints: [READ_ONLY, DESTRUCTIVE],
        reason: "a read-only tool changes nothing, so it cannot be destructive",
    },
    Contradiction {
        hints: [OPEN_WORLD, CLOSED_WORLD],
        reason: "a tool works either in an open world or a closed one",
    },
];
