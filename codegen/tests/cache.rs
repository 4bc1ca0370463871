//! The cache beside the generated file: a compile of an unchanged project runs no stage and
//! leaves the file untouched; after a change it writes exactly what a compile into an empty
//! folder writes; a failing compile reports its errors as without a cache, and records
//! nothing.

mod support;

use std::path::{Path, PathBuf};

use support::copy_dir;
use toolspec_codegen::{Compiled, Config, Error, Reuse};

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A specs folder: the example store's, and a tool whose `message` no adapter shows (a
/// warning).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    copy_dir(&manifest_dir().join("../specs"), dir.path());
    std::fs::create_dir_all(dir.path().join("notes")).expect("a folder");
    std::fs::write(
        dir.path().join("notes/say.yaml"),
        "description: Says something.\nexpects:\n  text: { type: string }\n\
         exposes:\n  said: { type: string }\nmessage: \"Said {{ said }}.\"\n",
    )
    .expect("written");
    dir
}

fn config(out: &Path) -> Config {
    Config::new()
        .out_dir(out)
        .display_root("specs")
        .emit_rerun_if_changed(false)
}

fn compile(specs: &Path, out: &Path) -> Compiled {
    config(out)
        .compile(specs)
        .unwrap_or_else(|e| panic!("compiles:\n{e}"))
}

/// A compile into a new, empty folder (kept while the result is).
fn cold(specs: &Path) -> (tempfile::TempDir, Compiled) {
    let out = tempfile::tempdir().expect("a temp dir");
    let compiled = compile(specs, out.path());
    assert_eq!(compiled.reuse, Reuse::Rebuilt, "a new folder has no cache");
    (out, compiled)
}

/// What identifies a file's version: its bytes, modification time and (on Unix) inode.
fn file_version(path: &Path) -> (Vec<u8>, std::time::SystemTime, u64) {
    let meta = std::fs::metadata(path).expect("the file");
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&meta);
    #[cfg(not(unix))]
    let inode = 0;
    let bytes = std::fs::read(path).expect("the file");
    (bytes, meta.modified().expect("an mtime"), inode)
}

/// Checks that `compiled`, a compile into a folder that held an earlier one's output, wrote
/// and reported what a cold compile of the same specs does.
fn assert_as_cold(specs: &Path, compiled: &Compiled) {
    let (_fresh_out, fresh) = cold(specs);
    let read = |path: &Path| std::fs::read(path).expect("the file");
    assert!(
        read(&compiled.output) == read(&fresh.output),
        "the file differs from a cold compile's"
    );
    assert_eq!(compiled.tools, fresh.tools);
    assert_eq!(compiled.warnings, fresh.warnings);
}

#[test]
fn an_unchanged_project_is_not_compiled_again() {
    let specs = project();
    let out = tempfile::tempdir().expect("a temp dir");
    let first = compile(specs.path(), out.path());
    assert_eq!(first.reuse, Reuse::Rebuilt);
    assert!(!first.warnings.is_empty(), "the project warns");
    let before = file_version(&first.output);
    std::thread::sleep(std::time::Duration::from_millis(20));
    let second = compile(specs.path(), out.path());
    assert_eq!(second.reuse, Reuse::Unchanged, "no stage ran");
    assert_eq!(
        file_version(&second.output),
        before,
        "the file is untouched"
    );
    assert_eq!(second.output, first.output);
    assert_eq!(second.tools, first.tools);
    assert_eq!(second.warnings, first.warnings, "the same warnings");
    let mut cached: Vec<String> = std::fs::read_dir(out.path().join(".toolspec_tools.rs.cache"))
        .expect("the cache's folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    cached.sort();
    assert_eq!(cached, ["state.json"]);

    // Another option is another compile.
    let other = config(out.path())
        .display_root("elsewhere")
        .compile(specs.path());
    let other = other.expect("compiles");
    assert_eq!(other.reuse, Reuse::Rebuilt);
    assert_ne!(
        std::fs::read(&other.output).expect("the file"),
        before.0,
        "the header names the root"
    );
    let back = compile(specs.path(), out.path());
    assert_eq!(back.reuse, Reuse::Rebuilt);
    assert_as_cold(specs.path(), &back);
}

#[test]
fn a_changed_spec_is_compiled_again() {
    let specs = project();
    let out = tempfile::tempdir().expect("a temp dir");
    let first = compile(specs.path(), out.path());
    let cancel = specs.path().join("orders/cancel.yaml");
    let text = std::fs::read_to_string(&cancel).expect("a spec");
    let changed = text.replacen("description: ", "description: Now, ", 1);
    assert_ne!(changed, text);
    std::fs::write(&cancel, changed).expect("written");
    let second = compile(specs.path(), out.path());
    assert_eq!(second.reuse, Reuse::Rebuilt);
    assert_eq!(second.tools, first.tools);
    assert_as_cold(specs.path(), &second);
    assert!(
        std::fs::read_to_string(&second.output)
            .expect("the file")
            .contains("Now, ")
    );

    // A change to what every tool reads (the project's config).
    let config_file = specs.path().join("toolspec.yaml");
    let text = std::fs::read_to_string(&config_file).expect("the config");
    let changed = text.replace("name: explain", "name: explain_call");
    assert_ne!(changed, text);
    std::fs::write(&config_file, changed).expect("written");
    let third = compile(specs.path(), out.path());
    assert_eq!(third.reuse, Reuse::Rebuilt);
    assert_as_cold(specs.path(), &third);
}

#[test]
fn a_changed_shape_file_is_compiled_as_from_scratch() {
    let specs = tempfile::tempdir().expect("a temp dir");
    copy_dir(
        &manifest_dir().join("tests/golden/shapes/specs"),
        specs.path(),
    );
    let out = tempfile::tempdir().expect("a temp dir");
    compile(specs.path(), out.path());
    let canvas = specs.path().join("shapes/canvas.json");
    let text = std::fs::read_to_string(&canvas).expect("a shape");
    let changed = text.replacen(
        "\"properties\": {",
        "\"properties\": { \"zoom\": { \"type\": \"number\" },",
        1,
    );
    assert_ne!(changed, text, "the shape has properties");
    std::fs::write(&canvas, changed).expect("written");
    let second = compile(specs.path(), out.path());
    assert_eq!(second.reuse, Reuse::Rebuilt);
    assert_as_cold(specs.path(), &second);
}

#[test]
fn a_failing_compile_reports_its_errors_and_records_nothing() {
    let specs = project();
    let out = tempfile::tempdir().expect("a temp dir");
    let first = compile(specs.path(), out.path());
    let before = file_version(&first.output);
    let get = specs.path().join("orders/get.yaml");
    let good = std::fs::read_to_string(&get).expect("a spec");
    std::fs::write(&get, good.replace("type: integer", "type: integr")).expect("written");
    let error = |out: &Path| match config(out).compile(specs.path()) {
        Err(Error::Specs { rendered, .. }) => rendered,
        other => panic!("fails: {other:?}"),
    };
    let fresh = tempfile::tempdir().expect("a temp dir");
    let expected = error(fresh.path());
    assert!(expected.contains("integr"), "{expected}");
    assert_eq!(error(out.path()), expected, "reported as without a cache");
    assert_eq!(
        error(out.path()),
        expected,
        "and again: a failure is not cached"
    );
    assert_eq!(
        file_version(&first.output),
        before,
        "the file is left as it was"
    );

    // Back as it was: the file is still the one of these specs.
    std::fs::write(&get, &good).expect("written");
    assert_eq!(compile(specs.path(), out.path()).reuse, Reuse::Unchanged);
    assert_eq!(file_version(&first.output), before);
}

#[test]
fn a_deleted_spec_removes_its_tool() {
    let specs = project();
    let out = tempfile::tempdir().expect("a temp dir");
    let first = compile(specs.path(), out.path());
    std::fs::remove_file(specs.path().join("notes/say.yaml")).expect("removed");
    let second = compile(specs.path(), out.path());
    assert_eq!(second.tools, first.tools - 1);
    assert_eq!(second.reuse, Reuse::Rebuilt);
    let code = std::fs::read_to_string(&second.output).expect("the file");
    assert!(!code.contains("pub mod say"), "the tool's module is gone");
    assert!(!code.contains("notes_say"));
    assert_as_cold(specs.path(), &second);
}

#[test]
fn a_file_changed_or_removed_since_is_generated_again() {
    let specs = project();
    let out = tempfile::tempdir().expect("a temp dir");
    let first = compile(specs.path(), out.path());
    let (_fresh, fresh) = cold(specs.path());
    let code = std::fs::read_to_string(&fresh.output).expect("the file");
    std::fs::write(&first.output, "// edited\n").expect("written");
    let second = compile(specs.path(), out.path());
    assert_eq!(second.reuse, Reuse::Rebuilt);
    assert_eq!(
        std::fs::read_to_string(&second.output).expect("the file"),
        code
    );
    std::fs::remove_file(&second.output).expect("removed");
    let third = compile(specs.path(), out.path());
    assert_eq!(third.reuse, Reuse::Rebuilt);
    assert_eq!(
        std::fs::read_to_string(&third.output).expect("the file"),
        code
    );
    // A record that is not whole is no record.
    let state = out.path().join(".toolspec_tools.rs.cache/state.json");
    let bytes = std::fs::read(&state).expect("a record");
    std::fs::write(&state, &bytes[..bytes.len() / 2]).expect("cut");
    let fourth = compile(specs.path(), out.path());
    assert_eq!(fourth.reuse, Reuse::Rebuilt);
    assert_as_cold(specs.path(), &fourth);
}

#[test]
fn a_file_written_into_the_specs_folder_is_not_read_back() {
    let specs = project();
    let first = compile(specs.path(), specs.path());
    assert!(first.output.starts_with(specs.path()));
    let second = compile(specs.path(), specs.path());
    assert_eq!(
        second.reuse,
        Reuse::Unchanged,
        "the cache's folder is hidden"
    );
}
