//! The tool catalog: a page people read, built from the tools' descriptors — each tool with
//! its title and description, its inputs and outputs as tables (types and constraints in
//! words, `sensitive` fields marked), its error codes (a `ref` field's `not_found` among
//! them), guards, scopes, hints, rate limit, task and confirmation settings, its result
//! cap, the adapters it is on with its name there, and an example call per adapter (MCP
//! JSON-RPC, the HTTP API with curl, an OpenAI tool call). Rendered with minijinja as HTML (no script,
//! landmarks and table headers for screen readers, readable at phone width; every text
//! escaped) or as Markdown for a repository.
//!
//! The HTTP API serves it at `GET /docs` (the caller's tools only, as `GET /tools` lists
//! them); `toolspec docs` writes it as files.

mod fields;

use toolspec_vocab::duration::words;

use minijinja::Environment;
use serde::Serialize;
use serde_json::{Value, json};
use toolspec_vocab::adapters::{HTTP, MCP, OPENAI};
use toolspec_vocab::codes;

use crate::model::descriptor::{Descriptor, ToolKind};
use crate::model::failure::not_found_reason;
use crate::schema::sensitive::Sensitivity;
use fields::{FieldRow, example, rows};

/// The catalog of some tools, ready to render.
#[derive(Debug, Clone)]
pub struct ToolDocs<'a> {
    title: String,
    note: Option<String>,
    base_url: String,
    tools: Vec<&'a Descriptor>,
}

/// What the templates see.
#[derive(Serialize)]
struct Page<'a> {
    title: &'a str,
    note: Option<&'a str>,
    base_url: &'a str,
    tools: Vec<ToolView>,
}

/// One tool as the catalog shows it.
#[derive(Debug, Clone, Serialize)]
struct ToolView {
    name: String,
    anchor: String,
    title: Option<String>,
    summary: String,
    kind: &'static str,
    inputs: Vec<FieldRow>,
    outputs: Vec<FieldRow>,
    errors: Vec<(String, String)>,
    guards: Vec<(String, String)>,
    scopes: Vec<String>,
    hints: Vec<String>,
    rate_limit: String,
    task: Option<String>,
    confirm: Option<String>,
    result_cap: Option<String>,
    adapters: Vec<(String, String)>,
    examples: Vec<Example>,
}

/// An example call on one adapter.
#[derive(Debug, Clone, Serialize)]
struct Example {
    label: &'static str,
    language: &'static str,
    code: String,
}

impl<'a> ToolDocs<'a> {
    /// The catalog of `tools` (shown sorted by name), titled `title`. The example calls of
    /// the HTTP API go to `http://localhost:8787` until [`base_url`](Self::base_url) says
    /// where.
    pub fn new(title: &str, tools: impl IntoIterator<Item = &'a Descriptor>) -> Self {
        let mut tools: Vec<&Descriptor> = tools.into_iter().collect();
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        ToolDocs {
            title: title.to_owned(),
            note: None,
            base_url: "http://localhost:8787".to_owned(),
            tools,
        }
    }

    /// A sentence shown under the title (what the page is, for whom).
    pub fn note(mut self, note: &str) -> Self {
        self.note = Some(note.to_owned());
        self
    }

    /// Where the HTTP API is served, for its example calls (`https://tools.example.com`, or a
    /// shell variable such as `$TOOLSPEC_URL`).
    pub fn base_url(mut self, url: &str) -> Self {
        self.base_url = url.trim_end_matches('/').to_owned();
        self
    }

    /// The number of tools it shows.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether it shows no tool.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The page as HTML.
    pub fn html(&self) -> String {
        self.render("catalog.html", include_str!("catalog.html"))
    }

    /// The catalog as Markdown.
    pub fn markdown(&self) -> String {
        self.render("catalog.md", include_str!("catalog.md"))
    }

    fn render(&self, name: &'static str, template: &'static str) -> String {
        let mut env = Environment::new();
        // `.html` templates escape every value; Markdown table cells keep to one line.
        env.add_filter("cell", |text: String| {
            text.replace('|', "\\|").replace(['\n', '\r'], " ")
        });
        let page = Page {
            title: &self.title,
            note: self.note.as_deref(),
            base_url: &self.base_url,
            tools: self.tools.iter().map(|tool| self.view(tool)).collect(),
        };
        let rendered = env
            .add_template(name, template)
            .and_then(|()| env.get_template(name))
            .and_then(|t| t.render(minijinja::value::Serde(&Context { docs: &page })));
        // The templates are the crate's own, checked by its tests: a failure is a bug.
        rendered.unwrap_or_else(|e| format!("the catalog does not render: {e}"))
    }

    fn view(&self, tool: &Descriptor) -> ToolView {
        let parse = |text: &str| serde_json::from_str::<Value>(text).unwrap_or(Value::Null);
        let input = parse(&tool.input_schema);
        let arguments = example(&input, &input, 0);
        let mut adapters: Vec<(String, String)> = tool
            .adapters
            .iter()
            .filter_map(|b| Some((b.adapter.to_string(), tool.name_for(&b.adapter)?.to_owned())))
            .collect();
        adapters.dedup();
        let mut examples = Vec::new();
        if let Some(name) = tool.name_for(MCP) {
            let call = json!({
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": { "name": name, "arguments": arguments },
            });
            examples.push(Example {
                label: "MCP (JSON-RPC)",
                language: "json",
                code: pretty(&call),
            });
        }
        if let Some(name) = tool.name_for(HTTP) {
            let body = arguments.to_string().replace('\'', "'\\''");
            examples.push(Example {
                label: "HTTP API (curl)",
                language: "sh",
                code: format!(
                    "curl -X POST {}/tools/{name} \\\n  -H \"authorization: Bearer $TOKEN\" \\\n  -H 'content-type: application/json' \\\n  -d '{body}'",
                    self.base_url
                ),
            });
        }
        if let Some(name) = tool.name_for(OPENAI) {
            let call = json!({
                "type": "function",
                "id": "call_1",
                "function": { "name": name, "arguments": arguments.to_string() },
            });
            examples.push(Example {
                label: "OpenAI tool call",
                language: "json",
                code: pretty(&call),
            });
        }
        ToolView {
            name: tool.name.to_string(),
            anchor: format!("tool-{}", tool.name),
            title: tool.title.as_deref().map(str::to_owned),
            summary: tool.summary.to_string(),
            kind: match tool.kind {
                ToolKind::Query => "query",
                ToolKind::Action => "action",
                ToolKind::Explain | ToolKind::TaskStatus => "built-in",
            },
            inputs: rows(
                &input,
                &Sensitivity::compile(tool.sensitive_input.as_deref()),
            ),
            outputs: rows(
                &parse(&tool.output_schema),
                &Sensitivity::compile(tool.sensitive_output.as_deref()),
            ),
            errors: errors(tool),
            guards: (tool.guards.iter())
                .map(|g| (g.name.to_string(), g.description.to_string()))
                .collect(),
            scopes: tool.scopes.iter().map(ToString::to_string).collect(),
            hints: tool.hints.iter().map(ToString::to_string).collect(),
            rate_limit: match tool.rate_limit {
                Some(limit) => limit.to_string(),
                None => "none".to_owned(),
            },
            task: tool.task.map(|task| {
                format!(
                    "runs as a durable task ({}): kept {}, each run up to {}",
                    task.support.as_str(),
                    words(task.retention()),
                    words(task.timeout())
                )
            }),
            result_cap: tool.result_cap.map(|cap| {
                format!("answers past {cap} are cut to fit, with a notice of what was cut")
            }),
            confirm: tool.confirm.as_ref().map(|c| match &c.when {
                Some(when) => format!("asks its user to confirm when {when}: “{}”", c.message),
                None => format!("asks its user to confirm each call: “{}”", c.message),
            }),
            adapters,
            examples,
        }
    }
}

/// The codes a call of `tool` may fail with besides the guards' names: the declared ones, then
/// `not_found` when a `ref` field may answer it and the spec does not declare it (with the
/// reason each such field answers).
fn errors(tool: &Descriptor) -> Vec<(String, String)> {
    let mut errors: Vec<(String, String)> = (tool.errors.iter())
        .map(|e| (e.code.to_string(), e.message.to_string()))
        .collect();
    if !tool.refs.is_empty() && tool.error(codes::NOT_FOUND).is_none() {
        let reasons: Vec<String> = (tool.refs.iter())
            .map(|r| not_found_reason(&r.field))
            .collect();
        errors.push((codes::NOT_FOUND.to_owned(), reasons.join(" / ")));
    }
    errors
}

/// The templates' one variable.
#[derive(Serialize)]
struct Context<'a> {
    docs: &'a Page<'a>,
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

#[cfg(test)]
mod tests;
