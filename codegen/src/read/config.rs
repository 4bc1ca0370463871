//! The project config, `specs/toolspec.yaml`.

use toolspec_vocab::Dialect;
use toolspec_vocab::membership::MembershipDefault;
use toolspec_vocab::{adapters, hints};

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::adapters::read_adapters;
use crate::read::auth::read_auth;
use crate::read::column::read_column_type;
use crate::read::durable::read_project_audit;
use crate::read::hints::check_hint_list;
use crate::read::rate::read_rate_limit;
use crate::read::reader::{Reader, is_snake_identifier, section};
use crate::read::result_cap::read_result_cap;
use crate::read::task::read_project_tasks;
use crate::read::yaml::{Node, Value};
use crate::source::Spanned;
use crate::spec::{AdapterConfig, AmbientDecl, AuditConfig, AuthSpec, Fallbacks, ProjectConfig};

section! {
    /// The keys of the project config, in the order they are read.
    enum ConfigKey {
        Naming = "naming",
        Hints = "hints",
        DefaultHints = "default_hints",
        Membership = "membership",
        Audit = "audit",
        Tasks = "tasks",
        RateLimit = "rate_limit",
        ResultCap = "result_cap",
        Explain = "explain",
        Invoker = "invoker",
        Ambient = "ambient",
        Auth = "auth",
        Fallbacks = "fallbacks",
        ContractLock = "contract_lock",
        Deployment = "deployment",
        Adapters = "adapters",
    }
}

/// The configuration of a project without `toolspec.yaml`.
pub fn default_config() -> ProjectConfig {
    let mut hints: Vec<String> = hints::CORE.iter().map(|h| (*h).to_owned()).collect();
    for adapter in adapters::BUILTIN {
        for hint in adapter.hints.iter() {
            if !hints.iter().any(|h| h == hint.as_ref()) {
                hints.push(hint.to_string());
            }
        }
    }
    ProjectConfig {
        strip_prefixes: Vec::new(),
        hints,
        default_hints: Vec::new(),
        membership: MembershipDefault::All,
        adapters: adapters::BUILTIN
            .iter()
            .map(|decl| AdapterConfig {
                decl: decl.clone(),
                tool_roots: Vec::new(),
                custom: false,
            })
            .collect(),
        audit: AuditConfig::OFF,
        tasks: toolspec_vocab::tasks::TasksConfig::DEFAULT,
        rate_limit: Some(toolspec_vocab::rate::RateLimit::DEFAULT),
        result_cap: Some(toolspec_vocab::result_cap::ResultCap::DEFAULT),
        audit_durability: None,
        audit_required_at: None,
        explain_enabled: true,
        explain_name: "explain".into(),
        task_status_name: toolspec_vocab::tasks::status_tool::DEFAULT_NAME.into(),
        ambient: Vec::new(),
        drop_undeclared_keys: false,
        auth: AuthSpec::default(),
        fallbacks: Fallbacks::default(),
        contract_lock: None,
        read_only: false,
    }
}

/// Reads `toolspec.yaml`. `directories` are the folders below the specs directory, for
/// checking `tool_roots`.
pub fn read_config(r: &mut Reader<'_>, root: &Node, directories: &[String]) -> ProjectConfig {
    let mut config = default_config();
    if matches!(root.value, Value::Null) {
        return config;
    }
    let Some(entries) = r.map(root, "the project config") else {
        return config;
    };
    for (key, _, node) in r.section::<ConfigKey>(entries, "the project config") {
        match key {
            ConfigKey::Naming => read_naming(r, node, &mut config),
            ConfigKey::Hints => read_hints(r, node, &mut config),
            ConfigKey::DefaultHints => {
                config.default_hints = r.string_list(node, "`default_hints`");
            }
            ConfigKey::Membership => {
                let choices = [
                    ("all", MembershipDefault::All),
                    ("none", MembershipDefault::None),
                ];
                let help = "`all` makes every spec a tool on every adapter; `none` grants \
                            membership only through `tool:` and `tool_roots`";
                if let Some(n) = only_key(r, node, "membership", "default")
                    && let Some(default) = r.choice(
                        n,
                        "`membership.default`",
                        "membership default",
                        &choices,
                        help,
                    )
                {
                    config.membership = default;
                }
            }
            ConfigKey::Audit => read_project_audit(r, node, &mut config),
            ConfigKey::Tasks => read_project_tasks(r, node, &mut config),
            ConfigKey::RateLimit => {
                if let Some(limit) = read_rate_limit(r, node, "rate_limit") {
                    config.rate_limit = limit;
                }
            }
            ConfigKey::ResultCap => {
                if let Some(cap) = read_result_cap(r, node, "result_cap") {
                    config.result_cap = cap.over(config.result_cap);
                }
            }
            ConfigKey::Explain => read_explain(r, node, &mut config),
            ConfigKey::Invoker => {
                let choices = [("reject", false), ("drop", true)];
                let help = "undeclared argument keys are refused (`reject`) or ignored (`drop`)";
                if let Some(n) = only_key(r, node, "invoker", "undeclared_keys")
                    && let Some(drop) = r.choice(
                        n,
                        "`invoker.undeclared_keys`",
                        "`undeclared_keys` policy",
                        &choices,
                        help,
                    )
                {
                    config.drop_undeclared_keys = drop;
                }
            }
            ConfigKey::Ambient => config.ambient = read_ambient(r, node),
            ConfigKey::Auth => read_auth(r, node, &mut config),
            ConfigKey::Fallbacks => {
                if let Some(n) = only_key(r, node, "fallbacks", "accept") {
                    config.fallbacks = read_accepted_fallbacks(r, n);
                }
            }
            ConfigKey::ContractLock => {
                let choices = [("off", false), ("required", true)];
                let help = "`required`: the build fails on a change of a tool's contract that \
                            `toolspec.lock` does not hold (`toolspec lock` writes it)";
                let what = "`contract_lock`";
                let value = "`contract_lock` value";
                if let Some(required) = r.choice(node, what, value, &choices, help) {
                    config.contract_lock = required.then_some(node.span);
                }
            }
            ConfigKey::Deployment => {
                if let Some(n) = only_key(r, node, "deployment", "read_only")
                    && let Some(read_only) = r.bool(n, "`deployment.read_only`")
                {
                    config.read_only = read_only;
                }
            }
            ConfigKey::Adapters => read_adapters(r, node, directories, &mut config),
        }
    }
    // Checked once every hint is registered (custom adapters register theirs last).
    check_default_hints(r, &mut config);
    if config.explain_enabled
        && config.explain_name == config.task_status_name
        && let Some(n) = (root.get("tasks").and_then(|t| t.get("status_tool")))
            .or_else(|| root.get("explain").and_then(|e| e.get("name")))
    {
        r.report(
            r.error(
                Kind::Conflict,
                n.span,
                format!(
                    "the task status tool and the explain tool are both named `{}`",
                    config.task_status_name
                ),
            )
            .with_label("the same name")
            .with_help("give one of the two built-in tools another name"),
        );
    }
    config
}

/// `default_hints`: registered hints, each once, none contradicting another, and not
/// `read_only` (a tool that only reads says so itself; a deployment that may only read says
/// `deployment: { read_only: true }`). Only the defaults that pass are kept: a tool is never
/// given one that was reported.
fn check_default_hints(r: &mut Reader<'_>, config: &mut ProjectConfig) {
    check_hint_list(r, &config.default_hints, &config.hints);
    if let Some(read_only) = (config.default_hints.iter()).find(|h| h.value == hints::READ_ONLY) {
        r.report(
            r.error(
                Kind::InvalidValue,
                read_only.span,
                "`read_only` cannot be a default hint",
            )
            .with_label("would make every action read-only")
            .with_help(
                "hint each tool that only reads `read_only` in its spec; `deployment: { \
                 read_only: true }` serves only the tools that read",
            ),
        );
    }
    let mut kept: Vec<Spanned<String>> = Vec::new();
    for hint in std::mem::take(&mut config.default_hints) {
        let known = config.hints.contains(&hint.value) && hint.value != hints::READ_ONLY;
        let clashes = kept.iter().any(|k| {
            k.value == hint.value
                || (hints::CONTRADICTIONS.iter()).any(|c| {
                    c.hints.contains(&k.value.as_str()) && c.hints.contains(&hint.value.as_str())
                })
        });
        if known && !clashes {
            kept.push(hint);
        }
    }
    config.default_hints = kept;
}

/// The value of `key` in the map `node` (`section`), whose only key it is.
fn only_key<'n>(r: &mut Reader<'_>, node: &'n Node, section: &str, key: &str) -> Option<&'n Node> {
    let what = format!("`{section}`");
    let entries = r.map(node, &what)?;
    r.check_keys(entries, &[key], &what);
    node.get(key)
}

/// `fallbacks.accept`: `all`, or a list of dialects.
fn read_accepted_fallbacks(r: &mut Reader<'_>, node: &Node) -> Fallbacks {
    if node.as_str() == Some("all") {
        return Fallbacks::AcceptAll;
    }
    let mut dialects = Vec::new();
    for name in r.string_list(node, "`fallbacks.accept`") {
        match Dialect::parse(&name.value) {
            Some(dialect) => dialects.push(dialect),
            None => {
                let names = Dialect::ALL.map(Dialect::name);
                let help = did_you_mean(&name.value, names.iter().copied()).map_or_else(
                    || format!("`all`, or dialects: {}", names.join(", ")),
                    |m| format!("did you mean `{m}`?"),
                );
                r.report(
                    r.error(
                        Kind::UnknownName,
                        name.span,
                        format!("unknown dialect `{}`", name.value),
                    )
                    .with_label("not a dialect")
                    .with_help(help),
                );
            }
        }
    }
    Fallbacks::Accept(dialects)
}

fn read_naming(r: &mut Reader<'_>, node: &Node, config: &mut ProjectConfig) {
    if let Some(n) = only_key(r, node, "naming", "strip_prefixes") {
        config.strip_prefixes = r
            .string_list(n, "`strip_prefixes`")
            .into_iter()
            .map(|s| s.value)
            .collect();
    }
}

fn read_hints(r: &mut Reader<'_>, node: &Node, config: &mut ProjectConfig) {
    for hint in r.string_list(node, "`hints`") {
        if !is_snake_identifier(&hint.value) {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    hint.span,
                    format!("hint `{}` is not snake_case", hint.value),
                )
                .with_label("not snake_case"),
            );
        } else if !config.hints.contains(&hint.value) {
            config.hints.push(hint.value);
        }
    }
}

/// `ambient:` — the trusted context's fields that scopes bind: a name and a column type, or
/// `{ type, description }`.
fn read_ambient(r: &mut Reader<'_>, node: &Node) -> Vec<AmbientDecl> {
    let Some(entries) = r.map(node, "`ambient`") else {
        return Vec::new();
    };
    let mut fields = Vec::new();
    for (key, def) in entries {
        let Some(name) = r.spanned_string(key, "an ambient field") else {
            continue;
        };
        if !is_snake_identifier(&name.value) {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    key.span,
                    format!("ambient field `{}` is not snake_case", name.value),
                )
                .with_label("not snake_case")
                .with_help("use lowercase letters, digits and underscores, starting with a letter"),
            );
            continue;
        }
        let what = format!("ambient field `{}`", name.value);
        let (ty, description) = match &def.value {
            Value::Str(_) => (read_column_type(r, def, &what), None),
            _ => {
                let Some(entries) = r.map(def, &what) else {
                    continue;
                };
                r.check_keys(entries, &["type", "description"], &what);
                let Some(ty) = def.get("type") else {
                    r.report(
                        r.error(Kind::MissingKey, key.span, format!("{what} has no `type`"))
                            .with_label("missing `type`")
                            .with_help("add `type:`, like `type: integer`"),
                    );
                    continue;
                };
                let description = def
                    .get("description")
                    .and_then(|n| r.non_empty_string(n, "`description`"));
                (read_column_type(r, ty, &what), description)
            }
        };
        if let Some(ty) = ty {
            fields.push(AmbientDecl {
                name,
                ty,
                description,
            });
        }
    }
    fields
}

fn read_explain(r: &mut Reader<'_>, node: &Node, config: &mut ProjectConfig) {
    let Some(entries) = r.map(node, "`explain`") else {
        return;
    };
    r.check_keys(entries, &["enabled", "name"], "`explain`");
    if let Some(n) = node.get("enabled") {
        config.explain_enabled = r.bool(n, "`explain.enabled`").unwrap_or(true);
    }
    let Some(n) = node.get("name") else { return };
    if let Some(name) = r.builtin_name(n, "`explain.name`", "explain") {
        config.explain_name = name;
    }
}
