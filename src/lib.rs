//! The example store: a small order system over SQLite or PostgreSQL whose operations are LLM-agent tools,
//! compiled from the YAML specs in `specs/` by `build.rs`. The `toolspec-store` binary serves
//! them (MCP over stdio or HTTP, the HTTP API, and an agent at `POST /agent`) and calls them
//! from the command line; the `agent` example hands them to an LLM through rig ([`agent`]).
//!
//! ```no_run
//! # async fn run() -> anyhow::Result<()> {
//! let location: toolspec_store::Location = "store.db".parse().map_err(anyhow::Error::msg)?;
//! let store = toolspec_store::Store::open(&location).await?;
//! let registry = toolspec_store::registry(store);
//! assert!(registry.get("orders_get").is_some());
//! # Ok(()) }
//! ```

toolspec::include_tools!();

pub mod agent;
pub mod handlers;
pub mod store;
#[cfg(test)]
mod tests;

pub use handlers::App;
pub use store::{Location, Store};

/// The store's tools: the actions bound to an [`App`] over `store`, the query tools reading
/// its database.
pub fn registry(store: Store) -> toolspec::Registry {
    let database = store.database();
    tools::registry(App::new(store), database)
}
