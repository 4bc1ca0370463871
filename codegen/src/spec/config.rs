//! The project config, `specs/toolspec.yaml`.

use toolspec_vocab::Dialect;
use toolspec_vocab::auth::MissingScope;
use toolspec_vocab::membership::MembershipDefault;
use toolspec_vocab::query::ColumnType;
use toolspec_vocab::settings::AdapterDecl;

use crate::source::{Span, Spanned};
use crate::spec::durable::{AuditConfig, Durability};

/// An adapter as configured in `toolspec.yaml`.
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterConfig {
    /// The adapter's declaration with project defaults applied.
    pub decl: AdapterDecl,
    /// Normalized `tool_roots`.
    pub tool_roots: Vec<String>,
    /// Whether the project declared it as a custom adapter.
    pub custom: bool,
}

/// A field of the trusted ambient context (`ambient:`), which query and `ref` scopes bind.
#[derive(Debug, Clone, PartialEq)]
pub struct AmbientDecl {
    /// The key in the context.
    pub name: Spanned<String>,
    /// The value's type.
    pub ty: ColumnType,
    /// `description`
    pub description: Option<String>,
}

/// `specs/toolspec.yaml`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectConfig {
    /// `naming.strip_prefixes`
    pub strip_prefixes: Vec<String>,
    /// Every hint a spec may use: core, adapters', and `hints:`.
    pub hints: Vec<String>,
    /// `default_hints`: what every action's hints hold unless its spec lists the hint or one
    /// that contradicts it (an adapter's own `hints:` alike).
    pub default_hints: Vec<Spanned<String>>,
    /// `membership.default`
    pub membership: MembershipDefault,
    /// Every adapter, built-in and custom, sorted by name.
    pub adapters: Vec<AdapterConfig>,
    /// `audit`: every tool's default policy, and the retention.
    pub audit: AuditConfig,
    /// `tasks`: the defaults of each tool's `task:`, and the queue's bounds.
    pub tasks: toolspec_vocab::tasks::TasksConfig,
    /// `rate_limit`: every tool's budget per caller unless it sets its own (`None`: off).
    pub rate_limit: Option<toolspec_vocab::rate::RateLimit>,
    /// `result_cap`, over the default: every tool's cap unless it sets its own (`None`: off).
    pub result_cap: Option<toolspec_vocab::result_cap::ResultCap>,
    /// `audit.durability` as written: what a tool's `required: false` falls back to.
    pub audit_durability: Option<Durability>,
    /// Where `audit.required: true` is written (file and span), for a tool's
    /// `durability: async` to point at.
    pub audit_required_at: Option<(String, Span)>,
    /// `explain.enabled`
    pub explain_enabled: bool,
    /// `explain.name`
    pub explain_name: String,
    /// `tasks.status_tool`: the built-in task status tool's name.
    pub task_status_name: String,
    /// `ambient`: the fields of the trusted context that scopes may bind, in spec order.
    pub ambient: Vec<AmbientDecl>,
    /// `invoker.undeclared_keys: drop`
    pub drop_undeclared_keys: bool,
    /// `auth`
    pub auth: AuthSpec,
    /// `fallbacks.accept`: the dialects whose fallbacks are accepted (not warned about).
    pub fallbacks: Fallbacks,
    /// `contract_lock: required`, where it is written: the build fails on a change of a tool's
    /// contract that `toolspec.lock` does not hold.
    pub contract_lock: Option<crate::source::Span>,
    /// `deployment: { read_only: true }`: the registry serves only the tools that read.
    pub read_only: bool,
}

/// Which dialects' fallbacks the project accepts: `fallbacks: { accept: all }` or
/// `{ accept: [gemini, openai-strict] }`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Fallbacks {
    /// None: each is a warning (the default).
    #[default]
    Warned,
    /// Every dialect's.
    AcceptAll,
    /// These dialects'.
    Accept(Vec<Dialect>),
}

impl Fallbacks {
    /// Whether `dialect`'s fallbacks go unwarned.
    pub fn accepts(&self, dialect: Dialect) -> bool {
        match self {
            Self::Warned => false,
            Self::AcceptAll => true,
            Self::Accept(dialects) => dialects.contains(&dialect),
        }
    }
}

/// The project's `auth:`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AuthSpec {
    /// `issuer`
    pub issuer: Option<String>,
    /// `audience`
    pub audience: Option<String>,
    /// `claims`, in spec order.
    pub claims: Vec<ClaimSpec>,
    /// `on_missing_scope`
    pub on_missing_scope: MissingScope,
}

/// One `claims:` entry: an ambient field read from a token claim.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimSpec {
    /// The ambient field.
    pub ambient: String,
    /// The claim.
    pub claim: String,
    /// The ambient field's type.
    pub ty: ColumnType,
}

impl ProjectConfig {
    /// The adapter called `name`.
    pub fn adapter(&self, name: &str) -> Option<&AdapterConfig> {
        self.adapters.iter().find(|a| a.decl.name == name)
    }

    /// The ambient field called `name`.
    pub fn ambient(&self, name: &str) -> Option<&AmbientDecl> {
        self.ambient.iter().find(|a| a.name.value == name)
    }

    /// Every adapter's name, sorted.
    pub fn adapter_names(&self) -> Vec<&str> {
        self.adapters.iter().map(|a| a.decl.name.as_ref()).collect()
    }
}
