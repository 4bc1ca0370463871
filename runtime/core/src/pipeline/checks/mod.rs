//! The checks of a call's arguments, compiled once per tool and run by the pipeline's
//! screening stage: `plan` screens (depth, size, undeclared keys) and coerces wire values in
//! one walk, `validate` checks the canonical schema (with the run-time range of integers) —
//! `fast` proving the common valid value valid, the compiled validator judging the rest —
//! `report` words every error by its JSON pointer within `limits`.
//!
//! Data and pure functions: nothing here runs a tool, knows an adapter or the registry.

pub(crate) mod fast;
pub(crate) mod plan;
pub(crate) mod validate;
