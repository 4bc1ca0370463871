//! `toolspec new NAME`: a crate that builds and serves — a specs folder with one tool, the
//! build script, a handler, an MCP server over stdio, and a test that calls the tool — in the
//! new folder `NAME`, or (`--path DIR`) in a folder that may exist already, as long as none of
//! the files it writes is there (a `.gitignore` is kept as it is).

use std::path::{Path, PathBuf};

/// The repository the crate depends on unless told to use a checkout.
const REPOSITORY: &str = "https://github.com/toolspec/toolspec";

/// Why a crate could not be made.
#[derive(Debug)]
pub enum NewError {
    /// The name is not a package name cargo takes.
    Name(String),
    /// Something is there already.
    Exists(PathBuf),
    /// Files it would write are there already, in the folder given.
    WouldOverwrite(PathBuf, Vec<String>),
    /// The folder given is a file.
    NotAFolder(PathBuf),
    /// `--toolspec-path` is not a toolspec checkout.
    NotACheckout(PathBuf),
    /// A file could not be written.
    Io(PathBuf, std::io::Error),
}

impl std::fmt::Display for NewError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Name(why) => f.write_str(why),
            Self::Exists(path) => write!(
                f,
                "`{}` exists already: choose another name, remove it, or make the crate in it \
                 with `--path {}`",
                path.display(),
                path.display()
            ),
            Self::WouldOverwrite(path, files) => write!(
                f,
                "`{}` holds files the crate needs, which would be overwritten: {}; move them \
                 away, or make the crate in another folder",
                path.display(),
                files.join(", ")
            ),
            Self::NotAFolder(path) => write!(f, "`{}` is a file, not a folder", path.display()),
            Self::NotACheckout(path) => write!(
                f,
                "`{}` is not a toolspec checkout (no `runtime/toolspec/Cargo.toml` and \
                 `codegen/Cargo.toml` in it)",
                path.display()
            ),
            Self::Io(path, e) => write!(f, "cannot write `{}`: {e}", path.display()),
        }
    }
}

/// Where `toolspec new` makes the crate.
pub enum Place<'a> {
    /// A new folder named after the crate, in this folder.
    NewFolderIn(&'a Path),
    /// This folder, made when missing: it may hold other files (a README, a `.git`), but none
    /// that the crate is made of.
    Folder(&'a Path),
}

/// The file of a crate that a folder may have already: it is kept.
const KEPT: &str = ".gitignore";

/// Makes the crate `name` at `place`, depending on the checkout at `toolspec` or else on the
/// repository; the files written, relative to the crate.
pub fn create(
    place: Place<'_>,
    name: &str,
    toolspec: Option<&Path>,
) -> Result<Vec<String>, NewError> {
    check_name(name)?;
    let root = match place {
        Place::NewFolderIn(parent) => {
            let root = parent.join(name);
            if root.exists() {
                return Err(NewError::Exists(root));
            }
            root
        }
        Place::Folder(root) => {
            if root.exists() && !root.is_dir() {
                return Err(NewError::NotAFolder(root.to_owned()));
            }
            root.to_owned()
        }
    };
    let (runtime, codegen) = match toolspec {
        None => (
            format!("git = \"{REPOSITORY}\""),
            format!("git = \"{REPOSITORY}\""),
        ),
        Some(checkout) => {
            let checkout = checkout
                .canonicalize()
                .map_err(|_| NewError::NotACheckout(checkout.to_owned()))?;
            let (runtime, codegen) = (
                checkout.join("runtime").join("toolspec"),
                checkout.join("codegen"),
            );
            if !runtime.join("Cargo.toml").is_file() || !codegen.join("Cargo.toml").is_file() {
                return Err(NewError::NotACheckout(checkout));
            }
            (
                format!("path = {:?}", runtime.display().to_string()),
                format!("path = {:?}", codegen.display().to_string()),
            )
        }
    };
    let krate = name.replace('-', "_");
    let files = [
        ("Cargo.toml", manifest(name, &runtime, &codegen)),
        (".gitignore", "/target\n".to_owned()),
        ("build.rs", BUILD.to_owned()),
        ("specs/greetings/hello.yaml", HELLO.to_owned()),
        ("src/lib.rs", LIB.replace("{name}", name)),
        ("src/main.rs", MAIN.replace("{crate}", &krate)),
        ("tests/tools.rs", TEST.replace("{crate}", &krate)),
    ];
    let kept = root.join(KEPT).exists();
    let there: Vec<String> = (files.iter())
        .map(|(path, _)| *path)
        .filter(|path| *path != KEPT && root.join(path).symlink_metadata().is_ok())
        .map(str::to_owned)
        .collect();
    if !there.is_empty() {
        return Err(NewError::WouldOverwrite(root, there));
    }
    let files: Vec<_> = (files.into_iter())
        .filter(|(path, _)| !(kept && *path == KEPT))
        .collect();
    for (path, text) in &files {
        let file = root.join(path);
        let written = file
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&file, text));
        written.map_err(|e| NewError::Io(file, e))?;
    }
    Ok(files.iter().map(|(path, _)| (*path).to_owned()).collect())
}

/// A name cargo takes for a package, and Rust for its crate: ASCII letters, digits, `-` and
/// `_`, starting with a letter, and not a keyword.
fn check_name(name: &str) -> Result<(), NewError> {
    let valid = name.starts_with(|c: char| c.is_ascii_alphabetic())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(NewError::Name(format!(
            "`{name}` is not a crate name: use ASCII letters, digits, `-` and `_`, starting \
             with a letter"
        )));
    }
    let krate = name.replace('-', "_");
    if syn::parse_str::<syn::Ident>(&krate).is_err() || krate == "toolspec" || krate == "test" {
        return Err(NewError::Name(format!(
            "`{name}` cannot name a crate (a Rust keyword, or a crate it would shadow): choose \
             another"
        )));
    }
    Ok(())
}

fn manifest(name: &str, runtime: &str, codegen: &str) -> String {
    format!(
        r#"[package]
name = "{name}"
version = "0.1.0"
edition = "2024"

[dependencies]
toolspec = {{ {runtime}, features = ["mcp"] }}
tokio = {{ version = "1", features = ["macros", "rt-multi-thread", "sync"] }}

[build-dependencies]
toolspec-codegen = {{ {codegen} }}

[dev-dependencies]
serde_json = "1"
"#
    )
}

const BUILD: &str = r#"// Compiles specs/ into $OUT_DIR/toolspec_tools.rs; errors stop the build.
fn main() {
    toolspec_codegen::compile("specs").unwrap_or_else(|e| e.exit());
}
"#;

const HELLO: &str = r#"# The tool `greetings_hello`: its folder and file name name it.
description: Greet someone by name.
expects:
  name: { type: string, min_length: 1, max_length: 100, description: Who to greet. }
exposes:
  greeting: { type: string, description: The greeting. }
message: "{{ greeting }}"
hints: [read_only]
"#;

const LIB: &str = r#"//! {name}: the tools compiled from `specs/` by `build.rs`, and a handler for each.
//! `toolspec stubs` prints the handler of a tool you add.

toolspec::include_tools!(); // pub mod tools { … }
use tools::greetings::hello;

/// The app: what the handlers share (a database pool, clients, settings).
#[derive(Debug, Default)]
pub struct App;

impl hello::Handler for App {
    async fn call(&self, input: hello::Input, _cx: hello::Context<'_>) -> hello::Outcome {
        Ok(hello::Output {
            greeting: format!("Hello, {}!", input.name),
        })
    }
}
"#;

const MAIN: &str = r#"//! Serves the tools over MCP on stdin/stdout.

use toolspec::Caller;
use toolspec::mcp::McpServer;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = {crate}::tools::registry({crate}::App);
    McpServer::new(registry, Caller::new("local"))
        .serve_stdio()
        .await?;
    Ok(())
}
"#;

const TEST: &str = r#"//! The tools, called through the registry as every adapter calls them.

use serde_json::json;
use toolspec::AmbientContext;

#[tokio::test]
async fn hello_greets_by_name_and_refuses_an_empty_one() {
    let registry = {crate}::tools::registry({crate}::App);
    let hello = registry.get("greetings_hello").expect("the tool is registered");
    let greeted = hello
        .invoke(json!({ "name": "Ada" }), &AmbientContext::new())
        .await;
    assert_eq!(greeted.to_model_json(), json!({ "greeting": "Hello, Ada!" }));
    let refused = hello
        .invoke(json!({ "name": "" }), &AmbientContext::new())
        .await;
    assert_eq!(
        refused.error().map(|e| e.code.as_str()),
        Some("invalid_arguments")
    );
}
"#;
