//! When two map keys are the same: scalars by their resolved value (a string and an integer
//! are different keys), lists and maps by their structure. Spans and quoting do not count.

use std::collections::HashMap;

use crate::read::yaml::node::{Node, Value};

/// The keys of one map so far, to find the entry a new key repeats.
#[derive(Default)]
pub struct Keys {
    /// Scalar keys, to the index of their entry.
    scalars: HashMap<KeyRepr, usize>,
}

impl Keys {
    /// The index of the entry of `entries` whose key is the same as `key`. When there is none,
    /// `key` is noted as the key of the next entry.
    pub fn repeated(&mut self, entries: &[(Node, Node)], key: &Value) -> Option<usize> {
        match KeyRepr::of(key) {
            Some(repr) => match self.scalars.get(&repr) {
                Some(&i) => Some(i),
                None => {
                    self.scalars.insert(repr, entries.len());
                    None
                }
            },
            None => entries.iter().position(|(k, _)| same_value(&k.value, key)),
        }
    }
}

/// A key as far as duplicate detection is concerned.
#[derive(PartialEq, Eq, Hash)]
enum KeyRepr {
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
}

impl KeyRepr {
    /// The scalar `value`, or `None` for a list or map (compared with [`same_value`]).
    fn of(value: &Value) -> Option<KeyRepr> {
        Some(match value {
            Value::Null => KeyRepr::Null,
            Value::Bool(b) => KeyRepr::Bool(*b),
            Value::Int(i) => KeyRepr::Int(*i),
            Value::Float(f) => KeyRepr::Float(f.to_bits()),
            Value::Str(s) => KeyRepr::Str(s.clone()),
            Value::Seq(_) | Value::Map(_) => return None,
        })
    }
}

/// Structural equality that ignores spans and quoting (for list and map keys).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Seq(x), Value::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same_value(&p.value, &q.value))
        }
        (Value::Map(x), Value::Map(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|((k1, v1), (k2, v2))| {
                    same_value(&k1.value, &k2.value) && same_value(&v1.value, &v2.value)
                })
        }
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}
