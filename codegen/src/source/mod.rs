//! The spec files' texts and positions in them: what every stage points its diagnostics at.
//! This module knows nothing of YAML or of specs.

pub mod lines;
pub mod sources;
pub mod span;
pub mod spanned;

pub use lines::Lines;
pub use sources::{Source, Sources};
pub use span::{Pos, Span};
pub use spanned::Spanned;
