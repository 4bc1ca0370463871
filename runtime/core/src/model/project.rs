//! Project-wide configuration compiled from `specs/toolspec.yaml`.
//!
//! Static data the generated code writes and the registry reads; nothing here resolves
//! settings (the shared vocabulary does) or knows a tool.

use toolspec_vocab::settings::AdapterDecl;

use crate::model::descriptor::AuditConfig;
pub use toolspec_vocab::auth::{AuthConfig, ClaimMapping};
pub use toolspec_vocab::tasks::TasksConfig;
use toolspec_vocab::{adapters, hints};

/// The built-in `explain` tool's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExplainConfig {
    /// Whether the explain tool is offered.
    pub enabled: bool,
    /// Its name on every adapter.
    pub name: &'static str,
}

/// What the project config says, as the runtime needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Project {
    /// Every adapter, built-in and custom, with the project's setting defaults applied; sorted.
    pub adapters: &'static [AdapterDecl],
    /// Every semantic hint a spec may use.
    pub hints: &'static [&'static str],
    /// The explain tool.
    pub explain: ExplainConfig,
    /// The audit trail's defaults and retention (each tool's own policy is on its
    /// descriptor).
    pub audit: AuditConfig,
    /// Durable tasks: the defaults of each tool's `task:` (applied at build time) and the
    /// bounds of the queue.
    pub tasks: TasksConfig,
    /// Whether argument keys no schema declares are dropped instead of refused
    /// (`invoker: { undeclared_keys: drop }`).
    pub drop_undeclared_keys: bool,
    /// Whether a registry serves only the tools that read (`deployment: { read_only: true }`;
    /// see [`Registry::read_only`](crate::Registry::read_only)).
    pub read_only: bool,
    /// Authorization: the token issuer and audience, claims → ambient fields, what a caller
    /// without a tool's scopes meets, and every scope the tools require.
    pub auth: AuthConfig,
    /// The HTTP API's OpenAPI 3.1 document, derived at build time (JSON).
    pub openapi: Option<&'static str>,
    /// The crate the tools were compiled into (its name and version): how servers introduce
    /// themselves.
    pub package: Option<Package>,
}

/// A crate's name and version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Package {
    /// `CARGO_PKG_NAME`.
    pub name: &'static str,
    /// `CARGO_PKG_VERSION`.
    pub version: &'static str,
}

impl Project {
    /// The configuration of a project without `toolspec.yaml`.
    pub const DEFAULT: Project = Project {
        adapters: adapters::BUILTIN,
        hints: hints::DEFAULT,
        explain: ExplainConfig {
            enabled: true,
            name: "explain",
        },
        audit: AuditConfig::OFF,
        tasks: TasksConfig::DEFAULT,
        drop_undeclared_keys: false,
        read_only: false,
        auth: AuthConfig::DEFAULT,
        openapi: None,
        package: None,
    };

    /// The adapter named `name`.
    pub fn adapter(&self, name: &str) -> Option<&'static AdapterDecl> {
        self.adapters.iter().find(|a| a.name == name)
    }
}

impl Default for Project {
    fn default() -> Self {
        Self::DEFAULT
    }
}
