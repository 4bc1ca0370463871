//! `toolspec new` and `toolspec stubs` as a new user meets them: the crate `new` makes builds
//! offline against this workspace, passes its own test and serves its tool to an MCP client;
//! then a richer spec is added and the crate's handlers replaced by what `stubs` prints, which
//! compiles without a warning. `new --path` makes the crate in a folder that exists already,
//! leaving its own files alone and refusing to overwrite the crate's.
//!
//! The crate is built in the target folder the README's adopter crate uses, with the same
//! features, so that their dependencies are built once.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::json;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_owned()
}

/// The `toolspec` binary in `dir`: its stdout, stderr and whether it succeeded.
fn toolspec(dir: &Path, args: &[&str]) -> (String, String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs the toolspec binary");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

/// `cargo <args>` in the crate, offline, in the adopter crates' target folder; its stderr.
fn cargo(krate: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .args(["--offline", "--quiet"])
        .current_dir(krate)
        .env("CARGO_TARGET_DIR", target())
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "`cargo {}` fails in the new crate:\n{stderr}\n{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout)
    );
    stderr
}

fn target() -> PathBuf {
    workspace().join("target").join("readme-adopter")
}

/// A spec with what a handler has the most of to write: a guard answering `bool`, one that
/// loads a record and may fail with a declared code.
const RENEW: &str = r#"description: Renew a loan for two more weeks.
expects:
  loan_id: { type: integer, minimum: 1 }
exposes:
  due_on: { type: date }
errors:
  codes:
    not_found: { message: No such loan., standalone: true }
guards:
  renewable: The loan must not have been renewed twice already.
  own_loan:
    description: The loan must be the caller's.
    errors: [not_found]
    loads: loan
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_crate_builds_tests_and_serves_and_stubs_compile() {
    let scratch = tempfile::tempdir().expect("a temp dir");
    let checkout = workspace();
    let checkout = checkout.to_str().expect("a UTF-8 path");
    let (_, said, ok) = toolspec(
        scratch.path(),
        &["new", "loans-demo", "--toolspec-path", checkout],
    );
    assert!(ok, "{said}");
    assert!(
        said.contains("cargo run"),
        "it says what to do next: {said}"
    );
    let krate = scratch.path().join("loans-demo");
    std::fs::copy(workspace().join("Cargo.lock"), krate.join("Cargo.lock")).unwrap();

    // Its own test passes, and it builds without a warning.
    let built = tokio::task::spawn_blocking({
        let krate = krate.clone();
        move || cargo(&krate, &["test"])
    })
    .await
    .unwrap();
    assert!(!built.contains("warning"), "{built}");
    cargo(&krate, &["build"]);

    // It serves its tool over MCP on stdio.
    let binary = target().join("debug").join("loans-demo");
    let (transport, _) = TokioChildProcess::builder(tokio::process::Command::new(&binary))
        .stderr(Stdio::null())
        .spawn()
        .expect("the new crate's server starts");
    let client = ().serve(transport).await.expect("an MCP session");
    let tools = client.list_tools(None).await.unwrap().tools;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ["explain", "greetings_hello"]);
    let params = CallToolRequestParams::new("greetings_hello")
        .with_arguments(json!({"name": "Ada"}).as_object().unwrap().clone());
    let greeted = client.call_tool(params).await.unwrap();
    assert_eq!(
        greeted.structured_content,
        Some(json!({"greeting": "Hello, Ada!"}))
    );
    client.cancel().await.unwrap();

    // A spec added, its handlers replaced by the stubs: it compiles as printed.
    std::fs::create_dir_all(krate.join("specs/loans")).unwrap();
    std::fs::write(krate.join("specs/loans/renew.yaml"), RENEW).unwrap();
    let (stubs, said, ok) = toolspec(&krate, &["stubs"]);
    assert!(ok, "{said}");
    assert!(
        stubs.contains("impl loans_renew::Handler for App"),
        "{stubs}"
    );
    assert!(stubs.contains("type Loan = ();"), "{stubs}");
    assert!(
        stubs.contains("-> loans_renew::own_loan::Outcome<Self::Loan>"),
        "{stubs}"
    );
    std::fs::write(krate.join("src/handlers.rs"), stubs).unwrap();
    std::fs::write(
        krate.join("src/lib.rs"),
        "toolspec::include_tools!();\nmod handlers;\npub use handlers::App;\n",
    )
    .unwrap();
    let built = tokio::task::spawn_blocking(move || cargo(&krate, &["build"]))
        .await
        .unwrap();
    assert!(!built.contains("warning"), "{built}");
}

#[test]
fn new_and_stubs_refuse_what_they_cannot_do_and_say_why() {
    let scratch = tempfile::tempdir().expect("a temp dir");
    let (_, said, ok) = toolspec(scratch.path(), &["new", "9lives"]);
    assert!(!ok);
    assert!(said.contains("`9lives` is not a crate name"), "{said}");
    let (_, said, ok) = toolspec(scratch.path(), &["new", "fn"]);
    assert!(!ok);
    assert!(said.contains("a Rust keyword"), "{said}");
    let (_, said, ok) = toolspec(
        scratch.path(),
        &[
            "new",
            "demo",
            "--toolspec-path",
            scratch.path().to_str().unwrap(),
        ],
    );
    assert!(!ok);
    assert!(said.contains("is not a toolspec checkout"), "{said}");
    assert!(!scratch.path().join("demo").exists(), "nothing is written");
    let (_, said, ok) = toolspec(scratch.path(), &["new", "demo"]);
    assert!(ok, "{said}");
    let manifest = std::fs::read_to_string(scratch.path().join("demo/Cargo.toml")).unwrap();
    assert!(
        manifest.contains(
            r#"toolspec = { git = "https://github.com/toolspec/toolspec", features = ["mcp"] }"#
        ),
        "without a checkout it depends on the repository:\n{manifest}"
    );
    let (_, said, ok) = toolspec(scratch.path(), &["new", "demo"]);
    assert!(!ok);
    assert!(
        said.contains("`./demo` exists already") && said.contains("with `--path ./demo`"),
        "{said}"
    );

    // An existing folder (a cloned repository, say): its own files are left alone.
    let repo = scratch.path().join("helpdesk-repo");
    std::fs::create_dir(&repo).unwrap();
    std::fs::write(repo.join("README.md"), "# Helpdesk\n").unwrap();
    std::fs::write(repo.join(".gitignore"), "/target\n*.db\n").unwrap();
    let (_, said, ok) = toolspec(&repo, &["new", "helpdesk", "--path", "."]);
    assert!(ok, "{said}");
    assert!(said.contains("created `helpdesk` in `.`"), "{said}");
    assert!(
        said.contains("`cargo run` serves"),
        "no `cd` into where it is: {said}"
    );
    assert!(
        !said.contains(".gitignore"),
        "the folder's own is kept: {said}"
    );
    let manifest = std::fs::read_to_string(repo.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("name = \"helpdesk\""), "{manifest}");
    assert!(repo.join("specs/greetings/hello.yaml").is_file());
    assert_eq!(
        std::fs::read_to_string(repo.join("README.md")).unwrap(),
        "# Helpdesk\n"
    );
    assert_eq!(
        std::fs::read_to_string(repo.join(".gitignore")).unwrap(),
        "/target\n*.db\n"
    );
    assert!(!repo.join("helpdesk").exists(), "no folder of its own");
    // Made again there, it would overwrite: it names what, and writes nothing.
    std::fs::remove_file(repo.join("src/main.rs")).unwrap();
    let (_, said, ok) = toolspec(&repo, &["new", "helpdesk", "--path", "."]);
    assert!(!ok);
    assert!(
        said.contains(
            "`.` holds files the crate needs, which would be overwritten: Cargo.toml, build.rs, \
             specs/greetings/hello.yaml, src/lib.rs, tests/tools.rs"
        ),
        "{said}"
    );
    assert!(!repo.join("src/main.rs").exists(), "nothing is written");
    // A folder that is missing is made; a file is no folder.
    let (_, said, ok) = toolspec(scratch.path(), &["new", "desk", "--path", "nested/desk"]);
    assert!(ok, "{said}");
    assert!(scratch.path().join("nested/desk/build.rs").is_file());
    let (_, said, ok) = toolspec(&repo, &["new", "desk", "--path", "README.md"]);
    assert!(!ok);
    assert!(
        said.contains("`README.md` is a file, not a folder"),
        "{said}"
    );

    let specs = workspace().join("specs");
    let specs = specs.to_str().unwrap();
    let (_, said, ok) = toolspec(scratch.path(), &["stubs", specs, "--tool", "orders_serch"]);
    assert!(!ok);
    assert!(said.contains("did you mean `orders_search`?"), "{said}");
    let (_, said, ok) = toolspec(scratch.path(), &["stubs", specs, "--tool", "orders_search"]);
    assert!(!ok);
    assert!(said.contains("query tool"), "{said}");
    let (_, said, ok) = toolspec(scratch.path(), &["stubs", specs, "--app", "my app"]);
    assert!(!ok);
    assert!(said.contains("`my app` is not a type name"), "{said}");
    let (stubs, _, ok) = toolspec(scratch.path(), &["stubs", specs, "--tool", "orders_get"]);
    assert!(ok);
    assert_eq!(stubs.matches("impl ").count(), 1, "{stubs}");
}
