//! Durable tasks, measured: enqueue latency (p50, p99) of a call stored as a task; tasks per
//! second drained by one worker, and on PostgreSQL by two (two registries on two pools, as two
//! replicas would be); the CPU an idle worker uses with an empty queue. The tool does nothing,
//! so what is measured is the queue and the pipeline around it. The tasks are those of one
//! caller, then of many in turn (each claim then weighs the callers' running tasks).
//!
//! `toolspec-bench-tasks [--postgres URL] [--tasks N] [--callers N]` (SQLite on a temporary
//! file always; PostgreSQL when a URL is given: a scratch schema is not created, use an empty
//! database).

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Parser;
use serde_json::json;
use toolspec::tasks::{Accept, Submitted};
use toolspec::{AmbientContext, CallOptions, Caller, Database, Registry};

toolspec::include_tools!();

/// The handler: answers its input.
struct Jobs;

impl tools::job::Handler for Jobs {
    async fn call(
        &self,
        input: tools::job::Input,
        _cx: tools::job::Context<'_>,
    ) -> tools::job::Outcome {
        Ok(tools::job::Output { n: input.n })
    }
}

#[derive(Parser)]
struct Args {
    /// A PostgreSQL database to measure on too (emptied of toolspec's tasks first).
    #[arg(long)]
    postgres: Option<String>,
    /// How many tasks each run enqueues.
    #[arg(long, default_value_t = 2000)]
    tasks: usize,
    /// How many callers the many-caller runs spread the tasks over.
    #[arg(long, default_value_t = 50)]
    callers: usize,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("tasks.db");
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&file)
        .create_if_missing(true)
        .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal);
    let sqlite = sqlx::SqlitePool::connect_with(options).await?;
    let database = Database::sqlite(sqlite.clone());
    for callers in [1, args.callers] {
        println!("== SQLite (one file, WAL), {callers} caller(s)");
        let run = Run {
            tasks: args.tasks,
            callers,
        };
        measure(vec![database.clone()], &Pool::Sqlite(sqlite.clone()), run).await?;
    }
    if let Some(url) = &args.postgres {
        for replicas in [1, 2] {
            let mut databases = Vec::new();
            let mut pools = Vec::new();
            for _ in 0..replicas {
                let pool = sqlx::postgres::PgPoolOptions::new()
                    .max_connections(10)
                    .connect(url)
                    .await
                    .context("connecting to PostgreSQL")?;
                databases.push(Database::postgres(pool.clone()));
                pools.push(pool);
            }
            for callers in [1, args.callers] {
                println!("== PostgreSQL, {replicas} worker(s), {callers} caller(s)");
                let run = Run {
                    tasks: args.tasks,
                    callers,
                };
                let pool = Pool::Postgres(pools[0].clone());
                measure(databases.clone(), &pool, run).await?;
            }
        }
    }
    Ok(())
}

/// One measured run: how many tasks, of how many callers in turn.
#[derive(Clone, Copy)]
struct Run {
    tasks: usize,
    callers: usize,
}

/// Enqueues the run's tasks through the first registry, then starts every registry's worker and
/// waits until the queue is drained; then measures idle seconds.
async fn measure(databases: Vec<Database>, pool: &Pool, run: Run) -> anyhow::Result<()> {
    let Run { tasks, callers } = run;
    let registries: Vec<Arc<Registry>> = databases
        .iter()
        .map(|d| Arc::new(tools::registry(Jobs, d.clone())))
        .collect();
    let first = &registries[0];
    let tool = first.get("job").context("the job tool")?;
    let caller = Caller::new("bench");
    let callers: Vec<Caller> = (0..callers.max(1))
        .map(|i| Caller::new(format!("bench-{i}")))
        .collect();
    let ambient = AmbientContext::new();
    // Warm up (migrations, the pool), then empty the queue of earlier runs.
    let _ = tool
        .submit_with(
            json!({ "n": 0 }),
            &ambient,
            CallOptions::for_caller("bench", &caller),
            Accept::Tasks,
        )
        .await;
    clear(pool).await?;
    let mut latencies = Vec::with_capacity(tasks);
    let started = Instant::now();
    for n in 0..tasks {
        let options = CallOptions::for_caller("bench", &callers[n % callers.len()]);
        let at = Instant::now();
        let submitted = tool
            .submit_with(json!({ "n": n }), &ambient, options, Accept::Tasks)
            .await;
        latencies.push(at.elapsed());
        anyhow::ensure!(
            matches!(submitted, Submitted::Task(_)),
            "not enqueued: {submitted:?}"
        );
    }
    let enqueued = started.elapsed();
    latencies.sort();
    let percentile = |p: f64| latencies[((latencies.len() as f64 - 1.0) * p) as usize];
    println!(
        "enqueue: {tasks} in {:.2} s; p50 {:.0} µs, p99 {:.0} µs",
        enqueued.as_secs_f64(),
        percentile(0.50).as_secs_f64() * 1e6,
        percentile(0.99).as_secs_f64() * 1e6
    );
    let started = Instant::now();
    for registry in &registries {
        registry.start_tasks();
    }
    loop {
        if working(pool).await? == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let drained = started.elapsed();
    println!(
        "drained by {} worker(s): {:.2} s, {:.0} tasks/s",
        registries.len(),
        drained.as_secs_f64(),
        tasks as f64 / drained.as_secs_f64()
    );
    // Idle: the workers wait on an empty queue.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (cpu, wall) = (cpu_time()?, Instant::now());
    tokio::time::sleep(Duration::from_secs(10)).await;
    let used = cpu_time()? - cpu;
    println!(
        "idle: {:.2} ms of CPU per second ({} worker(s), empty queue, {:.0} s)",
        used.as_secs_f64() * 1e3 / wall.elapsed().as_secs_f64(),
        registries.len(),
        wall.elapsed().as_secs_f64()
    );
    Ok(())
}

/// The bench's own connection to the database measured.
enum Pool {
    Sqlite(sqlx::SqlitePool),
    Postgres(sqlx::PgPool),
}

/// How many tasks have not ended.
async fn working(pool: &Pool) -> anyhow::Result<i64> {
    let sql = "SELECT COUNT(*) FROM toolspec_tasks WHERE status = 'working'";
    Ok(match pool {
        Pool::Sqlite(pool) => sqlx::query_scalar(sql).fetch_one(pool).await?,
        Pool::Postgres(pool) => sqlx::query_scalar(sql).fetch_one(pool).await?,
    })
}

/// Deletes every task.
async fn clear(pool: &Pool) -> anyhow::Result<()> {
    let sql = "DELETE FROM toolspec_tasks";
    match pool {
        Pool::Sqlite(pool) => sqlx::query(sql).execute(pool).await.map(|_| ())?,
        Pool::Postgres(pool) => sqlx::query(sql).execute(pool).await.map(|_| ())?,
    }
    Ok(())
}

/// This process's CPU time (user and system), from `/proc/self/stat`.
fn cpu_time() -> anyhow::Result<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest)
        .unwrap_or("")
        .split_whitespace()
        .collect();
    // utime and stime are the 14th and 15th fields (the 12th and 13th after the name).
    let ticks: u64 = fields.get(11).and_then(|f| f.parse().ok()).unwrap_or(0)
        + fields.get(12).and_then(|f| f.parse().ok()).unwrap_or(0);
    // Linux reports them in clock ticks of 1/100 s.
    Ok(Duration::from_millis(ticks * 10))
}
