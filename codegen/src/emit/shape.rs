//! `shape` fields: a raw JSON Schema, inline or `{ file: path/to/schema.json }`, turned into Rust
//! types by typify.
//!
//! While the project is checked, [`resolve_shapes`] reads `file:` schemas and runs typify on
//! every shape (catching its panics), and caches the generated items in the model as Rust
//! source that depends on `::toolspec` only: serde and serde_json through
//! `::toolspec::__private`, `uuid` and `chrono` types through `::toolspec::types`. Emission
//! ([`emit`]) puts a shape's items in a module of their own next to the tool's other types,
//! renames its types to names unique in the tool module (the root is named after the field,
//! like other generated types) and re-exports them.
//!
//! typify turns a string `pattern` into a `regress`-checked newtype; patterns are removed from
//! the schema it sees, so such strings are plain `String`s (the canonical schema still has
//! them, so calls are still checked against them).

use std::collections::{BTreeMap, BTreeSet};
use std::panic::{AssertUnwindSafe, PanicHookInfo};
use std::sync::{Arc, Mutex, PoisonError};

use proc_macro2::{Ident, Punct, Spacing, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use serde_json::{Map, Value as Json};
use syn::visit_mut::{self, VisitMut};

use super::types::TypeGen;
use crate::diagnostic::Diagnostic;
use crate::rust_name::{ident, type_name};
use crate::schema_tree::nodes;
use crate::schema_tree::{MAX_DEPTH, too_deep};
use crate::source::Spanned;
use crate::source::{Pos, Span};
use crate::spec::Types;
use crate::spec::{Field, FieldType, ToolSpec};

/// Where generated code finds serde.
const SERDE: &str = "::toolspec::__private::serde";

/// Names the items typify generates use unqualified (prelude types, traits and derives): a
/// generated type never takes one, or it would shadow it in the shape's module.
const PRELUDE: &[&str] = &[
    "Box",
    "Clone",
    "Copy",
    "Debug",
    "Default",
    "Eq",
    "Err",
    "From",
    "Hash",
    "Into",
    "None",
    "Ok",
    "Option",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Result",
    "Self",
    "Send",
    "Some",
    "String",
    "Sync",
    "ToString",
    "TryFrom",
    "Vec",
];

/// Reads the schema of every `shape: { file: … }`, then generates and caches the Rust types of
/// every shape field (in named types and tools, at any depth). Problems become diagnostics:
/// a missing file at its `file:` value, invalid JSON at the error's line and column in the
/// file, a schema typify cannot convert at the `shape:`.
///
/// `json_files` holds the text of the `.json` files below the specs directory, keyed by
/// display path (as in diagnostics: `specs/shapes/geometry.json`).
pub(crate) fn resolve_shapes(
    specs: &mut [ToolSpec],
    types: &mut Types,
    json_files: &BTreeMap<String, String>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for named in types.values_mut() {
        let file = named.file.clone();
        each_shape(&mut named.field, &mut |field| {
            resolve(field, &file, json_files, diagnostics);
        });
    }
    for spec in specs {
        let file = spec.file.clone();
        for field in spec.expects.iter_mut().chain(spec.exposes.iter_mut()) {
            each_shape(field, &mut |field| {
                resolve(field, &file, json_files, diagnostics);
            });
        }
    }
}

/// Calls `f` on every `shape` field in `field` (itself included).
fn each_shape(field: &mut Field, f: &mut impl FnMut(&mut Field)) {
    if matches!(field.ty, FieldType::Shape { .. }) {
        f(field);
        return;
    }
    match &mut field.ty {
        FieldType::Object(fields) => fields.iter_mut().for_each(|x| each_shape(x, f)),
        FieldType::Array(inner) | FieldType::Map(inner) => each_shape(inner, f),
        FieldType::AnyOf { variants, .. } => variants
            .iter_mut()
            .for_each(|v| each_shape(&mut v.field, f)),
        _ => {}
    }
}

fn resolve(
    field: &mut Field,
    owner: &str,
    json_files: &BTreeMap<String, String>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let name = field.name.clone();
    let custom = field.rust_type.is_some();
    let shape_span = field.type_span;
    let FieldType::Shape { schema, file, rust } = &mut field.ty else {
        return;
    };
    let mut span = shape_span;
    let mut note = None;
    if let Some(path) = file {
        match load(path, owner, json_files) {
            Ok((resolved, value)) => {
                *schema = value;
                span = path.span;
                note = Some(format!("the schema is read from `{resolved}`"));
            }
            Err(d) => {
                diagnostics.push(*d);
                return;
            }
        }
    }
    check_patterns(&name, schema, owner, span, note.as_deref(), diagnostics);
    if custom || !schema.is_object() {
        return; // `rust_type:` names the type; nothing to generate
    }
    match generate(&name, schema) {
        Ok(code) => *rust = Some(code),
        Err(reason) => {
            let mut d = Diagnostic::error(
                owner,
                Some(span),
                format!("cannot generate a Rust type for `shape` of `{name}`: {reason}"),
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

/// Every `pattern` of the shape of `name` (and every `patternProperties` key) must run on the
/// runtime's regex engine: the canonical schema carries them to its validator.
fn check_patterns(
    name: &str,
    schema: &Json,
    owner: &str,
    span: Span,
    note: Option<&str>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for (_, node) in nodes(schema) {
        let mut patterns: Vec<(&str, &str)> = Vec::new();
        if let Some(Json::String(pattern)) = node.get("pattern") {
            patterns.push(("`pattern`", pattern));
        }
        if let Some(Json::Object(map)) = node.get("patternProperties") {
            patterns.extend(map.keys().map(|k| ("`patternProperties` key", k.as_str())));
        }
        for (what, pattern) in patterns {
            let Err(refusal) = crate::pattern::check(pattern) else {
                continue;
            };
            let mut d = Diagnostic::error(
                owner,
                Some(span),
                format!(
                    "{what} `{pattern}` in the shape of `{name}` {}",
                    refusal.reason
                ),
            )
            .with_label(refusal.label)
            .with_help(refusal.help);
            if let Some(note) = note {
                d = d.with_note(note);
            }
            diagnostics.push(d);
        }
    }
}

/// Reads and checks the JSON Schema a `file:` names; returns its display path and the schema.
fn load(
    path: &Spanned<String>,
    owner: &str,
    json_files: &BTreeMap<String, String>,
) -> Result<(String, Json), Box<Diagnostic>> {
    let resolved = relative_to(owner, &path.value);
    if !path.value.ends_with(".json") {
        return Err(Box::new(
            Diagnostic::error(
                owner,
                Some(path.span),
                format!("shape file `{}` is not a `.json` file", path.value),
            )
            .with_label("not a `.json` file")
            .with_help("write the JSON Schema as JSON, in a file whose name ends in `.json`"),
        ));
    }
    let Some(text) = json_files.get(&resolved) else {
        let folder = match owner.rsplit_once('/') {
            Some((dir, _)) => format!(" (`{dir}`)"),
            None => String::new(),
        };
        return Err(Box::new(
            Diagnostic::error(
                owner,
                Some(path.span),
                format!("shape file `{resolved}` does not exist"),
            )
            .with_label("no such file")
            .with_help(format!(
                "`file:` is relative to the spec's folder{folder}, and the file must be a `.json` file in the specs directory"
            )),
        ));
    };
    let value: Json = serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m);
        Box::new(
            Diagnostic::error(
                resolved.clone(),
                Some(json_span(text, e.line(), e.column())),
                format!("invalid JSON in shape file `{resolved}`: {message}"),
            )
            .with_label(message.to_owned())
            .with_related(owner, path.span, "read as a `shape` here"),
        )
    })?;
    if !value.is_object() {
        let found = match value {
            Json::Array(_) => "an array",
            Json::String(_) => "a string",
            Json::Number(_) => "a number",
            Json::Bool(_) => "a boolean",
            _ => "null",
        };
        return Err(Box::new(
            Diagnostic::error(
                owner,
                Some(path.span),
                format!("shape file `{resolved}` must hold a JSON Schema object, found {found}"),
            )
            .with_label("not a JSON Schema object"),
        ));
    }
    // Checked before anything walks it (the meta-schema's validator, typify).
    if too_deep(&value, MAX_DEPTH).is_some() {
        return Err(Box::new(
            Diagnostic::error(
                owner,
                Some(path.span),
                format!(
                    "shape file `{resolved}` nests more than {} levels deep",
                    MAX_DEPTH
                ),
            )
            .with_label("too deep"),
        ));
    }
    if let Err(e) = jsonschema::meta::validate(&value) {
        return Err(Box::new(
            Diagnostic::error(
                owner,
                Some(path.span),
                format!("shape file `{resolved}` is not a valid JSON Schema: {e}"),
            )
            .with_label("invalid schema"),
        ));
    }
    Ok((resolved, value))
}

/// `path` resolved against the folder of the display path `owner`, `.` and `..` applied.
fn relative_to(owner: &str, path: &str) -> String {
    let mut parts: Vec<&str> = match owner.rsplit_once('/') {
        Some((dir, _)) => dir.split('/').collect(),
        None => Vec::new(),
    };
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| !matches!(*p, "" | "." | "..")) => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

/// The span of one character at a serde_json error position (1-based line, 1-based byte
/// column; column 0 is before the first character).
fn json_span(text: &str, line: usize, column: usize) -> Span {
    let mut offset = 0;
    let mut rest = text;
    for _ in 1..line.max(1) {
        match rest.find('\n') {
            Some(i) => {
                offset += i + 1;
                rest = &rest[i + 1..];
            }
            None => break,
        }
    }
    let line_text = rest.split('\n').next().unwrap_or("");
    let mut byte = column.saturating_sub(1).min(line_text.len());
    while !line_text.is_char_boundary(byte) {
        byte -= 1;
    }
    let col = line_text[..byte].chars().count() + 1;
    let width = line_text[byte..].chars().next().map_or(0, char::len_utf8);
    let line = u32::try_from(line.max(1)).unwrap_or(u32::MAX);
    let col = u32::try_from(col).unwrap_or(u32::MAX);
    let pos = |col, offset| Pos { line, col, offset };
    Span {
        start: pos(col, offset + byte),
        end: pos(col + u32::from(width > 0), offset + byte + width),
    }
}

/// Runs typify on the schema of the shape field `field`: the Rust items, as source, with the
/// root type named [`root_name`]; or why it cannot be done.
pub(crate) fn generate(field: &str, schema: &Json) -> Result<String, String> {
    let root = root_name(field, schema);
    let input = typify_input(schema, &root)?;
    let tokens = quietly(move || {
        let mut settings = typify::TypeSpaceSettings::default();
        settings
            .with_struct_builder(false)
            .with_derive("PartialEq".to_owned())
            .with_map_type("::std::collections::BTreeMap");
        let mut space = typify::TypeSpace::new(&settings);
        space
            .add_root_schema(input)
            .map(|_| space.to_stream())
            .map_err(|e| e.to_string())
    })??;
    post_process(tokens, &root)
}

/// The name typify gives the root type: the field's, unless a definition or a `title` in the
/// schema would give another type that name.
fn root_name(field: &str, schema: &Json) -> String {
    let mut taken = BTreeSet::new();
    collect_names(schema, &mut taken);
    let base = type_name(field);
    let mut name = base.clone();
    let mut n = 1;
    while taken.contains(&name) {
        name = if n == 1 {
            format!("{base}Shape")
        } else {
            format!("{base}Shape{n}")
        };
        n += 1;
    }
    name
}

/// Every `title` and definition name in a schema, as type names.
fn collect_names(value: &Json, out: &mut BTreeSet<String>) {
    match value {
        Json::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("title", Json::String(title)) => {
                        out.insert(type_name(title));
                    }
                    ("$defs" | "definitions", Json::Object(defs)) => {
                        out.extend(defs.keys().map(|k| type_name(k)));
                    }
                    _ => {}
                }
                collect_names(value, out);
            }
        }
        Json::Array(items) => items.iter().for_each(|v| collect_names(v, out)),
        _ => {}
    }
}

/// The schema as typify reads it: definitions (`$defs` and `definitions`) lifted to the root,
/// the root titled `root`, string patterns removed; or why typify cannot read it.
fn typify_input(schema: &Json, root: &str) -> Result<schemars::schema::RootSchema, String> {
    let mut schema = schema.clone();
    let mut pattern_properties = false;
    each_schema(&mut schema, &mut |map| {
        // typify checks `pattern` with the `regress` crate: leave it to the canonical schema.
        if map.get("pattern").is_some_and(Json::is_string) {
            map.remove("pattern");
        }
        pattern_properties |= map.contains_key("patternProperties");
    });
    if pattern_properties {
        return Err(
            "`patternProperties` is not supported (typify would check the keys with the \
                    `regress` crate, which generated code cannot use)"
                .into(),
        );
    }
    let Json::Object(mut map) = schema else {
        return Err("the schema is not an object".into());
    };
    let mut definitions = schemars::Map::new();
    for key in ["definitions", "$defs"] {
        if let Some(Json::Object(defs)) = map.remove(key) {
            for (name, def) in defs {
                let def = serde_json::from_value(def)
                    .map_err(|e| format!("definition `{name}` cannot be read: {e}"))?;
                definitions.insert(name, def);
            }
        }
    }
    map.remove("$schema");
    map.insert("title".into(), Json::String(root.to_owned()));
    let schema = serde_json::from_value(Json::Object(map))
        .map_err(|e| format!("the schema cannot be read: {e}"))?;
    Ok(schemars::schema::RootSchema {
        meta_schema: None,
        schema,
        definitions,
    })
}

/// Calls `f` on every (sub)schema object of `schema`, itself first.
fn each_schema(schema: &mut Json, f: &mut impl FnMut(&mut Map<String, Json>)) {
    let Json::Object(map) = schema else { return };
    f(map);
    for key in [
        "properties",
        "patternProperties",
        "$defs",
        "definitions",
        "dependentSchemas",
        "dependencies",
    ] {
        if let Some(Json::Object(m)) = map.get_mut(key) {
            m.values_mut().for_each(|v| each_schema(v, f));
        }
    }
    for key in ["items", "prefixItems", "allOf", "anyOf", "oneOf"] {
        match map.get_mut(key) {
            Some(Json::Array(items)) => items.iter_mut().for_each(|v| each_schema(v, f)),
            Some(value) => each_schema(value, f),
            None => {}
        }
    }
    for key in [
        "not",
        "if",
        "then",
        "else",
        "additionalProperties",
        "additionalItems",
        "contains",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
    ] {
        if let Some(value) = map.get_mut(key) {
            each_schema(value, f);
        }
    }
}

type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Runs `f`, turning a panic into its message. While it runs, a panic hook that says nothing
/// about this thread's panics is installed (other threads' go to the previous hook); the
/// previous hook is restored afterwards.
fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Mutex<()> = Mutex::new(());
    let _lock = HOOK.lock().unwrap_or_else(PoisonError::into_inner);
    let previous: Arc<Hook> = Arc::new(std::panic::take_hook());
    let this = std::thread::current().id();
    let others = Arc::clone(&previous);
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().id() != this {
            others(info);
        }
    }));
    let result = std::panic::catch_unwind(AssertUnwindSafe(f));
    drop(std::panic::take_hook());
    match Arc::try_unwrap(previous) {
        Ok(hook) => std::panic::set_hook(hook),
        Err(shared) => std::panic::set_hook(Box::new(move |info| shared(info))),
    }
    result.map_err(|payload| {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "typify panicked".to_owned());
        panic_reason(&text)
    })
}

/// A one-line reason from a typify panic message (which may end with a whole schema).
fn panic_reason(text: &str) -> String {
    let first = text.lines().next().unwrap_or("").trim();
    let first = first
        .strip_prefix("not implemented: ")
        .or_else(|| first.strip_prefix("not yet implemented: "))
        .unwrap_or(first);
    let first = first.trim_end_matches(['{', '[', ':', ' ']);
    let reason = if first.chars().count() > 160 {
        let cut: String = first.chars().take(160).collect();
        format!("{cut}…")
    } else {
        first.to_owned()
    };
    if reason.is_empty() {
        "typify panicked".into()
    } else {
        format!("typify: {reason}")
    }
}

/// Makes typify's items depend on `::toolspec` only, drops unused default functions (and the
/// conversion error type when unused) and checks the result: one root type, no two types of a name.
fn post_process(tokens: TokenStream, root: &str) -> Result<String, String> {
    let tokens = rewrite_crate_paths(tokens);
    let mut crates = BTreeSet::new();
    leading_crates(&tokens, &mut crates);
    for krate in crates {
        if matches!(krate.as_str(), "std" | "core" | "alloc" | "toolspec") {
            continue;
        }
        let why = match krate.as_str() {
            "regress" => " (typify checks `patternProperties` keys with it)",
            "chrono" | "uuid" => " (for a `format` toolspec has no type for)",
            _ => "",
        };
        return Err(format!(
            "the generated types would need the `{krate}` crate{why}, and generated code may use only `toolspec`"
        ));
    }
    let mut file: syn::File = syn::parse2(tokens)
        .map_err(|e| format!("typify generated code that does not parse: {e}"))?;
    for item in &mut file.items {
        if let syn::Item::Struct(syn::ItemStruct { attrs, .. })
        | syn::Item::Enum(syn::ItemEnum { attrs, .. }) = item
        {
            add_serde_crate(attrs);
        }
    }
    prune_defaults(&mut file);
    prune_error(&mut file);
    let names = type_items(&file);
    let mut seen = BTreeSet::new();
    for name in &names {
        if !seen.insert(name) {
            return Err(format!("two generated types would be named `{name}`"));
        }
    }
    if !seen.contains(&root.to_owned()) {
        return Err("typify generated no type for the schema itself".into());
    }
    repeated_members(&file)?;
    Ok(file.to_token_stream().to_string())
}

/// Properties typify spells alike (`self` and `Self` are both `self_`) would give a struct two
/// fields, or an enum two variants, of one name.
fn repeated_members(file: &syn::File) -> Result<(), String> {
    for item in &file.items {
        let (owner, members): (&Ident, Vec<&Ident>) = match item {
            syn::Item::Struct(s) => (&s.ident, s.fields.iter().flat_map(|f| &f.ident).collect()),
            syn::Item::Enum(e) => (&e.ident, e.variants.iter().map(|v| &v.ident).collect()),
            _ => continue,
        };
        let mut seen = BTreeSet::new();
        if let Some(twice) = members.into_iter().find(|m| !seen.insert(*m)) {
            return Err(format!(
                "two of its names would both be `{twice}` in the Rust type `{owner}`"
            ));
        }
    }
    Ok(())
}

/// Rewrites `::serde`, `::serde_json`, `::uuid::Uuid`, `::chrono::naive::NaiveDate`,
/// `::chrono::DateTime` and `::chrono::offset::Utc` (as `FixedOffset`) to their `::toolspec`
/// re-exports.
fn rewrite_crate_paths(tokens: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    let mut i = 0;
    while i < tokens.len() {
        if let Some(path) = leading_path(&tokens, i) {
            let strs: Vec<String> = path.iter().map(ToString::to_string).collect();
            let strs: Vec<&str> = strs.iter().map(String::as_str).collect();
            let replaced: Option<(Vec<&str>, usize)> = match strs.as_slice() {
                ["serde", ..] => Some((vec!["toolspec", "__private", "serde"], 1)),
                ["serde_json", ..] => Some((vec!["toolspec", "__private", "serde_json"], 1)),
                ["uuid", "Uuid", ..] => Some((vec!["toolspec", "types", "Uuid"], 2)),
                ["chrono", "naive", "NaiveDate", ..] => {
                    Some((vec!["toolspec", "types", "NaiveDate"], 3))
                }
                ["chrono", "NaiveDate", ..] => Some((vec!["toolspec", "types", "NaiveDate"], 2)),
                ["chrono", "DateTime", ..] => Some((vec!["toolspec", "types", "DateTime"], 2)),
                ["chrono", "offset", "Utc", ..] => {
                    Some((vec!["toolspec", "types", "FixedOffset"], 3))
                }
                _ => None,
            };
            if let Some((prefix, consumed)) = replaced {
                let span = path[0].span();
                let mut segments: Vec<Ident> = prefix.iter().map(|s| Ident::new(s, span)).collect();
                segments.extend(path[consumed..].iter().cloned());
                for segment in segments {
                    out.push(Punct::new(':', Spacing::Joint).into());
                    out.push(Punct::new(':', Spacing::Alone).into());
                    out.push(segment.into());
                }
                i += 3 * path.len();
                continue;
            }
        }
        match &tokens[i] {
            TokenTree::Group(group) => {
                let mut new =
                    proc_macro2::Group::new(group.delimiter(), rewrite_crate_paths(group.stream()));
                new.set_span(group.span());
                out.push(new.into());
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// The segments of a path starting with a leading `::` at `tokens[i]` (`::a::b::c` gives
/// `[a, b, c]`); `None` when there is no leading `::` there.
fn leading_path(tokens: &[TokenTree], i: usize) -> Option<Vec<Ident>> {
    let is_colons = |j: usize| {
        matches!((tokens.get(j), tokens.get(j + 1)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
    };
    if !is_colons(i) {
        return None;
    }
    // Not leading after an identifier (`Self::X`, `T::f`), except after keywords such as `as`
    // (`<E as ::serde::de::Error>`). After a `>`, either (`impl<'de> ::serde::Deserialize<'de>`,
    // `Vec::<T>::new`): taken as leading for the crates typify uses only.
    let mut after_angle = false;
    let leading = match i.checked_sub(1).map(|j| &tokens[j]) {
        Some(TokenTree::Ident(prev)) => matches!(
            prev.to_string().as_str(),
            "as" | "dyn"
                | "impl"
                | "for"
                | "in"
                | "where"
                | "mut"
                | "return"
                | "let"
                | "const"
                | "static"
                | "ref"
                | "move"
                | "else"
                | "match"
                | "if"
                | "while"
        ),
        Some(TokenTree::Punct(p)) => {
            after_angle = p.as_char() == '>';
            true
        }
        _ => true,
    };
    if !leading {
        return None;
    }
    let mut segments = Vec::new();
    let mut j = i;
    while is_colons(j) {
        match tokens.get(j + 2) {
            Some(TokenTree::Ident(segment)) => segments.push(segment.clone()),
            _ => break,
        }
        j += 3;
    }
    let known = segments.first().is_some_and(|first| {
        matches!(
            first.to_string().as_str(),
            "std" | "core" | "alloc" | "serde" | "serde_json" | "chrono" | "uuid" | "regress"
        )
    });
    (!segments.is_empty() && (known || !after_angle)).then_some(segments)
}

/// The first segment of every path with a leading `::`.
fn leading_crates(tokens: &TokenStream, out: &mut BTreeSet<String>) {
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        if let Some(path) = leading_path(&tokens, i) {
            out.insert(path[0].to_string());
        }
        if let TokenTree::Group(group) = token {
            leading_crates(&group.stream(), out);
        }
    }
}

/// Adds `#[serde(crate = "::toolspec::__private::serde")]` after a derive of serde's traits.
fn add_serde_crate(attrs: &mut Vec<syn::Attribute>) {
    let derives_serde = |attr: &syn::Attribute| {
        attr.path().is_ident("derive") && {
            let text = attr.to_token_stream().to_string();
            text.contains("Serialize") || text.contains("Deserialize")
        }
    };
    if let Some(at) = attrs.iter().position(derives_serde) {
        attrs.insert(at + 1, syn::parse_quote! { #[serde(crate = #SERDE)] });
    }
}

/// Removes the functions of typify's `defaults` module that nothing refers to (they would be
/// dead code), and the module if it ends up empty.
fn prune_defaults(file: &mut syn::File) {
    let Some(at) = file
        .items
        .iter()
        .position(|item| matches!(item, syn::Item::Mod(m) if m.ident == "defaults"))
    else {
        return;
    };
    let others: String = file
        .items
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != at)
        .map(|(_, item)| item.to_token_stream().to_string())
        .collect();
    let used = |name: &str| {
        others.contains(&format!("defaults::{name}"))
            || others.contains(&format!("defaults :: {name}"))
    };
    let empty = match &mut file.items[at] {
        syn::Item::Mod(syn::ItemMod {
            content: Some((_, items)),
            ..
        }) => {
            items.retain(
                |item| !matches!(item, syn::Item::Fn(f) if !used(&f.sig.ident.to_string())),
            );
            items.is_empty()
        }
        _ => false,
    };
    if empty {
        file.items.remove(at);
    }
}

/// Removes typify's `error` module (its `ConversionError`) when nothing refers to it.
fn prune_error(file: &mut syn::File) {
    let is_error = |item: &syn::Item| matches!(item, syn::Item::Mod(m) if m.ident == "error");
    let used = file
        .items
        .iter()
        .filter(|item| !is_error(item))
        .any(|item| {
            item.to_token_stream()
                .to_string()
                .contains("error :: ConversionError")
        });
    if !used {
        file.items.retain(|item| !is_error(item));
    }
}

/// The names of the types (structs, enums, unions, aliases) at the top of `file`, in order.
fn type_items(file: &syn::File) -> Vec<String> {
    file.items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Struct(s) => Some(s.ident.to_string()),
            syn::Item::Enum(e) => Some(e.ident.to_string()),
            syn::Item::Union(u) => Some(u.ident.to_string()),
            syn::Item::Type(t) => Some(t.ident.to_string()),
            _ => None,
        })
        .collect()
}

/// Emits the cached items of a shape field into `types` as a module of their own, renamed so
/// that the root type takes the name claimed for `base` and the others names unique in the
/// tool module, all re-exported next to the other types. Returns the root type; `None` (the
/// caller falls back to `serde_json::Value`) if the cached source does not parse, which
/// checking rules out.
pub(super) fn emit(
    types: &mut TypeGen,
    field: &Field,
    schema: &Json,
    rust: &str,
    base: &str,
    prefix: &str,
) -> Option<TokenStream> {
    let mut file: syn::File = syn::parse_str(rust).ok()?;
    let natural = root_name(&field.name, schema);
    let names = type_items(&file);
    if !names.contains(&natural) {
        return None;
    }
    let root = types.claim(base, prefix).to_string();
    let mut renames = BTreeMap::new();
    renames.insert(natural.clone(), root.clone());
    for name in names.iter().filter(|n| **n != natural) {
        let candidate = match name.strip_prefix(natural.as_str()) {
            Some(rest)
                if rest.starts_with(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit()) =>
            {
                format!("{root}{rest}")
            }
            _ => name.clone(),
        };
        let candidate = if PRELUDE.contains(&candidate.as_str()) {
            format!("{root}{candidate}")
        } else {
            candidate
        };
        renames.insert(name.clone(), types.claim(&candidate, prefix).to_string());
    }
    Rename {
        names: &renames,
        nested: false,
    }
    .visit_file_mut(&mut file);
    let module = types.claim(
        &format!("{}_shape", toolspec_vocab::naming::snake_case(&root)),
        "",
    );
    let exports: Vec<Ident> = names.iter().map(|n| ident(&renames[n])).collect();
    let items = &file.items;
    let doc = format!(
        " Types generated from the JSON Schema (`shape`) of `{}`.",
        field.name
    );
    types.items.push(quote! {
        #[doc = #doc]
        pub mod #module {
            #(#items)*
        }
        pub use self::#module::{ #(#exports),* };
    });
    let root = ident(&root);
    Some(quote! { #root })
}

/// Renames the types of a shape's module: their definitions, the paths that name them (bare
/// or `self::` at the top, `super::` in typify's `defaults` and `error` modules), and the
/// documentation typify writes for undocumented types (`` `Name` ``). Enum variants and
/// fields are never renamed.
struct Rename<'a> {
    names: &'a BTreeMap<String, String>,
    nested: bool,
}

impl Rename<'_> {
    fn rename(&self, ident: &mut Ident) {
        if let Some(new) = self.names.get(&ident.to_string()) {
            *ident = Ident::new(new, ident.span());
        }
    }

    fn item(&self, ident: &mut Ident, attrs: &mut [syn::Attribute]) {
        if self.nested {
            return;
        }
        let old = ident.to_string();
        self.rename(ident);
        let new = ident.to_string();
        if old == new {
            return;
        }
        for attr in attrs {
            if let syn::Meta::NameValue(syn::MetaNameValue {
                path,
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(text),
                        ..
                    }),
                ..
            }) = &mut attr.meta
                && path.is_ident("doc")
                && text.value() == format!("`{old}`")
            {
                *text = syn::LitStr::new(&format!("`{new}`"), text.span());
            }
        }
    }
}

impl VisitMut for Rename<'_> {
    fn visit_item_mod_mut(&mut self, item: &mut syn::ItemMod) {
        let outer = self.nested;
        self.nested = true;
        visit_mut::visit_item_mod_mut(self, item);
        self.nested = outer;
    }

    fn visit_item_struct_mut(&mut self, item: &mut syn::ItemStruct) {
        self.item(&mut item.ident, &mut item.attrs);
        visit_mut::visit_item_struct_mut(self, item);
    }

    fn visit_item_enum_mut(&mut self, item: &mut syn::ItemEnum) {
        self.item(&mut item.ident, &mut item.attrs);
        visit_mut::visit_item_enum_mut(self, item);
    }

    fn visit_item_union_mut(&mut self, item: &mut syn::ItemUnion) {
        self.item(&mut item.ident, &mut item.attrs);
        visit_mut::visit_item_union_mut(self, item);
    }

    fn visit_item_type_mut(&mut self, item: &mut syn::ItemType) {
        self.item(&mut item.ident, &mut item.attrs);
        visit_mut::visit_item_type_mut(self, item);
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.leading_colon.is_none() {
            let first = path.segments.first().map(|s| s.ident.to_string());
            let at = match (first.as_deref(), self.nested) {
                (Some("super"), true) | (Some("self"), false) => Some(1),
                (_, false) => Some(0),
                (_, true) => None,
            };
            if let Some(segment) = at.and_then(|at| path.segments.iter_mut().nth(at)) {
                self.rename(&mut segment.ident);
            }
        }
        visit_mut::visit_path_mut(self, path);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::spec::Constraints;

    fn shape_field(name: &str, schema: Json) -> Field {
        let rust = generate(name, &schema).expect("typify converts the schema");
        Field {
            name: name.into(),
            span: Span::default(),
            type_span: Span::default(),
            ty: FieldType::Shape {
                schema,
                file: None,
                rust: Some(rust),
            },
            description: None,
            examples: Vec::new(),
            deprecated: false,
            optional: false,
            nullable: false,
            default: None,
            one_of: None,
            constraints: Constraints::default(),
            ambient: false,
            sensitive: false,
            rust_type: None,
        }
    }

    /// Emits `field` into a tool-like module; returns the field's type and the module's items.
    fn emit_field(field: &Field, base: &str, taken: &[&str]) -> (String, String) {
        let mut types = TypeGen::new(quote! { super::types }, taken);
        let FieldType::Shape {
            schema,
            rust: Some(rust),
            ..
        } = &field.ty
        else {
            unreachable!()
        };
        let ty = emit(&mut types, field, schema, rust, base, "Input").expect("emits");
        let items = &types.items;
        (ty.to_string(), quote! { #(#items)* }.to_string())
    }

    #[test]
    fn paths_resolve_against_the_spec_folder() {
        assert_eq!(relative_to("specs/a.yaml", "s/g.json"), "specs/s/g.json");
        assert_eq!(relative_to("specs/x/a.yaml", "../g.json"), "specs/g.json");
        assert_eq!(
            relative_to("specs/x/a.yaml", "./y/../g.json"),
            "specs/x/g.json"
        );
        assert_eq!(relative_to("a.yaml", "g.json"), "g.json");
        assert_eq!(relative_to("a.yaml", "../g.json"), "../g.json");
        assert_eq!(relative_to("./a.yaml", "g.json"), "./g.json");
    }

    #[test]
    fn json_errors_point_at_their_character() {
        let text = "{\n  \"é\": 1,\n}";
        let e = serde_json::from_str::<Json>(text).unwrap_err();
        let span = json_span(text, e.line(), e.column());
        assert_eq!((span.start.line, span.start.col), (3, 1));
        assert_eq!(&text[span.start.offset..span.end.offset], "}");
        let span = json_span("{\"é\" x}", 1, 7);
        assert_eq!((span.start.col, span.end.col), (6, 7));
        let span = json_span("{", 1, 0);
        assert_eq!((span.start.line, span.start.col), (1, 1));
        let span = json_span("{\n", 2, 0);
        assert_eq!((span.start.offset, span.end.offset), (2, 2));
    }

    #[test]
    fn output_depends_on_toolspec_only() {
        let schema = json!({
            "type": "object",
            "properties": {
                "at": { "type": "string", "format": "date-time" },
                "id": { "type": "string", "format": "uuid" },
                "code": { "type": "string", "pattern": "^[A-Z]{3}$" },
                "name": { "type": "string", "minLength": 1 },
                "extra": { "type": "object", "additionalProperties": { "type": "integer" } },
                "any": {},
            },
        });
        let rust = generate("record", &schema).unwrap();
        let mut crates = BTreeSet::new();
        leading_crates(&rust.parse().unwrap(), &mut crates);
        assert_eq!(
            crates.into_iter().collect::<Vec<_>>(),
            ["std", "toolspec"],
            "{rust}"
        );
        assert!(rust.contains("serde (crate = \"::toolspec::__private::serde\")"));
        assert!(
            rust.contains(
                ":: toolspec :: types :: DateTime < :: toolspec :: types :: FixedOffset >"
            )
        );
        assert!(rust.contains(":: std :: collections :: BTreeMap"));
        assert!(
            !rust.contains("regress"),
            "patterns are left to the canonical schema"
        );
        assert!(
            rust.contains("impl < 'de > :: toolspec :: __private :: serde :: Deserialize < 'de >"),
            "{rust}"
        );
    }

    #[test]
    fn definitions_and_references_become_types() {
        let schema = json!({
            "type": "object",
            "properties": {
                "points": { "type": "array", "items": { "$ref": "#/$defs/Point" } },
                "next": { "$ref": "#" },
            },
            "$defs": {
                "Point": {
                    "type": "object",
                    "required": ["x"],
                    "properties": { "x": { "type": "number" } },
                },
            },
        });
        let field = shape_field("path", schema);
        let (ty, items) = emit_field(&field, "Path", &["Path"]);
        assert_eq!(ty, "InputPath");
        assert!(items.contains("pub struct InputPath"), "{items}");
        assert!(items.contains("pub struct Point"), "{items}");
        assert!(
            items.contains(":: std :: boxed :: Box < InputPath >"),
            "the recursive reference is renamed too: {items}"
        );
        assert!(items.contains("pub use self :: input_path_shape :: { InputPath , Point }"));
    }

    #[test]
    fn the_root_avoids_the_names_of_definitions() {
        let schema = json!({
            "type": "object",
            "properties": { "at": { "$ref": "#/definitions/Point" } },
            "definitions": { "Point": { "type": "object", "properties": { "x": { "type": "integer" } } } },
        });
        assert_eq!(root_name("point", &schema), "PointShape");
        let field = shape_field("point", schema);
        let (ty, items) = emit_field(&field, "Point", &[]);
        assert_eq!(ty, "Point");
        assert!(items.contains("pub struct InputPoint"), "{items}");
        assert!(
            items.contains("pub at : :: std :: option :: Option < InputPoint >"),
            "{items}"
        );
    }

    #[test]
    fn nested_names_follow_the_root_and_avoid_the_prelude() {
        let schema = json!({
            "type": "object",
            "properties": {
                "kind": { "type": "string", "enum": ["a", "b"] },
                "opt": { "title": "Option", "type": "object", "properties": { "Kind": { "type": "boolean" } } },
            },
        });
        let field = shape_field("style", schema);
        let (ty, items) = emit_field(&field, "PageStyle", &[]);
        assert_eq!(ty, "PageStyle");
        assert!(items.contains("pub enum PageStyleKind"), "{items}");
        assert!(items.contains("pub struct PageStyleOption"), "{items}");
        assert!(items.contains("# [doc = \"`PageStyleKind`\"]"), "{items}");
    }

    #[test]
    fn typify_panics_become_reasons() {
        let reason = generate(
            "geometry",
            &json!({ "type": "object", "if": { "required": ["a"] }, "then": { "required": ["b"] } }),
        )
        .unwrap_err();
        assert_eq!(reason, "typify: if/then/else schemas are not supported");
        assert_eq!(
            quietly(|| -> u8 { panic!("boom\nmore") }),
            Err("typify: boom".to_owned())
        );
        assert_eq!(quietly(|| 7), Ok(7));
    }
}
