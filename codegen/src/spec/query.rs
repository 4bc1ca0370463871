//! A query tool (`kind: query`): a scoped, filtered, sorted and paged read of one table or
//! view, whose result holds only the declared record's columns.

use serde_json::Value;
use toolspec_vocab::query::{ColumnType, FilterOp};

use crate::source::Spanned;

/// One field of the record: a column that leaves the database.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordField {
    /// The field's name in the result.
    pub name: Spanned<String>,
    /// The column it is read from (the name, unless `column:` says otherwise).
    pub column: String,
    /// The column's type.
    pub ty: ColumnType,
    /// `description`
    pub description: Option<String>,
    /// `nullable`: the column may be NULL.
    pub nullable: bool,
    /// `sensitive`
    pub sensitive: bool,
}

/// One entry of `scope`: a column bound to a value of the trusted ambient context.
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeBinding {
    /// The column.
    pub column: Spanned<String>,
    /// The ambient field whose value it must equal.
    pub ambient: Spanned<String>,
    /// The ambient field's type, once the project's `ambient:` declares it.
    pub ty: Option<ColumnType>,
}

/// One entry of `filters`.
#[derive(Debug, Clone, PartialEq)]
pub struct FilterDecl {
    /// The filter's name: the argument the model sends.
    pub name: Spanned<String>,
    /// The comparison.
    pub op: FilterOp,
    /// The column's type (for `in`, the type of each listed value).
    pub ty: ColumnType,
    /// The column compared (the name, unless `column:` says otherwise).
    pub column: String,
    /// `one_of`: the values the model may send.
    pub one_of: Vec<Value>,
    /// `description`
    pub description: Option<String>,
}

/// `limit:` — the page size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLimit {
    /// Records per page when the model asks for no limit.
    pub default: u32,
    /// The most records per page; a larger limit is clamped to it.
    pub max: u32,
}

/// What a query tool declares beside the keys every tool has.
#[derive(Debug, Clone, PartialEq)]
pub struct QuerySpec {
    /// `source`: the table or view (`orders`, `sales.orders`).
    pub source: Spanned<String>,
    /// `record`, in spec order.
    pub record: Vec<RecordField>,
    /// `scope`, in spec order (never empty once read).
    pub scope: Vec<ScopeBinding>,
    /// `filters`, in spec order.
    pub filters: Vec<FilterDecl>,
    /// `sorts`: record fields the model may sort by.
    pub sorts: Vec<Spanned<String>>,
    /// `default_sort` as written (`-created_at`).
    pub default_sort: Option<Spanned<String>>,
    /// `limit`
    pub limit: PageLimit,
}

/// A `ref` field (`type: ref`): the model sends a key, the handler gets the record it names
/// in the source, loaded within the scope.
#[derive(Debug, Clone, PartialEq)]
pub struct RefSpec {
    /// `source`: the table or view.
    pub source: Spanned<String>,
    /// `key`: the record field the model's value is matched against.
    pub key: Spanned<String>,
    /// `record`: the columns loaded, in spec order.
    pub record: Vec<RecordField>,
    /// `scope`: never empty once read.
    pub scope: Vec<ScopeBinding>,
}

impl RefSpec {
    /// The key's record field.
    pub fn key_field(&self) -> Option<&RecordField> {
        self.record.iter().find(|f| f.name.value == self.key.value)
    }
}

/// One adapter's narrowing of a query tool (`tool: { openai: { except_filters: […] } }`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Narrowing {
    /// `only_filters`
    pub only_filters: Option<Vec<Spanned<String>>>,
    /// `except_filters`
    pub except_filters: Option<Vec<Spanned<String>>>,
    /// `only_sorts`
    pub only_sorts: Option<Vec<Spanned<String>>>,
}

impl Narrowing {
    /// The keys of an adapter's options that narrow a query tool.
    pub const KEYS: [&'static str; 3] = ["only_filters", "except_filters", "only_sorts"];

    /// Whether nothing is narrowed.
    pub fn is_empty(&self) -> bool {
        self.only_filters.is_none() && self.except_filters.is_none() && self.only_sorts.is_none()
    }

    /// Whether the adapter's model may use the filter called `name`.
    pub fn allows_filter(&self, name: &str) -> bool {
        let named = |list: &Option<Vec<Spanned<String>>>| {
            list.as_ref().map(|l| l.iter().any(|n| n.value == name))
        };
        named(&self.only_filters).unwrap_or(true) && !named(&self.except_filters).unwrap_or(false)
    }

    /// Whether the adapter's model may sort by `column`.
    pub fn allows_sort(&self, column: &str) -> bool {
        self.only_sorts
            .as_ref()
            .is_none_or(|l| l.iter().any(|n| n.value == column))
    }
}
