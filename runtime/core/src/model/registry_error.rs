//! What can go wrong between an app and its registry: a hand-assembled registry refused
//! ([`RegistryError`]), a lookup by a name no tool has ([`UnknownTool`]), a fixed caller whose
//! context cannot serve some tools ([`CallerMismatch`]).

use std::fmt;

/// Why a hand-assembled registry was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum RegistryError {
    /// Two tools have one name on one adapter.
    DuplicateName {
        /// The adapter (or `""` for canonical names).
        adapter: String,
        /// The name.
        name: String,
        /// The two spec files.
        specs: [String; 2],
    },
    /// A tool is bound to an adapter the project does not declare.
    UnknownAdapter {
        /// The tool.
        tool: String,
        /// The adapter.
        adapter: String,
    },
    /// Tools ask their user over a database replicas share, and no request-state keys were
    /// configured ([`Registry::check_request_state_keys`](crate::Registry::check_request_state_keys)).
    MissingStateKeys {
        /// The tools that ask their user.
        tools: Vec<String>,
    },
    /// A tool that may write was added to a read-only registry
    /// ([`Registry::read_only`](crate::Registry::read_only)).
    NotReadOnly {
        /// The tool.
        tool: String,
    },
    /// A tool defined at run time cannot be served so ([`Registry::with_tool`](crate::Registry::with_tool)).
    NotInline {
        /// The tool.
        tool: String,
        /// Why.
        reason: String,
    },
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::DuplicateName {
                adapter,
                name,
                specs,
            } if adapter.is_empty() => {
                write!(
                    f,
                    "two tools are named `{name}`: {} and {}",
                    specs[0], specs[1]
                )
            }
            Self::DuplicateName {
                adapter,
                name,
                specs,
            } => write!(
                f,
                "two tools are named `{name}` on adapter `{adapter}`: {} and {}",
                specs[0], specs[1]
            ),
            Self::UnknownAdapter { tool, adapter } => {
                write!(f, "tool `{tool}` is bound to unknown adapter `{adapter}`")
            }
            Self::MissingStateKeys { tools } => write!(
                f,
                "{} ask their user, and no request-state keys are configured: on PostgreSQL, \
                 which several replicas share, a state sealed by one must open on the others \
                 (configure the same keys on every replica, `id:key` with a 32-byte base64 key)",
                tools
                    .iter()
                    .map(|t| format!("`{t}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Self::NotReadOnly { tool } => write!(
                f,
                "tool `{tool}` may write (it is not hinted `read_only` on every adapter), and \
                 the registry serves a read-only deployment"
            ),
            Self::NotInline { tool, reason } => {
                write!(f, "tool `{tool}` cannot be defined at run time: {reason}")
            }
        }
    }
}

impl std::error::Error for RegistryError {}

/// No tool by the name an adapter asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTool(pub String);

impl fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown tool `{}`", self.0)
    }
}

impl std::error::Error for UnknownTool {}

/// Why a caller cannot call some tools of an adapter: for each tool it may call there, what
/// its ambient context does not give (a field missing, or not of its type).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallerMismatch {
    problems: Vec<String>,
}

impl CallerMismatch {
    /// How many of the problems the message names; it counts the others.
    const SHOWN: usize = 3;

    pub(crate) fn new(problems: Vec<String>) -> Self {
        Self { problems }
    }

    /// Each tool's problem, one per tool.
    pub fn problems(&self) -> &[String] {
        &self.problems
    }
}

impl fmt::Display for CallerMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = &self.problems[..self.problems.len().min(Self::SHOWN)];
        write!(
            f,
            "the caller's ambient context does not fit {} of its tools: {}",
            self.problems.len(),
            shown.join("; ")
        )?;
        match self.problems.len().saturating_sub(Self::SHOWN) {
            0 => Ok(()),
            more => write!(f, "; and {more} more"),
        }
    }
}

impl std::error::Error for CallerMismatch {}
