//! The README's adopter crates — the minimal one, and the one with a database — each taken out
//! of the README and built as a crate of its own, then served: their files cannot drift from
//! what compiles and runs.
//!
//! A crate's files are the fenced blocks between `<!-- adopter-crate:begin -->` and
//! `<!-- adopter-crate:end -->`, each naming its path on its first line (`# Cargo.toml`,
//! `// src/main.rs: …`). Each crate is built with cargo, offline, against this workspace's
//! `toolspec` and `toolspec-codegen` (its `git` dependencies become paths) and the workspace's
//! lock file, in a target folder under `target/` that the crates share.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

type Client = rmcp::service::RunningService<rmcp::RoleClient, ()>;

const BEGIN: &str = "<!-- adopter-crate:begin -->";
const END: &str = "<!-- adopter-crate:end -->";

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Each block of the README's `n`th adopter section (from 0): its path and its text.
fn files(readme: &str, n: usize) -> Vec<(String, String)> {
    let mut start = 0;
    for _ in 0..=n {
        start += readme[start..]
            .find(BEGIN)
            .unwrap_or_else(|| panic!("the README has {} adopter sections", n + 1))
            + BEGIN.len();
    }
    let end = readme[start..].find(END).expect("the section ends") + start;
    let mut files = Vec::new();
    let mut lines = readme[start..end].lines();
    while let Some(line) = lines.next() {
        if !line.starts_with("```") {
            continue;
        }
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| !l.starts_with("```"))
            .collect();
        let first = body.first().copied().unwrap_or_default();
        let named = first
            .trim_start_matches("//")
            .trim_start_matches('#')
            .split_whitespace()
            .next()
            .unwrap_or_default()
            .trim_end_matches(':');
        assert!(
            !named.is_empty() && !named.starts_with('/') && !named.contains(".."),
            "a block's first line names its file: `{first}`"
        );
        files.push((named.to_owned(), body.join("\n") + "\n"));
    }
    files
}

/// The README's `Cargo.toml`, depending on this workspace instead of the repository.
fn local(manifest: &str) -> String {
    let runtime = workspace().join("runtime/toolspec");
    let codegen = workspace().join("codegen");
    let manifest = manifest
        .replace(
            r#"toolspec = { git = "https://github.com/toolspec/toolspec""#,
            &format!("toolspec = {{ path = {:?}", runtime.display().to_string()),
        )
        .replace(
            r#"toolspec-codegen = { git = "https://github.com/toolspec/toolspec" }"#,
            &format!(
                "toolspec-codegen = {{ path = {:?} }}",
                codegen.display().to_string()
            ),
        );
    assert!(
        manifest.contains("toolspec = { path") && manifest.contains("toolspec-codegen = { path"),
        "the README's Cargo.toml names toolspec and toolspec-codegen by the repository:\n{manifest}"
    );
    // A crate of its own, not a member of this workspace.
    manifest + "\n[workspace]\n"
}

/// Writes the README's `n`th crate, builds it, and returns its binary, `name`.
fn build(n: usize, name: &str) -> PathBuf {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let files = files(&readme, n);
    let names: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    for wanted in ["Cargo.toml", "build.rs", "src/lib.rs", "src/main.rs"] {
        assert!(
            names.contains(&wanted),
            "the README's crate has {wanted}: {names:?}"
        );
    }
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("target/")
        .join("readme-adopter");
    let dir = target.join(name);
    let _ = std::fs::remove_dir_all(&dir);
    for (path, text) in &files {
        let text = if path == "Cargo.toml" {
            local(text)
        } else {
            text.clone()
        };
        let file = dir.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let out = std::process::Command::new(env!("CARGO"))
        .args(["build", "--offline", "--quiet"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &target)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "the README's crate does not build:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let warnings = String::from_utf8_lossy(&out.stderr);
    assert!(
        !warnings.contains("warning"),
        "it builds without warnings:\n{warnings}"
    );
    target.join("debug").join(name)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_crate_builds_and_serves_its_tools_over_mcp() {
    let binary = tokio::task::spawn_blocking(|| build(0, "notes-server"))
        .await
        .unwrap();
    let (client, names) = connect(tokio::process::Command::new(&binary)).await;
    // The server introduces itself as the crate its tools were compiled into.
    let info = client.peer_info().expect("the server's initialize result");
    let server = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(
        (server.name.as_str(), server.version.as_str()),
        ("notes-server", "0.1.0")
    );
    assert_eq!(names, ["explain", "notes_add", "notes_list"]);
    let call = |name, arguments| call(&client, name, arguments);
    assert_eq!(
        call("notes_add", json!({"text": "buy milk"})).await,
        json!({"note": {"id": 1, "text": "buy milk"}})
    );
    assert_eq!(
        call("notes_list", json!({})).await,
        json!({"notes": [{"id": 1, "text": "buy milk"}]})
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_crate_with_a_database_queries_renews_once_and_records() {
    let binary = tokio::task::spawn_blocking(|| build(1, "loans-server"))
        .await
        .unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let file = scratch.path().join("loans.db");
    let mut command = tokio::process::Command::new(&binary);
    command.arg(&file);
    let (client, names) = connect(command).await;
    assert_eq!(names, ["explain", "loans_renew", "loans_search"]);
    let call = |name, arguments| call(&client, name, arguments);
    let due = |page: Value| -> Vec<(String, String)> {
        let records = page["records"].as_array().cloned().unwrap_or_default();
        records
            .iter()
            .map(|r| {
                (
                    r["title"].as_str().unwrap().to_owned(),
                    r["due_on"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    let all = call("loans_search", json!({})).await;
    assert_eq!(
        due(all),
        [
            ("Dune".to_owned(), "2026-03-15".to_owned()),
            ("Emma".to_owned(), "2026-04-01".to_owned())
        ],
        "the member's loans only"
    );
    let soon = call("loans_search", json!({"due_before": "2026-03-20"})).await;
    assert_eq!(due(soon), [("Dune".to_owned(), "2026-03-15".to_owned())]);
    let renewed = call("loans_renew", json!({"loan": 1})).await;
    assert_eq!(renewed, json!({"due_on": "2026-03-29"}));
    let again = call("loans_renew", json!({"loan": 1})).await;
    assert_eq!(again, renewed, "`once`: renewed once");
    let emma = call("loans_renew", json!({"loan": 2})).await;
    assert_eq!(emma["error"], "renewable", "{emma}");
    let theirs = call("loans_renew", json!({"loan": 3})).await;
    assert_eq!(theirs["error"], "not_found", "{theirs}");
    client.cancel().await.unwrap();

    // What the trail kept, in toolspec's table beside the app's: the replay names the run.
    use sqlx::Connection as _;
    let options = sqlx::sqlite::SqliteConnectOptions::new().filename(&file);
    let mut db = sqlx::SqliteConnection::connect_with(&options)
        .await
        .unwrap();
    let renewals: Vec<(String, String, Option<String>)> = sqlx::query_as(
        "SELECT id, outcome, replay_of FROM toolspec_audit WHERE tool = 'loans_renew' ORDER BY id",
    )
    .fetch_all(&mut db)
    .await
    .unwrap();
    let outcomes: Vec<&str> = renewals.iter().map(|(_, o, _)| o.as_str()).collect();
    assert_eq!(outcomes, ["ok", "ok", "renewable", "not_found"]);
    assert_eq!(renewals[0].2, None);
    assert_eq!(renewals[1].2.as_deref(), Some(renewals[0].0.as_str()));
    let loans: Vec<(i64, String, i64)> =
        sqlx::query_as("SELECT id, due_on, renewals FROM loans ORDER BY id")
            .fetch_all(&mut db)
            .await
            .unwrap();
    assert_eq!(
        loans[0],
        (1, "2026-03-29".to_owned(), 1),
        "Dune renewed once"
    );
}

/// An MCP client of the server `command` starts, and the names of the tools it lists.
async fn connect(command: tokio::process::Command) -> (Client, Vec<String>) {
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("the README's server starts");
    let client = ().serve(transport).await.expect("an MCP session");
    let tools = client.list_tools(None).await.unwrap().tools;
    let names = tools.iter().map(|t| t.name.to_string()).collect();
    (client, names)
}

/// What a call of `name` answers: its structured content, or the error of a failed one.
async fn call(client: &Client, name: &'static str, arguments: Value) -> Value {
    let params =
        CallToolRequestParams::new(name).with_arguments(arguments.as_object().unwrap().clone());
    let result = client.call_tool(params).await.unwrap();
    match result.is_error {
        Some(true) => serde_json::to_value(&result.meta).unwrap()["toolspec/error"].clone(),
        _ => serde_json::to_value(result.structured_content).unwrap(),
    }
}
