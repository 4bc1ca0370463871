//! The project's tools as the runtime knows them: each compiled descriptor turned into a
//! `toolspec::Descriptor` (its strings leaked: the process prints and exits), declared by the
//! runtime's own adapter for a dialect. So `toolspec schema --dialect mcp` prints what an MCP
//! server's `tools/list` returns, and the function-calling dialects what their adapters send.

use std::collections::BTreeSet;

use serde_json::Value;
use toolspec::settings::{AdapterDecl, Settings};
use toolspec::{
    AdapterBinding, AuditPolicy, ColumnType, Descriptor, Dialect, Durability, ErrorCode, Field,
    FilterColumn, Guard, LockDecl, OnceDecl, PageLimit, QueryDecl, QueryView, RecordColumn,
    RefDecl, ScopeColumn, ToolKind,
};
use toolspec_codegen::Project;

/// The project's descriptors (and its explain tool's), with the adapters they resolve
/// settings against.
pub struct Declared {
    descriptors: Vec<&'static Descriptor>,
    adapters: Vec<AdapterDecl>,
}

impl Declared {
    /// The descriptors of `project`'s tools (only `only`, when given), and of its explain tool.
    pub fn new(project: &Project, only: Option<&str>) -> Self {
        let mut descriptors: Vec<&'static Descriptor> = project
            .tools()
            .iter()
            .filter(|t| only.is_none_or(|name| t.name() == name))
            .map(|t| leak(runtime_descriptor(t.descriptor())))
            .collect();
        if let (Some(name), None) = (project.explain_tool(), only) {
            let name = leak_str(name.to_owned());
            let bindings: Vec<AdapterBinding> = project
                .adapters()
                .map(|a| AdapterBinding::member(leak_str(a.name.to_string())))
                .collect();
            let audit = audit_policy(project.audit().policy);
            descriptors.push(leak(Descriptor::explain(name, bindings.leak(), audit)));
        }
        Self {
            descriptors,
            adapters: project.adapters().cloned().collect(),
        }
    }

    /// The members of `adapter`, each with the dialect the adapter declares it in: the one its
    /// settings there call for, or its non-strict form when the descriptor has no strict one
    /// (the explain tool), as the runtime's adapters fall back.
    fn members(&self, adapter: &str) -> Vec<(&'static str, &'static Descriptor, Dialect)> {
        let Some(decl) = self.adapters.iter().find(|a| a.name == adapter) else {
            return Vec::new();
        };
        let mut members: Vec<_> = self
            .descriptors
            .iter()
            .filter_map(|d| {
                let binding = d.binding(adapter)?;
                let name = d.name_for(adapter)?;
                let wanted = Dialect::for_member(adapter, &Settings::new(decl, binding.settings));
                let dialect = if d.dialect(wanted).is_some() {
                    wanted
                } else {
                    wanted.relaxed()
                };
                Some((name, *d, dialect))
            })
            .collect();
        members.sort_by_key(|(name, _, _)| *name);
        members
    }

    /// The members of `adapter` by their names there, sorted, each with the dialect the
    /// adapter declares it in.
    pub fn modes(&self, adapter: &str) -> Vec<(&'static str, Dialect)> {
        self.members(adapter)
            .into_iter()
            .map(|(name, _, dialect)| (name, dialect))
            .collect()
    }

    /// The native definitions of the members declared in `dialect`, sorted by their names.
    pub fn native(&self, dialect: Dialect) -> Vec<Value> {
        let declare = |d: &'static Descriptor| -> Option<Value> {
            // Each dialect's provider, by the adapter that declares its tools.
            let declared = match dialect {
                Dialect::Mcp => serde_json::to_value(toolspec::mcp::wrap(d)?),
                Dialect::OpenAi | Dialect::OpenAiStrict => {
                    serde_json::to_value(toolspec::openai::wrap(d)?)
                }
                Dialect::Anthropic | Dialect::AnthropicStrict => {
                    serde_json::to_value(toolspec::anthropic::wrap(d)?)
                }
                Dialect::Gemini => serde_json::to_value(toolspec::gemini::wrap(d)?),
            };
            declared.ok()
        };
        self.members(dialect.adapter())
            .into_iter()
            .filter(|(_, _, member)| *member == dialect)
            .filter_map(|(_, d, _)| declare(d))
            .collect()
    }

    /// The other dialects some members of `dialect`'s adapter are declared in.
    pub fn other_modes(&self, dialect: Dialect) -> BTreeSet<Dialect> {
        self.members(dialect.adapter())
            .into_iter()
            .map(|(_, _, member)| member)
            .filter(|member| *member != dialect)
            .collect()
    }
}

fn leak<T>(value: T) -> &'static T {
    Box::leak(Box::new(value))
}

fn leak_str(text: String) -> &'static str {
    Box::leak(text.into_boxed_str())
}

fn leak_strs(texts: Vec<String>) -> &'static [&'static str] {
    texts.into_iter().map(leak_str).collect::<Vec<_>>().leak()
}

/// A compiled descriptor as the generated `DESCRIPTOR` static holds it.
fn runtime_descriptor(d: toolspec_codegen::Descriptor) -> Descriptor {
    let opt = |text: Option<String>| text.map(leak_str);
    let canonical = d.name.clone();
    let kind = if d.query.is_some() {
        ToolKind::Query
    } else {
        ToolKind::Action
    };
    let query = d.query.map(|q| &*Box::leak(Box::new(query_decl(q))));
    let mut views = d.views;
    Descriptor {
        name: leak_str(d.name),
        spec: leak_str(d.spec),
        module: leak_str(d.module),
        kind,
        title: opt(d.title),
        summary: leak_str(d.summary),
        description: leak_str(d.description),
        version: d.version,
        input_schema: leak_str(d.input_schema),
        output_schema: leak_str(d.output_schema),
        dialects: d
            .dialects
            .into_iter()
            .map(|(dialect, schema)| (dialect, leak_str(schema)))
            .collect::<Vec<_>>()
            .leak(),
        fields: d
            .fields
            .into_iter()
            .map(|f| Field {
                name: leak_str(f.name),
                ambient: f.ambient,
                sensitive: f.sensitive,
                optional: f.optional,
            })
            .collect::<Vec<_>>()
            .leak(),
        sensitive_input: opt(d.sensitive_input),
        sensitive_output: opt(d.sensitive_output),
        own_ranges_input: leak_strs(d.own_ranges_input),
        own_ranges_output: leak_strs(d.own_ranges_output),
        guards: d
            .guards
            .into_iter()
            .map(|(name, description)| Guard {
                name: leak_str(name),
                description: leak_str(description),
            })
            .collect::<Vec<_>>()
            .leak(),
        error_headline: opt(d.error_headline),
        errors: d
            .errors
            .into_iter()
            .map(|e| ErrorCode {
                code: leak_str(e.code),
                message: leak_str(e.message),
                standalone: e.standalone,
                http_status: e.http_status,
            })
            .collect::<Vec<_>>()
            .leak(),
        hints: leak_strs(d.hints),
        message: opt(d.message),
        timeout: d.timeout,
        tags: leak_strs(d.tags),
        scopes: leak_strs(d.scopes),
        adapters: d
            .adapters
            .into_iter()
            .map(|b| AdapterBinding {
                view: b.view.map(|view| {
                    let schemas = views.remove(&b.adapter).unwrap_or_default();
                    &*Box::leak(Box::new(QueryView {
                        filters: leak_strs(view.filters),
                        sorts: leak_strs(view.sorts),
                        description: leak_str(view.description),
                        schemas: schemas
                            .into_iter()
                            .map(|(dialect, schema)| (dialect, leak_str(schema)))
                            .collect::<Vec<_>>()
                            .leak(),
                    }))
                }),
                adapter: leak_str(b.adapter),
                name: (b.name != canonical).then(|| leak_str(b.name)),
                settings: b
                    .settings
                    .into_iter()
                    .map(|(k, v)| (leak_str(k), v))
                    .collect::<Vec<_>>()
                    .leak(),
            })
            .collect::<Vec<_>>()
            .leak(),
        query,
        refs: d
            .refs
            .into_iter()
            .map(|r| RefDecl {
                field: leak_str(r.field),
                source: leak_str(r.source),
                key: leak_str(r.key),
                key_type: r.key_type,
                record: record_columns(r.record),
                scope: scope_columns(r.scope),
            })
            .collect::<Vec<_>>()
            .leak(),
        audit: audit_policy(d.audit),
        once: d.once.map(|o| {
            leak(OnceDecl {
                key: leak_strs(o.key),
                ttl: o.ttl,
            })
        }),
        lock: d.lock.map(|l| {
            leak(LockDecl {
                key: leak_strs(l.key),
                wait: l.wait,
            })
        }),
    }
}

/// A compiled audit policy as the runtime's.
fn audit_policy(policy: toolspec_codegen::AuditPolicy) -> AuditPolicy {
    AuditPolicy {
        enabled: policy.enabled,
        durability: match policy.durability {
            toolspec_codegen::Durability::Async => Durability::Async,
            toolspec_codegen::Durability::Sync => Durability::Sync,
        },
        required: policy.required,
    }
}

fn record_columns(record: Vec<(String, String, ColumnType, bool)>) -> &'static [RecordColumn] {
    record
        .into_iter()
        .map(|(name, column, ty, nullable)| RecordColumn {
            name: leak_str(name),
            column: leak_str(column),
            ty,
            nullable,
        })
        .collect::<Vec<_>>()
        .leak()
}

fn scope_columns(scope: Vec<(String, String, ColumnType)>) -> &'static [ScopeColumn] {
    scope
        .into_iter()
        .map(|(column, ambient, ty)| ScopeColumn {
            column: leak_str(column),
            ambient: leak_str(ambient),
            ty,
        })
        .collect::<Vec<_>>()
        .leak()
}

/// A query tool's declaration as the generated `QueryDecl` holds it.
fn query_decl(q: toolspec_codegen::QueryDescriptor) -> QueryDecl {
    QueryDecl {
        source: leak_str(q.source),
        record: record_columns(q.record),
        scope: scope_columns(q.scope),
        filters: q
            .filters
            .into_iter()
            .map(|(name, op, column, ty)| FilterColumn {
                name: leak_str(name),
                op,
                column: leak_str(column),
                ty,
            })
            .collect::<Vec<_>>()
            .leak(),
        sorts: leak_strs(q.sorts),
        default_sort: q.default_sort.map(leak_str),
        limit: PageLimit {
            default: q.limit.0,
            max: q.limit.1,
        },
    }
}
