//! Who is calling, as the transport established it — never as the model claims it: an id for
//! logs and hooks, the trusted ambient context the call's tools resolve their ambient fields
//! from, and the scopes that decide which tools the caller may see and call.
//!
//! Plain data the transports build and the registry, catalogs and pipeline only read: nothing here
//! authenticates, lists or calls.

use std::collections::BTreeSet;

use serde::Deserialize;

use crate::model::ambient::AmbientContext;
use crate::model::descriptor::Descriptor;

/// The scopes a caller holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub enum Scopes {
    /// Every tool, whatever scopes it requires: a local, trusted caller (stdio, the CLI, an
    /// in-process call).
    #[default]
    Unrestricted,
    /// Exactly these scopes: a tool is visible and callable when the caller holds every scope
    /// it requires.
    Only(BTreeSet<String>),
}

impl Scopes {
    /// Exactly `scopes`.
    pub fn only<S: Into<String>>(scopes: impl IntoIterator<Item = S>) -> Self {
        Self::Only(scopes.into_iter().map(Into::into).collect())
    }

    /// No scopes: only tools that require none.
    pub fn none() -> Self {
        Self::Only(BTreeSet::new())
    }

    /// Whether these scopes include every one of `required`.
    pub fn allow<S: AsRef<str>>(&self, required: &[S]) -> bool {
        match self {
            Self::Unrestricted => true,
            Self::Only(held) => required.iter().all(|scope| held.contains(scope.as_ref())),
        }
    }

    /// Whether a caller with these scopes may see and call `tool`.
    pub fn allow_tool(&self, tool: &Descriptor) -> bool {
        self.allow(&tool.scopes)
    }
}

/// A caller, as a transport authenticated it.
///
/// Deserializes from `{"id": "alice", "ambient": {"customer_id": 1}, "scopes": ["orders:read"]}`,
/// so an app can keep its callers in a configuration file. Every key is optional, and a
/// forgotten one fails closed: no `scopes` key means no scopes at all (only tools that require
/// none); a caller that may call everything says so with `"scopes": "unrestricted"`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Caller {
    /// Who is calling, for logs, hooks and the audit trail.
    #[serde(default)]
    pub id: Option<String>,
    /// The trusted values tools resolve their ambient fields from.
    #[serde(default)]
    pub ambient: AmbientContext,
    /// Which tools the caller may see and call.
    #[serde(default = "Scopes::none", deserialize_with = "scopes_from_config")]
    pub scopes: Scopes,
}

impl Caller {
    /// A caller named `id`, with an empty ambient context and unrestricted scopes.
    pub fn new(id: impl Into<String>) -> Self {
        Self {
            id: Some(id.into()),
            ..Self::default()
        }
    }

    /// The same caller with `ambient` as its trusted context.
    pub fn with_ambient(mut self, ambient: AmbientContext) -> Self {
        self.ambient = ambient;
        self
    }

    /// The same caller holding exactly `scopes`.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = Scopes::only(scopes);
        self
    }

    /// Whether this caller may see and call `tool`.
    pub fn may_call(&self, tool: &Descriptor) -> bool {
        self.scopes.allow_tool(tool)
    }
}

/// The word a configuration spells [`Scopes::Unrestricted`] with.
pub const UNRESTRICTED: &str = "unrestricted";

/// `["a", "b"]` → exactly those; `"unrestricted"` → every tool.
fn scopes_from_config<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Scopes, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Config {
        List(BTreeSet<String>),
        Word(String),
    }
    match Config::deserialize(deserializer)? {
        Config::List(scopes) => Ok(Scopes::Only(scopes)),
        Config::Word(word) if word == UNRESTRICTED => Ok(Scopes::Unrestricted),
        Config::Word(word) => Err(serde::de::Error::custom(format!(
            "`scopes` is a list of scopes or \"{UNRESTRICTED}\", not \"{word}\""
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_allow_only_what_they_hold() {
        let scopes = Scopes::only(["orders:read", "orders:write"]);
        assert!(scopes.allow::<&str>(&[]));
        assert!(scopes.allow(&["orders:read"]));
        assert!(scopes.allow(&["orders:write", "orders:read"]));
        assert!(!scopes.allow(&["orders:write", "payments:refund"]));
        assert!(Scopes::Unrestricted.allow(&["anything"]));
        assert!(!Scopes::only(Vec::<String>::new()).allow(&["orders:read"]));
    }

    #[test]
    fn callers_deserialize_from_configuration() {
        let caller: Caller = serde_json::from_value(serde_json::json!({
            "id": "alice",
            "ambient": { "customer_id": 1 },
            "scopes": ["orders:read"]
        }))
        .unwrap();
        assert_eq!(caller.id.as_deref(), Some("alice"));
        assert_eq!(
            caller.ambient.get("customer_id"),
            Some(&serde_json::json!(1))
        );
        assert_eq!(caller.scopes, Scopes::only(["orders:read"]));

        // A forgotten `scopes` fails closed; unrestricted is spelled out.
        let forgotten: Caller = serde_json::from_value(serde_json::json!({})).unwrap();
        assert_eq!(forgotten.scopes, Scopes::none());
        assert!(!forgotten.scopes.allow(&["orders:refund"]));
        let open: Caller =
            serde_json::from_value(serde_json::json!({ "scopes": "unrestricted" })).unwrap();
        assert_eq!(open.scopes, Scopes::Unrestricted);
        let error = serde_json::from_value::<Caller>(serde_json::json!({ "scopes": "all" }))
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "`scopes` is a list of scopes or \"unrestricted\", not \"all\""
        );

        let error = serde_json::from_value::<Caller>(serde_json::json!({ "scope": [] }))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("unknown field `scope`"), "{error}");
    }
}
