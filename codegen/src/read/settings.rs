//! Adapter settings: declaring them (a custom adapter's `settings:`) and setting them (in
//! `toolspec.yaml` for the project, under `tool:` for one tool), each value checked against
//! its declaration.

use std::borrow::Cow;

use toolspec_vocab::settings::{AdapterDecl, SettingDecl, SettingKind, SettingValue};

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::reader::{Reader, article, is_snake_identifier, section, suggest, unquote_hint};
use crate::read::yaml::{Node, Value};
use crate::source::Spanned;

section! {
    /// The keys of a setting declaration.
    enum SettingKey {
        Type = "type",
        Overridable = "overridable",
        OneOf = "one_of",
        Default = "default",
    }
}

/// Checks a setting value against its declaration: the type first (with a grammatical
/// message), then the allowed values.
pub(crate) fn check_setting(decl: &SettingDecl, value: &SettingValue) -> Result<(), String> {
    if value.kind() != decl.kind {
        return Err(format!(
            "setting `{}` takes {}, found {}",
            decl.name,
            article(decl.kind.as_str()),
            article(value.kind().as_str())
        ));
    }
    decl.check(value).map_err(|e| e.to_string())
}

/// A help for a setting value that is not one of the allowed values: the closest allowed one.
fn setting_value_hint(decl: &SettingDecl, value: &SettingValue) -> Option<String> {
    let SettingValue::Str(text) = value else {
        return None;
    };
    let allowed: Vec<String> = decl.allowed.iter().map(ToString::to_string).collect();
    did_you_mean(text, allowed.iter().map(String::as_str)).map(|m| format!("did you mean `{m}`?"))
}

/// The value `node` gives the setting `decl`, or `None` with an error (the wrong kind, a value
/// not allowed).
pub fn read_setting(
    r: &mut Reader<'_>,
    node: &Node,
    decl: &SettingDecl,
) -> Option<Spanned<SettingValue>> {
    let value = r.setting_value(node, &format!("setting `{}`", decl.name))?;
    if let Err(reason) = check_setting(decl, &value.value) {
        let help = unquote_hint(node, decl.kind).or_else(|| setting_value_hint(decl, &value.value));
        r.report(
            r.error(Kind::InvalidValue, node.span, reason)
                .with_label("invalid value")
                .with_help_opt(help),
        );
        return None;
    }
    Some(value)
}

/// Reports `key` as naming no setting of `adapter`; `also` are the other keys allowed beside
/// the settings there (`name` and the query narrowings under `tool:`, `tool_roots` in the
/// project config).
pub fn unknown_setting(
    r: &mut Reader<'_>,
    key: &Node,
    name: &str,
    adapter: &AdapterDecl,
    also: &[&str],
) {
    let mut known: Vec<&str> = adapter.settings.iter().map(|s| s.name.as_ref()).collect();
    known.extend(also);
    let help = suggest(name, known.iter().copied())
        .map(|m| format!("did you mean `{m}`?"))
        .unwrap_or_else(|| format!("`{}` settings: {}", adapter.name, known.join(", ")));
    r.report(
        r.error(
            Kind::UnknownName,
            key.span,
            format!("adapter `{}` has no setting `{name}`", adapter.name),
        )
        .with_label("unknown setting")
        .with_help(help),
    );
}

/// A custom adapter's `settings:`: each setting's type, whether tools may override it, the
/// values it allows and its default.
pub fn read_setting_decls(r: &mut Reader<'_>, node: &Node, adapter: &str) -> Vec<SettingDecl> {
    if matches!(node.value, Value::Null) {
        return Vec::new();
    }
    let Some(entries) = r.map(node, &format!("`adapters.{adapter}.settings`")) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(key, def)| read_setting_decl(r, key, def))
        .collect()
}

fn read_setting_decl(r: &mut Reader<'_>, key: &Node, def: &Node) -> Option<SettingDecl> {
    let name = r.string(key, "a setting name")?;
    if !is_snake_identifier(&name) || name == "name" {
        let label = if name == "name" {
            "reserved for per-adapter tool names"
        } else {
            "not an identifier"
        };
        r.report(
            r.error(
                Kind::InvalidValue,
                key.span,
                format!("`{name}` cannot be a setting name"),
            )
            .with_label(label),
        );
        return None;
    }
    let what = format!("setting `{name}`");
    let entries = r.map(def, &what)?;
    let keys = r.section::<SettingKey>(entries, &what);
    let Some((_, _, type_node)) = keys.iter().find(|(k, ..)| *k == SettingKey::Type) else {
        r.report(
            r.error(
                Kind::MissingKey,
                key.span,
                format!("setting `{name}` has no `type`"),
            )
            .with_label("missing `type`"),
        );
        return None;
    };
    let mut decl = SettingDecl {
        name: Cow::Owned(name),
        kind: read_setting_kind(r, type_node)?,
        default: None,
        allowed: Cow::Owned(Vec::new()),
        overridable: true,
    };
    for (key, _, n) in keys {
        match key {
            SettingKey::Type => {}
            SettingKey::Overridable => {
                decl.overridable = r.bool(n, "`overridable`").unwrap_or(true);
            }
            SettingKey::OneOf => decl.allowed = Cow::Owned(read_allowed(r, n, decl.kind)),
            SettingKey::Default => {
                let Some(v) = r.setting_value(n, "`default`") else {
                    continue;
                };
                match check_setting(&decl, &v.value) {
                    Ok(()) => decl.default = Some(v.value),
                    Err(reason) => r.report(
                        r.error(Kind::InvalidValue, n.span, reason)
                            .with_label("invalid default"),
                    ),
                }
            }
        }
    }
    Some(decl)
}

fn read_setting_kind(r: &mut Reader<'_>, node: &Node) -> Option<SettingKind> {
    let name = r.string(node, "`type`")?;
    if let Some(kind) = SettingKind::parse(&name) {
        return Some(kind);
    }
    let help = did_you_mean(&name, SettingKind::NAMES.iter().copied())
        .map(|m| format!("did you mean `{m}`?"))
        .unwrap_or_else(|| format!("setting types: {}", SettingKind::NAMES.join(", ")));
    r.report(
        r.error(
            Kind::UnknownName,
            node.span,
            format!("unknown setting type `{name}`"),
        )
        .with_label("not a setting type")
        .with_help(help),
    );
    None
}

/// `one_of:` of a setting declaration: values of the setting's kind.
fn read_allowed(r: &mut Reader<'_>, node: &Node, kind: SettingKind) -> Vec<SettingValue> {
    let Some(items) = r.seq(node, "`one_of`") else {
        return Vec::new();
    };
    let mut allowed = Vec::new();
    for item in items {
        let Some(v) = r.setting_value(item, "each `one_of` value") else {
            continue;
        };
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
    allowed
}
