//! The contract lock: what a project's tools publish, written down once it is reviewed
//! (`toolspec lock`), and the drift of the specs from it (`toolspec check --locked`).
//!
//! A [`Lock`] holds, per tool, everything a client of the tool depends on: its name and kind,
//! the canonical input and output schemas, hints, scopes, error codes and guards, task and
//! confirmation settings, and per adapter its name there, the dialect it is declared in, its
//! hints there and its published input schema when that is not the canonical one. It is built
//! from the tools' descriptors, the model the runtime serves, and written as JSON with sorted
//! keys (deterministic, one value per line: a lock's diff is a review). Each entry carries a
//! fingerprint (SHA-256 of the entry), so an unchanged tool is skipped at once and an entry
//! edited by hand is caught.
//!
//! [`drift`] compares a project with a lock and classifies every difference (see [`Class`]).

mod class;
mod drift;
mod model;
mod schema;
#[cfg(test)]
mod tests;

use crate::diagnostic::Diagnostic;
use crate::diagnostic::kind::Kind;
use crate::project::Project;
use crate::read::syntax::CONFIG_FILE;

pub use class::Class;
pub use drift::{Drift, Finding, drift, drift_from};
pub use model::{
    LOCK_FILE_NAME, LOCK_FORMAT, Lock, LockError, LockedAdapter, LockedConfirm, LockedTask,
    LockedTool,
};

/// What the build of a project whose config says `contract_lock: required` reports about
/// its lock (`text`, when the file is there): an error when it is missing or does not read,
/// and one at the spec's line for each change that is breaking or needs review (compatible
/// changes pass: `toolspec check --locked` lists them).
pub(crate) fn enforce(project: &Project, text: Option<&str>) -> Vec<Diagnostic> {
    let Some(required) = project.config.contract_lock else {
        return Vec::new();
    };
    let root = project.display_root();
    let (config, shown) = (
        format!("{root}/{CONFIG_FILE}"),
        format!("{root}/{LOCK_FILE_NAME}"),
    );
    let refused = |message: String| {
        Diagnostic::error(Kind::Drift, &config, Some(required), message)
            .with_label("the build requires the lock")
            .with_help(format!(
                "`toolspec lock {root}` writes it from the specs, to review and commit"
            ))
    };
    let Some(text) = text else {
        return vec![refused(format!("there is no contract lock at {shown}"))];
    };
    let lock = match Lock::parse(text) {
        Ok(lock) => lock,
        Err(e) => return vec![refused(format!("{shown} is not a contract lock: {e}"))],
    };
    let drift = drift(&lock, text, &shown, project);
    drift
        .findings
        .iter()
        .filter(|f| f.class != Class::Compatible)
        .map(|f| {
            let mut d = Diagnostic::error(Kind::Drift, &f.file, f.span, format!("`{}` {}", f.tool, f.what))
                .with_label(match f.class {
                    Class::Breaking => "a breaking change",
                    _ => "a change to review",
                });
            if let Some(locked) = &f.locked {
                d = d.with_note(format!("locked: {locked}"));
            }
            if let Some((old, new)) = f.raised {
                d = d.with_note(format!("the tool's version was raised from {old} to {new}"));
            }
            let help = match (f.class, f.raised) {
                (Class::Breaking, None) => "undo it, or raise the tool's `version` and record it with `toolspec lock --update`",
                _ => "review it, then record it with `toolspec lock --update`",
            };
            d.with_help(help)
        })
        .collect()
}
