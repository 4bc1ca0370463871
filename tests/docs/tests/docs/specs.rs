//! The `yaml` blocks, compiled by the real compiler, and the diagnostics the docs show,
//! reproduced by it.
//!
//! A block is one file of a project in a scratch folder whose other files are the example
//! store's `specs/toolspec.yaml` and `specs/types.yaml` (unless the block is one of them): a
//! tool spec of the docs may use the store's named types and ambient fields.

use toolspec_codegen::{Config, Project, Severity};
use toolspec_test_docs::markdown::{Block, Doc};

/// The files every block's project starts with, below the repository's root.
const BASE: &[&str] = &["specs/toolspec.yaml", "specs/types.yaml"];

/// Where a fragment goes: a tool of its own.
const FRAGMENT: &str = "specs/docs/fragment.yaml";

/// The file a `yaml` block is, and its text.
fn file(block: &Block) -> Result<(String, String), String> {
    if let Some(path) = block.named_file(&["yaml"]) {
        if !path.starts_with("specs/") {
            return Err(format!("`{path}` is not below `specs/`"));
        }
        return Ok((path.to_owned(), block.body.clone()));
    }
    if block.has("fragment") {
        let described = block.body.lines().any(|l| l.starts_with("description:"));
        let head = if described {
            ""
        } else {
            "description: A fragment of the docs.\n"
        };
        return Ok((FRAGMENT.to_owned(), format!("{head}{}", block.body)));
    }
    Err("name its file on the first line (`# specs/….yaml: …`) or mark it `fragment`".to_owned())
}

/// Compiles `file` (a path below `specs/` and its text) with the base files around it, and
/// the folders below `specs/` the block's `folders=a,b` names (`tool_roots` must exist).
fn compile(path: &str, text: &str, folders: Option<&str>) -> Result<Project, String> {
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = super::root();
    let mut files: Vec<(String, String)> = BASE
        .iter()
        .filter(|base| **base != path)
        .map(|base| {
            let text = std::fs::read_to_string(root.join(base)).expect("the store's specs");
            ((*base).to_owned(), text)
        })
        .collect();
    files.push((path.to_owned(), text.to_owned()));
    for folder in folders.into_iter().flat_map(|f| f.split(',')) {
        let dir = scratch.path().join("specs").join(folder);
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    for (path, text) in &files {
        let file = scratch.path().join(path);
        std::fs::create_dir_all(file.parent().expect("below specs/")).map_err(|e| e.to_string())?;
        std::fs::write(file, text).map_err(|e| e.to_string())?;
    }
    Config::new()
        .display_root("specs")
        .load(scratch.path().join("specs"))
        .map_err(|e| e.to_string())
}

/// A `yaml` block compiles without an error or a warning (but fallbacks: what a provider's
/// dialect states in the description instead), and a tool spec gives its tool.
pub fn check(block: &Block) -> Result<(), String> {
    let (path, text) = file(block)?;
    let project = compile(&path, &text, block.attr("folders"))?;
    let unwanted = project
        .diagnostics()
        .iter()
        .any(|d| d.severity == Severity::Error || !d.is_fallback());
    if unwanted {
        return Err(format!(
            "the compiler says:\n{}",
            project.render_diagnostics()
        ));
    }
    if !BASE.contains(&path.as_str()) {
        if project.tools().len() != 1 {
            return Err(format!("{path} gives no tool"));
        }
        // Emitting is part of compiling: it must not fail either.
        let code = toolspec_codegen::generate(&project);
        if code.is_empty() {
            return Err(format!("{path} generates no code"));
        }
    }
    Ok(())
}

/// A `text diagnostic` block is what the compiler prints for the `yaml` block of its file
/// with the source line it shows in place.
pub fn diagnostic(doc: &Doc, block: &Block) -> Result<(), String> {
    let place = block
        .body
        .lines()
        .find_map(|l| l.trim_start().strip_prefix("--> "))
        .ok_or("a diagnostic shows its place: ` --> specs/FILE.yaml:LINE:COLUMN`")?;
    let mut parts = place.trim().split(':');
    let (path, line) = (parts.next().unwrap_or_default(), parts.next());
    let line: usize = line
        .and_then(|l| l.parse().ok())
        .ok_or("the place names a line")?;
    let prefix = format!("{line} | ");
    let source = block
        .body
        .lines()
        .find_map(|l| l.trim_start().strip_prefix(&prefix))
        .ok_or_else(|| format!("the diagnostic shows its line {line} (`{prefix}…`)"))?;
    let spec = doc
        .blocks
        .iter()
        .find(|b| b.lang == "yaml" && b.named_file(&["yaml"]) == Some(path))
        .ok_or_else(|| format!("no `yaml` block of {} is {path}", doc.path))?;
    let mut lines: Vec<&str> = spec.body.lines().collect();
    let shown = lines
        .get_mut(line - 1)
        .ok_or_else(|| format!("{path} has no line {line}"))?;
    *shown = source;
    let project = compile(path, &(lines.join("\n") + "\n"), spec.attr("folders"))?;
    let printed = project.render_diagnostics();
    let trimmed = |text: &str| -> Vec<String> {
        let lines = text.trim_end().lines();
        lines.map(|l| l.trim_end().to_owned()).collect()
    };
    if trimmed(&printed) != trimmed(&block.body) {
        return Err(format!("the compiler prints instead:\n{printed}"));
    }
    Ok(())
}
