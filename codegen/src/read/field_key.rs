//! The words of a field definition: where it stands ([`Place`]) and its keys ([`FieldKey`]).

use crate::read::reader::section;
use crate::spec::FieldType;

/// Where a field definition stands; decides which keys it may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A top-level `expects` field.
    Expects,
    /// A top-level `exposes` field.
    Exposes,
    /// A field of a nested object (input or output side).
    Nested {
        /// Whether it is on the output side.
        output: bool,
    },
    /// An array's `items`, a map's `values`, an `any_of` variant, a named type.
    Element {
        /// Whether it is on the output side.
        output: bool,
    },
}

impl Place {
    /// Whether the field is on the output side.
    pub fn output(self) -> bool {
        match self {
            Self::Expects => false,
            Self::Exposes => true,
            Self::Nested { output } | Self::Element { output } => output,
        }
    }
}

section! {
    /// The keys of a field definition, in the order help lists them.
    pub enum FieldKey {
        Type = "type",
        Description = "description",
        Examples = "examples",
        Deprecated = "deprecated",
        Optional = "optional",
        Nullable = "nullable",
        Default = "default",
        OneOf = "one_of",
        AnyOf = "any_of",
        Tag = "tag",
        Fields = "fields",
        Items = "items",
        Values = "values",
        MinLength = "min_length",
        MaxLength = "max_length",
        Pattern = "pattern",
        Format = "format",
        Minimum = "minimum",
        Maximum = "maximum",
        ExclusiveMinimum = "exclusive_minimum",
        ExclusiveMaximum = "exclusive_maximum",
        MultipleOf = "multiple_of",
        MinItems = "min_items",
        MaxItems = "max_items",
        UniqueItems = "unique_items",
        On = "on",
        From = "from",
        Sensitive = "sensitive",
        RustType = "rust_type",
        Shape = "shape",
    }
}

/// A lower-case type name that is not built in: never a named type (those are UpperCamelCase),
/// so it is reported as an unknown type, and keys that depend on the type are not checked.
pub fn misspelt_builtin(ty: &FieldType) -> bool {
    matches!(ty, FieldType::Named(name) if !name.starts_with(|c: char| c.is_ascii_uppercase()))
}
