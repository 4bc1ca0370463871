//! Each tool's descriptor, and those of the built-in tools a project offers (explain, task
//! status): the vocabulary's model (`toolspec_vocab::descriptor`), built from the checked tool
//! in owned form. Emission writes it into Rust by walking the value (`emit::bake`); the CLI
//! hands it to the runtime's adapters to print exactly the declarations a server sends.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::time::Duration;

use toolspec_vocab::Dialect;
use toolspec_vocab::descriptor::query::{
    FilterColumn, PageLimit, QueryDecl, QueryView, RecordColumn, RefDecl, ScopeColumn,
};
use toolspec_vocab::descriptor::{
    AdapterBinding, AskForm, Confirm, Descriptor, DescriptorParts, ErrorCode, Field, Guard,
    LockDecl, OnceDecl, Text, ToolKind,
};
use toolspec_vocab::settings::{AdapterDecl, SettingValue, Settings};
use toolspec_vocab::tasks::status_tool;

use crate::derive::dialect;
use crate::project::{Project, Tool};
use crate::source::Spanned;
use crate::spec::query::{RecordField, ScopeBinding};

impl Project {
    /// The descriptors of the built-in tools the project offers, sorted by name: the explain
    /// tool (unless `explain: { enabled: false }`) on every adapter, and the task status tool
    /// when some tool declares `task:`, on each adapter that has such a tool as a member and no
    /// task surface of its own (every adapter but `mcp` and `http`, which have theirs).
    pub fn builtin_descriptors(&self) -> Vec<Descriptor> {
        let config = &self.config;
        let audit = config.audit.policy;
        let bind = |adapter: &str| AdapterBinding {
            adapter: Cow::Owned(adapter.to_owned()),
            ..AdapterBinding::member("")
        };
        let mut builtins = Vec::new();
        if let Some(name) = self.explain_tool() {
            let bindings = self.adapters().map(|a| bind(&a.name)).collect();
            let name = Cow::Owned(name.to_owned());
            builtins.push(Descriptor::explain(name, Cow::Owned(bindings), audit));
        }
        let offered: Vec<&AdapterDecl> = self
            .adapters()
            .filter(|a| status_tool::offered_on(&a.name))
            .filter(|a| {
                let member = |t: &&Tool| t.bindings.iter().any(|b| b.adapter == a.name.as_ref());
                self.tools
                    .iter()
                    .filter(member)
                    .any(|t| t.spec.task.is_some())
            })
            .collect();
        if !offered.is_empty() {
            let name = Cow::Owned(config.task_status_name.clone());
            let bindings = offered.iter().map(|a| bind(&a.name)).collect();
            builtins.push(Descriptor::task_status(
                name,
                Cow::Owned(bindings),
                audit,
                Cow::Owned(status_tool_dialects(&offered)),
            ));
        }
        builtins.sort_by(|a, b| a.name.cmp(&b.name));
        builtins
    }
}

/// The task status tool's input schema in the dialect each adapter it is offered on declares
/// it in (by the project's settings there: strict where the adapter is), sorted by dialect,
/// derived as any tool's is.
fn status_tool_dialects(offered: &[&AdapterDecl]) -> Vec<(Dialect, Text)> {
    let schema = status_tool::INPUT_SCHEMA;
    let canonical = serde_json::from_str(schema).unwrap_or_default();
    let defaults: &[(&str, SettingValue)] = &[];
    let wanted: BTreeSet<Dialect> = offered
        .iter()
        .map(|a| Dialect::for_member(&a.name, &Settings::new(a, defaults)))
        .filter(|d| *d != Dialect::Mcp)
        .collect();
    wanted
        .into_iter()
        .filter_map(|d| {
            let derived = dialect::derive(d, &canonical);
            derived.is_expressible().then(|| (d, json(&derived.schema)))
        })
        .collect()
}

impl Tool {
    /// The HTTP status `tool: { http: { status: … } }` gives `code`.
    pub fn http_status(&self, code: &str) -> Option<u16> {
        let options = self.spec.tool.options.iter();
        let mut statuses = options.flat_map(|o| &o.statuses);
        let (_, status) = statuses.find(|(c, _)| c.value == code)?;
        u16::try_from(status.value).ok()
    }

    /// The tool's descriptor.
    pub fn descriptor(&self) -> Descriptor {
        let spec = &self.spec;
        let text = |s: &str| -> Text { Cow::Owned(s.to_owned()) };
        let adapters = self.bindings.iter().map(|b| AdapterBinding {
            adapter: text(&b.adapter),
            name: (b.name != self.name).then(|| text(&b.name)),
            settings: Cow::Owned(
                b.settings
                    .iter()
                    .map(|(k, v)| (text(k), v.clone()))
                    .collect(),
            ),
            view: b.view.as_ref().map(|view| QueryView {
                filters: texts(&view.filters),
                sorts: texts(&view.sorts),
                description: text(&view.description),
                schemas: Cow::Owned(
                    self.views
                        .get(&b.adapter)
                        .map(|schemas| schemas.iter().map(|(d, s)| (*d, json(s))).collect())
                        .unwrap_or_default(),
                ),
            }),
            title: b.title.as_deref().map(text),
            description: b.description.as_deref().map(text),
            hints: b.hints.as_ref().map(|hints| texts(hints)),
        });
        Descriptor::baked(DescriptorParts {
            name: text(&self.name),
            spec: text(&spec.path),
            module: Cow::Owned(self.module.join("::")),
            kind: if spec.query.is_some() {
                ToolKind::Query
            } else {
                ToolKind::Action
            },
            title: spec.title.as_deref().map(text),
            summary: text(&spec.description),
            description: text(&self.description),
            version: spec.version,
            input_schema: json(&self.input_schema),
            output_schema: json(&self.output_schema),
            dialects: Cow::Owned(
                self.dialects
                    .iter()
                    .map(|(d, schema)| (*d, json(schema)))
                    .collect(),
            ),
            fields: Cow::Owned(
                spec.expects
                    .iter()
                    .map(|f| Field {
                        name: text(&f.name),
                        ambient: f.ambient,
                        from: f.from.as_ref().map(|from| text(&from.value)),
                        sensitive: f.sensitive,
                        optional: !f.is_required(),
                    })
                    .collect(),
            ),
            sensitive_input: self.sensitive_input.as_ref().map(json),
            sensitive_output: self.sensitive_output.as_ref().map(json),
            own_ranges_input: texts(&self.own_ranges_input),
            own_ranges_output: texts(&self.own_ranges_output),
            guards: Cow::Owned(
                spec.guards
                    .iter()
                    .map(|g| Guard {
                        name: text(&g.name.value),
                        description: text(&g.description),
                    })
                    .collect(),
            ),
            error_headline: spec.headline.as_deref().map(text),
            errors: Cow::Owned(
                spec.errors
                    .iter()
                    .map(|e| ErrorCode {
                        code: text(&e.code.value),
                        message: text(&e.message),
                        standalone: e.standalone,
                        http_status: self.http_status(&e.code.value),
                    })
                    .collect(),
            ),
            hints: Cow::Owned(spec.hints.iter().map(|h| text(&h.value)).collect()),
            message: spec.message.as_ref().map(|m| text(&m.value)),
            timeout_ms: spec.timeout.map(millis),
            tags: texts(&spec.tags),
            scopes: texts(&spec.scopes),
            adapters: Cow::Owned(adapters.collect()),
            query: spec.query.as_ref().map(|q| QueryDecl {
                source: text(&q.source.value),
                record: record(&q.record),
                scope: scope(&q.scope),
                filters: Cow::Owned(
                    q.filters
                        .iter()
                        .map(|f| FilterColumn {
                            name: text(&f.name.value),
                            op: f.op,
                            column: text(&f.column),
                            ty: f.ty,
                        })
                        .collect(),
                ),
                sorts: Cow::Owned(q.sorts.iter().map(|s| text(&s.value)).collect()),
                default_sort: q.default_sort.as_ref().map(|s| text(&s.value)),
                limit: PageLimit {
                    default: q.limit.default,
                    max: q.limit.max,
                },
            }),
            refs: Cow::Owned(
                spec.expects
                    .iter()
                    .filter_map(|f| {
                        let r = f.reference.as_deref()?;
                        let key = r.key_field()?;
                        Some(RefDecl {
                            field: text(&f.name),
                            source: text(&r.source.value),
                            key: text(&key.column),
                            key_type: key.ty,
                            record: record(&r.record),
                            scope: scope(&r.scope),
                        })
                    })
                    .collect(),
            ),
            audit: spec.audit,
            once: spec.once.as_ref().map(|o| OnceDecl {
                key: names(&o.key),
                ttl_ms: millis(o.ttl),
            }),
            lock: spec.lock.as_ref().map(|l| LockDecl {
                key: names(&l.key),
                wait_ms: millis(l.wait),
            }),
            task: spec.task,
            rate_limit: spec.rate_limit,
            result_cap: spec.result_cap,
            confirm: spec.confirm.as_ref().map(|c| Confirm {
                message: text(&c.message.value),
                when: c.when.as_ref().map(|w| text(&w.value)),
            }),
            ask: Cow::Owned(
                spec.ask
                    .iter()
                    .zip(&self.forms)
                    .map(|(form, schema)| AskForm {
                        name: text(&form.name.value),
                        message: text(&form.message),
                        fields: names(&form.fields),
                        schema: json(schema),
                    })
                    .collect(),
            ),
        })
    }
}

/// Owned texts.
fn texts(values: &[String]) -> Cow<'static, [Text]> {
    Cow::Owned(values.iter().map(|v| Cow::Owned(v.clone())).collect())
}

/// The names of a `once` or `lock` key.
fn names(key: &[Spanned<String>]) -> Cow<'static, [Text]> {
    Cow::Owned(key.iter().map(|k| Cow::Owned(k.value.clone())).collect())
}

/// A scope as the runtime's `ScopeColumn`s hold it.
fn scope(bindings: &[ScopeBinding]) -> Cow<'static, [ScopeColumn]> {
    Cow::Owned(
        bindings
            .iter()
            .filter_map(|b| {
                Some(ScopeColumn {
                    column: Cow::Owned(b.column.value.clone()),
                    ambient: Cow::Owned(b.ambient.value.clone()),
                    ty: b.ty?,
                })
            })
            .collect(),
    )
}

/// A record as the runtime's `RecordColumn`s hold it.
fn record(fields: &[RecordField]) -> Cow<'static, [RecordColumn]> {
    Cow::Owned(
        fields
            .iter()
            .map(|f| RecordColumn {
                name: Cow::Owned(f.name.value.clone()),
                column: Cow::Owned(f.column.clone()),
                ty: f.ty,
                nullable: f.nullable,
            })
            .collect(),
    )
}

/// Whole milliseconds, as descriptors keep durations.
fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// A schema's JSON text, as the generated code embeds it (serde_json's writer: `Display`
/// goes through a formatter and is slower).
fn json(value: &serde_json::Value) -> Text {
    Cow::Owned(serde_json::to_string(value).unwrap_or_default())
}
