//! Every code block of the README and `docs/`, checked by its info string (the table in
//! `docs/contributing.md` says how each kind is), and every relative link resolved. Rust
//! blocks are this crate's doctests; each test here checks the other kinds. A failure names
//! the file, the line and the block.

mod commands;
mod links;
mod specs;

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolspec_test_docs::markdown::{self, Block, Doc};

/// The most lines the README may have: it introduces, the pages of `docs/` explain.
const README_MAX_LINES: usize = 400;

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository's root exists")
}

/// The README and every page of `docs/`.
fn docs() -> Vec<Doc> {
    markdown::docs(&root()).expect("the README and docs/ can be read")
}

/// Every block the checks below take: all but the README's adopter crate, which
/// `tests/readme_adopter.rs` builds and runs.
fn blocks(docs: &[Doc]) -> impl Iterator<Item = (&Doc, &Block)> {
    docs.iter()
        .flat_map(|doc| doc.blocks.iter().map(move |block| (doc, block)))
        .filter(|(_, block)| !block.in_adopter)
}

/// What went wrong with one block: its place, why, and the block itself.
fn failure(doc: &Doc, block: &Block, why: &str) -> String {
    let shown: String = block.body.lines().map(|l| format!("    | {l}\n")).collect();
    format!("{}: {why}\n{shown}", block.place(doc))
}

/// Fails with every failure found, each naming its block; and when nothing was checked, since
/// a test that finds no block of its kind checks nothing.
fn report(what: &str, checked: usize, failures: &[String]) {
    assert!(
        checked > 0,
        "no block was checked for {what}: is the reader broken?"
    );
    assert!(
        failures.is_empty(),
        "{} {what}:\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The words an info string may hold after its language, for each language.
const KINDS: &[(&str, &[&str])] = &[
    ("yaml", &["fragment", "folders="]),
    ("rust", &[]),
    ("sh", &[]),
    ("json", &["output", "file="]),
    ("text", &["diagnostic", "diagram", "expected="]),
];

#[test]
fn the_readme_is_short() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines, more than {README_MAX_LINES}: move a section to docs/"
    );
}

#[test]
fn every_block_is_of_a_kind_a_test_checks() {
    let docs = docs();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (doc, block) in blocks(&docs) {
        checked += 1;
        let Some((_, words)) = KINDS.iter().find(|(lang, _)| *lang == block.lang) else {
            let known: Vec<&str> = KINDS.iter().map(|(lang, _)| *lang).collect();
            failures.push(failure(
                doc,
                block,
                &format!("no test checks this language; use one of {known:?}"),
            ));
            continue;
        };
        for attr in &block.attrs {
            let known = words.iter().any(|w| match w.strip_suffix('=') {
                Some(key) => attr.strip_prefix(key).is_some_and(|v| v.starts_with('=')),
                None => attr == w,
            });
            if !known {
                failures.push(failure(
                    doc,
                    block,
                    &format!(
                        "`{attr}` is not a word of `{}` blocks: {words:?}",
                        block.lang
                    ),
                ));
            }
        }
    }
    report("blocks of no known kind", checked, &failures);
}

#[test]
fn every_rust_block_is_a_doctest() {
    let docs = docs();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (doc, block) in blocks(&docs).filter(|(_, b)| b.lang == "rust") {
        checked += 1;
        let compiled = toolspec_test_docs::RUST_BLOCKS
            .iter()
            .any(|&(path, line)| path == doc.path && line == block.line);
        if !compiled {
            failures.push(failure(
                doc,
                block,
                "not among this crate's doctests: rebuild it (`cargo test -p toolspec-test-docs`)",
            ));
        }
    }
    report("Rust blocks not compiled", checked, &failures);
}

#[test]
fn yaml_blocks_compile() {
    let docs = docs();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (doc, block) in blocks(&docs).filter(|(_, b)| b.lang == "yaml") {
        checked += 1;
        if let Err(why) = specs::check(block) {
            failures.push(failure(doc, block, &why));
        }
    }
    report("YAML blocks that do not compile", checked, &failures);
}

#[test]
fn commands_name_real_programs_subcommands_and_flags() {
    let docs = docs();
    let checker = commands::Checker::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (doc, block) in blocks(&docs).filter(|(_, b)| b.lang == "sh") {
        for command in commands::split(&block.body) {
            checked += 1;
            if let Err(why) = checker.check(&command) {
                let shown = commands::shown(&command);
                failures.push(failure(doc, block, &format!("`{shown}`: {why}")));
            }
        }
    }
    report("commands that are wrong", checked, &failures);
}

#[test]
fn json_blocks_parse_and_outputs_are_what_the_commands_print() {
    let docs = docs();
    let checker = commands::Checker::new();
    let mut failures = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        for (i, block) in doc.blocks.iter().enumerate() {
            if block.lang != "json" || block.in_adopter {
                continue;
            }
            checked += 1;
            let before = i.checked_sub(1).map(|i| &doc.blocks[i]);
            if let Err(why) = json(&checker, block, before) {
                failures.push(failure(doc, block, &why));
            }
        }
    }
    report("JSON blocks that are wrong", checked, &failures);
}

/// One `json` block: it parses, and is what it says it is.
fn json(checker: &commands::Checker, block: &Block, before: Option<&Block>) -> Result<(), String> {
    let value: Value = serde_json::from_str(&block.body).map_err(|e| format!("not JSON: {e}"))?;
    if let Some(path) = block.attr("file") {
        let file = std::fs::read_to_string(root().join(path))
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        if file.trim_end() != block.body.trim_end() {
            return Err(format!("not the text of {path}:\n{file}"));
        }
    }
    // An MCP client's configuration: each server's command is one the docs' commands are.
    let servers = value["mcpServers"].as_object().into_iter().flatten();
    for (name, server) in servers {
        let program = server["command"].as_str().unwrap_or_default();
        let args = server["args"].as_array().into_iter().flatten();
        let words: Vec<String> = std::iter::once(program)
            .chain(args.filter_map(Value::as_str))
            .map(str::to_owned)
            .collect();
        checker
            .check(&words)
            .map_err(|why| format!("server `{name}`: `{}`: {why}", commands::shown(&words)))?;
    }
    if block.has("output") {
        let command = before
            .filter(|b| b.lang == "sh")
            .map(|b| commands::split(&b.body))
            .filter(|c| c.len() == 1)
            .and_then(|mut c| c.pop())
            .ok_or("an `output` block follows an `sh` block of one command")?;
        let printed = checker.output(&command)?;
        let printed: Value = serde_json::from_str(&printed).map_err(|e| {
            format!(
                "`{}` printed no JSON ({e}):\n{printed}",
                commands::shown(&command)
            )
        })?;
        if printed != value {
            let printed = serde_json::to_string_pretty(&printed).unwrap_or_default();
            return Err(format!(
                "`{}` prints instead:\n{printed}",
                commands::shown(&command)
            ));
        }
    }
    Ok(())
}

#[test]
fn text_blocks_are_what_the_code_prints() {
    let docs = docs();
    let mut failures = Vec::new();
    let mut checked = 0;
    for (doc, block) in blocks(&docs).filter(|(_, b)| b.lang == "text") {
        checked += 1;
        let checked = if block.has("diagnostic") {
            specs::diagnostic(doc, block)
        } else if let Some(path) = block.attr("expected") {
            expected(block, path)
        } else if block.has("diagram") {
            diagram(block)
        } else {
            Err("say what it is: `diagnostic`, `expected=PATH` or `diagram`".to_owned())
        };
        if let Err(why) = checked {
            failures.push(failure(doc, block, &why));
        }
    }
    report("text blocks that are wrong", checked, &failures);
}

/// Each line of `block` is a line of the expected file at `path`, in order: an excerpt of
/// what a test compares the compiler's output with.
fn expected(block: &Block, path: &str) -> Result<(), String> {
    let file = std::fs::read_to_string(root().join(path))
        .map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut lines = file.lines().map(str::trim_end);
    for wanted in block.body.lines().map(str::trim_end) {
        if !lines.any(|line| line == wanted) {
            return Err(format!(
                "`{wanted}` is not a line of {path} (after the lines before it)"
            ));
        }
    }
    Ok(())
}

/// Every repository path a diagram names exists.
fn diagram(block: &Block) -> Result<(), String> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    let mut named = 0;
    for word in block.body.split(|c| !is_path_char(c)) {
        let word = word.trim_matches('.');
        let extension = [".rs", ".yaml", ".toml", ".md", ".json"]
            .iter()
            .any(|ext| word.ends_with(ext));
        if word.contains('/') || extension {
            named += 1;
            if !root().join(word).exists() {
                return Err(format!("`{word}` is not a file of the repository"));
            }
        }
    }
    if named == 0 {
        return Err("a diagram names at least one file of the repository".to_owned());
    }
    Ok(())
}

#[test]
fn links_resolve_and_every_page_is_reachable_from_the_readme() {
    let docs = docs();
    let links: usize = docs.iter().map(|d| d.links.len()).sum();
    let failures = links::check(&root(), &docs);
    report("links that are wrong", links, &failures);
}
