//! A slow issuer: a real axum server on a loopback port that answers its metadata documents
//! and JWKS only after a delay (or never), in front of the HTTP API served in-process as the
//! store serves it (the keys fetched at start-up, in the background). A request that needs the
//! keys while they are being fetched waits for that fetch, which, discovery and JWKS together,
//! ends at the fetch timeout: one deadline, not one per document.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use toolspec::auth::JwtAuthenticator;
use toolspec::http::HttpApi;
use toolspec::{Caller, Registry};
use toolspec_store::tools;

use crate::answer::send;
use crate::issuer::{AUDIENCE, TestKey};

/// The fetch timeout of these tests' authenticators.
const TIMEOUT: Duration = Duration::from_millis(1500);

/// What a request may take beyond the fetch timeout (a loaded machine's scheduling).
const SLACK: Duration = Duration::from_millis(1000);

/// How long "never" is: longer than any test.
const NEVER: Duration = Duration::from_secs(600);

/// How the slow issuer answers each of its paths: after how long, with what.
#[derive(Clone, Copy)]
struct Pace {
    /// RFC 8414's metadata document (`None`: `404` after the delay).
    oauth: (Duration, bool),
    /// OpenID Connect's.
    openid: (Duration, bool),
    jwks: Duration,
}

#[derive(Clone)]
struct Slow {
    base: String,
    pace: Pace,
}

async fn answer(State(slow): State<Arc<Slow>>, uri: Uri) -> Response {
    let metadata = json!({ "issuer": slow.base, "jwks_uri": format!("{}/jwks", slow.base) });
    let (delay, found) = match uri.path() {
        "/.well-known/oauth-authorization-server" => slow.pace.oauth,
        "/.well-known/openid-configuration" => slow.pace.openid,
        "/jwks" => (slow.pace.jwks, true),
        _ => (Duration::ZERO, false),
    };
    tokio::time::sleep(delay).await;
    match (found, uri.path()) {
        (false, _) => StatusCode::NOT_FOUND.into_response(),
        (true, "/jwks") => axum::Json(json!({ "keys": [TestKey::rsa_1().jwk] })).into_response(),
        (true, _) => axum::Json(metadata).into_response(),
    }
}

/// The slow issuer's URL.
async fn slow_issuer(pace: Pace) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = Router::new().fallback(answer).with_state(Arc::new(Slow {
        base: base.clone(),
        pace,
    }));
    tokio::spawn(async move { axum::serve(listener, router).await });
    base
}

/// The HTTP API behind a JWT authenticator of `issuer` whose keys are being fetched (as
/// `serve --http` starts it); its base URL.
async fn api(issuer: &str, dir: &tempfile::TempDir) -> String {
    let location = toolspec_store::Location::File(dir.path().join("store.db"));
    let store = toolspec_store::Store::open(&location).await.unwrap();
    let registry: Arc<Registry> = Arc::new(toolspec_store::registry(store));
    let jwt = JwtAuthenticator::builder()
        .issuer(issuer)
        .audience(AUDIENCE)
        .claims(tools::PROJECT.auth.claims.iter().copied())
        .fetch_timeout(TIMEOUT)
        .build()
        .unwrap();
    tokio::spawn({
        let jwt = jwt.clone();
        async move { jwt.refresh_keys().await }
    });
    let router = HttpApi::new(registry, Caller::new("nobody"))
        .authenticator(jwt)
        .router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    base
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_issuer_holds_a_request_no_longer_than_the_fetch_timeout() {
    let stalled = (NEVER, true);
    let slowly_missing = (TIMEOUT * 4 / 5, false);
    let slowly_found = (TIMEOUT * 4 / 5, true);
    let mut late = Vec::new();
    for (what, pace) in [
        (
            "every document stalls",
            Pace {
                oauth: stalled,
                openid: stalled,
                jwks: NEVER,
            },
        ),
        (
            "each metadata document answers just within the timeout, the JWKS never",
            Pace {
                oauth: slowly_missing,
                openid: slowly_found,
                jwks: NEVER,
            },
        ),
    ] {
        let issuer = slow_issuer(pace).await;
        let dir = tempfile::tempdir().unwrap();
        let base = api(&issuer, &dir).await;
        let token = TestKey::rsa_1().sign(&json!({
            "iss": issuer, "aud": AUDIENCE, "sub": "1", "exp": crate::issuer::now() + 300
        }));
        let started = Instant::now();
        let http = reqwest::Client::new();
        let refused = send(
            http.post(format!("{base}/tools/customers_me")),
            Some(&token),
        )
        .await;
        let held = started.elapsed();
        eprintln!("{what}: a request was held {held:?} (fetch timeout {TIMEOUT:?})");
        assert_eq!(refused.status, 401, "{what}: {}", refused.body);
        assert!(
            refused
                .challenge
                .contains("the issuer's keys are not available to check the token"),
            "{what}: {}",
            refused.challenge
        );
        if held >= TIMEOUT + SLACK {
            late.push(format!("{what}: held {held:?}"));
        }
    }
    assert!(
        late.is_empty(),
        "requests held past the fetch timeout {TIMEOUT:?}: {late:#?}"
    );
}
