//! The named types of the tools' schemas (`$defs`), gathered into the OpenAPI document's
//! `components/schemas`: shared when tools define them alike, renamed when they clash.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The named types of the tools' schemas, moved to `components/schemas`.
#[derive(Default)]
pub struct Components {
    /// The definitions, by name.
    pub schemas: Map<String, Value>,
}

impl Components {
    /// `schema` with its `$defs` moved into the components and its references pointed there;
    /// a definition that clashes with another of the same name is kept under a longer name.
    pub fn take(&mut self, mut schema: Value) -> Value {
        let mut renamed: BTreeMap<String, String> = BTreeMap::new();
        if let Some(Value::Object(defs)) = schema.as_object_mut().and_then(|s| s.remove("$defs")) {
            for (name, def) in &defs {
                let mut target = name.clone();
                let mut n = 2;
                while self
                    .schemas
                    .get(&target)
                    .is_some_and(|d| !same_def(d, def, &defs))
                {
                    target = format!("{name}{n}");
                    n += 1;
                }
                renamed.insert(name.clone(), target);
            }
            for (name, mut def) in defs {
                point_refs(&mut def, &renamed);
                let target = &renamed[&name];
                self.schemas.entry(target.clone()).or_insert(def);
            }
        }
        point_refs(&mut schema, &renamed);
        schema
    }
}

/// Whether a stored component is the definition `def` (references not yet rewritten).
fn same_def(stored: &Value, def: &Value, defs: &Map<String, Value>) -> bool {
    let identity: BTreeMap<String, String> = defs.keys().map(|k| (k.clone(), k.clone())).collect();
    let mut def = def.clone();
    point_refs(&mut def, &identity);
    *stored == def
}

/// Points every `#/$defs/X` reference at `#/components/schemas/<renamed X>`.
fn point_refs(value: &mut Value, renamed: &BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get_mut("$ref")
                && let Some(name) = reference.strip_prefix("#/$defs/")
            {
                let target = renamed.get(name).map_or(name, String::as_str);
                *reference = format!("#/components/schemas/{target}");
            }
            for child in map.values_mut() {
                point_refs(child, renamed);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| point_refs(v, renamed)),
        _ => {}
    }
}
