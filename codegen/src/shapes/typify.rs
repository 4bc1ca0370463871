//! Running typify: one type space for every shape of a project, typify's panics caught.

use std::panic::{AssertUnwindSafe, PanicHookInfo};
use std::sync::{Arc, Mutex, PoisonError};

use std::collections::BTreeMap;

use heck::ToUpperCamelCase;
use proc_macro2::TokenStream;
use schemars::schema::RootSchema;
use serde_json::{Map, Value as Json};

use crate::schema_tree::for_each_child;
use crate::shapes::rust::post_process;

/// typify's settings for generated code: no builders, `PartialEq` on every type, maps as
/// `BTreeMap` (so the output does not depend on hash order).
fn settings() -> typify::TypeSpaceSettings {
    let mut settings = typify::TypeSpaceSettings::default();
    settings
        .with_struct_builder(false)
        .with_derive("PartialEq".to_owned())
        .with_map_type("::std::collections::BTreeMap");
    settings
}

/// Runs typify on one shape alone: `Ok` when it converts (and its types fit generated code),
/// else why not.
pub(crate) fn try_alone(input: RootSchema, root: &str) -> Result<(), String> {
    let tokens = quietly(move || {
        let mut space = typify::TypeSpace::new(&settings());
        space
            .add_root_schema(input)
            .map(|_| space.to_stream())
            .map_err(|e| e.to_string())
    })??;
    post_process(tokens, &[root], &[]).map(|_| ())
}

/// Runs typify once on every shape of a project (each checked alone before): their types, in
/// one type space.
pub(crate) fn project_space(inputs: Vec<RootSchema>) -> Result<TokenStream, String> {
    quietly(move || {
        let mut space = typify::TypeSpace::new(&settings());
        for input in inputs {
            space.add_root_schema(input).map_err(|e| e.to_string())?;
        }
        Ok(space.to_stream())
    })?
}

/// A shape's schema as typify reads it: its root titled `root`, its definitions (`$defs` and
/// `definitions`) lifted out and named `root` + their name (references follow), nested
/// `title`s prefixed the same way, string patterns removed; or why typify cannot read it.
pub(crate) fn shape_input(schema: &Json, root: &str) -> Result<RootSchema, String> {
    let Json::Object(mut map) = schema.clone() else {
        return Err("the schema is not an object".into());
    };
    let mut definitions = Map::new();
    for key in ["definitions", "$defs"] {
        if let Some(Json::Object(defs)) = map.remove(key) {
            definitions.extend(defs);
        }
    }
    map.remove("$schema");
    let renamed: BTreeMap<String, String> = definitions
        .keys()
        .map(|name| {
            (
                name.clone(),
                format!("{root}{}", name.to_upper_camel_case()),
            )
        })
        .collect();
    let mut pattern_properties = false;
    let mut rewrite = |node: &mut Map<String, Json>, nested: bool| {
        // typify checks `pattern` with the `regress` crate: leave it to the canonical schema.
        if node.get("pattern").is_some_and(Json::is_string) {
            node.remove("pattern");
        }
        pattern_properties |= node.contains_key("patternProperties");
        if let Some(Json::String(reference)) = node.get_mut("$ref") {
            let name = reference
                .strip_prefix("#/$defs/")
                .or_else(|| reference.strip_prefix("#/definitions/"));
            if let Some(new) = name.and_then(|name| renamed.get(name)) {
                *reference = format!("#/definitions/{new}");
            }
        }
        if nested && let Some(Json::String(title)) = node.get_mut("title") {
            *title = format!("{root}{}", title.to_upper_camel_case());
        }
    };
    let mut root_schema = Json::Object(map);
    each_schema(&mut root_schema, &mut |node, depth| {
        rewrite(node, depth > 0)
    });
    let mut lifted = schemars::Map::new();
    for (name, mut def) in definitions {
        each_schema(&mut def, &mut |node, _| rewrite(node, true));
        let def = serde_json::from_value(def)
            .map_err(|e| format!("definition `{name}` cannot be read: {e}"))?;
        lifted.insert(renamed[&name].clone(), def);
    }
    if pattern_properties {
        return Err(
            "`patternProperties` is not supported (typify would check the keys with the \
                    `regress` crate, which generated code cannot use)"
                .into(),
        );
    }
    if let Json::Object(map) = &mut root_schema {
        map.insert("title".into(), Json::String(root.to_owned()));
    }
    let schema = serde_json::from_value(root_schema)
        .map_err(|e| format!("the schema cannot be read: {e}"))?;
    Ok(RootSchema {
        meta_schema: None,
        schema,
        definitions: lifted,
    })
}

/// Calls `f` on every (sub)schema object of `schema`, itself first, with its depth.
fn each_schema(schema: &mut Json, f: &mut impl FnMut(&mut Map<String, Json>, usize)) {
    fn walk(schema: &mut Json, depth: usize, f: &mut dyn FnMut(&mut Map<String, Json>, usize)) {
        let Json::Object(map) = schema else { return };
        f(map, depth);
        for_each_child(map, &mut |_, child| walk(child, depth + 1, f));
    }
    walk(schema, 0, f);
}

type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Runs `f`, turning a panic into its message. While it runs, a panic hook that says nothing
/// about this thread's panics is installed (other threads' go to the previous hook); the
/// previous hook is restored afterwards.
pub(crate) fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
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
