//! A test issuer: a real axum server on a loopback port serving its metadata document (RFC
//! 8414, or only OpenID Connect's) and its JWKS, whose keys a test can rotate, counting how
//! often the JWKS is fetched; and tokens signed with its keys (PEM fixtures in `keys/`).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use jsonwebtoken::jwk::{Jwk, PublicKeyUse};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// The audience the tests' tokens name.
pub const AUDIENCE: &str = "toolspec-store";

/// A signing key of the issuer, and its public JWK.
pub struct TestKey {
    pub kid: &'static str,
    pub algorithm: Algorithm,
    pub encoding: EncodingKey,
    pub jwk: Value,
}

impl TestKey {
    fn new(kid: &'static str, algorithm: Algorithm, encoding: EncodingKey) -> Self {
        let mut jwk = Jwk::from_encoding_key(&encoding, algorithm).expect("a public JWK");
        jwk.common.key_id = Some(kid.to_owned());
        jwk.common.public_key_use = Some(PublicKeyUse::Signature);
        let jwk = serde_json::to_value(jwk).expect("a JWK as JSON");
        Self {
            kid,
            algorithm,
            encoding,
            jwk,
        }
    }

    /// The first RSA key (RS256).
    pub fn rsa_1() -> Self {
        let pem = include_str!("keys/rsa-1.pem");
        Self::new("rsa-1", Algorithm::RS256, rsa(pem))
    }

    /// The second RSA key (RS256): the rotated one.
    pub fn rsa_2() -> Self {
        let pem = include_str!("keys/rsa-2.pem");
        Self::new("rsa-2", Algorithm::RS256, rsa(pem))
    }

    /// The EC key (ES256, P-256).
    pub fn ec_1() -> Self {
        let pem = include_str!("keys/ec-1.pem");
        let key = EncodingKey::from_ec_pem(pem.as_bytes()).expect("the EC test key");
        Self::new("ec-1", Algorithm::ES256, key)
    }

    /// `claims` signed with this key, its `kid` in the header.
    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.algorithm);
        header.kid = Some(self.kid.to_owned());
        jsonwebtoken::encode(&header, claims, &self.encoding).expect("a signed token")
    }
}

fn rsa(pem: &str) -> EncodingKey {
    EncodingKey::from_rsa_pem(pem.as_bytes()).expect("the RSA test key")
}

/// Where the issuer publishes its metadata.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Discovery {
    /// RFC 8414's `/.well-known/oauth-authorization-server`.
    OAuth,
    /// Only OpenID Connect's `/.well-known/openid-configuration`.
    OpenIdOnly,
}

#[derive(Clone)]
struct Published {
    /// The server's own URL (where the JWKS is, whatever the metadata claims).
    base: String,
    issuer: Arc<Mutex<String>>,
    keys: Arc<Mutex<Vec<Value>>>,
    jwks_fetches: Arc<AtomicUsize>,
}

/// The issuer, serving until the test ends.
pub struct Issuer {
    pub url: String,
    published: Published,
}

impl Issuer {
    /// An issuer publishing `keys`.
    pub async fn start(keys: &[&TestKey]) -> Self {
        Self::start_with(keys, Discovery::OAuth).await
    }

    pub async fn start_with(keys: &[&TestKey], discovery: Discovery) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("an address"));
        let published = Published {
            base: url.clone(),
            issuer: Arc::new(Mutex::new(url.clone())),
            keys: Arc::new(Mutex::new(keys.iter().map(|k| k.jwk.clone()).collect())),
            jwks_fetches: Arc::default(),
        };
        let metadata_path = match discovery {
            Discovery::OAuth => "/.well-known/oauth-authorization-server",
            Discovery::OpenIdOnly => "/.well-known/openid-configuration",
        };
        let router = Router::new()
            .route(metadata_path, get(metadata))
            .route("/jwks", get(jwks))
            .with_state(published.clone());
        tokio::spawn(async move { axum::serve(listener, router).await });
        Self { url, published }
    }

    /// Publishes `keys` instead of the keys before (a rotation).
    pub fn publish(&self, keys: &[&TestKey]) {
        *self.published.keys.lock().unwrap() = keys.iter().map(|k| k.jwk.clone()).collect();
    }

    /// Makes the metadata name another issuer.
    pub fn claim_to_be(&self, issuer: &str) {
        *self.published.issuer.lock().unwrap() = issuer.to_owned();
    }

    /// How often the JWKS was fetched.
    pub fn jwks_fetches(&self) -> usize {
        self.published.jwks_fetches.load(Ordering::SeqCst)
    }

    /// Claims of a token for `sub` with `scope`, valid for five minutes from now.
    pub fn claims(&self, sub: &str, scope: &str) -> Value {
        let now = now();
        json!({
            "iss": self.url, "aud": AUDIENCE, "sub": sub, "scope": scope,
            "iat": now, "exp": now + 300,
        })
    }
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs()
}

async fn metadata(State(published): State<Published>) -> axum::Json<Value> {
    let issuer = published.issuer.lock().unwrap().clone();
    axum::Json(json!({
        "issuer": issuer,
        "jwks_uri": format!("{}/jwks", published.base),
        "response_types_supported": ["code"],
    }))
}

async fn jwks(State(published): State<Published>) -> axum::Json<Value> {
    published.jwks_fetches.fetch_add(1, Ordering::SeqCst);
    let keys = published.keys.lock().unwrap().clone();
    axum::Json(json!({ "keys": keys }))
}
