//! The spec language: the model, and reading it from YAML with a diagnostic for every
//! mistake.

pub mod config;
pub mod field;
pub mod model;
pub mod read;
pub mod tool;
