//! A whole specs directory, read and checked: the project config, named types and tools,
//! with every tool's canonical name, module path, adapter bindings, description and schemas
//! resolved. All problems of a run are collected, not just the first.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value as Json;
use toolspec::membership::{self, Declaration, Grant};
use toolspec::settings::SettingValue;

use crate::diagnostic::{Diagnostic, Severity, Sources, did_you_mean};
use crate::schema::{self, Types};
use crate::spec::config::{default_config, read_config};
use crate::spec::model::{Field, FieldType, GrantDecl, ProjectConfig, ToolSpec};
use crate::spec::read::Reader;
use crate::spec::tool::{read_tool, read_types};
use crate::yaml::{self, Span};

/// The name of the project config file at the root of the specs directory.
pub const CONFIG_FILE: &str = "toolspec.yaml";

/// One spec file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Its path below the specs directory, '/'-separated.
    pub path: String,
    /// Its text.
    pub text: String,
}

/// A tool's membership in one adapter.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// The adapter.
    pub adapter: String,
    /// The tool's name there.
    pub name: String,
    /// Setting overrides, in spec order.
    pub settings: Vec<(String, SettingValue)>,
}

/// A checked tool, ready to emit.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The spec.
    pub spec: ToolSpec,
    /// The canonical name.
    pub name: String,
    /// Module path segments below the tools module (`["orders", "cancel"]`).
    pub module: Vec<String>,
    /// Adapter memberships, sorted by adapter.
    pub bindings: Vec<Binding>,
    /// The description shown to models.
    pub description: String,
    /// Canonical input schema.
    pub input_schema: Json,
    /// Canonical output schema.
    pub output_schema: Json,
}

/// A read and checked specs directory.
#[derive(Debug, Clone)]
pub struct Project {
    /// How the specs directory is shown in diagnostics (`specs`).
    pub display_root: String,
    /// The project config.
    pub config: ProjectConfig,
    /// Named types.
    pub types: Types,
    /// Tools, sorted by spec path.
    pub tools: Vec<Tool>,
    /// Every file's text, for rendering diagnostics.
    pub sources: Sources,
    /// Errors and warnings.
    pub diagnostics: Vec<Diagnostic>,
}

impl Project {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// Lists the spec files (`.yaml`, `.yml`) and folders below `dir`, skipping hidden entries.
/// Paths are relative and '/'-separated, sorted.
pub fn scan(dir: &Path) -> std::io::Result<(Vec<PathBuf>, Vec<String>)> {
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    walk(dir, "", &mut files, &mut dirs)?;
    files.sort();
    dirs.sort();
    Ok((files, dirs))
}

fn walk(
    dir: &Path,
    prefix: &str,
    files: &mut Vec<PathBuf>,
    dirs: &mut Vec<String>,
) -> std::io::Result<()> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let kind = entry.file_type()?;
        if kind.is_dir() {
            dirs.push(rel.clone());
            walk(&entry.path(), &rel, files, dirs)?;
        } else if name.ends_with(".yaml") || name.ends_with(".yml") {
            files.push(PathBuf::from(rel));
        }
    }
    Ok(())
}

/// Reads and checks a project from in-memory sources. `dirs` are the folders below the
/// specs directory (for `tool_roots`); `display_root` prefixes file paths in diagnostics.
pub fn analyze(sources: &[Source], dirs: &[String], display_root: &str) -> Project {
    let display = |path: &str| {
        if display_root.is_empty() {
            path.to_owned()
        } else {
            format!("{}/{path}", display_root.trim_end_matches('/'))
        }
    };
    let mut diagnostics = Vec::new();
    let mut texts = Sources::new();
    let mut parsed = Vec::new();
    for source in sources {
        let file = display(&source.path);
        texts.insert(file.clone(), source.text.clone());
        match yaml::parse(&source.text) {
            Ok(node) => parsed.push((source.path.as_str(), file, node)),
            Err(e) => {
                let mut d =
                    Diagnostic::error(file, Some(e.span), format!("invalid YAML: {}", e.message));
                d.label = Some("here".into());
                diagnostics.push(d);
            }
        }
    }

    // 1. The project config comes first: tool specs are read against it.
    let config = match parsed.iter().find(|(path, _, _)| *path == CONFIG_FILE) {
        Some((_, file, node)) => read_config(&mut Reader::new(file, &mut diagnostics), node, dirs),
        None => default_config(),
    };

    // 2. Named types, then tools.
    let mut types = Types::new();
    let mut specs = Vec::new();
    for (path, file, node) in &parsed {
        if *path == CONFIG_FILE {
            continue;
        }
        let mut r = Reader::new(file, &mut diagnostics);
        if node.get("types").is_some() {
            for named in read_types(&mut r, node) {
                if let Some(first) = types.get(&named.field.name) {
                    let d = Diagnostic::error(
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
                    r.push(d);
                    continue;
                }
                types.insert(named.field.name.clone(), named);
            }
        } else if let Some(spec) = read_tool(&mut r, path, node, &config) {
            specs.push(spec);
        }
    }

    check_named_types(&types, &specs, &mut diagnostics);
    let modules = module_paths(&specs, !types.is_empty(), &mut diagnostics);

    // 3. Per tool: name, membership, hints, description, schemas.
    let adapters = config.adapter_names();
    let strip: Vec<&str> = config.strip_prefixes.iter().map(String::as_str).collect();
    let mut tools = Vec::new();
    for (spec, module) in specs.into_iter().zip(modules) {
        let mut r = Reader::new(&spec.file, &mut diagnostics);
        let name = tool_name(&mut r, &spec, &strip);
        check_hints(&mut r, &spec, &config);
        check_codes(&mut r, &spec);
        let bindings = name
            .as_ref()
            .map(|name| bindings(&spec, name, &config, &adapters))
            .unwrap_or_default();
        let (Some(name), Some(module)) = (name, module) else {
            continue;
        };
        let input_schema = schema::input_schema(&spec, &types);
        let output_schema = schema::output_schema(&spec, &types);
        check_defaults(&mut r, &spec, &types);
        check_message(&mut r, &spec);
        let description = compose_description(&spec);
        tools.push(Tool {
            spec,
            name,
            module,
            bindings,
            description,
            input_schema,
            output_schema,
        });
    }
    check_duplicate_names(&tools, &config, &mut diagnostics);
    Project {
        display_root: display_root.to_owned(),
        config,
        types,
        tools,
        sources: texts,
        diagnostics,
    }
}

/// The tool description models see: the spec's description, then the preconditions and the
/// error codes a call can fail with (guards first).
pub fn compose_description(spec: &ToolSpec) -> String {
    let mut text = spec.description.clone();
    if !spec.guards.is_empty() {
        let preconditions: Vec<String> = spec
            .guards
            .iter()
            .map(|g| sentence(&g.description))
            .collect();
        text.push_str("\nPreconditions: ");
        text.push_str(&preconditions.join(" "));
    }
    let codes: Vec<&str> = spec
        .guards
        .iter()
        .map(|g| g.name.value.as_str())
        .chain(spec.errors.iter().map(|e| e.code.value.as_str()))
        .collect();
    if !codes.is_empty() {
        text.push_str("\nErrors: ");
        text.push_str(&codes.join(", "));
        text.push('.');
    }
    text
}

fn sentence(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}

fn tool_name(r: &mut Reader<'_>, spec: &ToolSpec, strip: &[&str]) -> Option<String> {
    if let Some(name) = &spec.name {
        if toolspec::naming::is_canonical(&name.value) {
            return Some(name.value.clone());
        }
        let suggestion =
            toolspec::naming::normalize(&toolspec::naming::snake_case(&name.value), &[]).ok();
        let d = r.error(
            name.span,
            format!("tool name `{}` is not provider-safe", name.value),
        );
        d.label = Some("expected 1–64 of `a-z`, `0-9`, `_`".into());
        d.help = Some(match suggestion {
            Some(s) => format!("use `{s}`"),
            None => "use 1–64 lowercase letters, digits and underscores".into(),
        });
        return None;
    }
    match toolspec::naming::derive_name(&spec.path, strip) {
        Ok(name) => Some(name),
        Err(e) => {
            r.push(
                Diagnostic::error(&spec.file, None, e.to_string())
                    .with_note(format!("the name is derived from the path `{}`", spec.path))
                    .with_help("set `name:` in the spec, or rename the file"),
            );
            None
        }
    }
}

fn check_hints(r: &mut Reader<'_>, spec: &ToolSpec, config: &ProjectConfig) {
    let mut seen: Vec<&str> = Vec::new();
    for hint in &spec.hints {
        if !config.hints.contains(&hint.value) {
            let help = did_you_mean(&hint.value, config.hints.iter().map(String::as_str))
                .map(|m| format!("did you mean `{m}`?"))
                .unwrap_or_else(|| {
                    format!(
                        "known hints: {}; register more under `hints:` in toolspec.yaml",
                        config.hints.join(", ")
                    )
                });
            let d = r.error(hint.span, format!("unknown hint `{}`", hint.value));
            d.label = Some("not a registered hint".into());
            d.help = Some(help);
            continue;
        }
        if seen.contains(&hint.value.as_str()) {
            r.error(hint.span, format!("hint `{}` is listed twice", hint.value))
                .label = Some("duplicate".into());
            continue;
        }
        for (a, b) in [("read_only", "destructive"), ("open_world", "closed_world")] {
            let other = if hint.value == a {
                b
            } else if hint.value == b {
                a
            } else {
                continue;
            };
            if seen.contains(&other) {
                let d = r.error(
                    hint.span,
                    format!("contradictory hints: `{other}` and `{}`", hint.value),
                );
                d.label = Some(format!("contradicts `{other}`"));
            }
        }
        seen.push(&hint.value);
    }
}

fn check_codes(r: &mut Reader<'_>, spec: &ToolSpec) {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    for guard in &spec.guards {
        seen.insert(&guard.name.value);
    }
    for error in &spec.errors {
        if seen.contains(error.code.value.as_str()) {
            let d = r.error(
                error.code.span,
                format!("error code `{}` is also a guard's name", error.code.value),
            );
            d.label = Some("clashes with a guard".into());
            d.help = Some("a failing guard already reports its own name as the error code".into());
        }
        for reserved in ["invalid_arguments", "internal_error"] {
            if error.code.value == reserved {
                r.error(
                    error.code.span,
                    format!("error code `{reserved}` is reserved by toolspec"),
                )
                .label = Some("reserved".into());
            }
        }
    }
}

fn bindings(
    spec: &ToolSpec,
    name: &str,
    config: &ProjectConfig,
    adapters: &[&str],
) -> Vec<Binding> {
    let only: Vec<&str>;
    let grant = match &spec.tool.grant {
        GrantDecl::Default => Grant::Default,
        GrantDecl::All => Grant::All,
        GrantDecl::OptOut => Grant::OptOut,
        GrantDecl::Only(list) => {
            only = list.iter().map(|s| s.value.as_str()).collect();
            Grant::Only(&only)
        }
    };
    let configured: Vec<&str> = spec
        .tool
        .options
        .iter()
        .map(|o| o.adapter.value.as_str())
        .collect();
    let except: Vec<&str> = spec.tool.except.iter().map(|s| s.value.as_str()).collect();
    let directory: Vec<&str> = config
        .adapters
        .iter()
        .filter(|a| {
            a.tool_roots
                .iter()
                .any(|root| membership::is_under_root(&spec.path, root))
        })
        .map(|a| a.decl.name.as_ref())
        .collect();
    let decl = Declaration {
        grant,
        configured: &configured,
        except: &except,
    };
    membership::resolve(&decl, &directory, config.membership, adapters)
        .into_iter()
        .map(|adapter| {
            let options = spec
                .tool
                .options
                .iter()
                .find(|o| o.adapter.value == adapter);
            Binding {
                adapter: adapter.to_owned(),
                name: options
                    .and_then(|o| o.name.as_ref())
                    .map(|n| n.value.clone())
                    .unwrap_or_else(|| name.to_owned()),
                settings: options
                    .map(|o| {
                        o.settings
                            .iter()
                            .map(|(k, v)| (k.value.clone(), v.value.clone()))
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        })
        .collect()
}

/// Where a tool's name on an adapter is written (its per-adapter `name:`, else its `name:`).
fn name_span(tool: &Tool, adapter: &str) -> Option<Span> {
    tool.spec
        .tool
        .options
        .iter()
        .find(|o| o.adapter.value == adapter)
        .and_then(|o| o.name.as_ref())
        .or(tool.spec.name.as_ref())
        .map(|n| n.span)
}

fn check_duplicate_names(
    tools: &[Tool],
    config: &ProjectConfig,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut seen: BTreeMap<(&str, &str), &Tool> = BTreeMap::new();
    for tool in tools {
        if config.explain_enabled && tool.name == config.explain_name {
            diagnostics.push(
                Diagnostic::error(
                    &tool.spec.file,
                    tool.spec.name.as_ref().map(|n| n.span),
                    format!(
                        "tool name `{}` is taken by the built-in explain tool",
                        tool.name
                    ),
                )
                .with_help("rename the tool, or set `explain: { name: … }` in toolspec.yaml"),
            );
        }
        for binding in &tool.bindings {
            let key = (binding.adapter.as_str(), binding.name.as_str());
            match seen.get(&key) {
                Some(first) => {
                    let span = name_span(tool, &binding.adapter);
                    let mut d = Diagnostic::error(
                        &tool.spec.file,
                        span,
                        format!(
                            "tool name `{}` is used twice on adapter `{}`",
                            binding.name, binding.adapter
                        ),
                    )
                    .with_help(
                        "give one of them another `name:` (or a per-adapter `name:` under `tool:`)",
                    );
                    if span.is_some() {
                        d.label = Some("second use".into());
                    }
                    d = match name_span(first, &binding.adapter) {
                        Some(first_span) => {
                            d.with_related(first.spec.file.clone(), first_span, "first used here")
                        }
                        None => d.with_note(format!(
                            "`{}` is also named `{}`",
                            first.spec.file, binding.name
                        )),
                    };
                    diagnostics.push(d);
                }
                None => {
                    seen.insert(key, tool);
                }
            }
        }
    }
}

/// Module paths from spec paths; reports files that would share a module.
fn module_paths(
    specs: &[ToolSpec],
    has_types: bool,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Option<Vec<String>>> {
    let mut taken: BTreeMap<Vec<String>, &ToolSpec> = BTreeMap::new();
    let mut out = Vec::new();
    for spec in specs {
        let stem = spec.path.trim_end_matches(".yaml").trim_end_matches(".yml");
        let segments: Vec<String> = stem.split('/').map(toolspec::naming::snake_case).collect();
        let bad = segments.iter().find(|s| {
            s.is_empty()
                || s.starts_with(|c: char| c.is_ascii_digit())
                || matches!(s.as_str(), "self" | "super" | "crate")
        });
        if let Some(bad) = bad {
            diagnostics.push(
                Diagnostic::error(
                    &spec.file,
                    None,
                    format!("`{}` cannot become a Rust module name (`{bad}`)", spec.path),
                )
                .with_help(
                    "name spec files and folders with letters first, like `orders/cancel.yaml`",
                ),
            );
            out.push(None);
            continue;
        }
        if has_types && segments.first().map(String::as_str) == Some("types") {
            diagnostics.push(
                Diagnostic::error(
                    &spec.file,
                    None,
                    format!(
                        "`{}` would share the module `types` with the named types",
                        spec.path
                    ),
                )
                .with_help("rename the file or folder"),
            );
            out.push(None);
            continue;
        }
        let clash = taken.iter().find(|(other, _)| {
            **other == segments || other.starts_with(&segments) || segments.starts_with(other)
        });
        if let Some((_, first)) = clash {
            diagnostics.push(
                Diagnostic::error(
                    &spec.file,
                    None,
                    format!(
                        "`{}` and `{}` map to the same Rust module",
                        spec.path, first.path
                    ),
                )
                .with_help("rename one of them"),
            );
            out.push(None);
            continue;
        }
        taken.insert(segments.clone(), spec);
        out.push(Some(segments));
    }
    out
}

/// Every field's named type must exist; named types may not contain themselves except
/// through a list or map.
fn check_named_types(types: &Types, specs: &[ToolSpec], diagnostics: &mut Vec<Diagnostic>) {
    let mut known: Vec<&str> = FieldType::BUILTIN.to_vec();
    known.extend(types.keys().map(String::as_str));
    let check = |file: &str, field: &Field, diagnostics: &mut Vec<Diagnostic>| {
        visit(field, &mut |f| {
            if let FieldType::Named(name) = &f.ty {
                if !types.contains_key(name) {
                    let help = did_you_mean(name, known.iter().copied())
                        .map(|m| format!("did you mean `{m}`?"))
                        .unwrap_or_else(|| {
                            format!(
                                "types are {} or a named type from a `types:` file",
                                FieldType::BUILTIN.join(", ")
                            )
                        });
                    diagnostics.push(
                        Diagnostic::error(
                            file,
                            Some(f.type_span),
                            format!("unknown type `{name}`"),
                        )
                        .with_label("not a known type")
                        .with_help(help),
                    );
                }
            }
        });
    };
    for named in types.values() {
        check(&named.file, &named.field, diagnostics);
    }
    for spec in specs {
        for field in spec.expects.iter().chain(&spec.exposes) {
            check(&spec.file, field, diagnostics);
        }
    }
    for (name, named) in types {
        if reaches_without_indirection(&named.field, name, types, &mut BTreeSet::new()) {
            diagnostics.push(
                Diagnostic::error(
                    &named.file,
                    Some(named.field.span),
                    format!("type `{name}` contains itself"),
                )
                .with_label("recursive type")
                .with_help("a type may refer to itself only through an `array` or a `map`"),
            );
        }
    }
}

fn reaches_without_indirection<'a>(
    field: &'a Field,
    target: &str,
    types: &'a Types,
    seen: &mut BTreeSet<&'a str>,
) -> bool {
    match &field.ty {
        FieldType::Named(name) => {
            if name == target {
                return true;
            }
            if !seen.insert(name) {
                return false;
            }
            types
                .get(name)
                .is_some_and(|t| reaches_without_indirection(&t.field, target, types, seen))
        }
        FieldType::Object(fields) => fields
            .iter()
            .any(|f| reaches_without_indirection(f, target, types, seen)),
        FieldType::AnyOf { variants, .. } => variants
            .iter()
            .any(|v| reaches_without_indirection(&v.field, target, types, seen)),
        _ => false,
    }
}

/// Calls `f` on a field and every field nested in it.
pub fn visit<'a>(field: &'a Field, f: &mut impl FnMut(&'a Field)) {
    f(field);
    match &field.ty {
        FieldType::Object(fields) => fields.iter().for_each(|x| visit(x, f)),
        FieldType::Array(inner) | FieldType::Map(inner) => visit(inner, f),
        FieldType::AnyOf { variants, .. } => variants.iter().for_each(|v| visit(&v.field, f)),
        _ => {}
    }
}

/// Every `default:` must be valid under its own field's schema (type and constraints).
fn check_defaults(r: &mut Reader<'_>, spec: &ToolSpec, types: &Types) {
    for top in &spec.expects {
        let mut with_defaults = Vec::new();
        visit(top, &mut |f| {
            if f.default.is_some() {
                with_defaults.push(f);
            }
        });
        for field in with_defaults {
            let Some(default) = &field.default else {
                continue;
            };
            let mut schema = schema::standalone_field_schema(field, types);
            if let Json::Object(map) = &mut schema {
                map.remove("default");
            }
            let validator = match jsonschema::options()
                .should_validate_formats(true)
                .build(&schema)
            {
                Ok(v) => v,
                Err(_) => continue, // an invalid pattern is reported where it is written
            };
            if let Some(error) = validator.iter_errors(&default.value).next() {
                let d = r.error(
                    default.span,
                    format!(
                        "default of `{}` does not match the field: {error}",
                        field.name
                    ),
                );
                d.label = Some(format!("not a valid `{}`", field.ty.describe()));
            }
        }
    }
}

fn check_message(r: &mut Reader<'_>, spec: &ToolSpec) {
    let Some(message) = &spec.message else { return };
    let env = minijinja::Environment::new();
    if let Err(e) = env.template_from_str(&message.value) {
        let d = r.error(
            message.span,
            format!(
                "invalid `message` template: {}",
                e.detail().unwrap_or("syntax error")
            ),
        );
        d.label = Some("does not compile".into());
    }
}
