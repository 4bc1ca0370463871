//! Relative links: each points at a file of the repository and, with `#…`, at one of its
//! headings; and every page of `docs/` can be reached from the README.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

use toolspec_test_docs::markdown::{self, Doc};

/// `path` relative to `from`'s folder, as a path below the repository's root; `None` when it
/// leaves the repository.
fn resolve(from: &str, path: &str) -> Option<String> {
    let mut parts: Vec<String> = Path::new(from)
        .parent()
        .map(|p| p.iter().map(|s| s.to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

/// The anchors of a Markdown file of the repository that is not among the docs.
fn anchors_of(root: &Path, path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(root.join(path)).unwrap_or_default();
    markdown::parse(path, &text).anchors
}

/// Every wrong link, and every page of `docs/` the README does not lead to.
pub fn check(root: &Path, docs: &[Doc]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut reached: BTreeSet<String> = BTreeSet::from(["README.md".to_owned()]);
    let mut edges: Vec<(String, String)> = Vec::new();
    for doc in docs {
        for link in &doc.links {
            let target = link.target.trim();
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = match target.split_once('#') {
                Some((file, anchor)) => (file, Some(anchor)),
                None => (target, None),
            };
            let place = format!("{}:{}: link `{target}`", doc.path, link.line);
            let path = if file.is_empty() {
                doc.path.clone()
            } else {
                match resolve(&doc.path, file) {
                    Some(path) => path,
                    None => {
                        failures.push(format!("{place}: leaves the repository"));
                        continue;
                    }
                }
            };
            let full: PathBuf = root.join(&path);
            if !full.exists() {
                failures.push(format!("{place}: {path} does not exist"));
                continue;
            }
            edges.push((doc.path.clone(), path.clone()));
            let Some(anchor) = anchor else { continue };
            if !path.ends_with(".md") {
                failures.push(format!(
                    "{place}: only Markdown files have headings to link to"
                ));
                continue;
            }
            let anchors = match docs.iter().find(|d| d.path == path) {
                Some(target) => target.anchors.clone(),
                None => anchors_of(root, &path),
            };
            if !anchors.iter().any(|a| a == anchor) {
                failures.push(format!(
                    "{place}: {path} has no heading `#{anchor}` (it has: {})",
                    anchors.join(", ")
                ));
            }
        }
    }
    loop {
        let before = reached.len();
        for (from, to) in &edges {
            if reached.contains(from) {
                reached.insert(to.clone());
            }
        }
        if reached.len() == before {
            break;
        }
    }
    for doc in docs {
        if !reached.contains(&doc.path) {
            failures.push(format!(
                "{}: no link leads to it from README.md, directly or through other pages",
                doc.path
            ));
        }
    }
    failures
}
