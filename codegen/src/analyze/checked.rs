//! What the analysis hands on: a tool with the identity the checks gave it.

use crate::analyze::membership::Binding;
use crate::spec::ToolSpec;

/// A tool that passed the checks that give it an identity: its canonical name, module and
/// memberships, with the description models read.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    /// The spec.
    pub spec: ToolSpec,
    /// The canonical name.
    pub name: String,
    /// Module path segments below the tools module (`["orders", "cancel"]`).
    pub module: Vec<String>,
    /// Adapter memberships, sorted by adapter.
    pub bindings: Vec<Binding>,
    /// The description shown to models.
    pub description: String,
}
