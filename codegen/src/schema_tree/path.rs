//! Where a subschema is: the steps from a schema's root down to it.

/// One step of a path through a schema, from the root to a subschema.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Seg {
    /// `properties/NAME`
    Prop(String),
    /// `items`
    Items,
    /// `additionalProperties` (a map's values)
    Values,
    /// `anyOf/N` or `oneOf/N` (also the Nth element under [`Seg::Keyword`])
    Branch(usize),
    /// `$defs/NAME` (or `definitions/NAME`)
    Def(String),
    /// Any other keyword holding subschemas (`not`, `allOf`, `prefixItems`…).
    Keyword(String),
}
