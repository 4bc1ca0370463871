//! `toolspec`: check spec folders, list their tools, print their canonical schemas, print
//! each provider's native tool definitions exactly as the runtime's adapters declare them, and
//! print the Rust file a build generates.

mod declare;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde_json::{Value, json};
use toolspec::Dialect;
use toolspec_codegen::Project;

#[derive(Parser)]
#[command(
    name = "toolspec",
    version,
    about = "Check and inspect toolspec tool specs"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Print every fallback warning (what a dialect cannot express, stated in the description)
    /// instead of one line summing them up.
    #[arg(short, long, global = true)]
    verbose: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Check every spec; print diagnostics; exit 1 on errors.
    Check {
        /// The specs directory.
        #[arg(default_value = "specs")]
        dir: PathBuf,
    },
    /// List tools with their names on each adapter.
    List {
        /// The specs directory.
        #[arg(default_value = "specs")]
        dir: PathBuf,
        /// Only the members of this adapter, by their name there.
        #[arg(long)]
        adapter: Option<String>,
    },
    /// Print canonical input and output schemas as JSON, or with `--dialect` a provider's
    /// native tool definitions (a JSON array, as a request's `tools` field takes it).
    Schema {
        /// The specs directory.
        #[arg(default_value = "specs")]
        dir: PathBuf,
        /// Only this tool (canonical name).
        #[arg(long)]
        tool: Option<String>,
        /// Print the tools of this dialect's adapter as its provider takes them (MCP: as
        /// `tools/list` returns them): `openai` and `anthropic` list the members in
        /// non-strict mode, `openai-strict` and `anthropic-strict` those in strict mode;
        /// `openapi` prints the HTTP API's OpenAPI 3.1 document.
        #[arg(long, value_parser = clap::builder::PossibleValuesParser::new(dialect_names()))]
        dialect: Option<String>,
    },
    /// Print the Rust file a build generates for the specs (what `build.rs` writes into
    /// `OUT_DIR` and `toolspec::include_tools!()` includes, inside `pub mod tools`).
    Emit {
        /// The specs directory.
        #[arg(default_value = "specs")]
        dir: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let dir = match &cli.command {
        Command::Check { dir }
        | Command::List { dir, .. }
        | Command::Schema { dir, .. }
        | Command::Emit { dir } => dir,
    };
    let project = match toolspec_codegen::load(dir) {
        Ok(project) => project,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if !project.diagnostics().is_empty() {
        if cli.verbose {
            eprint!("{}", project.render_diagnostics());
        } else {
            eprint!("{}", project.render_diagnostics_summary());
        }
    }
    if project.has_errors() {
        return ExitCode::FAILURE;
    }
    match cli.command {
        Command::Check { .. } => {
            let n = project.tools().len();
            eprintln!(
                "ok: {n} tool{} in {}",
                if n == 1 { "" } else { "s" },
                dir.display()
            );
            ExitCode::SUCCESS
        }
        Command::List { adapter, .. } => list(&project, adapter.as_deref()),
        Command::Schema { tool, dialect, .. } => match dialect.as_deref() {
            Some(OPENAPI) => openapi(&project, tool.as_deref()),
            Some(name) => match Dialect::parse(name) {
                Some(dialect) => native(&project, dialect, tool.as_deref()),
                None => schema(&project, tool.as_deref()),
            },
            None => schema(&project, tool.as_deref()),
        },
        Command::Emit { .. } => print_text(&toolspec_codegen::generate(&project)),
    }
}

/// `--dialect openapi`: the HTTP API's document rather than a provider's tool list.
const OPENAPI: &str = "openapi";

/// What `--dialect` takes: every provider dialect, and `openapi`.
fn dialect_names() -> Vec<&'static str> {
    let mut names = Dialect::ALL.map(Dialect::name).to_vec();
    names.push(OPENAPI);
    names
}

/// `schema --dialect openapi`: the whole document (`--tool` does not narrow it).
fn openapi(project: &Project, only: Option<&str>) -> ExitCode {
    if only.is_some() {
        eprintln!("error: `--dialect openapi` prints the whole API; leave out `--tool`");
        return ExitCode::from(2);
    }
    print_json(&project.openapi())
}

fn list(project: &Project, adapter: Option<&str>) -> ExitCode {
    match adapter {
        Some(adapter) => {
            if project.adapter(adapter).is_none() {
                let names: Vec<&str> = project.adapters().map(|a| a.name.as_ref()).collect();
                eprintln!(
                    "error: unknown adapter `{adapter}` (adapters: {})",
                    names.join(", ")
                );
                return ExitCode::from(2);
            }
            let mut rows: Vec<(&str, &str, &str)> = project
                .tools()
                .iter()
                .filter_map(|t| {
                    let b = t.bindings().iter().find(|b| b.adapter == adapter)?;
                    Some((b.name.as_str(), t.name(), t.spec_path()))
                })
                .collect();
            rows.sort();
            for (name, canonical, path) in rows {
                if name == canonical {
                    println!("{name}\t{path}");
                } else {
                    println!("{name}\t{path}\t(canonical: {canonical})");
                }
            }
        }
        None => {
            let mut tools: Vec<_> = project.tools().iter().collect();
            tools.sort_by(|a, b| a.name().cmp(b.name()));
            for tool in tools {
                let adapters: Vec<String> = tool
                    .bindings()
                    .iter()
                    .map(|b| {
                        if b.name == tool.name() {
                            b.adapter.clone()
                        } else {
                            format!("{}={}", b.adapter, b.name)
                        }
                    })
                    .collect();
                println!(
                    "{}\t{}\t[{}]",
                    tool.name(),
                    tool.spec_path(),
                    adapters.join(", ")
                );
            }
        }
    }
    ExitCode::SUCCESS
}

fn schema(project: &Project, only: Option<&str>) -> ExitCode {
    let mut tools: Vec<_> = project
        .tools()
        .iter()
        .filter(|t| only.is_none_or(|n| t.name() == n))
        .collect();
    if let (true, Some(name)) = (tools.is_empty(), only) {
        eprintln!("error: no tool named `{name}`");
        return ExitCode::from(2);
    }
    tools.sort_by(|a, b| a.name().cmp(b.name()));
    let out: Vec<Value> = tools
        .iter()
        .map(|t| json!({ "name": t.name(), "description": t.description(), "input_schema": t.input_schema(), "output_schema": t.output_schema() }))
        .collect();
    let out = if only.is_some() && out.len() == 1 {
        out[0].clone()
    } else {
        Value::Array(out)
    };
    print_json(&out)
}

/// `schema --dialect`: the native tool definitions of the dialect's members, as the runtime's
/// adapter for it declares them (the built-in explain tool included, as a server lists it).
fn native(project: &Project, dialect: Dialect, only: Option<&str>) -> ExitCode {
    if let Some(name) = only
        && !project.tools().iter().any(|t| t.name() == name)
    {
        eprintln!("error: no tool named `{name}`");
        return ExitCode::from(2);
    }
    let declared = declare::Declared::new(project, only);
    let out = declared.native(dialect);
    // Members of the same adapter in its other mode are not in this dialect: say where they are.
    for other in declared.other_modes(dialect) {
        eprintln!(
            "note: some `{}` tools are in the {other} dialect; see `--dialect {other}`",
            dialect.adapter()
        );
    }
    print_json(&Value::Array(out))
}

fn print_json(out: &Value) -> ExitCode {
    match serde_json::to_string_pretty(out) {
        Ok(mut text) => {
            text.push('\n');
            print_text(&text)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes `text` to stdout. A reader that stops early (`| head`) ends the output quietly; any
/// other failure to write is an error.
fn print_text(text: &str) -> ExitCode {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            ExitCode::FAILURE
        }
    }
}
