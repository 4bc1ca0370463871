//! Counts the names an app can use through the `toolspec` façade: the items of its rustdoc
//! with every feature on, the crates it re-exports whole (rmcp, rig, sqlx) left out and what
//! is `#[doc(hidden)]` not shown. `--list` prints them.
//!
//! `cargo run -p toolspec-test-architecture --bin public-names`

use std::path::PathBuf;
use std::process::{Command, ExitCode};

/// The pages of crates the façade re-exports whole.
const REEXPORTED: &[&str] = &["rig/rig_core/", "mcp/rmcp/", "sqlx/"];

fn main() -> ExitCode {
    let list = std::env::args().skip(1).any(|a| a == "--list");
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let documented = Command::new(cargo)
        .args([
            "doc",
            "-p",
            "toolspec",
            "--all-features",
            "--no-deps",
            "--quiet",
        ])
        .current_dir(&workspace)
        .status();
    if !documented.is_ok_and(|status| status.success()) {
        eprintln!("`cargo doc -p toolspec --all-features --no-deps` failed");
        return ExitCode::FAILURE;
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace.join("target"));
    let page = target.join("doc/toolspec/all.html");
    let Ok(html) = std::fs::read_to_string(&page) else {
        eprintln!("cannot read {}", page.display());
        return ExitCode::FAILURE;
    };
    let names: Vec<&str> = html
        .split("<li><a href=\"")
        .skip(1)
        .filter_map(|rest| rest.split_once('"').map(|(href, _)| href))
        .filter(|href| !href.starts_with('#'))
        .filter(|href| !REEXPORTED.iter().any(|crate_| href.starts_with(crate_)))
        .collect();
    if list {
        for name in &names {
            println!("{name}");
        }
    }
    println!("{} public names", names.len());
    ExitCode::SUCCESS
}
