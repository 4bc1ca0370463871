//! The built-in `explain` tool's published surface: what it answers ([`Explanation`](crate::Explanation),
//! one [`GuardCheck`](crate::GuardCheck) per guard, what `once` and `lock` would do), and its description and schemas
//! (the vocabulary's, which the compiler and the OpenAPI document read too). Data only: the
//! tool itself is `pipeline::explain_tool`, and the explain mode of the call pipeline fills an
//! explanation in.

pub(crate) mod explanation;
pub(crate) mod status;

pub use toolspec_vocab::explain::{DESCRIPTION, DIALECTS, INPUT_SCHEMA, OUTPUT_SCHEMA};
