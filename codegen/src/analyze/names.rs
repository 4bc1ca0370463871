//! Checked names: each tool's canonical name, and no two tools with one name on one adapter.

use std::collections::BTreeMap;

use crate::analyze::checked::Checked;
use crate::analyze::membership::Binding;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::kind::Kind;
use crate::read::reader::Reader;
use crate::source::Span;
use crate::spec::{ProjectConfig, ToolSpec};
use toolspec_vocab::tasks::status_tool;

pub fn tool_name(r: &mut Reader<'_>, spec: &ToolSpec, strip: &[&str]) -> Option<String> {
    if let Some(name) = &spec.name {
        if toolspec_vocab::naming::is_canonical(&name.value) {
            return Some(name.value.clone());
        }
        let suggestion = toolspec_vocab::naming::normalize(
            &toolspec_vocab::naming::snake_case(&name.value),
            &[],
        )
        .ok();
        r.report(
            r.error(
                Kind::InvalidValue,
                name.span,
                format!("tool name `{}` is not provider-safe", name.value),
            )
            .with_label("expected 1–64 of `a-z`, `0-9`, `_`")
            .with_help(match suggestion {
                Some(s) => format!("use `{s}`"),
                None => "use 1–64 lowercase letters, digits and underscores".into(),
            }),
        );
        return None;
    }
    match toolspec_vocab::naming::derive_name(&spec.path, strip) {
        Ok(name) => Some(name),
        Err(e) => {
            r.report(
                Diagnostic::error(Kind::InvalidValue, &spec.file, None, e.to_string())
                    .with_note(format!("the name is derived from the path `{}`", spec.path))
                    .with_help("set `name:` in the spec, or rename the file"),
            );
            None
        }
    }
}

/// Where a tool's name on an adapter is written (its per-adapter `name:`, else its `name:`).
fn name_span(tool: &Checked, adapter: &str) -> Option<Span> {
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
type Clash<'a> = (
    &'a Checked,
    &'a str,
    Option<Span>,
    Option<Span>,
    Vec<&'a str>,
);

pub fn check_duplicate_names(
    tools: &[Checked],
    config: &ProjectConfig,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let mut seen: BTreeMap<(&str, &str), &Checked> = BTreeMap::new();
    // The built-in tools the project offers: each one's name, what it is, and where it is set.
    // As the compiler offers it: where a member that declares `task:` has no task surface.
    let offers_status = tools.iter().any(|t| {
        let offered = |b: &Binding| status_tool::offered_on(&b.adapter);
        t.spec.task.is_some() && t.bindings.iter().any(offered)
    });
    let builtins = [
        (
            config.explain_enabled,
            &config.explain_name,
            "explain",
            "explain: { name: … }",
        ),
        (
            offers_status,
            &config.task_status_name,
            "task status",
            "tasks: { status_tool: … }",
        ),
    ];
    for tool in tools {
        for (_, name, what, setting) in builtins.iter().filter(|b| b.0) {
            if tool.name != **name {
                continue;
            }
            diagnostics.push(
                Diagnostic::error(
                    Kind::Reserved,
                    &tool.spec.file,
                    tool.spec.name.as_ref().map(|n| n.span),
                    format!("tool name `{name}` is taken by the built-in {what} tool"),
                )
                .with_label("the built-in tool's name")
                .with_help(format!(
                    "rename the tool, or set `{setting}` in toolspec.yaml"
                )),
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
                Kind::NameClash,
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

/// Adapter names that pass a tool's canonical name without checking it against their own rule:
/// reports every member whose (canonical) name the adapter's transport rejects. Per-adapter
/// `name:` overrides are checked where they are written.
pub fn check_names(tools: &[Checked], config: &ProjectConfig, diagnostics: &mut Vec<Diagnostic>) {
    for tool in tools {
        for binding in &tool.bindings {
            let overridden = tool
                .spec
                .tool
                .options
                .iter()
                .any(|o| o.adapter.value == binding.adapter && o.name.is_some());
            let Some(adapter) = config.adapter(&binding.adapter) else {
                continue;
            };
            if overridden {
                continue;
            }
            if let Err(reason) = adapter.decl.name_rule.check(&binding.name) {
                let span = tool.spec.name.as_ref().map(|n| n.span);
                let mut d = Diagnostic::error(
                    Kind::InvalidValue,
                    tool.spec.file.clone(),
                    span,
                    format!(
                        "tool name `{}` is not valid on adapter `{}`",
                        binding.name, binding.adapter
                    ),
                )
                .with_note(reason.to_string())
                .with_help(format!(
                    "give the tool another name there: `tool: {{ {}: {{ name: … }} }}`",
                    binding.adapter
                ));
                if span.is_some() {
                    d.label = Some(format!("rejected by `{}`", binding.adapter));
                }
                diagnostics.push(d);
            }
        }
    }
}
