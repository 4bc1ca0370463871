//! Diagnostics as a build script reports them to cargo.

use crate::diagnostic::message::Diagnostic;
use crate::diagnostic::render::MAX_SHOWN;
use crate::diagnostic::suggest::plural;

/// One `cargo::{kind}=` line for each of the first [`MAX_SHOWN`] diagnostics, and
/// one that counts the others.
pub fn print_cargo_lines(kind: &str, diagnostics: &[&Diagnostic]) {
    for d in diagnostics.iter().take(MAX_SHOWN) {
        println!("cargo::{kind}={}", d.located_message());
    }
    if let Some(hidden) = diagnostics.len().checked_sub(MAX_SHOWN)
        && hidden > 0
    {
        println!(
            "cargo::{kind}=… and {}",
            plural(hidden, &format!("more {kind}"))
        );
    }
}
