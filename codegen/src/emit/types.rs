//! Rust types for fields: structs for objects, enums for string `one_of`s and `any_of`s,
//! `Option` for optional and nullable fields, and functions for `default:` values.

use std::collections::BTreeSet;

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use serde_json::Value as Json;

use crate::rust_name::{self, ident, type_name, value_name};
use crate::shapes::Shapes;
use crate::spec::{Field, FieldType};

/// Paths every generated item spells out in full, so a user's imports cannot break them.
pub fn serde_derives() -> TokenStream {
    quote! {
        #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::cmp::PartialEq, ::toolspec::__private::serde::Serialize, ::toolspec::__private::serde::Deserialize)]
        #[serde(crate = "::toolspec::__private::serde")]
    }
}

/// `#[doc = …]` attributes for a text, one per line.
pub fn doc(text: Option<&str>) -> TokenStream {
    let Some(text) = text else {
        return TokenStream::new();
    };
    let lines = text.trim_end().lines().map(|line| format!(" {line}"));
    quote! { #( #[doc = #lines] )* }
}

/// Generates the types of one module (a tool's, or the named types').
pub struct TypeGen<'a> {
    /// Items generated so far (structs, enums, default functions).
    pub items: Vec<TokenStream>,
    /// Path from this module to the `types` module (named types and shapes); `None` inside it.
    types_path: Option<TokenStream>,
    /// Names of the module's items so far (types, and default functions).
    used: BTreeSet<String>,
    /// The project's shape types.
    shapes: &'a Shapes,
    /// The spec file the fields being generated are written in (to find their shapes).
    file: &'a str,
}

impl<'a> TypeGen<'a> {
    /// A generator for the fields of `file`, whose references to the `types` module go through
    /// `types_path` (bare inside it); `reserved` names are never used for generated types.
    pub fn new(
        types_path: Option<TokenStream>,
        reserved: &[&str],
        shapes: &'a Shapes,
        file: &'a str,
    ) -> Self {
        Self {
            items: Vec::new(),
            types_path,
            used: reserved.iter().map(|s| (*s).to_owned()).collect(),
            shapes,
            file,
        }
    }

    /// Generates the fields of `file` from now on.
    pub fn in_file(&mut self, file: &'a str) {
        self.file = file;
    }

    /// A type of the `types` module, by its name, from this module.
    fn in_types(&self, name: &Ident) -> TokenStream {
        match &self.types_path {
            Some(path) => quote! { #path::#name },
            None => quote! { #name },
        }
    }

    /// Reserves a type name (a spelling from [`rust_name`]): `base`, else `prefix` and `base`,
    /// with a number added while it is taken.
    pub fn claim(&mut self, base: &str, prefix: &str) -> Ident {
        let name = if self.used.contains(base) {
            format!("{prefix}{base}")
        } else {
            base.to_owned()
        };
        ident(&self.unique(name))
    }

    /// `name`, or `name` with a number, whichever is free first; now taken.
    fn unique(&mut self, name: String) -> String {
        let mut candidate = name.clone();
        let mut n = 2;
        while self.used.contains(&candidate) {
            candidate = rust_name::numbered(&name, n);
            n += 1;
        }
        self.used.insert(candidate.clone());
        candidate
    }

    /// Emits a struct named `name` for `fields`.
    pub fn structure(
        &mut self,
        name: &Ident,
        description: Option<&str>,
        fields: &[&Field],
        prefix: &str,
    ) {
        self.structure_with(name, description, TokenStream::new(), fields, prefix);
    }

    /// Emits a struct named `name` whose members are `leading`, then `fields`'.
    pub fn structure_with(
        &mut self,
        name: &Ident,
        description: Option<&str>,
        leading: TokenStream,
        fields: &[&Field],
        prefix: &str,
    ) {
        let docs = doc(description);
        let derives = serde_derives();
        let mut members = vec![leading];
        for field in fields {
            members.push(self.member(field, &name.to_string(), prefix));
        }
        self.items.push(quote! {
            #docs
            #derives
            pub struct #name { #(#members)* }
        });
    }

    fn member(&mut self, field: &Field, owner: &str, prefix: &str) -> TokenStream {
        let spelled = value_name(&field.name);
        let member = ident(&spelled);
        let base = format!("{}{}", owner_prefix(owner), type_name(&field.name));
        let inner = self.value_type(field, &base, prefix);
        let ty = wrap(field, inner.clone());
        let mut docs = field.description.clone();
        if field.deprecated {
            docs = Some(match docs {
                Some(d) => format!("{d}\n\nDeprecated."),
                None => "Deprecated.".into(),
            });
        }
        let docs = doc(docs.as_deref());
        let rename = (spelled != field.name).then(|| {
            let name = &field.name;
            quote! { #[serde(rename = #name)] }
        });
        let serde_default = if let Some(default) = &field.default {
            let fn_path = self.unique(format!(
                "default_{}_{spelled}",
                toolspec_vocab::naming::snake_case(owner)
            ));
            let fn_name = ident(&fn_path);
            let value = self.default_expr(field, &default.value, &inner);
            self.items.push(quote! {
                fn #fn_name() -> #ty { #value }
            });
            quote! { #[serde(default = #fn_path)] }
        } else if field.optional {
            quote! { #[serde(default, skip_serializing_if = "::core::option::Option::is_none")] }
        } else {
            TokenStream::new()
        };
        quote! {
            #docs
            #rename
            #serde_default
            pub #member: #ty,
        }
    }

    /// The Rust type of a field, generating what it needs; `base` names generated types.
    pub fn field_type(&mut self, field: &Field, base: &str, prefix: &str) -> TokenStream {
        let inner = self.value_type(field, base, prefix);
        let wrapped = field.optional && field.default.is_none()
            || field.nullable && !matches!(field.ty, FieldType::Json);
        if wrapped {
            quote! { ::core::option::Option<#inner> }
        } else {
            inner
        }
    }

    fn value_type(&mut self, field: &Field, base: &str, prefix: &str) -> TokenStream {
        if let Some(path) = &field.rust_type {
            return syn::parse_str::<syn::TypePath>(&path.value)
                .map(|p| quote! { #p })
                .unwrap_or_else(|_| quote! { ::toolspec::__private::serde_json::Value });
        }
        match &field.ty {
            FieldType::String => match &field.one_of {
                Some(values) => {
                    let name = self.claim(base, prefix);
                    let strings: Vec<&str> = values.value.iter().filter_map(Json::as_str).collect();
                    self.string_enum(&name, field.description.as_deref(), &strings);
                    quote! { #name }
                }
                None => quote! { ::std::string::String },
            },
            FieldType::Integer => quote! { i64 },
            FieldType::Number => quote! { f64 },
            FieldType::Boolean => quote! { bool },
            FieldType::Uuid => quote! { ::toolspec::__private::types::Uuid },
            FieldType::Date => quote! { ::toolspec::__private::types::NaiveDate },
            FieldType::DateTime => {
                quote! { ::toolspec::__private::types::DateTime<::toolspec::__private::types::FixedOffset> }
            }
            FieldType::Decimal => quote! { ::toolspec::__private::types::Decimal },
            FieldType::Shape { .. } => match self.shapes.root(self.file, shape_span(field)) {
                Some(root) => self.in_types(&ident(root)),
                None => quote! { ::toolspec::__private::serde_json::Value },
            },
            FieldType::Json => quote! { ::toolspec::__private::serde_json::Value },
            FieldType::Object(fields) => {
                let name = self.claim(base, prefix);
                let fields: Vec<&Field> = fields.iter().collect();
                self.structure(&name, field.description.as_deref(), &fields, prefix);
                quote! { #name }
            }
            FieldType::Array(items) => {
                let inner = self.field_type(items, &format!("{base}Item"), prefix);
                quote! { ::std::vec::Vec<#inner> }
            }
            FieldType::Map(values) => {
                let inner = self.field_type(values, &format!("{base}Value"), prefix);
                quote! { ::std::collections::BTreeMap<::std::string::String, #inner> }
            }
            FieldType::Named(name) => self.in_types(&ident(&rust_name::spelling(name))),
            FieldType::AnyOf { variants, tag } => {
                let name = self.claim(base, prefix);
                let mut arms = Vec::new();
                let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
                for (variant, variant_ident) in variants.iter().zip(variant_idents(&names)) {
                    let payload_base = format!("{name}{variant_ident}");
                    let payload = self.field_type(&variant.field, &payload_base, prefix);
                    let docs = doc(variant.field.description.as_deref());
                    let rename = tag.as_ref().map(|_| {
                        let value = &variant.name;
                        quote! { #[serde(rename = #value)] }
                    });
                    arms.push(quote! { #docs #rename #variant_ident(#payload), });
                }
                let docs = doc(field.description.as_deref());
                let derives = serde_derives();
                let representation = match tag {
                    Some(tag) => quote! { #[serde(tag = #tag)] },
                    None => quote! { #[serde(untagged)] },
                };
                self.items.push(quote! {
                    #docs
                    #derives
                    #representation
                    pub enum #name { #(#arms)* }
                });
                quote! { #name }
            }
        }
    }

    /// Emits an enum for string values (see `toolspec::string_enum!`).
    pub fn string_enum(&mut self, name: &Ident, description: Option<&str>, values: &[&str]) {
        let docs = doc(description);
        let variants = variant_idents(values);
        self.items.push(quote! {
            #docs
            #[derive(::core::fmt::Debug, ::core::clone::Clone, ::core::marker::Copy, ::core::cmp::PartialEq, ::core::cmp::Eq, ::core::hash::Hash)]
            pub enum #name { #( #variants, )* }
            ::toolspec::__private::string_enum!(#name { #( #variants = #values ),* });
        });
    }

    /// A Rust expression for a checked `default:` value; `inner` is the type without `Option`.
    fn default_expr(&self, field: &Field, value: &Json, inner: &TokenStream) -> TokenStream {
        let nullable = field.nullable && !matches!(field.ty, FieldType::Json);
        if nullable {
            if value.is_null() {
                return quote! { ::core::option::Option::None };
            }
            let value = self.plain_default(field, value, inner);
            return quote! { ::core::option::Option::Some(#value) };
        }
        self.plain_default(field, value, inner)
    }

    fn plain_default(&self, field: &Field, value: &Json, ty: &TokenStream) -> TokenStream {
        if field.rust_type.is_none() {
            match (&field.ty, value) {
                (FieldType::String, Json::String(s)) => match &field.one_of {
                    None => return quote! { ::std::string::String::from(#s) },
                    Some(one_of) => {
                        let values: Vec<&str> =
                            one_of.value.iter().filter_map(Json::as_str).collect();
                        if let Some(i) = values.iter().position(|v| v == s) {
                            let variant = &variant_idents(&values)[i];
                            return quote! { #ty::#variant };
                        }
                    }
                },
                (FieldType::Integer, Json::Number(n)) => {
                    if let Some(i) = n.as_i64() {
                        return quote! { #i };
                    }
                }
                (FieldType::Number, Json::Number(n)) => {
                    if let Some(f) = n.as_f64() {
                        return quote! { #f };
                    }
                }
                (FieldType::Boolean, Json::Bool(b)) => return quote! { #b },
                _ => {}
            }
        }
        let json = value.to_string();
        quote! { ::toolspec::__private::default_from_json(#json) }
    }
}

/// `Option<inner>` for optional (without default) and nullable fields.
fn wrap(field: &Field, inner: TokenStream) -> TokenStream {
    let optional = field.optional && field.default.is_none();
    let nullable = field.nullable && !matches!(field.ty, FieldType::Json);
    if optional || nullable {
        quote! { ::core::option::Option<#inner> }
    } else {
        inner
    }
}

/// Enum variant names for string values: UpperCamelCase, numbered when two collide.
pub fn variant_idents(values: &[&str]) -> Vec<Ident> {
    let mut seen = BTreeSet::new();
    values
        .iter()
        .map(|v| {
            let base = type_name(v);
            let mut candidate = base.clone();
            let mut n = 2;
            while !seen.insert(candidate.clone()) {
                candidate = rust_name::numbered(&base, n);
                n += 1;
            }
            ident(&candidate)
        })
        .collect()
}

/// Generated types nested in `Input`, `Ambient` and `Output` are named from the field path
/// alone (`Reason`, `Shipping`); the root structs themselves do not prefix their children.
fn owner_prefix(owner: &str) -> &str {
    match owner {
        "Input" | "Ambient" | "Output" => "",
        other => other,
    }
}

/// Where a shape field's schema is written: its `file:` value, else its `shape:`.
pub fn shape_span(field: &Field) -> crate::source::Span {
    match &field.ty {
        FieldType::Shape {
            file: Some(path), ..
        } => path.span,
        _ => field.type_span,
    }
}
