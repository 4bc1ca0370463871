//! What the pipeline does for query tools (`kind: query`) and `ref` fields, whatever the
//! storage: paging arguments taken first (`paging`), the operation the registry runs for a
//! query tool (`operation`, over [`QueryExecutor`](crate::storage::QueryExecutor)), and the
//! records `ref` fields load (`reference`, over [`RecordSource`](crate::storage::RecordSource)).

pub(crate) mod operation;
pub(crate) mod paging;
pub(crate) mod reference;
