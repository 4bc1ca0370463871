//! The `sh` blocks: each command's program, subcommands and flags are looked up in the
//! binaries' `--help` and in `cargo metadata`; the cheap ones are run.
//!
//! The binaries are the workspace's own, next to this test in the target folder: the example
//! store's, `toolspec` and the agent example. `cargo test --workspace` has built them; when one
//! is missing or older than the sources, they are built with `cargo build` (same target folder
//! and profile), as `tests/agent.rs` does for the example.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

/// How long a command of the docs may run.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// The store's subcommands that run quickly on a scratch database.
const STORE_RUNS: &[&str] = &["tools", "call", "explain", "init", "audit"];

/// Programs the docs may use besides cargo and the repository's own scripts.
const EXTERNAL: &[&str] = &["curl", "python3", "npx", "npm", "apt-get"];

/// What `cargo` itself takes in the docs: options with a value, then options without.
const CARGO_VALUED: &[&str] = &[
    "-p",
    "--package",
    "--bin",
    "--example",
    "--test",
    "--bench",
    "--features",
    "-F",
    "--manifest-path",
    "--path",
];
const CARGO_FLAGS: &[&str] = &[
    "--release",
    "--quiet",
    "-q",
    "--workspace",
    "--locked",
    "--all",
    "--all-targets",
    "--no-run",
    "--offline",
    "--no-deps",
    "--all-features",
];
const CARGO_SUBCOMMANDS: &[&str] = &[
    "run", "test", "bench", "build", "install", "fmt", "clippy", "doc",
];

/// The commands of an `sh` block: each a list of words, comments dropped, lines continued
/// with `\` joined, `&&`, `||`, `|` and `;` splitting.
pub fn split(body: &str) -> Vec<Vec<String>> {
    let joined = body.replace("\\\n", " ");
    let mut commands = Vec::new();
    for line in joined.lines() {
        let mut words: Vec<String> = Vec::new();
        let mut word = String::new();
        let mut started = false;
        let mut quote: Option<char> = None;
        let mut depth = 0usize;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (quote, c) {
                (Some(q), c) if c == q => quote = None,
                (Some(_), c) => word.push(c),
                (None, '\'' | '"') => {
                    quote = Some(c);
                    started = true;
                }
                (None, '$') if chars.peek() == Some(&'(') => {
                    depth += 1;
                    word.push(c);
                    started = true;
                }
                (None, ')') if depth > 0 => {
                    depth -= 1;
                    word.push(c);
                }
                (None, '#') if !started && depth == 0 => break,
                (None, ' ' | '\t') if depth == 0 => {
                    if started {
                        words.push(std::mem::take(&mut word));
                        started = false;
                    }
                }
                (None, '&' | '|' | ';') if depth == 0 => {
                    if started {
                        words.push(std::mem::take(&mut word));
                        started = false;
                    }
                    if !words.is_empty() {
                        commands.push(std::mem::take(&mut words));
                    }
                }
                (None, c) => {
                    word.push(c);
                    started = true;
                }
            }
        }
        if started {
            words.push(word);
        }
        if !words.is_empty() {
            commands.push(words);
        }
    }
    commands
}

/// A command as a shell would take it back: words with spaces or quotes quoted.
pub fn shown(words: &[String]) -> String {
    let quoted = words.iter().map(|w| {
        if w.contains([' ', '"', '{', '$', '\'', '*', '?']) {
            format!("'{}'", w.replace('\'', "'\\''"))
        } else {
            w.clone()
        }
    });
    quoted.collect::<Vec<_>>().join(" ")
}

/// Whether `word` stands for something the reader fills in (`DIR`, `NAME`, `KEY=VALUE`,
/// `PATH|URL`).
fn placeholder(word: &str) -> bool {
    word.split('=').any(|part| {
        !part.is_empty()
            && part.chars().any(|c| c.is_ascii_uppercase())
            && part
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || "_|".contains(c))
    })
}

/// A binary's `--help`: its subcommands and its flags.
#[derive(Debug, Clone, Default)]
struct Help {
    commands: Vec<String>,
    flags: Vec<String>,
}

impl Help {
    fn parse(text: &str) -> Self {
        let mut help = Self::default();
        let mut section = "";
        for line in text.lines() {
            if !line.starts_with(' ') {
                section = line.trim_end_matches(':');
                continue;
            }
            let trimmed = line.trim_start();
            if section == "Commands" {
                if let Some(name) = trimmed.split_whitespace().next() {
                    help.commands.push(name.to_owned());
                }
            } else if section == "Options" && trimmed.starts_with('-') {
                for word in trimmed.split_whitespace() {
                    let word = word.trim_end_matches(',');
                    if !word.starts_with('-') {
                        break;
                    }
                    help.flags.push(word.to_owned());
                }
            }
        }
        help
    }
}

/// The workspace's packages, as `cargo metadata` lists them, by name.
#[derive(Debug, Default)]
struct Metadata {
    packages: BTreeMap<String, Package>,
}

/// One package: its targets (name and kind: `bin`, `test`…) and its features.
#[derive(Debug, Default)]
struct Package {
    targets: Vec<(String, String)>,
    features: Vec<String>,
}

impl Metadata {
    fn read(root: &Path) -> Self {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = Command::new(cargo)
            .args([
                "metadata",
                "--no-deps",
                "--format-version",
                "1",
                "--offline",
            ])
            .current_dir(root)
            .output()
            .expect("cargo metadata runs");
        assert!(out.status.success(), "cargo metadata failed");
        let json: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON");
        let mut metadata = Self::default();
        for package in json["packages"].as_array().into_iter().flatten() {
            let name = package["name"].as_str().unwrap_or_default().to_owned();
            let targets = package["targets"].as_array().into_iter().flatten();
            let targets = targets
                .flat_map(|t| {
                    let name = t["name"].as_str().unwrap_or_default().to_owned();
                    let kinds = t["kind"].as_array().into_iter().flatten();
                    let kinds = kinds.filter_map(|k| k.as_str()).map(str::to_owned);
                    kinds.map(move |k| (name.clone(), k))
                })
                .collect();
            let features = package["features"].as_object().into_iter().flatten();
            let features = features.map(|(f, _)| f.clone()).collect();
            let package = Package { targets, features };
            metadata.packages.insert(name, package);
        }
        metadata
    }
}

/// The binaries the docs' commands run.
#[derive(Debug)]
struct Binaries {
    store: PathBuf,
    cli: PathBuf,
    agent: PathBuf,
}

/// The newest modification time of the files below `path`.
fn newest(path: &Path) -> Option<SystemTime> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_dir() {
        return meta.modified().ok();
    }
    std::fs::read_dir(path)
        .ok()?
        .filter_map(|e| e.ok())
        .filter_map(|e| newest(&e.path()))
        .max()
}

impl Binaries {
    /// The binaries in this test's profile folder, built first when missing or older than
    /// their sources.
    fn get(root: &Path) -> &'static Self {
        static BINARIES: OnceLock<Binaries> = OnceLock::new();
        BINARIES.get_or_init(|| {
            let exe = std::env::current_exe().expect("the test binary");
            let profile = exe
                .parent()
                .and_then(Path::parent)
                .expect("tests live in PROFILE/deps");
            let exe = std::env::consts::EXE_SUFFIX;
            let binaries = Self {
                store: profile.join(format!("toolspec-store{exe}")),
                cli: profile.join(format!("toolspec{exe}")),
                agent: profile.join("examples").join(format!("agent{exe}")),
            };
            let sources = [
                "Cargo.toml",
                "Cargo.lock",
                "build.rs",
                "specs",
                "src",
                "examples",
                "cli/src",
                "runtime/core/src",
                "runtime/sql/src",
                "runtime/jwt/src",
                "runtime/toolspec/src",
                "codegen/src",
                "vocab/src",
            ];
            let written = sources.iter().filter_map(|s| newest(&root.join(s))).max();
            let built = [&binaries.store, &binaries.cli, &binaries.agent]
                .iter()
                .map(|b| std::fs::metadata(b).and_then(|m| m.modified()).ok())
                .min()
                .flatten();
            let fresh = matches!((built, written), (Some(b), Some(w)) if b >= w);
            if !fresh {
                let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
                let mut build = Command::new(cargo);
                build.args(["build", "-p", "toolspec-store", "-p", "toolspec-cli"]);
                build.args([
                    "--bin",
                    "toolspec-store",
                    "--bin",
                    "toolspec",
                    "--example",
                    "agent",
                ]);
                build.arg("--manifest-path").arg(root.join("Cargo.toml"));
                if profile.ends_with("release") {
                    build.arg("--release");
                }
                if let Some(target) = profile.parent() {
                    build.arg("--target-dir").arg(target);
                }
                let status = build.status().expect("cargo build runs");
                assert!(status.success(), "cargo build of the docs' binaries failed");
            }
            binaries
        })
    }
}

/// Checks and runs the docs' commands.
pub struct Checker {
    root: PathBuf,
    binaries: &'static Binaries,
    metadata: Metadata,
    helps: Mutex<HashMap<(PathBuf, Option<String>), Help>>,
}

/// A cargo command line, its options sorted out.
#[derive(Debug, Default)]
struct Cargo {
    subcommand: String,
    options: Vec<(String, Option<String>)>,
    /// What follows `--`.
    rest: Vec<String>,
}

impl Cargo {
    fn parse(words: &[String]) -> Result<Self, String> {
        let mut cargo = Self::default();
        let mut words = words.iter();
        cargo.subcommand = words.next().ok_or("cargo needs a subcommand")?.clone();
        if !CARGO_SUBCOMMANDS.contains(&cargo.subcommand.as_str()) {
            return Err(format!(
                "`cargo {}` is no subcommand the docs use",
                cargo.subcommand
            ));
        }
        while let Some(word) = words.next() {
            if word == "--" {
                cargo.rest = words.by_ref().cloned().collect();
            } else if CARGO_VALUED.contains(&word.as_str()) {
                let value = words.next().ok_or(format!("`{word}` takes a value"))?;
                cargo.options.push((word.clone(), Some(value.clone())));
            } else if CARGO_FLAGS.contains(&word.as_str()) {
                cargo.options.push((word.clone(), None));
            } else {
                return Err(format!("`{word}` is no cargo option the docs use"));
            }
        }
        Ok(cargo)
    }

    fn values<'a>(&'a self, names: &'a [&str]) -> impl Iterator<Item = &'a str> {
        self.options
            .iter()
            .filter(move |(n, _)| names.contains(&n.as_str()))
            .filter_map(|(_, v)| v.as_deref())
    }
}

impl Checker {
    pub fn new() -> Self {
        let root = super::root();
        Self {
            binaries: Binaries::get(&root),
            metadata: Metadata::read(&root),
            root,
            helps: Mutex::new(HashMap::new()),
        }
    }

    fn help(&self, binary: &Path, subcommand: Option<&str>) -> Help {
        let key = (binary.to_owned(), subcommand.map(str::to_owned));
        let mut helps = self.helps.lock().unwrap_or_else(|e| e.into_inner());
        helps
            .entry(key)
            .or_insert_with(|| {
                let mut command = Command::new(binary);
                command.args(subcommand).arg("--help");
                let out = command.output().expect("the binary runs");
                Help::parse(&String::from_utf8_lossy(&out.stdout))
            })
            .clone()
    }

    /// Checks one command; runs it when it is cheap and holds no placeholder.
    pub fn check(&self, words: &[String]) -> Result<(), String> {
        self.run(words, false).map(drop)
    }

    /// Runs one command and returns what it printed.
    pub fn output(&self, words: &[String]) -> Result<String, String> {
        self.run(words, true)?
            .ok_or_else(|| "this command is not one the tests run".to_owned())
    }

    fn run(&self, words: &[String], must_run: bool) -> Result<Option<String>, String> {
        let start = words
            .iter()
            .position(|w| !is_assignment(w))
            .ok_or("only variable assignments")?;
        for assignment in &words[..start] {
            self.substituted(assignment)?;
        }
        let (program, args) = (&words[start], &words[start + 1..]);
        match program.as_str() {
            "cargo" => self.cargo(args, must_run),
            "export" => {
                for arg in args {
                    if !is_assignment(arg) {
                        return Err(format!("`export {arg}`: not `NAME=VALUE`"));
                    }
                    self.substituted(arg)?;
                }
                Ok(None)
            }
            "curl" => {
                let data = args.iter().skip_while(|a| *a != "-d").nth(1);
                if let Some(data) = data.filter(|d| d.starts_with('{')) {
                    serde_json::from_str::<Value>(data)
                        .map_err(|e| format!("curl's body is not JSON: {e}"))?;
                }
                Ok(None)
            }
            program if EXTERNAL.contains(&program) => Ok(None),
            program if program.starts_with(".venv/") => {
                self.named_files(args)?;
                Ok(None)
            }
            program if program.contains('/') => {
                if !self.root.join(program).exists() {
                    return Err(format!("`{program}` is not a file of the repository"));
                }
                Ok(None)
            }
            program => Err(format!("`{program}`: no test knows this program")),
        }
    }

    /// The command in `$(…)` of an assignment's value, checked.
    fn substituted(&self, assignment: &str) -> Result<(), String> {
        let value = assignment
            .split_once('=')
            .map(|(_, v)| v)
            .unwrap_or_default();
        if let Some(inner) = value.strip_prefix("$(").and_then(|v| v.strip_suffix(')')) {
            for command in split(inner) {
                self.run(&command, false)?;
            }
        }
        Ok(())
    }

    /// The files named after `-r`: they exist.
    fn named_files(&self, args: &[String]) -> Result<(), String> {
        for pair in args.windows(2) {
            if pair[0] == "-r" && !self.root.join(&pair[1]).exists() {
                return Err(format!("`{}` is not a file of the repository", pair[1]));
            }
        }
        Ok(())
    }

    fn cargo(&self, args: &[String], must_run: bool) -> Result<Option<String>, String> {
        let cargo = Cargo::parse(args)?;
        let packages: Vec<&str> = cargo.values(&["-p", "--package"]).collect();
        let packages = if packages.is_empty() {
            vec!["toolspec-store"]
        } else {
            packages
        };
        for package in &packages {
            if !self.metadata.packages.contains_key(*package) {
                return Err(format!("no package `{package}` in the workspace"));
            }
        }
        let selected = || {
            packages
                .iter()
                .filter_map(|p| self.metadata.packages.get(*p))
        };
        for (option, kind) in [
            ("--bin", "bin"),
            ("--example", "example"),
            ("--test", "test"),
            ("--bench", "bench"),
        ] {
            for name in cargo.values(&[option]) {
                let found =
                    selected().any(|p| p.targets.iter().any(|(n, k)| n == name && k == kind));
                if !found {
                    return Err(format!("no {kind} target `{name}` in {packages:?}"));
                }
            }
        }
        for features in cargo.values(&["--features", "-F"]) {
            for feature in features.split(',') {
                if !selected().any(|p| p.features.iter().any(|f| f == feature)) {
                    return Err(format!("no feature `{feature}` in {packages:?}"));
                }
            }
        }
        for path in cargo.values(&["--path"]) {
            if !self.root.join(path).join("Cargo.toml").exists() {
                return Err(format!("`--path {path}` is no crate of the repository"));
            }
        }
        if cargo.subcommand != "run" {
            return Ok(None);
        }
        let example = cargo.values(&["--example"]).next();
        let binary = match (packages.as_slice(), example) {
            (_, Some("agent")) => &self.binaries.agent,
            (["toolspec-cli"], None) => &self.binaries.cli,
            (["toolspec-store"], None) => &self.binaries.store,
            (_, None) if cargo.rest.is_empty() => return Ok(None),
            _ => return Err("no test knows the arguments of this program".to_owned()),
        };
        self.arguments(binary, &cargo.rest, must_run)
    }

    /// The arguments of one of the workspace's binaries: its subcommand and flags exist; run
    /// when cheap.
    fn arguments(
        &self,
        binary: &Path,
        args: &[String],
        must_run: bool,
    ) -> Result<Option<String>, String> {
        let args: Vec<String> = args.iter().map(|a| a.replace(['[', ']'], "")).collect();
        let top = self.help(binary, None);
        let subcommand = args.iter().find(|a| top.commands.contains(a)).cloned();
        let subcommand = subcommand.as_deref();
        if !top.commands.is_empty() && subcommand.is_none() {
            return Err(format!(
                "no subcommand of {}: {:?}",
                binary.display(),
                top.commands
            ));
        }
        let flags = match subcommand {
            Some(sub) => {
                let mut flags = self.help(binary, Some(sub)).flags;
                flags.extend(top.flags);
                flags
            }
            None => top.flags,
        };
        for arg in args.iter().filter(|a| a.starts_with('-')) {
            let flag = arg.split('=').next().unwrap_or_default();
            if !flags.iter().any(|f| f == flag) {
                return Err(format!(
                    "`{flag}` is not a flag of `{}`",
                    subcommand.unwrap_or("")
                ));
            }
        }
        let cli = binary == self.binaries.cli;
        let args: Vec<String> = args
            .iter()
            .map(|a| {
                if cli && a == "DIR" {
                    "specs".to_owned()
                } else {
                    a.clone()
                }
            })
            .collect();
        let cheap = if cli {
            true
        } else if binary == self.binaries.store {
            let remote = args.iter().any(|a| a.contains("://"));
            subcommand.is_some_and(|s| STORE_RUNS.contains(&s)) && !remote
        } else {
            false
        };
        if !cheap || args.iter().any(|a| placeholder(a)) {
            if must_run {
                return Err("this command cannot run: a placeholder, a server or a model".into());
            }
            return Ok(None);
        }
        // In a folder of its own: the CLI's with a copy of the store's specs (`lock` and
        // `docs` write files), the store's with its own database.
        let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
        if cli {
            copy_folder(&self.root.join("specs"), &scratch.path().join("specs"))
                .map_err(|e| format!("copying the specs: {e}"))?;
        }
        let (code, stdout, stderr) = execute(binary, &args, scratch.path())?;
        // `call` and `explain` answer 1 for a tool that fails or could not run; 2 is a usage
        // error, as for every other command.
        let tolerated = matches!(subcommand, Some("call" | "explain")) && code == Some(1);
        if code != Some(0) && !tolerated {
            return Err(format!("exits with {code:?}:\n{stderr}"));
        }
        Ok(Some(stdout))
    }
}

/// Copies the folder `from` (files and folders) to `to`.
fn copy_folder(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_folder(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
    })
}

/// Runs `binary` with `args` in `cwd`, within [`RUN_TIMEOUT`]: its exit code and output.
fn execute(
    binary: &Path,
    args: &[String],
    cwd: &Path,
) -> Result<(Option<i32>, String, String), String> {
    let mut child = Command::new(binary)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{} does not start: {e}", binary.display()))?;
    // Read while it runs, so that a long output cannot fill the pipe and stall it.
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + RUN_TIMEOUT;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("still running after {RUN_TIMEOUT:?}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let joined = |reader: std::thread::JoinHandle<String>| reader.join().unwrap_or_default();
    Ok((status.code(), joined(stdout), joined(stderr)))
}
