//! Rust types for fields: structs for objects, enums for string `one_of`s and `any_of`s,
//! `Option` for optional and nullable fields, and functions for `default:` values — each item
//! written as formatted source (`code`).

use std::collections::BTreeSet;

use serde_json::Value as Json;

use crate::emit::code::Code;
use crate::emit::literal::string;
use crate::rust_name::{self, ident, type_name, value_name};
use crate::shapes::Shapes;
use crate::spec::{Field, FieldType};

/// The derives of a model type; paths every generated item spells out in full, so a user's
/// imports cannot break them.
pub const SERDE_DERIVES: &str = "#[derive(
    ::core::fmt::Debug,
    ::core::clone::Clone,
    ::core::cmp::PartialEq,
    ::toolspec::__private::serde::Serialize,
    ::toolspec::__private::serde::Deserialize
)]
#[serde(crate = \"::toolspec::__private::serde\")]";

/// The derives of a field-less enum (string values, error codes, guards).
pub const UNIT_ENUM_DERIVES: &str = "#[derive(
    ::core::fmt::Debug,
    ::core::clone::Clone,
    ::core::marker::Copy,
    ::core::cmp::PartialEq,
    ::core::cmp::Eq,
    ::core::hash::Hash
)]";

/// `pub enum name { variant, … }` (each after its doc), written into `code`.
pub fn unit_enum(code: &mut Code, name: &str, variants: &[(String, Option<&str>)]) {
    if variants.is_empty() {
        code.line(&format!("pub enum {name} {{}}"));
        return;
    }
    code.open(&format!("pub enum {name} {{"));
    for (variant, doc) in variants {
        code.doc(*doc);
        code.line(&format!("{variant},"));
    }
    code.close("}");
}

/// Generates the types of one module (a tool's, or the named types').
pub struct TypeGen<'a> {
    /// Items generated so far (structs, enums, default functions), each written out.
    pub items: Vec<String>,
    /// Path from this module to the `types` module (named types and shapes, `super::types`);
    /// `None` inside it.
    types_path: Option<String>,
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
        types_path: Option<String>,
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
    fn in_types(&self, name: &str) -> String {
        let name = ident(name);
        match &self.types_path {
            Some(path) => format!("{path}::{name}"),
            None => name.to_string(),
        }
    }

    /// Reserves a type name (a spelling from [`rust_name`]): `base`, else `prefix` and `base`,
    /// with a number added while it is taken.
    pub fn claim(&mut self, base: &str, prefix: &str) -> String {
        let name = if self.used.contains(base) {
            format!("{prefix}{base}")
        } else {
            base.to_owned()
        };
        ident(&self.unique(name)).to_string()
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
        name: &str,
        description: Option<&str>,
        fields: &[&Field],
        prefix: &str,
    ) {
        self.structure_with(name, description, "", fields, prefix);
    }

    /// Emits a struct named `name` whose members are `leading` (written out), then `fields`'.
    pub fn structure_with(
        &mut self,
        name: &str,
        description: Option<&str>,
        leading: &str,
        fields: &[&Field],
        prefix: &str,
    ) {
        // The members first: they emit the types and functions they need.
        let members: Vec<String> = fields
            .iter()
            .map(|field| self.member(field, name, prefix))
            .collect();
        let mut code = Code::new();
        code.doc(description);
        code.block(SERDE_DERIVES);
        if leading.is_empty() && members.is_empty() {
            code.line(&format!("pub struct {name} {{}}"));
        } else {
            code.open(&format!("pub struct {name} {{"));
            code.block(leading);
            for member in &members {
                code.block(member);
            }
            code.close("}");
        }
        self.items.push(code.finish());
    }

    fn member(&mut self, field: &Field, owner: &str, prefix: &str) -> String {
        let spelled = value_name(&field.name);
        let member = ident(&spelled);
        let base = format!("{}{}", owner_prefix(owner), type_name(&field.name));
        let inner = self.value_type(field, &base, prefix);
        let ty = wrap(field, &inner);
        let mut docs = field.description.clone();
        if field.deprecated {
            docs = Some(match docs {
                Some(d) => format!("{d}\n\nDeprecated."),
                None => "Deprecated.".into(),
            });
        }
        let mut code = Code::new();
        code.doc(docs.as_deref());
        if spelled != field.name {
            code.line(&format!("#[serde(rename = {})]", string(&field.name)));
        }
        if let Some(default) = &field.default {
            let fn_path = self.unique(format!(
                "default_{}_{spelled}",
                toolspec_vocab::naming::snake_case(owner)
            ));
            let value = self.default_expr(field, &default.value, &inner);
            let fn_name = ident(&fn_path);
            self.items
                .push(format!("fn {fn_name}() -> {ty} {{\n    {value}\n}}\n"));
            code.line(&format!("#[serde(default = {})]", string(&fn_path)));
        } else if field.optional {
            code.line(
                "#[serde(default, skip_serializing_if = \"::core::option::Option::is_none\")]",
            );
        }
        code.line(&format!("pub {member}: {ty},"));
        code.finish()
    }

    /// The Rust type of a field, generating what it needs; `base` names generated types.
    pub fn field_type(&mut self, field: &Field, base: &str, prefix: &str) -> String {
        let inner = self.value_type(field, base, prefix);
        let wrapped = field.optional && field.default.is_none()
            || field.nullable && !matches!(field.ty, FieldType::Json);
        if wrapped {
            format!("::core::option::Option<{inner}>")
        } else {
            inner
        }
    }

    fn value_type(&mut self, field: &Field, base: &str, prefix: &str) -> String {
        const JSON: &str = "::toolspec::__private::serde_json::Value";
        if let Some(path) = &field.rust_type {
            // Written as the spec has it when it is a Rust type path.
            return match syn::parse_str::<syn::TypePath>(&path.value) {
                Ok(_) => path.value.trim().to_owned(),
                Err(_) => JSON.to_owned(),
            };
        }
        match &field.ty {
            FieldType::String => match &field.one_of {
                Some(values) => {
                    let name = self.claim(base, prefix);
                    let strings: Vec<&str> = values.value.iter().filter_map(Json::as_str).collect();
                    self.string_enum(&name, field.description.as_deref(), &strings);
                    name
                }
                None => "::std::string::String".into(),
            },
            FieldType::Integer => "i64".into(),
            FieldType::Number => "f64".into(),
            FieldType::Boolean => "bool".into(),
            FieldType::Uuid => "::toolspec::__private::types::Uuid".into(),
            FieldType::Date => "::toolspec::__private::types::NaiveDate".into(),
            FieldType::DateTime => {
                "::toolspec::__private::types::DateTime<::toolspec::__private::types::FixedOffset>"
                    .into()
            }
            FieldType::Decimal => "::toolspec::__private::types::Decimal".into(),
            FieldType::Shape { .. } => match self.shapes.root(self.file, shape_span(field)) {
                Some(root) => self.in_types(root),
                None => JSON.into(),
            },
            FieldType::Json => JSON.into(),
            FieldType::Object(fields) => {
                let name = self.claim(base, prefix);
                let fields: Vec<&Field> = fields.iter().collect();
                self.structure(&name, field.description.as_deref(), &fields, prefix);
                name
            }
            FieldType::Array(items) => {
                let inner = self.field_type(items, &format!("{base}Item"), prefix);
                format!("::std::vec::Vec<{inner}>")
            }
            FieldType::Map(values) => {
                let inner = self.field_type(values, &format!("{base}Value"), prefix);
                format!("::std::collections::BTreeMap<::std::string::String, {inner}>")
            }
            FieldType::Named(name) => self.in_types(&rust_name::spelling(name)),
            FieldType::AnyOf { variants, tag } => {
                let name = self.claim(base, prefix);
                let mut arms = Code::new();
                let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
                for (variant, variant_ident) in variants.iter().zip(variant_idents(&names)) {
                    let payload_base = format!("{name}{variant_ident}");
                    let payload = self.field_type(&variant.field, &payload_base, prefix);
                    arms.doc(variant.field.description.as_deref());
                    if tag.is_some() {
                        arms.line(&format!("#[serde(rename = {})]", string(&variant.name)));
                    }
                    arms.line(&format!("{variant_ident}({payload}),"));
                }
                let mut code = Code::new();
                code.doc(field.description.as_deref());
                code.block(SERDE_DERIVES);
                match tag {
                    Some(tag) => code.line(&format!("#[serde(tag = {})]", string(tag))),
                    None => code.line("#[serde(untagged)]"),
                }
                code.open(&format!("pub enum {name} {{"));
                code.block(&arms.finish());
                code.close("}");
                self.items.push(code.finish());
                name
            }
        }
    }

    /// Emits an enum for string values (see `toolspec::string_enum!`).
    pub fn string_enum(&mut self, name: &str, description: Option<&str>, values: &[&str]) {
        let variants = variant_idents(values);
        let mut code = Code::new();
        code.doc(description);
        code.block(UNIT_ENUM_DERIVES);
        let undocumented: Vec<(String, Option<&str>)> =
            variants.iter().map(|v| (v.clone(), None)).collect();
        unit_enum(&mut code, name, &undocumented);
        let entries: Vec<String> = variants
            .iter()
            .zip(values)
            .map(|(variant, value)| format!("{variant} = {}", string(value)))
            .collect();
        code.macro_call("::toolspec::__private::string_enum", name, &entries);
        self.items.push(code.finish());
    }

    /// A Rust expression for a checked `default:` value; `inner` is the type without `Option`.
    fn default_expr(&self, field: &Field, value: &Json, inner: &str) -> String {
        let nullable = field.nullable && !matches!(field.ty, FieldType::Json);
        if nullable {
            if value.is_null() {
                return "::core::option::Option::None".into();
            }
            let value = self.plain_default(field, value, inner);
            return format!("::core::option::Option::Some({value})");
        }
        self.plain_default(field, value, inner)
    }

    fn plain_default(&self, field: &Field, value: &Json, ty: &str) -> String {
        if field.rust_type.is_none() {
            match (&field.ty, value) {
                (FieldType::String, Json::String(s)) => match &field.one_of {
                    None => return format!("::std::string::String::from({})", string(s)),
                    Some(one_of) => {
                        let values: Vec<&str> =
                            one_of.value.iter().filter_map(Json::as_str).collect();
                        if let Some(i) = values.iter().position(|v| v == s) {
                            let variant = &variant_idents(&values)[i];
                            return format!("{ty}::{variant}");
                        }
                    }
                },
                (FieldType::Integer, Json::Number(n)) => {
                    if let Some(i) = n.as_i64() {
                        return format!("{i}i64");
                    }
                }
                (FieldType::Number, Json::Number(n)) => {
                    if let Some(f) = n.as_f64().filter(|f| f.is_finite()) {
                        return format!("{f:?}f64");
                    }
                }
                (FieldType::Boolean, Json::Bool(b)) => return b.to_string(),
                _ => {}
            }
        }
        let json = value.to_string();
        format!(
            "::toolspec::__private::default_from_json({})",
            string(&json)
        )
    }
}

/// `Option<inner>` for optional (without default) and nullable fields.
fn wrap(field: &Field, inner: &str) -> String {
    let optional = field.optional && field.default.is_none();
    let nullable = field.nullable && !matches!(field.ty, FieldType::Json);
    if optional || nullable {
        format!("::core::option::Option<{inner}>")
    } else {
        inner.to_owned()
    }
}

/// Enum variant names for string values: UpperCamelCase, numbered when two collide.
pub fn variant_idents(values: &[&str]) -> Vec<String> {
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
            ident(&candidate).to_string()
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
