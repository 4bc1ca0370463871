//! Stage 4, derive: what the build computes from the checked specs — each tool's canonical
//! JSON Schemas, where its values are sensitive, and its schema in every provider dialect it
//! is a member of. Looks back at the spec model and the analysis; never at how they are
//! emitted.

pub mod depth;
pub mod dialect;
pub mod form;
pub mod schema;
pub mod sensitive;
pub mod view;

use std::collections::BTreeMap;

use serde_json::Value;
use toolspec_vocab::Dialect;

use crate::analyze::checked::Checked;
use crate::derive::depth::{check_depths, check_type_depths};
use crate::derive::dialect::members::{binding_dialect, member_schemas};
use crate::derive::view::{narrow, view_schemas};
use crate::diagnostic::{Diagnostic, Severity};
use crate::read::reader::Reader;
use crate::spec::{ProjectConfig, Types};

/// What the build computes for one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Schemas {
    /// Canonical input schema (ambient fields left out).
    pub input: Value,
    /// Canonical output schema.
    pub output: Value,
    /// Where the input schema's integers keep their own range (see [`schema::Canonical`]).
    pub own_ranges_input: Vec<String>,
    /// Where the output schema's integers keep their own range.
    pub own_ranges_output: Vec<String>,
    /// Where the input holds `sensitive` values (see [`sensitive`]), if anywhere.
    pub sensitive_input: Option<Value>,
    /// Where the output holds `sensitive` values, if anywhere.
    pub sensitive_output: Option<Value>,
    /// The input schema in each member dialect but `mcp` (the canonical schema itself); empty
    /// when the project has errors.
    pub dialects: BTreeMap<Dialect, Value>,
    /// A query tool's input schemas on each adapter that narrows it, by adapter: in `mcp` and
    /// in the adapter's dialect. Empty when the project has errors.
    pub views: BTreeMap<String, Vec<(Dialect, Value)>>,
    /// The schema of each form of the tool's `ask:`, in order.
    pub forms: Vec<Value>,
}

/// Derives every checked tool's schemas; reports schemas too deep to emit and defaults that
/// do not fit their field, then (when nothing else is wrong) each member dialect.
pub fn derive(
    tools: &[Checked],
    types: &Types,
    config: &ProjectConfig,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Schemas> {
    let too_deep_types = check_type_depths(types, diagnostics);
    let derived = crate::parallel::map(tools, |tool| {
        let spec = &tool.spec;
        let mut local = Vec::new();
        let mut r = Reader::new(&spec.file, &mut local);
        let input = schema::input_schema(spec, types);
        let output = schema::output_schema(spec, types);
        let sides = [(&input.schema, "input"), (&output.schema, "output")];
        check_depths(&mut r, spec, types, &too_deep_types, sides);
        let schemas = Schemas {
            input: input.schema,
            output: output.schema,
            own_ranges_input: input.own_ranges,
            own_ranges_output: output.own_ranges,
            sensitive_input: sensitive::input(spec, types),
            sensitive_output: sensitive::output(spec, types),
            dialects: BTreeMap::new(),
            views: BTreeMap::new(),
            forms: form::form_schemas(&mut r, &spec.ask, &spec.expects),
        };
        (local, schemas)
    });
    let mut out = Vec::with_capacity(tools.len());
    for (local, schemas) in derived {
        diagnostics.extend(local);
        out.push(schemas);
    }
    // A broken spec would also report dialect errors that follow from it.
    if !diagnostics.iter().any(|d| d.severity == Severity::Error) {
        let inputs: Vec<&Value> = out.iter().map(|s| &s.input).collect();
        let dialects = member_schemas(tools, &inputs, config, types, diagnostics);
        for ((schemas, dialects), tool) in out.iter_mut().zip(dialects).zip(tools) {
            schemas.dialects = dialects;
            schemas.views = views(tool, &schemas.input, config);
        }
    }
    out
}

/// A query tool's schemas on each adapter that narrows it.
pub fn views(
    tool: &Checked,
    input: &Value,
    config: &ProjectConfig,
) -> BTreeMap<String, Vec<(Dialect, Value)>> {
    let Some(query) = &tool.spec.query else {
        return BTreeMap::new();
    };
    tool.bindings
        .iter()
        .filter_map(|binding| {
            let narrowed = narrow(input, query, binding.view.as_ref()?);
            let schemas = view_schemas(narrowed, binding_dialect(binding, config));
            Some((binding.adapter.clone(), schemas))
        })
        .collect()
}
