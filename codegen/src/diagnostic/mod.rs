//! Build errors and warnings that point at spec source, rendered the way rustc renders its own.
//!
//! A [`Diagnostic`] has a [`Kind`], names a file and, usually, a [`Span`] in it.
//! [`Diagnostic::render`] prints it with the offending source line and a caret underline, like
//! `rustc`, without colour:
//!
//! ```text
//! error[unknown-name]: unknown type `strng`
//!  --> specs/orders/cancel.yaml:7:11
//!   |
//! 7 |     type: strng
//!   |           ^^^^^ not a known type
//!   |
//!   = help: did you mean `string`?
//! ```
//!
//! Every diagnostic is built one way: [`Diagnostic::error`] or [`Diagnostic::warning`] with its
//! kind, then `with_label`, `with_help`, `with_note` and `with_related`. The renderer is
//! written by hand so that its output is exact and stable, and bounded whatever the specs hold
//! ([`render_all`] shows the first [`MAX_SHOWN`] and counts the rest; long lines and texts are
//! cut).
//!
//! [`Span`]: crate::source::Span

pub mod cargo;
pub mod kind;
pub mod message;
pub mod render;
pub mod suggest;

pub use cargo::{cargo_lines, print_cargo_lines};
pub use kind::Kind;
pub use message::{Diagnostic, Related, Severity};
pub use render::{MAX_SHOWN, fallback_summary, render_all, render_summary};
pub use suggest::did_you_mean;

#[cfg(test)]
mod tests;
