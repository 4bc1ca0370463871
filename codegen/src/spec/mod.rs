//! The spec model: what tool specs, `types:` files and the project config say, after reading
//! and before anything is derived from them. Every item keeps the span it came from. This is
//! data only: reading it is [`crate::read`]'s job, checking it [`crate::analyze`]'s.

pub mod config;
pub mod durable;
pub mod field;
pub mod query;
pub mod tool;
pub mod types;
pub mod user_input;
pub mod visit;

pub use config::{AdapterConfig, AmbientDecl, AuthSpec, ClaimSpec, Fallbacks, ProjectConfig};
pub use durable::{AuditConfig, AuditPolicy, Durability, LockSpec, OnceSpec};
pub use field::{Constraints, Field, FieldType, Format, Variant};
pub use tool::{
    AdapterOptions, DescriptionOverride, ErrorDecl, GrantDecl, GuardDecl, ToolDecl, ToolSpec,
};
pub use types::{NamedType, Types};
pub use user_input::{AskSpec, ConfirmSpec};
