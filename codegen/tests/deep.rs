//! Deep specs: the deepest nesting the YAML parser reads, and the deepest the schema depth
//! limit accepts, go through reading, checking, rendering and emitting on a thread with the
//! stack of a spawned thread (2 MiB), and the code emitted compiles; a schema just past the
//! limit is refused where it crosses it.

use toolspec_codegen::MAX_DEPTH;
use toolspec_codegen::{Project, Source, analyze};

mod support;

/// A spec whose input `root` is `levels` objects, one in the next (`f0`, `f1`…), the last
/// field a defaulted string; and an output `grid` that is `wrappers` of `kind` (`array` or
/// `map`, `nullable` or not) one in the next.
fn nested(levels: usize, wrappers: usize, kind: &str, nullable: bool) -> String {
    let mut field = "{ type: string, default: leaf }".to_owned();
    for i in (0..levels).rev() {
        field = format!("{{ type: object, fields: {{ f{i}: {field} }} }}");
    }
    let mut grid = "integer".to_owned();
    let inner = if kind == "array" { "items" } else { "values" };
    for _ in 0..wrappers {
        grid = format!("{{ type: {kind}, nullable: {nullable}, {inner}: {grid} }}");
    }
    format!("description: Deep.\nexpects:\n  root: {field}\nexposes:\n  grid: {grid}\n")
}

/// Reads, checks, renders and (when valid) emits the specs `texts` on a 2 MiB stack.
fn compile_on_small_stack(texts: Vec<String>) -> (Project, Option<String>) {
    let files = texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| (format!("deep{i}.yaml"), text))
        .collect();
    compile_files_on_small_stack(files)
}

/// [`compile_on_small_stack`] for files named `(path, text)`.
fn compile_files_on_small_stack(files: Vec<(String, String)>) -> (Project, Option<String>) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let sources: Vec<Source> = files
                .into_iter()
                .map(|(path, text)| Source { path, text })
                .collect();
            let project = analyze(&sources, &[], "specs");
            project.render_diagnostics();
            let code = (!project.has_errors()).then(|| toolspec_codegen::generate(&project));
            (project, code)
        })
        .expect("a thread")
        .join()
        .expect("no overflow, no panic")
}

fn messages(project: &Project) -> Vec<&str> {
    project
        .diagnostics()
        .iter()
        .map(|d| d.message.as_str())
        .collect()
}

#[test]
fn the_deepest_accepted_specs_compile() {
    // The input schema (1) holds `root` (3) and `f{k}` at 5 + 2k: the string `f13` at 31.
    // The output schema (1) holds `grid` (3), whose items k wrappers down are at 3 + k: the
    // innermost at 32, as `Option<Vec<Option<Vec<…>>>>` or `Option<BTreeMap<…>>` in Rust.
    let (project, code) = compile_on_small_stack(vec![
        nested(14, MAX_DEPTH - 3, "array", false),
        nested(14, MAX_DEPTH - 3, "array", true),
        nested(14, MAX_DEPTH - 3, "map", true),
    ]);
    assert!(!project.has_errors(), "{:?}", project.diagnostics());
    let code = code.expect("emitted");
    assert!(code.contains("pub f13: "));
    support::compiles("deep", &code);
}

#[test]
fn one_level_more_is_refused_where_it_crosses() {
    let (project, _) = compile_on_small_stack(vec![nested(15, 0, "array", false)]);
    assert_eq!(
        messages(&project),
        [format!(
            "`…f4.f5.f6.f7.f8.f9.f10.f11.f12.f13.f14` is nested too deeply: the tool's input schema would be more than {MAX_DEPTH} levels deep"
        )]
    );
    let (project, _) = compile_on_small_stack(vec![nested(1, MAX_DEPTH - 2, "map", false)]);
    assert_eq!(
        messages(&project),
        [format!(
            "`…*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*` is nested too deeply: the tool's output schema would be more than {MAX_DEPTH} levels deep"
        )]
    );
}

#[test]
fn the_deepest_yaml_the_parser_reads_is_checked() {
    // 62 objects are 125 levels of YAML (a field's map and its `fields`), within the parser's
    // 128; far past the schema limit, and reported as such.
    let (project, _) = compile_on_small_stack(vec![nested(62, 0, "array", false)]);
    assert_eq!(
        project.diagnostics().len(),
        1,
        "{:?}",
        project.diagnostics()
    );
    assert!(messages(&project)[0].contains("is nested too deeply"));
    // One more object, and the parser stops.
    let (project, _) = compile_on_small_stack(vec![nested(64, 0, "array", false)]);
    assert!(
        messages(&project)[0].starts_with("invalid YAML: nesting too deep")
            || messages(&project)[0].contains("recursion limit exceeded"),
        "{:?}",
        project.diagnostics()
    );
}

#[test]
fn deep_shapes_are_refused_before_anything_walks_them() {
    // 120 arrays deep: within serde_json's limit, past typify's stack.
    let mut json = "{\"type\": \"string\"}".to_owned();
    let mut yaml = "{ type: string }".to_owned();
    for _ in 0..120 {
        json = format!("{{\"type\": \"array\", \"items\": {json}}}");
        yaml = format!("{{ type: array, items: {yaml} }}");
    }
    let spec = format!(
        "description: Shapes.\nexpects:\n  from_file: {{ shape: {{ file: deep.json }} }}\n  inline: {{ shape: {yaml} }}\n"
    );
    let files = vec![
        ("deep.yaml".to_owned(), spec),
        ("deep.json".to_owned(), json),
    ];
    let (project, _) = compile_files_on_small_stack(files);
    let mut messages = messages(&project);
    messages.sort();
    assert_eq!(
        messages,
        [
            format!("`shape` nests more than {MAX_DEPTH} levels deep"),
            format!("shape file `specs/deep.json` nests more than {MAX_DEPTH} levels deep"),
        ]
    );
}
