//! The issuer's signing keys: its JWKS, found through its metadata (RFC 8414, then OpenID
//! Connect discovery) or at a given URL, fetched within one deadline (the metadata documents
//! and the JWKS together) and a size bound, kept, and
//! fetched again when a token names a key the set does not hold or the set grows old — at most
//! once per refresh interval, however many tokens ask, so a flood of made-up key ids cannot
//! make the server hammer the issuer.
//!
//! Only asymmetric signature keys are kept, each with the one algorithm it verifies: the
//! JWK's `alg`, or the one its key type implies (RSA: RS256, EC P-256: ES256, P-384: ES384,
//! Ed25519: EdDSA). Symmetric (`oct`) keys, encryption keys and HMAC algorithms are dropped.

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyOperations, PublicKeyUse};
use jsonwebtoken::{Algorithm, AlgorithmFamily, DecodingKey};
use serde_json::Value;

/// How the keys are fetched and kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FetchSettings {
    /// How long one fetch of the keys may take: every request of it (the metadata
    /// documents, then the JWKS), connecting included, within this one deadline.
    pub(crate) timeout: Duration,
    /// The largest metadata or JWKS response read.
    pub(crate) max_bytes: usize,
    /// The least time between two fetches of the JWKS.
    pub(crate) refresh_interval: Duration,
    /// How long a fetched set is used before it is fetched again.
    pub(crate) max_age: Duration,
}

impl FetchSettings {
    pub(crate) const DEFAULT: Self = Self {
        timeout: Duration::from_secs(10),
        max_bytes: 1 << 20,
        refresh_interval: Duration::from_secs(30),
        max_age: Duration::from_secs(3600),
    };
}

/// One verification key of the issuer.
pub(crate) struct VerifyingKey {
    pub(crate) kid: Option<String>,
    pub(crate) algorithm: Algorithm,
    pub(crate) key: DecodingKey,
}

/// Why no key verifies a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum KeyError {
    /// The set holds no key by that id (or none for the token's algorithm).
    Unknown(String),
    /// The key the token names is for another algorithm.
    WrongAlgorithm { kid: String, key: Algorithm },
    /// The keys could not be fetched (and none was known).
    Unavailable,
}

#[derive(Default)]
struct KeySet {
    keys: Vec<Arc<VerifyingKey>>,
    fetched_at: Option<Instant>,
}

#[derive(Default)]
struct Refresh {
    last_attempt: Option<Instant>,
    /// The JWKS URL, once discovered (or as given).
    jwks_url: Option<String>,
}

/// The issuer's keys, fetched on demand and kept.
pub(crate) struct KeyCache {
    client: reqwest::Client,
    issuer: String,
    settings: FetchSettings,
    keys: RwLock<KeySet>,
    /// Held while fetching: one fetch at a time, and the time of the last one.
    refresh: tokio::sync::Mutex<Refresh>,
}

impl KeyCache {
    /// The keys of `issuer`, from `jwks_url` or from the URL its metadata names.
    pub(crate) fn new(
        issuer: String,
        jwks_url: Option<String>,
        settings: FetchSettings,
    ) -> Result<Self, reqwest::Error> {
        let client = reqwest::Client::builder()
            .timeout(settings.timeout)
            .connect_timeout(settings.timeout)
            .redirect(reqwest::redirect::Policy::limited(3))
            .build()?;
        Ok(Self {
            client,
            issuer,
            settings,
            keys: RwLock::new(KeySet::default()),
            refresh: tokio::sync::Mutex::new(Refresh {
                last_attempt: None,
                jwks_url,
            }),
        })
    }

    /// The key that verifies a token whose header names `kid` and `algorithm`: from the kept
    /// set, or from a fresh one when the set does not hold it or has grown old (and the last
    /// fetch is older than the refresh interval).
    pub(crate) async fn key(
        &self,
        kid: Option<&str>,
        algorithm: Algorithm,
    ) -> Result<Arc<VerifyingKey>, KeyError> {
        let (found, fresh) = self.find(kid, algorithm);
        if fresh && !matches!(found, Err(KeyError::Unknown(_))) {
            return found;
        }
        self.refresh().await;
        match self.find(kid, algorithm).0 {
            // A set that could not be fetched again still verifies with what it held.
            Err(KeyError::Unknown(_)) if self.is_empty() => Err(KeyError::Unavailable),
            result => result,
        }
    }

    /// Fetches the keys now (at most once per refresh interval), e.g. at start-up; a failure
    /// is logged and leaves the kept keys as they were.
    pub(crate) async fn refresh(&self) {
        let mut refresh = self.refresh.lock().await;
        // Whoever waited for a fetch in flight uses its keys rather than fetching again.
        if refresh
            .last_attempt
            .is_some_and(|at| at.elapsed() < self.settings.refresh_interval)
        {
            return;
        }
        refresh.last_attempt = Some(Instant::now());
        // One deadline for discovery and the JWKS: whoever waits on this fetch (every token
        // that needs the keys) waits no longer than the timeout.
        let timeout = self.settings.timeout;
        let fetched = tokio::time::timeout(timeout, self.fetch(&mut refresh))
            .await
            .unwrap_or_else(|_| {
                Err(format!(
                    "the issuer's metadata and keys did not arrive within {timeout:?}"
                ))
            });
        match fetched {
            Ok(keys) => {
                tracing::debug!(issuer = %self.issuer, keys = keys.len(), "fetched the issuer's keys");
                let mut set = self.keys.write().unwrap_or_else(|e| e.into_inner());
                *set = KeySet {
                    keys,
                    fetched_at: Some(Instant::now()),
                };
            }
            Err(e) => {
                tracing::warn!(issuer = %self.issuer, error = %e, "could not fetch the issuer's keys")
            }
        }
    }

    fn is_empty(&self) -> bool {
        let set = self.keys.read().unwrap_or_else(|e| e.into_inner());
        set.keys.is_empty()
    }

    /// The kept key for `kid` and `algorithm`, and whether the set is fresh.
    fn find(
        &self,
        kid: Option<&str>,
        algorithm: Algorithm,
    ) -> (Result<Arc<VerifyingKey>, KeyError>, bool) {
        let set = self.keys.read().unwrap_or_else(|e| e.into_inner());
        let fresh = set
            .fetched_at
            .is_some_and(|at| at.elapsed() < self.settings.max_age);
        let found = match kid {
            Some(kid) => match set.keys.iter().find(|k| k.kid.as_deref() == Some(kid)) {
                Some(key) if key.algorithm == algorithm => Ok(Arc::clone(key)),
                Some(key) => Err(KeyError::WrongAlgorithm {
                    kid: kid.to_owned(),
                    key: key.algorithm,
                }),
                None => Err(KeyError::Unknown(format!(
                    "no key of the issuer has the id `{kid}`"
                ))),
            },
            // Without a key id, the one key for the token's algorithm (never a guess among
            // several).
            None => {
                let mut candidates = set.keys.iter().filter(|k| k.algorithm == algorithm);
                match (candidates.next(), candidates.next()) {
                    (Some(key), None) => Ok(Arc::clone(key)),
                    (None, _) => Err(KeyError::Unknown(format!(
                        "the token names no key (kid) and the issuer has none for {algorithm:?}"
                    ))),
                    (Some(_), Some(_)) => Err(KeyError::Unknown(format!(
                        "the token names no key (kid) and the issuer has several for {algorithm:?}"
                    ))),
                }
            }
        };
        (found, fresh)
    }

    async fn fetch(&self, refresh: &mut Refresh) -> Result<Vec<Arc<VerifyingKey>>, String> {
        let url = match &refresh.jwks_url {
            Some(url) => url.clone(),
            None => {
                let url = self.discover().await?;
                refresh.jwks_url = Some(url.clone());
                url
            }
        };
        let jwks = self.get_json(&url).await?;
        let keys = parse_jwks(&jwks).map_err(|e| format!("{url}: {e}"))?;
        if keys.is_empty() {
            return Err(format!("{url} holds no usable signature key"));
        }
        Ok(keys)
    }

    /// The JWKS URL the issuer's metadata names: RFC 8414's document first, then OpenID
    /// Connect's; the document must name this issuer.
    async fn discover(&self) -> Result<String, String> {
        let mut failures = Vec::new();
        for url in metadata_urls(&self.issuer) {
            match self.get_json(&url).await {
                Ok(document) => {
                    if document.get("issuer").and_then(Value::as_str) != Some(self.issuer.as_str())
                    {
                        return Err(format!(
                            "{url} names the issuer {}, not {}",
                            document.get("issuer").unwrap_or(&Value::Null),
                            self.issuer
                        ));
                    }
                    return document
                        .get("jwks_uri")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .ok_or_else(|| format!("{url} has no `jwks_uri`"));
                }
                Err(e) => failures.push(e),
            }
        }
        Err(format!(
            "the issuer's metadata could not be read: {}",
            failures.join("; ")
        ))
    }

    /// `GET url` as JSON, within the timeout and size bound.
    async fn get_json(&self, url: &str) -> Result<Value, String> {
        let mut response = self
            .client
            .get(url)
            .header(reqwest::header::ACCEPT, "application/json")
            .send()
            .await
            .map_err(|e| format!("{url}: {}", with_causes(&e)))?;
        if !response.status().is_success() {
            return Err(format!("{url} answered {}", response.status()));
        }
        let max = self.settings.max_bytes;
        let too_large = || format!("{url} answered more than {max} bytes");
        if response
            .content_length()
            .is_some_and(|length| length > max as u64)
        {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| format!("{url}: {}", with_causes(&e)))?
        {
            if body.len() + chunk.len() > max {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| format!("{url} did not answer JSON: {e}"))
    }
}

/// An error and its causes (`error sending request: connection refused`).
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

/// Where an issuer's metadata may be: RFC 8414's well-known URL (the segment between host and
/// path), then OpenID Connect's (appended to the issuer).
pub(crate) fn metadata_urls(issuer: &str) -> Vec<String> {
    let issuer = issuer.trim_end_matches('/');
    let scheme_end = issuer.find("://").map_or(0, |i| i + 3);
    let path_start = issuer[scheme_end..]
        .find('/')
        .map_or(issuer.len(), |i| scheme_end + i);
    let (origin, path) = issuer.split_at(path_start);
    vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{issuer}/.well-known/openid-configuration"),
    ]
}

/// The usable signature keys of a JWKS (`{"keys": [...]}`); keys that cannot be read or used
/// are skipped (and logged).
fn parse_jwks(jwks: &Value) -> Result<Vec<Arc<VerifyingKey>>, String> {
    let keys = jwks
        .get("keys")
        .and_then(Value::as_array)
        .ok_or("it is not a JWKS (no `keys` array)")?;
    let mut usable = Vec::new();
    for (i, key) in keys.iter().enumerate() {
        match verifying_key(key) {
            Ok(key) => usable.push(Arc::new(key)),
            Err(why) => tracing::debug!(key = i, why, "a key of the JWKS is skipped"),
        }
    }
    Ok(usable)
}

fn verifying_key(value: &Value) -> Result<VerifyingKey, String> {
    let jwk: Jwk = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    match &jwk.common.public_key_use {
        None | Some(PublicKeyUse::Signature) => {}
        Some(_) => return Err("not a signature key (`use`)".into()),
    }
    if let Some(ops) = &jwk.common.key_operations
        && !ops.iter().any(|op| matches!(op, KeyOperations::Verify))
    {
        return Err("not a verification key (`key_ops`)".into());
    }
    let implied = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => Algorithm::RS256,
        AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
            EllipticCurve::P256 => Algorithm::ES256,
            EllipticCurve::P384 => Algorithm::ES384,
            _ => return Err("an unsupported curve".into()),
        },
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => {
            Algorithm::EdDSA
        }
        _ => return Err("not an asymmetric signature key".into()),
    };
    let algorithm = match jwk.common.key_algorithm {
        Some(declared) => Algorithm::try_from(declared)
            .map_err(|_| format!("`alg` {declared:?} is not a signature algorithm"))?,
        None => implied,
    };
    if algorithm.family() != implied.family() || algorithm.family() == AlgorithmFamily::Hmac {
        return Err(format!("`alg` {algorithm:?} does not fit the key's type"));
    }
    if matches!(jwk.algorithm, AlgorithmParameters::EllipticCurve(_)) && algorithm != implied {
        return Err(format!("`alg` {algorithm:?} does not fit the key's curve"));
    }
    let key = DecodingKey::from_jwk(&jwk).map_err(|e| e.to_string())?;
    Ok(VerifyingKey {
        kid: jwk.common.key_id.clone(),
        algorithm,
        key,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn metadata_is_looked_for_where_rfc_8414_then_openid_connect_put_it() {
        assert_eq!(
            metadata_urls("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("https://auth.example.com/tenant/"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant",
                "https://auth.example.com/tenant/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn only_asymmetric_signature_keys_are_kept_each_with_one_algorithm() {
        // A P-256 point (any valid coordinates do for parsing).
        let ec = json!({
            "kty": "EC", "crv": "P-256", "kid": "ec",
            "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
            "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
        });
        let rsa = json!({"kty": "RSA", "kid": "rsa", "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw", "e": "AQAB"});
        let keys = parse_jwks(&json!({"keys": [
            ec,
            rsa,
            {"kty": "oct", "kid": "hmac", "k": "c2VjcmV0"},
            {"kty": "RSA", "kid": "enc", "use": "enc", "n": rsa["n"], "e": "AQAB"},
            {"kty": "RSA", "kid": "hs", "alg": "HS256", "n": rsa["n"], "e": "AQAB"},
            {"kty": "EC", "crv": "P-256", "kid": "ec384", "alg": "ES384", "x": ec["x"], "y": ec["y"]},
            {"kty": "weird"},
        ]}))
        .unwrap();
        let kept: Vec<(Option<&str>, Algorithm)> = keys
            .iter()
            .map(|k| (k.kid.as_deref(), k.algorithm))
            .collect();
        assert_eq!(
            kept,
            [
                (Some("ec"), Algorithm::ES256),
                (Some("rsa"), Algorithm::RS256)
            ]
        );
        assert!(parse_jwks(&json!({"nokeys": []})).is_err());
    }
}
