//! [`HostPolicy`]: the `Host` a request may name and the pages (`Origin`) that may send it,
//! checked before anything else on every route an address serves.
//!
//! A page of another site whose name an attacker points at this machine (DNS rebinding) sends
//! its own name as `Host`; a browser names the page that sends a request in `Origin`. So a
//! request is refused when it names no `Host` or several (`400`, as HTTP/1.1 requires), a host
//! the server was not told to answer to (`403 host_not_allowed`), or a page origin it was not
//! told to serve (`403 origin_not_allowed`; `Origin: null`, sent by sandboxed frames and local
//! files, unless allowed). A request without `Origin` (not sent by a page) is served.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::Response;

use crate::adapters::gate::failure::failure;

/// The `Host` names accepted by default: this machine's (any port).
pub const LOOPBACK_HOSTS: &[&str] = &["localhost", "127.0.0.1", "::1"];

/// The `Origin`s accepted by default: pages served from this machine (any port).
pub const LOOPBACK_ORIGINS: &[&str] = &[
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// Which `Host` a request may name and which pages may send it; by default
/// ([`loopback`](Self::loopback)) this machine's names and pages only.
///
/// ```
/// use toolspec_core::gate::HostPolicy;
///
/// let policy = HostPolicy::loopback()
///     .allowed_hosts(["localhost", "127.0.0.1", "::1", "store.example.com"])
///     .allowed_origins(["https://app.example.com"]);
/// assert!(policy.allows_host("store.example.com:8443"));
/// assert!(!policy.allows_host("evil.example"));
/// assert!(policy.allows_origin("https://app.example.com"));
/// assert!(!policy.allows_origin("https://app.example.com:8443"), "another port, another origin");
/// assert!(policy.allows_origin("http://localhost:6274"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPolicy {
    /// The hosts served; `None` for any.
    hosts: Option<Vec<Authority>>,
    /// The page origins served.
    origins: Vec<AllowedOrigin>,
}

impl Default for HostPolicy {
    fn default() -> Self {
        Self::loopback()
    }
}

impl HostPolicy {
    /// This machine's names ([`LOOPBACK_HOSTS`], any port) and pages ([`LOOPBACK_ORIGINS`]).
    pub fn loopback() -> Self {
        Self {
            hosts: Some(
                LOOPBACK_HOSTS
                    .iter()
                    .filter_map(|h| allowed_host(h))
                    .collect(),
            ),
            origins: LOOPBACK_ORIGINS
                .iter()
                .filter_map(|o| allowed_origin(o))
                .collect(),
        }
    }

    /// Accepts these `Host` values instead of the ones before: a name or address (any port),
    /// or `host:port` (that port only). An entry that is neither is skipped, with a warning.
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        let hosts = hosts.into_iter().map(Into::into).filter_map(|entry| {
            let host = allowed_host(&entry);
            if host.is_none() {
                tracing::warn!(entry, "an allowed host that is not a host name is skipped");
            }
            host
        });
        self.hosts = Some(hosts.collect());
        self
    }

    /// Accepts any `Host` (for a server behind a proxy that checks it itself).
    pub fn any_host(mut self) -> Self {
        self.hosts = None;
        self
    }

    /// Also accepts requests from pages of these origins: `https://app.example.com` (its
    /// default port), `http://localhost:8080`, `https://app.example.com:*` (any port), or
    /// `null`. An entry that is none of these is skipped, with a warning.
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        for entry in origins.into_iter().map(Into::into) {
            match allowed_origin(&entry) {
                Some(origin) => self.origins.push(origin),
                None => tracing::warn!(entry, "an allowed origin that is not an origin is skipped"),
            }
        }
        self
    }

    /// Whether a request naming `host` (a `Host` header's value) is served.
    pub fn allows_host(&self, host: &str) -> bool {
        Authority::named(host).is_some_and(|host| self.serves(&host))
    }

    /// Whether a request from a page of `origin` (an `Origin` header's value) is served.
    pub fn allows_origin(&self, origin: &str) -> bool {
        Origin::parse(origin).is_some_and(|origin| self.origins.iter().any(|o| o.admits(&origin)))
    }

    /// `router` with every request checked first; a refused one never reaches it.
    pub(crate) fn guard(self, router: Router) -> Router {
        router.layer(axum::middleware::from_fn_with_state(Arc::new(self), admit))
    }

    /// Whether a request with this URI and these headers is served, or why not.
    fn check(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Refused> {
        let named = match count(headers, header::HOST) {
            Count::None => None,
            Count::Several(count) => return Err(Refused::SeveralHosts(count)),
            Count::Once(value) => Some(
                value
                    .to_str()
                    .ok()
                    .and_then(Authority::named)
                    .ok_or_else(|| Refused::BadHost(shown(value)))?,
            ),
        };
        // An absolute-form request line (or HTTP/2's `:authority`) names a host too.
        let requested = uri.authority().and_then(|a| Authority::named(a.as_str()));
        if named.is_none() && requested.is_none() {
            return Err(Refused::NoHost);
        }
        if let Some(host) = named.iter().chain(&requested).find(|h| !self.serves(h)) {
            return Err(Refused::ForeignHost(host.shown.clone()));
        }
        let origin = match count(headers, header::ORIGIN) {
            Count::None => return Ok(()),
            Count::Several(count) => return Err(Refused::SeveralOrigins(count)),
            Count::Once(value) => value
                .to_str()
                .ok()
                .and_then(Origin::parse)
                .map(|origin| (origin, shown(value)))
                .ok_or_else(|| Refused::BadOrigin(shown(value)))?,
        };
        if self.origins.iter().any(|allowed| allowed.admits(&origin.0)) {
            Ok(())
        } else {
            Err(Refused::ForeignOrigin(origin.1))
        }
    }

    fn serves(&self, host: &Authority) -> bool {
        match &self.hosts {
            None => true,
            Some(hosts) => hosts
                .iter()
                .any(|h| h.host == host.host && (h.port.is_none() || h.port == host.port)),
        }
    }
}

/// Middleware: the request goes on when the policy serves it, else its refusal answers.
async fn admit(State(policy): State<Arc<HostPolicy>>, request: Request, next: Next) -> Response {
    match policy.check(request.uri(), request.headers()) {
        Ok(()) => next.run(request).await,
        Err(refused) => {
            tracing::debug!(reason = %refused.message(), "a request was refused at the gate");
            refused.response()
        }
    }
}

/// What a request has of a header that may appear once.
enum Count<'a> {
    None,
    Once(&'a HeaderValue),
    Several(usize),
}

fn count(headers: &HeaderMap, name: header::HeaderName) -> Count<'_> {
    let mut values = headers.get_all(&name).iter();
    match (values.next(), values.next()) {
        (None, _) => Count::None,
        (Some(value), None) => Count::Once(value),
        (Some(_), Some(_)) => Count::Several(headers.get_all(name).iter().count()),
    }
}

/// A header's value as the client sent it, shortened, for a message.
fn shown(value: &HeaderValue) -> String {
    const MAX: usize = 64;
    let text = String::from_utf8_lossy(value.as_bytes());
    let mut shown: String = text.chars().filter(|c| !c.is_control()).take(MAX).collect();
    if text.chars().count() > MAX {
        shown.push('…');
    }
    shown
}

/// A host and its port, as a `Host` header (or an allowed host) names them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Authority {
    /// Lowercase, an IPv6 address without its brackets.
    host: String,
    port: Option<u16>,
    /// As it was written.
    shown: String,
}

impl Authority {
    /// `host` or `host:port` (no user information, path or anything else).
    fn named(text: &str) -> Option<Self> {
        let authority = axum::http::uri::Authority::try_from(text).ok()?;
        if authority.as_str().contains('@') || authority.host().is_empty() {
            return None;
        }
        Some(Self {
            host: normalized(authority.host()),
            port: authority.port_u16(),
            shown: text.to_owned(),
        })
    }
}

/// A host name lowercased, an IPv6 address without its brackets.
fn normalized(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

/// An allowed host: `host`, `host:port`, or an IPv6 address without brackets (`::1`).
fn allowed_host(entry: &str) -> Option<Authority> {
    let entry = entry.trim();
    if let Ok(address) = entry.parse::<std::net::Ipv6Addr>() {
        return Some(Authority {
            host: address.to_string(),
            port: None,
            shown: entry.to_owned(),
        });
    }
    Authority::named(entry)
}

/// The origin of the page that sent a request.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    /// `null`: a sandboxed frame, a local file, a redirect across sites.
    Null,
    Tuple {
        scheme: String,
        host: String,
        /// The port named, else the scheme's default (`None` for an unknown scheme).
        port: Option<u16>,
    },
}

impl Origin {
    fn parse(text: &str) -> Option<Self> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("null") {
            return Some(Self::Null);
        }
        let uri = Uri::try_from(text).ok()?;
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        let authority = uri.authority()?;
        if authority.as_str().contains('@') || authority.host().is_empty() {
            return None;
        }
        let port = authority.port_u16().or(match scheme.as_str() {
            "http" => Some(80),
            "https" => Some(443),
            _ => None,
        });
        Some(Self::Tuple {
            scheme,
            host: normalized(authority.host()),
            port,
        })
    }
}

/// An allowed origin: an origin, or `scheme://host:*` for any port of it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AllowedOrigin {
    origin: Origin,
    any_port: bool,
}

impl AllowedOrigin {
    fn admits(&self, origin: &Origin) -> bool {
        match (&self.origin, origin) {
            (Origin::Null, Origin::Null) => true,
            (
                Origin::Tuple { scheme, host, port },
                Origin::Tuple {
                    scheme: s,
                    host: h,
                    port: p,
                },
            ) => scheme == s && host == h && (self.any_port || port == p),
            _ => false,
        }
    }
}

fn allowed_origin(entry: &str) -> Option<AllowedOrigin> {
    let entry = entry.trim();
    match entry.strip_suffix(":*") {
        Some(base) => match Origin::parse(base)? {
            Origin::Null => None,
            origin => Some(AllowedOrigin {
                origin,
                any_port: true,
            }),
        },
        None => Some(AllowedOrigin {
            origin: Origin::parse(entry)?,
            any_port: false,
        }),
    }
}

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Refused {
    NoHost,
    SeveralHosts(usize),
    BadHost(String),
    ForeignHost(String),
    SeveralOrigins(usize),
    BadOrigin(String),
    /// The `Origin` header as sent.
    ForeignOrigin(String),
}

impl Refused {
    fn status_and_code(&self) -> (StatusCode, &'static str) {
        match self {
            Self::NoHost | Self::SeveralHosts(_) | Self::BadHost(_) => {
                (StatusCode::BAD_REQUEST, "invalid_host")
            }
            Self::ForeignHost(_) => (StatusCode::FORBIDDEN, "host_not_allowed"),
            Self::SeveralOrigins(_) | Self::BadOrigin(_) | Self::ForeignOrigin(_) => {
                (StatusCode::FORBIDDEN, "origin_not_allowed")
            }
        }
    }

    fn message(&self) -> String {
        match self {
            Self::NoHost => "The request has no `Host` header; HTTP/1.1 requires one.".into(),
            Self::SeveralHosts(count) => {
                format!("The request has {count} `Host` headers; send exactly one.")
            }
            Self::BadHost(host) => {
                format!("The `Host` header `{host}` is not a host name with an optional port.")
            }
            Self::ForeignHost(host) => format!(
                "This server does not answer to the host `{host}`: it serves only the host \
                 names it is configured for (a defence against DNS rebinding)."
            ),
            Self::SeveralOrigins(count) => {
                format!("The request has {count} `Origin` headers; a page sends one.")
            }
            Self::BadOrigin(origin) => format!(
                "The `Origin` header `{origin}` is not an origin (`scheme://host[:port]` or \
                 `null`)."
            ),
            Self::ForeignOrigin(origin) if origin.eq_ignore_ascii_case("null") => {
                "Pages without an origin (`Origin: null`: sandboxed frames, local files) may \
                 not call this server."
                    .into()
            }
            Self::ForeignOrigin(origin) => {
                format!("Pages of `{origin}` may not call this server.")
            }
        }
    }

    fn response(&self) -> Response {
        let (status, code) = self.status_and_code();
        failure(status, code, &self.message())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(policy: &HostPolicy, uri: &str, headers: &[(&str, &str)]) -> Result<(), Refused> {
        let mut map = HeaderMap::new();
        for (name, value) in headers {
            map.append(
                header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        policy.check(&uri.parse().unwrap(), &map)
    }

    #[test]
    fn loopback_names_on_any_port_are_served_and_nothing_else() {
        let policy = HostPolicy::loopback();
        for host in ["localhost", "127.0.0.1:8787", "[::1]:80", "LocalHost:1"] {
            assert_eq!(check(&policy, "/", &[("host", host)]), Ok(()), "{host}");
        }
        assert_eq!(
            check(&policy, "/", &[("host", "evil.example:8787")]),
            Err(Refused::ForeignHost("evil.example:8787".into()))
        );
        assert_eq!(check(&policy, "/tools", &[]), Err(Refused::NoHost));
        assert_eq!(
            check(
                &policy,
                "/",
                &[("host", "localhost"), ("host", "evil.example")]
            ),
            Err(Refused::SeveralHosts(2))
        );
        assert_eq!(
            check(&policy, "/", &[("host", "a@localhost")]),
            Err(Refused::BadHost("a@localhost".into()))
        );
        // An absolute-form request line names its host too.
        assert_eq!(
            check(&policy, "http://evil.example/", &[("host", "localhost")]),
            Err(Refused::ForeignHost("evil.example".into()))
        );
        assert_eq!(check(&policy, "http://localhost/", &[]), Ok(()));
    }

    #[test]
    fn a_host_with_a_port_is_served_on_that_port_only() {
        let policy = HostPolicy::loopback().allowed_hosts(["store.example:8443", "::1"]);
        assert!(policy.allows_host("store.example:8443"));
        assert!(!policy.allows_host("store.example:8444"));
        assert!(!policy.allows_host("store.example"));
        assert!(policy.allows_host("[::1]:9"));
        assert!(!policy.allows_host("localhost"), "the list was replaced");
        assert!(
            HostPolicy::loopback()
                .any_host()
                .allows_host("anything.example")
        );
    }

    #[test]
    fn only_allowed_page_origins_are_served() {
        let policy =
            HostPolicy::loopback().allowed_origins(["https://app.example.com", "nonsense"]);
        let from = |origin: &str| check(&policy, "/", &[("host", "localhost"), ("origin", origin)]);
        assert_eq!(from("https://app.example.com"), Ok(()));
        assert_eq!(
            from("https://app.example.com:443"),
            Ok(()),
            "the default port"
        );
        assert_eq!(from("http://localhost:6274"), Ok(()));
        assert_eq!(from("http://[::1]:3000"), Ok(()));
        assert!(matches!(
            from("https://app.example.com:8443"),
            Err(Refused::ForeignOrigin(_))
        ));
        assert!(matches!(
            from("http://app.example.com"),
            Err(Refused::ForeignOrigin(_))
        ));
        assert_eq!(from("null"), Err(Refused::ForeignOrigin("null".into())));
        assert_eq!(
            from("not an origin"),
            Err(Refused::BadOrigin("not an origin".into()))
        );
        assert!(
            HostPolicy::loopback()
                .allowed_origins(["null"])
                .allows_origin("null")
        );
        let twice = check(
            &policy,
            "/",
            &[
                ("host", "localhost"),
                ("origin", "http://localhost:1"),
                ("origin", "null"),
            ],
        );
        assert_eq!(twice, Err(Refused::SeveralOrigins(2)));
    }

    #[test]
    fn each_refusal_says_what_was_wrong() {
        let foreign = Refused::ForeignOrigin("https://evil.example".into());
        assert_eq!(
            foreign.message(),
            "Pages of `https://evil.example` may not call this server."
        );
        assert!(
            Refused::ForeignOrigin("null".into())
                .message()
                .contains("`Origin: null`")
        );
        assert_eq!(
            foreign.status_and_code(),
            (StatusCode::FORBIDDEN, "origin_not_allowed")
        );
        assert_eq!(
            Refused::NoHost.status_and_code(),
            (StatusCode::BAD_REQUEST, "invalid_host")
        );
        assert!(
            Refused::ForeignHost("evil.example".into())
                .message()
                .contains("`evil.example`")
        );
    }
}
