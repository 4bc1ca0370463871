//! Provider dialects over real specs:
//!
//! - every tool of a corpus (the golden fixtures, the example store and
//!   `codegen/tests/dialects/corpus`, which covers every field type and constraint) is derived
//!   in every dialect and checked by [`check`] against the providers' rules, not by comparing
//!   with a stored copy;
//! - the example store's schemas per dialect are golden files under
//!   `codegen/tests/dialects/store/`;
//! - `codegen/tests/dialects/warnings` and every case under `codegen/tests/dialects/errors`
//!   hold specs and the exact rendered diagnostics (`expected.txt`, as `toolspec check` prints
//!   them).
//!
//! Regenerate the golden and expected files with `EXPECTORATE=overwrite cargo test -p
//! toolspec-codegen dialect`, then review the changes by hand (`git diff`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolspec_vocab::Dialect;

use super::rules::{check, is_recursive};
use crate::derive::dialect::{self as dialect, locate};
use crate::diagnostic::{Severity, render_all};
use crate::project::Project;

const DISPLAY_ROOT: &str = "specs";

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Reads a specs directory the way `toolspec check` does, shown as `specs`.
fn load(dir: &Path) -> Project {
    crate::config::Config::new()
        .display_root(DISPLAY_ROOT)
        .load(dir)
        .expect("a readable specs folder")
}

/// A project from in-memory files.
fn load_files(files: &[(&str, String)]) -> Project {
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    crate::project::from_files(&files)
}

// ---------------------------------------------------------------------------------------------
// The corpus.

/// (name, specs directory) of every project in the corpus.
fn corpus() -> Vec<(String, PathBuf)> {
    let mut out = vec![
        ("store".to_owned(), manifest_dir().join("../specs")),
        (
            "dialects/corpus".to_owned(),
            manifest_dir().join("tests/dialects/corpus/specs"),
        ),
        (
            "dialects/warnings".to_owned(),
            manifest_dir().join("tests/dialects/warnings/specs"),
        ),
    ];
    for entry in std::fs::read_dir(manifest_dir().join("tests/golden")).expect("golden fixtures") {
        let entry = entry.expect("entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        if name != "store" {
            out.push((format!("golden/{name}"), entry.path().join("specs")));
        }
    }
    out.sort();
    out
}

/// The dialects that cannot express a corpus tool, and why (a word of the reason).
fn expected_refusals(tool: &str) -> Vec<(Dialect, &'static str)> {
    use Dialect::*;
    match tool {
        "maps" => vec![(AnthropicStrict, "map"), (OpenAiStrict, "map")],
        "free" => vec![
            (AnthropicStrict, "any JSON value"),
            (OpenAiStrict, "any JSON value"),
        ],
        "recursive" => vec![
            (AnthropicStrict, "contains itself"),
            (Gemini, "contains itself"),
        ],
        // blob: json, labels: map, tree: the recursive `Tree`.
        "kitchen_sink" => vec![
            (AnthropicStrict, "any JSON value"),
            (AnthropicStrict, "map"),
            (AnthropicStrict, "contains itself"),
            (Gemini, "contains itself"),
            (OpenAiStrict, "any JSON value"),
            (OpenAiStrict, "map"),
        ],
        _ => Vec::new(),
    }
}

#[test]
fn every_dialect_of_every_corpus_tool_follows_the_provider_rules() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for (name, dir) in corpus() {
        let project = load(&dir);
        assert!(
            !project.has_errors(),
            "{name} has errors:\n{}",
            render_all(&project.diagnostics, &project.sources)
        );
        for tool in &project.tools {
            let expected = expected_refusals(&tool.name);
            for d in Dialect::ALL {
                let derived = dialect::derive(d, &tool.input_schema);
                let mut refused: Vec<&str> = Vec::new();
                for (dialect, word) in &expected {
                    if *dialect == d {
                        refused.push(word);
                        if !derived.refusals.iter().any(|r| r.reason.contains(word)) {
                            problems.push(format!(
                                "{name}/{}: {d} should refuse ({word}), got {:?}",
                                tool.name, derived.refusals
                            ));
                        }
                    }
                }
                if refused.is_empty() {
                    if !derived.is_expressible() {
                        problems.push(format!(
                            "{name}/{}: {d} refused: {:?}",
                            tool.name, derived.refusals
                        ));
                        continue;
                    }
                    for violation in check(d, &derived.schema, &tool.input_schema) {
                        problems.push(format!("{name}/{}: {violation}", tool.name));
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} outputs checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_explain_tool_embeds_the_compilers_derivations() {
    // The built-in explain tool's dialects are embedded by the runtime, not generated: they
    // must be exactly what the compiler derives from its canonical schema, and follow the
    // provider rules like every other tool.
    let canonical: Value = serde_json::from_str(toolspec::explain::INPUT_SCHEMA).expect("JSON");
    let mut problems = Vec::new();
    for (d, embedded) in toolspec::explain::DIALECTS {
        let (d, name) = (*d, d.name());
        assert!(!d.is_strict(), "explain declares {name}, a strict dialect");
        let derived = dialect::derive(d, &canonical);
        assert!(derived.is_expressible(), "{name}: {:?}", derived.refusals);
        let embedded: Value = serde_json::from_str(embedded).expect("embedded JSON");
        if embedded != derived.schema {
            problems.push(format!(
                "{name}: embedded {embedded}\n  derived  {}",
                derived.schema
            ));
        }
        problems.extend(
            check(d, &embedded, &canonical)
                .into_iter()
                .map(|v| format!("{name}: {v}")),
        );
    }
    let names: Vec<&str> = toolspec::explain::DIALECTS
        .iter()
        .map(|(d, _)| d.name())
        .collect();
    // `mcp` is the canonical schema itself, which a descriptor does not repeat.
    let expected: Vec<&str> = Dialect::ALL
        .iter()
        .filter(|d| !d.is_strict() && **d != Dialect::Mcp)
        .map(|d| d.name())
        .collect();
    assert_eq!(names, expected, "one entry per non-strict dialect, sorted");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_checker_catches_broken_outputs() {
    let canonical = json!({
        "type": "object",
        "properties": { "a": { "type": "string", "maxLength": 3 }, "b": { "type": "integer" } },
        "required": ["a"],
        "additionalProperties": false
    });
    // The canonical schema itself breaks strict rules (maxLength, b not required).
    let strict = check(Dialect::OpenAiStrict, &canonical, &canonical);
    assert!(
        strict.iter().any(|v| v.contains("`maxLength`")),
        "{strict:?}"
    );
    assert!(
        strict.iter().any(|v| v.contains("`required`")),
        "{strict:?}"
    );
    assert!(
        strict.iter().any(|v| v.contains("does not accept null")),
        "{strict:?}"
    );
    let gemini = check(Dialect::Gemini, &canonical, &canonical);
    assert!(
        gemini.iter().any(|v| v.contains("`additionalProperties`")),
        "{gemini:?}"
    );
    assert!(
        gemini.iter().any(|v| v.contains("type \"string\"")),
        "{gemini:?}"
    );
    let anthropic = check(Dialect::AnthropicStrict, &canonical, &canonical);
    assert!(
        anthropic.iter().any(|v| v.contains("`maxLength`")),
        "{anthropic:?}"
    );
    let recursive = json!({
        "type": "object",
        "properties": { "t": { "$ref": "#/$defs/T" } },
        "additionalProperties": false,
        "$defs": { "T": { "type": "object", "properties": { "c": { "type": "array", "items": { "$ref": "#/$defs/T" } } }, "additionalProperties": false } }
    });
    assert!(is_recursive(&recursive));
    assert!(!is_recursive(&canonical));
    let open = json!({ "type": "object" });
    assert!(
        check(Dialect::OpenAi, &open, &open)
            .iter()
            .any(|v| v.contains("missing properties"))
    );
}

/// Each moved constraint is a warning only for a dialect the tool is a member of, and its
/// description states it.
#[test]
fn descriptions_state_what_a_dialect_cannot_express() {
    let project = load(&manifest_dir().join("tests/dialects/corpus/specs"));
    let tool = |name: &str| project.tools.iter().find(|t| t.name == name).expect("tool");
    let strings = dialect::derive(Dialect::OpenAiStrict, &tool("strings").input_schema);
    let short = &strings.schema["properties"]["short"];
    assert_eq!(
        short,
        &json!({
            "type": "string",
            "description": "Short text. Must be at least 1 character. Must be at most 10 characters."
        })
    );
    assert_eq!(
        strings.schema["properties"]["site"],
        json!({ "type": ["string", "null"], "description": "Must be an absolute URI." })
    );
    assert_eq!(
        strings.schema["properties"]["old"]["description"],
        json!("Deprecated. Use `plain`.")
    );
    assert_eq!(
        strings.schema["properties"]["email"]["description"],
        json!("Example: \"a@example.com\", \"b@example.com\".".replace("Example:", "Examples:"))
    );
    assert_eq!(
        strings.schema["properties"]["mode"],
        json!({ "type": ["string", "null"], "enum": ["fast", "slow", null], "description": "Defaults to \"fast\"." })
    );
    // Anthropic strict keeps patterns: the compiler lets through only those the runtime's
    // linear-time engine runs, which have no lookaround or backreferences either.
    let anthropic = dialect::derive(Dialect::AnthropicStrict, &tool("strings").input_schema);
    assert_eq!(
        anthropic.schema["properties"]["lower"]["pattern"],
        json!("^[a-z]+$")
    );
    let collections = dialect::derive(Dialect::AnthropicStrict, &tool("collections").input_schema);
    assert_eq!(
        collections.schema["properties"]["three_to_five"],
        json!({
            "type": "array",
            "items": { "type": "string", "description": "Must be at most 8 characters." },
            "minItems": 1,
            "description": "Must have at least 3 items. Must have at most 5 items."
        })
    );
    // Gemini: numbers in an enum become strings; a nullable named type is written out.
    let numbers = dialect::derive(Dialect::Gemini, &tool("numbers").input_schema);
    assert_eq!(
        numbers.schema["properties"]["size"],
        json!({
            "type": "STRING",
            "enum": ["1", "2", "4"],
            "default": "2",
            "description": "Sent as a string: the integer it spells."
        })
    );
    assert_eq!(
        numbers.schema["properties"]["maybe_size"],
        json!({
            "type": "STRING",
            "nullable": true,
            "enum": ["8", "16"],
            "description": "Sent as a string: the integer it spells."
        })
    );
    let unions = dialect::derive(Dialect::Gemini, &tool("unions").input_schema);
    let away = &unions.schema["properties"]["away"];
    assert_eq!(away["type"], json!("OBJECT"));
    assert_eq!(away["nullable"], json!(true));
    assert_eq!(away["propertyOrdering"], json!(["x", "y", "label"]));
    assert_eq!(
        away["properties"]["y"]["description"],
        json!("Must be greater than -1000. Must be less than 1000.")
    );
    let payment = &unions.schema["properties"]["payment"]["anyOf"][0]["properties"]["method"];
    assert_eq!(payment, &json!({ "type": "STRING", "enum": ["card"] }));
    // openai-strict: a `$ref` with siblings is replaced by its definition.
    let strict_unions = dialect::derive(Dialect::OpenAiStrict, &tool("unions").input_schema);
    assert_eq!(
        strict_unions.schema["properties"]["tint"],
        json!({ "type": "string", "enum": ["red", "green", "blue"], "description": "The tint." })
    );
    // An optional one is a nullable reference, its default stated beside.
    assert_eq!(
        strict_unions.schema["properties"]["color"],
        json!({
            "anyOf": [{ "$ref": "#/$defs/Color" }, { "type": "null" }],
            "description": "Defaults to \"red\"."
        })
    );
    assert_eq!(
        strict_unions.schema["properties"]["home"]["anyOf"],
        json!([{ "$ref": "#/$defs/Point" }, { "type": "null" }])
    );
}

// ---------------------------------------------------------------------------------------------
// Exact diagnostics.

fn rendered(project: &Project) -> String {
    render_all(&project.diagnostics, &project.sources)
}

#[test]
fn accepted_fallbacks_are_not_warned_and_the_rest_sum_up_in_one_line() {
    let note = "description: Keep a note.\nexpects:\n  note: { type: string, max_length: 500 }\n  priority: { type: integer, one_of: [1, 2, 3] }\n";
    let strict = "adapters:\n  openai: { strict: true }\n  anthropic: { strict: true }\n";
    let warned = |config: &str| {
        let project = load_files(&[
            ("toolspec.yaml", format!("{strict}{config}")),
            ("notes/keep.yaml", note.to_owned()),
        ]);
        assert!(!project.has_errors(), "{}", rendered(&project));
        let mut dialects: Vec<&str> = project
            .diagnostics
            .iter()
            .filter_map(|d| d.fallback.map(Dialect::name))
            .collect();
        dialects.dedup();
        (
            dialects.join(" "),
            crate::diagnostic::fallback_summary(&project.diagnostics),
        )
    };
    let (all, summary) = warned("");
    assert_eq!(all, "anthropic-strict gemini openai-strict");
    assert_eq!(
        summary.as_deref(),
        Some(
            "3 schema features are stated in tool descriptions because a dialect cannot express \
             them (anthropic-strict: 1, gemini: 1, openai-strict: 1); `-v` lists each, \
             `fallbacks: { accept: [..] }` in toolspec.yaml accepts them"
        )
    );
    let (some, _) = warned("fallbacks: { accept: [gemini, openai-strict] }\n");
    assert_eq!(some, "anthropic-strict");
    let (none, summary) = warned("fallbacks: { accept: all }\n");
    assert_eq!((none.as_str(), summary), ("", None));
    let project = load_files(&[
        (
            "toolspec.yaml",
            "fallbacks: { accept: [gemnii] }\n".to_owned(),
        ),
        ("notes/keep.yaml", note.to_owned()),
    ]);
    assert!(
        rendered(&project).contains("unknown dialect `gemnii`")
            && rendered(&project).contains("did you mean `gemini`?"),
        "{}",
        rendered(&project)
    );
}

#[test]
fn warnings_name_the_dialect_the_keyword_and_the_spec_line() {
    let dir = manifest_dir().join("tests/dialects/warnings");
    let project = load(&dir.join("specs"));
    assert!(!project.has_errors(), "{}", rendered(&project));
    expectorate::assert_contents(dir.join("expected.txt"), &rendered(&project));

    let lines: Vec<String> = project.diagnostics.iter().map(|d| d.one_line()).collect();
    for expected in [
        "specs/notes/create.yaml:6:3: warning[dialect]: openai-strict cannot express `maxLength` of `note`; it is stated in the description instead",
        "specs/notes/create.yaml:6:3: warning[dialect]: anthropic-strict cannot express `maxLength` of `note`; it is stated in the description instead",
        "specs/notes/create.yaml:7:3: warning[dialect]: openai-strict cannot express `default` of `pinned`; it is stated in the description instead",
        "specs/notes/create.yaml:8:3: warning[dialect]: gemini cannot express the integer `enum` of `priority`; its values are sent as strings and the description says so",
        // Not a dialect's: a `message` none of the tool's adapters shows (`notes_create`'s is
        // shown by `anthropic`, with `present_as: message`).
        "specs/notes/quiet.yaml:6:1: warning[unused]: the `message` of `notes_quiet` is never shown: none of its adapters has `present_as: message`",
    ] {
        assert!(
            lines.iter().any(|l| l == expected),
            "missing `{expected}` in:\n{}",
            lines.join("\n")
        );
    }
    // One warning per (dialect, place, keyword): the named type warns once, at its definition.
    let mut seen = BTreeSet::new();
    for d in &project.diagnostics {
        assert_eq!(d.severity, Severity::Warning);
        assert!(seen.insert(d.one_line()), "duplicate: {}", d.one_line());
    }
    let unused: Vec<&String> = lines.iter().filter(|l| l.contains("[unused]")).collect();
    assert_eq!(unused.len(), 1, "{unused:?}");
    // Dialects the tools are not members of do not warn.
    assert!(!lines.iter().any(|l| l.contains("warning: openai cannot")));
    // The members' dialects are embedded; others are not.
    let create = project
        .tools
        .iter()
        .find(|t| t.name == "notes_create")
        .expect("tool");
    let names: Vec<&str> = create.dialects.keys().map(|d| d.name()).collect();
    // `openai` for rig, a member too; never `mcp`, the canonical schema itself.
    assert_eq!(
        names,
        ["anthropic-strict", "gemini", "openai", "openai-strict"]
    );
    let quiet = project
        .tools
        .iter()
        .find(|t| t.name == "notes_quiet")
        .expect("tool");
    let names: Vec<&str> = quiet.dialects.keys().map(|d| d.name()).collect();
    assert_eq!(names, ["openai"]);
}

/// Every folder under `tests/dialects/errors` must fail with exactly its `expected.txt`.
#[test]
fn inexpressible_schemas_fail_the_build_with_the_reason() {
    let root = manifest_dir().join("tests/dialects/errors");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("error cases")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 6);
    for case in cases {
        let project = load(&case.join("specs"));
        assert!(project.has_errors(), "{} reports no error", case.display());
        expectorate::assert_contents(case.join("expected.txt"), &rendered(&project));
    }
}

fn strict_project(tool: String) -> Project {
    load_files(&[
        (
            "toolspec.yaml",
            "adapters: { openai: { strict: true } }\nmembership: { default: none }\n".to_owned(),
        ),
        ("big.yaml", tool),
    ])
}

#[test]
fn openai_strict_limits_are_checked() {
    // 5001 properties: 51 objects of 98 fields, plus their 51 keys.
    let mut spec = String::from("description: Many properties.\ntool: [openai]\nexpects:\n");
    for i in 0..51 {
        spec.push_str(&format!("  o{i}:\n    type: object\n    fields:\n"));
        for j in 0..98 {
            spec.push_str(&format!("      f{j}: {{ type: boolean }}\n"));
        }
    }
    let project = strict_project(spec);
    let errors: Vec<String> = project.diagnostics.iter().map(|d| d.one_line()).collect();
    assert_eq!(
        errors,
        [
            "specs/big.yaml: error[dialect]: tool `big` cannot be expressed in openai-strict: it has 5049 object properties in all, and openai-strict allows at most 5000"
        ]
    );

    // 1001 enum values.
    let values: Vec<String> = (0..1001).map(|i| format!("v{i}")).collect();
    let spec = format!(
        "description: Many values.\ntool: [openai]\nexpects:\n  pick: {{ type: string, one_of: [{}] }}\n",
        values.join(", ")
    );
    let project = strict_project(spec);
    let errors: Vec<String> = project.diagnostics.iter().map(|d| d.one_line()).collect();
    assert_eq!(
        errors,
        [
            "specs/big.yaml: error[dialect]: tool `big` cannot be expressed in openai-strict: its enums have 1001 values in all, and openai-strict allows at most 1000"
        ]
    );

    // Exactly 5000 properties and 1000 values pass.
    let values: Vec<String> = (0..1000).map(|i| format!("v{i}")).collect();
    let spec = format!(
        "description: Enough values.\ntool: [openai]\nexpects:\n  pick: {{ type: string, one_of: [{}] }}\n",
        values.join(", ")
    );
    assert!(!strict_project(spec).has_errors());
    let mut spec = String::from("description: Enough properties.\ntool: [openai]\nexpects:\n");
    for i in 0..50 {
        spec.push_str(&format!("  o{i}:\n    type: object\n    fields:\n"));
        for j in 0..99 {
            spec.push_str(&format!("      f{j}: {{ type: boolean }}\n"));
        }
    }
    assert!(!strict_project(spec).has_errors());
}

#[test]
fn the_strict_setting_picks_the_dialect() {
    let files = |tool_line: &str| {
        vec![
            (
                "toolspec.yaml",
                "adapters: { openai: { strict: false }, anthropic: { strict: true } }\n".to_owned(),
            ),
            (
                "t.yaml",
                format!(
                    "description: T.\nexpects:\n  n: {{ type: string, max_length: 3 }}\n{tool_line}"
                ),
            ),
        ]
    };
    let project = load_files(&files(""));
    let names: Vec<&str> = project.tools[0].dialects.keys().map(|d| d.name()).collect();
    assert_eq!(names, ["anthropic-strict", "gemini", "openai"]);
    // Tool overrides win over the project default; rig keeps `openai`.
    let project = load_files(&files(
        "tool: { openai: { strict: true }, anthropic: { strict: false } }\n",
    ));
    let names: Vec<&str> = project.tools[0].dialects.keys().map(|d| d.name()).collect();
    assert_eq!(names, ["anthropic", "gemini", "openai", "openai-strict"]);
    let project = load_files(&files(
        "tool: { openai: { strict: true }, except: [rig] }\n",
    ));
    let names: Vec<&str> = project.tools[0].dialects.keys().map(|d| d.name()).collect();
    assert_eq!(names, ["anthropic-strict", "gemini", "openai-strict"]);
    let project = load_files(&files("tool: [rig, http]\n"));
    let names: Vec<&str> = project.tools[0].dialects.keys().map(|d| d.name()).collect();
    assert_eq!(names, ["openai"]);
    assert!(project.diagnostics.is_empty());
}

// ---------------------------------------------------------------------------------------------
// The example store: golden native definitions per dialect, and the CLI.

/// The store's input schema of every tool in `dialect`, whatever their membership, by name.
fn store_schemas(project: &Project, dialect: Dialect) -> Value {
    let mut out = serde_json::Map::new();
    for t in &project.tools {
        let derived = dialect::derive(dialect, &t.input_schema);
        assert!(
            derived.is_expressible(),
            "{}: {:?}",
            t.name,
            derived.refusals
        );
        out.insert(t.name.clone(), derived.schema);
    }
    Value::Object(out)
}

#[test]
fn store_dialects_match_golden_files() {
    let project = load(&manifest_dir().join("../specs"));
    assert!(!project.has_errors(), "{}", rendered(&project));
    for dialect in Dialect::ALL {
        let json =
            serde_json::to_string_pretty(&store_schemas(&project, dialect)).expect("json") + "\n";
        let path = manifest_dir().join(format!("tests/dialects/store/{dialect}.json"));
        expectorate::assert_contents(path, &json);
    }
}

/// Schemas no field type produces (a `shape` can hold any JSON Schema) never make a dialect
/// panic or loop; whatever it cannot express it refuses with a reason.
#[test]
fn exotic_schemas_never_panic() {
    let exotic = [
        json!({ "type": "object", "properties": { "a": true, "b": false } }),
        json!({ "type": "object", "properties": { "a": { "$ref": "#" } } }),
        json!({ "type": "object", "properties": { "a": { "$ref": "#/$defs/missing" } } }),
        json!({ "type": "object", "properties": { "a": { "$ref": "#/$defs/A", "description": "x" } },
                "$defs": { "A": { "$ref": "#/$defs/B", "title": "alias" }, "B": { "$ref": "#/$defs/A" } } }),
        json!({ "type": "object", "properties": { "a": { "type": 5, "enum": "x", "items": [1, 2] } } }),
        json!({ "type": "object", "properties": { "a": { "type": ["string", "integer", "null"], "minLength": 2 } } }),
        json!({ "type": "object", "properties": { "a": { "anyOf": [{ "type": "null" }] } } }),
        json!({ "type": "object", "properties": { "a": { "not": { "type": "string" } } } }),
        json!({ "type": "object", "properties": { "a": { "allOf": [{ "type": "string" }, { "maxLength": 3 }],
                "if": { "minLength": 1 }, "then": { "pattern": "x" }, "else": { "const": "" } } } }),
        json!({ "type": "object", "properties": { "a": { "type": "array", "prefixItems": [{ "type": "string" }],
                "contains": { "const": 1 }, "minContains": 1 } } }),
        json!({ "type": "object", "properties": { "a": { "type": "object",
                "patternProperties": { "^x": { "type": "integer" } }, "propertyNames": { "maxLength": 3 },
                "dependentRequired": { "x": ["y"] } } } }),
        json!({ "type": "object", "properties": { "a": { "enum": [1, "two", null, [3], { "four": 4 }] } } }),
        json!({ "type": "object", "properties": { "a": { "const": { "k": [1] } } } }),
        json!({ "type": "object", "properties": { "a": { "$defs": { "N": { "type": "string" } }, "$ref": "#/properties/a/$defs/N" } } }),
        json!({ "properties": "nonsense", "required": 3, "additionalProperties": "no" }),
        json!(true),
        json!({}),
    ];
    for schema in &exotic {
        for d in Dialect::ALL {
            let derived = dialect::derive(d, schema);
            for r in &derived.refusals {
                assert!(!r.reason.is_empty());
            }
            if derived.is_expressible() && d != Dialect::Mcp && schema.is_object() {
                // Whatever a strict dialect accepts follows its rules.
                if matches!(
                    d,
                    Dialect::OpenAiStrict | Dialect::AnthropicStrict | Dialect::Gemini
                ) && schema.get("type") == Some(&json!("object"))
                {
                    let violations: Vec<String> = check(d, &derived.schema, schema)
                        .into_iter()
                        .filter(|v| !v.contains("root properties"))
                        .collect();
                    assert!(
                        violations.is_empty(),
                        "{schema}\n{d}: {violations:?}\n{}",
                        derived.schema
                    );
                }
            }
        }
    }
}

/// Paths through a schema map back to the spec line of the field they came from, through
/// arrays, maps, unions, nullable wrappers and named types.
#[test]
fn paths_map_back_to_fields() {
    use crate::schema_tree::Seg::{Branch, Def, Items, Prop, Values};
    let project = load(&manifest_dir().join("../codegen/tests/golden/fields/specs"));
    let sink = project
        .tools
        .iter()
        .find(|t| t.name == "kitchen_sink")
        .expect("sink");
    let at = |path: Vec<crate::schema_tree::Seg>| {
        let l = locate::locate(&sink.spec, &project.types, &path);
        let span = l.span.map(|s| (s.start.line, s.start.col));
        (
            l.file.rsplit('/').next().unwrap_or_default().to_owned(),
            span,
            l.display,
        )
    };
    let p = |s: &str| Prop(s.to_owned());
    assert_eq!(
        at(vec![p("text")]),
        ("sink.yaml".into(), Some((7, 3)), "text".into())
    );
    assert_eq!(
        at(vec![p("items"), Items, p("qty")]),
        ("sink.yaml".into(), Some((31, 9)), "items[].qty".into())
    );
    assert_eq!(at(vec![p("labels"), Values]).2, "labels.*");
    assert_eq!(
        at(vec![p("payment"), Branch(0), p("number")]).2,
        "payment.number"
    );
    assert_eq!(
        at(vec![p("home"), p("zip")]),
        ("types.yaml".into(), Some((9, 7)), "Address.zip".into())
    );
    assert_eq!(
        at(vec![Def("Address".into()), p("street")]).2,
        "Address.street"
    );
    assert_eq!(
        at(vec![p("tree"), p("children"), Items]).2,
        "Tree.children[]"
    );
    assert_eq!(at(vec![]), ("sink.yaml".into(), None, String::new()));
}

#[test]
fn the_task_status_tool_has_every_dialect_and_each_follows_the_provider_rules() {
    // The compiler derives the built-in task status tool's dialects when it offers the tool;
    // one it could not derive would be dropped, so every one must be derivable.
    let canonical: Value =
        serde_json::from_str(toolspec_vocab::tasks::status_tool::INPUT_SCHEMA).expect("JSON");
    let mut problems = Vec::new();
    for d in Dialect::ALL.into_iter().filter(|d| *d != Dialect::Mcp) {
        let derived = dialect::derive(d, &canonical);
        assert!(
            derived.is_expressible(),
            "{}: {:?}",
            d.name(),
            derived.refusals
        );
        problems.extend(
            check(d, &derived.schema, &canonical)
                .into_iter()
                .map(|v| format!("{}: {v}", d.name())),
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
