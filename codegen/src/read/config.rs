//! The project config, `specs/toolspec.yaml`.

use std::borrow::Cow;

use toolspec_vocab::membership::{MembershipDefault, RootError, check_tool_root};
use toolspec_vocab::naming::NameRule;
use toolspec_vocab::settings::{AdapterDecl, SettingDecl, SettingKind, SettingValue};
use toolspec_vocab::{adapters, hints};

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::reader::{
    Reader, article, check_setting, is_snake_identifier, setting_value_hint, suggest, unquote_hint,
};
use crate::read::yaml::{Node, Value};
use crate::spec::{AdapterConfig, ProjectConfig};

const CONFIG_KEYS: &[&str] = &[
    "naming",
    "hints",
    "membership",
    "adapters",
    "audit",
    "explain",
    "invoker",
];

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
        membership: MembershipDefault::All,
        adapters: adapters::BUILTIN
            .iter()
            .map(|decl| AdapterConfig {
                decl: decl.clone(),
                tool_roots: Vec::new(),
                custom: false,
            })
            .collect(),
        audit: false,
        explain_enabled: true,
        explain_name: "explain".into(),
        drop_undeclared_keys: false,
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
    r.check_keys(entries, CONFIG_KEYS, "the project config");
    if let Some(naming) = root.get("naming")
        && let Some(entries) = r.map(naming, "`naming`")
    {
        r.check_keys(entries, &["strip_prefixes"], "`naming`");
        if let Some(n) = naming.get("strip_prefixes") {
            config.strip_prefixes = r
                .string_list(n, "`strip_prefixes`")
                .into_iter()
                .map(|s| s.value)
                .collect();
        }
    }
    if let Some(hints) = root.get("hints") {
        for hint in r.string_list(hints, "`hints`") {
            if !is_snake_identifier(&hint.value) {
                r.report(
                    r.error(
                        Kind::InvalidValue,
                        hint.span,
                        format!("hint `{}` is not an identifier", hint.value),
                    )
                    .with_label("not an identifier"),
                );
            } else if !config.hints.contains(&hint.value) {
                config.hints.push(hint.value);
            }
        }
    }
    if let Some(membership) = root.get("membership")
        && let Some(entries) = r.map(membership, "`membership`")
    {
        r.check_keys(entries, &["default"], "`membership`");
        if let Some(n) = membership.get("default") {
            match r.string(n, "`membership.default`").as_deref() {
                Some("all") => config.membership = MembershipDefault::All,
                Some("none") => config.membership = MembershipDefault::None,
                Some(other) => {
                    let help = did_you_mean(other, ["all", "none"])
                        .map(|m| format!("did you mean `{m}`?"))
                        .unwrap_or_else(|| {
                            "`all` makes every spec a tool on every adapter; `none` grants \
                                 membership only through `tool:` and `tool_roots`"
                                .into()
                        });
                    r.report(
                        r.error(
                            Kind::UnknownName,
                            n.span,
                            format!("unknown membership default `{other}`"),
                        )
                        .with_label("expected `all` or `none`")
                        .with_help(help),
                    );
                }
                None => {}
            }
        }
    }
    if let Some(audit) = root.get("audit")
        && let Some(entries) = r.map(audit, "`audit`")
    {
        r.check_keys(entries, &["enabled"], "`audit`");
        if let Some(n) = audit.get("enabled") {
            config.audit = r.bool(n, "`audit.enabled`").unwrap_or(false);
        }
    }
    if let Some(explain) = root.get("explain")
        && let Some(entries) = r.map(explain, "`explain`")
    {
        r.check_keys(entries, &["enabled", "name"], "`explain`");
        if let Some(n) = explain.get("enabled") {
            config.explain_enabled = r.bool(n, "`explain.enabled`").unwrap_or(true);
        }
        if let Some(n) = explain.get("name")
            && let Some(name) = r.string(n, "`explain.name`")
        {
            if toolspec_vocab::naming::is_canonical(&name) {
                config.explain_name = name;
            } else {
                r.report(
                    r.error(
                        Kind::InvalidValue,
                        n.span,
                        format!("explain tool name `{name}` is not a valid tool name"),
                    )
                    .with_label("not a tool name")
                    .with_help("use 1–64 lowercase letters, digits and underscores"),
                );
            }
        }
    }
    if let Some(invoker) = root.get("invoker")
        && let Some(entries) = r.map(invoker, "`invoker`")
    {
        r.check_keys(entries, &["undeclared_keys"], "`invoker`");
        if let Some(n) = invoker.get("undeclared_keys") {
            match r.string(n, "`invoker.undeclared_keys`").as_deref() {
                Some("reject") => config.drop_undeclared_keys = false,
                Some("drop") => config.drop_undeclared_keys = true,
                Some(other) => {
                    r.report(
                        r.error(
                            Kind::UnknownName,
                            n.span,
                            format!("unknown `undeclared_keys` policy `{other}`"),
                        )
                        .with_label("expected `reject` or `drop`")
                        .with_help(
                            "undeclared argument keys are refused (`reject`) or ignored (`drop`)",
                        ),
                    );
                }
                None => {}
            }
        }
    }
    if let Some(adapters) = root.get("adapters") {
        if let Some(entries) = r.map(adapters, "`adapters`") {
            for (key, value) in entries {
                read_adapter(r, key, value, directories, &mut config);
            }
        }
        config
            .adapters
            .sort_by(|a, b| a.decl.name.cmp(&b.decl.name));
    }
    config
}

fn read_adapter(
    r: &mut Reader<'_>,
    key: &Node,
    value: &Node,
    directories: &[String],
    config: &mut ProjectConfig,
) {
    let Some(name) = r.string(key, "an adapter name") else {
        return;
    };
    let builtin = config
        .adapters
        .iter()
        .position(|a| a.decl.name == name.as_str());
    let entries: &[(Node, Node)] = match &value.value {
        Value::Null => &[],
        _ => match r.map(value, &format!("`adapters.{name}`")) {
            Some(entries) => entries,
            None => return,
        },
    };
    let index = match builtin {
        Some(index) => {
            if let Some(settings) = value.get("settings") {
                r.report(
                    r.error(
                        Kind::Conflict,
                        settings.span,
                        format!("`{name}` is a built-in adapter; its settings are fixed"),
                    )
                    .with_label("settings of a built-in adapter")
                    .with_help(format!("set a value with `{name}: {{ SETTING: VALUE }}`")),
                );
                return;
            }
            index
        }
        None => {
            let Some(settings) = value.get("settings") else {
                let builtin_names: Vec<&str> =
                    adapters::BUILTIN.iter().map(|a| a.name.as_ref()).collect();
                r.report(
                    r.error(
                        Kind::UnknownName,
                        key.span,
                        format!("unknown adapter `{name}`"),
                    )
                    .with_label("not a built-in adapter")
                    .with_help(
                        match did_you_mean(&name, builtin_names.iter().copied()) {
                            Some(m) => format!("did you mean `{m}`?"),
                            None => "declare a custom adapter with `settings:`".into(),
                        },
                    ),
                );
                return;
            };
            if !is_snake_identifier(&name) {
                r.report(
                    r.error(
                        Kind::InvalidValue,
                        key.span,
                        format!("adapter name `{name}` is not an identifier"),
                    )
                    .with_label("not an identifier"),
                );
                return;
            }
            let decls = read_setting_decls(r, settings, &name);
            config.adapters.push(AdapterConfig {
                decl: AdapterDecl {
                    name: Cow::Owned(name.clone()),
                    settings: Cow::Owned(decls),
                    name_rule: NameRule::FunctionCalling,
                    hints: Cow::Owned(Vec::new()),
                },
                tool_roots: Vec::new(),
                custom: true,
            });
            config.adapters.len() - 1
        }
    };
    for (k, v) in entries {
        let Some(setting) = k.as_str() else { continue };
        match setting {
            "settings" => {}
            "tool_roots" => {
                for root in r.string_list(v, "`tool_roots`") {
                    match check_tool_root(&root.value) {
                        Ok(normalized) => {
                            if directories.iter().any(|d| d == &normalized) {
                                config.adapters[index].tool_roots.push(normalized);
                            } else {
                                let help = did_you_mean(
                                    &normalized,
                                    directories.iter().map(String::as_str),
                                )
                                .map(|m| format!("did you mean `{m}`?"))
                                .unwrap_or_else(|| {
                                    "tool roots are folders inside the specs directory".into()
                                });
                                r.report(r.error(Kind::ToolRoot, root.span, format!("tool root `{normalized}` is not a folder in the specs directory")).with_label("no such folder").with_help(help));
                            }
                        }
                        Err(e) => {
                            let help = match &e {
                                RootError::SpecsRoot => {
                                    "name a folder that holds only this adapter's tools, like `agent_tools`"
                                }
                                RootError::Escapes => {
                                    "tool roots are relative to the specs directory, like `agent_tools`"
                                }
                                RootError::CatchAll(_) => {
                                    "name a folder that holds only this adapter's tools, or list the tools with `tool:` in their specs"
                                }
                            };
                            r.report(
                                r.error(Kind::ToolRoot, root.span, e.to_string())
                                    .with_label("refused tool root")
                                    .with_help(help),
                            );
                        }
                    }
                }
            }
            other => {
                let decl = &config.adapters[index].decl;
                let Some(position) = decl.settings.iter().position(|s| s.name == other) else {
                    let mut known: Vec<&str> =
                        decl.settings.iter().map(|s| s.name.as_ref()).collect();
                    known.push("tool_roots");
                    let help = suggest(other, known.iter().copied())
                        .map(|m| format!("did you mean `{m}`?"))
                        .unwrap_or_else(|| format!("`{name}` settings: {}", known.join(", ")));
                    r.report(
                        r.error(
                            Kind::UnknownName,
                            k.span,
                            format!("adapter `{name}` has no setting `{other}`"),
                        )
                        .with_label("unknown setting")
                        .with_help(help),
                    );
                    continue;
                };
                let Some(value) = r.setting_value(v, &format!("setting `{other}`")) else {
                    continue;
                };
                let setting_decl = &decl.settings[position];
                if let Err(reason) = check_setting(setting_decl, &value.value) {
                    let help = unquote_hint(v, setting_decl.kind)
                        .or_else(|| setting_value_hint(setting_decl, &value.value));
                    r.report(
                        r.error(Kind::InvalidValue, v.span, reason)
                            .with_label("invalid value")
                            .with_help_opt(help),
                    );
                    continue;
                }
                config.adapters[index].decl.settings.to_mut()[position].default = Some(value.value);
            }
        }
    }
}

fn read_setting_decls(r: &mut Reader<'_>, node: &Node, adapter: &str) -> Vec<SettingDecl> {
    let mut out = Vec::new();
    if matches!(node.value, Value::Null) {
        return out;
    }
    let Some(entries) = r.map(node, &format!("`adapters.{adapter}.settings`")) else {
        return out;
    };
    for (key, def) in entries {
        let Some(name) = r.string(key, "a setting name") else {
            continue;
        };
        if !is_snake_identifier(&name) || name == "name" {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    key.span,
                    format!("`{name}` cannot be a setting name"),
                )
                .with_label(if name == "name" {
                    "reserved for per-adapter tool names"
                } else {
                    "not an identifier"
                }),
            );
            continue;
        }
        let Some(entries) = r.map(def, &format!("setting `{name}`")) else {
            continue;
        };
        r.check_keys(
            entries,
            &["type", "default", "one_of", "overridable"],
            &format!("setting `{name}`"),
        );
        let kind = match def.get("type") {
            Some(n) => match r.string(n, "`type`") {
                Some(t) => match SettingKind::parse(&t) {
                    Some(kind) => kind,
                    None => {
                        let help = did_you_mean(&t, SettingKind::NAMES.iter().copied())
                            .map(|m| format!("did you mean `{m}`?"))
                            .unwrap_or_else(|| {
                                format!("setting types: {}", SettingKind::NAMES.join(", "))
                            });
                        r.report(
                            r.error(
                                Kind::UnknownName,
                                n.span,
                                format!("unknown setting type `{t}`"),
                            )
                            .with_label("not a setting type")
                            .with_help(help),
                        );
                        continue;
                    }
                },
                None => continue,
            },
            None => {
                r.report(
                    r.error(
                        Kind::MissingKey,
                        key.span,
                        format!("setting `{name}` has no `type`"),
                    )
                    .with_label("missing `type`"),
                );
                continue;
            }
        };
        let mut decl = SettingDecl {
            name: Cow::Owned(name.clone()),
            kind,
            default: None,
            allowed: Cow::Owned(Vec::new()),
            overridable: true,
        };
        if let Some(n) = def.get("overridable") {
            decl.overridable = r.bool(n, "`overridable`").unwrap_or(true);
        }
        if let Some(n) = def.get("one_of")
            && let Some(items) = r.seq(n, "`one_of`")
        {
            let mut allowed: Vec<SettingValue> = Vec::new();
            for item in items {
                if let Some(v) = r.setting_value(item, "each `one_of` value") {
                    if v.value.kind() != kind {
                        r.report(
                            r.error(
                                Kind::InvalidValue,
                                item.span,
                                format!(
                                    "`one_of` value `{}` is not {}",
                                    v.value,
                                    article(kind.as_str())
                                ),
                            )
                            .with_label("wrong type"),
                        );
                        continue;
                    }
                    allowed.push(v.value);
                }
            }
            decl.allowed = Cow::Owned(allowed);
        }
        if let Some(n) = def.get("default")
            && let Some(v) = r.setting_value(n, "`default`")
        {
            match check_setting(&decl, &v.value) {
                Ok(()) => decl.default = Some(v.value),
                Err(reason) => r.report(
                    r.error(Kind::InvalidValue, n.span, reason)
                        .with_label("invalid default"),
                ),
            }
        }
        out.push(decl);
    }
    out
}
