//! `JwtAuthenticator::verify` against the test issuer: what is accepted, what is refused and
//! why, how the keys are found, fetched again and not fetched too often, and the caller a
//! token makes (scopes, typed ambient values).

use std::time::Duration;

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use toolspec::Scopes;
use toolspec::auth::{JwtAuthenticator, Refusal};
use toolspec_store::tools;

use crate::issuer::{AUDIENCE, Discovery, Issuer, TestKey, now};

/// The refresh interval of these tests' authenticators.
const REFRESH: Duration = Duration::from_millis(400);

/// An authenticator of `issuer`'s tokens with the store's claims mapping (`customer_id` from
/// `sub`, an integer).
pub fn authenticator(issuer: &Issuer) -> JwtAuthenticator {
    JwtAuthenticator::builder()
        .issuer(&issuer.url)
        .audience(AUDIENCE)
        .claims(tools::PROJECT.auth.claims.iter().copied())
        .refresh_interval(REFRESH)
        .build()
        .expect("an authenticator")
}

fn reason<T: std::fmt::Debug>(refused: Result<T, Refusal>) -> String {
    let refusal = refused.expect_err("the token is refused");
    assert_eq!(refusal.error(), Some("invalid_token"));
    refusal.description().unwrap_or_default().to_owned()
}

fn with(mut claims: Value, changes: Value) -> Value {
    for (key, value) in changes.as_object().unwrap() {
        if value.is_null() {
            claims.as_object_mut().unwrap().remove(key);
        } else {
            claims[key] = value.clone();
        }
    }
    claims
}

#[tokio::test]
async fn rs256_and_es256_tokens_make_their_callers() {
    let (rsa, ec) = (TestKey::rsa_1(), TestKey::ec_1());
    let issuer = Issuer::start(&[&rsa, &ec]).await;
    let jwt = authenticator(&issuer);
    let caller = jwt
        .verify(&rsa.sign(&issuer.claims("1", "orders:read orders:write")))
        .await
        .unwrap();
    assert_eq!(caller.id.as_deref(), Some("1"));
    assert_eq!(caller.ambient.get("customer_id"), Some(&json!(1)));
    assert_eq!(caller.scopes, Scopes::only(["orders:read", "orders:write"]));
    let caller = jwt.verify(&ec.sign(&issuer.claims("2", ""))).await.unwrap();
    assert_eq!(caller.ambient.get("customer_id"), Some(&json!(2)));
    assert_eq!(caller.scopes, Scopes::none());
    assert_eq!(
        issuer.jwks_fetches(),
        1,
        "the keys are fetched once and kept"
    );
}

#[tokio::test]
async fn tokens_of_another_issuer_or_audience_or_outside_their_time_are_refused() {
    let rsa = TestKey::rsa_1();
    let issuer = Issuer::start(&[&rsa]).await;
    let jwt = authenticator(&issuer);
    let base = issuer.claims("1", "orders:read");
    let verify = |changes: Value| {
        let token = rsa.sign(&with(base.clone(), changes));
        let jwt = jwt.clone();
        async move { jwt.verify(&token).await }
    };
    assert_eq!(
        reason(verify(json!({"iss": "http://evil.example"})).await),
        format!("the token was not issued by {}", issuer.url)
    );
    assert_eq!(
        reason(verify(json!({"aud": "another-api"})).await),
        "the token is not for the audience toolspec-store"
    );
    assert!(
        verify(json!({"aud": ["another-api", AUDIENCE]}))
            .await
            .is_ok()
    );
    assert_eq!(
        reason(verify(json!({"aud": null})).await),
        "the token has no `aud` claim"
    );
    let now = now();
    assert_eq!(
        reason(verify(json!({"exp": now - 120})).await),
        "the token has expired"
    );
    assert!(
        verify(json!({"exp": now - 20})).await.is_ok(),
        "within the 60 s leeway"
    );
    assert_eq!(
        reason(verify(json!({"exp": null})).await),
        "the token has no `exp` claim"
    );
    assert_eq!(
        reason(verify(json!({"nbf": now + 300})).await),
        "the token is not valid yet (nbf)"
    );
    assert!(
        verify(json!({"nbf": now + 20})).await.is_ok(),
        "within the 60 s leeway"
    );
    let strict = JwtAuthenticator::builder()
        .issuer(&issuer.url)
        .audience(AUDIENCE)
        .leeway(Duration::ZERO)
        .build()
        .unwrap();
    let early = rsa.sign(&with(base.clone(), json!({"nbf": now + 20})));
    assert_eq!(
        reason(strict.verify(&early).await),
        "the token is not valid yet (nbf)"
    );
}

#[tokio::test]
async fn forged_tokens_are_refused() {
    let (rsa, other) = (TestKey::rsa_1(), TestKey::rsa_2());
    let issuer = Issuer::start(&[&rsa]).await;
    let jwt = authenticator(&issuer);
    let claims = issuer.claims("1", "orders:read");

    // Signed by a key the issuer does not publish, under its key's id.
    let mut header = Header::new(Algorithm::RS256);
    header.kid = Some("rsa-1".into());
    let forged = jsonwebtoken::encode(&header, &claims, &other.encoding).unwrap();
    assert_eq!(
        reason(jwt.verify(&forged).await),
        "the token's signature does not verify"
    );

    // A genuine token whose claims were changed after signing.
    let genuine = rsa.sign(&claims);
    let parts: Vec<&str> = genuine.split('.').collect();
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let raised = b64.encode(
        serde_json::to_vec(&with(claims.clone(), json!({"scope": "payments:refund"}))).unwrap(),
    );
    let tampered = format!("{}.{raised}.{}", parts[0], parts[2]);
    assert_eq!(
        reason(jwt.verify(&tampered).await),
        "the token's signature does not verify"
    );

    // `alg: none`, signed with nothing.
    let none_header = b64.encode(br#"{"alg":"none","typ":"JWT","kid":"rsa-1"}"#);
    let payload = b64.encode(serde_json::to_vec(&claims).unwrap());
    for unsigned in [
        format!("{none_header}.{payload}."),
        format!("{none_header}.{payload}"),
    ] {
        assert!(
            reason(jwt.verify(&unsigned).await).starts_with("the token is not a JWT signed"),
            "{unsigned}"
        );
    }

    // HS256 with the RSA key's public bytes as the secret (algorithm confusion).
    let n = rsa.jwk["n"].as_str().unwrap();
    let public_pem = public_pem(&rsa);
    for secret in [n.as_bytes(), public_pem.as_bytes()] {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("rsa-1".into());
        let confused =
            jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(secret).unwrap())
                .unwrap();
        assert_eq!(
            reason(jwt.verify(&confused).await),
            "the token is signed with HS256, but its key `rsa-1` is for RS256"
        );
        let header = Header::new(Algorithm::HS256);
        let no_kid =
            jsonwebtoken::encode(&header, &claims, &EncodingKey::from_secret(secret).unwrap())
                .unwrap();
        assert_eq!(
            reason(jwt.verify(&no_kid).await),
            "the token names no key (kid) and the issuer has none for HS256"
        );
    }
    assert!(reason(jwt.verify("not.a.jwt").await).starts_with("the token is not a JWT"));
    assert!(jwt.verify(&genuine).await.is_ok());
}

/// The RSA key's public half as PEM, as anyone can have it.
fn public_pem(_key: &TestKey) -> String {
    include_str!("keys/rsa-1.pub.pem").to_owned()
}

#[tokio::test]
async fn an_unknown_kid_fetches_the_keys_again_at_most_once_per_interval() {
    let (first, rotated) = (TestKey::rsa_1(), TestKey::rsa_2());
    let issuer = Issuer::start(&[&first]).await;
    let jwt = authenticator(&issuer);
    assert!(
        jwt.verify(&first.sign(&issuer.claims("1", "")))
            .await
            .is_ok()
    );
    assert_eq!(issuer.jwks_fetches(), 1);

    // The issuer rotates to a new key; a token signed with it brings the new set.
    issuer.publish(&[&rotated]);
    tokio::time::sleep(REFRESH + Duration::from_millis(100)).await;
    let caller = jwt
        .verify(&rotated.sign(&issuer.claims("7", "orders:read")))
        .await
        .unwrap();
    assert_eq!(caller.ambient.get("customer_id"), Some(&json!(7)));
    assert_eq!(issuer.jwks_fetches(), 2);
    assert_eq!(
        reason(jwt.verify(&first.sign(&issuer.claims("1", ""))).await),
        "no key of the issuer has the id `rsa-1`",
        "the retired key no longer verifies"
    );
    assert_eq!(issuer.jwks_fetches(), 2, "within the interval: not fetched");

    // A flood of made-up key ids, all at once and then one by one: one fetch at most per
    // interval.
    tokio::time::sleep(REFRESH + Duration::from_millis(100)).await;
    let bogus: Vec<String> = (0..50)
        .map(|i| {
            let mut header = Header::new(Algorithm::RS256);
            header.kid = Some(format!("bogus-{i}"));
            jsonwebtoken::encode(&header, &issuer.claims("1", ""), &rotated.encoding).unwrap()
        })
        .collect();
    let answers = futures_util::future::join_all(bogus.iter().map(|t| jwt.verify(t))).await;
    assert!(answers.iter().all(Result::is_err));
    assert_eq!(
        issuer.jwks_fetches(),
        3,
        "fifty unknown kids at once: one fetch"
    );
    for token in &bogus {
        assert!(jwt.verify(token).await.is_err());
    }
    assert_eq!(
        issuer.jwks_fetches(),
        3,
        "and none more within the interval"
    );
    assert!(
        jwt.verify(&rotated.sign(&issuer.claims("1", "")))
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn keys_are_found_through_openid_connect_or_a_given_url_and_a_lying_issuer_is_not_trusted() {
    let rsa = TestKey::rsa_1();
    let oidc = Issuer::start_with(&[&rsa], Discovery::OpenIdOnly).await;
    assert!(
        authenticator(&oidc)
            .verify(&rsa.sign(&oidc.claims("1", "")))
            .await
            .is_ok()
    );

    let given = Issuer::start(&[&rsa]).await;
    let jwt = JwtAuthenticator::builder()
        .issuer("https://elsewhere.example")
        .audience(AUDIENCE)
        .jwks_url(format!("{}/jwks", given.url))
        .build()
        .unwrap();
    let claims = with(
        given.claims("1", ""),
        json!({"iss": "https://elsewhere.example"}),
    );
    assert!(jwt.verify(&rsa.sign(&claims)).await.is_ok());

    // A JWKS larger than the bound is not read.
    let bounded = JwtAuthenticator::builder()
        .issuer(&given.url)
        .audience(AUDIENCE)
        .max_response_bytes(256)
        .build()
        .unwrap();
    assert_eq!(
        reason(bounded.verify(&rsa.sign(&given.claims("1", ""))).await),
        "the issuer's keys are not available to check the token"
    );

    let liar = Issuer::start(&[&rsa]).await;
    liar.claim_to_be("http://impostor.example");
    assert_eq!(
        reason(
            authenticator(&liar)
                .verify(&rsa.sign(&liar.claims("1", "")))
                .await
        ),
        "the issuer's keys are not available to check the token"
    );
    assert_eq!(liar.jwks_fetches(), 0);
}

#[tokio::test]
async fn scopes_come_from_scope_or_scp_and_claims_must_fit_their_ambient_fields() {
    let rsa = TestKey::rsa_1();
    let issuer = Issuer::start(&[&rsa]).await;
    let jwt = authenticator(&issuer);
    let scopes = |changes: Value| {
        let token = rsa.sign(&with(issuer.claims("1", ""), changes));
        let jwt = jwt.clone();
        async move { jwt.verify(&token).await.map(|caller| caller.scopes) }
    };
    assert_eq!(
        scopes(json!({"scope": null, "scp": ["orders:read", "payments:refund"]})).await,
        Ok(Scopes::only(["orders:read", "payments:refund"]))
    );
    assert_eq!(
        scopes(json!({"scope": null, "scp": "orders:write"})).await,
        Ok(Scopes::only(["orders:write"]))
    );
    assert_eq!(
        scopes(json!({"scope": null})).await,
        Ok(Scopes::none()),
        "no scope claim: no scopes, never all"
    );
    assert_eq!(
        reason(scopes(json!({"scope": 3})).await),
        "the token's `scope` claim is a number, not a space-separated string"
    );

    let sub = |sub: Value| {
        let token = rsa.sign(&with(issuer.claims("1", ""), json!({ "sub": sub })));
        let jwt = jwt.clone();
        async move { jwt.verify(&token).await }
    };
    assert_eq!(
        sub(json!("42")).await.unwrap().ambient.get("customer_id"),
        Some(&json!(42))
    );
    assert_eq!(
        reason(sub(json!("abc")).await),
        "the token's `sub` claim does not fit the ambient `customer_id` (integer): \"abc\" is \
         not an integer"
    );
    assert_eq!(
        reason(sub(json!(42)).await),
        "the token's `sub` claim is not a string"
    );
    let token = rsa.sign(&with(issuer.claims("1", ""), json!({ "sub": null })));
    assert_eq!(
        reason(jwt.verify(&token).await),
        "the token has no `sub` claim"
    );
}
