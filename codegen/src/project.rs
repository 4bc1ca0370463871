//! A whole specs directory, read and checked: the project config, named types and tools,
//! with every tool's canonical name, module path, adapter bindings, description and schemas
//! resolved. All problems of a run are collected, not just the first.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value as Json;
use toolspec_vocab::membership::{self, Declaration, Grant};
use toolspec_vocab::settings::SettingValue;
use toolspec_vocab::{codes, hints};

use crate::diagnostic::{self, Diagnostic, Severity, Sources, did_you_mean};
use crate::dialect::{self, MAX_DEPTH, Seg};
use crate::rust_name::{self, NoModule};
use crate::schema::{self, Types};
use crate::sensitive;
use crate::spec::config::{default_config, read_config};
use crate::spec::model::{Field, FieldType, GrantDecl, ProjectConfig, ToolSpec};
use crate::spec::read::Reader;
use crate::spec::tool::{read_tool, read_types};
use crate::yaml::{self, Span};

/// The name of the project config file at the root of the specs directory.
pub const CONFIG_FILE: &str = "toolspec.yaml";

/// One file's text: a spec (`.yaml`, `.yml`) or a JSON Schema for `shape: { file: … }`.
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
    /// Where the input holds `sensitive` values (see [`crate::sensitive`]), if anywhere.
    pub sensitive_input: Option<Json>,
    /// Where the output holds `sensitive` values, if anywhere.
    pub sensitive_output: Option<Json>,
    /// The input schema in each dialect the tool is a member of (always `mcp`), by dialect
    /// name (see [`crate::dialect`]); empty when the project has errors.
    pub dialects: BTreeMap<crate::dialect::Dialect, Json>,
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

    crate::emit::shape::resolve_shapes(&mut specs, &mut types, &json_files, &mut diagnostics);
    check_named_types(&types, &specs, &mut diagnostics);
    let too_deep_types = check_type_depths(&types, &mut diagnostics);
    let modules = module_paths(&specs, !types.is_empty(), &mut diagnostics);

    // 3. Per tool: name, membership, hints, description, schemas.
    let adapters = config.adapter_names();
    let strip: Vec<&str> = config.strip_prefixes.iter().map(String::as_str).collect();
    let pairs: Vec<(ToolSpec, Option<Vec<String>>)> = specs.into_iter().zip(modules).collect();
    let checked = crate::parallel::map(&pairs, |(spec, module)| {
        let mut local = Vec::new();
        let mut r = Reader::new(&spec.file, &mut local);
        let name = tool_name(&mut r, spec, &strip);
        check_hints(&mut r, spec, &config);
        check_codes(&mut r, spec);
        let bindings = name
            .as_ref()
            .map(|name| bindings(spec, name, &config, &adapters))
            .unwrap_or_default();
        let resolved = match (name, module) {
            (Some(name), Some(module)) => {
                let input_schema = schema::input_schema(spec, &types);
                let output_schema = schema::output_schema(spec, &types);
                let schemas = [(&input_schema, "input"), (&output_schema, "output")];
                // Defaults are checked with a validator, which a schema too deep would overflow.
                if check_depths(&mut r, spec, &types, &too_deep_types, schemas) {
                    check_defaults(&mut r, spec, &types);
                }
                check_message(&mut r, spec);
                Some(Tool {
                    spec: ToolSpec::placeholder(),
                    name,
                    module: module.clone(),
                    bindings,
                    description: compose_description(spec),
                    input_schema,
                    output_schema,
                    sensitive_input: sensitive::input(spec, &types),
                    sensitive_output: sensitive::output(spec, &types),
                    dialects: BTreeMap::new(),
                })
            }
            _ => None,
        };
        (local, resolved)
    });
    let mut tools = Vec::new();
    for ((spec, _), (local, resolved)) in pairs.into_iter().zip(checked) {
        diagnostics.extend(local);
        if let Some(mut tool) = resolved {
            tool.spec = spec;
            tools.push(tool);
        }
    }
    check_duplicate_names(&tools, &config, &mut diagnostics);
    crate::dialect::check_names(&tools, &config, &mut diagnostics);
    if !diagnostics.iter().any(|d| d.severity == Severity::Error) {
        crate::dialect::apply(&mut tools, &config, &types, &mut diagnostics);
    }
    Project {
        display_root: display_root.to_owned(),
        config,
        types,
        tools,
        sources: texts,
        diagnostics,
    }
}

/// A YAML error as a diagnostic. When the parser stopped inside a `[` or `{` that is never
/// closed, the diagnostic points at that bracket rather than where the parser gave up.
fn yaml_error(file: String, text: &str, e: &yaml::YamlError) -> Diagnostic {
    if let Some((open, span)) = unclosed_bracket(text, e.span.start) {
        let (close, what) = if open == '[' {
            (']', "list")
        } else {
            ('}', "map")
        };
        return Diagnostic::error(
            file.clone(),
            Some(span),
            format!("invalid YAML: unclosed `{open}`"),
        )
        .with_label(format!("this `{open}` is never closed"))
        .with_related(
            file,
            e.span,
            format!("the parser gave up here: {}", e.message),
        )
        .with_help(format!("close the {what} with `{close}`"));
    }
    let label = if e.message.starts_with("duplicate key") {
        "duplicate key"
    } else {
        "here"
    };
    Diagnostic::error(file, Some(e.span), format!("invalid YAML: {}", e.message)).with_label(label)
}

/// The last flow-collection bracket (`[` or `{`) before `before` in `text` that is never
/// closed, found with a light scan that skips comments, quoted scalars and block scalars.
fn unclosed_bracket(text: &str, before: yaml::Pos) -> Option<(char, Span)> {
    let (text, base) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (rest, '\u{feff}'.len_utf8()),
        None => (text, 0),
    };
    if text.replace("\r\n", "").contains('\r') {
        return None; // old Mac line ends: lines would not be counted as the parser counts them
    }
    let mut stack: Vec<(char, Span)> = Vec::new();
    let mut unclosed: Vec<(char, Span)> = Vec::new();
    let mut block_indent: Option<usize> = None;
    let mut offset = base;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        let line_start = offset;
        offset += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        let indent = line.len() - line.trim_start_matches(' ').len();
        // Inside a block scalar (`|`, `>`): skip lines indented deeper than its key.
        if let Some(key_indent) = block_indent {
            if line.trim().is_empty() || indent > key_indent {
                continue;
            }
            block_indent = None;
        }
        let mut value_start = true;
        let mut quote: Option<char> = None;
        let mut chars = line.char_indices().peekable();
        let mut col = 0u32;
        while let Some((i, c)) = chars.next() {
            col += 1;
            if let Some(q) = quote {
                if c == '\\' && q == '"' {
                    chars.next();
                    col += 1;
                } else if c == q {
                    quote = None;
                }
                continue;
            }
            let next = chars.peek().map(|(_, n)| *n);
            match c {
                ' ' | '\t' => continue,
                '#' if i == 0 || line[..i].ends_with([' ', '\t']) => break,
                '\'' | '"' if value_start => quote = Some(c),
                '|' | '>' if value_start && stack.is_empty() => {
                    block_indent = Some(indent);
                    break;
                }
                '[' | '{' if value_start || !stack.is_empty() => {
                    let pos = |col, off| yaml::Pos {
                        line: u32::try_from(index + 1).unwrap_or(u32::MAX),
                        col,
                        offset: off,
                    };
                    let span = Span {
                        start: pos(col, line_start + i),
                        end: pos(col + 1, line_start + i + 1),
                    };
                    stack.push((c, span));
                    value_start = true;
                    continue;
                }
                ']' | '}' if !stack.is_empty() => {
                    let open = if c == ']' { '[' } else { '{' };
                    if let Some(at) = stack.iter().rposition(|(o, _)| *o == open) {
                        unclosed.extend(stack.drain(at..).skip(1));
                    }
                }
                ',' if !stack.is_empty() => {
                    value_start = true;
                    continue;
                }
                ':' if next.is_none_or(|n| n == ' ' || n == '\t') || !stack.is_empty() => {
                    value_start = true;
                    continue;
                }
                '-' if value_start && next.is_none_or(|n| n == ' ' || n == '\t') => continue,
                _ => {}
            }
            value_start = false;
        }
    }
    unclosed.extend(stack);
    unclosed
        .into_iter()
        .filter(|(_, s)| (s.start.line, s.start.col) < (before.line, before.col))
        .max_by_key(|(_, s)| s.start.offset)
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
        if toolspec_vocab::naming::is_canonical(&name.value) {
            return Some(name.value.clone());
        }
        let suggestion = toolspec_vocab::naming::normalize(
            &toolspec_vocab::naming::snake_case(&name.value),
            &[],
        )
        .ok();
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
    match toolspec_vocab::naming::derive_name(&spec.path, strip) {
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
        for contradiction in hints::CONTRADICTIONS {
            let [a, b] = contradiction.hints;
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
                d.help = Some(format!("{}: keep one of them", contradiction.reason));
            }
        }
        seen.push(&hint.value);
    }
}

fn check_codes(r: &mut Reader<'_>, spec: &ToolSpec) {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let guards = spec.guards.iter().map(|g| (&g.name, "guard"));
    let errors = spec.errors.iter().map(|e| (&e.code, "error"));
    for (code, what) in guards.chain(errors) {
        if codes::BUILTIN.contains(&code.value.as_str()) {
            let noun = if what == "guard" {
                "guard name"
            } else {
                "error code"
            };
            let d = r.error(
                code.span,
                format!("{noun} `{}` is reserved by toolspec", code.value),
            );
            d.label = Some("reserved".into());
            d.help = Some(format!(
                "toolspec reports `{}` itself; name this {what} after what went wrong",
                code.value
            ));
        }
    }
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

/// A name clash with an earlier tool: the earlier tool, the name, where this tool and the
/// earlier one write it, and the adapters it happens on.
type Clash<'a> = (&'a Tool, &'a str, Option<Span>, Option<Span>, Vec<&'a str>);

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
                .with_label("the built-in tool's name")
                .with_help("rename the tool, or set `explain: { name: … }` in toolspec.yaml"),
            );
        }
        // One diagnostic per clash between two tools, listing every adapter it happens on.
        let mut clashes: Vec<Clash<'_>> = Vec::new();
        for binding in &tool.bindings {
            let key = (binding.adapter.as_str(), binding.name.as_str());
            match seen.get(&key) {
                Some(first) => {
                    let spans = (
                        name_span(tool, &binding.adapter),
                        name_span(first, &binding.adapter),
                    );
                    let same = clashes.iter_mut().find(|(f, name, a, b, _)| {
                        std::ptr::eq(*f, *first) && *name == binding.name && (*a, *b) == spans
                    });
                    match same {
                        Some(clash) => clash.4.push(&binding.adapter),
                        None => clashes.push((
                            first,
                            &binding.name,
                            spans.0,
                            spans.1,
                            vec![&binding.adapter],
                        )),
                    }
                }
                None => {
                    seen.insert(key, tool);
                }
            }
        }
        for (first, name, span, first_span, adapters) in clashes {
            let quoted: Vec<String> = adapters.iter().map(|a| format!("`{a}`")).collect();
            let on = match quoted.split_last() {
                _ if adapters.len() > 1 && adapters.len() == config.adapters.len() => {
                    "on every adapter".to_owned()
                }
                Some((last, rest)) if !rest.is_empty() => {
                    format!("on adapters {} and {last}", rest.join(", "))
                }
                _ => format!("on adapter {}", quoted.concat()),
            };
            let mut d = Diagnostic::error(
                &tool.spec.file,
                span,
                format!("tool name `{name}` is used twice {on}"),
            )
            .with_help("give one of them another `name:` (or a per-adapter `name:` under `tool:`)");
            if span.is_some() {
                d.label = Some("second use".into());
            }
            d = match first_span {
                Some(first_span) => {
                    d.with_related(first.spec.file.clone(), first_span, "first used here")
                }
                None => d.with_note(format!("`{}` is also named `{name}`", first.spec.file)),
            };
            diagnostics.push(d);
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
        let spelled: Result<Vec<String>, String> = stem
            .split('/')
            .map(|part| {
                rust_name::module_name(part).map_err(|why| match why {
                    NoModule::Empty => format!("`{part}` has no letters or digits"),
                    NoModule::Digit => format!(
                        "`{}` starts with a digit",
                        toolspec_vocab::naming::snake_case(part)
                    ),
                })
            })
            .collect();
        let segments = match spelled {
            Ok(segments) => segments,
            Err(why) => {
                diagnostics.push(
                    Diagnostic::error(
                        &spec.file,
                        None,
                        format!("`{}` cannot become a Rust module name: {why}", spec.path),
                    )
                    .with_help(
                        "name spec files and folders with letters first, like `orders/cancel.yaml`",
                    ),
                );
                out.push(None);
                continue;
            }
        };
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
        // The same module, an ancestor that is a tool, or a descendant that is one.
        let ancestor = (1..segments.len()).find_map(|n| taken.get_key_value(&segments[..n]));
        let descendant = taken
            .range(segments.clone()..)
            .next()
            .filter(|(other, _)| other.starts_with(&segments));
        let clash = ancestor.or(descendant);
        if let Some((other, first)) = clash {
            let module = |segments: &[String]| format!("tools::{}", segments.join("::"));
            let message = if *other == segments {
                format!(
                    "`{}` and `{}` both map to the Rust module `{}`",
                    spec.path,
                    first.path,
                    module(&segments)
                )
            } else {
                let (tool, folder) = if other.len() < segments.len() {
                    (other.as_slice(), &segments)
                } else {
                    (segments.as_slice(), other)
                };
                format!(
                    "`{}` and `{}` clash: the Rust module `{}` cannot be both a tool and the parent of `{}`",
                    spec.path,
                    first.path,
                    module(tool),
                    module(folder)
                )
            };
            diagnostics
                .push(Diagnostic::error(&spec.file, None, message).with_help("rename one of them"));
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
    // Suggestions for as many unknown types as are shown: each one compares with every type.
    let mut suggestions = diagnostic::MAX_SHOWN;
    let mut check = |file: &str, field: &Field, diagnostics: &mut Vec<Diagnostic>| {
        visit(field, &mut |f| {
            if let FieldType::Named(name) = &f.ty
                && !types.contains_key(name)
            {
                let suggestion = match suggestions.checked_sub(1) {
                    Some(left) => {
                        suggestions = left;
                        did_you_mean(name, known.iter().copied())
                    }
                    None => None,
                };
                let help = suggestion
                    .map(|m| format!("did you mean `{m}`?"))
                    .unwrap_or_else(|| {
                        format!(
                            "types are {} or a named type from a `types:` file",
                            FieldType::BUILTIN.join(", ")
                        )
                    });
                diagnostics.push(
                    Diagnostic::error(file, Some(f.type_span), format!("unknown type `{name}`"))
                        .with_label("not a known type")
                        .with_help(help),
                );
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
    let recursive = self_containing(types);
    for (name, named) in types.iter().filter(|(n, _)| recursive.contains(n.as_str())) {
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

/// The named types that contain themselves other than through an array or a map: those on a
/// cycle of containment (through objects and unions), found as strongly connected components
/// without recursion, however long a chain of types is.
fn self_containing(types: &Types) -> BTreeSet<&str> {
    let names: Vec<&str> = types.keys().map(String::as_str).collect();
    let mut graph = petgraph::graph::DiGraph::<(), ()>::with_capacity(names.len(), names.len());
    let nodes: Vec<_> = names.iter().map(|_| graph.add_node(())).collect();
    for (from, named) in types.values().enumerate() {
        let mut contained = Vec::new();
        contained_types(&named.field, &mut contained);
        for name in contained {
            if let Ok(to) = names.binary_search(&name) {
                graph.add_edge(nodes[from], nodes[to], ());
            }
        }
    }
    petgraph::algo::kosaraju_scc(&graph)
        .into_iter()
        .filter(|scc| scc.len() > 1 || graph.contains_edge(scc[0], scc[0]))
        .flatten()
        .map(|node| names[node.index()])
        .collect()
}

/// The named types a field holds directly: itself, or through objects and unions (not
/// arrays, maps or shapes).
fn contained_types<'a>(field: &'a Field, out: &mut Vec<&'a str>) {
    match &field.ty {
        FieldType::Named(name) => out.push(name),
        FieldType::Object(fields) => fields.iter().for_each(|f| contained_types(f, out)),
        FieldType::AnyOf { variants, .. } => {
            variants.iter().for_each(|v| contained_types(&v.field, out))
        }
        _ => {}
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

/// The first named type whose schema (the named types it refers to written out) nests deeper
/// than [`MAX_DEPTH`], reported at the field where it crosses the limit; the types on the way
/// there, which are too deep too.
fn check_type_depths(types: &Types, diagnostics: &mut Vec<Diagnostic>) -> BTreeSet<String> {
    // Every definition in one schema: each is measured once, whichever refers to it.
    let defs: serde_json::Map<String, Json> = types
        .iter()
        .map(|(name, named)| (name.clone(), schema::field_schema(&named.field)))
        .collect();
    let all = serde_json::json!({ "$defs": defs });
    let Some(path) = dialect::too_deep(&all, MAX_DEPTH) else {
        return BTreeSet::new();
    };
    let Some(Seg::Def(name)) = path.first() else {
        return BTreeSet::new();
    };
    let at = dialect::locate_in("", &[], types, &path);
    diagnostics.push(depth_error(&at, &format!("the schema of type `{name}`")));
    // The types the path goes through are too deep as well: not reported again.
    path.into_iter()
        .filter_map(|s| match s {
            Seg::Def(name) => Some(name),
            _ => None,
        })
        .collect()
}

/// A tool's schemas (`(schema, "input")`…) must nest at most [`MAX_DEPTH`] levels; reports
/// where one does not (unless inside a named type already reported). Whether all do.
fn check_depths(
    r: &mut Reader<'_>,
    spec: &ToolSpec,
    types: &Types,
    too_deep_types: &BTreeSet<String>,
    schemas: [(&Json, &str); 2],
) -> bool {
    let mut within = true;
    for ((schema, side), roots) in schemas.into_iter().zip([&spec.expects, &spec.exposes]) {
        let Some(path) = dialect::too_deep(schema, MAX_DEPTH) else {
            continue;
        };
        within = false;
        if path
            .iter()
            .any(|s| matches!(s, Seg::Def(n) if too_deep_types.contains(n)))
        {
            continue;
        }
        let at = dialect::locate_in(&spec.file, roots, types, &path);
        let mut d = depth_error(&at, &format!("the tool's {side} schema"));
        if at.file != spec.file {
            d = d.with_note(format!("in the {side} of `{}`", spec.file));
        }
        r.push(d);
    }
    within
}

/// The end of a long field path, which says where: `…level_30.level_31`; whole segments when
/// it has them.
fn path_end(display: &str) -> String {
    const ROOM: usize = 40;
    if display.chars().count() <= ROOM {
        return display.to_owned();
    }
    let mut tail = String::new();
    for segment in display.rsplit('.') {
        let longer = if tail.is_empty() {
            segment.to_owned()
        } else {
            format!("{segment}.{tail}")
        };
        if longer.chars().count() >= ROOM {
            break;
        }
        tail = longer;
    }
    if tail.is_empty() {
        let chars: Vec<char> = display.chars().collect();
        tail = chars[chars.len() - (ROOM - 1)..].iter().collect();
    }
    format!("…{tail}")
}

fn depth_error(at: &dialect::Location, whose: &str) -> Diagnostic {
    let subject = if at.display.is_empty() {
        "the tool".to_owned()
    } else {
        format!("`{}`", path_end(&at.display))
    };
    let mut d = Diagnostic::error(
        at.file.clone(),
        at.span,
        format!("{subject} is nested too deeply: {whose} would be more than {MAX_DEPTH} levels deep"),
    )
    .with_help(format!(
        "schemas may nest {MAX_DEPTH} levels (an object's field takes two, an array's items, a map's values or a named type one); flatten the structure"
    ));
    if at.span.is_some() {
        d.label = Some(format!("more than {MAX_DEPTH} levels deep here"));
    }
    d
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
            let validator = match crate::pattern::validator_options().build(&schema) {
                Ok(v) => v,
                Err(_) => continue, // an invalid pattern is reported where it is written
            };
            if let Some(error) = validator.iter_errors(&default.value).next() {
                let path = error.instance_path().to_string();
                let at = if path.is_empty() {
                    String::new()
                } else {
                    format!(" at `{path}`")
                };
                let d = r.error(
                    default.span,
                    format!(
                        "default of `{}` does not match the field{at}: {error}",
                        field.name
                    ),
                );
                let constraint = match error.kind().keyword() {
                    "enum" => Some("one_of"),
                    "minimum" => Some("minimum"),
                    "maximum" => Some("maximum"),
                    "exclusiveMinimum" => Some("exclusive_minimum"),
                    "exclusiveMaximum" => Some("exclusive_maximum"),
                    "multipleOf" => Some("multiple_of"),
                    "minLength" => Some("min_length"),
                    "maxLength" => Some("max_length"),
                    "pattern" => Some("pattern"),
                    "minItems" => Some("min_items"),
                    "maxItems" => Some("max_items"),
                    "uniqueItems" => Some("unique_items"),
                    _ => None,
                };
                d.label = Some(match constraint {
                    Some("one_of") if path.is_empty() => "not in `one_of`".into(),
                    Some(key) if path.is_empty() => format!("violates `{key}`"),
                    _ => format!("not a valid `{}`", field.ty.describe()),
                });
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
        d.help = Some(
            "the message is a minijinja template: write values as `{{ order.id }}`, with `{{` and `}}` balanced"
                .into(),
        );
    }
}
