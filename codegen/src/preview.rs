//! A preview of strict mode: the project as it would be with `strict: true` for every member of
//! an adapter that has a strict mode, so that `toolspec schema --dialect openai-strict
//! --preview` can show every tool as strict mode would send it, and say which ones it cannot
//! express, before anyone turns it on.

use std::collections::BTreeSet;

use toolspec_vocab::Dialect;
use toolspec_vocab::settings::{STRICT, SettingValue};

use crate::analyze::checked::Checked;
use crate::derive::dialect::members::dialect_schemas;
use crate::project::Project;

impl Project {
    /// This project as it would be with `strict: true` for every member of `dialect`'s adapter
    /// (the project default and every tool's override alike), or `None` when `dialect` is not
    /// a strict one (`openai-strict`, `anthropic-strict`).
    ///
    /// Each member's schema in `dialect` is derived (and, for a query tool the adapter
    /// narrows, its narrowed one), whatever its `strict` setting is. The preview's
    /// [`diagnostics`](Project::diagnostics) are only what deriving `dialect` found — what the
    /// build would report with strict mode on: an error for each member strict mode cannot
    /// express (it then has no `dialect` schema, and its adapter would keep declaring it in the
    /// non-strict dialect), a warning for each constraint stated in a description instead.
    /// Nothing is derived while the project itself has errors.
    pub fn with_strict(&self, dialect: Dialect) -> Option<Project> {
        if !dialect.is_strict() {
            return None;
        }
        let adapter = dialect.adapter();
        let mut preview = self.clone();
        preview.diagnostics = Vec::new();
        if self.has_errors() {
            return Some(preview);
        }
        // The project's default (which the built-in tools follow), and every member's.
        let decl = preview.config.adapters.iter_mut().map(|a| &mut a.decl);
        if let Some(decl) = decl.into_iter().find(|d| d.name == adapter) {
            let settings = decl.settings.to_mut().iter_mut();
            if let Some(strict) = settings.into_iter().find(|s| s.name == STRICT) {
                strict.default = Some(SettingValue::Bool(true));
            }
        }
        for tool in &mut preview.tools {
            for binding in tool.bindings.iter_mut().filter(|b| b.adapter == adapter) {
                binding.settings.retain(|(name, _)| name != STRICT);
                binding
                    .settings
                    .push((STRICT.to_owned(), SettingValue::Bool(true)));
            }
        }
        let checked: Vec<Checked> = preview
            .tools
            .iter()
            .map(|tool| Checked {
                spec: tool.spec.clone(),
                name: tool.name.clone(),
                module: tool.module.clone(),
                bindings: tool.bindings.clone(),
                description: tool.description.clone(),
            })
            .collect();
        let inputs: Vec<&serde_json::Value> =
            preview.tools.iter().map(|t| &t.input_schema).collect();
        let members = |tool: &Checked| -> BTreeSet<Dialect> {
            let member = tool.bindings.iter().any(|b| b.adapter == adapter);
            member.then_some(dialect).into_iter().collect()
        };
        let derived = dialect_schemas(
            &checked,
            &inputs,
            &preview.config,
            &preview.types,
            &mut preview.diagnostics,
            members,
        );
        for ((tool, dialects), checked) in preview.tools.iter_mut().zip(derived).zip(&checked) {
            tool.dialects.remove(&dialect);
            tool.dialects.extend(dialects);
            let views = crate::derive::views(checked, &tool.input_schema, &preview.config);
            match views.get(adapter) {
                Some(view) => {
                    tool.views.insert(adapter.to_owned(), view.clone());
                }
                None => {
                    tool.views.remove(adapter);
                }
            }
        }
        Some(preview)
    }
}

#[cfg(test)]
mod tests {
    use toolspec_vocab::Dialect;

    use crate::diagnostic::Severity;

    fn project(files: &[(&str, &str)]) -> crate::project::Project {
        crate::project::from_files(files)
    }

    #[test]
    fn every_member_gets_the_strict_dialect_and_what_cannot_be_strict_is_an_error() {
        let project = project(&[
            (
                "note.yaml",
                "description: A note.\nexpects:\n  text: { type: string, max_length: 10 }\n",
            ),
            (
                "tagged.yaml",
                "description: Tags.\nexpects:\n  tags: { type: map, values: string }\n",
            ),
            (
                "hidden.yaml",
                "description: Not on OpenAI.\ntool: { except: [openai] }\n",
            ),
        ]);
        assert!(!project.has_errors(), "{}", project.render_diagnostics());
        assert!(
            project
                .tools()
                .iter()
                .all(|t| t.dialect(Dialect::OpenAiStrict).is_none())
        );
        assert!(project.with_strict(Dialect::OpenAi).is_none());
        let before = project.diagnostics().to_vec();
        let preview = project
            .with_strict(Dialect::OpenAiStrict)
            .expect("a strict dialect");
        let tool = |name: &str| {
            preview
                .tools()
                .iter()
                .find(|t| t.name() == name)
                .expect("tool")
        };
        let strict = tool("note").dialect(Dialect::OpenAiStrict).expect("strict");
        assert_eq!(strict["properties"]["text"]["type"], "string");
        assert!(tool("note").dialect(Dialect::OpenAi).is_some(), "kept");
        assert!(tool("tagged").dialect(Dialect::OpenAiStrict).is_none());
        assert!(tool("hidden").dialect(Dialect::OpenAiStrict).is_none());
        let strict_binding = |name: &str| {
            tool(name)
                .bindings()
                .iter()
                .find(|b| b.adapter == "openai")
                .map(|b| b.settings.clone())
        };
        assert_eq!(
            strict_binding("note"),
            Some(vec![(
                "strict".to_owned(),
                toolspec_vocab::settings::SettingValue::Bool(true)
            )])
        );
        let lines: Vec<String> = preview.diagnostics().iter().map(|d| d.one_line()).collect();
        assert_eq!(
            lines.iter().filter(|l| l.contains("error")).count(),
            1,
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|l| l.starts_with(
                "specs/tagged.yaml:3:3: error[dialect]: `tags` cannot be expressed in openai-strict"
            )),
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|l| l.starts_with(
                "specs/note.yaml:3:3: warning[dialect]: openai-strict cannot express `maxLength` of `text`"
            )),
            "{lines:?}"
        );
        assert!(
            preview
                .diagnostics()
                .iter()
                .all(|d| d.severity == Severity::Warning || d.message.contains("openai-strict")),
        );
        // The project itself is unchanged.
        assert_eq!(project.diagnostics(), before);
        assert!(
            project
                .tools()
                .iter()
                .all(|t| t.dialect(Dialect::OpenAiStrict).is_none())
        );
    }
}
