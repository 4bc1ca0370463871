//! toolspec-codegen: compiles YAML tool specs into typed Rust.
pub mod diagnostic;
pub mod yaml;
