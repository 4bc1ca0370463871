//! HTTP/1.1 requests written byte for byte on a TCP socket, for what a client library would
//! normalize away or refuse to send: two `Authorization` headers, no `Host` at all, a foreign
//! `Host` or `Origin`. Each request asks the server to close the connection, so its answer is
//! everything read until then. Shared by the test crates that need it (`#[path]`).
#![allow(dead_code)]

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// How long a raw request may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(30);

/// What came back: the status, the headers (names lowercased, in order) and the body.
#[derive(Debug)]
pub struct RawAnswer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl RawAnswer {
    /// The first header named `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON (`Null` when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// Asserts the one error shape, `{error, message, details?}`, with `code`, and a
    /// JSON content type; returns the message.
    pub fn assert_failure(&self, status: u16, code: &str) -> String {
        let body = self.json();
        assert_eq!(self.status, status, "{self:#?}");
        assert_eq!(body["error"], code, "{self:#?}");
        let message = body["message"].as_str().unwrap_or_default();
        assert!(!message.is_empty(), "a message: {self:#?}");
        let keys = body.as_object().map(|o| o.len()).unwrap_or_default();
        assert!(
            keys == 2 || (keys == 3 && body.get("details").is_some()),
            "{self:#?}"
        );
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "{self:#?}"
        );
        message.to_owned()
    }
}

/// Sends `METHOD path HTTP/1.1` to `address` (`host:port`) with exactly `headers` (each
/// `Name: value`, in order: no `Host` unless one of them is) and `body` (with its
/// `Content-Length` when it is not empty), and `Connection: close`.
pub async fn send(
    address: &str,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &str,
) -> RawAnswer {
    send_from(None, address, method, path, headers, body).await
}

/// [`send`] from the local address `source` (an IPv4 loopback address such as `127.0.0.2`,
/// which the server sees as another peer), or any.
pub async fn send_from(
    source: Option<std::net::Ipv4Addr>,
    address: &str,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &str,
) -> RawAnswer {
    let mut request = format!("{method} {path} HTTP/1.1\r\n");
    for header in headers {
        request += header;
        request += "\r\n";
    }
    if !body.is_empty() {
        request += &format!("Content-Length: {}\r\n", body.len());
    }
    request += "Connection: close\r\n\r\n";
    request += body;
    exchange_from(source, address, request.as_bytes()).await
}

/// Writes `request`, whole, to `address` (it must ask to close the connection): the answer.
/// For bytes no `&str` holds (a header value that is not UTF-8).
pub async fn exchange(address: &str, request: &[u8]) -> RawAnswer {
    exchange_from(None, address, request).await
}

/// [`exchange`] from the local address `source`, or any.
async fn exchange_from(
    source: Option<std::net::Ipv4Addr>,
    address: &str,
    request: &[u8],
) -> RawAnswer {
    let exchange = async {
        let mut stream = match source {
            None => TcpStream::connect(address).await.expect("connect"),
            Some(source) => {
                let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
                socket
                    .bind((source, 0).into())
                    .expect("bind the source address");
                let to = address.parse().expect("an IPv4 `host:port`");
                socket.connect(to).await.expect("connect")
            }
        };
        stream.write_all(request).await.expect("write the request");
        let mut answer = Vec::new();
        stream
            .read_to_end(&mut answer)
            .await
            .expect("read the answer");
        answer
    };
    let head = String::from_utf8_lossy(&request[..request.len().min(80)]).into_owned();
    let answer = tokio::time::timeout(PATIENCE, exchange)
        .await
        .unwrap_or_else(|_| panic!("no answer to {head:?} within {PATIENCE:?}"));
    parse(&answer).unwrap_or_else(|| {
        panic!(
            "not an HTTP answer to {head:?}: {:?}",
            String::from_utf8_lossy(&answer)
        )
    })
}

/// `send` with `Host: address` first, then `headers`.
pub async fn send_to(
    address: &str,
    method: &str,
    path: &str,
    headers: &[&str],
    body: &str,
) -> RawAnswer {
    let host = format!("Host: {address}");
    let all: Vec<&str> = std::iter::once(host.as_str())
        .chain(headers.iter().copied())
        .collect();
    send(address, method, path, &all, body).await
}

/// An MCP `POST /mcp` to `address` as `token` (none: no `Authorization`) of `body`, accepting
/// JSON and SSE, with `headers` after the usual ones.
pub async fn post_mcp(
    address: &str,
    token: Option<&str>,
    headers: &[&str],
    body: &str,
) -> RawAnswer {
    let authorization = token.map(|token| format!("Authorization: Bearer {token}"));
    let all: Vec<&str> = authorization
        .as_deref()
        .into_iter()
        .chain([
            "Accept: application/json, text/event-stream",
            "Content-Type: application/json",
        ])
        .chain(headers.iter().copied())
        .collect();
    send_to(address, "POST", "/mcp", &all, body).await
}

/// Reads `stream` until what it read contains `until` (an answer still streaming): what it
/// read. Fails the test when the stream ends first or takes too long.
pub async fn read_until(stream: &mut TcpStream, until: &str) -> String {
    let mut read = Vec::new();
    while !String::from_utf8_lossy(&read).contains(until) {
        let mut chunk = [0; 1024];
        let n = tokio::time::timeout(PATIENCE, stream.read(&mut chunk))
            .await
            .unwrap_or_else(|_| panic!("{until} in time: {}", String::from_utf8_lossy(&read)))
            .expect("read the answer");
        assert!(
            n > 0,
            "the stream ended: {}",
            String::from_utf8_lossy(&read)
        );
        read.extend_from_slice(&chunk[..n]);
    }
    String::from_utf8_lossy(&read).into_owned()
}

fn parse(answer: &[u8]) -> Option<RawAnswer> {
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = std::str::from_utf8(&answer[..end]).ok()?;
    let mut lines = head.split("\r\n");
    let status = lines.next()?.split(' ').nth(1)?.parse().ok()?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let rest = &answer[end + 4..];
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.eq_ignore_ascii_case("chunked"));
    let body = if chunked {
        dechunk(rest)?
    } else {
        rest.to_vec()
    };
    Some(RawAnswer {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    })
}

/// A chunked body's bytes.
fn dechunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    loop {
        let line_end = rest.windows(2).position(|w| w == b"\r\n")?;
        let size = std::str::from_utf8(&rest[..line_end]).ok()?;
        let size = usize::from_str_radix(size.split(';').next()?.trim(), 16).ok()?;
        rest = &rest[line_end + 2..];
        if size == 0 {
            return Some(body);
        }
        body.extend_from_slice(rest.get(..size)?);
        rest = rest.get(size + 2..)?;
    }
}
