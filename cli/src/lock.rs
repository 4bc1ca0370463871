//! `toolspec lock` and `toolspec check --locked`: the contract lock written once reviewed, and
//! the specs' drift from it (see `toolspec_codegen::lock`).

use std::path::Path;
use std::process::ExitCode;

use toolspec_codegen::Project;
use toolspec_codegen::lock::{Drift, LOCK_FILE_NAME, Lock, drift_from};

/// The lock beside the specs: its path as shown, and its text if there is one.
struct OnDisk {
    shown: String,
    text: Option<String>,
}

impl OnDisk {
    fn read(dir: &Path, project: &Project) -> Result<Self, ExitCode> {
        let shown = format!("{}/{LOCK_FILE_NAME}", project.display_root());
        match std::fs::read_to_string(dir.join(LOCK_FILE_NAME)) {
            Ok(text) => Ok(Self {
                shown,
                text: Some(text),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self { shown, text: None }),
            Err(e) => {
                eprintln!("error: cannot read {shown}: {e}");
                Err(ExitCode::from(2))
            }
        }
    }

    /// The drift of `project`, whose lock is `now`, from this lock; an error when it does
    /// not read.
    fn drift(&self, text: &str, project: &Project, now: &Lock) -> Result<Drift, String> {
        let lock = Lock::parse(text).map_err(|e| format!("{} is not a lock: {e}", self.shown))?;
        Ok(drift_from(&lock, text, &self.shown, project, now))
    }
}

/// `toolspec check --locked`: fails when the specs hold a change that is breaking or to
/// review and not in the lock; a lock behind by compatible changes only passes, with a note.
pub fn check(dir: &Path, project: &Project) -> ExitCode {
    let disk = match OnDisk::read(dir, project) {
        Ok(disk) => disk,
        Err(code) => return code,
    };
    let Some(text) = &disk.text else {
        eprintln!(
            "error: there is no lock at {}: `toolspec lock {}` writes one",
            disk.shown,
            dir.display()
        );
        return ExitCode::FAILURE;
    };
    let drift = match disk.drift(text, project, &Lock::of(project)) {
        Ok(drift) => drift,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let n = project.tools().len();
    if drift.is_empty() {
        eprintln!("ok: {n} tool{} as locked in {}", plural(n), disk.shown);
        return ExitCode::SUCCESS;
    }
    eprint!("{}", drift.render());
    if drift.fails() {
        eprintln!(
            "error: the specs differ from {}: review the changes above, then record them with \
             `toolspec lock --update {}` (a breaking change needs the tool's `version` raised)",
            disk.shown,
            dir.display()
        );
        return ExitCode::FAILURE;
    }
    eprintln!(
        "ok: {n} tool{} compatible with {}; `toolspec lock --update {}` records the changes",
        plural(n),
        disk.shown,
        dir.display()
    );
    ExitCode::SUCCESS
}

/// `toolspec lock`: writes the lock when there is none; over one that differs, shows the
/// drift and rewrites it only with `update`, and never over a breaking change of a tool whose
/// `version` was not raised.
pub fn write(dir: &Path, project: &Project, update: bool) -> ExitCode {
    let disk = match OnDisk::read(dir, project) {
        Ok(disk) => disk,
        Err(code) => return code,
    };
    let now = Lock::of(project);
    let lock = now.to_text();
    if let Some(text) = &disk.text {
        match disk.drift(text, project, &now) {
            Ok(drift) if drift.is_empty() && *text == lock => {
                eprintln!("ok: {} is up to date", disk.shown);
                return ExitCode::SUCCESS;
            }
            Ok(drift) if drift.is_empty() => {}
            Ok(drift) => {
                eprint!("{}", drift.render());
                if !update {
                    eprintln!(
                        "error: the specs differ from {}; `toolspec lock --update {}` records \
                         the changes above",
                        disk.shown,
                        dir.display()
                    );
                    return ExitCode::FAILURE;
                }
                let blocking: Vec<_> = drift.blocks_update().collect();
                if !blocking.is_empty() {
                    let tools: std::collections::BTreeSet<&str> =
                        blocking.iter().map(|f| f.tool.as_str()).collect();
                    let tools: Vec<&str> = tools.into_iter().collect();
                    eprintln!(
                        "error: {} breaking change{} of {}: raise the tool's `version` to \
                         record {}, or undo {}",
                        blocking.len(),
                        plural(blocking.len()),
                        tools.join(", "),
                        if blocking.len() == 1 { "it" } else { "them" },
                        if blocking.len() == 1 { "it" } else { "them" },
                    );
                    return ExitCode::FAILURE;
                }
            }
            Err(e) if update => eprintln!("note: {e}; writing it again"),
            Err(e) => {
                eprintln!("error: {e} (`--update` writes it again)");
                return ExitCode::from(2);
            }
        }
    }
    if let Err(e) = std::fs::write(dir.join(LOCK_FILE_NAME), &lock) {
        eprintln!("error: cannot write {}: {e}", disk.shown);
        return ExitCode::from(2);
    }
    let n = project.tools().len();
    eprintln!("wrote {}: {n} tool{}", disk.shown, plural(n));
    ExitCode::SUCCESS
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
