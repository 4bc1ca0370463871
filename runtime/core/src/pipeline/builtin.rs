//! What the built-in tools (explain, task status) share: their arguments are checked against
//! the schema they publish, compiled once, and explaining a call of one is checking them.

use std::sync::OnceLock;

use serde_json::Value;

use crate::model::explain::explanation::Explanation;
use crate::model::limits::Limits;
use crate::model::report::Errors;
use crate::pipeline::checks::validate;
use crate::schema::sensitive::Sensitivity;

/// A built-in tool's published input schema, and its validator once compiled.
pub(crate) struct BuiltinSchema {
    source: &'static str,
    validator: OnceLock<Option<jsonschema::Validator>>,
}

impl BuiltinSchema {
    /// The schema `source` (JSON), compiled when first used.
    pub(crate) const fn new(source: &'static str) -> Self {
        Self {
            source,
            validator: OnceLock::new(),
        }
    }

    /// The explanation of a call of the built-in tool `tool` with `args`: it always runs, so
    /// only its own arguments can be wrong.
    pub(crate) fn explain(&self, tool: &str, args: &Value, limits: &Limits) -> Explanation {
        let mut explanation = Explanation::refused(tool, self.errors(args, limits));
        explanation.callable = explanation.errors.is_empty();
        explanation
    }

    /// Every error of `args` against the schema, within `limits`.
    pub(crate) fn errors(&self, args: &Value, limits: &Limits) -> Errors {
        let validator = self.validator.get_or_init(|| {
            let compiled = serde_json::from_str(self.source)
                .ok()
                .and_then(|s| validate::compile::<&str>(&s, &[]).ok());
            if compiled.is_none() {
                tracing::error!(
                    schema = self.source,
                    "a built-in tool's schema does not compile"
                );
            }
            compiled
        });
        match validator {
            Some(validator) => validate::errors(validator, args, limits, &Sensitivity::default()),
            None => Errors::default(),
        }
    }
}
