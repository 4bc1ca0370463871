//! The `types` module: the named types of `types:` files, and the types of `shape`s.

use crate::emit::code::Code;
use crate::emit::types::{TypeGen, shape_span};
use crate::project::Project;
use crate::rust_name::{self, ident};
use crate::spec::{Field, FieldType};

/// The path from a module `depth` modules below the file's root back to it: `super::` each.
pub fn supers(depth: usize) -> String {
    "super::".repeat(depth)
}

/// The `types` module: the named types, and the Rust types of every shape (nothing when there
/// are neither), written out.
pub fn named_types(project: &Project) -> String {
    let shapes = &project.shapes;
    if project.types.is_empty() && shapes.is_empty() {
        return String::new();
    }
    let mut types_gen = TypeGen::new(None, &[], shapes, "");
    let names: Vec<String> = project.types.keys().cloned().collect();
    for name in &names {
        types_gen.claim(&rust_name::spelling(name), "");
    }
    for named in project.types.values() {
        let field = &named.field;
        types_gen.in_file(&named.file);
        let name = ident(&rust_name::spelling(&field.name)).to_string();
        match &field.ty {
            // The shape's own root type has the named type's name.
            FieldType::Shape { .. }
                if shapes.root(&named.file, shape_span(field)) == Some(&field.name) => {}
            FieldType::Object(fields) if field.rust_type.is_none() => {
                let fields: Vec<&Field> = fields.iter().collect();
                types_gen.structure(&name, field.description.as_deref(), &fields, "");
            }
            FieldType::String if field.one_of.is_some() && field.rust_type.is_none() => {
                let values: Vec<&str> = field
                    .one_of
                    .iter()
                    .flat_map(|o| o.value.iter().filter_map(|v| v.as_str()))
                    .collect();
                types_gen.string_enum(&name, field.description.as_deref(), &values);
            }
            _ => {
                let scratch = format!("{}Inner", field.name);
                let ty = types_gen.field_type(field, &scratch, "");
                let mut code = Code::new();
                code.doc(field.description.as_deref());
                code.line(&format!("pub type {name} = {ty};"));
                types_gen.items.push(code.finish());
            }
        }
    }
    let doc = match (project.types.is_empty(), shapes.is_empty()) {
        (false, true) => "Named types shared by the tools (from `types:` files).",
        (true, false) => "The types of the tools' `shape`s.",
        _ => "Types the tools share: named types (from `types:` files) and the types of `shape`s.",
    };
    let mut code = Code::new();
    code.doc(Some(doc));
    code.open("pub mod types {");
    for item in &types_gen.items {
        code.block(item);
    }
    // Checked when the shapes were resolved: the source parses. typify's items, formatted.
    if !shapes.is_empty() {
        code.block(&crate::emit::format::format_tokens(
            shapes.items.parse().unwrap_or_default(),
        ));
    }
    code.close("}");
    code.finish()
}
