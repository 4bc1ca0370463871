//! Named types from `types:` files.

use std::collections::BTreeMap;

use crate::spec::field::Field;

/// A named type from a `types:` file.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedType {
    /// The file it is defined in (display path).
    pub file: String,
    /// Its definition (`name` is the type's name).
    pub field: Field,
}

/// The named types of a project, by name.
pub type Types = BTreeMap<String, NamedType>;
