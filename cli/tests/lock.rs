//! `toolspec lock` and `toolspec check --locked`, run as a user runs them: the store's
//! committed lock matches its specs, and on a copy of them a change is classified, placed at
//! its line, refused until reviewed, and recorded once the tool's version is raised.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The binary's stderr and exit code.
fn cli(args: &[&str]) -> (String, i32) {
    cli_in(Path::new("."), args)
}

/// The binary's stderr and exit code, run in `dir`.
fn cli_in(dir: &Path, args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_toolspec"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs the toolspec binary");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (stderr, out.status.code().expect("an exit code"))
}

/// A copy of the store's specs folder (its lock included).
fn copy_of_store_specs() -> (tempfile::TempDir, String) {
    let scratch = tempfile::tempdir().expect("a temp dir");
    let to = scratch.path().join("specs");
    copy(&repository().join("specs"), &to);
    (scratch, to.to_string_lossy().into_owned())
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("the specs folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("a copy");
        }
    }
}

fn edit(specs: &str, file: &str, from: &str, to: &str) {
    let path = Path::new(specs).join(file);
    let text = std::fs::read_to_string(&path).expect("the spec");
    assert!(text.contains(from), "{file} has no `{from}`");
    std::fs::write(&path, text.replacen(from, to, 1)).expect("written");
}

#[test]
fn the_store_specs_are_as_locked() {
    let specs = repository().join("specs");
    let (stderr, code) = cli(&["check", "--locked", &specs.to_string_lossy()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("as locked in"), "{stderr}");
}

#[test]
fn a_breaking_change_is_placed_refused_and_recorded_once_the_version_is_raised() {
    let (scratch, specs) = copy_of_store_specs();
    let lock = Path::new(&specs).join("toolspec.lock");
    let locked = std::fs::read_to_string(&lock).expect("the lock");
    edit(
        &specs,
        "orders/cancel.yaml",
        "duplicate, fraud]",
        "duplicate]",
    );

    // Run beside the folder, as a user does: the output is exactly the docs' (docs/cli.md).
    let (stderr, code) = cli_in(scratch.path(), &["check", "--locked", "specs"]);
    assert_eq!(code, 1, "{stderr}");
    expectorate::assert_contents("tests/lock/breaking.txt", &stderr);

    // Not recorded without `--update`, nor with it while the version stays.
    let (stderr, code) = cli(&["lock", &specs]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("`toolspec lock --update"), "{stderr}");
    let (stderr, code) = cli(&["lock", "--update", &specs]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("1 breaking change of orders_cancel: raise the tool's `version`"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&lock).expect("the lock"), locked);

    edit(&specs, "orders/cancel.yaml", "title:", "version: 2\ntitle:");
    let (stderr, code) = cli(&["check", "--locked", &specs]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("[version 0 → 2]"), "{stderr}");
    let (stderr, code) = cli(&["lock", "--update", &specs]);
    assert_eq!(code, 0, "{stderr}");
    let (stderr, code) = cli(&["check", "--locked", &specs]);
    assert_eq!(code, 0, "{stderr}");
    let now = std::fs::read_to_string(&lock).expect("the lock");
    assert!(now.contains("\"version\": 2"), "{now}");
}

#[test]
fn compatible_changes_pass_the_check_and_say_the_lock_is_behind() {
    let (_scratch, specs) = copy_of_store_specs();
    edit(
        &specs,
        "orders/cancel.yaml",
        "Why the order is cancelled.",
        "Why the order is being cancelled.",
    );
    let (stderr, code) = cli(&["check", "--locked", &specs]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("compatible: "), "{stderr}");
    assert!(stderr.contains("`toolspec lock --update"), "{stderr}");
}

#[test]
fn a_missing_or_broken_lock_is_named() {
    let (_scratch, specs) = copy_of_store_specs();
    let lock = Path::new(&specs).join("toolspec.lock");
    std::fs::write(&lock, "{ not json").expect("written");
    let (stderr, code) = cli(&["check", "--locked", &specs]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("toolspec.lock is not a lock:"), "{stderr}");
    let (stderr, code) = cli(&["lock", &specs]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("`--update` writes it again"), "{stderr}");

    std::fs::remove_file(&lock).expect("removed");
    let (stderr, code) = cli(&["check", "--locked", &specs]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("there is no lock at"), "{stderr}");
    let (stderr, code) = cli(&["lock", &specs]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("8 tools"), "{stderr}");
    let (stderr, code) = cli(&["check", "--locked", &specs]);
    assert_eq!(code, 0, "{stderr}");
}
