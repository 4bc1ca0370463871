//! The stages of a call are one list (`runtime/core/src/pipeline/stages.rs`), and the tables
//! of ARCHITECTURE.md and docs/runtime.md are that list, rendered: each between
//! `<!-- stages:begin -->` and `<!-- stages:end -->`. `EXPECTORATE=overwrite` renders them
//! anew.

use std::path::{Path, PathBuf};

const BEGIN: &str = "<!-- stages:begin -->";
const END: &str = "<!-- stages:end -->";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One stage, its fields as the list writes them.
struct Stage {
    what: String,
    files: String,
    stops_with: String,
    explaining: String,
}

/// The list, read from its source file.
fn stages() -> Vec<Stage> {
    let path = workspace().join("runtime/core/src/pipeline/stages.rs");
    let text = std::fs::read_to_string(&path).expect("the stages' file");
    let file = syn::parse_file(&text).expect("the stages' file parses");
    let list = file
        .items
        .iter()
        .find_map(|item| match item {
            syn::Item::Const(c) if c.ident == "STAGES" => Some(&*c.expr),
            _ => None,
        })
        .expect("a `const STAGES`");
    let syn::Expr::Reference(reference) = list else {
        panic!("`STAGES` is `&[Stage {{ … }}, …]`");
    };
    let syn::Expr::Array(array) = &*reference.expr else {
        panic!("`STAGES` is `&[Stage {{ … }}, …]`");
    };
    array
        .elems
        .iter()
        .map(|element| {
            let syn::Expr::Struct(stage) = element else {
                panic!("each stage is a `Stage {{ … }}`");
            };
            let field = |name: &str| -> String {
                let value = stage
                    .fields
                    .iter()
                    .find(|f| matches!(&f.member, syn::Member::Named(n) if n == name))
                    .unwrap_or_else(|| panic!("a stage without `{name}`"));
                match &value.expr {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(text),
                        ..
                    }) => text.value(),
                    _ => panic!("`{name}` is one string literal"),
                }
            };
            Stage {
                what: field("what"),
                files: field("files"),
                stops_with: field("stops_with"),
                explaining: field("explaining"),
            }
        })
        .collect()
}

/// `text`'s relative links, written from the folder `base` (the list's are relative to
/// `docs/`).
fn linked_from(text: &str, base: &str) -> String {
    if base == "docs" {
        return text.to_owned();
    }
    text.replace("](#", "](docs/runtime.md#")
        .replace("](spec.md", "](docs/spec.md")
}

/// The table of ARCHITECTURE.md: where each stage is.
fn architecture(stages: &[Stage]) -> String {
    let mut table = String::from(
        "| # | stage | file (`pipeline/`) | stops the call with |\n|---|---|---|---|\n",
    );
    for (n, stage) in stages.iter().enumerate() {
        let what = linked_from(&stage.what, ".");
        table += &format!(
            "| {} | {what} | {} | {} |\n",
            n + 1,
            stage.files,
            stage.stops_with
        );
    }
    table
}

/// The table of docs/runtime.md: what each stage does, made and explained.
fn runtime(stages: &[Stage]) -> String {
    let mut table =
        String::from("| # | stage | stops the call with | explaining |\n|---|---|---|---|\n");
    for (n, stage) in stages.iter().enumerate() {
        table += &format!(
            "| {} | {} | {} | {} |\n",
            n + 1,
            stage.what,
            stage.stops_with,
            stage.explaining
        );
    }
    table
}

/// Checks that `page`'s block is `table` (or writes it there, told to).
fn check(page: &str, table: &str) -> Result<(), String> {
    let path = workspace().join(page);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{page}: {e}"))?;
    let (Some(begin), Some(end)) = (text.find(BEGIN), text.find(END)) else {
        return Err(format!("{page} has no `{BEGIN}` … `{END}` block"));
    };
    let start = begin + BEGIN.len();
    let printed = text[start..end].trim_matches('\n');
    if printed == table.trim_end() {
        return Ok(());
    }
    if std::env::var("EXPECTORATE").as_deref() == Ok("overwrite") {
        let written = format!("{}\n{}\n{}", &text[..start], table.trim_end(), &text[end..]);
        std::fs::write(&path, written).map_err(|e| format!("{page}: {e}"))?;
        return Ok(());
    }
    Err(format!(
        "{page}'s table of the stages is not the list in runtime/core/src/pipeline/stages.rs \
         (`EXPECTORATE=overwrite cargo test -p toolspec-test-architecture --test stages` \
         renders it); it should read:\n{table}"
    ))
}

#[test]
fn the_docs_print_the_one_list_of_stages() {
    let stages = stages();
    assert!(stages.len() >= 10, "{} stages", stages.len());
    let errors: Vec<String> = [
        check("ARCHITECTURE.md", &architecture(&stages)),
        check("docs/runtime.md", &runtime(&stages)),
    ]
    .into_iter()
    .filter_map(Result::err)
    .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n\n"));
}
