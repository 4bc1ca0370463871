//! `tool:` in a tool spec: which adapters serve the tool (all, some, all but some, none),
//! and per-adapter options (another name, setting values).

use toolspec_vocab::adapters;
use toolspec_vocab::http::check_declared_status;

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::query::read_narrowing;
use crate::read::reader::Reader;
use crate::read::settings::{read_setting, unknown_setting};
use crate::read::yaml::{Node, Value};
use crate::source::Spanned;
use crate::spec::query::Narrowing;
use crate::spec::{AdapterOptions, DescriptionOverride, GrantDecl, ProjectConfig, ToolDecl};

pub fn read_tool_decl(r: &mut Reader<'_>, node: &Node, config: &ProjectConfig) -> ToolDecl {
    let mut decl = ToolDecl {
        grant: GrantDecl::Default,
        options: Vec::new(),
        except: Vec::new(),
        span: Some(node.span),
    };
    match &node.value {
        Value::Bool(true) => decl.grant = GrantDecl::All,
        Value::Bool(false) => decl.grant = GrantDecl::OptOut,
        Value::Seq(_) | Value::Str(_) => {
            decl.grant = GrantDecl::Only(adapter_list(r, node, "`tool`", config))
        }
        Value::Map(entries) => {
            for (key, value) in entries {
                let Some(key_name) = r.string(key, "a key of `tool`") else {
                    continue;
                };
                match key_name.as_str() {
                    "except" => decl.except = adapter_list(r, value, "`except`", config),
                    "only" => {
                        decl.grant = GrantDecl::Only(adapter_list(r, value, "`only`", config))
                    }
                    adapter if config.adapter(adapter).is_some() => {
                        if let Some(options) = read_adapter_options(r, key, value, config) {
                            decl.options.push(options);
                        }
                    }
                    other => {
                        let mut names = config.adapter_names();
                        names.extend(["except", "only"]);
                        let help = did_you_mean(other, names.iter().copied())
                            .map(|m| format!("did you mean `{m}`?"))
                            .unwrap_or_else(|| {
                                format!(
                                    "`tool:` takes `except`, `only` or an adapter: {}",
                                    config.adapter_names().join(", ")
                                )
                            });
                        r.report(
                            r.error(
                                Kind::UnknownName,
                                key.span,
                                format!("unknown adapter `{other}`"),
                            )
                            .with_label("not a known adapter")
                            .with_help(help),
                        );
                    }
                }
            }
            // `tool: { except: [...] }` alone declares the spec a tool everywhere but there.
            if decl.grant == GrantDecl::Default
                && decl.options.is_empty()
                && !decl.except.is_empty()
            {
                decl.grant = GrantDecl::All;
            }
            for excluded in &decl.except {
                if let Some(options) = decl
                    .options
                    .iter()
                    .find(|o| o.adapter.value == excluded.value)
                {
                    r.report(
                        r.error(
                            Kind::Conflict,
                            options.adapter.span,
                            format!(
                                "tool sets options for `{}` but also excludes it",
                                excluded.value
                            ),
                        )
                        .with_label("options for an excluded adapter")
                        .with_help(format!(
                            "remove `{}` from `except` or drop these options",
                            excluded.value
                        )),
                    );
                }
            }
        }
        _ => r.wrong_kind(
            node,
            "`tool`",
            "`true`, `false`, a list of adapters or a map",
        ),
    }
    decl
}

fn read_adapter_options(
    r: &mut Reader<'_>,
    key: &Node,
    node: &Node,
    config: &ProjectConfig,
) -> Option<AdapterOptions> {
    let adapter = r.spanned_string(key, "an adapter")?;
    let mut options = AdapterOptions {
        adapter,
        name: None,
        settings: Vec::new(),
        narrowing: Narrowing::default(),
        statuses: Vec::new(),
        title: None,
        description: None,
        hints: None,
    };
    if matches!(node.value, Value::Null | Value::Bool(true)) {
        return Some(options);
    }
    let entries = r.map(node, &format!("`tool.{}`", options.adapter.value))?;
    let decl = &config.adapter(&options.adapter.value)?.decl;
    for (k, v) in entries {
        let Some(setting) = r.spanned_string(k, "a setting name") else {
            continue;
        };
        if setting.value == "name" {
            options.name = r.spanned_string(v, "`name`");
            if let Some(name) = &options.name
                && let Err(reason) = decl.name_rule.check(&name.value)
            {
                r.report(
                    r.error(
                        Kind::InvalidValue,
                        name.span,
                        format!(
                            "`{}` is not a valid tool name on adapter `{}`",
                            name.value, decl.name
                        ),
                    )
                    .with_label("rejected by the transport")
                    .with_help(reason.to_string()),
                );
            }
            continue;
        }
        if read_narrowing(r, &setting.value, v, &mut options.narrowing) {
            continue;
        }
        match setting.value.as_str() {
            "title" => {
                options.title = r.spanned_string(v, "`title`");
                continue;
            }
            "description" => {
                options.description = read_description(r, v, &options.adapter.value);
                continue;
            }
            "hints" => {
                options.hints = Some(r.string_list(v, "`hints`"));
                continue;
            }
            _ => {}
        }
        if setting.value == "status" && decl.name == adapters::HTTP {
            options.statuses = read_statuses(r, v);
            continue;
        }
        let Some(setting_decl) = decl.setting(&setting.value) else {
            let mut also = vec!["name", "title", "description", "hints"];
            also.extend(Narrowing::KEYS);
            if decl.name == adapters::HTTP {
                also.push("status");
            }
            unknown_setting(r, k, &setting.value, decl, &also);
            continue;
        };
        if !setting_decl.overridable {
            r.report(
                r.error(
                    Kind::Conflict,
                    k.span,
                    format!(
                        "setting `{}` of adapter `{}` cannot be set per tool",
                        setting.value, decl.name
                    ),
                )
                .with_label("not overridable")
                .with_help("set it for the whole project in `toolspec.yaml`"),
            );
            continue;
        }
        let Some(value) = read_setting(r, v, setting_decl) else {
            continue;
        };
        options.settings.push((setting, value));
    }
    Some(options)
}

/// `status: { code: 409, … }`: the HTTP status of each named error code (checked against the
/// tool's codes once the whole spec is read).
fn read_statuses(r: &mut Reader<'_>, node: &Node) -> Vec<(Spanned<String>, Spanned<u64>)> {
    let mut out = Vec::new();
    let Some(entries) = r.map(node, "`tool.http.status`") else {
        return out;
    };
    for (key, value) in entries {
        let Some(code) = r.spanned_string(key, "an error code") else {
            continue;
        };
        let Some(status) = r.u64(value, &format!("the status of `{}`", code.value)) else {
            continue;
        };
        let checked = match u16::try_from(status) {
            Ok(status) => check_declared_status(status),
            Err(_) => check_declared_status(0),
        };
        match checked {
            Ok(()) => out.push((code, Spanned::new(status, value.span))),
            Err(reason) => r.report(
                r.error(
                    Kind::InvalidValue,
                    value.span,
                    format!(
                        "`{status}` is not a status `{}` can be answered with",
                        code.value
                    ),
                )
                .with_label("not allowed here")
                .with_help(reason.to_string()),
            ),
        }
    }
    out
}

fn adapter_list(
    r: &mut Reader<'_>,
    node: &Node,
    what: &str,
    config: &ProjectConfig,
) -> Vec<Spanned<String>> {
    let mut out = Vec::new();
    let items: Vec<Node> = match &node.value {
        Value::Seq(items) => items.clone(),
        Value::Str(_) => vec![node.clone()],
        _ => {
            r.wrong_kind(node, what, "a list of adapters");
            return out;
        }
    };
    for item in &items {
        let Some(name) = r.spanned_string(item, &format!("each adapter in {what}")) else {
            continue;
        };
        if config.adapter(&name.value).is_none() {
            unknown_adapter(r, item, &name.value, config);
            continue;
        }
        out.push(name);
    }
    out
}

fn unknown_adapter(r: &mut Reader<'_>, node: &Node, name: &str, config: &ProjectConfig) {
    let names = config.adapter_names();
    let help = did_you_mean(name, names.iter().copied())
        .map(|m| format!("did you mean `{m}`?"))
        .unwrap_or_else(|| format!("adapters are: {}", names.join(", ")));
    r.report(
        r.error(
            Kind::UnknownName,
            node.span,
            format!("unknown adapter `{name}`"),
        )
        .with_label("not a known adapter")
        .with_help(help),
    );
}

/// A per-adapter `description`: a text that replaces the spec's, or `{ append: text }`.
fn read_description(r: &mut Reader<'_>, node: &Node, adapter: &str) -> Option<DescriptionOverride> {
    if let Value::Str(text) = &node.value {
        return non_empty(r, node, text, adapter).map(DescriptionOverride::Replace);
    }
    let what = format!("`tool.{adapter}.description`");
    let entries = r.map(node, &what)?;
    r.check_keys(entries, &["append"], &what);
    let Some(append) = node.get("append") else {
        r.report(
            r.error(
                Kind::MissingKey,
                node.span,
                format!("{what} has no `append`"),
            )
            .with_label("missing `append`")
            .with_help(
                "write the text that replaces the description, or `{ append: text }` to add to it",
            ),
        );
        return None;
    };
    let text = r.string(append, "`append`")?;
    non_empty(r, append, &text, adapter).map(DescriptionOverride::Append)
}

fn non_empty(r: &mut Reader<'_>, node: &Node, text: &str, adapter: &str) -> Option<String> {
    if !text.trim().is_empty() {
        return Some(text.to_owned());
    }
    r.report(
        r.error(
            Kind::InvalidValue,
            node.span,
            format!("the description on adapter `{adapter}` is empty"),
        )
        .with_label("empty")
        .with_help("a model reads it to choose the tool: say what it does, or leave it out"),
    );
    None
}
