//! The docs' tests. [`markdown`] reads the README and `docs/` into their blocks, headings and
//! links; the build script writes every Rust block as a doctest of this crate (one item per
//! block, in a module per file, so that a failing doctest is named after its file and line),
//! and `tests/docs/` checks every other block. `docs/contributing.md` says how each kind of
//! block is checked.

pub mod markdown;

include!(concat!(env!("OUT_DIR"), "/doctests.rs"));
