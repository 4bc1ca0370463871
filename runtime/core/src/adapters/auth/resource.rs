//! OAuth 2.0 Protected Resource Metadata (RFC 9728): what a server tells clients about itself
//! — its resource identifier, the authorization servers that issue its tokens, the scopes its
//! tools require — served at a well-known address, and the `WWW-Authenticate: Bearer`
//! challenges (RFC 6750) that point clients at it.

// The challenges are the HTTP adapters' (the `jwt` feature alone builds no answers).
#![cfg_attr(not(any(feature = "http", feature = "mcp")), allow(dead_code))]

use crate::model::descriptor::Text;
use axum::Router;
use axum::http::{HeaderValue, header};
use axum::response::IntoResponse;
use axum::routing::get;
use serde_json::{Value, json};

/// The well-known path segment of protected resource metadata.
#[doc(hidden)]
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// A protected resource's metadata document (RFC 9728).
///
/// ```
/// let resource = toolspec_core::auth::ProtectedResource::new("https://api.example.com/mcp")
///     .unwrap()
///     .authorization_server("https://auth.example.com")
///     .scopes_supported(["orders:read"]);
/// assert_eq!(
///     resource.metadata_url(),
///     "https://api.example.com/.well-known/oauth-protected-resource/mcp"
/// );
/// assert_eq!(resource.document()["bearer_methods_supported"], serde_json::json!(["header"]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectedResource {
    resource: String,
    authorization_servers: Vec<String>,
    scopes_supported: Vec<String>,
    /// Where the document is served, below the resource's origin.
    path: String,
    metadata_url: String,
}

/// A resource identifier that is not an absolute `http` or `https` URL without a query or
/// fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidResource(pub String);

impl std::fmt::Display for InvalidResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "`{}` is not a resource identifier: an http:// or https:// URL with a host and no \
             query or fragment",
            self.0
        )
    }
}

impl std::error::Error for InvalidResource {}

impl ProtectedResource {
    /// The metadata of the resource identified by `resource` (`https://api.example.com`, or
    /// `https://api.example.com/mcp`), with no authorization server and no scopes yet. Its
    /// document is served where RFC 9728 puts it: the well-known segment between the
    /// resource's origin and its path.
    pub fn new(resource: impl Into<String>) -> Result<Self, InvalidResource> {
        let resource = resource.into();
        let (origin, path) =
            split_url(&resource).ok_or_else(|| InvalidResource(resource.clone()))?;
        let path = format!("{WELL_KNOWN}{}", path.trim_end_matches('/'));
        let metadata_url = format!("{origin}{path}");
        Ok(Self {
            resource,
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            path,
            metadata_url,
        })
    }

    /// Adds an authorization server (an issuer URL) whose tokens the resource accepts.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// The scopes the resource's tools require (`scopes_supported`).
    pub fn scopes_supported<S: Into<String>>(
        mut self,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        self.scopes_supported = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The resource identifier.
    pub fn resource(&self) -> &str {
        &self.resource
    }

    /// The URL of the metadata document (what challenges name as `resource_metadata`).
    pub fn metadata_url(&self) -> &str {
        &self.metadata_url
    }

    /// The path the document is served at.
    pub fn metadata_path(&self) -> &str {
        &self.path
    }

    /// The metadata document.
    pub fn document(&self) -> Value {
        json!({
            "resource": self.resource,
            "authorization_servers": self.authorization_servers,
            "scopes_supported": self.scopes_supported,
            "bearer_methods_supported": ["header"],
        })
    }

    /// A router answering `GET` on [`metadata_path`](Self::metadata_path) with the document,
    /// without authentication (a client reads it before it has a token).
    pub fn router(&self) -> Router {
        let body = self.document().to_string();
        Router::new().route(
            &self.path,
            get(move || {
                let body = body.clone();
                async move {
                    let json = HeaderValue::from_static("application/json");
                    ([(header::CONTENT_TYPE, json)], body).into_response()
                }
            }),
        )
    }
}

/// `scheme://authority` and the path of an absolute http(s) URL without query or fragment.
fn split_url(url: &str) -> Option<(&str, &str)> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    if url.contains(['?', '#']) || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return None;
    }
    let authority_len = rest.find('/').unwrap_or(rest.len());
    if authority_len == 0 {
        return None;
    }
    let split = url.len() - rest.len() + authority_len;
    Some((&url[..split], &url[split..]))
}

/// What one `WWW-Authenticate: Bearer` challenge says (RFC 6750 §3, RFC 9728 §5.1).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Challenge<'a> {
    pub(crate) realm: Option<&'a str>,
    pub(crate) error: Option<&'a str>,
    pub(crate) description: Option<&'a str>,
    /// Every scope needed (`insufficient_scope`).
    pub(crate) scopes: Option<&'a [Text]>,
    pub(crate) resource: Option<&'a ProtectedResource>,
}

impl Challenge<'_> {
    /// The header's value: `Bearer` and its parameters, each a quoted string of the
    /// characters RFC 6750 allows there (others are replaced).
    pub(crate) fn header(&self) -> HeaderValue {
        let mut params = Vec::new();
        if let Some(realm) = self.realm {
            params.push(format!("realm=\"{}\"", quotable(realm)));
        }
        if let Some(error) = self.error {
            params.push(format!("error=\"{}\"", quotable(error)));
        }
        if let Some(description) = self.description {
            params.push(format!("error_description=\"{}\"", quotable(description)));
        }
        if let Some(scopes) = self.scopes {
            let scopes: Vec<String> = scopes.iter().map(|s| quotable(s)).collect();
            params.push(format!("scope=\"{}\"", scopes.join(" ")));
        }
        if let Some(resource) = self.resource {
            params.push(format!(
                "resource_metadata=\"{}\"",
                quotable(resource.metadata_url())
            ));
        }
        let value = if params.is_empty() {
            "Bearer".to_owned()
        } else {
            format!("Bearer {}", params.join(", "))
        };
        HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
    }
}

/// `text` with only the characters a challenge's quoted strings may hold (printable ASCII
/// but `"` and `\`): others become `?`, quotes `'`.
fn quotable(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '"' => '\'',
            '\\' => '/',
            ' '..='~' => c,
            _ => '?',
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_sits_between_the_origin_and_the_path() {
        let root = ProtectedResource::new("http://127.0.0.1:8787").unwrap();
        assert_eq!(root.metadata_path(), WELL_KNOWN);
        assert_eq!(
            root.metadata_url(),
            "http://127.0.0.1:8787/.well-known/oauth-protected-resource"
        );
        let slash = ProtectedResource::new("https://api.example.com/").unwrap();
        assert_eq!(slash.metadata_path(), WELL_KNOWN);
        let mcp = ProtectedResource::new("https://api.example.com/v1/mcp").unwrap();
        assert_eq!(
            mcp.metadata_path(),
            "/.well-known/oauth-protected-resource/v1/mcp"
        );
        for bad in [
            "ftp://x",
            "https://",
            "https://a/b?c",
            "https://a#b",
            "api.example.com",
        ] {
            assert!(ProtectedResource::new(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn challenges_quote_their_parameters_safely() {
        let resource = ProtectedResource::new("http://h").unwrap();
        let header = Challenge {
            error: Some("invalid_token"),
            description: Some("bad \"kid\" \\ é"),
            resource: Some(&resource),
            ..Challenge::default()
        }
        .header();
        assert_eq!(
            header,
            "Bearer error=\"invalid_token\", error_description=\"bad 'kid' / ?\", \
             resource_metadata=\"http://h/.well-known/oauth-protected-resource\""
        );
        let scoped = Challenge {
            error: Some("insufficient_scope"),
            scopes: Some(&[
                Text::Borrowed("orders:write"),
                Text::Borrowed("payments:refund"),
            ]),
            ..Challenge::default()
        };
        assert_eq!(
            scoped.header(),
            "Bearer error=\"insufficient_scope\", scope=\"orders:write payments:refund\""
        );
        assert_eq!(Challenge::default().header(), "Bearer");
    }
}
