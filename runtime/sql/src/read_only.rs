//! Connections that may only read, for the handlers of a read-only deployment
//! ([`Registry::read_only`](toolspec_core::Registry::read_only)): a statement that writes is
//! refused by the database itself, so a handler hinted `read_only` that writes anyway fails
//! loudly instead of writing.
//!
//! - SQLite: the file is opened read-only (`SQLITE_OPEN_READONLY`) and `query_only` is set;
//!   an in-memory database cannot be shared with a second, read-only connection.
//! - PostgreSQL: every transaction is read-only (`default_transaction_read_only`). Code that
//!   turns it off again can still write: for a guarantee against that, connect as a role
//!   that holds only `SELECT` grants.
//!
//! ```
//! # #[cfg(feature = "sqlite")] {
//! use toolspec_sql::sqlx::sqlite::SqliteConnectOptions;
//! let options = toolspec_sql::read_only::sqlite(SqliteConnectOptions::new().filename("shop.db"));
//! assert!(options.get_filename().ends_with("shop.db"));
//! # }
//! ```

/// `options` for connections that only read a SQLite file.
#[cfg(feature = "sqlite")]
pub fn sqlite(options: sqlx::sqlite::SqliteConnectOptions) -> sqlx::sqlite::SqliteConnectOptions {
    options
        .read_only(true)
        .create_if_missing(false)
        .pragma("query_only", "ON")
}

/// `options` for connections whose every transaction is read-only.
#[cfg(feature = "postgres")]
pub fn postgres(options: sqlx::postgres::PgConnectOptions) -> sqlx::postgres::PgConnectOptions {
    options.options([("default_transaction_read_only", "on")])
}
