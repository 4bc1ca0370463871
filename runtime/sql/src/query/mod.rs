//! The query engine of query tools and `ref` fields: the SQL built with sea-query (`sql`), rows
//! decoded into records (`rows`), the statements run on the [`Database`](crate::Database)
//! (`execute`).

pub(crate) mod execute;
pub(crate) mod rows;
pub(crate) mod sql;
