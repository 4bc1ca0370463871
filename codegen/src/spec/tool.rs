//! One tool spec file.

use std::time::Duration;

use toolspec_vocab::settings::SettingValue;

use crate::source::{Span, Spanned};
use crate::spec::durable::{AuditPolicy, LockSpec, OnceSpec};
use crate::spec::field::Field;
use crate::spec::query::{Narrowing, QuerySpec};
use crate::spec::user_input::{AskSpec, ConfirmSpec};

/// A declared error code.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorDecl {
    /// The code.
    pub code: Spanned<String>,
    /// The reason text.
    pub message: String,
    /// Shown without the headline.
    pub standalone: bool,
}

/// A guard (precondition).
#[derive(Debug, Clone, PartialEq)]
pub struct GuardDecl {
    /// The guard's name (also its error code).
    pub name: Spanned<String>,
    /// What must hold.
    pub description: String,
    /// The tool's declared codes this guard may fail with instead of its own name, in spec
    /// order (`errors: [not_found]`).
    pub errors: Vec<Spanned<String>>,
    /// The name of what the guard loads and hands to the handler (`loads: note`).
    pub loads: Option<Spanned<String>>,
}

impl GuardDecl {
    /// Whether the guard answers with a `Result` (it lists `errors` or `loads` something)
    /// rather than a `bool`.
    pub fn answers_with_result(&self) -> bool {
        !self.errors.is_empty() || self.loads.is_some()
    }
}

/// The grant part of a `tool:` declaration.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum GrantDecl {
    /// Absent, or a map without its own grant.
    #[default]
    Default,
    /// `tool: true`
    All,
    /// `tool: false`
    OptOut,
    /// `tool: [mcp, openai]`
    Only(Vec<Spanned<String>>),
}

/// A per-adapter option bag (`tool: { mcp: { name: …, present_as: … } }`).
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterOptions {
    /// The adapter.
    pub adapter: Spanned<String>,
    /// The tool's name on this adapter.
    pub name: Option<Spanned<String>>,
    /// Setting overrides, in spec order.
    pub settings: Vec<(Spanned<String>, Spanned<SettingValue>)>,
    /// A query tool's filters and sorts this adapter's model may use.
    pub narrowing: Narrowing,
    /// The HTTP API's status for some of the tool's error codes (`http` only:
    /// `status: { already_shipped: 409 }`), in spec order.
    pub statuses: Vec<(Spanned<String>, Spanned<u64>)>,
    /// `title`: the tool's title on this adapter.
    pub title: Option<Spanned<String>>,
    /// `description`: what this adapter's model reads instead of the spec's description, or
    /// after it.
    pub description: Option<DescriptionOverride>,
    /// `hints`: the tool's hints on this adapter, instead of the spec's.
    pub hints: Option<Vec<Spanned<String>>>,
}

/// A per-adapter `description`.
#[derive(Debug, Clone, PartialEq)]
pub enum DescriptionOverride {
    /// `description: text`: instead of the spec's own.
    Replace(String),
    /// `description: { append: text }`: after the spec's own.
    Append(String),
}

impl DescriptionOverride {
    /// The description's lead on the adapter, given the spec's `own`.
    pub fn apply(&self, own: &str) -> String {
        match self {
            Self::Replace(text) => text.trim_end().to_owned(),
            Self::Append(text) => format!("{}\n{}", own.trim_end(), text.trim_end()),
        }
    }
}

/// A spec's `tool:` declaration (the default: no `tool:` key).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolDecl {
    /// The grant.
    pub grant: GrantDecl,
    /// Per-adapter option bags, in spec order.
    pub options: Vec<AdapterOptions>,
    /// Adapters removed.
    pub except: Vec<Spanned<String>>,
    /// Where `tool:` is (None when absent).
    pub span: Option<Span>,
}

/// One tool spec file.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The path below the specs directory, '/'-separated (`orders/cancel.yaml`).
    pub path: String,
    /// The path shown in diagnostics (`specs/orders/cancel.yaml`).
    pub file: String,
    /// `description`
    pub description: String,
    /// `title`
    pub title: Option<String>,
    /// `name`
    pub name: Option<Spanned<String>>,
    /// `version`
    pub version: Option<u32>,
    /// A query tool's source, record, scope, filters, sorts and limit (`kind: query`); its
    /// `expects` and `exposes` are then derived from them.
    pub query: Option<QuerySpec>,
    /// `expects`, in spec order.
    pub expects: Vec<Field>,
    /// `exposes`, in spec order.
    pub exposes: Vec<Field>,
    /// `errors.headline`
    pub headline: Option<String>,
    /// `errors.codes`
    pub errors: Vec<ErrorDecl>,
    /// `guards`
    pub guards: Vec<GuardDecl>,
    /// `hints`
    pub hints: Vec<Spanned<String>>,
    /// `message`
    pub message: Option<Spanned<String>>,
    /// Where the `message:` key is written (what a diagnostic about the message as a whole
    /// points at).
    pub message_key: Option<Span>,
    /// `timeout`
    pub timeout: Option<Duration>,
    /// How calls are recorded: the project's `audit:` with the spec's own `audit:` over it.
    pub audit: AuditPolicy,
    /// `once` (actions)
    pub once: Option<OnceSpec>,
    /// `lock` (actions)
    pub lock: Option<LockSpec>,
    /// `task` (actions), resolved over the project's `tasks:`.
    pub task: Option<toolspec_vocab::tasks::TaskDecl>,
    /// `rate_limit`, over the project's: the budget per caller (`None`: off).
    pub rate_limit: Option<toolspec_vocab::rate::RateLimit>,
    /// `result_cap`, over the project's: how large an answer may get (`None`: off).
    pub result_cap: Option<toolspec_vocab::result_cap::ResultCap>,
    /// `confirm` (actions): the user approves each call before it acts.
    pub confirm: Option<ConfirmSpec>,
    /// `ask` (actions): the forms for fields a model leaves out, in spec order.
    pub ask: Vec<AskSpec>,
    /// `tags`
    pub tags: Vec<String>,
    /// `scopes`
    pub scopes: Vec<String>,
    /// `tool`
    pub tool: ToolDecl,
}
