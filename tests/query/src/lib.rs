//! A crate with a query tool over a table of every column type, for the query tests and
//! benchmark: `items_search`, scoped to the caller's tenant; and an action taking one of
//! those items as a `ref` field: `items_rename`.

toolspec::include_tools!();

use tools::items::rename;

/// The handler of `items_rename`: it answers from the record the `ref` field loaded (it does
/// not write, so the fixture stays as it is).
#[derive(Debug, Clone, Copy, Default)]
pub struct Items;

impl rename::Handler for Items {
    async fn call(&self, input: rename::Input, _cx: rename::Context<'_>) -> rename::Outcome {
        Ok(rename::Output {
            id: input.item.id,
            old_name: input.item.name,
            name: input.name,
        })
    }

    async fn affordable(&self, input: &rename::Input, _cx: &rename::Context<'_>) -> bool {
        input.item.price < 5_000
    }
}

/// The table the tool reads, for SQLite (`sqlite`) or PostgreSQL.
pub fn schema(sqlite: bool) -> &'static str {
    if sqlite {
        "CREATE TABLE items (
            id INTEGER PRIMARY KEY, tenant_id INTEGER NOT NULL, name TEXT NOT NULL,
            category TEXT NOT NULL, price INTEGER NOT NULL, weight REAL, active INTEGER NOT NULL,
            code TEXT NOT NULL, day TEXT NOT NULL, at TEXT NOT NULL
        )"
    } else {
        "CREATE TABLE items (
            id BIGINT PRIMARY KEY, tenant_id BIGINT NOT NULL, name TEXT NOT NULL,
            category TEXT NOT NULL, price INTEGER NOT NULL, weight DOUBLE PRECISION,
            active BOOLEAN NOT NULL, code UUID NOT NULL, day DATE NOT NULL, at TIMESTAMPTZ NOT NULL
        )"
    }
}
