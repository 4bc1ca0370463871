//! Reading JSON Schemas (and the schema-shaped maps the compiler embeds) the same way
//! everywhere: object keys found fast (`keys`), and one walker (`walk`) that follows local
//! `$ref`s, picks union branches and stops at a depth limit and a budget, used by the
//! pipeline's argument plan, the sensitivity maps and the function-calling adapters' argument
//! repairs; and the run-time range of an `integer` (`integers`), which the schemas the pipeline
//! checks are given. Knows nothing of tools, calls or adapters.

pub(crate) mod integers;
pub(crate) mod keys;
pub(crate) mod refs;
pub mod sensitive;
pub(crate) mod walk;
