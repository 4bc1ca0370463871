//! The fast check's harness: a schema and a value, each JSON, separated by a `\0` byte. When
//! the runtime's fast check and validator both compile the schema (every `integer` held to
//! `i64`, as the pipeline holds it), whatever the fast check proves valid the validator must
//! find valid: the fast check may only ever be unsure, never wrong.

use serde_json::Value;

/// One input: `schema \0 value`.
pub fn run(data: &[u8]) {
    let Some(split) = data.iter().position(|&b| b == 0) else {
        return;
    };
    let (Ok(schema), Ok(value)) = (
        serde_json::from_slice::<Value>(&data[..split]),
        serde_json::from_slice::<Value>(&data[split + 1..]),
    ) else {
        return;
    };
    let Some((fast, validator)) = toolspec::__private::fast_and_validator(&schema) else {
        return;
    };
    if fast.accepts(&value) {
        assert!(
            validator.is_valid(&value),
            "the fast check proved {value} valid under {schema}; the validator refuses it"
        );
    }
}
