//! The docs as the tests see them: each Markdown file's fenced blocks (with their info
//! strings), headings and relative links. Plain `std`, so that the build script compiles this
//! same file to write the Rust blocks out as doctests.

use std::path::Path;

/// Opens the README's adopter crate, which `tests/readme_adopter.rs` builds.
pub const ADOPTER_BEGIN: &str = "<!-- adopter-crate:begin -->";
/// Closes it.
pub const ADOPTER_END: &str = "<!-- adopter-crate:end -->";

/// One Markdown file of the docs.
#[derive(Debug, Clone)]
pub struct Doc {
    /// Its path below the repository's root, with `/` (`docs/spec.md`).
    pub path: String,
    /// Its text.
    pub text: String,
    /// Its fenced code blocks, in order.
    pub blocks: Vec<Block>,
    /// Its headings' anchors, as GitHub makes them.
    pub anchors: Vec<String>,
    /// Its links, as written.
    pub links: Vec<Link>,
}

/// A fenced code block.
#[derive(Debug, Clone)]
pub struct Block {
    /// The line of its opening fence, from 1.
    pub line: usize,
    /// The info string's first word: `rust`, `yaml`, `sh`…; empty when there is none.
    pub lang: String,
    /// The info string's other words (`fragment`, `output`, `file=tokens.json`…).
    pub attrs: Vec<String>,
    /// Its lines, without the fences and without the indentation of the opening fence.
    pub body: String,
    /// Whether it is part of the README's adopter crate.
    pub in_adopter: bool,
}

/// A link `[text](target)`.
#[derive(Debug, Clone)]
pub struct Link {
    /// Its line, from 1.
    pub line: usize,
    /// What it points at.
    pub target: String,
}

impl Block {
    /// Whether the info string holds the word `flag`.
    pub fn has(&self, flag: &str) -> bool {
        self.attrs.iter().any(|a| a == flag)
    }

    /// The value of `key=value` in the info string.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find_map(|a| a.strip_prefix(key)?.strip_prefix('='))
    }

    /// The file the block is, when its first line is a comment naming one (`# specs/a.yaml: …`,
    /// `// src/lib.rs: …`) with one of `extensions`.
    pub fn named_file(&self, extensions: &[&str]) -> Option<&str> {
        let first = self.body.lines().next()?;
        let rest = first
            .strip_prefix("// ")
            .or_else(|| first.strip_prefix("# "))?;
        let word = rest.split_whitespace().next()?.trim_end_matches(':');
        let named = extensions
            .iter()
            .any(|ext| word.ends_with(&format!(".{ext}")));
        (named && !word.starts_with('/') && !word.contains("..")).then_some(word)
    }

    /// How the failure of a check names this block: `docs/spec.md:42 (```yaml fragment)`.
    pub fn place(&self, doc: &Doc) -> String {
        let info = std::iter::once(self.lang.as_str())
            .chain(self.attrs.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ");
        format!("{}:{} (```{info})", doc.path, self.line)
    }
}

/// The README and every page of `docs/`, sorted by path.
pub fn docs(root: &Path) -> std::io::Result<Vec<Doc>> {
    let mut paths = vec!["README.md".to_owned()];
    let mut pages = Vec::new();
    for entry in std::fs::read_dir(root.join("docs"))? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            pages.push(format!("docs/{name}"));
        }
    }
    pages.sort();
    paths.extend(pages);
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(root.join(&path))?;
            Ok(parse(&path, &text))
        })
        .collect()
}

/// Reads one Markdown file.
pub fn parse(path: &str, text: &str) -> Doc {
    let mut doc = Doc {
        path: path.to_owned(),
        text: text.to_owned(),
        blocks: Vec::new(),
        anchors: Vec::new(),
        links: Vec::new(),
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut in_adopter = false;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim_start();
        if trimmed.starts_with(ADOPTER_BEGIN) {
            in_adopter = true;
        } else if trimmed.starts_with(ADOPTER_END) {
            in_adopter = false;
        }
        if let Some(info) = trimmed.strip_prefix("```") {
            let indent = line.len() - trimmed.len();
            let mut words = info.split([' ', ',']).filter(|w| !w.is_empty());
            let lang = words.next().unwrap_or_default().to_owned();
            let attrs = words.map(str::to_owned).collect();
            let mut body = Vec::new();
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim() != "```" {
                let text = lines[j];
                let cut = text.len() - text.trim_start().len();
                body.push(&text[cut.min(indent)..]);
                j += 1;
            }
            doc.blocks.push(Block {
                line: i + 1,
                lang,
                attrs,
                body: body.join("\n") + "\n",
                in_adopter,
            });
            i = j + 1;
            continue;
        }
        if let Some(heading) = heading(line) {
            let base = slug(heading);
            let same = doc
                .anchors
                .iter()
                .filter(|a| **a == base || a.strip_prefix(&base).is_some_and(is_suffix))
                .count();
            doc.anchors.push(if same == 0 {
                base
            } else {
                format!("{base}-{same}")
            });
        }
        for target in links(line) {
            doc.links.push(Link {
                line: i + 1,
                target,
            });
        }
        i += 1;
    }
    doc
}

/// `-1`, `-2`…: what GitHub appends to a repeated heading's anchor.
fn is_suffix(rest: &str) -> bool {
    rest.strip_prefix('-')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// The text of an ATX heading (`## Title`).
fn heading(line: &str) -> Option<&str> {
    let hashes = line.len() - line.trim_start_matches('#').len();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    line[hashes..].strip_prefix(' ').map(str::trim)
}

/// A heading's anchor as GitHub makes it: lower case, spaces as `-`, and nothing but letters,
/// digits, `-` and `_`.
pub fn slug(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The targets of the inline links on a line, outside code spans.
fn links(line: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut in_code = false;
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '`' => in_code = !in_code,
            ']' if !in_code && chars.get(i + 1) == Some(&'(') => {
                if let Some(len) = chars[i + 2..].iter().position(|&c| c == ')') {
                    found.push(chars[i + 2..i + 2 + len].iter().collect());
                    i += 2 + len;
                }
            }
            _ => {}
        }
        i += 1;
    }
    found
}
