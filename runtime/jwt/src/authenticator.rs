//! [`JwtAuthenticator`]: an OAuth 2.1 resource server. A bearer token is a JWT signed by the
//! issuer's key (from its JWKS) with the algorithm that key declares, naming the issuer
//! (`iss`) and this server's audience (`aud`), current (`exp`, `nbf`, with a leeway) and with a
//! subject (`sub`). Its caller is the subject, with the scopes of `scope` or `scp` and the
//! ambient values the project maps from claims. Anything else is refused with the reason, in
//! the challenge and in a debug log line.

use std::sync::Arc;
use std::time::Duration;

use axum::http::request::Parts;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Validation, decode, decode_header};
use serde_json::{Map, Value};
use toolspec_vocab::auth::{AuthConfig, ClaimMapping};

use crate::claims;
use crate::keys::{FetchSettings, KeyCache, KeyError};
use toolspec_core::BoxFuture;
use toolspec_core::Caller;
use toolspec_core::auth::{Authenticator, Refusal, bearer_token};
use toolspec_core::auth::{InvalidResource, ProtectedResource};

/// The clock skew allowed on `exp` and `nbf` by default.
#[doc(hidden)]
pub const LEEWAY: Duration = Duration::from_secs(60);

/// The longest token looked at; a longer one is refused unread.
const MAX_TOKEN_BYTES: usize = 16 * 1024;

/// Bearer JWTs checked against their issuer's keys (see the [crate](crate) docs); cheap to
/// clone.
///
/// ```no_run
/// # async fn example() -> Result<(), toolspec_jwt::JwtError> {
/// let jwt = toolspec_jwt::JwtAuthenticator::builder()
///     .issuer("https://auth.example.com")
///     .audience("https://api.example.com")
///     .resource("https://api.example.com")
///     .build()?;
/// jwt.refresh_keys().await; // optional: fetch the keys before the first token
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct JwtAuthenticator {
    inner: Arc<Inner>,
}

struct Inner {
    issuer: String,
    audience: String,
    claims: Vec<ClaimMapping>,
    leeway: Duration,
    keys: KeyCache,
    resource: Option<ProtectedResource>,
}

/// A configuration that cannot make a [`JwtAuthenticator`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum JwtError {
    /// No issuer.
    #[error("a JWT resource server needs its issuer's URL")]
    MissingIssuer,
    /// An issuer that is not an `http` or `https` URL.
    #[error("the issuer `{0}` is not an http:// or https:// URL")]
    Issuer(String),
    /// No audience.
    #[error("a JWT resource server needs its audience (`aud`)")]
    MissingAudience,
    /// A JWKS URL that is not an `http` or `https` URL.
    #[error("the JWKS URL `{0}` is not an http:// or https:// URL")]
    JwksUrl(String),
    /// A resource identifier that is not one.
    #[error(transparent)]
    Resource(#[from] InvalidResource),
    /// The HTTP client for the issuer's keys could not be built.
    #[error("could not build the HTTP client for the issuer's keys")]
    Client(#[source] reqwest::Error),
}

/// How a [`JwtAuthenticator`] is made: [`issuer`](Self::issuer) and
/// [`audience`](Self::audience) are required, the rest has defaults.
#[derive(Debug, Clone)]
pub struct JwtBuilder {
    issuer: Option<String>,
    audience: Option<String>,
    jwks_url: Option<String>,
    claims: Vec<ClaimMapping>,
    scopes_supported: Vec<String>,
    resource: Option<String>,
    leeway: Duration,
    fetch: FetchSettings,
}

impl Default for JwtBuilder {
    fn default() -> Self {
        Self {
            issuer: None,
            audience: None,
            jwks_url: None,
            claims: Vec::new(),
            scopes_supported: Vec::new(),
            resource: None,
            leeway: LEEWAY,
            fetch: FetchSettings::DEFAULT,
        }
    }
}

impl JwtBuilder {
    /// As the project's `auth:` says (`tools::PROJECT.auth`): its issuer and audience when it
    /// names them, its claims → ambient mapping and the scopes its tools require.
    pub fn from_config(auth: &AuthConfig) -> Self {
        Self {
            issuer: auth.issuer.map(str::to_owned),
            audience: auth.audience.map(str::to_owned),
            claims: auth.claims.to_vec(),
            scopes_supported: auth
                .scopes_supported
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            ..Self::default()
        }
    }

    /// The issuer (`iss`, and where its metadata is): an `https://` URL (`http://` works too,
    /// for tests and local issuers).
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// The audience (`aud`) every token must name: this server.
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// Fetches the keys from `url` rather than from where the issuer's metadata says.
    pub fn jwks_url(mut self, url: impl Into<String>) -> Self {
        self.jwks_url = Some(url.into());
        self
    }

    /// The ambient fields read from claims (each claim must be there and fit its field's
    /// type); replaces the mapping given before.
    pub fn claims(mut self, claims: impl IntoIterator<Item = ClaimMapping>) -> Self {
        self.claims = claims.into_iter().collect();
        self
    }

    /// The scopes advertised in the protected resource metadata (`scopes_supported`).
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// This server's resource identifier (a URL): its metadata document (RFC 9728) is then
    /// served by the HTTP adapters and named in every challenge.
    pub fn resource(mut self, resource: impl Into<String>) -> Self {
        self.resource = Some(resource.into());
        self
    }

    /// The clock skew allowed on `exp` and `nbf` ([`LEEWAY`] by default).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How long fetching the issuer's keys may take (10 s by default): one deadline for the
    /// whole step, from the first request for its metadata to the last byte of its JWKS; a
    /// token that needs the keys meanwhile waits no longer.
    pub fn fetch_timeout(mut self, timeout: Duration) -> Self {
        self.fetch.timeout = timeout;
        self
    }

    /// The largest metadata or JWKS response read (1 MiB by default).
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.fetch.max_bytes = bytes;
        self
    }

    /// The least time between two fetches of the keys (30 s by default): a token naming an
    /// unknown key fetches them again only once this has passed since the last fetch.
    pub fn refresh_interval(mut self, interval: Duration) -> Self {
        self.fetch.refresh_interval = interval;
        self
    }

    /// How long fetched keys are used before they are fetched again (1 h by default).
    pub fn max_key_age(mut self, age: Duration) -> Self {
        self.fetch.max_age = age;
        self
    }

    /// The authenticator; nothing is fetched yet.
    pub fn build(self) -> Result<JwtAuthenticator, JwtError> {
        let issuer = self.issuer.ok_or(JwtError::MissingIssuer)?;
        if !is_http_url(&issuer) {
            return Err(JwtError::Issuer(issuer));
        }
        let audience = self
            .audience
            .filter(|a| !a.is_empty())
            .ok_or(JwtError::MissingAudience)?;
        if let Some(url) = &self.jwks_url
            && !is_http_url(url)
        {
            return Err(JwtError::JwksUrl(url.clone()));
        }
        let resource = match self.resource {
            Some(resource) => Some(
                ProtectedResource::new(resource)?
                    .authorization_server(issuer.clone())
                    .scopes_supported(self.scopes_supported),
            ),
            None => None,
        };
        let keys =
            KeyCache::new(issuer.clone(), self.jwks_url, self.fetch).map_err(JwtError::Client)?;
        Ok(JwtAuthenticator {
            inner: Arc::new(Inner {
                issuer,
                audience,
                claims: self.claims,
                leeway: self.leeway,
                keys,
                resource,
            }),
        })
    }
}

fn is_http_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    rest.is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/')) && !url.contains(['?', '#'])
}

impl JwtAuthenticator {
    /// A builder, to name the issuer and audience.
    pub fn builder() -> JwtBuilder {
        JwtBuilder::default()
    }

    /// The issuer tokens must come from.
    pub fn issuer(&self) -> &str {
        &self.inner.issuer
    }

    /// The audience tokens must name.
    pub fn audience(&self) -> &str {
        &self.inner.audience
    }

    /// Fetches the issuer's keys now (at most once per refresh interval); a failure is logged
    /// and the next token tries again once the interval has passed.
    pub async fn refresh_keys(&self) {
        self.inner.keys.refresh().await;
    }

    /// The caller a token stands for, or why it is refused.
    pub async fn verify(&self, token: &str) -> Result<Caller, Refusal> {
        let refused = |reason: String| {
            tracing::debug!(reason = %reason, "a bearer token was refused");
            Refusal::invalid_token(reason)
        };
        if token.len() > MAX_TOKEN_BYTES {
            return Err(refused(format!(
                "the token is longer than {MAX_TOKEN_BYTES} bytes"
            )));
        }
        let header = decode_header(token).map_err(|e| {
            refused(format!(
                "the token is not a JWT signed with a supported algorithm ({e})"
            ))
        })?;
        let key = self
            .inner
            .keys
            .key(header.kid.as_deref(), header.alg)
            .await
            .map_err(|e| {
                refused(match e {
                    KeyError::Unknown(why) => why,
                    KeyError::WrongAlgorithm { kid, key } => format!(
                        "the token is signed with {:?}, but its key `{kid}` is for {key:?}",
                        header.alg
                    ),
                    KeyError::Unavailable => {
                        "the issuer's keys are not available to check the token".into()
                    }
                })
            })?;
        let mut validation = Validation::new(key.algorithm);
        validation.leeway = self.inner.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_issuer(&[&self.inner.issuer]);
        validation.set_audience(&[&self.inner.audience]);
        // `sub` is checked with the other claims the caller is made of.
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        let data = decode::<Map<String, Value>>(token, &key.key, &validation)
            .map_err(|e| refused(self.reason(e.kind())))?;
        self.caller(&data.claims).map_err(refused)
    }

    /// A refused token's reason, for its client.
    fn reason(&self, error: &ErrorKind) -> String {
        match error {
            ErrorKind::InvalidSignature => "the token's signature does not verify".into(),
            ErrorKind::ExpiredSignature => "the token has expired".into(),
            ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".into(),
            ErrorKind::InvalidIssuer => {
                format!("the token was not issued by {}", self.inner.issuer)
            }
            ErrorKind::InvalidAudience => {
                format!("the token is not for the audience {}", self.inner.audience)
            }
            ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
            ErrorKind::InvalidAlgorithm => "the token's algorithm is not its key's".into(),
            other => format!("the token is invalid ({other:?})"),
        }
    }

    /// The caller of verified claims: the subject, its scopes and mapped ambient values.
    fn caller(&self, claims: &Map<String, Value>) -> Result<Caller, String> {
        let subject = match claims.get("sub") {
            Some(Value::String(subject)) => subject,
            Some(_) => return Err("the token's `sub` claim is not a string".into()),
            None => return Err("the token has no `sub` claim".into()),
        };
        let scopes = claims::scopes(claims)?;
        let ambient = claims::ambient(claims, &self.inner.claims)?;
        let mut caller = Caller::new(subject).with_ambient(ambient);
        caller.scopes = scopes;
        Ok(caller)
    }
}

impl Authenticator for JwtAuthenticator {
    fn authenticate<'a>(&'a self, request: &'a Parts) -> BoxFuture<'a, Result<Caller, Refusal>> {
        Box::pin(async move {
            match bearer_token(request) {
                Some(token) => self.verify(token).await,
                None => Err(Refusal::unauthorized()),
            }
        })
    }

    fn protected_resource(&self) -> Option<&ProtectedResource> {
        self.inner.resource.as_ref()
    }
}

impl std::fmt::Debug for JwtAuthenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtAuthenticator")
            .field("issuer", &self.inner.issuer)
            .field("audience", &self.inner.audience)
            .field("claims", &self.inner.claims)
            .field("leeway", &self.inner.leeway)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issuer_and_audience_are_required_and_checked() {
        let error = |builder: JwtBuilder| builder.build().unwrap_err().to_string();
        assert_eq!(
            error(JwtAuthenticator::builder().audience("a")),
            "a JWT resource server needs its issuer's URL"
        );
        assert_eq!(
            error(JwtAuthenticator::builder().issuer("http://i")),
            "a JWT resource server needs its audience (`aud`)"
        );
        assert_eq!(
            error(
                JwtAuthenticator::builder()
                    .issuer("auth.example.com")
                    .audience("a")
            ),
            "the issuer `auth.example.com` is not an http:// or https:// URL"
        );
        assert!(
            error(
                JwtAuthenticator::builder()
                    .issuer("http://i")
                    .audience("a")
                    .resource("nowhere")
            )
            .starts_with("`nowhere` is not a resource identifier")
        );
        let config = AuthConfig {
            issuer: Some("https://auth.example.com"),
            audience: Some("store"),
            scopes_supported: &["orders:read"],
            ..AuthConfig::DEFAULT
        };
        let jwt = JwtBuilder::from_config(&config)
            .resource("https://store.example.com")
            .build()
            .unwrap();
        assert_eq!(
            (jwt.issuer(), jwt.audience()),
            ("https://auth.example.com", "store")
        );
        let resource = jwt.protected_resource().unwrap();
        assert_eq!(
            resource.document()["scopes_supported"],
            serde_json::json!(["orders:read"])
        );
        assert_eq!(
            resource.document()["authorization_servers"],
            serde_json::json!(["https://auth.example.com"])
        );
    }
}
