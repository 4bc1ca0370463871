//! Where a project's shapes are written, and the name each one's root type takes: unique in
//! the project, so that all of them share one type space.

use std::collections::BTreeSet;

use serde_json::Value as Json;

use heck::ToUpperCamelCase;

use crate::rust_name;
use crate::shapes::files::relative_to;
use crate::source::Span;
use crate::spec::{Field, FieldType, ToolSpec, Types};

/// One `shape` field.
#[derive(Debug, Clone)]
pub struct Site {
    /// The file it is written in (display path).
    pub file: String,
    /// Where diagnostics about it point: its `file:` value, else its `shape:`.
    pub span: Span,
    /// The field's name, for messages.
    pub field: String,
    /// The name of its root type.
    pub root: String,
    /// Its schema.
    pub schema: Json,
    /// Where the schema came from, when it was read from a file.
    pub note: Option<String>,
    /// The field names its own Rust type (`rust_type:`): nothing is generated.
    pub custom: bool,
}

/// Every shape of the named types (by name) and then of the tools (in spec order), each with
/// a root name that none of `taken` (the named types' names) and no other shape has.
pub fn sites(specs: &[ToolSpec], types: &Types, mut taken: BTreeSet<String>) -> Vec<Site> {
    let mut out = Vec::new();
    for (name, named) in types {
        // A named type that is a shape is that shape's root type, unless it may be null.
        let field = &named.field;
        let own = matches!(field.ty, FieldType::Shape { .. }) && !field.nullable;
        let base = if own {
            name.clone()
        } else {
            format!("{name}Inner")
        };
        collect(&named.file, field, &base, own, &mut taken, &mut out);
    }
    for spec in specs {
        let stem = spec.path.trim_end_matches(".yaml").trim_end_matches(".yml");
        let prefix: String = stem.split('/').map(camel).collect();
        for field in spec.expects.iter().chain(&spec.exposes) {
            let base = format!("{prefix}{}", camel(&field.name));
            collect(&spec.file, field, &base, false, &mut taken, &mut out);
        }
    }
    out
}

/// The shapes in `field` (itself included), `base` naming the field's own type. `own`: the
/// base is already the field's (a named type's), taken by it.
fn collect(
    file: &str,
    field: &Field,
    base: &str,
    own: bool,
    taken: &mut BTreeSet<String>,
    out: &mut Vec<Site>,
) {
    match &field.ty {
        FieldType::Shape { schema, file: path } => {
            let root = if own {
                base.to_owned()
            } else {
                unique(base, taken)
            };
            out.push(Site {
                file: file.to_owned(),
                span: path.as_ref().map_or(field.type_span, |p| p.span),
                field: field.name.clone(),
                root,
                schema: schema.clone(),
                note: path
                    .as_ref()
                    .map(|p| format!("the schema is read from `{}`", relative_to(file, &p.value))),
                custom: field.rust_type.is_some(),
            });
        }
        FieldType::Object(fields) => {
            for f in fields {
                let base = format!("{base}{}", camel(&f.name));
                collect(file, f, &base, false, taken, out);
            }
        }
        FieldType::Array(inner) => collect(file, inner, &format!("{base}Item"), false, taken, out),
        FieldType::Map(inner) => collect(file, inner, &format!("{base}Value"), false, taken, out),
        FieldType::AnyOf { variants, .. } => {
            for v in variants {
                let base = format!("{base}{}", camel(&v.name));
                collect(file, &v.field, &base, false, taken, out);
            }
        }
        _ => {}
    }
}

/// `base`, or `base` with a number, whichever no type has yet; now taken.
fn unique(base: &str, taken: &mut BTreeSet<String>) -> String {
    let mut name = base.to_owned();
    let mut n = 2;
    while taken.contains(&name) {
        name = rust_name::numbered(base, n);
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// A part of a type name as typify spells a title: UpperCamelCase, letters and digits only
/// (never a keyword once it has a prefix).
fn camel(part: &str) -> String {
    part.to_upper_camel_case()
}
