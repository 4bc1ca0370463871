//! The keys of a query tool (`kind: query`): `source`, `record`, `scope`, `filters`, `sorts`,
//! `default_sort` and `limit`, and the checks across them once all are read (sorts name
//! record fields, the default sort is a sort, the scope binds declared ambient fields, each
//! adapter's narrowing names filters and sorts that exist).

use toolspec_vocab::query::{self, ColumnType, FilterOp, Sort};

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::column::{read_column_type, read_sql_name};
use crate::read::constraints::read_one_of;
use crate::read::reader::{Reader, Spellings, article, is_snake_identifier, section, suggest};
use crate::read::yaml::{Node, Value};
use crate::rust_name;
use crate::source::{Span, Spanned};
use crate::spec::query::{
    FilterDecl, Narrowing, PageLimit, QuerySpec, RecordField, RefSpec, ScopeBinding,
};
use crate::spec::{AdapterOptions, Field, FieldType, ProjectConfig};

section! {
    /// The keys of a record field.
    enum RecordKey {
        Type = "type",
        Column = "column",
        Description = "description",
        Nullable = "nullable",
        Sensitive = "sensitive",
    }
}

section! {
    /// The keys of a `ref` field.
    enum RefKey {
        Type = "type",
        Description = "description",
        Optional = "optional",
        Source = "source",
        Key = "key",
        Record = "record",
        Scope = "scope",
    }
}

section! {
    /// The keys of a filter.
    enum FilterKey {
        Op = "op",
        Type = "type",
        Column = "column",
        OneOf = "one_of",
        Description = "description",
    }
}

/// A query tool's keys as they are read, checked together by [`QueryDraft::finish`].
#[derive(Default)]
pub struct QueryDraft {
    /// `source`
    pub source: Option<Spanned<String>>,
    /// `record`, and where it is.
    pub record: Option<(Span, Vec<RecordField>)>,
    /// `scope`, and where it is.
    pub scope: Option<(Span, Vec<ScopeBinding>)>,
    /// `filters`
    pub filters: Vec<FilterDecl>,
    /// `sorts`
    pub sorts: Vec<Spanned<String>>,
    /// `default_sort`
    pub default_sort: Option<Spanned<String>>,
    /// `limit`
    pub limit: Option<PageLimit>,
}

/// The type of a column as a field type.
pub fn field_type(ty: ColumnType) -> FieldType {
    match ty {
        ColumnType::String => FieldType::String,
        ColumnType::Integer => FieldType::Integer,
        ColumnType::Number => FieldType::Number,
        ColumnType::Boolean => FieldType::Boolean,
        ColumnType::Uuid => FieldType::Uuid,
        ColumnType::Date => FieldType::Date,
        ColumnType::DateTime => FieldType::DateTime,
    }
}

/// `source:` — a table or view.
pub fn read_source(r: &mut Reader<'_>, node: &Node) -> Option<Spanned<String>> {
    read_sql_name(r, node, "`source`", true)
}

/// `record:` — the columns the result holds.
pub fn read_record(r: &mut Reader<'_>, node: &Node) -> Option<(Span, Vec<RecordField>)> {
    let entries = r.map(node, "`record`")?;
    let mut fields = Vec::new();
    let mut spellings = Spellings::new("record fields", "the Rust field");
    for (key, def) in entries {
        let Some(name) = field_name(r, key, "a record field") else {
            continue;
        };
        if !spellings.admit(r, &name.value, key.span, rust_name::value_name(&name.value)) {
            continue;
        }
        fields.extend(read_record_field(r, name, def));
    }
    if entries.is_empty() {
        r.report(
            r.error(Kind::MissingKey, node.span, "`record` has no fields")
                .with_label("empty record")
                .with_help("list the columns the model may see; nothing else leaves the database"),
        );
        return None;
    }
    Some((node.span, fields))
}

fn read_record_field(r: &mut Reader<'_>, name: Spanned<String>, def: &Node) -> Option<RecordField> {
    let what = format!("record field `{}`", name.value);
    let mut field = RecordField {
        column: name.value.clone(),
        name,
        ty: ColumnType::String,
        description: None,
        nullable: false,
        sensitive: false,
    };
    if let Value::Str(_) = def.value {
        field.ty = read_column_type(r, def, &what)?;
        return Some(field);
    }
    let entries = r.map(def, &format!("the definition of {what}"))?;
    let Some(ty) = def.get("type") else {
        r.report(
            r.error(
                Kind::MissingKey,
                field.name.span,
                format!("{what} has no `type`"),
            )
            .with_label("missing `type`")
            .with_help("add `type:` with the column's type, like `type: integer`"),
        );
        return None;
    };
    field.ty = read_column_type(r, ty, &what)?;
    for (key, _, node) in r.section::<RecordKey>(entries, &what) {
        match key {
            RecordKey::Type => {}
            RecordKey::Column => field.column = read_sql_name(r, node, "`column`", false)?.value,
            RecordKey::Description => field.description = r.non_empty_string(node, "`description`"),
            RecordKey::Nullable => field.nullable = r.bool(node, "`nullable`").unwrap_or(false),
            RecordKey::Sensitive => field.sensitive = r.bool(node, "`sensitive`").unwrap_or(false),
        }
    }
    Some(field)
}

/// `scope:` — columns bound to ambient fields.
pub fn read_scope(r: &mut Reader<'_>, node: &Node) -> Option<(Span, Vec<ScopeBinding>)> {
    let entries = r.map(node, "`scope`")?;
    if entries.is_empty() {
        r.report(
            r.error(Kind::MissingKey, node.span, "`scope` is empty")
                .with_label("no column bound")
                .with_help(
                    "bind at least one column to the trusted context, like \
                     `customer_id: { ambient: customer_id }`: a query tool reads only the caller's rows",
                ),
        );
        return None;
    }
    let mut bindings = Vec::new();
    for (key, value) in entries {
        let Some(column) = read_sql_name(r, key, "scope column", false) else {
            continue;
        };
        let what = format!("`scope.{}`", column.value);
        let Some(entries) = r.map(value, &what) else {
            continue;
        };
        r.check_keys(entries, &["ambient"], &what);
        let Some(ambient) = value.get("ambient") else {
            r.report(
                r.error(Kind::MissingKey, key.span, format!("{what} has no `ambient`"))
                    .with_label("missing `ambient`")
                    .with_help(format!(
                        "bind the column to a field of the trusted context, like `{}: {{ ambient: {} }}`",
                        column.value, column.value
                    )),
            );
            continue;
        };
        let Some(ambient) = r.spanned_string(ambient, &format!("{what}.ambient")) else {
            continue;
        };
        bindings.push(ScopeBinding {
            column,
            ambient,
            ty: None,
        });
    }
    Some((node.span, bindings))
}

/// The bindings whose ambient field the project declares; each other one is reported.
pub fn check_ambient(
    r: &mut Reader<'_>,
    bindings: Vec<ScopeBinding>,
    config: &ProjectConfig,
) -> Vec<ScopeBinding> {
    let mut known = Vec::with_capacity(bindings.len());
    for mut binding in bindings {
        match config.ambient(&binding.ambient.value) {
            Some(decl) => {
                binding.ty = Some(decl.ty);
                known.push(binding);
            }
            None => unknown_ambient(r, &binding.ambient, config),
        }
    }
    known
}

fn unknown_ambient(r: &mut Reader<'_>, ambient: &Spanned<String>, config: &ProjectConfig) {
    let names: Vec<&str> = config
        .ambient
        .iter()
        .map(|a| a.name.value.as_str())
        .collect();
    let help = match suggest(&ambient.value, names.iter().copied()) {
        Some(m) => format!("did you mean `{m}`?"),
        None => format!(
            "declare it in `specs/toolspec.yaml`, like `ambient: {{ {}: {{ type: integer }} }}`",
            ambient.value
        ),
    };
    r.report(
        r.error(
            Kind::UnknownName,
            ambient.span,
            format!("`{}` is not an ambient field", ambient.value),
        )
        .with_label("not declared under `ambient:`")
        .with_help(help),
    );
}

/// `filters:` — what the model may filter by.
pub fn read_filters(r: &mut Reader<'_>, node: &Node) -> Vec<FilterDecl> {
    let Some(entries) = r.map(node, "`filters`") else {
        return Vec::new();
    };
    let mut filters = Vec::new();
    let mut spellings = Spellings::new("filters", "the Rust field");
    for (key, def) in entries {
        let Some(name) = field_name(r, key, "a filter") else {
            continue;
        };
        if [query::SORT, query::LIMIT, query::OFFSET].contains(&name.value.as_str()) {
            r.report(
                r.error(
                    Kind::Reserved,
                    key.span,
                    format!("a filter cannot be named `{}`", name.value),
                )
                .with_label("taken by every query tool")
                .with_help(
                    "`sort`, `limit` and `offset` are the paging arguments; rename the filter",
                ),
            );
            continue;
        }
        if !spellings.admit(r, &name.value, key.span, rust_name::value_name(&name.value)) {
            continue;
        }
        filters.extend(read_filter(r, name, def));
    }
    filters
}

fn read_filter(r: &mut Reader<'_>, name: Spanned<String>, def: &Node) -> Option<FilterDecl> {
    let what = format!("filter `{}`", name.value);
    let entries = r.map(def, &format!("the definition of {what}"))?;
    let keys = r.section::<FilterKey>(entries, &what);
    let missing = |r: &mut Reader<'_>, key: &str, help: &str| {
        r.report(
            r.error(
                Kind::MissingKey,
                name.span,
                format!("{what} has no `{key}`"),
            )
            .with_label(format!("missing `{key}`"))
            .with_help(help.to_owned()),
        );
    };
    let (Some(op_node), Some(ty_node)) = (def.get("op"), def.get("type")) else {
        if def.get("op").is_none() {
            missing(
                r,
                "op",
                "add `op:`, one of: eq, ne, lt, lte, gt, gte, contains, starts_with, in",
            );
        }
        if def.get("type").is_none() {
            missing(
                r,
                "type",
                "add `type:` with the column's type, like `type: string`",
            );
        }
        return None;
    };
    let op = read_op(r, op_node)?;
    let ty = read_column_type(r, ty_node, &what)?;
    if !op.accepts(ty) {
        r.report(
            r.error(
                Kind::Conflict,
                op_node.span,
                format!("`{op}` does not fit {what}, of type {ty}"),
            )
            .with_label(format!("`{op}` on {}", article(ty.name())))
            .with_help(match op {
                FilterOp::Contains | FilterOp::StartsWith => format!(
                    "`{op}` matches text; {} filter takes eq, ne, in, lt, lte, gt or gte",
                    article(ty.name())
                ),
                _ => format!("{ty} values have no order; use eq, ne or in"),
            }),
        );
        return None;
    }
    let mut filter = FilterDecl {
        column: name.value.clone(),
        name,
        op,
        ty,
        one_of: Vec::new(),
        description: None,
    };
    for (key, _, node) in keys {
        match key {
            FilterKey::Op | FilterKey::Type => {}
            FilterKey::Column => filter.column = read_sql_name(r, node, "`column`", false)?.value,
            FilterKey::OneOf => {
                filter.one_of = read_one_of(r, node, &field_type(ty)).map(|s| s.value)?;
            }
            FilterKey::Description => {
                filter.description = r.non_empty_string(node, "`description`")
            }
        }
    }
    Some(filter)
}

fn read_op(r: &mut Reader<'_>, node: &Node) -> Option<FilterOp> {
    let name = r.string(node, "`op`")?;
    if let Some(op) = FilterOp::parse(&name) {
        return Some(op);
    }
    let names = FilterOp::ALL.map(FilterOp::name);
    let help = did_you_mean(&name, names)
        .map(|m| format!("did you mean `{m}`?"))
        .unwrap_or_else(|| format!("an operator is one of: {}", names.join(", ")));
    r.report(
        r.error(
            Kind::UnknownName,
            node.span,
            format!("unknown filter operator `{name}`"),
        )
        .with_label("not an operator")
        .with_help(help),
    );
    None
}

/// `limit:` — `{ default, max }`, each optional.
pub fn read_limit(r: &mut Reader<'_>, node: &Node) -> Option<PageLimit> {
    let entries = r.map(node, "`limit`")?;
    r.check_keys(entries, &["default", "max"], "`limit`");
    let read = |r: &mut Reader<'_>, key: &str| -> Option<Option<(u32, &Node)>> {
        let Some(n) = node.get(key) else {
            return Some(None);
        };
        let value = r.u64(n, &format!("`limit.{key}`"))?;
        match u32::try_from(value) {
            Ok(v) if (1..=query::MAX_LIMIT).contains(&v) => Some(Some((v, n))),
            _ => {
                r.report(
                    r.error(
                        Kind::InvalidValue,
                        n.span,
                        format!("`limit.{key}` must be between 1 and {}", query::MAX_LIMIT),
                    )
                    .with_label("out of range")
                    .with_help("a page a model reads whole; let it ask for more with `offset`"),
                );
                None
            }
        }
    };
    let default = read(r, "default")?;
    let max = read(r, "max")?;
    let max_value = max.map_or(query::DEFAULT_LIMIT, |(v, _)| v);
    if let Some((value, n)) = default
        && value > max_value
    {
        r.report(
            r.error(
                Kind::Conflict,
                n.span,
                format!("`limit.default` ({value}) is over `limit.max` ({max_value})"),
            )
            .with_label("over the maximum")
            .with_help_opt(max.is_none().then(|| {
                format!(
                    "`limit.max` is {} unless set; raise it or lower the default",
                    query::DEFAULT_LIMIT
                )
            })),
        );
        return None;
    }
    Some(PageLimit {
        default: default.map_or(max_value, |(v, _)| v),
        max: max_value,
    })
}

/// A `ref` field of `expects` (`type: ref`): the model sends the key (the field's type is the
/// key's), the handler gets the record. Its scope's ambient fields are checked with the spec.
pub fn read_ref(
    r: &mut Reader<'_>,
    name: String,
    span: Span,
    def: &Node,
    top_level_input: bool,
) -> Option<Field> {
    let what = format!("field `{name}`");
    if !top_level_input {
        r.report(
            r.error(
                Kind::Conflict,
                def.get("type").map_or(def.span, |t| t.span),
                format!("{what} is a `ref`, which only a top-level `expects` field can be"),
            )
            .with_label("not a top-level input")
            .with_help(
                "a `ref` loads a record the handler gets; declare it directly under `expects`",
            ),
        );
        return None;
    }
    let entries = r.map(def, &format!("the definition of {what}"))?;
    let mut field = Field::new(name, span, def.span);
    let (mut source, mut key, mut record, mut scope) = (None, None, None, None);
    for (k, _, node) in r.section::<RefKey>(entries, &what) {
        match k {
            RefKey::Type => field.type_span = node.span,
            RefKey::Description => field.description = r.non_empty_string(node, "`description`"),
            RefKey::Optional => field.optional = r.bool(node, "`optional`").unwrap_or(false),
            RefKey::Source => source = read_source(r, node),
            RefKey::Key => key = r.spanned_string(node, "`key`"),
            RefKey::Record => record = read_record(r, node).map(|(_, fields)| fields),
            RefKey::Scope => scope = read_scope(r, node).map(|(_, bindings)| bindings),
        }
    }
    for (present, key) in [
        (source.is_some() || def.get("source").is_some(), "source"),
        (key.is_some() || def.get("key").is_some(), "key"),
        (record.is_some() || def.get("record").is_some(), "record"),
        (scope.is_some() || def.get("scope").is_some(), "scope"),
    ] {
        if !present {
            r.report(
                r.error(
                    Kind::MissingKey,
                    span,
                    format!("`ref` {what} has no `{key}`"),
                )
                .with_label(format!("missing `{key}`"))
                .with_help(
                    "a `ref` names its `source`, the `key` the model sends, the `record` \
                         loaded and the `scope` it is loaded within",
                ),
            );
        }
    }
    let reference = RefSpec {
        source: source?,
        key: key?,
        record: record?,
        scope: scope?,
    };
    let Some(key_field) = reference.key_field() else {
        let names: Vec<&str> = reference
            .record
            .iter()
            .map(|f| f.name.value.as_str())
            .collect();
        not_one_of(
            r,
            &reference.key,
            "`key`",
            "record field",
            &names,
            "not in the record",
        );
        return None;
    };
    field.ty = field_type(key_field.ty);
    if field.description.is_none() {
        field.description = Some(format!(
            "The {} of the {} record.",
            reference.key.value, field.name
        ));
    }
    field.reference = Some(Box::new(reference));
    Some(field)
}

/// A record field's or a filter's name: a snake_case identifier.
fn field_name(r: &mut Reader<'_>, key: &Node, what: &str) -> Option<Spanned<String>> {
    let name = r.spanned_string(key, &format!("the name of {what}"))?;
    if is_snake_identifier(&name.value) {
        return Some(name);
    }
    r.report(
        r.error(
            Kind::InvalidValue,
            key.span,
            format!("`{}` is not a valid name for {what}", name.value),
        )
        .with_label("not an identifier")
        .with_help("use lowercase letters, digits and underscores, starting with a letter"),
    );
    None
}

impl QueryDraft {
    /// The query, once every key is read: the required keys are there, sorts name record
    /// fields, the default sort is a sort, and every adapter's narrowing names filters and
    /// sorts of this tool. `None` after reporting what is wrong.
    pub fn finish(
        self,
        r: &mut Reader<'_>,
        root: &Node,
        at: Span,
        options: &[AdapterOptions],
        config: &ProjectConfig,
    ) -> Option<QuerySpec> {
        // A key that is there but wrong was reported where it is written.
        let mut missing = |key: &str, help: &str| {
            if root.get(key).is_some() {
                return;
            }
            r.report(
                r.error(Kind::MissingKey, at, format!("query tool has no `{key}`"))
                    .with_label(format!("missing `{key}`"))
                    .with_help(help.to_owned()),
            );
        };
        if self.source.is_none() {
            missing(
                "source",
                "add `source:` with the table or view the tool reads",
            );
        }
        if self.record.is_none() {
            missing("record", "add `record:` with the columns the model may see");
        }
        if self.scope.is_none() {
            missing(
                "scope",
                "add `scope:` binding a column to the trusted context, like \
                 `customer_id: { ambient: customer_id }`",
            );
        }
        // What is there is checked even when another key is missing or wrong: one build
        // reports every mistake.
        let record = self.record.map(|(_, record)| record);
        let scope = self.scope.and_then(|(_, scope)| {
            let bound = scope.len();
            let scope = check_ambient(r, scope, config);
            (scope.len() == bound && !scope.is_empty()).then_some(scope)
        });
        let field_names: Option<Vec<&str>> = record
            .as_ref()
            .map(|record| record.iter().map(|f| f.name.value.as_str()).collect());
        let mut sorts = Vec::new();
        for sort in self.sorts {
            let Some(field_names) = &field_names else {
                sorts.push(sort);
                continue;
            };
            if field_names.contains(&sort.value.as_str()) {
                sorts.push(sort);
            } else {
                not_one_of(
                    r,
                    &sort,
                    "`sorts`",
                    "record field",
                    field_names,
                    "unknown column",
                );
            }
        }
        let sort_names: Vec<&str> = sorts.iter().map(|s| s.value.as_str()).collect();
        if let Some(default) = &self.default_sort {
            let column = Sort::parse(&default.value).column;
            if !sort_names.contains(&column) {
                not_one_of(
                    r,
                    default,
                    "`default_sort`",
                    "sort",
                    &sort_names,
                    "not a sort",
                );
            }
        }
        for filter in &self.filters {
            let binds = |b: &ScopeBinding| b.ambient.value == filter.name.value;
            if scope.iter().flatten().any(binds) {
                r.report(
                    r.error(
                        Kind::NameClash,
                        filter.name.span,
                        format!(
                            "filter `{}` has the name of an ambient field the scope binds",
                            filter.name.value
                        ),
                    )
                    .with_label("also an ambient field")
                    .with_help("rename the filter: ambient values never come from the model"),
                );
            }
        }
        let filter_names: Vec<&str> = self.filters.iter().map(|f| f.name.value.as_str()).collect();
        for option in options {
            check_narrowing(
                r,
                &option.adapter.value,
                &option.narrowing,
                &filter_names,
                &sort_names,
            );
        }
        Some(QuerySpec {
            source: self.source?,
            record: record?,
            scope: scope?,
            filters: self.filters,
            sorts,
            default_sort: self.default_sort,
            limit: self.limit.unwrap_or(PageLimit {
                default: query::DEFAULT_LIMIT,
                max: query::DEFAULT_LIMIT,
            }),
        })
    }
}

fn check_narrowing(
    r: &mut Reader<'_>,
    adapter: &str,
    narrowing: &Narrowing,
    filters: &[&str],
    sorts: &[&str],
) {
    if let (Some(only), Some(except)) = (&narrowing.only_filters, &narrowing.except_filters) {
        let at = except
            .first()
            .map_or_else(|| only.first().map(|s| s.span), |s| Some(s.span));
        if let Some(span) = at {
            r.report(
                r.error(
                    Kind::Conflict,
                    span,
                    format!("`tool.{adapter}` sets both `only_filters` and `except_filters`"),
                )
                .with_label("with `only_filters`")
                .with_help("keep one: `only_filters` lists what the model sees, `except_filters` what it does not"),
            );
        }
    }
    let lists = [
        (&narrowing.only_filters, "only_filters", "filter", filters),
        (
            &narrowing.except_filters,
            "except_filters",
            "filter",
            filters,
        ),
        (&narrowing.only_sorts, "only_sorts", "sort", sorts),
    ];
    for (list, key, what, known) in lists {
        for name in list.iter().flatten() {
            if !known.contains(&name.value.as_str()) {
                let context = format!("`tool.{adapter}.{key}`");
                not_one_of(r, name, &context, what, known, &format!("not a {what}"));
            }
        }
    }
}

/// Reports `name` in `context` as not one of `known` (`what`s).
fn not_one_of(
    r: &mut Reader<'_>,
    name: &Spanned<String>,
    context: &str,
    what: &str,
    known: &[&str],
    label: &str,
) {
    let help = match suggest(&name.value, known.iter().copied()) {
        Some(m) => format!("did you mean `{m}`?"),
        None if known.is_empty() => format!("this tool declares no {what}s"),
        None => format!("{what}s: {}", known.join(", ")),
    };
    r.report(
        r.error(
            Kind::UnknownName,
            name.span,
            format!("`{}` in {context} is not a {what} of this tool", name.value),
        )
        .with_label(label.to_owned())
        .with_help(help),
    );
}

/// Reads a narrowing key of `tool.ADAPTER` into `narrowing`; `false` when `key` is not one.
pub fn read_narrowing(
    r: &mut Reader<'_>,
    key: &str,
    node: &Node,
    narrowing: &mut Narrowing,
) -> bool {
    let slot = match key {
        "only_filters" => &mut narrowing.only_filters,
        "except_filters" => &mut narrowing.except_filters,
        "only_sorts" => &mut narrowing.only_sorts,
        _ => return false,
    };
    *slot = Some(r.string_list(node, &format!("`{key}`")));
    true
}
