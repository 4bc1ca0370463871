//! Stage 1, read: the specs folder (safely) and every file in it, from YAML with spans into the
//! spec model, with a diagnostic for every mistake. Knows the spec language's grammar; checks
//! that need more than one file are [`crate::analyze`]'s.

pub mod adapters;
pub mod auth;
pub mod column;
pub mod config;
pub mod constraints;
pub mod durable;
pub mod field;
pub mod field_key;
pub mod folder;
pub mod hints;
pub mod lower;
pub mod membership;
pub mod query;
pub mod rate;
pub mod reader;
pub mod result_cap;
pub mod settings;
pub mod syntax;
pub mod task;
pub mod tool;
pub mod user_input;
pub mod yaml;

use std::collections::BTreeMap;

use crate::diagnostic::Diagnostic;
use crate::diagnostic::kind::Kind;
use crate::read::config::{default_config, read_config};
use crate::read::reader::Reader;
use crate::read::syntax::{CONFIG_FILE, yaml_error};
use crate::read::tool::{read_tool, read_types};
use crate::source::{Source, Sources};
use crate::spec::{ProjectConfig, ToolSpec, Types};

/// Everything read from a specs folder.
#[derive(Debug, Clone)]
pub struct Read {
    /// The project config (the defaults without `toolspec.yaml`).
    pub config: ProjectConfig,
    /// Named types from every `types:` file.
    pub types: Types,
    /// Tool specs, in path order.
    pub specs: Vec<ToolSpec>,
    /// The JSON files (`shape: { file: … }` schemas), by display path.
    pub json_files: BTreeMap<String, String>,
    /// Every file's text, by display path.
    pub sources: Sources,
}

/// Reads every source: the project config first (tool specs are read against it), then named
/// types and tool specs. `dirs` are the folders below the specs folder (for `tool_roots`);
/// `display_root` prefixes file paths in diagnostics.
pub fn read(
    sources: &[Source],
    dirs: &[String],
    display_root: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Read {
    let display = |path: &str| {
        if display_root.is_empty() {
            path.to_owned()
        } else {
            format!("{}/{path}", display_root.trim_end_matches('/'))
        }
    };
    let mut texts = Sources::new();
    let mut parsed = Vec::new();
    let mut json_files = BTreeMap::new();
    let trees = crate::parallel::map(sources, |source| {
        (!source.path.ends_with(".json")).then(|| yaml::parse(&source.text))
    });
    for (source, tree) in sources.iter().zip(trees) {
        let file = display(&source.path);
        texts.insert(file.clone(), source.text.clone());
        match tree {
            // Not a spec: a JSON Schema for `shape: { file: … }`, keyed by display path.
            None => {
                json_files.insert(file, source.text.clone());
            }
            Some(Ok(node)) => parsed.push((source.path.as_str(), file, node)),
            Some(Err(e)) => diagnostics.push(yaml_error(file, &source.text, &e)),
        }
    }
    let config = match parsed.iter().find(|(path, _, _)| *path == CONFIG_FILE) {
        Some((_, file, node)) => read_config(&mut Reader::new(file, diagnostics), node, dirs),
        None => default_config(),
    };
    // Each tool spec is read on its own (on every core), with its diagnostics; `types:` files
    // after, in path order with the specs, since a type defined twice is an error.
    let tools = crate::parallel::map(&parsed, |(path, file, node)| {
        if *path == CONFIG_FILE || node.get("types").is_some() {
            return None;
        }
        let mut local = Vec::new();
        let mut r = Reader::new(file, &mut local).with_ambient(&config.ambient);
        let spec = read_tool(&mut r, path, node, &config);
        Some((local, spec))
    });
    let mut types = Types::new();
    let mut specs = Vec::new();
    for ((path, file, node), tool) in parsed.iter().zip(tools) {
        if *path == CONFIG_FILE {
            continue;
        }
        if let Some((local, spec)) = tool {
            diagnostics.extend(local);
            specs.extend(spec);
            continue;
        }
        let mut r = Reader::new(file, diagnostics).with_ambient(&config.ambient);
        if node.get("types").is_some() {
            for named in read_types(&mut r, node) {
                if let Some(first) = types.get(&named.field.name) {
                    let d = Diagnostic::error(
                        Kind::NameClash,
                        file.clone(),
                        Some(named.field.span),
                        format!("type `{}` is defined twice", named.field.name),
                    )
                    .with_label("defined again here")
                    .with_related(
                        first.file.clone(),
                        first.field.span,
                        "first defined here",
                    );
                    r.report(d);
                    continue;
                }
                types.insert(named.field.name.clone(), named);
            }
        }
    }
    Read {
        config,
        types,
        specs,
        json_files,
        sources: texts,
    }
}
