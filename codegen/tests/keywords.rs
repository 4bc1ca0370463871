//! No name a spec can write panics the compiler or breaks the generated code: every Rust
//! keyword of every edition (strict, reserved and weak) goes through every place a spec name
//! becomes an identifier — fields of inputs, outputs and nested objects (with defaults), named
//! types, error codes, guards, enum values, tagged and untagged union variants and their tag,
//! spec files and folders — and the generated code is compiled with every warning denied.

use std::fmt::Write as _;

use toolspec_codegen::Severity;
use toolspec_codegen::{Project, Source, analyze};

mod support;

/// Every keyword of editions 2015 to 2024, and `_`.
const KEYWORDS: &[&str] = &[
    "as",
    "break",
    "const",
    "continue",
    "crate",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "Self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "async",
    "await",
    "dyn",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "try",
    "gen",
    "macro_rules",
    "union",
    "safe",
    "raw",
    "_",
];

/// The keywords that are spec identifiers (`[a-z][a-z0-9_]*`): error codes, guards, files.
fn lower() -> impl Iterator<Item = &'static str> {
    KEYWORDS
        .iter()
        .copied()
        .filter(|k| k.starts_with(|c: char| c.is_ascii_lowercase()))
}

fn quoted_list(items: impl Iterator<Item = impl std::fmt::Display>) -> String {
    let items: Vec<String> = items.map(|i| format!("\"{i}\"")).collect();
    format!("[{}]", items.join(", "))
}

/// One tool with every keyword as a field (but `Self`, which is `self` to Rust), error code,
/// enum value and tag value.
fn everything_tool() -> String {
    // Gemini has no `$ref`, so no recursive `Self`.
    let mut spec = String::from(
        "description: Every keyword in every place.\ntool: { except: [gemini] }\nexpects:\n",
    );
    for (i, k) in KEYWORDS.iter().filter(|k| **k != "Self").enumerate() {
        match i % 3 {
            0 => writeln!(spec, "  \"{k}\": {{ type: string, default: x }}"),
            1 => writeln!(spec, "  \"{k}\": {{ type: integer, optional: true }}"),
            _ => writeln!(spec, "  \"{k}\": {{ type: boolean }}"),
        }
        .unwrap_or_default();
    }
    let values = quoted_list(KEYWORDS.iter());
    writeln!(
        spec,
        "  choice: {{ type: string, one_of: {values}, default: Self }}"
    )
    .unwrap_or_default();
    // Values that are no identifier at all.
    spec.push_str("  odd: { type: string, one_of: [\"²\", \"🙂\", \"\", Größe, 1st, a-b, a_b] }\n");
    spec.push_str("  nested:\n    type: object\n    fields:\n");
    for k in KEYWORDS.iter().filter(|k| **k != "Self") {
        writeln!(
            spec,
            "      \"{k}\": {{ type: object, fields: {{ \"{k}\": {{ type: string, default: y }} }} }}"
        )
        .unwrap_or_default();
    }
    spec.push_str("  tagged:\n    tag: type\n    any_of:\n");
    for k in KEYWORDS {
        writeln!(
            spec,
            "      \"{k}\": {{ type: object, fields: {{ \"{}\": {{ type: string }} }} }}",
            // The tag is `type`: no variant may have a field of that name.
            if matches!(*k, "Self" | "type") {
                "self"
            } else {
                k
            }
        )
        .unwrap_or_default();
    }
    spec.push_str(
        "  untagged: { any_of: [Self, Option, { type: array, items: Self }] }\nexposes:\n",
    );
    for k in KEYWORDS.iter().filter(|k| **k != "Self") {
        writeln!(spec, "  \"{k}\": {{ type: Self, optional: true }}").unwrap_or_default();
    }
    spec.push_str("errors:\n  codes:\n");
    for k in lower() {
        writeln!(spec, "    \"{k}\": The {k} failed.").unwrap_or_default();
    }
    spec
}

/// A tool with every keyword as a guard (guards and error codes may not share names), and a
/// `shape` (typify names its types) called `self` with keyword properties (not `Self`, which
/// typify spells as it spells `self`).
fn guarded_tool() -> String {
    let properties: Vec<String> = KEYWORDS
        .iter()
        .filter(|k| **k != "Self")
        .map(|k| format!("\"{k}\": {{ type: string }}"))
        .collect();
    let mut spec = format!(
        "description: Every keyword as a guard.\nexpects:\n  self:\n    shape: {{ type: object, properties: {{ {} }} }}\nguards:\n",
        properties.join(", ")
    );
    for k in lower() {
        writeln!(spec, "  \"{k}\": The {k} holds.").unwrap_or_default();
    }
    spec
}

/// Named types called `Self` and after prelude items, with keyword fields.
fn types_file() -> String {
    let mut text = String::from("types:\n  Self:\n    type: object\n    fields:\n");
    for k in KEYWORDS.iter().filter(|k| **k != "Self") {
        writeln!(text, "      \"{k}\": {{ type: string, optional: true }}").unwrap_or_default();
    }
    text.push_str("      children: { type: array, items: Self, optional: true }\n");
    for name in ["Option", "String", "Vec", "Box", "Result"] {
        writeln!(
            text,
            "  {name}: {{ type: string, one_of: {} }}",
            quoted_list(KEYWORDS.iter())
        )
        .unwrap_or_default();
    }
    text
}

fn keyword_project() -> Project {
    let mut sources = vec![
        Source {
            path: "everything.yaml".into(),
            text: everything_tool(),
        },
        Source {
            path: "guarded.yaml".into(),
            text: guarded_tool(),
        },
        Source {
            path: "types.yaml".into(),
            text: types_file(),
        },
    ];
    let mut dirs = Vec::new();
    // A folder and a file named after every keyword (`Self` is `self` to Rust; `_` has no name).
    for k in lower() {
        dirs.push(format!("{k}_dir/{k}"));
        sources.push(Source {
            path: format!("{k}_dir/{k}/{k}.yaml"),
            text: format!("description: The {k} tool.\n"),
        });
    }
    dirs.extend(lower().map(|k| format!("{k}_dir")));
    dirs.sort();
    analyze(&sources, &dirs, "specs")
}

#[test]
fn keywords_in_every_naming_place_compile() {
    let project = keyword_project();
    let errors: Vec<_> = project
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .cloned()
        .collect();
    assert!(
        errors.is_empty(),
        "{}",
        toolspec_codegen::render_all(&errors, project.sources())
    );
    let code = toolspec_codegen::generate(&project);
    if let Err(e) = syn::parse_file(&code) {
        panic!("the generated code does not parse: {e}");
    }
    assert!(code.contains("pub self_: "), "`self` is spelled `self_`");
    assert!(code.contains("#[serde(rename = \"self\")]"));
    assert!(code.contains("pub r#type: "), "other keywords are raw");
    assert!(code.contains("pub struct Self_ {"), "the named type `Self`");
    assert!(code.contains("pub mod self_ {"), "the folder `self`");

    support::compiles("keywords", &code);
}

#[test]
fn names_with_one_rust_spelling_clash_without_panicking() {
    let files = [
        ("self.yaml", "description: One.\n"),
        ("Self.yaml", "description: Two.\n"),
        ("_.yaml", "description: Three.\n"),
        (
            "shaped.yaml",
            "description: Four.\nexpects:\n  s: { shape: { type: object, properties: { self: { type: string }, Self: { type: string } } } }\n",
        ),
    ];
    let sources: Vec<Source> = files
        .iter()
        .map(|(path, text)| Source {
            path: (*path).into(),
            text: (*text).into(),
        })
        .collect();
    let project = analyze(&sources, &[], "specs");
    let messages: Vec<&str> = project
        .diagnostics()
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert!(
        messages
            .contains(&"`self.yaml` and `Self.yaml` both map to the Rust module `tools::self_`")
            || messages.contains(
                &"`Self.yaml` and `self.yaml` both map to the Rust module `tools::self_`"
            ),
        "{messages:?}"
    );
    assert!(
        messages
            .contains(&"`_.yaml` cannot become a Rust module name: `_` has no letters or digits"),
        "{messages:?}"
    );
}
