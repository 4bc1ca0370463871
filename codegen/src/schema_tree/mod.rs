//! JSON Schema as a tree of subschemas: paths into it ([`Seg`]), its children, local `$ref`s,
//! and how deep it nests. Every stage that looks into a schema (reading shapes, checking
//! depths, deriving dialects) walks it with these; none of them knows what a spec is.

pub mod children;
pub mod depth;
pub mod path;
pub mod refs;
pub mod well_formed;

pub use children::{children, for_each_child, nodes};
pub use depth::{MAX_DEPTH, too_deep};
pub use path::Seg;
pub use refs::{ref_name, resolve_ref};
pub(crate) use well_formed::well_formed;
