//! `adapters:` in the project config: values for a built-in adapter's settings, custom
//! adapters with their declared settings, and each adapter's `tool_roots`.

use std::borrow::Cow;

use toolspec_vocab::adapters;
use toolspec_vocab::membership::check_tool_root;
use toolspec_vocab::naming::NameRule;
use toolspec_vocab::settings::AdapterDecl;

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::reader::{Reader, is_snake_identifier};
use crate::read::settings::{read_setting, read_setting_decls, unknown_setting};
use crate::read::yaml::{Node, Value};
use crate::source::Spanned;
use crate::spec::{AdapterConfig, ProjectConfig};

/// Reads `adapters:` into `config` (which starts with the built-in ones); `directories` are
/// the folders of the specs directory, where tool roots must be.
pub fn read_adapters(
    r: &mut Reader<'_>,
    node: &Node,
    directories: &[String],
    config: &mut ProjectConfig,
) {
    if let Some(entries) = r.map(node, "`adapters`") {
        for (key, value) in entries {
            read_adapter(r, key, value, directories, config);
        }
    }
    config
        .adapters
        .sort_by(|a, b| a.decl.name.cmp(&b.decl.name));
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
    let entries: &[(Node, Node)] = match &value.value {
        Value::Null => &[],
        _ => match r.map(value, &format!("`adapters.{name}`")) {
            Some(entries) => entries,
            None => return,
        },
    };
    let Some(adapter) = find_or_declare(r, key, &name, value, config) else {
        return;
    };
    for (k, v) in entries {
        match k.as_str() {
            None | Some("settings") => {}
            Some("tool_roots") => {
                for root in r.string_list(v, "`tool_roots`") {
                    if let Some(root) = read_tool_root(r, root, directories) {
                        adapter.tool_roots.push(root);
                    }
                }
            }
            Some(setting) => {
                let Some(position) = adapter.decl.settings.iter().position(|s| s.name == setting)
                else {
                    unknown_setting(r, k, setting, &adapter.decl, &["tool_roots"]);
                    continue;
                };
                if let Some(value) = read_setting(r, v, &adapter.decl.settings[position]) {
                    adapter.decl.settings.to_mut()[position].default = Some(value.value);
                }
            }
        }
    }
}

/// The built-in adapter `name` (which takes no `settings:`), or a custom one declared by its
/// `settings:`, added to `config`.
fn find_or_declare<'c>(
    r: &mut Reader<'_>,
    key: &Node,
    name: &str,
    value: &Node,
    config: &'c mut ProjectConfig,
) -> Option<&'c mut AdapterConfig> {
    let settings = value.get("settings");
    if let Some(index) = config.adapters.iter().position(|a| a.decl.name == name) {
        if let Some(settings) = settings {
            r.report(
                r.error(
                    Kind::Conflict,
                    settings.span,
                    format!("`{name}` is a built-in adapter; its settings are fixed"),
                )
                .with_label("settings of a built-in adapter")
                .with_help(format!("set a value with `{name}: {{ SETTING: VALUE }}`")),
            );
            return None;
        }
        return Some(&mut config.adapters[index]);
    }
    let Some(settings) = settings else {
        let builtin = adapters::BUILTIN.iter().map(|a| a.name.as_ref());
        let help = match did_you_mean(name, builtin) {
            Some(m) => format!("did you mean `{m}`?"),
            None => "declare a custom adapter with `settings:`".into(),
        };
        r.report(
            r.error(
                Kind::UnknownName,
                key.span,
                format!("unknown adapter `{name}`"),
            )
            .with_label("not a built-in adapter")
            .with_help(help),
        );
        return None;
    };
    if !is_snake_identifier(name) {
        r.report(
            r.error(
                Kind::InvalidValue,
                key.span,
                format!("adapter name `{name}` is not snake_case"),
            )
            .with_label("not snake_case"),
        );
        return None;
    }
    let decls = read_setting_decls(r, settings, name);
    config.adapters.push(AdapterConfig {
        decl: AdapterDecl {
            name: Cow::Owned(name.to_owned()),
            settings: Cow::Owned(decls),
            name_rule: NameRule::FunctionCalling,
            hints: Cow::Owned(Vec::new()),
        },
        tool_roots: Vec::new(),
        custom: true,
    });
    config.adapters.last_mut()
}

/// One of `tool_roots`, normalized, if it is a folder of the specs directory that cannot hold
/// every tool.
fn read_tool_root(
    r: &mut Reader<'_>,
    root: Spanned<String>,
    directories: &[String],
) -> Option<String> {
    let normalized = match check_tool_root(&root.value) {
        Ok(normalized) => normalized,
        Err(e) => {
            let help = e.help();
            r.report(
                r.error(Kind::ToolRoot, root.span, e.to_string())
                    .with_label("refused tool root")
                    .with_help(help),
            );
            return None;
        }
    };
    if directories.contains(&normalized) {
        return Some(normalized);
    }
    let help = did_you_mean(&normalized, directories.iter().map(String::as_str))
        .map(|m| format!("did you mean `{m}`?"))
        .unwrap_or_else(|| "tool roots are folders inside the specs directory".into());
    r.report(
        r.error(
            Kind::ToolRoot,
            root.span,
            format!("tool root `{normalized}` is not a folder in the specs directory"),
        )
        .with_label("no such folder")
        .with_help(help),
    );
    None
}
