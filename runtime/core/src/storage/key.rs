//! A `once` or `lock` key: the declared fields' values (ambient ones from the trusted context),
//! hashed for the storage, and shown (redacted) by explain.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::model::ambient::AmbientContext;
use crate::model::canonical::write_canonical;
use crate::model::descriptor::{Descriptor, Text};
use crate::schema::sensitive::Sensitivity;

/// One call's key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Key {
    /// SHA-256 of the tool's name and the canonical JSON of the values, in hex.
    pub hash: String,
    /// The fields and their values, sensitive ones redacted.
    pub shown: Map<String, Value>,
}

impl Key {
    /// The key of `fields` for a call of `tool` with validated `args`. A field the call leaves
    /// out counts as `null`.
    pub(crate) fn of(
        tool: &Descriptor,
        fields: &[Text],
        args: &Value,
        ambient: &AmbientContext,
        redaction: &Sensitivity,
    ) -> Self {
        let ambient_field = |name: &str| tool.fields.iter().find(|f| f.name == name && f.ambient);
        let values: Map<String, Value> = fields
            .iter()
            .map(|name| {
                let name = name.as_ref();
                let value = match ambient_field(name) {
                    Some(field) => ambient.get(field.context_key()),
                    None => args.get(name),
                };
                (name.to_owned(), value.cloned().unwrap_or(Value::Null))
            })
            .collect();
        let mut canonical = String::new();
        let ordered: Vec<&Value> = fields
            .iter()
            .filter_map(|f| values.get(f.as_ref()))
            .collect();
        write_canonical(
            &Value::Array(ordered.into_iter().cloned().collect()),
            &mut canonical,
        );
        let mut digest = Sha256::new();
        digest.update(tool.name.as_bytes());
        digest.update([0]);
        digest.update(canonical.as_bytes());
        let hash = digest
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let mut shown = Value::Object(values);
        redaction.redact(&mut shown);
        let shown = match shown {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        Self { hash, shown }
    }

    /// The first 8 bytes of the hash as a number: PostgreSQL's advisory lock key.
    pub fn number(&self) -> i64 {
        let prefix = self.hash.get(..16).unwrap_or("0");
        u64::from_str_radix(prefix, 16).map_or(0, |n| n as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_at_every_depth() {
        let mut a = String::new();
        let mut b = String::new();
        write_canonical(
            &serde_json::json!({"b": 1, "a": {"d": [1, {"y": 2, "x": 1}], "c": null}}),
            &mut a,
        );
        write_canonical(
            &serde_json::json!({"a": {"c": null, "d": [1, {"x": 1, "y": 2}]}, "b": 1}),
            &mut b,
        );
        assert_eq!(a, b);
        assert_eq!(a, r#"{"a":{"c":null,"d":[1,{"x":1,"y":2}]},"b":1}"#);
    }
}
