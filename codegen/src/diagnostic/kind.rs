//! What sort of problem a diagnostic reports: a stable, machine-readable code shown in its
//! header (`error[unknown-key]: …`), which tools and tests can match on.

/// The sort of a problem. Codes never change once released; new kinds may be added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Kind {
    /// The file is not valid YAML (or JSON, for a shape file).
    Syntax,
    /// A file of the specs folder cannot be read as a spec (a FIFO, a link out, too large…).
    Unreadable,
    /// A key the spec language does not have there.
    UnknownKey,
    /// A key the spec language needs there is missing.
    MissingKey,
    /// A value of the wrong sort (a map where a list goes…) or out of its range.
    InvalidValue,
    /// A name that names nothing: a type, an adapter, a setting, a hint, a format, a kind.
    UnknownName,
    /// Declarations that cannot all hold (`type` and `any_of`, contradictory hints…).
    Conflict,
    /// Two things that would share one name (tools, types, modules, Rust spellings).
    NameClash,
    /// A name toolspec keeps for itself.
    Reserved,
    /// A `pattern` the runtime's regex engine cannot run.
    Pattern,
    /// A `default:` that does not fit its field.
    Default,
    /// A `shape` that is not a JSON Schema typify and the runtime can use.
    Shape,
    /// A type that contains itself other than through a list or a map.
    Recursive,
    /// A schema or a YAML document nested past the limits.
    TooDeep,
    /// A `message` template that does not compile.
    Template,
    /// A `tool_roots` folder refused.
    ToolRoot,
    /// Something the spec language reserves for a later version (`kind: query`).
    Unsupported,
    /// A provider dialect cannot express a schema (an error) or states part of it in the
    /// description instead (a warning).
    Dialect,
    /// Something a spec writes that nothing uses (a `message` that none of the tool's adapters
    /// shows): a warning.
    Unused,
    /// A change of a tool's contract that the contract lock does not hold, in a project whose
    /// build requires it (`contract_lock: required`).
    Drift,
}

impl Kind {
    /// The kind's stable code (`unknown-key`).
    pub const fn code(self) -> &'static str {
        match self {
            Self::Syntax => "syntax",
            Self::Unreadable => "unreadable",
            Self::UnknownKey => "unknown-key",
            Self::MissingKey => "missing-key",
            Self::InvalidValue => "invalid-value",
            Self::UnknownName => "unknown-name",
            Self::Conflict => "conflict",
            Self::NameClash => "name-clash",
            Self::Reserved => "reserved",
            Self::Pattern => "pattern",
            Self::Default => "default",
            Self::Shape => "shape",
            Self::Recursive => "recursive",
            Self::TooDeep => "too-deep",
            Self::Template => "template",
            Self::ToolRoot => "tool-root",
            Self::Unsupported => "unsupported",
            Self::Dialect => "dialect",
            Self::Unused => "unused",
            Self::Drift => "drift",
        }
    }

    /// Every kind, in declaration order.
    pub(crate) const ALL: [Kind; 20] = [
        Self::Syntax,
        Self::Unreadable,
        Self::UnknownKey,
        Self::MissingKey,
        Self::InvalidValue,
        Self::UnknownName,
        Self::Conflict,
        Self::NameClash,
        Self::Reserved,
        Self::Pattern,
        Self::Default,
        Self::Shape,
        Self::Recursive,
        Self::TooDeep,
        Self::Template,
        Self::ToolRoot,
        Self::Unsupported,
        Self::Dialect,
        Self::Unused,
        Self::Drift,
    ];

    /// The kind whose [`code`](Self::code) is `code`.
    pub(crate) fn from_code(code: &str) -> Option<Kind> {
        Self::ALL.into_iter().find(|k| k.code() == code)
    }
}

#[cfg(test)]
mod tests {
    use super::Kind;

    #[test]
    fn every_kind_is_listed_and_found_by_its_code() {
        // Fails to compile when a kind is added without a code; the count below then reminds
        // `ALL` of it.
        let listed = |kind: Kind| match kind {
            Kind::Syntax
            | Kind::Unreadable
            | Kind::UnknownKey
            | Kind::MissingKey
            | Kind::InvalidValue
            | Kind::UnknownName
            | Kind::Conflict
            | Kind::NameClash
            | Kind::Reserved
            | Kind::Pattern
            | Kind::Default
            | Kind::Shape
            | Kind::Recursive
            | Kind::TooDeep
            | Kind::Template
            | Kind::ToolRoot
            | Kind::Unsupported
            | Kind::Dialect
            | Kind::Unused
            | Kind::Drift => true,
        };
        assert!(Kind::ALL.into_iter().all(listed));
        for kind in Kind::ALL {
            assert_eq!(Kind::from_code(kind.code()), Some(kind));
        }
        assert_eq!(Kind::from_code("no-such-kind"), None);
    }
}
