//! Tool spec files and `types:` files.

use std::time::Duration;

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::durable::{
    AuditWritten, Keyed, check_key_fields, parse_duration, read_lock, read_once, read_tool_audit,
    resolve_audit,
};
use crate::read::field::{read_field, read_fields};
use crate::read::field_key::Place;
use crate::read::hints::with_default_hints;
use crate::read::lower::lower;
use crate::read::membership::read_tool_decl;
use crate::read::query::{
    QueryDraft, check_ambient, field_type, read_filters, read_limit, read_record, read_scope,
    read_source,
};
use crate::read::rate::read_rate_limit;
use crate::read::reader::{
    Reader, Section, Spellings, article, check_identifier, section, suggest,
};
use crate::read::result_cap::{CapWritten, read_result_cap};
use crate::read::task::{TaskWritten, read_task, resolve_task};
use crate::read::user_input::{check_ask_fields, read_ask, read_confirm};
use crate::read::yaml::{Node, Value};
use crate::rust_name;
use crate::source::{Span, Spanned};
use crate::spec::query::Narrowing;
use crate::spec::{
    AdapterOptions, AuditPolicy, ErrorDecl, GuardDecl, NamedType, ProjectConfig, ToolDecl, ToolSpec,
};

section! {
    /// The keys of a tool spec.
    enum ToolKey {
        Kind = "kind",
        Description = "description",
        Title = "title",
        Name = "name",
        Version = "version",
        Expects = "expects",
        Exposes = "exposes",
        Errors = "errors",
        Guards = "guards",
        Hints = "hints",
        Message = "message",
        Timeout = "timeout",
        Once = "once",
        Lock = "lock",
        Task = "task",
        RateLimit = "rate_limit",
        ResultCap = "result_cap",
        Confirm = "confirm",
        Ask = "ask",
        Audit = "audit",
        Tags = "tags",
        Scopes = "scopes",
        Tool = "tool",
        Source = "source",
        Record = "record",
        Scope = "scope",
        Filters = "filters",
        Sorts = "sorts",
        DefaultSort = "default_sort",
        Limit = "limit",
    }
}

impl ToolKey {
    /// Whether the key belongs to query tools only.
    fn query_only(self) -> bool {
        matches!(
            self,
            Self::Source
                | Self::Record
                | Self::Scope
                | Self::Filters
                | Self::Sorts
                | Self::DefaultSort
                | Self::Limit
        )
    }

    /// Whether the key belongs to actions only.
    fn action_only(self) -> bool {
        matches!(
            self,
            Self::Expects
                | Self::Exposes
                | Self::Errors
                | Self::Guards
                | Self::Message
                | Self::Once
                | Self::Lock
                | Self::Task
                | Self::Confirm
                | Self::Ask
        )
    }
}

/// Reads a tool spec; `None` when it is too broken to use (the reasons are in the diagnostics).
pub fn read_tool(
    r: &mut Reader<'_>,
    path: &str,
    root: &Node,
    config: &ProjectConfig,
) -> Option<ToolSpec> {
    if matches!(root.value, Value::Null) {
        r.report(
            r.error(Kind::MissingKey, root.span, "empty tool spec")
                .with_help("a tool spec needs at least `description:`"),
        );
        return None;
    }
    let entries = r.map(root, "a tool spec")?;
    // The kind decides which keys the rest may use.
    let query = match root.get("kind") {
        Some(kind) => read_kind(r, kind)?,
        None => false,
    };
    let mut draft = Draft::new(path, r.file, query);
    let shown = |key: ToolKey| {
        if query {
            !key.action_only()
        } else {
            !key.query_only()
        }
    };
    for (key, key_node, value) in r.section_showing::<ToolKey>(entries, "a tool spec", shown) {
        draft.read(r, key, key_node, value, config);
    }
    if root.get("description").is_none() && !misspelt_description(entries) {
        r.report(
            r.error(
                Kind::MissingKey,
                first_key_span(root),
                "tool spec has no `description`",
            )
            .with_label("missing `description`")
            .with_help("add `description:` saying what the tool does; models read it"),
        );
    }
    draft.finish(r, root, config)
}

/// `kind:`: whether the tool is a query tool (`query`) or an action (`action`).
fn read_kind(r: &mut Reader<'_>, node: &Node) -> Option<bool> {
    let value = r.string(node, "`kind`")?;
    match value.as_str() {
        "action" => return Some(false),
        "query" => return Some(true),
        _ => {}
    }
    r.report(
        r.error(
            Kind::UnknownName,
            node.span,
            format!("unknown tool kind `{value}`"),
        )
        .with_label("expected `action` or `query`")
        .with_help_opt(
            did_you_mean(&value, ["action", "query"]).map(|m| format!("did you mean `{m}`?")),
        ),
    );
    None
}

/// Whether a key of the spec is a misspelt `description:` (already reported as an unknown key
/// with a did-you-mean: no second diagnostic for the missing one).
fn misspelt_description(entries: &[(Node, Node)]) -> bool {
    let known: Vec<&str> = ToolKey::KEYS.iter().map(|(name, _)| *name).collect();
    entries.iter().any(|(k, _)| {
        k.as_str().is_some_and(|k| {
            !known.contains(&k) && suggest(k, known.iter().copied()) == Some("description")
        })
    })
}

/// A tool spec as its keys are read.
struct Draft {
    spec: ToolSpec,
    description: Option<String>,
    /// A query tool's keys (`kind: query`).
    query: Option<QueryDraft>,
    /// `audit`, as written (resolved against the project's once read).
    audit: AuditWritten,
    /// `task`, as written (resolved against the project's once read).
    task: Option<TaskWritten>,
    /// `rate_limit`, as written (`Some(None)`: `off`); the project's when not written.
    rate_limit: Option<Option<toolspec_vocab::rate::RateLimit>>,
    /// `result_cap`, as written; the project's when not written.
    result_cap: Option<CapWritten>,
}

impl Draft {
    fn new(path: &str, file: &str, query: bool) -> Self {
        Self {
            spec: ToolSpec {
                path: path.to_owned(),
                file: file.to_owned(),
                description: String::new(),
                title: None,
                name: None,
                version: None,
                expects: Vec::new(),
                exposes: Vec::new(),
                headline: None,
                errors: Vec::new(),
                guards: Vec::new(),
                hints: Vec::new(),
                message: None,
                message_key: None,
                timeout: None,
                audit: AuditPolicy::OFF,
                once: None,
                lock: None,
                task: None,
                rate_limit: None,
                result_cap: None,
                confirm: None,
                ask: Vec::new(),
                tags: Vec::new(),
                scopes: Vec::new(),
                tool: ToolDecl::default(),
                query: None,
            },
            description: None,
            query: query.then(QueryDraft::default),
            audit: AuditWritten::default(),
            task: None,
            rate_limit: None,
            result_cap: None,
        }
    }

    fn read(
        &mut self,
        r: &mut Reader<'_>,
        key: ToolKey,
        key_node: &Node,
        node: &Node,
        config: &ProjectConfig,
    ) {
        if let Some(query) = &mut self.query {
            if key.action_only() {
                return not_for_kind(r, key, key_node, true);
            }
            match key {
                ToolKey::Source => return query.source = read_source(r, node),
                ToolKey::Record => return query.record = read_record(r, node),
                ToolKey::Scope => return query.scope = read_scope(r, node),
                ToolKey::Filters => return query.filters = read_filters(r, node),
                ToolKey::Sorts => return query.sorts = r.string_list(node, "`sorts`"),
                ToolKey::DefaultSort => {
                    return query.default_sort = r.spanned_string(node, "`default_sort`");
                }
                ToolKey::Limit => return query.limit = read_limit(r, node),
                _ => {}
            }
        } else if key.query_only() {
            return not_for_kind(r, key, key_node, false);
        }
        let spec = &mut self.spec;
        let plain = |list: Vec<Spanned<String>>| list.into_iter().map(|s| s.value).collect();
        match key {
            ToolKey::Kind => {}
            ToolKey::Description => self.description = r.non_empty_string(node, "`description`"),
            ToolKey::Title => spec.title = r.non_empty_string(node, "`title`"),
            ToolKey::Name => spec.name = r.spanned_string(node, "`name`"),
            ToolKey::Version => {
                spec.version = r.u64(node, "`version`").and_then(|v| u32::try_from(v).ok());
            }
            ToolKey::Expects => spec.expects = read_fields(r, node, "`expects`", Place::Expects),
            ToolKey::Exposes => spec.exposes = read_fields(r, node, "`exposes`", Place::Exposes),
            ToolKey::Errors => (spec.headline, spec.errors) = read_errors(r, node),
            ToolKey::Guards => spec.guards = read_guards(r, node),
            ToolKey::Hints => spec.hints = r.string_list(node, "`hints`"),
            ToolKey::Message => {
                spec.message = r.spanned_string(node, "`message`");
                spec.message_key = Some(key_node.span);
            }
            ToolKey::Timeout => spec.timeout = read_timeout(r, node),
            ToolKey::Once => spec.once = read_once(r, key_node, node),
            ToolKey::Lock => spec.lock = read_lock(r, key_node, node),
            ToolKey::Task => self.task = read_task(r, key_node, node),
            ToolKey::RateLimit => self.rate_limit = read_rate_limit(r, node, "rate_limit"),
            ToolKey::ResultCap => self.result_cap = read_result_cap(r, node, "result_cap"),
            ToolKey::Confirm => spec.confirm = read_confirm(r, node),
            ToolKey::Ask => spec.ask = read_ask(r, node),
            ToolKey::Audit => self.audit = read_tool_audit(r, node),
            ToolKey::Tags => spec.tags = plain(r.string_list(node, "`tags`")),
            ToolKey::Scopes => spec.scopes = plain(r.string_list(node, "`scopes`")),
            ToolKey::Tool => spec.tool = read_tool_decl(r, node, config),
            ToolKey::Source
            | ToolKey::Record
            | ToolKey::Scope
            | ToolKey::Filters
            | ToolKey::Sorts
            | ToolKey::DefaultSort
            | ToolKey::Limit => {}
        }
    }

    /// The spec, when it has its description (and, for a query tool, what a query needs).
    fn finish(self, r: &mut Reader<'_>, root: &Node, config: &ProjectConfig) -> Option<ToolSpec> {
        let mut spec = self.spec;
        spec.audit = resolve_audit(r, &self.audit, config);
        spec.task = self.task.as_ref().map(|t| resolve_task(r, t, config));
        spec.rate_limit = self.rate_limit.unwrap_or(config.rate_limit);
        spec.result_cap = match self.result_cap {
            Some(written) => written.over(config.result_cap),
            None => config.result_cap,
        };
        match self.query {
            Some(draft) => {
                let at = first_key_span(root);
                let query = draft.finish(r, root, at, &spec.tool.options, config)?;
                lower(&query, &mut spec, config);
                spec.query = Some(query);
            }
            None => {
                with_default_hints(&mut spec.hints, &config.default_hints);
                for option in &mut spec.tool.options {
                    narrowing_on_an_action(r, option);
                    if let Some(hints) = &mut option.hints {
                        with_default_hints(hints, &config.default_hints);
                    }
                }
                check_ask_fields(r, &spec.ask, &mut spec.expects);
                for field in &mut spec.expects {
                    if let Some(reference) = &mut field.reference {
                        let scope = std::mem::take(&mut reference.scope);
                        reference.scope = check_ambient(r, scope, config);
                    }
                    if field.ambient {
                        check_ambient_type(r, field, config);
                    }
                }
                // The fields as written (one too broken to read was reported already); an
                // `expects` that is not a map was reported too.
                let expects: Option<Vec<&str>> = match root.get("expects") {
                    None => Some(Vec::new()),
                    Some(node) => node
                        .as_map()
                        .map(|m| m.iter().filter_map(|(k, _)| k.as_str()).collect()),
                };
                let keys = [
                    (Keyed::Once, spec.once.as_ref().map(|o| &o.key)),
                    (Keyed::Lock, spec.lock.as_ref().map(|l| &l.key)),
                ];
                for (which, key) in keys {
                    if let (Some(key), Some(expects)) = (key, &expects) {
                        check_key_fields(r, which, key, expects);
                    }
                }
            }
        }
        spec.description = self.description?.trim_end().to_owned();
        Some(spec)
    }
}

/// An `on: ambient_context` field whose name the project declares under `ambient:` must have
/// the type declared there: both name one value of the trusted context.
fn check_ambient_type(r: &mut Reader<'_>, field: &crate::spec::Field, config: &ProjectConfig) {
    let Some(decl) = config.ambient(field.context_key()) else {
        return;
    };
    if field.ty == field_type(decl.ty) {
        return;
    }
    r.report(
        r.error(
            Kind::Conflict,
            field.type_span,
            format!(
                "ambient field `{}` is {} here but {} in `toolspec.yaml`",
                field.context_key(),
                article(&field.ty.describe()),
                article(decl.ty.name())
            ),
        )
        .with_label(format!("not {}", article(decl.ty.name())))
        .with_help(format!(
            "use `type: {}`, as the project's `ambient:` declares it",
            decl.ty.name()
        )),
    );
}

/// Reports a key of the other kind of tool.
fn not_for_kind(r: &mut Reader<'_>, key: ToolKey, node: &Node, query: bool) {
    let name = key.spelling();
    let d = if query {
        r.error(
            Kind::Conflict,
            node.span,
            format!("a query tool has no `{name}`"),
        )
        .with_label("not a key of query tools")
        .with_help(if matches!(key, ToolKey::Once | ToolKey::Lock) {
            "`once` and `lock` keep an action's effects from repeating or overlapping; a query \
             tool only reads"
        } else if matches!(key, ToolKey::Confirm | ToolKey::Ask) {
            "a query tool only reads, within its scope: there is nothing for a user to approve \
             or fill in"
        } else if key == ToolKey::Task {
            "a query tool answers at once, one page at a time; make a long-running action of it \
             to run it as a task"
        } else {
            "a query tool's inputs are its `filters`, its result its `record`, and it fails only \
             with `invalid_arguments` or `query_failed`"
        })
    } else {
        r.error(
            Kind::Conflict,
            node.span,
            format!("`{name}` belongs to query tools"),
        )
        .with_label("not a key of actions")
        .with_help("add `kind: query` to make this a query tool")
    };
    r.report(d);
}

/// Reports `only_filters`, `except_filters` and `only_sorts` on an action.
fn narrowing_on_an_action(r: &mut Reader<'_>, option: &AdapterOptions) {
    let n = &option.narrowing;
    let lists = [&n.only_filters, &n.except_filters, &n.only_sorts];
    for (list, key) in lists.into_iter().zip(Narrowing::KEYS) {
        let Some(first) = list.as_ref().and_then(|l| l.first()) else {
            continue;
        };
        r.report(
            r.error(
                Kind::Conflict,
                first.span,
                format!("`{key}` applies to query tools only"),
            )
            .with_label(format!("in `tool.{}`", option.adapter.value))
            .with_help("an action has no filters or sorts to narrow; remove it"),
        );
    }
}

fn first_key_span(root: &Node) -> Span {
    root.as_map()
        .and_then(|m| m.first())
        .map(|(k, _)| k.span)
        .unwrap_or(root.span)
}

fn read_errors(r: &mut Reader<'_>, node: &Node) -> (Option<String>, Vec<ErrorDecl>) {
    let Some(entries) = r.map(node, "`errors`") else {
        return (None, Vec::new());
    };
    r.check_keys(entries, &["headline", "codes"], "`errors`");
    let headline = node
        .get("headline")
        .and_then(|n| r.non_empty_string(n, "`errors.headline`"));
    let mut codes = Vec::new();
    let mut spellings = Spellings::new("error codes", "the variant");
    if let Some(codes_node) = node.get("codes")
        && let Some(entries) = r.map(codes_node, "`errors.codes`")
    {
        for (key, value) in entries {
            let Some(code) = check_identifier(r, key, "error code") else {
                continue;
            };
            let variant = format!("Error::{}", rust_name::type_name(&code.value));
            if !spellings.admit(r, &code.value, key.span, variant) {
                continue;
            }
            let decl = match &value.value {
                Value::Str(message) => Some(ErrorDecl {
                    code,
                    message: message.clone(),
                    standalone: false,
                }),
                Value::Map(m) => {
                    r.check_keys(
                        m,
                        &["message", "standalone"],
                        &format!("error code `{}`", code.value),
                    );
                    let what = format!("error code `{}`", code.value);
                    let message = r.required_string(value, "message", key.span, &what, None);
                    let standalone = value
                        .get("standalone")
                        .and_then(|n| r.bool(n, "`standalone`"))
                        .unwrap_or(false);
                    message.map(|message| ErrorDecl {
                        code,
                        message,
                        standalone,
                    })
                }
                _ => {
                    r.wrong_kind(
                        value,
                        &format!("error code `{}`", code.value),
                        "a message or a map with `message`",
                    );
                    None
                }
            };
            codes.extend(decl);
        }
    }
    (headline, codes)
}

fn read_guards(r: &mut Reader<'_>, node: &Node) -> Vec<GuardDecl> {
    let Some(entries) = r.map(node, "`guards`") else {
        return Vec::new();
    };
    let mut guards = Vec::new();
    let mut spellings = Spellings::new("guards", "the handler method");
    let mut variants = Spellings::new("guards", "the variant");
    let mut loaded = Spellings::new("loaded values", "the associated type");
    for (key, value) in entries {
        let Some(name) = check_identifier(r, key, "guard name") else {
            continue;
        };
        let spelled = rust_name::value_name(&name.value);
        if spelled == "call" {
            r.report(
                r.error(
                    Kind::Reserved,
                    key.span,
                    format!("a guard cannot be named `{}`", name.value),
                )
                .with_label(if name.value == "call" {
                    "reserved for the handler's main method"
                } else {
                    "`call` in Rust, the handler's main method"
                })
                .with_help("name the guard after what it checks, like `order_is_open`"),
            );
            continue;
        }
        if !spellings.admit(r, &name.value, key.span, spelled) {
            continue;
        }
        let variant = format!("Guard::{}", rust_name::type_name(&name.value));
        if !variants.admit(r, &name.value, key.span, variant) {
            continue;
        }
        let what = format!("guard `{}`", name.value);
        let (description, errors, loads) = match &value.value {
            Value::Map(m) => {
                r.check_keys(m, &["description", "errors", "loads"], &what);
                let description = match value.get("description") {
                    Some(n) => r.non_empty_string(n, "`description`"),
                    None => {
                        let d = r
                            .error(Kind::MissingKey, key.span, format!("{what} has no `description`"))
                            .with_label("no `description`")
                            .with_help("say what must hold: `description: The note must belong to the caller.`");
                        r.report(d);
                        None
                    }
                };
                let errors = value
                    .get("errors")
                    .map(|n| read_guard_errors(r, n, &what))
                    .unwrap_or_default();
                let loads = value
                    .get("loads")
                    .and_then(|n| check_identifier(r, n, "loaded value"))
                    .filter(|l| !loaded_twice(r, &guards, &name.value, l))
                    .filter(|l| loaded.admit(r, &l.value, l.span, rust_name::type_name(&l.value)));
                (description, errors, loads)
            }
            _ => (r.non_empty_string(value, &what), Vec::new(), None),
        };
        if let Some(description) = description {
            guards.push(GuardDecl {
                name,
                description: description.trim().to_owned(),
                errors,
                loads,
            });
        }
    }
    guards
}

/// Whether an earlier guard loads a value of the same name (reported).
fn loaded_twice(
    r: &mut Reader<'_>,
    earlier: &[GuardDecl],
    guard: &str,
    loads: &Spanned<String>,
) -> bool {
    let Some(first) = earlier
        .iter()
        .find(|g| g.loads.as_ref().is_some_and(|l| l.value == loads.value))
    else {
        return false;
    };
    let d = r
        .error(
            Kind::Conflict,
            loads.span,
            format!(
                "guards `{}` and `{guard}` both load `{}`",
                first.name.value, loads.value
            ),
        )
        .with_label("loaded again")
        .with_related(
            r.file,
            first.loads.as_ref().map_or(first.name.span, |l| l.span),
            "first loaded here",
        )
        .with_help("the handler gets one field per loaded value: name each after what it is");
    r.report(d);
    true
}

/// A guard's `errors:`, the codes it may fail with (one code or a list), each once. Whether
/// the tool declares them is checked once every section is read.
fn read_guard_errors(r: &mut Reader<'_>, node: &Node, guard: &str) -> Vec<Spanned<String>> {
    let items = r.string_list(node, &format!("`errors` of {guard}"));
    let mut codes: Vec<Spanned<String>> = Vec::new();
    for code in items {
        if let Some(first) = codes.iter().find(|c| c.value == code.value) {
            let d = r
                .error(
                    Kind::Conflict,
                    code.span,
                    format!("{guard} lists the error code `{}` twice", code.value),
                )
                .with_label("listed again")
                .with_related(r.file, first.span, "first listed here");
            r.report(d);
            continue;
        }
        codes.push(code);
    }
    codes
}

fn read_timeout(r: &mut Reader<'_>, node: &Node) -> Option<Duration> {
    let text = match &node.value {
        Value::Int(i) => i.to_string(),
        Value::Str(s) => s.clone(),
        _ => {
            r.wrong_kind(node, "`timeout`", "a duration like `30s`");
            return None;
        }
    };
    match parse_duration(&text) {
        Some(d) if !d.is_zero() => Some(d),
        _ => {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    node.span,
                    format!("invalid timeout `{text}`"),
                )
                .with_label("not a duration")
                .with_help(
                    "write a positive whole number with `ms`, `s`, `m`, `h` or `d`, like `30s`",
                ),
            );
            None
        }
    }
}

/// Reads a `types:` file into named types.
pub fn read_types(r: &mut Reader<'_>, root: &Node) -> Vec<NamedType> {
    let Some(entries) = r.map(root, "a types file") else {
        return Vec::new();
    };
    r.check_keys(entries, &["types"], "a types file");
    let Some(types) = root.get("types") else {
        return Vec::new();
    };
    let Some(entries) = r.map(types, "`types`") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (key, def) in entries {
        let Some(name) = r.string(key, "a type name") else {
            continue;
        };
        let upper = name.chars().next().is_some_and(|c| c.is_ascii_uppercase());
        if !upper || !name.chars().all(|c| c.is_ascii_alphanumeric()) {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    key.span,
                    format!("type name `{name}` must be UpperCamelCase"),
                )
                .with_label("not UpperCamelCase")
                .with_help(format!("rename it `{}`", heck::AsUpperCamelCase(&name))),
            );
            continue;
        }
        if let Some(field) = read_field(r, name, key.span, def, Place::Element { output: false }) {
            out.push(NamedType {
                file: r.file.to_owned(),
                field,
            });
        }
    }
    out
}
