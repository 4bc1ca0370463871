//! The query engine of query tools (`kind: query`): paging arguments taken first
//! (`paging`), the SQL built with sea-query (`sql`), rows decoded into records (`rows`), the
//! statements run on the [`Database`](crate::Database) (`execute`), the operation the registry
//! runs (`operation`), and the records `ref` fields load (`reference`).

pub(crate) mod execute;
pub(crate) mod operation;
pub(crate) mod paging;
pub(crate) mod reference;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) mod rows;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) mod sql;
