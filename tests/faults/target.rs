//! Where a fault test runs: a SQLite file or a scratch PostgreSQL database, seeded by the
//! store; a connection of the test's own beside the server, to inject faults and count what
//! was committed; and the recorded calls.

use serde_json::{Value, json};
use toolspec::audit::AuditRecord;

use crate::support::{Client, Scratch, result};

/// The database a test's servers run on.
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A seeded database for one test, and a folder for the tokens file.
pub struct Target {
    /// What `--db` names.
    pub db: String,
    pub scratch: Scratch,
    postgres: Option<toolspec_test_postgres::Scratch>,
}

impl Target {
    /// A fresh, seeded database on `backend`; `None` when the PostgreSQL half is skipped (never
    /// in CI).
    pub async fn new(backend: Backend) -> Option<Self> {
        let scratch = Scratch::new();
        let (db, postgres) = match backend {
            Backend::Sqlite => (scratch.db().display().to_string(), None),
            Backend::Postgres => {
                let server = toolspec_test_postgres::server_url()?;
                let database = toolspec_test_postgres::Scratch::create(&server).await;
                (database.url().to_owned(), Some(database))
            }
        };
        let target = Self {
            db,
            scratch,
            postgres,
        };
        target.store().await.close().await;
        Some(target)
    }

    /// The store on this database, opened by the test.
    pub async fn store(&self) -> toolspec_store::Store {
        let location: toolspec_store::Location = self.db.parse().expect("a database");
        toolspec_store::Store::open(&location)
            .await
            .expect("the store opens")
    }

    /// The test's own connection.
    pub async fn connect(&self) -> Sql {
        Sql::connect(&self.db).await
    }

    /// Every record of `tool`, newest first.
    pub async fn records(&self, tool: &str) -> Vec<AuditRecord> {
        crate::support::records(&self.db, tool).await
    }

    /// Drops the PostgreSQL database (a SQLite file goes with its folder).
    pub async fn finish(self) {
        if let Some(database) = self.postgres {
            database.drop().await;
        }
    }
}

/// A connection of the test's own to the store's database: plain statements in the SQL both
/// databases read.
pub enum Sql {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

impl Sql {
    async fn connect(db: &str) -> Self {
        if db.starts_with("postgres") {
            let pool = sqlx::postgres::PgPoolOptions::new()
                .max_connections(1)
                .connect(db)
                .await
                .expect("the scratch database");
            Self::Postgres(pool)
        } else {
            let options = sqlx::sqlite::SqliteConnectOptions::new()
                .filename(db)
                .busy_timeout(std::time::Duration::from_secs(10));
            let pool = sqlx::sqlite::SqlitePoolOptions::new()
                .max_connections(1)
                .connect_with(options)
                .await
                .expect("the SQLite file");
            Self::Sqlite(pool)
        }
    }

    /// Runs `sql` (one or more statements without parameters).
    pub async fn execute(&self, sql: &str) {
        let sql = sqlx::AssertSqlSafe(sql.to_owned());
        let done = match self {
            Self::Sqlite(pool) => sqlx::raw_sql(sql).execute(pool).await.map(drop),
            Self::Postgres(pool) => sqlx::raw_sql(sql).execute(pool).await.map(drop),
        };
        done.unwrap_or_else(|e| panic!("{e}"));
    }

    /// The integers of the first column of `sql`'s rows.
    pub async fn integers(&self, sql: &str) -> Vec<i64> {
        let sql = sqlx::AssertSqlSafe(sql.to_owned());
        let rows = match self {
            Self::Sqlite(pool) => sqlx::query_scalar(sql).fetch_all(pool).await,
            Self::Postgres(pool) => sqlx::query_scalar(sql).fetch_all(pool).await,
        };
        rows.unwrap_or_else(|e| panic!("{e}"))
    }

    /// The one integer `sql` answers.
    pub async fn integer(&self, sql: &str) -> i64 {
        let values = self.integers(sql).await;
        assert_eq!(values.len(), 1, "one row: {sql}");
        values[0]
    }

    pub async fn close(self) {
        match self {
            Self::Sqlite(pool) => pool.close().await,
            Self::Postgres(pool) => pool.close().await,
        }
    }

    /// A trigger that makes `toolspec_audit` refuse the rows `condition` picks (an SQL
    /// expression over `NEW`; `TRUE` for every row), and the statement that removes it.
    pub async fn refuse_audit_rows(&self, condition: &str) {
        let sql = match self {
            Self::Sqlite(_) => format!(
                "CREATE TRIGGER refuse_audit BEFORE INSERT ON toolspec_audit WHEN {condition}
                 BEGIN SELECT RAISE(ABORT, 'the audit table refuses writes'); END;"
            ),
            Self::Postgres(_) => format!(
                "CREATE FUNCTION refuse_audit() RETURNS trigger LANGUAGE plpgsql AS $$
                   BEGIN RAISE EXCEPTION 'the audit table refuses writes'; END $$;
                 CREATE TRIGGER refuse_audit BEFORE INSERT ON toolspec_audit
                   FOR EACH ROW WHEN ({condition}) EXECUTE FUNCTION refuse_audit();"
            ),
        };
        self.execute(&sql).await;
    }

    /// Removes the trigger of [`refuse_audit_rows`](Self::refuse_audit_rows).
    pub async fn accept_audit_rows(&self) {
        let sql = match self {
            Self::Sqlite(_) => "DROP TRIGGER refuse_audit;",
            Self::Postgres(_) => {
                "DROP TRIGGER refuse_audit ON toolspec_audit; DROP FUNCTION refuse_audit();"
            }
        };
        self.execute(sql).await;
    }

    /// `count` more delivered orders of customer 1 (copies of order 3 and its lines, 2,399
    /// USD each), numbered from `first`.
    pub async fn add_delivered_orders(&self, first: i64, count: i64) {
        let last = first + count - 1;
        self.execute(&format!(
            "WITH RECURSIVE n(i) AS (SELECT {first} UNION ALL SELECT i + 1 FROM n WHERE i < {last})
             INSERT INTO orders (id, customer_id, status, currency, total, refunded, placed_at)
             SELECT n.i, o.customer_id, 'delivered', o.currency, o.total, 0, o.placed_at
             FROM orders o, n WHERE o.id = 3;
             WITH RECURSIVE n(i) AS (SELECT {first} UNION ALL SELECT i + 1 FROM n WHERE i < {last})
             INSERT INTO order_lines (order_id, position, sku, quantity, unit_price)
             SELECT n.i, l.position, l.sku, l.quantity, l.unit_price
             FROM order_lines l, n WHERE l.order_id = 3;"
        ))
        .await;
    }
}

/// The error code of a failed tool result (from its `_meta`), or `ok`.
pub fn code(answer: &rmcp::model::CallToolResult) -> String {
    if answer.is_error != Some(true) {
        return "ok".into();
    }
    let meta = serde_json::to_value(&answer.meta).unwrap_or(Value::Null);
    meta["toolspec/error"]["error"]
        .as_str()
        .unwrap_or("?")
        .to_owned()
}

/// The error of a failed tool result, as its `_meta` carries it.
pub fn error(answer: &rmcp::model::CallToolResult) -> Value {
    let meta = serde_json::to_value(&answer.meta).unwrap_or(Value::Null);
    meta["toolspec/error"].clone()
}

/// Refunds `amount` of order `order` as Ada.
pub async fn refund(client: &Client, order: i64, amount: i64) -> rmcp::model::CallToolResult {
    result(
        client,
        "orders_refund",
        json!({"order_id": order, "amount": amount}),
    )
    .await
}
