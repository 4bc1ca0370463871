//! A tool's success `message`: a template that compiles, and that some adapter shows.

use toolspec_vocab::adapters;
use toolspec_vocab::settings::{PRESENT_AS, PresentAs, Settings};

use crate::analyze::membership::Binding;
use crate::diagnostic::Diagnostic;
use crate::diagnostic::kind::Kind;
use crate::read::reader::Reader;
use crate::spec::{ProjectConfig, ToolSpec};

/// Reports a `message` that does not compile; whether the spec's message compiles (or it has
/// none).
pub fn check_message(r: &mut Reader<'_>, spec: &ToolSpec) -> bool {
    let Some(message) = &spec.message else {
        return true;
    };
    let env = minijinja::Environment::new();
    let compiled = env.template_from_str(&message.value);
    if let Err(e) = &compiled {
        r.report(r.error(Kind::Template, message.span,
            format!(
                "invalid `message` template: {}",
                e.detail().unwrap_or("syntax error")
            ),).with_label("does not compile").with_help("the message is a minijinja template: write values as `{{ order.id }}`, with `{{` and `}}` balanced"));
    }
    compiled.is_ok()
}

/// The built-in adapters with a `present_as` setting, in the order a help suggests them.
const SUGGESTED: [&str; 5] = [
    adapters::MCP,
    adapters::OPENAI,
    adapters::ANTHROPIC,
    adapters::GEMINI,
    adapters::RIG,
];

/// Warns when none of the adapters `name` is a member of shows its `message`. A built-in
/// adapter answers a success with the rendered message only when its `present_as` setting is
/// `message` (MCP, OpenAI, Anthropic, Gemini, rig; the HTTP API never does); a custom adapter is
/// the app's own code, which gets the message with every result, so a member of one is never
/// warned about, and neither is a tool of no adapter (only the app's code calls it).
pub fn check_message_shown(
    r: &mut Reader<'_>,
    spec: &ToolSpec,
    name: &str,
    bindings: &[Binding],
    config: &ProjectConfig,
) {
    let (Some(_), Some(key)) = (&spec.message, spec.message_key) else {
        return;
    };
    if bindings.is_empty() {
        return;
    }
    // The members whose adapter has a `present_as` setting.
    let mut could_show = Vec::new();
    for binding in bindings {
        if adapters::builtin(&binding.adapter).is_none() {
            return;
        }
        let Some(adapter) = config.adapter(&binding.adapter) else {
            return;
        };
        if adapter.decl.setting(PRESENT_AS).is_none() {
            continue;
        }
        if Settings::new(&adapter.decl, &binding.settings).present_as() == PresentAs::Message {
            return;
        }
        could_show.push(binding.adapter.as_str());
    }
    // The usual place first.
    could_show.sort_by_key(|adapter| {
        SUGGESTED
            .iter()
            .position(|a| a == adapter)
            .unwrap_or(SUGGESTED.len())
    });
    let members: Vec<&str> = bindings.iter().map(|b| b.adapter.as_str()).collect();
    let warning = Diagnostic::warning(
        Kind::Unused,
        spec.file.as_str(),
        Some(key),
        format!(
            "the `message` of `{name}` is never shown: none of its adapters has `present_as: message`"
        ),
    )
    .with_label("shown by no adapter")
    .with_note(format!(
        "its adapters ({}) answer with the exposed values; only code that reads \
         `ToolResult::message` itself sees the message",
        members.join(", ")
    ));
    let help = match could_show.split_first() {
        Some((first, others)) => {
            let also = if others.is_empty() {
                String::new()
            } else {
                let others: Vec<String> = others.iter().map(|a| format!("`{a}`")).collect();
                format!(" (or on {})", others.join(", "))
            };
            format!(
                "to answer with the message, set `present_as: message`: \
                 `tool: {{ {first}: {{ present_as: message }} }}`{also}, or for every tool \
                 `adapters: {{ {first}: {{ present_as: message }} }}` in toolspec.yaml"
            )
        }
        None => format!(
            "only {} show a message (with `present_as: message`): make the tool a member of \
             one, or remove `message:`",
            SUGGESTED.map(|a| format!("`{a}`")).join(", ")
        ),
    };
    r.report(warning.with_help(help));
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::kind::Kind;
    use crate::source::Source;

    /// The `unused` warnings of a project of `notes/add.yaml` (and `toolspec.yaml`), each as
    /// its one-line form and its help.
    fn unused(tool: &str, config: Option<&str>) -> Vec<(String, String)> {
        let mut sources = vec![Source {
            path: "notes/add.yaml".into(),
            text: format!(
                "description: Add a note.\nexposes:\n  id: {{ type: integer }}\n\
                 message: \"Note {{{{ id }}}} added.\"\n{tool}"
            ),
        }];
        if let Some(config) = config {
            sources.push(Source {
                path: "toolspec.yaml".into(),
                text: config.to_owned(),
            });
        }
        let project = crate::project::build(&sources, &["notes".to_owned()], "specs");
        assert!(!project.has_errors(), "{}", project.render_diagnostics());
        project
            .diagnostics()
            .iter()
            .filter(|d| d.kind == Kind::Unused)
            .map(|d| (d.one_line(), d.help.clone().unwrap_or_default()))
            .collect()
    }

    const WARNING: &str = "specs/notes/add.yaml:4:1: warning[unused]: the `message` of \
                           `notes_add` is never shown: none of its adapters has `present_as: message`";

    #[test]
    fn a_message_no_adapter_shows_is_a_warning_at_its_key() {
        let found = unused("", None);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, WARNING);
        assert_eq!(
            found[0].1,
            "to answer with the message, set `present_as: message`: `tool: { mcp: { \
             present_as: message } }` (or on `openai`, `anthropic`, `gemini`, `rig`), or for \
             every tool `adapters: { mcp: { present_as: message } }` in toolspec.yaml"
        );
        // Only the members are suggested, the usual one first.
        let found = unused("tool: [http, rig, openai]\n", None);
        assert!(
            found[0]
                .1
                .contains("`tool: { openai: { present_as: message } }` (or on `rig`)"),
            "{found:?}"
        );
        // An adapter that never shows a message.
        let found = unused("tool: [http]\n", None);
        assert_eq!(found[0].0, WARNING);
        assert_eq!(
            found[0].1,
            "only `mcp`, `openai`, `anthropic`, `gemini`, `rig` show a message (with \
             `present_as: message`): make the tool a member of one, or remove `message:`"
        );
        // Explicitly structured is still not shown.
        let found = unused("tool: { mcp: { present_as: structured } }\n", None);
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn a_message_some_adapter_may_show_is_not_warned_about() {
        for (tool, config) in [
            ("tool: { rig: { present_as: message } }\n", None),
            ("", Some("adapters: { gemini: { present_as: message } }\n")),
            // A custom adapter is the app's code: it gets the message with every result.
            (
                "tool: [slack]\n",
                Some("adapters: { slack: { settings: {} } }\n"),
            ),
            ("", Some("adapters: { slack: { settings: {} } }\n")),
            // A tool of no adapter is called by the app's own code.
            ("tool: false\n", None),
        ] {
            assert_eq!(unused(tool, config), [], "{tool} {config:?}");
        }
    }
}
