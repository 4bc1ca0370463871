//! A build that requires the contract lock (`contract_lock: required`): it compiles while the
//! specs are as locked, fails at the spec's line on a change that is breaking or needs review,
//! sees a change of the lock alone (the lock is in the cache's digest), and names a missing
//! lock or a wrong setting.

mod support;

use std::path::{Path, PathBuf};

use support::copy_dir;
use toolspec_codegen::lock::LOCK_FILE_NAME;
use toolspec_codegen::{Config, Error};

/// The example store's specs (with their lock), in a folder of their own, requiring the lock.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temp dir");
    copy_dir(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../specs"),
        dir.path(),
    );
    let config = dir.path().join("toolspec.yaml");
    let text = std::fs::read_to_string(&config).expect("the config");
    std::fs::write(&config, format!("{text}contract_lock: required\n")).expect("written");
    dir
}

/// The rendered errors of a compile, or `None` when it succeeds.
fn compile(specs: &Path, out: &Path) -> Option<String> {
    let compiled = Config::new()
        .out_dir(out)
        .display_root("specs")
        .emit_rerun_if_changed(false)
        .compile(specs);
    match compiled {
        Ok(_) => None,
        Err(Error::Specs { rendered, .. }) => Some(rendered),
        Err(e) => panic!("not a specs error: {e}"),
    }
}

fn edit(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("the file");
    assert!(text.contains(from), "{} has no `{from}`", path.display());
    std::fs::write(path, text.replacen(from, to, 1)).expect("written");
}

#[test]
fn a_change_the_lock_does_not_hold_fails_the_build_at_its_line() {
    let (specs, out) = (project(), tempfile::tempdir().expect("a temp dir"));
    assert_eq!(compile(specs.path(), out.path()), None);
    let cancel = specs.path().join("orders/cancel.yaml");
    edit(&cancel, "duplicate, fraud]", "duplicate]");
    let errors = compile(specs.path(), out.path()).expect("the build fails");
    assert!(
        errors.contains(
            "error[drift]: `orders_cancel` input `reason`: no longer accepts \"fraud\"\n  --> \
             specs/orders/cancel.yaml:13:3"
        ),
        "{errors}"
    );
    assert!(errors.contains("a breaking change"), "{errors}");
    assert!(
        errors.contains("locked: [\"customer_request\",\"duplicate\",\"fraud\"]"),
        "{errors}"
    );
    assert!(errors.contains("raise the tool's `version`"), "{errors}");

    // A compatible change passes.
    edit(&cancel, "duplicate]", "duplicate, fraud, other]");
    assert_eq!(compile(specs.path(), out.path()), None);
}

#[test]
fn a_change_of_the_lock_alone_is_seen() {
    let (specs, out) = (project(), tempfile::tempdir().expect("a temp dir"));
    assert_eq!(compile(specs.path(), out.path()), None);
    // A tool the lock holds and the specs do not: removed, breaking.
    let lock = specs.path().join(LOCK_FILE_NAME);
    let text = std::fs::read_to_string(&lock).expect("the lock");
    let mut value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let entry = value["tools"]["orders_get"].clone();
    value["tools"]["orders_gone"] = entry;
    std::fs::write(&lock, serde_json::to_string_pretty(&value).expect("JSON")).expect("written");
    let errors = compile(specs.path(), out.path()).expect("the build fails");
    assert!(errors.contains("`orders_gone` was removed"), "{errors}");
}

#[test]
fn a_missing_lock_or_a_wrong_setting_is_named_in_the_config() {
    let (specs, out) = (project(), tempfile::tempdir().expect("a temp dir"));
    std::fs::remove_file(specs.path().join(LOCK_FILE_NAME)).expect("removed");
    let errors = compile(specs.path(), out.path()).expect("the build fails");
    assert!(
        errors.contains("error[drift]: there is no contract lock at specs/toolspec.lock"),
        "{errors}"
    );
    assert!(errors.contains("--> specs/toolspec.yaml:"), "{errors}");
    assert!(
        errors.contains("`toolspec lock specs` writes it"),
        "{errors}"
    );

    edit(
        &specs.path().join("toolspec.yaml"),
        "contract_lock: required",
        "contract_lock: yes",
    );
    let errors = compile(specs.path(), out.path()).expect("the build fails");
    assert!(
        errors.contains("error[unknown-name]: unknown `contract_lock` value `yes`"),
        "{errors}"
    );
    assert!(errors.contains("expected `off` or `required`"), "{errors}");
}
