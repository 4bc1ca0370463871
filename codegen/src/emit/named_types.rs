//! The `types` module: the named types of `types:` files.

use proc_macro2::TokenStream;
use quote::quote;

use crate::emit::types::{TypeGen, doc};
use crate::project::Project;
use crate::rust_name::{self, ident};
use crate::spec::{Field, FieldType};

pub fn supers(depth: usize) -> TokenStream {
    let supers = (0..depth).map(|_| quote! { super:: });
    quote! { #(#supers)* }
}

/// The named types' module (nothing when there are none).
pub fn named_types(project: &Project) -> TokenStream {
    if project.types.is_empty() {
        return TokenStream::new();
    }
    let mut types_gen = TypeGen::new(quote! { super::types }, &[]);
    let names: Vec<String> = project.types.keys().cloned().collect();
    for name in &names {
        types_gen.claim(&rust_name::spelling(name), "");
    }
    for named in project.types.values() {
        let field = &named.field;
        let name = ident(&rust_name::spelling(&field.name));
        match &field.ty {
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
    quote! {
        /// Named types shared by the tools (from `types:` files).
        pub mod types {
            #(#items)*
        }
    }
}
