//! What a query tool (`kind: query`) declares: the source, the record's columns, the scope,
//! the filters, the sorts and the page size, and what an adapter that narrows the tool shows
//! its model; and what an action's `ref` field loads. The runtime's query engine reads it to
//! build and run the SQL.

use std::borrow::Cow;

use crate::dialect::Dialect;
use crate::query::{ColumnType, FilterOp};

/// One field of the record: a column that leaves the database.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct RecordColumn {
    /// The field's name in the result.
    pub name: Cow<'static, str>,
    /// The column it is read from.
    pub column: Cow<'static, str>,
    /// The column's type.
    pub ty: ColumnType,
    /// Whether the column may be NULL.
    pub nullable: bool,
}

/// A column bound to a value of the trusted ambient context.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct ScopeColumn {
    /// The column.
    pub column: Cow<'static, str>,
    /// The ambient field whose value it must equal.
    pub ambient: Cow<'static, str>,
    /// The ambient field's type.
    pub ty: ColumnType,
}

/// A filter the model may use.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct FilterColumn {
    /// The argument's name.
    pub name: Cow<'static, str>,
    /// The comparison.
    pub op: FilterOp,
    /// The column compared.
    pub column: Cow<'static, str>,
    /// The column's type (for `in`, each value's).
    pub ty: ColumnType,
}

/// Records per page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct PageLimit {
    /// When the model asks for no limit.
    pub default: u32,
    /// The most; a larger limit is lowered to it.
    pub max: u32,
}

/// Everything a query tool declares beside what every tool has.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct QueryDecl {
    /// The table or view (`orders`, `sales.orders`).
    pub source: Cow<'static, str>,
    /// The record's columns, in spec order.
    pub record: Cow<'static, [RecordColumn]>,
    /// The scope: never empty.
    pub scope: Cow<'static, [ScopeColumn]>,
    /// The filters, in spec order.
    pub filters: Cow<'static, [FilterColumn]>,
    /// The record fields the model may sort by.
    pub sorts: Cow<'static, [Cow<'static, str>]>,
    /// The sort applied when the model names none (or one it may not use): `-created_at`.
    pub default_sort: Option<Cow<'static, str>>,
    /// Records per page.
    pub limit: PageLimit,
}

impl QueryDecl {
    /// The filter called `name`.
    pub fn filter(&self, name: &str) -> Option<&FilterColumn> {
        self.filters.iter().find(|f| f.name == name)
    }
}

/// A `ref` field of an action (`type: ref`): the model sends the key; before the guards and
/// the handler, the record it names is loaded within the scope, and a missing or out-of-scope
/// record fails the call as `not_found`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct RefDecl {
    /// The input field.
    pub field: Cow<'static, str>,
    /// The table or view.
    pub source: Cow<'static, str>,
    /// The column the key is matched against.
    pub key: Cow<'static, str>,
    /// The key's type.
    pub key_type: ColumnType,
    /// The record's columns, in spec order.
    pub record: Cow<'static, [RecordColumn]>,
    /// The scope: never empty.
    pub scope: Cow<'static, [ScopeColumn]>,
}

/// A query tool as one adapter shows it, narrowed by the spec's `only_filters`,
/// `except_filters` or `only_sorts` for that adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct QueryView {
    /// The filters the adapter's model may use.
    pub filters: Cow<'static, [Cow<'static, str>]>,
    /// The sorts it may use.
    pub sorts: Cow<'static, [Cow<'static, str>]>,
    /// The description it reads.
    pub description: Cow<'static, str>,
    /// The input schema it is shown, in `mcp` and in the adapter's dialect.
    pub schemas: Cow<'static, [(Dialect, Cow<'static, str>)]>,
}
