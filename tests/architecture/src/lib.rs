//! The module graph of a crate, read from its sources with `syn`: which module names a path
//! into which other module. Used by `tests/layout.rs` to keep the crates' layering honest.
//!
//! A module is a file (`dialect/openai.rs` is `dialect::openai`) or an inline `mod` block.
//! An edge `a → b` means code in `a` names a path that lies in `b` (through `crate::`,
//! `super::`, `self::`, or a child module's name); the edge goes to the deepest module the
//! path reaches, so `use crate::spec::model::Field` is an edge to `spec::model`. Declaring a
//! module (`mod b;`) is not an edge, and test code (`#[cfg(test)]`) is left out.
//!
//! [`folders`] reads the same graph one level up: each top-level module of the crate (a folder
//! or a file directly under `src/`) is one node, so that folders layer as files do.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// A module's path below the crate root (empty: the root).
pub type ModulePath = Vec<String>;

/// The modules of one crate and the edges between them.
#[derive(Debug, Default)]
pub struct Graph {
    /// Every module, with the file it is in.
    pub modules: BTreeMap<ModulePath, PathBuf>,
    /// `from → to`, each with one path that makes it (for messages).
    pub edges: BTreeMap<(ModulePath, ModulePath), String>,
}

/// Reads the crate whose root file is `src/lib.rs` (or `main.rs`) under `src`.
pub fn read_crate(src: &Path) -> Result<Graph, String> {
    let root = ["lib.rs", "main.rs"]
        .iter()
        .map(|name| src.join(name))
        .find(|p| p.exists())
        .ok_or_else(|| format!("{}: no lib.rs or main.rs", src.display()))?;
    let mut files = Vec::new();
    collect_files(&root, src, Vec::new(), &mut files)?;
    let mut graph = Graph::default();
    let mut parsed = Vec::new();
    for (module, file) in files {
        let text =
            std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let ast = syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let mut inline = Vec::new();
        inline_modules(&ast.items, &module, &mut inline);
        for m in inline {
            graph.modules.insert(m, file.clone());
        }
        graph.modules.insert(module.clone(), file.clone());
        parsed.push((module, ast));
    }
    for (module, ast) in &parsed {
        let mut collector = Paths {
            graph_modules: &graph.modules,
            current: module.clone(),
            found: Vec::new(),
        };
        for item in &ast.items {
            collector.item(item);
        }
        for (from, path) in collector.found {
            if let Some(to) = deepest_module(&graph.modules, &path)
                && to != from
            {
                graph
                    .edges
                    .entry((from, to))
                    .or_insert_with(|| path.join("::"));
            }
        }
    }
    Ok(graph)
}

/// Files of the module tree below `file` (module `module`), following `mod x;` declarations
/// the way rustc does (`x.rs` or `x/mod.rs` next to a `mod.rs`/`lib.rs`, else in a folder
/// named after the file).
fn collect_files(
    file: &Path,
    src: &Path,
    module: ModulePath,
    out: &mut Vec<(ModulePath, PathBuf)>,
) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let ast = syn::parse_file(&text).map_err(|e| format!("{}: {e}", file.display()))?;
    let dir = match file.file_name().and_then(|n| n.to_str()) {
        Some("lib.rs" | "main.rs" | "mod.rs") => file.parent().map(Path::to_path_buf),
        _ => file
            .parent()
            .map(|p| p.join(file.file_stem().unwrap_or_default())),
    }
    .unwrap_or_else(|| src.to_path_buf());
    out.push((module.clone(), file.to_path_buf()));
    declared_files(&ast.items, &dir, &module, src, out)
}

fn declared_files(
    items: &[syn::Item],
    dir: &Path,
    module: &ModulePath,
    src: &Path,
    out: &mut Vec<(ModulePath, PathBuf)>,
) -> Result<(), String> {
    for item in items {
        let syn::Item::Mod(m) = item else { continue };
        if is_test(&m.attrs) {
            continue;
        }
        let name = m.ident.to_string();
        let mut child = module.clone();
        child.push(name.clone());
        match &m.content {
            Some((_, inner)) => declared_files(inner, &dir.join(&name), &child, src, out)?,
            None => {
                let flat = dir.join(format!("{name}.rs"));
                let nested = dir.join(&name).join("mod.rs");
                let file = if flat.exists() { flat } else { nested };
                collect_files(&file, src, child, out)?;
            }
        }
    }
    Ok(())
}

fn inline_modules(items: &[syn::Item], module: &ModulePath, out: &mut Vec<ModulePath>) {
    for item in items {
        if let syn::Item::Mod(m) = item
            && !is_test(&m.attrs)
            && let Some((_, inner)) = &m.content
        {
            let mut child = module.clone();
            child.push(m.ident.to_string());
            inline_modules(inner, &child, out);
            out.push(child);
        }
    }
}

/// `#[cfg(test)]` (also inside `all(…)`).
fn is_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && {
            let mut test = false;
            let _ = a.parse_nested_meta(|meta| {
                test |= meta.path.is_ident("test");
                Ok(())
            });
            test
        }
    })
}

/// The deepest module `path` lies in.
fn deepest_module(modules: &BTreeMap<ModulePath, PathBuf>, path: &[String]) -> Option<ModulePath> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|prefix| modules.contains_key(prefix))
}

/// Collects the absolute paths each module names.
struct Paths<'g> {
    graph_modules: &'g BTreeMap<ModulePath, PathBuf>,
    current: ModulePath,
    found: Vec<(ModulePath, Vec<String>)>,
}

impl Paths<'_> {
    fn item(&mut self, item: &syn::Item) {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Trait(t) => &t.attrs,
            syn::Item::Type(t) => &t.attrs,
            _ => &Vec::new(),
        };
        if is_test(attrs) {
            return;
        }
        match item {
            syn::Item::Mod(m) => self.module(m),
            syn::Item::Use(u) => self.use_tree(&u.tree, Vec::new()),
            other => self.visit_item(other),
        }
    }

    fn module(&mut self, m: &syn::ItemMod) {
        if is_test(&m.attrs) {
            return;
        }
        if let Some((_, inner)) = &m.content {
            self.current.push(m.ident.to_string());
            for i in inner {
                self.item(i);
            }
            self.current.pop();
        }
    }

    fn use_tree(&mut self, tree: &syn::UseTree, prefix: Vec<String>) {
        let with = |name: &syn::Ident| {
            let mut p = prefix.clone();
            p.push(name.to_string());
            p
        };
        match tree {
            syn::UseTree::Path(p) => self.use_tree(&p.tree, with(&p.ident)),
            syn::UseTree::Name(n) => self.record(with(&n.ident)),
            syn::UseTree::Rename(r) => self.record(with(&r.ident)),
            syn::UseTree::Glob(_) => self.record(prefix),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(t, prefix.clone());
                }
            }
        }
    }

    /// Records `segments` as an absolute path when it starts at `crate`, `super`, `self` or a
    /// child module of the current one; other paths (other crates, local names) are skipped.
    fn record(&mut self, segments: Vec<String>) {
        let Some(first) = segments.first() else {
            return;
        };
        let absolute = match first.as_str() {
            "crate" => segments[1..].to_vec(),
            "self" => [self.current.clone(), segments[1..].to_vec()].concat(),
            "super" => {
                let mut base = self.current.clone();
                let mut rest = &segments[..];
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop();
                    rest = &rest[1..];
                }
                [base, rest.to_vec()].concat()
            }
            _ => {
                let child = [self.current.clone(), vec![first.clone()]].concat();
                if !self.graph_modules.contains_key(&child) {
                    return;
                }
                [self.current.clone(), segments].concat()
            }
        };
        self.found.push((self.current.clone(), absolute));
    }
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
        self.record(segments);
        syn::visit::visit_path(self, path);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        self.module(m);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&u.tree, Vec::new());
    }

    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    /// `pub(crate)` and `pub(super)` name no item.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
}

/// The graph of `graph`'s top-level modules: each module counts as the top-level module it is
/// in (`invoker::plan` as `invoker`; the root as itself), and an edge between two modules as
/// an edge between their top-level modules, unless both are in the same one.
pub fn folders(graph: &Graph) -> Graph {
    let top = |module: &ModulePath| module.iter().take(1).cloned().collect::<ModulePath>();
    let mut folders = Graph::default();
    for (module, file) in &graph.modules {
        let folder = top(module);
        // The folder's own file: `mod.rs`, or the file of a top-level module without children.
        if module.len() <= 1 {
            folders.modules.insert(folder, file.clone());
        } else {
            folders
                .modules
                .entry(folder)
                .or_insert_with(|| file.clone());
        }
    }
    for ((from, to), via) in &graph.edges {
        let (from_folder, to_folder) = (top(from), top(to));
        if from_folder != to_folder {
            folders
                .edges
                .entry((from_folder, to_folder))
                .or_insert_with(|| format!("{via} in {}", show(from)));
        }
    }
    folders
}

/// The top-level modules a crate root's `## Layout` doc section names, in the order they are
/// first named (as `` `name` `` or ``[`name`]``); `None` without such a section.
pub fn layout(root: &str) -> Option<Vec<String>> {
    let doc: Vec<&str> = root
        .lines()
        .take_while(|l| l.starts_with("//!") || l.trim().is_empty())
        .map(|l| l.trim_start_matches("//!").trim())
        .collect();
    let start = doc.iter().position(|l| *l == "## Layout")?;
    let section = doc[start + 1..]
        .iter()
        .take_while(|l| !l.starts_with("## "))
        .copied()
        .collect::<Vec<_>>()
        .join(" ");
    let mut names: Vec<String> = Vec::new();
    for piece in section.split('`').skip(1).step_by(2) {
        let name = piece.trim();
        let is_name = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if is_name && !names.iter().any(|n| n == name) {
            names.push(name.to_owned());
        }
    }
    Some(names)
}

/// What is wrong with `listed` (a crate root's layout, see [`layout`]) against the crate's
/// top-level `graph` ([`folders`]): a file-backed top-level module it does not name, and each
/// edge from a module to one named after it.
pub fn layout_errors(graph: &Graph, root_file: &Path, listed: &[String]) -> Vec<String> {
    let position = |module: &ModulePath| {
        module
            .first()
            .and_then(|name| listed.iter().position(|l| l == name))
    };
    let mut errors = Vec::new();
    for (module, file) in &graph.modules {
        if module.len() == 1 && file != root_file && position(module).is_none() {
            errors.push(format!("`{}` is not in the layout", show(module)));
        }
    }
    for ((from, to), via) in &graph.edges {
        if let (Some(f), Some(t)) = (position(from), position(to))
            && t > f
        {
            errors.push(format!(
                "`{}` is listed before `{}`, which it depends on ({via})",
                show(from),
                show(to)
            ));
        }
    }
    errors
}

/// For each group of modules that depend on each other around a circle, one shortest such
/// circle: its edges `(from, to, a path that makes the edge)`.
pub fn cycles(graph: &Graph) -> Vec<Vec<(String, String, String)>> {
    let names: Vec<&ModulePath> = graph.modules.keys().collect();
    let index: BTreeMap<&ModulePath, usize> =
        names.iter().enumerate().map(|(i, m)| (*m, i)).collect();
    let mut g = petgraph::graph::DiGraph::<(), ()>::new();
    let nodes: Vec<_> = names.iter().map(|_| g.add_node(())).collect();
    for (from, to) in graph.edges.keys() {
        g.add_edge(nodes[index[from]], nodes[index[to]], ());
    }
    petgraph::algo::kosaraju_scc(&g)
        .into_iter()
        .filter(|scc| scc.len() > 1)
        .map(|scc| {
            let members: BTreeSet<usize> = scc.iter().map(|n| n.index()).collect();
            let circle = shortest_circle(&g, &members);
            circle
                .windows(2)
                .map(|w| {
                    let (from, to) = (names[w[0]], names[w[1]]);
                    let via = graph.edges[&(from.clone(), to.clone())].clone();
                    (show(from), show(to), via)
                })
                .collect()
        })
        .collect()
}

/// A shortest circle through the first of `members` (a strongly connected set), as node
/// indices, first and last the same.
fn shortest_circle(g: &petgraph::graph::DiGraph<(), ()>, members: &BTreeSet<usize>) -> Vec<usize> {
    let start = *members.iter().next().unwrap_or(&0);
    let mut parent: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for next in g.neighbors(petgraph::graph::NodeIndex::new(node)) {
            let next = next.index();
            if !members.contains(&next) {
                continue;
            }
            if next == start {
                let mut circle = vec![start, node];
                let mut at = node;
                while at != start {
                    at = parent[&at];
                    circle.push(at);
                }
                circle.reverse();
                return circle;
            }
            if let std::collections::btree_map::Entry::Vacant(e) = parent.entry(next) {
                e.insert(node);
                queue.push_back(next);
            }
        }
    }
    vec![start]
}

/// `crate` or `a::b`.
pub fn show(module: &ModulePath) -> String {
    if module.is_empty() {
        "crate".to_owned()
    } else {
        module.join("::")
    }
}

/// Lines of a file that are not test code: everything before a trailing `#[cfg(test)]` module.
pub fn non_test_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let end = lines
        .iter()
        .enumerate()
        .position(|(i, l)| {
            l.trim() == "#[cfg(test)]"
                && lines[i + 1..]
                    .iter()
                    .find(|n| !n.trim().is_empty())
                    .is_some_and(|n| n.trim_start().starts_with("mod "))
        })
        .unwrap_or(lines.len());
    lines[..end].len()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `files` (path below `src/`, text) into a new crate folder.
    fn crate_of(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("a temporary folder");
        for (path, text) in files {
            let file = dir.path().join(path);
            std::fs::create_dir_all(file.parent().expect("a parent")).expect("a folder");
            std::fs::write(file, text).expect("a file");
        }
        dir
    }

    #[test]
    fn two_folders_that_use_each_other_are_a_cycle_though_no_two_files_are() {
        let dir = crate_of(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a/mod.rs", "mod x;\nmod w;\n"),
            ("a/x.rs", "use crate::b::y::Y;\npub struct X(Y);\n"),
            ("a/w.rs", "pub struct W;\n"),
            ("b/mod.rs", "mod y;\nmod z;\n"),
            ("b/y.rs", "pub struct Y;\n"),
            ("b/z.rs", "use crate::a::w::W;\npub struct Z(W);\n"),
        ]);
        let graph = read_crate(dir.path()).expect("the crate parses");
        assert!(cycles(&graph).is_empty(), "no file depends on itself");
        let circles = cycles(&folders(&graph));
        assert_eq!(circles.len(), 1, "{circles:?}");
        let edges: Vec<(&str, &str)> = circles[0]
            .iter()
            .map(|(from, to, _)| (from.as_str(), to.as_str()))
            .collect();
        assert_eq!(edges, [("a", "b"), ("b", "a")]);
        assert_eq!(circles[0][0].2, "b::y::Y in a::x");
    }

    #[test]
    fn the_layout_names_every_module_before_the_ones_using_it() {
        let dir = crate_of(&[
            (
                "lib.rs",
                "//! ## Layout\n//!\n//! - `b`: below;\n//! - [`a`]: above.\nmod a;\nmod b;\nmod c;\n",
            ),
            ("a.rs", "use crate::b::Y;\npub struct X(Y);\n"),
            ("b.rs", "pub struct Y;\n"),
            ("c.rs", "use crate::a::X;\npub struct Z(X);\n"),
        ]);
        let root = dir.path().join("lib.rs");
        let listed = layout(&std::fs::read_to_string(&root).expect("lib.rs")).expect("a layout");
        assert_eq!(listed, ["b", "a"]);
        let graph = folders(&read_crate(dir.path()).expect("the crate parses"));
        assert_eq!(
            layout_errors(&graph, &root, &listed),
            ["`c` is not in the layout"]
        );
        let upside_down = ["a".to_owned(), "b".to_owned(), "c".to_owned()];
        assert_eq!(
            layout_errors(&graph, &root, &upside_down),
            ["`a` is listed before `b`, which it depends on (b::Y in a)"]
        );
    }

    #[test]
    fn folders_that_layer_have_no_cycle() {
        let dir = crate_of(&[
            ("lib.rs", "mod a;\nmod b;\n"),
            ("a/mod.rs", "mod x;\n"),
            ("a/x.rs", "use crate::b::Y;\npub struct X(Y);\n"),
            ("b.rs", "pub struct Y;\n"),
        ]);
        let graph = folders(&read_crate(dir.path()).expect("the crate parses"));
        assert!(cycles(&graph).is_empty());
        assert!(
            graph
                .edges
                .contains_key(&(vec!["a".into()], vec!["b".into()]))
        );
    }
}
