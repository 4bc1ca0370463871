//! The trusted ambient context an adapter passes with every call (the current customer, the
//! caller's scopes, a tenant): never taken from model arguments.
//!
//! Plain data: it never reads model arguments and knows no tool; the pipeline picks from it the
//! ambient fields a tool declares.

use serde_json::{Map, Value};

/// Trusted key/value data supplied by the transport or the app, from which a tool's
/// `on: ambient_context` fields are resolved. Only keys a tool declares ever reach it.
///
/// ```
/// let ambient = toolspec_core::AmbientContext::from([("customer_id", 42)]);
/// assert_eq!(ambient.get("customer_id"), Some(&serde_json::json!(42)));
/// ```
#[derive(Debug, Clone, Default, PartialEq, serde::Deserialize)]
#[serde(transparent)]
pub struct AmbientContext {
    values: Map<String, Value>,
}

impl AmbientContext {
    /// An empty context: every ambient field resolves as absent.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets one key, replacing any previous value.
    pub fn insert(&mut self, key: impl Into<String>, value: impl Into<Value>) -> &mut Self {
        self.values.insert(key.into(), value.into());
        self
    }

    /// Builder form of [`insert`](Self::insert).
    pub fn with(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.insert(key, value);
        self
    }

    /// The value under `key`, if any.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.values.get(key)
    }

    /// The value for a declared field: under `key`, or under a symbol-like `:key`.
    pub fn lookup(&self, key: &str) -> Option<&Value> {
        self.values.get(key).or_else(|| {
            self.values
                .iter()
                .find(|(k, _)| k.strip_prefix(':') == Some(key))
                .map(|(_, v)| v)
        })
    }

    /// Whether no key is set.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The keys and values, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v))
    }
}

impl<K: Into<String>, V: Into<Value>, const N: usize> From<[(K, V); N]> for AmbientContext {
    fn from(pairs: [(K, V); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl<K: Into<String>, V: Into<Value>> FromIterator<(K, V)> for AmbientContext {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut ambient = Self::new();
        for (k, v) in iter {
            ambient.insert(k, v);
        }
        ambient
    }
}

impl From<Map<String, Value>> for AmbientContext {
    fn from(values: Map<String, Value>) -> Self {
        Self { values }
    }
}
