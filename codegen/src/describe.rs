//! Each tool's descriptor as data: everything the runtime's `Descriptor` holds, in owned
//! form. Emission writes it as a static; the CLI hands it to the runtime's adapters to print
//! exactly the declarations a server sends.

use std::collections::BTreeMap;
use std::time::Duration;

use toolspec_vocab::Dialect;
use toolspec_vocab::query::{ColumnType, FilterOp};

use crate::analyze::membership::Binding;
use crate::project::Tool;
use crate::source::Spanned;
use crate::spec::AuditPolicy;
use crate::spec::query::{RecordField, ScopeBinding};

/// What the runtime knows about a tool at build time (see `toolspec::Descriptor`).
#[derive(Debug, Clone, PartialEq)]
pub struct Descriptor {
    /// The canonical name.
    pub name: String,
    /// The spec file, relative to the specs directory.
    pub spec: String,
    /// The generated module path below the tools module (`orders::cancel`).
    pub module: String,
    /// Display title.
    pub title: Option<String>,
    /// The spec's own description.
    pub summary: String,
    /// The description models read.
    pub description: String,
    /// The spec's `version`.
    pub version: Option<u32>,
    /// Canonical input schema, as JSON.
    pub input_schema: String,
    /// Canonical output schema, as JSON.
    pub output_schema: String,
    /// The input schema in each member dialect but `mcp`, as JSON, sorted by dialect.
    pub dialects: Vec<(Dialect, String)>,
    /// Every `expects` field in spec order.
    pub fields: Vec<FieldDescriptor>,
    /// Where the input holds `sensitive` values, as JSON.
    pub sensitive_input: Option<String>,
    /// Where the output holds `sensitive` values, as JSON.
    pub sensitive_output: Option<String>,
    /// Where the input schema's integers keep their own range rather than `i64`'s: JSON
    /// pointers to the subschemas of `rust_type` fields and `shape`s.
    pub own_ranges_input: Vec<String>,
    /// Where the output schema's integers keep their own range.
    pub own_ranges_output: Vec<String>,
    /// Guards: name and description, in spec order.
    pub guards: Vec<(String, String)>,
    /// The error headline.
    pub error_headline: Option<String>,
    /// Declared error codes, in spec order.
    pub errors: Vec<ErrorDescriptor>,
    /// Hints, in spec order.
    pub hints: Vec<String>,
    /// The success message template.
    pub message: Option<String>,
    /// How long a call may run.
    pub timeout: Option<Duration>,
    /// Free-form tags.
    pub tags: Vec<String>,
    /// Scopes a caller needs.
    pub scopes: Vec<String>,
    /// Adapter memberships, sorted by adapter.
    pub adapters: Vec<Binding>,
    /// A query tool's input schema on each adapter that narrows it: in `mcp` and in the
    /// adapter's dialect, as JSON.
    pub views: BTreeMap<String, Vec<(Dialect, String)>>,
    /// What a query tool reads.
    pub query: Option<QueryDescriptor>,
    /// The `ref` fields of `expects`, in spec order.
    pub refs: Vec<RefDescriptor>,
    /// How calls are recorded (the project's `audit:`, then the tool's).
    pub audit: AuditPolicy,
    /// An action's `once`.
    pub once: Option<OnceDescriptor>,
    /// An action's `lock`.
    pub lock: Option<LockDescriptor>,
}

/// An action's `once`, as the runtime's `OnceDecl` holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnceDescriptor {
    /// The `expects` fields whose values make the key, in spec order.
    pub key: Vec<String>,
    /// How long the first result answers repeats.
    pub ttl: Duration,
}

/// An action's `lock`, as the runtime's `LockDecl` holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockDescriptor {
    /// The `expects` fields whose values make the key, in spec order.
    pub key: Vec<String>,
    /// How long a call waits for the lock.
    pub wait: Duration,
}

/// A `ref` field, as the runtime's `RefDecl` holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct RefDescriptor {
    /// The field.
    pub field: String,
    /// The table or view.
    pub source: String,
    /// The key's column.
    pub key: String,
    /// The key's type.
    pub key_type: ColumnType,
    /// The record: name, column, type, nullable.
    pub record: Vec<(String, String, ColumnType, bool)>,
    /// The scope: column, ambient field, type.
    pub scope: Vec<(String, String, ColumnType)>,
}

/// What a query tool reads, as the runtime's `QueryDecl` holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryDescriptor {
    /// The table or view.
    pub source: String,
    /// The record: field name, column, type, nullable.
    pub record: Vec<(String, String, ColumnType, bool)>,
    /// The scope: column, ambient field, type.
    pub scope: Vec<(String, String, ColumnType)>,
    /// The filters: name, operator, column, type.
    pub filters: Vec<(String, FilterOp, String, ColumnType)>,
    /// The sorts.
    pub sorts: Vec<String>,
    /// The default sort, as written.
    pub default_sort: Option<String>,
    /// The page size: default and maximum.
    pub limit: (u32, u32),
}

/// One input field as the runtime needs to know it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldDescriptor {
    /// The field's key.
    pub name: String,
    /// Resolved from the trusted ambient context.
    pub ambient: bool,
    /// Never quoted in errors or logs.
    pub sensitive: bool,
    /// May be omitted.
    pub optional: bool,
}

/// A declared error code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorDescriptor {
    /// The code.
    pub code: String,
    /// The reason text.
    pub message: String,
    /// Shown without the headline.
    pub standalone: bool,
    /// The HTTP API's status for it, when the spec sets one.
    pub http_status: Option<u16>,
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
        Descriptor {
            name: self.name.clone(),
            spec: spec.path.clone(),
            module: self.module.join("::"),
            title: spec.title.clone(),
            summary: spec.description.clone(),
            description: self.description.clone(),
            version: spec.version,
            input_schema: self.input_schema.to_string(),
            output_schema: self.output_schema.to_string(),
            dialects: self
                .dialects
                .iter()
                .map(|(d, schema)| (*d, schema.to_string()))
                .collect(),
            fields: spec
                .expects
                .iter()
                .map(|f| FieldDescriptor {
                    name: f.name.clone(),
                    ambient: f.ambient,
                    sensitive: f.sensitive,
                    optional: !f.is_required(),
                })
                .collect(),
            sensitive_input: self.sensitive_input.as_ref().map(ToString::to_string),
            sensitive_output: self.sensitive_output.as_ref().map(ToString::to_string),
            own_ranges_input: self.own_ranges_input.clone(),
            own_ranges_output: self.own_ranges_output.clone(),
            guards: spec
                .guards
                .iter()
                .map(|g| (g.name.value.clone(), g.description.clone()))
                .collect(),
            error_headline: spec.headline.clone(),
            errors: spec
                .errors
                .iter()
                .map(|e| ErrorDescriptor {
                    code: e.code.value.clone(),
                    message: e.message.clone(),
                    standalone: e.standalone,
                    http_status: self.http_status(&e.code.value),
                })
                .collect(),
            hints: spec.hints.iter().map(|h| h.value.clone()).collect(),
            message: spec.message.as_ref().map(|m| m.value.clone()),
            timeout: spec.timeout,
            tags: spec.tags.clone(),
            scopes: spec.scopes.clone(),
            adapters: self.bindings.clone(),
            views: self
                .views
                .iter()
                .map(|(adapter, schemas)| {
                    let schemas = schemas.iter().map(|(d, s)| (*d, s.to_string()));
                    (adapter.clone(), schemas.collect())
                })
                .collect(),
            refs: spec
                .expects
                .iter()
                .filter_map(|f| {
                    let r = f.reference.as_deref()?;
                    let key = r.key_field()?;
                    Some(RefDescriptor {
                        field: f.name.clone(),
                        source: r.source.value.clone(),
                        key: key.column.clone(),
                        key_type: key.ty,
                        record: record(&r.record),
                        scope: scope(&r.scope),
                    })
                })
                .collect(),
            audit: spec.audit,
            once: spec.once.as_ref().map(|o| OnceDescriptor {
                key: names(&o.key),
                ttl: o.ttl,
            }),
            lock: spec.lock.as_ref().map(|l| LockDescriptor {
                key: names(&l.key),
                wait: l.wait,
            }),
            query: spec.query.as_ref().map(|q| QueryDescriptor {
                source: q.source.value.clone(),
                record: record(&q.record),
                scope: scope(&q.scope),
                filters: q
                    .filters
                    .iter()
                    .map(|f| (f.name.value.clone(), f.op, f.column.clone(), f.ty))
                    .collect(),
                sorts: q.sorts.iter().map(|s| s.value.clone()).collect(),
                default_sort: q.default_sort.as_ref().map(|s| s.value.clone()),
                limit: (q.limit.default, q.limit.max),
            }),
        }
    }
}

/// The names of a `once` or `lock` key.
fn names(key: &[Spanned<String>]) -> Vec<String> {
    key.iter().map(|k| k.value.clone()).collect()
}

/// A scope as the runtime's `ScopeColumn`s hold it: column, ambient field, type.
fn scope(bindings: &[ScopeBinding]) -> Vec<(String, String, ColumnType)> {
    bindings
        .iter()
        .filter_map(|b| Some((b.column.value.clone(), b.ambient.value.clone(), b.ty?)))
        .collect()
}

/// A record as the runtime's `RecordColumn`s hold it: name, column, type, nullable.
fn record(fields: &[RecordField]) -> Vec<(String, String, ColumnType, bool)> {
    fields
        .iter()
        .map(|f| (f.name.value.clone(), f.column.clone(), f.ty, f.nullable))
        .collect()
}
