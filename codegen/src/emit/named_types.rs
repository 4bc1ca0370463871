//! The `types` module: the named types of `types:` files.

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::types::{TypeGen, doc, shape_span};
use crate::project::Project;
use crate::rust_name::{self, ident};
use crate::spec::{Field, FieldType};

pub fn supers(depth: usize) -> TokenStream {
    let supers = (0..depth).map(|_| quote! { super:: });
    quote! { #(#supers)* }
}

/// The `types` module: the named types, and the Rust types of every shape (nothing when there
/// are neither).
pub fn named_types(project: &Project) -> TokenStream {
    let shapes = &project.shapes;
    if project.types.is_empty() && shapes.is_empty() {
        return TokenStream::new();
    }
    let mut types_gen = TypeGen::new(None, &[], shapes, "");
    let names: Vec<String> = project.types.keys().cloned().collect();
    for name in &names {
        types_gen.claim(&rust_name::spelling(name), "");
    }
    for named in project.types.values() {
        let field = &named.field;
        types_gen.in_file(&named.file);
        let name = ident(&rust_name::spelling(&field.name));
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
                let docs = doc(field.description.as_deref());
                types_gen.items.push(quote! { #docs pub type #name = #ty; });
            }
        }
    }
    let items = types_gen.items;
    // Checked when the shapes were resolved: the source parses.
    let shape_items: TokenStream = shapes.items.parse().unwrap_or_default();
    let doc = match (project.types.is_empty(), shapes.is_empty()) {
        (false, true) => " Named types shared by the tools (from `types:` files).",
        (true, false) => " The types of the tools' `shape`s.",
        _ => " Types the tools share: named types (from `types:` files) and the types of `shape`s.",
    };
    quote! {
        #[doc = #doc]
        pub mod types {
            #(#items)*
            #shape_items
        }
    }
}
