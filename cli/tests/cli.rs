//! The `toolspec` binary, run as a user runs it. Its native tool definitions are checked
//! against the runtime itself: for the example store's specs, `schema --dialect mcp` must be
//! exactly the tools a running MCP server of the store's registry answers `tools/list` with,
//! and each function-calling dialect exactly what that adapter declares for the store's
//! registry.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolspec::mcp::McpServer;
use toolspec::{AmbientContext, Caller, Dialect};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn store_specs() -> String {
    repository().join("specs").to_string_lossy().into_owned()
}

/// A spec folder where some tools are strict and the dialects warn.
fn warnings_specs() -> String {
    repository()
        .join("codegen/tests/dialects/warnings/specs")
        .to_string_lossy()
        .into_owned()
}

/// The binary's stdout, stderr and whether it succeeded.
fn cli(args: &[&str]) -> (String, String, bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .output()
        .expect("runs the toolspec binary");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.success(),
    )
}

fn printed(dialect: Dialect) -> Value {
    let (stdout, stderr, ok) = cli(&["schema", &store_specs(), "--dialect", dialect.name()]);
    assert!(ok, "{stderr}");
    serde_json::from_str(&stdout).expect("the CLI prints JSON")
}

/// The example store's registry over a fresh database.
async fn store_registry() -> (toolspec::Registry, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let store =
        toolspec_store::Store::open(&toolspec_store::Location::File(dir.path().join("store.db")))
            .await
            .expect("the store opens");
    let registry = toolspec_store::registry(store);
    (registry, dir)
}

/// The tools an MCP server of `registry` answers `tools/list` with, as it writes them: the
/// server serving newline-delimited JSON-RPC (as on stdio) to a raw client, as a caller with
/// every scope (stdio's `--as`).
async fn served_tools(registry: toolspec::Registry) -> Value {
    let caller = Caller::new("cli").with_ambient(AmbientContext::from([("customer_id", 1)]));
    let (mut input, server_input) = tokio::io::duplex(64 * 1024);
    let (server_output, client_output) = tokio::io::duplex(64 * 1024);
    let served =
        tokio::spawn(McpServer::new(registry, caller).serve_on(server_input, server_output));
    let mut output = BufReader::new(client_output).lines();
    let messages = [
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "raw", "version": "0" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {} }),
    ];
    for message in messages {
        input
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }
    let mut listed = None;
    while let Some(line) = output.next_line().await.expect("the server writes lines") {
        let message: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
        if message["id"] == json!(1) {
            listed = Some(message);
            break;
        }
    }
    drop(input);
    served
        .await
        .unwrap()
        .expect("the server stops when its client leaves");
    let listed = listed.expect("an answer to tools/list");
    assert_eq!(
        listed["result"].get("nextCursor"),
        None,
        "one page: {listed}"
    );
    listed["result"]["tools"].clone()
}

/// `schema --dialect mcp` is what the server lists, because both are the MCP adapter's
/// `Listing`: this fails if anything else comes between a server and its `tools/list`.
#[tokio::test(flavor = "current_thread")]
async fn the_mcp_dialect_is_what_a_server_lists() {
    let (registry, _dir) = store_registry().await;
    let printed = printed(Dialect::Mcp);
    assert!(
        printed.as_array().is_some_and(|tools| tools.len() > 5),
        "{printed}"
    );
    let served = served_tools(registry).await;
    let text = |tools: &Value| serde_json::to_string_pretty(tools).unwrap();
    assert_eq!(
        text(&printed),
        text(&served),
        "the same tools, fields in the same order"
    );
    // What the server sends beyond the schemas, and the built-in explain tool.
    let tool = |name: &str| {
        let tools = printed.as_array().unwrap();
        tools.iter().find(|t| t["name"] == name).cloned()
    };
    let cancel = tool("orders_cancel").expect("orders_cancel is an MCP tool");
    assert_eq!(cancel["annotations"]["destructiveHint"], json!(true));
    assert!(cancel.get("outputSchema").is_some());
    assert!(tool("explain").is_some());
}

#[tokio::test(flavor = "current_thread")]
async fn function_declarations_are_what_the_runtime_declares() {
    let (registry, _dir) = store_registry().await;
    let json = |v: &dyn erased::Json| v.json();
    let expected = [
        (Dialect::OpenAi, json(&toolspec::openai::tools(&registry))),
        (
            Dialect::Anthropic,
            json(&toolspec::anthropic::tools(&registry)),
        ),
        (Dialect::Gemini, json(&toolspec::gemini::tools(&registry))),
    ];
    for (dialect, expected) in expected {
        let printed = printed(dialect);
        assert!(
            printed.as_array().is_some_and(|tools| tools.len() > 5),
            "{dialect}: {printed}"
        );
        assert_eq!(printed, expected, "{dialect}");
    }
}

/// Serializes any of the adapters' declaration lists.
mod erased {
    pub trait Json {
        fn json(&self) -> serde_json::Value;
    }

    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> serde_json::Value {
            serde_json::to_value(self).expect("declarations serialize")
        }
    }
}

#[test]
fn strict_members_are_listed_under_their_strict_dialect() {
    let (stdout, stderr, ok) = cli(&["schema", &store_specs(), "--dialect", "openai-strict"]);
    assert!(ok);
    assert_eq!(stdout.trim(), "[]");
    assert!(stderr.contains("see `--dialect openai`"), "{stderr}");
    let (stdout, stderr, ok) = cli(&["schema", &warnings_specs(), "--dialect", "anthropic-strict"]);
    assert!(ok, "{stderr}");
    let printed: Value = serde_json::from_str(&stdout).expect("JSON");
    let names: Vec<&str> = printed
        .as_array()
        .map(|l| l.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(names, ["notes_tagged", "write_note"]);
    assert_eq!(printed[1]["strict"], json!(true));
    assert_eq!(
        printed[1]["input_schema"]["properties"]["note"]["type"],
        json!("string")
    );
    let (stdout, _, _) = cli(&["schema", &warnings_specs(), "--dialect", "gemini"]);
    let printed: Value = serde_json::from_str(&stdout).expect("JSON");
    assert!(
        printed
            .as_array()
            .is_some_and(|l| l.iter().all(|t| t.get("parameters").is_some()))
    );
}

#[test]
fn one_tool_and_unknown_dialects() {
    let (stdout, _, ok) = cli(&[
        "schema",
        &store_specs(),
        "--dialect",
        "openai",
        "--tool",
        "orders_get",
    ]);
    assert!(ok);
    let printed: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(printed.as_array().map(Vec::len), Some(1));
    assert_eq!(printed[0]["type"], json!("function"));
    assert_eq!(printed[0]["function"]["name"], json!("orders_get"));
    assert_eq!(printed[0]["function"]["strict"], json!(false));
    let (_, stderr, ok) = cli(&["schema", &store_specs(), "--dialect", "openai-lax"]);
    assert!(!ok);
    assert!(stderr.contains("openai-strict"), "{stderr}");
    let (_, stderr, ok) = cli(&["schema", &store_specs(), "--tool", "orders_nope"]);
    assert!(!ok);
    assert!(stderr.contains("no tool named `orders_nope`"), "{stderr}");
}

#[test]
fn check_sums_up_the_fallbacks_lists_them_with_v_and_list_the_members() {
    let (_, stderr, ok) = cli(&["check", &warnings_specs()]);
    assert!(ok);
    assert!(!stderr.contains("warning[dialect]"), "{stderr}");
    let summary: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning: "))
        .collect();
    assert_eq!(summary.len(), 1, "{stderr}");
    assert!(
        summary[0].contains("stated in tool descriptions")
            && summary[0].contains("openai-strict: "),
        "{stderr}"
    );
    let (_, stderr, ok) = cli(&["check", &warnings_specs(), "-v"]);
    assert!(ok);
    assert!(
        stderr.contains("warning[dialect]: openai-strict cannot express `maxLength` of `note`"),
        "{stderr}"
    );
    let (stdout, _, ok) = cli(&["list", &store_specs(), "--adapter", "mcp"]);
    assert!(ok);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("orders_cancel\torders/cancel.yaml"))
    );
    let (_, stderr, ok) = cli(&["list", &store_specs(), "--adapter", "smtp"]);
    assert!(!ok);
    assert!(stderr.contains("unknown adapter `smtp`"), "{stderr}");
}

#[test]
fn the_openapi_document_is_what_the_store_serves() {
    let (stdout, stderr, ok) = cli(&["schema", &store_specs(), "--dialect", "openapi"]);
    assert!(ok, "{stderr}");
    let printed: Value = serde_json::from_str(&stdout).expect("the CLI prints JSON");
    let embedded: Value = serde_json::from_str(toolspec_store::tools::OPENAPI).expect("JSON");
    assert_eq!(printed, embedded);
    assert_eq!(printed["openapi"], json!("3.1.0"));
    // Titled with the name of the crate the folder is in, as its build titles it.
    assert_eq!(printed["info"]["title"], json!("toolspec-store"));
    let (_, stderr, ok) = cli(&[
        "schema",
        &store_specs(),
        "--dialect",
        "openapi",
        "--tool",
        "orders_get",
    ]);
    assert!(!ok);
    assert!(stderr.contains("leave out `--tool`"), "{stderr}");
}

#[test]
fn emit_prints_the_generated_rust_file() {
    let (stdout, stderr, ok) = cli(&["emit", &store_specs()]);
    assert!(ok, "{stderr}");
    let project = toolspec_codegen::Config::new()
        .name("toolspec-store")
        .load(store_specs())
        .expect("the store's specs load");
    assert_eq!(stdout, toolspec_codegen::generate(&project));
    assert!(
        stdout.starts_with("// @generated by toolspec-codegen"),
        "{stdout}"
    );
    assert!(stdout.contains("\npub mod orders {\n"), "{stdout}");
    assert!(stdout.contains("    pub mod cancel {\n"), "{stdout}");
    assert!(stdout.contains("pub trait Handler"), "{stdout}");
    assert!(stdout.contains("pub fn registry"), "{stdout}");
    // A broken spec folder prints its diagnostics and no code.
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(
        dir.path().join("broken.yaml"),
        "description: Broken.\nexpects:\n  n: { type: strng }\n",
    )
    .expect("writes the spec");
    let (stdout, stderr, ok) = cli(&["emit", &dir.path().to_string_lossy()]);
    assert!(!ok);
    assert_eq!(stdout, "");
    assert!(stderr.contains("unknown type `strng`"), "{stderr}");
}

/// The names of a list of native definitions (OpenAI's `function.name`, Anthropic's `name`).
fn names(tools: &Value) -> Vec<String> {
    tools
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().or(t["name"].as_str()))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_strict_preview_shows_every_tool_and_says_which_are_sent_strict() {
    // The store sends no tool strict: all are previews, the explain tool cannot be strict.
    let (stdout, stderr, ok) = cli(&[
        "schema",
        &store_specs(),
        "--dialect",
        "openai-strict",
        "--preview",
    ]);
    assert!(ok, "{stderr}");
    let printed: Value = serde_json::from_str(&stdout).expect("the preview is one JSON value");
    assert_eq!(printed["dialect"], json!("openai-strict"));
    assert_eq!(printed["sent_strict"], json!([]));
    assert_eq!(printed["cannot_be_strict"], json!(["explain"]));
    let openai = printed_names(Dialect::OpenAi);
    let previewed: Vec<String> = openai.into_iter().filter(|n| n != "explain").collect();
    assert_eq!(printed["previewed"], json!(previewed));
    assert_eq!(names(&printed["tools"]), previewed);
    for tool in printed["tools"].as_array().expect("tools") {
        assert_eq!(tool["function"]["strict"], json!(true), "{tool}");
        // Strict mode's schema: closed, every property required.
        let parameters = &tool["function"]["parameters"];
        assert_eq!(parameters["additionalProperties"], json!(false), "{tool}");
        let properties = parameters["properties"].as_object().expect("properties");
        assert_eq!(
            parameters["required"].as_array().map(Vec::len),
            Some(properties.len()),
            "{tool}"
        );
    }
    assert!(
        stderr.contains(
            "note: a preview of openai-strict for every `openai` tool: 0 sent in strict mode \
             today (`sent_strict`), 9 sent in openai until it gets `strict: true` (`previewed`), \
             1 that strict mode cannot express (`cannot_be_strict`)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("the build would report:\nwarning: 3 schema features"),
        "{stderr}"
    );
    // Without `--preview`, the note says where to look.
    let (_, stderr, _) = cli(&["schema", &store_specs(), "--dialect", "openai-strict"]);
    assert!(
        stderr.contains("or `--dialect openai-strict --preview` for every tool in openai-strict"),
        "{stderr}"
    );

    // Where some tools are strict, those are exactly what the strict dialect lists.
    let (stdout, stderr, ok) = cli(&[
        "schema",
        &warnings_specs(),
        "--dialect",
        "openai-strict",
        "--preview",
    ]);
    assert!(ok, "{stderr}");
    let printed: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(
        printed["sent_strict"],
        json!(["notes_create", "notes_tagged"])
    );
    assert_eq!(printed["previewed"], json!(["notes_quiet"]));
    let (stdout, _, _) = cli(&["schema", &warnings_specs(), "--dialect", "openai-strict"]);
    let sent: Value = serde_json::from_str(&stdout).expect("JSON");
    let tools = printed["tools"].as_array().expect("tools");
    let sent_in_preview: Vec<&Value> = tools
        .iter()
        .filter(|t| t["function"]["name"] != "notes_quiet")
        .collect();
    assert_eq!(json!(sent_in_preview), sent);
    // The previewed tool's `max_length` is stated in its description, as strict mode does.
    let quiet = tools
        .iter()
        .find(|t| t["function"]["name"] == "notes_quiet")
        .expect("notes_quiet is previewed");
    let text = &quiet["function"]["parameters"]["properties"]["text"];
    assert_eq!(text.get("maxLength"), None, "{text}");
    assert!(
        text["description"]
            .as_str()
            .is_some_and(|d| d.contains("at most 10 characters")),
        "{text}"
    );
}

#[test]
fn a_strict_preview_names_what_strict_mode_cannot_express() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let write = |path: &str, text: &str| {
        std::fs::write(dir.path().join(path), text).expect("writes the spec");
    };
    write(
        "note.yaml",
        "description: A note.\nexpects:\n  text: { type: string }\n",
    );
    write(
        "tagged.yaml",
        "description: Tags.\nexpects:\n  tags: { type: map, values: string }\n",
    );
    let specs = dir.path().to_string_lossy().into_owned();
    let (stdout, stderr, ok) = cli(&[
        "schema",
        &specs,
        "--dialect",
        "anthropic-strict",
        "--preview",
    ]);
    assert!(ok, "{stderr}");
    let printed: Value = serde_json::from_str(&stdout).expect("JSON");
    assert_eq!(printed["previewed"], json!(["note"]));
    assert_eq!(printed["cannot_be_strict"], json!(["explain", "tagged"]));
    assert_eq!(names(&printed["tools"]), ["note"]);
    assert_eq!(printed["tools"][0]["strict"], json!(true));
    assert!(
        stderr.contains("error[dialect]: `tags` cannot be expressed in anthropic-strict"),
        "{stderr}"
    );
    assert!(
        stderr.contains("tagged.yaml:3:3"),
        "the error points at the field: {stderr}"
    );
    // Only with a strict dialect.
    for args in [
        &["schema", &specs, "--dialect", "anthropic", "--preview"][..],
        &["schema", &specs, "--dialect", "openapi", "--preview"][..],
        &["schema", &specs, "--preview"][..],
    ] {
        let (stdout, stderr, ok) = cli(args);
        assert!(!ok, "{args:?}");
        assert_eq!(stdout, "");
        assert!(stderr.contains("--dialect"), "{stderr}");
    }
}

/// The names `schema --dialect` lists for the example store.
fn printed_names(dialect: Dialect) -> Vec<String> {
    names(&printed(dialect))
}

#[test]
fn a_project_default_hint_closes_the_world_of_every_action_that_does_not_say_otherwise() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("toolspec.yaml", "default_hints: [closed_world]\n");
    write("notes/add.yaml", "description: Add a note.\n");
    write(
        "notes/mail.yaml",
        "description: Mail a note.\nhints: [open_world]\n",
    );
    write(
        "notes/share.yaml",
        "description: Share a note.\ntool:\n  mcp: { hints: [idempotent] }\n",
    );
    let (stdout, stderr, ok) = cli(&["schema", &dir.path().to_string_lossy(), "--dialect", "mcp"]);
    assert!(ok, "{stderr}");
    let tools: Value = serde_json::from_str(&stdout).expect("the CLI prints JSON");
    let open_world = |name: &str| {
        let tool = tools
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("{name} in {tools}"));
        tool["annotations"]["openWorldHint"].clone()
    };
    assert_eq!(
        open_world("notes_add"),
        json!(false),
        "the project's default"
    );
    assert_eq!(
        open_world("notes_mail"),
        json!(true),
        "its spec says otherwise"
    );
    assert_eq!(
        open_world("notes_share"),
        json!(false),
        "an adapter's own hints take the default too"
    );
    // The catalog and the contract lock show the hints with the default in them.
    let specs = dir.path().to_string_lossy().into_owned();
    let out = dir.path().join("site");
    let (_, stderr, ok) = cli(&["docs", &specs, "--out", &out.to_string_lossy()]);
    assert!(ok, "{stderr}");
    let markdown = std::fs::read_to_string(out.join("tools.md")).unwrap();
    let add = &markdown[markdown.find("## `notes_add`").unwrap()..];
    assert!(add.contains("- Hints: `closed_world`\n"), "{markdown}");
    let (_, stderr, ok) = cli(&["lock", &specs]);
    assert!(ok, "{stderr}");
    let lock: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("toolspec.lock")).unwrap())
            .unwrap();
    assert_eq!(
        lock["tools"]["notes_add"]["hints"],
        json!(["closed_world"]),
        "{lock}"
    );
    // Without the default, an action may reach beyond the app's data.
    write("toolspec.yaml", "{}\n");
    let (stdout, _, ok) = cli(&["schema", &dir.path().to_string_lossy(), "--dialect", "mcp"]);
    assert!(ok);
    let tools: Value = serde_json::from_str(&stdout).unwrap();
    let add = tools
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "notes_add")
        .unwrap();
    assert_eq!(add["annotations"]["openWorldHint"], json!(true));
}
