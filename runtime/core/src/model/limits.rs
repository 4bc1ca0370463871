//! What one call may cost the pipeline, and what its answer may hold.
//!
//! Plain numbers: the pipeline's screening and reports, and the MCP transports' screening of
//! whole messages, read them.

/// Bounds on one call's arguments and on the errors reported for them, set per registry
/// ([`Registry::with_limits`](crate::Registry::with_limits)).
///
/// Arguments past `max_depth` or `max_values`, and arrays past their schema's `maxItems`, are
/// refused before the schema is checked, so a hostile call costs one walk of its arguments;
/// whatever else is wrong is reported, at most `max_errors` errors of it, each quoting at
/// most `max_quote` characters of a value (and never a `sensitive` one).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most errors one answer lists; the rest are counted ("and 12 more errors").
    pub max_errors: usize,
    /// The most characters of a value (or an object key) an error message quotes.
    pub max_quote: usize,
    /// How deep arguments may nest (the arguments object itself is level 1).
    pub max_depth: usize,
    /// How many JSON values (objects, arrays and scalars alike) one call's arguments may hold.
    pub max_values: usize,
}

impl Limits {
    /// The defaults: 10 errors, 40 characters quoted, 64 levels, 100,000 values.
    pub const DEFAULT: Self = Self {
        max_errors: 10,
        max_quote: 40,
        max_depth: 64,
        max_values: 100_000,
    };
}

impl Default for Limits {
    fn default() -> Self {
        Self::DEFAULT
    }
}
