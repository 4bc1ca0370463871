//! rmcp resolves to the version the MCP transport was last tested against: the one
//! `tests/conformance/rmcp-version.txt` records, which the workspace's `Cargo.toml` pins exactly
//! and `Cargo.lock` holds. Another version fails here until the transport's tests have been run
//! against it and the record says so (docs/contributing.md, "Upgrading rmcp").

use std::path::{Path, PathBuf};

const RECORD: &str = "tests/conformance/rmcp-version.txt";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(file: &str) -> String {
    std::fs::read_to_string(workspace().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn toml(file: &str) -> toml::Table {
    read(file)
        .parse()
        .unwrap_or_else(|e| panic!("{file} is TOML: {e}"))
}

/// The version the record holds: its one line that is not a `#` comment.
fn recorded() -> String {
    let text = read(RECORD);
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'));
    let version = lines
        .next()
        .unwrap_or_else(|| panic!("{RECORD} holds no version"));
    assert!(lines.next().is_none(), "{RECORD} holds one version");
    version.to_owned()
}

/// What the workspace's `Cargo.toml` asks of rmcp.
fn required() -> String {
    let manifest = toml("Cargo.toml");
    let rmcp = &manifest["workspace"]["dependencies"]["rmcp"];
    let version = rmcp.get("version").unwrap_or(rmcp);
    version
        .as_str()
        .expect("rmcp's requirement is a version")
        .to_owned()
}

/// Every rmcp version `Cargo.lock` resolves.
fn resolved() -> Vec<String> {
    let lock = toml("Cargo.lock");
    let packages = lock["package"]
        .as_array()
        .expect("Cargo.lock lists packages");
    packages
        .iter()
        .filter(|package| package["name"].as_str() == Some("rmcp"))
        .filter_map(|package| package["version"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn rmcp_is_the_version_the_mcp_transport_was_tested_against() {
    let tested = recorded();
    let (pinned, resolved) = (required(), resolved());
    assert!(
        pinned == format!("={tested}") && resolved == [tested.clone()],
        "rmcp is not the version the MCP transport was tested against:\n\
         \x20 Cargo.toml requires {pinned:?}, Cargo.lock resolves {resolved:?}, \
         {RECORD} records {tested:?}.\n\
         Upgrading rmcp: pin the new version exactly in Cargo.toml (`version = \"=X.Y.Z\"`), run \
         the MCP tests, the conformance suite and the MCP bench against it as \
         docs/contributing.md (\"Upgrading rmcp\") says, then write it in {RECORD}."
    );
}
