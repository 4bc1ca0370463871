//! Stage 2, shapes: `shape` fields (a raw JSON Schema, inline or `{ file: path.json }`) turned
//! into Rust types by typify, one type space for the whole project.
//!
//! [`resolve`] reads every `file:` schema into the spec model, checks every shape's patterns,
//! names each shape's root type (unique in the project: a named type's shape takes the type's
//! name, a tool's is named after its spec and field path), runs typify on each alone to report
//! what it cannot convert at that shape, then once on all of them together. The result,
//! [`Shapes`], is Rust source that depends on `::toolspec` only and is emitted into the `types`
//! module, with the root type of every shape found by where the shape is written.
//!
//! typify turns a string `pattern` into a `regress`-checked newtype; patterns are removed from
//! the schema it sees, so such strings are plain `String`s (the canonical schema keeps them,
//! so calls are still checked against them). Definitions and nested `title`s are prefixed with
//! the root's name, so that no two shapes give a type one name.

use crate::diagnostic::kind::Kind;

pub mod files;
pub mod rust;
pub mod sites;
pub mod typify;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use crate::diagnostic::Diagnostic;
use crate::shapes::files::{check_patterns, load};
use crate::shapes::rust::post_process;
use crate::shapes::sites::{Site, sites};
use crate::shapes::typify::{project_space, shape_input, try_alone};
use crate::source::Span;
use crate::spec::{FieldType, ToolSpec, Types};

/// The Rust types of a project's shapes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shapes {
    /// typify's items for every shape, as Rust source (empty without shapes).
    pub items: String,
    /// The root type of each shape, by where its `shape:` is written (file, span).
    roots: BTreeMap<(String, Span), String>,
}

impl Shapes {
    /// The Rust type of the shape written at `span` in `file`, if one was generated.
    pub fn root(&self, file: &str, span: Span) -> Option<&str> {
        self.roots.get(&(file.to_owned(), span)).map(String::as_str)
    }

    /// Whether any type was generated.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
}

/// Reads the schema of every `shape: { file: … }` into the model, checks every shape, and
/// generates the Rust types of all of them. Problems become diagnostics: a missing file at
/// its `file:` value, invalid JSON at the error's line and column in the file, a pattern the
/// runtime cannot run or a schema typify cannot convert at the `shape:`.
///
/// `json_files` holds the text of the `.json` files below the specs directory, keyed by
/// display path (as in diagnostics: `specs/shapes/geometry.json`).
pub fn resolve(
    specs: &mut [ToolSpec],
    types: &mut Types,
    json_files: &BTreeMap<String, String>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Shapes {
    read_files(specs, types, json_files, diagnostics);
    let taken = types.keys().cloned().collect();
    let mut inputs = Vec::new();
    let mut roots = BTreeMap::new();
    for site in sites(specs, types, taken) {
        let Site {
            file,
            span,
            field,
            root,
            schema,
            note,
            custom,
        } = site;
        check_patterns(&field, &schema, &file, span, note.as_deref(), diagnostics);
        if custom || !schema.is_object() {
            continue; // `rust_type:` names the type; nothing to generate
        }
        let input = shape_input(&schema, &root).and_then(|input| {
            try_alone(input.clone(), &root)?;
            Ok(input)
        });
        match input {
            Ok(input) => {
                inputs.push(input);
                roots.insert((file, span), root);
            }
            Err(reason) => {
                let mut d = Diagnostic::error(
                    Kind::Shape,
                    &file,
                    Some(span),
                    format!("cannot generate a Rust type for `shape` of `{field}`: {reason}"),
                )
                .with_label("typify cannot turn this schema into Rust types")
                .with_help("simplify the schema, or use `type: json` / `rust_type:`");
                if let Some(note) = note {
                    d = d.with_note(note);
                }
                diagnostics.push(d);
            }
        }
    }
    if inputs.is_empty() {
        return Shapes::default();
    }
    let expected: Vec<&str> = roots.values().map(String::as_str).collect();
    let named: Vec<&str> = types.keys().map(String::as_str).collect();
    match project_space(inputs).and_then(|tokens| post_process(tokens, &expected, &named)) {
        Ok(items) => Shapes { items, roots },
        Err(reason) => {
            // Every shape converted alone: only their meeting can fail, which names what clashes.
            diagnostics.push(Diagnostic::error(
                Kind::Shape,
                "",
                None,
                format!(
                    "cannot generate the Rust types of the project's shapes together: {reason}"
                ),
            ));
            Shapes::default()
        }
    }
}

/// Reads the schema of every `shape: { file: … }` into the model (named types and tools, at
/// any depth).
fn read_files(
    specs: &mut [ToolSpec],
    types: &mut Types,
    json_files: &BTreeMap<String, String>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut fill = |owner: &str, field: &mut crate::spec::Field| {
        let FieldType::Shape { schema, file } = &mut field.ty else {
            return;
        };
        let Some(path) = file else { return };
        match load(path, owner, json_files) {
            Ok((_, value)) => *schema = value,
            Err(d) => {
                diagnostics.push(*d);
                *file = None; // nothing more to say about it
            }
        }
    };
    for named in types.values_mut() {
        let owner = named.file.clone();
        crate::spec::visit::visit_mut(&mut named.field, &mut |f| fill(&owner, f));
    }
    for spec in specs {
        let owner = spec.file.clone();
        for field in spec.expects.iter_mut().chain(spec.exposes.iter_mut()) {
            crate::spec::visit::visit_mut(field, &mut |f| fill(&owner, f));
        }
    }
}
