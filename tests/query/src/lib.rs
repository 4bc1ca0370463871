//! A crate with one query tool over a table of every column type, for the query tests and
//! benchmark: `items_search`, scoped to the caller's tenant.

toolspec::include_tools!();

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
