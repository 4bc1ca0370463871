//! Authorization as the project declares it (`auth:` in `toolspec.yaml`) and the runtime's
//! resource server follows it: which issuer and audience a bearer token must carry, which
//! claims become which ambient fields, what a caller without a tool's scopes is told, and the
//! scopes the project's tools require (computed at build time, advertised in the protected
//! resource metadata).

use crate::query::ColumnType;

/// What a caller whose token lacks a tool's scopes meets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissingScope {
    /// The tool is not listed, and calling it is an unknown tool (the default).
    #[default]
    Hide,
    /// The tool is listed, and a call answers `403` with `error="insufficient_scope"` naming
    /// every missing scope, so the client can ask for them (step-up authorization).
    Challenge,
}

impl MissingScope {
    /// Every choice, in the order help messages list them.
    pub const ALL: [MissingScope; 2] = [Self::Hide, Self::Challenge];

    /// The spelling in specs (`hide`, `challenge`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Hide => "hide",
            Self::Challenge => "challenge",
        }
    }

    /// The choice spelt `word`.
    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.as_str() == word)
    }
}

/// One ambient field taken from a token claim: `claims: { customer_id: sub }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClaimMapping {
    /// The ambient field (declared in the project's `ambient:`).
    pub ambient: &'static str,
    /// The claim it is read from.
    pub claim: &'static str,
    /// The ambient field's type: a claim that does not fit it refuses the token.
    pub ty: ColumnType,
}

/// The project's `auth:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuthConfig {
    /// The token issuer (`iss`), when the project names one (a server may set it instead).
    pub issuer: Option<&'static str>,
    /// The audience (`aud`) a token must name, when the project names one.
    pub audience: Option<&'static str>,
    /// Ambient fields read from claims.
    pub claims: &'static [ClaimMapping],
    /// What a caller without a tool's scopes meets.
    pub on_missing_scope: MissingScope,
    /// Every scope a tool of the project requires, sorted, without repeats.
    pub scopes_supported: &'static [&'static str],
}

impl AuthConfig {
    /// No `auth:`: no issuer, no claims, tools hidden from callers without their scopes.
    pub const DEFAULT: Self = Self {
        issuer: None,
        audience: None,
        claims: &[],
        on_missing_scope: MissingScope::Hide,
        scopes_supported: &[],
    };
}
