//! The PostgreSQL half of the tests: the server `TOOLSPEC_TEST_POSTGRES_URL` names (`.ci/postgres`
//! starts one), and a scratch database per test on it; and a cluster of a test's own, for the
//! tests that stop the server and start it again ([`Cluster`]).
//!
//! With `CI` set the server is required, so those tests fail rather than skip there; a
//! developer without one runs the SQLite half and is told the PostgreSQL half was skipped.

mod cluster;

pub use cluster::Cluster;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::{AssertSqlSafe, Connection, PgConnection};

/// The server's URL: required when `CI` is set (panics without it), else optional.
pub fn server_url() -> Option<String> {
    match std::env::var("TOOLSPEC_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var_os("CI").is_some() => {
            panic!("CI is set but TOOLSPEC_TEST_POSTGRES_URL is not: the PostgreSQL tests must run")
        }
        _ => {
            eprintln!("TOOLSPEC_TEST_POSTGRES_URL is not set: skipping the PostgreSQL half");
            None
        }
    }
}

/// A database of its own for one test, created with the `C` collation (text sorts by code
/// point, as in SQLite and Rust). [`Scratch::drop`] removes it; a test that fails first leaves
/// it behind, to look at.
#[derive(Debug)]
pub struct Scratch {
    server: String,
    name: String,
    url: String,
}

impl Scratch {
    /// A new, empty database on the server at `server`.
    pub async fn create(server: &str) -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let stamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_micros());
        let name = format!(
            "toolspec_test_{}_{stamp}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut admin = connect(server).await;
        let create = format!(
            "CREATE DATABASE {name} TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'"
        );
        sqlx::query(AssertSqlSafe(create))
            .execute(&mut admin)
            .await
            .unwrap_or_else(|e| panic!("could not create database {name}: {e}"));
        let base = server.rsplit_once('/').map_or(server, |(base, _)| base);
        Self {
            url: format!("{base}/{name}"),
            server: server.to_owned(),
            name,
        }
    }

    /// The scratch database's URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Drops the database, closing whatever connections are still open on it.
    pub async fn drop(self) {
        let mut admin = connect(&self.server).await;
        let drop = format!("DROP DATABASE {} WITH (FORCE)", self.name);
        sqlx::query(AssertSqlSafe(drop))
            .execute(&mut admin)
            .await
            .unwrap_or_else(|e| panic!("could not drop database {}: {e}", self.name));
    }
}

/// Runs `test` on a pool of a new [`Scratch`] database of the server (see [`server_url`]), then
/// closes the pool and drops the database; without a server (outside CI) it does nothing.
pub async fn with_scratch_pool(test: impl AsyncFnOnce(sqlx::PgPool)) {
    let Some(server) = server_url() else {
        return;
    };
    let scratch = Scratch::create(&server).await;
    let pool = sqlx::PgPool::connect(scratch.url())
        .await
        .unwrap_or_else(|e| panic!("could not connect to {}: {e}", scratch.name));
    test(pool.clone()).await;
    pool.close().await;
    scratch.drop().await;
}

async fn connect(server: &str) -> PgConnection {
    PgConnection::connect(server).await.unwrap_or_else(|e| {
        panic!("PostgreSQL at TOOLSPEC_TEST_POSTGRES_URL is not reachable: {e}")
    })
}
