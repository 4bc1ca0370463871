//! `toolspec`: make a crate, check spec folders (and their drift from a contract lock), list
//! their tools, print their canonical schemas, print each provider's native tool definitions
//! exactly as the runtime's adapters declare them, print the Rust file a build generates and
//! the handlers to write.

mod declare;
mod lock;
mod new;
mod package;

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
    #[command(flatten)]
    Specs(SpecsCommand),
    /// Make a crate that builds and serves: a specs folder with one tool, the build script, a
    /// handler, an MCP server over stdio, and a test.
    New {
        /// The crate's name, also its folder's (made in the current folder) unless `--path`
        /// says where.
        name: String,
        /// Make the crate in this folder (`.` for the current one), made when missing; it may
        /// hold other files, not those of the crate (a `.gitignore` is kept).
        #[arg(long, value_name = "DIR")]
        path: Option<PathBuf>,
        /// Depend on this toolspec checkout rather than on the repository.
        #[arg(long, value_name = "DIR")]
        toolspec_path: Option<PathBuf>,
    },
}

/// The commands that read a specs folder.
#[derive(Subcommand)]
enum SpecsCommand {
    /// Check every spec; print diagnostics; exit 1 on errors.
    Check {
        /// The specs directory.
        #[arg(default_value = "specs")]
        dir: PathBuf,
        /// Also compare the tools with the lock (`DIR/toolspec.lock`) and classify every
        /// difference: exit 1 when one is breaking or needs review.
        #[arg(long)]
        locked: bool,
    },
    /// Write the contract lock, `DIR/toolspec.lock`: per tool and adapter what it publishes
    /// (names, schemas per dialect, hints, scopes, errors, task and confirm settings).
    Lock {
        /// The specs directory.
        #[arg(default_value = "specs")]
        dir: PathBuf,
        /// Rewrite a lock the specs differ from (refused while a breaking change is in a tool
        /// whose `version` was not raised).
        #[arg(long)]
        update: bool,
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
        /// With a strict dialect (`openai-strict`, `anthropic-strict`): every member of its
        /// adapter as strict mode would send it, strict on or not, in an envelope saying which
        /// are sent strict today (`sent_strict`), which are previews (`previewed`) and which
        /// strict mode cannot express (`cannot_be_strict`); the build errors and warnings
        /// strict mode would bring go to stderr.
        #[arg(long, requires = "dialect")]
        preview: bool,
    },
    /// Print the Rust file a build generates for the specs (what `build.rs` writes into
    /// `OUT_DIR` and `toolspec::include_tools!()` includes, inside `pub mod tools`).
    Emit {
        /// The specs directory.
        #[arg(default_value = "specs")]
        dir: PathBuf,
    },
    /// Write the tool catalog: `OUT/index.html` (a page people read: each tool with its
    /// inputs, outputs, errors, guards, scopes, hints, adapters and example calls) and
    /// `OUT/tools.md` (the same in Markdown, for a repository).
    Docs {
        /// The specs directory.
        #[arg(default_value = "specs")]
        dir: PathBuf,
        /// The folder to write into (made when missing).
        #[arg(long, value_name = "OUT")]
        out: PathBuf,
        /// The page's title (default: "The tools of NAME", NAME the crate the folder is in, as
        /// the HTTP API's `/docs` titles it; "Tool catalog" outside a crate).
        #[arg(long)]
        title: Option<String>,
        /// Where the HTTP API is served, for the curl examples.
        #[arg(long, value_name = "URL", default_value = "http://localhost:8787")]
        base_url: String,
    },
    /// Print the `impl Handler` of each action, every method with its signature and a
    /// `todo!()` to replace (query tools run without a handler).
    Stubs {
        /// The specs directory.
        #[arg(default_value = "specs")]
        dir: PathBuf,
        /// Only this tool (canonical name).
        #[arg(long)]
        tool: Option<String>,
        /// The app type the handlers are for, declared as a unit struct.
        #[arg(long, default_value = "App")]
        app: String,
        /// The path of the module `toolspec::include_tools!()` declares.
        #[arg(long, default_value = "crate::tools")]
        tools: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::New {
            name,
            path,
            toolspec_path,
        } => create(&name, path.as_deref(), toolspec_path.as_deref()),
        Command::Specs(command) => specs(command, cli.verbose),
    }
}

/// A command over the specs folder it names: the project read and checked, then the command.
fn specs(command: SpecsCommand, verbose: bool) -> ExitCode {
    let dir = match &command {
        SpecsCommand::Check { dir, .. }
        | SpecsCommand::Lock { dir, .. }
        | SpecsCommand::List { dir, .. }
        | SpecsCommand::Schema { dir, .. }
        | SpecsCommand::Emit { dir }
        | SpecsCommand::Docs { dir, .. }
        | SpecsCommand::Stubs { dir, .. } => dir,
    };
    let name = package::name(dir);
    let config = match &name {
        Some(name) => toolspec_codegen::Config::new().name(name),
        None => toolspec_codegen::Config::new(),
    };
    let project = match config.load(dir) {
        Ok(project) => project,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    if !project.diagnostics().is_empty() {
        if verbose {
            eprint!("{}", project.render_diagnostics());
        } else {
            eprint!("{}", project.render_diagnostics_summary());
        }
    }
    if project.has_errors() {
        return ExitCode::FAILURE;
    }
    match command {
        SpecsCommand::Check { locked: true, .. } => lock::check(dir, &project),
        SpecsCommand::Lock { update, .. } => lock::write(dir, &project, update),
        SpecsCommand::Check { .. } => {
            let n = project.tools().len();
            eprintln!(
                "ok: {n} tool{} in {}",
                if n == 1 { "" } else { "s" },
                dir.display()
            );
            ExitCode::SUCCESS
        }
        SpecsCommand::List { adapter, .. } => list(&project, adapter.as_deref()),
        SpecsCommand::Schema {
            tool,
            dialect,
            preview,
            ..
        } => match (dialect.as_deref().map(|d| (d, Dialect::parse(d))), preview) {
            (Some((_, Some(dialect))), true) if dialect.is_strict() => {
                strict_preview(&project, dialect, tool.as_deref(), verbose)
            }
            (Some((name, _)), true) => {
                eprintln!(
                    "error: `--preview` shows a strict dialect for every tool: use it with \
                     `--dialect openai-strict` or `--dialect anthropic-strict`, not `{name}`"
                );
                ExitCode::from(2)
            }
            (Some((OPENAPI, _)), false) => openapi(&project, tool.as_deref()),
            (Some((_, Some(dialect))), false) => native(&project, dialect, tool.as_deref()),
            _ => schema(&project, tool.as_deref()),
        },
        SpecsCommand::Emit { .. } => print_text(&toolspec_codegen::generate(&project)),
        SpecsCommand::Docs {
            out,
            title,
            base_url,
            ..
        } => {
            let title = title.unwrap_or_else(|| match &name {
                Some(name) => format!("The tools of {name}"),
                None => "Tool catalog".to_owned(),
            });
            docs(&project, &out, &title, &base_url)
        }
        SpecsCommand::Stubs {
            tool, app, tools, ..
        } => {
            let stubs = toolspec_codegen::Stubs { app, tools, tool };
            match toolspec_codegen::handler_stubs(&project, &stubs) {
                Ok(text) => print_text(&text),
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
        }
    }
}

/// `toolspec new`: the crate, and what to do next.
fn create(
    name: &str,
    path: Option<&std::path::Path>,
    toolspec: Option<&std::path::Path>,
) -> ExitCode {
    let place = match path {
        Some(path) => new::Place::Folder(path),
        None => new::Place::NewFolderIn(std::path::Path::new(".")),
    };
    match new::create(place, name, toolspec) {
        Ok(files) => {
            let (made, cd) = match path {
                Some(path) => (path.display().to_string(), path.display().to_string()),
                None => (name.to_owned(), name.to_owned()),
            };
            eprintln!("created `{name}` in `{made}`: {}", files.join(", "));
            let cd = match cd.as_str() {
                "." => String::new(),
                dir => format!("cd {dir} && "),
            };
            eprintln!(
                "`{cd}cargo run` serves its tools over MCP on stdio; `cargo test` calls them; \
                 `toolspec stubs --tool NAME` prints the handler of a tool you add"
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
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
    if let Err(code) = known_tool(project, only) {
        return code;
    }
    let mut tools: Vec<_> = project
        .tools()
        .iter()
        .filter(|t| only.is_none_or(|n| t.name() == n))
        .collect();
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

/// Refuses a `--tool` the project does not have.
fn known_tool(project: &Project, only: Option<&str>) -> Result<(), ExitCode> {
    match only {
        Some(name) if !project.tools().iter().any(|t| t.name() == name) => {
            eprintln!("error: no tool named `{name}`");
            Err(ExitCode::from(2))
        }
        _ => Ok(()),
    }
}

/// `schema --dialect`: the native tool definitions of the dialect's members, as the runtime's
/// adapter for it declares them (the built-in explain tool included, as a server lists it).
fn native(project: &Project, dialect: Dialect, only: Option<&str>) -> ExitCode {
    if let Err(code) = known_tool(project, only) {
        return code;
    }
    let declared = declare::Declared::new(project, only);
    let out = declared.native(dialect);
    // Members of the same adapter in its other mode are not in this dialect: say where they are.
    for other in declared.other_modes(dialect) {
        let preview = if dialect.is_strict() {
            format!(", or `--dialect {dialect} --preview` for every tool in {dialect}")
        } else {
            String::new()
        };
        eprintln!(
            "note: some `{}` tools are in the {other} dialect; see `--dialect {other}`{preview}",
            dialect.adapter()
        );
    }
    print_json(&Value::Array(out))
}

/// `schema --dialect openai-strict --preview`: every member of the adapter as strict mode
/// would declare it, labelled with what is sent strict today. Stdout stays one JSON value (an
/// envelope, in this mode only); what turning strict on would report goes to stderr.
fn strict_preview(
    project: &Project,
    dialect: Dialect,
    only: Option<&str>,
    verbose: bool,
) -> ExitCode {
    if let Err(code) = known_tool(project, only) {
        return code;
    }
    let Some(preview) = project.with_strict(dialect) else {
        eprintln!("error: {dialect} is not a strict dialect");
        return ExitCode::from(2);
    };
    let adapter = dialect.adapter();
    let declared_now = declare::Declared::new(project, only);
    let now = declared_now.modes(adapter);
    let then = declare::Declared::new(&preview, only);
    let names = |keep: &dyn Fn(&str, Dialect) -> bool| -> Vec<&str> {
        then.modes(adapter)
            .into_iter()
            .filter(|(name, mode)| keep(name, *mode))
            .map(|(name, _)| name)
            .collect()
    };
    let strict_now = |name: &str| now.iter().any(|(n, mode)| *n == name && *mode == dialect);
    let sent = names(&|name, _| strict_now(name));
    let previewed = names(&|name, mode| mode == dialect && !strict_now(name));
    let cannot = names(&|_, mode| mode != dialect);
    let relaxed = dialect.relaxed();
    eprintln!(
        "note: a preview of {dialect} for every `{adapter}` tool: {} sent in strict mode today \
         (`sent_strict`), {} sent in {relaxed} until it gets `strict: true` (`previewed`), {} \
         that strict mode cannot express (`cannot_be_strict`)",
        sent.len(),
        previewed.len(),
        cannot.len(),
    );
    if !preview.diagnostics().is_empty() {
        eprintln!("note: with `strict: true` for every `{adapter}` tool, the build would report:");
        if verbose {
            eprint!("{}", preview.render_diagnostics());
        } else {
            eprint!("{}", preview.render_diagnostics_summary());
        }
    }
    print_json(&json!({
        "dialect": dialect.name(),
        "sent_strict": sent,
        "previewed": previewed,
        "cannot_be_strict": cannot,
        "tools": then.native(dialect),
    }))
}

/// `toolspec docs`: the catalog of the project's tools and its built-in ones, as a server
/// lists them, written as `index.html` and `tools.md`.
fn docs(project: &Project, out: &std::path::Path, title: &str, base_url: &str) -> ExitCode {
    let mut descriptors: Vec<toolspec::Descriptor> =
        project.tools().iter().map(|t| t.descriptor()).collect();
    descriptors.extend(project.builtin_descriptors());
    let docs = toolspec::docs::ToolDocs::new(title, &descriptors).base_url(base_url);
    let written = std::fs::create_dir_all(out)
        .and_then(|()| std::fs::write(out.join("index.html"), docs.html()))
        .and_then(|()| std::fs::write(out.join("tools.md"), docs.markdown()));
    match written {
        Ok(()) => {
            let n = docs.len();
            let s = if n == 1 { "" } else { "s" };
            eprintln!(
                "wrote {n} tool{s} to {}: index.html, tools.md",
                out.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!(
                "error: cannot write the catalog into {}: {e}",
                out.display()
            );
            ExitCode::from(2)
        }
    }
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
