//! The fixture of the query tests: rows of every column type for three tenants, written into a
//! real SQLite file or a fresh PostgreSQL database, and the reference the tool's results are
//! compared with, computed in Rust over the same rows.

#![allow(dead_code)]

use chrono::{DateTime, FixedOffset, NaiveDate, Utc};
use serde_json::{Map, Value, json};
use toolspec::{AmbientContext, CallOptions, Database, Registry, ToolResult};
use toolspec_test_postgres::Scratch;
pub use toolspec_test_postgres::server_url as postgres_url;

/// One row of `items`.
#[derive(Debug, Clone)]
pub struct Row {
    pub id: i64,
    pub tenant: i64,
    pub name: String,
    pub category: &'static str,
    pub price: i64,
    pub weight: Option<f64>,
    pub active: bool,
    pub code: String,
    pub day: NaiveDate,
    /// As SQLite stores it: RFC 3339 with the row's own offset and fraction.
    pub at: String,
}

impl Row {
    pub fn instant(&self) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(&self.at)
            .expect("fixture date-time")
            .with_timezone(&Utc)
    }
}

/// Names full of what SQL and LIKE treat specially, quotes, Unicode and a long one.
pub const NAMES: &[&str] = &[
    "alpha",
    "Alpha",
    "alphabet",
    "a%b",
    "a_b",
    "a\\b",
    "ab",
    "it's",
    "\"quoted\"",
    "100%",
    "_",
    "%",
    "%%",
    "ünïcödé 日本",
    "emoji 🎉",
    "",
    "DROP TABLE items; --",
    "a'b'c",
    "tab\there",
    "new\nline",
    "Z",
    "zeta",
    "Ω",
];

pub const CATEGORIES: &[&str] = &["tools", "toys", "food"];

/// A small deterministic generator, so every run reads the same rows.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// 90 rows for tenants 1 to 3 (and 10 for tenant 9, whom no test case is).
pub fn rows() -> Vec<Row> {
    let mut g = Lcg(7);
    let offsets = ["Z", "+00:00", "+02:00", "-05:00", "+05:30"];
    (1..=100)
        .map(|id| {
            let tenant = if id > 90 { 9 } else { 1 + (id % 3) };
            let mut name = NAMES[g.below(NAMES.len() as u64) as usize].to_owned();
            if g.below(20) == 0 {
                name = "x".repeat(1_000 + g.below(500) as usize);
            }
            let day = NaiveDate::from_ymd_opt(2025, 1 + g.below(12) as u32, 1 + g.below(28) as u32)
                .expect("valid date");
            let seconds = 1_767_225_600 + g.below(86_400 * 40) as i64;
            let millis = if g.below(3) == 0 { g.below(1000) } else { 0 };
            let offset = offsets[g.below(offsets.len() as u64) as usize];
            let east = match offset {
                "Z" | "+00:00" => 0,
                "+02:00" => 7_200,
                "-05:00" => -18_000,
                _ => 19_800,
            };
            let at = DateTime::from_timestamp(seconds, millis as u32 * 1_000_000)
                .expect("valid instant")
                .with_timezone(&FixedOffset::east_opt(east).expect("valid offset"));
            let mut at = at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, false);
            if offset == "Z" {
                at = at.replace("+00:00", "Z");
            }
            Row {
                id,
                tenant,
                name,
                category: CATEGORIES[g.below(3) as usize],
                price: g.below(10_000) as i64 - 100,
                weight: (g.below(4) != 0).then(|| (g.below(100_000) as f64) / 7.0),
                active: g.below(2) == 0,
                code: format!("00000000-0000-4000-8000-{:012x}", g.below(20)),
                day,
                at,
            }
        })
        .collect()
}

/// A database with the rows, and the registry of the crate's tools over it.
pub struct Fixture {
    pub rows: Vec<Row>,
    pub registry: Registry,
    pub database: Database,
    /// Keeps the SQLite file alive.
    _dir: Option<tempfile::TempDir>,
    /// The scratch PostgreSQL database, when the rows are there.
    postgres: Option<Scratch>,
}

impl Fixture {
    /// The rows in a new SQLite file.
    pub async fn sqlite() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let url = format!(
            "sqlite://{}?mode=rwc",
            dir.path().join("items.db").display()
        );
        let pool = sqlx::SqlitePool::connect(&url).await.expect("SQLite opens");
        sqlx::query(toolspec_test_query::schema(true))
            .execute(&pool)
            .await
            .expect("schema");
        let rows = rows();
        for row in &rows {
            sqlx::query("INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
                .bind(row.id)
                .bind(row.tenant)
                .bind(&row.name)
                .bind(row.category)
                .bind(row.price)
                .bind(row.weight)
                .bind(row.active)
                .bind(&row.code)
                .bind(row.day.format("%Y-%m-%d").to_string())
                .bind(&row.at)
                .execute(&pool)
                .await
                .expect("insert");
        }
        let database = Database::sqlite(pool);
        Self {
            registry: toolspec_test_query::tools::registry(
                toolspec_test_query::Items,
                database.clone(),
            ),
            database,
            rows,
            _dir: Some(dir),
            postgres: None,
        }
    }

    /// The rows in a scratch database on the PostgreSQL server at `url`.
    pub async fn postgres(url: &str) -> Self {
        let scratch = Scratch::create(url).await;
        let pool = sqlx::PgPool::connect(scratch.url()).await.expect("connect");
        sqlx::query(toolspec_test_query::schema(false))
            .execute(&pool)
            .await
            .expect("schema");
        let rows = rows();
        for row in &rows {
            sqlx::query(
                "INSERT INTO items VALUES ($1, $2, $3, $4, $5, $6, $7, $8::uuid, $9::date, $10::timestamptz)",
            )
            .bind(row.id)
            .bind(row.tenant)
            .bind(&row.name)
            .bind(row.category)
            .bind(row.price as i32)
            .bind(row.weight)
            .bind(row.active)
            .bind(&row.code)
            .bind(row.day.format("%Y-%m-%d").to_string())
            .bind(&row.at)
            .execute(&pool)
            .await
            .expect("insert");
        }
        let database = Database::postgres(pool);
        Self {
            registry: toolspec_test_query::tools::registry(
                toolspec_test_query::Items,
                database.clone(),
            ),
            database,
            rows,
            _dir: None,
            postgres: Some(scratch),
        }
    }

    /// Drops the PostgreSQL database the fixture created (a test that fails before this
    /// leaves it, to look at).
    pub async fn finish(self) {
        drop((self.registry, self.database));
        if let Some(scratch) = self.postgres {
            scratch.drop().await;
        }
    }

    /// Calls `items_search` as `tenant`, through `adapter` (or none).
    pub async fn call(&self, args: &Value, tenant: i64, adapter: Option<&str>) -> ToolResult {
        let ambient = AmbientContext::from([("tenant", tenant)]);
        let options = CallOptions {
            adapter: adapter.map(str::to_owned),
            ..CallOptions::default()
        };
        let tool = self
            .registry
            .get("items_search")
            .expect("the tool is registered");
        tool.invoke_with(args.clone(), &ambient, options).await
    }
}

/// What a call must give: refused as invalid, or this page.
#[derive(Debug, Clone, PartialEq)]
pub enum Expected {
    Invalid,
    Page {
        ids: Vec<i64>,
        total: usize,
        limit: u64,
        offset: u64,
    },
}

/// What a filter is, for the reference.
pub struct FilterDef {
    pub name: &'static str,
    pub hidden_on_openai: bool,
}

pub const FILTERS: &[FilterDef] = &[
    FilterDef {
        name: "name",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "name_not",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "name_contains",
        hidden_on_openai: true,
    },
    FilterDef {
        name: "name_prefix",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "category",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "price_min",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "price_below",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "price_upto",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "price_over",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "weight_max",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "active",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "code",
        hidden_on_openai: true,
    },
    FilterDef {
        name: "day_from",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "at_before",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "at_after",
        hidden_on_openai: false,
    },
    FilterDef {
        name: "ids",
        hidden_on_openai: false,
    },
];

/// Whether `row` passes filter `name` with `value` (a value of the right type), or `None`
/// when the value does not fit the filter.
fn passes(row: &Row, name: &str, value: &Value) -> Option<bool> {
    let text = || value.as_str();
    let instant = || {
        DateTime::parse_from_rfc3339(value.as_str()?)
            .ok()
            .map(|t| t.with_timezone(&Utc))
    };
    Some(match name {
        "name" => row.name == text()?,
        "name_not" => row.name != text()?,
        "name_contains" => row.name.contains(text()?),
        "name_prefix" => row.name.starts_with(text()?),
        "category" => {
            let list = value.as_array()?;
            let mut wanted = Vec::new();
            for item in list {
                let item = item.as_str()?;
                if !CATEGORIES.contains(&item) {
                    return None;
                }
                wanted.push(item);
            }
            wanted.contains(&row.category)
        }
        "price_min" => row.price >= value.as_i64()?,
        "price_below" => row.price < value.as_i64()?,
        "price_upto" => row.price <= value.as_i64()?,
        "price_over" => row.price > value.as_i64()?,
        "weight_max" => {
            let max = value.as_f64()?;
            row.weight.is_some_and(|w| w <= max)
        }
        "active" => row.active == value.as_bool()?,
        "code" => {
            let code = text()?.to_lowercase();
            let hyphens = [8, 13, 18, 23];
            let uuid = code.len() == 36
                && code.char_indices().all(|(i, c)| {
                    if hyphens.contains(&i) {
                        c == '-'
                    } else {
                        c.is_ascii_hexdigit()
                    }
                });
            uuid.then_some(())?;
            row.code == code
        }
        "day_from" => row.day >= NaiveDate::parse_from_str(text()?, "%Y-%m-%d").ok()?,
        "at_before" => row.instant() < instant()?,
        "at_after" => row.instant() > instant()?,
        "ids" => {
            let ids: Option<Vec<i64>> = value.as_array()?.iter().map(Value::as_i64).collect();
            ids?.contains(&row.id)
        }
        _ => return None,
    })
}

/// The page a call of `items_search` with `args` as `tenant` through `adapter` must give.
pub fn reference(
    rows: &[Row],
    args: &Map<String, Value>,
    tenant: i64,
    adapter: Option<&str>,
) -> Expected {
    let openai = adapter == Some("openai");
    let whole = |key: &str| -> Result<Option<i128>, ()> {
        match args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .map(i128::from)
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i128))
                .map(Some)
                .ok_or(()),
            Some(Value::String(s)) => s.trim().parse::<i128>().map(Some).map_err(|_| ()),
            Some(_) => Err(()),
        }
    };
    let (Ok(limit), Ok(offset)) = (whole("limit"), whole("offset")) else {
        return Expected::Invalid;
    };
    let limit = limit.map_or(10, |l| l.clamp(1, 25)) as u64;
    let offset = offset.map_or(0, |o| o.max(0)) as u64;
    let mut matching: Vec<&Row> = rows.iter().filter(|r| r.tenant == tenant).collect();
    for (key, value) in args {
        if ["limit", "offset", "sort"].contains(&key.as_str()) || value.is_null() {
            continue;
        }
        let Some(def) = FILTERS.iter().find(|f| f.name == key) else {
            return Expected::Invalid;
        };
        if openai && def.hidden_on_openai {
            return Expected::Invalid;
        }
        let nul = |v: &Value| v.as_str().is_some_and(|s| s.contains('\0'));
        if nul(value) || value.as_array().is_some_and(|items| items.iter().any(nul)) {
            return Expected::Invalid;
        }
        let Some(first) = rows.first() else { continue };
        if passes(first, key, value).is_none() {
            return Expected::Invalid;
        }
        matching.retain(|r| passes(r, key, value) == Some(true));
    }
    let sorts: &[&str] = if openai {
        &["price"]
    } else {
        &["name", "price", "weight", "day", "at", "id"]
    };
    let sort = args
        .get("sort")
        .and_then(Value::as_str)
        .filter(|s| sorts.contains(&s.trim_start_matches('-')))
        .unwrap_or("-at");
    let descending = sort.starts_with('-');
    let column = sort.trim_start_matches('-');
    matching.sort_by(|a, b| {
        use std::cmp::Ordering;
        let nulls_last = |x: Option<f64>, y: Option<f64>| match (x, y) {
            (Some(x), Some(y)) => {
                let o = x.total_cmp(&y);
                if descending { o.reverse() } else { o }
            }
            (None, None) => Ordering::Equal,
            (None, Some(_)) => Ordering::Greater,
            (Some(_), None) => Ordering::Less,
        };
        let primary = match column {
            "weight" => return nulls_last(a.weight, b.weight).then(a.id.cmp(&b.id)),
            "name" => a.name.cmp(&b.name),
            "price" => a.price.cmp(&b.price),
            "day" => a.day.cmp(&b.day),
            "at" => a.instant().cmp(&b.instant()),
            _ => a.id.cmp(&b.id),
        };
        let primary = if descending {
            primary.reverse()
        } else {
            primary
        };
        primary.then(a.id.cmp(&b.id))
    });
    let total = matching.len();
    let ids = matching
        .iter()
        .skip(offset as usize)
        .take(limit as usize)
        .map(|r| r.id)
        .collect();
    Expected::Page {
        ids,
        total,
        limit,
        offset,
    }
}

/// What a call gave, in the reference's terms; every record is checked against its row.
pub fn observed(result: &ToolResult, rows: &[Row], tenant: i64) -> Expected {
    let page = match &result.outcome {
        Ok(page) => page,
        Err(error) if error.code == "invalid_arguments" => return Expected::Invalid,
        Err(error) => panic!("unexpected failure {error:?}: {:?}", result.exception),
    };
    let records = page["records"].as_array().expect("records");
    let mut ids = Vec::new();
    for record in records {
        let id = record["id"].as_i64().expect("id");
        let row = rows.iter().find(|r| r.id == id).expect("a known row");
        assert_eq!(
            row.tenant, tenant,
            "row {id} of tenant {} leaked to tenant {tenant}",
            row.tenant
        );
        assert_eq!(record["name"], json!(row.name));
        assert_eq!(record["category"], json!(row.category));
        assert_eq!(record["price"], json!(row.price));
        assert_eq!(record["weight"].as_f64(), row.weight);
        assert_eq!(record["active"], json!(row.active));
        assert_eq!(record["code"], json!(row.code));
        assert_eq!(record["day"], json!(row.day.format("%Y-%m-%d").to_string()));
        let at =
            DateTime::parse_from_rfc3339(record["at"].as_str().expect("at")).expect("RFC 3339");
        assert_eq!(at.with_timezone(&Utc), row.instant());
        assert_eq!(
            record.as_object().map(Map::len),
            Some(9),
            "only the record's fields"
        );
        ids.push(id);
    }
    Expected::Page {
        ids,
        total: page["total"].as_u64().expect("total") as usize,
        limit: page["limit"].as_u64().expect("limit"),
        offset: page["offset"].as_u64().expect("offset"),
    }
}
