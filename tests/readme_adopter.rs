//! The README's minimal adopter crate, taken out of the README and built as a crate of its own,
//! then served: its files cannot drift from what compiles and runs.
//!
//! The files are the fenced blocks between `<!-- adopter-crate:begin -->` and
//! `<!-- adopter-crate:end -->`, each naming its path on its first line (`# Cargo.toml`,
//! `// src/main.rs: …`). The crate is built with cargo, offline, against this workspace's
//! `toolspec` and `toolspec-codegen` (its `version = "0.1"` dependencies become paths) and the
//! workspace's lock file, in a target folder of its own under `target/`.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

const BEGIN: &str = "<!-- adopter-crate:begin -->";
const END: &str = "<!-- adopter-crate:end -->";

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Each block of the section: its path and its text.
fn files(readme: &str) -> Vec<(String, String)> {
    let start = readme
        .find(BEGIN)
        .expect("the README has the adopter section")
        + BEGIN.len();
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
    let runtime = workspace().join("toolspec");
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

/// Writes the crate, builds it, and returns its binary.
fn build() -> PathBuf {
    let readme = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let files = files(&readme);
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
    let dir = target.join("crate");
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
    target.join("debug").join("notes-server")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_readme_crate_builds_and_serves_its_tools_over_mcp() {
    let binary = tokio::task::spawn_blocking(build).await.unwrap();
    let command = tokio::process::Command::new(&binary);
    let (transport, _) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("the README's server starts");
    let client = ().serve(transport).await.expect("an MCP session");
    // The server introduces itself as the crate its tools were compiled into.
    let info = client.peer_info().expect("the server's initialize result");
    let server = info.server_info.as_ref().expect("serverInfo");
    assert_eq!(
        (server.name.as_str(), server.version.as_str()),
        ("notes-server", "0.1.0")
    );
    let tools = client.list_tools(None).await.unwrap().tools;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["explain", "notes_add", "notes_list"]);
    let call = |name: &'static str, arguments: Value| {
        let client = &client;
        async move {
            let params = CallToolRequestParams::new(name)
                .with_arguments(arguments.as_object().unwrap().clone());
            let result = client.call_tool(params).await.unwrap();
            serde_json::to_value(result.structured_content).unwrap()
        }
    };
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
