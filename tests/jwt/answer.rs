//! What a request got back: its status, its `WWW-Authenticate` challenge and its body.

use serde_json::Value;

/// An answer's status, challenge and body (JSON when it parses).
pub struct Answer {
    pub status: u16,
    pub challenge: String,
    pub body: Value,
}

/// Sends `request` with `token` as its bearer token, if any.
pub async fn send(request: reqwest::RequestBuilder, token: Option<&str>) -> Answer {
    let request = match token {
        Some(token) => request.header("authorization", format!("Bearer {token}")),
        None => request,
    };
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    Answer {
        status,
        challenge,
        body,
    }
}
