//! What a query tool (`kind: query`) and an action's `ref` field declare: the vocabulary's
//! model (see `descriptor`), and the query words (column types, filter operators).

pub use crate::descriptor::{
    FilterColumn, PageLimit, QueryDecl, QueryView, RecordColumn, RefDecl, ScopeColumn,
};
pub use toolspec_vocab::query::{ColumnType, FilterOp};
