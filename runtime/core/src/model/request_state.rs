//! Sealed request state: what a round trip (a confirmation asked of the user, an input the
//! model did not send) hands its client, to be sent back with the answers. It comes back from
//! the client, so it is untrusted input: [`StateKeys::seal`] encrypts and authenticates it
//! (XChaCha20-Poly1305, from RustCrypto's `chacha20poly1305`), and [`StateKeys::open`] refuses
//! one that was altered, sealed with a key this server does not hold, expired, or issued to
//! another caller, for another tool or for other arguments ([`StateError`]).
//!
//! A sealed state reads `v1.<key id>.<nonce and ciphertext, base64url>`; the version and the
//! key id are authenticated with it (changing either fails like a changed byte). Keys come
//! from configuration ([`StateKeys::parse`]: `id:key,id:key`, 32 bytes each in base64): the
//! first seals, every one opens, so that a new key is put first and the old one kept until the
//! states it sealed have expired. [`StateKeys::random`] is one fresh key for a single process:
//! a state it sealed opens nowhere else, and not after a restart.
//!
//! A state is single use by its [`id`](RequestState::id): the round trip that opens one
//! records the id as spent (in the storage every replica shares) before it acts on it.

use std::fmt;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use chacha20poly1305::aead::{Aead, AeadCore, KeyInit, OsRng, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::model::canonical::canonical;

/// The format's version, the first part of every sealed state.
const VERSION: &str = "v1";
/// An XChaCha20 nonce's length: random per state, so that no nonce repeats under one key.
const NONCE_LEN: usize = 24;
/// Poly1305's tag length.
const TAG_LEN: usize = 16;
/// The longest sealed state [`StateKeys::open`] reads; a longer one is refused unread.
#[doc(hidden)]
pub const MAX_SEALED_LEN: usize = 16 * 1024;
/// The longest key id.
const MAX_KEY_ID_LEN: usize = 32;

/// The keys that seal and open request states: the first seals, every one opens.
#[derive(Clone)]
pub struct StateKeys {
    keys: Vec<(String, XChaCha20Poly1305)>,
}

impl fmt::Debug for StateKeys {
    /// The key ids only: the keys themselves are never printed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids: Vec<&str> = self.keys.iter().map(|(id, _)| id.as_str()).collect();
        f.debug_struct("StateKeys").field("ids", &ids).finish()
    }
}

/// Why request-state keys could not be read from configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StateKeyError {
    /// There is no key at all.
    #[error("no request-state key is given: write `id:key`, the key 32 bytes in base64")]
    Empty,
    /// Entry `index` (from 1) is not `id:key`, or its key is not 32 bytes in base64.
    #[error("request-state key {index}: {reason}")]
    Entry {
        /// Which entry, counting from 1.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// Two keys have one id.
    #[error("two request-state keys have the id `{0}`")]
    DuplicateId(String),
}

impl StateKeys {
    /// The keys `text` gives: `id:key` entries separated by commas, each key 32 bytes in
    /// base64 (standard or URL-safe, padded or not), each id 1–32 letters, digits, `-` or `_`.
    /// The first entry seals; all open.
    pub fn parse(text: &str) -> Result<Self, StateKeyError> {
        let mut keys: Vec<(String, XChaCha20Poly1305)> = Vec::new();
        let entries = text.split(',').map(str::trim).filter(|e| !e.is_empty());
        for (index, entry) in entries.enumerate() {
            let index = index + 1;
            let bad = |reason: &str| StateKeyError::Entry {
                index,
                reason: reason.to_owned(),
            };
            let (id, key) = entry
                .split_once(':')
                .ok_or_else(|| bad("expected `id:key`"))?;
            if !is_key_id(id) {
                return Err(bad(
                    "the id must be 1–32 letters, digits, `-` or `_` (it is written into every \
                     state the key seals)",
                ));
            }
            let bytes = decode_key(key.trim())
                .ok_or_else(|| bad("the key must be 32 bytes in base64 (44 characters)"))?;
            if keys.iter().any(|(known, _)| known == id) {
                return Err(StateKeyError::DuplicateId(id.to_owned()));
            }
            let cipher = XChaCha20Poly1305::new_from_slice(&bytes)
                .map_err(|_| bad("the key must be 32 bytes"))?;
            keys.push((id.to_owned(), cipher));
        }
        if keys.is_empty() {
            return Err(StateKeyError::Empty);
        }
        Ok(Self { keys })
    }

    /// One fresh random key (id `process`), for a single process: what it seals opens nowhere
    /// else, and not after a restart.
    pub fn random() -> Self {
        let key = XChaCha20Poly1305::generate_key(&mut OsRng);
        Self {
            keys: vec![("process".to_owned(), XChaCha20Poly1305::new(&key))],
        }
    }

    /// A new random key named `id`, written as [`parse`](Self::parse) reads it.
    pub fn generate(id: &str) -> String {
        let key = XChaCha20Poly1305::generate_key(&mut OsRng);
        format!("{id}:{}", STANDARD.encode(key))
    }

    /// The id of the key that seals.
    pub fn sealing_id(&self) -> &str {
        self.keys.first().map_or("", |(id, _)| id.as_str())
    }

    /// `state`, sealed with the first key.
    pub fn seal(&self, state: &RequestState) -> String {
        let Some((id, cipher)) = self.keys.first() else {
            // `parse` and `random` never build an empty set.
            return String::new();
        };
        let plaintext = serde_json::to_vec(state).unwrap_or_default();
        let nonce = XChaCha20Poly1305::generate_nonce(&mut OsRng);
        let aad = associated_data(id);
        let payload = Payload {
            msg: &plaintext,
            aad: aad.as_bytes(),
        };
        // Encrypting into a vector cannot fail but for a message longer than the cipher's
        // stream (256 GiB); a state is small.
        let ciphertext = cipher.encrypt(&nonce, payload).unwrap_or_default();
        let mut sealed = Vec::with_capacity(NONCE_LEN + ciphertext.len());
        sealed.extend_from_slice(&nonce);
        sealed.extend_from_slice(&ciphertext);
        format!("{VERSION}.{id}.{}", URL_SAFE_NO_PAD.encode(sealed))
    }

    /// The state `sealed` holds, when this server sealed it, it is unaltered and unexpired at
    /// `now_ms` (Unix milliseconds), and it was issued to `caller` for a call of `tool` with
    /// these validated `arguments`.
    pub fn open(
        &self,
        sealed: &str,
        caller: &str,
        tool: &str,
        arguments: &Value,
        now_ms: i64,
    ) -> Result<RequestState, StateError> {
        if sealed.len() > MAX_SEALED_LEN {
            return Err(StateError::Malformed);
        }
        let mut parts = sealed.splitn(3, '.');
        let (Some(VERSION), Some(id), Some(body)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(StateError::Malformed);
        };
        let bytes = URL_SAFE_NO_PAD
            .decode(body)
            .map_err(|_| StateError::Malformed)?;
        if bytes.len() < NONCE_LEN + TAG_LEN {
            return Err(StateError::Malformed);
        }
        let (_, cipher) = self
            .keys
            .iter()
            .find(|(known, _)| known == id)
            .ok_or(StateError::UnknownKey)?;
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        let aad = associated_data(id);
        let payload = Payload {
            msg: ciphertext,
            aad: aad.as_bytes(),
        };
        let plaintext = cipher
            .decrypt(XNonce::from_slice(nonce), payload)
            .map_err(|_| StateError::Tampered)?;
        // Authenticated, so written by this server: a body that does not parse is a bug of
        // another version's, and is refused like any state that is not this one's.
        let state: RequestState =
            serde_json::from_slice(&plaintext).map_err(|_| StateError::Malformed)?;
        if now_ms >= state.expires_at_ms {
            return Err(StateError::Expired);
        }
        if state.caller != caller {
            return Err(StateError::OtherCaller);
        }
        if state.tool != tool {
            return Err(StateError::OtherTool);
        }
        if state.arguments != RequestState::digest(arguments) {
            return Err(StateError::OtherArguments);
        }
        Ok(state)
    }
}

/// What a round trip keeps while it waits for its client's answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[doc(hidden)]
pub struct RequestState {
    /// 32 hexadecimal digits, 122 of whose bits are random: the state is spent by this id.
    pub id: String,
    /// The caller it was issued to.
    pub caller: String,
    /// The tool (canonical name) whose call it continues.
    pub tool: String,
    /// SHA-256 of the canonical JSON of the call's validated arguments, in hex.
    pub arguments: String,
    /// When it stops opening, in Unix milliseconds.
    pub expires_at_ms: i64,
    /// What the continuation needs (the answers so far, the round).
    #[serde(default)]
    pub data: Value,
}

impl RequestState {
    /// A new state for `caller`'s call of `tool` with validated `arguments`, opening until
    /// `ttl` from `now_ms`, carrying `data`.
    pub fn new(
        caller: &str,
        tool: &str,
        arguments: &Value,
        now_ms: i64,
        ttl: Duration,
        data: Value,
    ) -> Self {
        let ttl_ms = i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX);
        Self {
            id: uuid::Uuid::new_v4().simple().to_string(),
            caller: caller.to_owned(),
            tool: tool.to_owned(),
            arguments: Self::digest(arguments),
            expires_at_ms: now_ms.saturating_add(ttl_ms),
            data,
        }
    }

    /// SHA-256 of the canonical JSON of `arguments`, in hex: equal for equal arguments whatever
    /// the order of their keys.
    pub fn digest(arguments: &Value) -> String {
        Sha256::digest(canonical(arguments).as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// Why a sealed request state was refused; nothing of the call runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
#[doc(hidden)]
pub enum StateError {
    /// Not a sealed state at all (or longer than [`MAX_SEALED_LEN`]).
    #[error("the request state is not one this server issued")]
    Malformed,
    /// Sealed with a key this server does not hold (retired, or another deployment's).
    #[error("the request state was sealed with a key this server does not hold")]
    UnknownKey,
    /// Altered since it was sealed (or its version or key id was).
    #[error("the request state was altered")]
    Tampered,
    /// Past its expiry.
    #[error("the request state has expired: call the tool again")]
    Expired,
    /// Issued to another caller.
    #[error("the request state was issued to another caller")]
    OtherCaller,
    /// Issued for a call of another tool.
    #[error("the request state was issued for another tool")]
    OtherTool,
    /// Issued for a call with other arguments.
    #[error("the arguments are not those the request state was issued for")]
    OtherArguments,
}

/// How a registry seals the states of its round trips, and where it spends them without a
/// database.
#[derive(Debug)]
pub(crate) struct Sealing {
    pub(crate) keys: StateKeys,
    /// Whether the keys were configured (rather than made for this process).
    pub(crate) configured: bool,
    pub(crate) spent: SpentStates,
}

impl Default for Sealing {
    /// A key of this process's own.
    fn default() -> Self {
        Self {
            keys: StateKeys::random(),
            configured: false,
            spent: SpentStates::default(),
        }
    }
}

/// The states spent in this process, for a registry without a database: single use holds
/// within the process (with a database, across every process on it). Bounded: expired ids are
/// swept as it fills, and a ledger full of unexpired ones refuses to spend more.
#[derive(Debug, Default)]
pub(crate) struct SpentStates {
    ids: std::sync::Mutex<std::collections::HashMap<String, i64>>,
}

/// The most ids [`SpentStates`] keeps.
const MAX_SPENT: usize = 100_000;

/// The ledger is full of states that have not expired yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LedgerFull;

impl SpentStates {
    /// Spends `id` (opening until `expires_at_ms`) at `now_ms`: `true` the first time.
    pub(crate) fn spend(
        &self,
        id: &str,
        expires_at_ms: i64,
        now_ms: i64,
    ) -> Result<bool, LedgerFull> {
        let mut ids = self
            .ids
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if ids.contains_key(id) {
            return Ok(false);
        }
        if ids.len() >= MAX_SPENT {
            ids.retain(|_, expires| *expires > now_ms);
            if ids.len() >= MAX_SPENT {
                return Err(LedgerFull);
            }
        }
        ids.insert(id.to_owned(), expires_at_ms);
        Ok(true)
    }
}

/// What a state's ciphertext is bound to besides its body: the format and the key id.
fn associated_data(id: &str) -> String {
    format!("toolspec/request-state/{VERSION}/{id}")
}

/// Whether `id` may name a key.
fn is_key_id(id: &str) -> bool {
    (1..=MAX_KEY_ID_LEN).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// A 32-byte key in base64, standard or URL-safe, padded or not.
fn decode_key(text: &str) -> Option<Vec<u8>> {
    let unpadded = text.trim_end_matches('=');
    let bytes = URL_SAFE_NO_PAD
        .decode(unpadded.replace('+', "-").replace('/', "_"))
        .ok()?;
    (bytes.len() == 32).then_some(bytes)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const NOW: i64 = 1_764_900_000_000;

    fn keys() -> StateKeys {
        StateKeys::parse(&StateKeys::generate("k2")).unwrap()
    }

    fn state(arguments: &Value) -> RequestState {
        let data = json!({"round": 1});
        RequestState::new(
            "ada",
            "orders_cancel",
            arguments,
            NOW,
            Duration::from_secs(600),
            data,
        )
    }

    #[test]
    fn a_sealed_state_opens_for_its_caller_tool_and_arguments_only() {
        let keys = keys();
        let args = json!({"order_id": 7, "reason": "duplicate"});
        let issued = state(&args);
        let sealed = keys.seal(&issued);
        assert!(sealed.starts_with("v1.k2."), "{sealed}");
        assert!(
            !sealed.contains("orders_cancel") && !sealed.contains("ada"),
            "encrypted"
        );
        // The same arguments in another key order are the same arguments.
        let reordered = json!({"reason": "duplicate", "order_id": 7});
        let opened = keys.open(&sealed, "ada", "orders_cancel", &reordered, NOW + 1);
        assert_eq!(opened, Ok(issued.clone()));
        assert_eq!(
            keys.open(&sealed, "grace", "orders_cancel", &args, NOW),
            Err(StateError::OtherCaller)
        );
        assert_eq!(
            keys.open(&sealed, "ada", "orders_refund", &args, NOW),
            Err(StateError::OtherTool)
        );
        let other = json!({"order_id": 8, "reason": "duplicate"});
        assert_eq!(
            keys.open(&sealed, "ada", "orders_cancel", &other, NOW),
            Err(StateError::OtherArguments)
        );
        assert_eq!(
            keys.open(&sealed, "ada", "orders_cancel", &args, issued.expires_at_ms),
            Err(StateError::Expired)
        );
        // Two seals of one state differ (a fresh nonce each).
        assert_ne!(keys.seal(&issued), sealed);
    }

    #[test]
    fn any_altered_byte_key_id_or_version_is_refused() {
        let keys = keys();
        let args = json!({"order_id": 7});
        let sealed = keys.seal(&state(&args));
        let open = |s: &str| keys.open(s, "ada", "orders_cancel", &args, NOW);
        let (head, body) = sealed.rsplit_once('.').unwrap();
        let mut bytes = URL_SAFE_NO_PAD.decode(body).unwrap();
        for at in [0, NONCE_LEN, bytes.len() - 1] {
            bytes[at] ^= 1;
            let altered = format!("{head}.{}", URL_SAFE_NO_PAD.encode(&bytes));
            assert_eq!(open(&altered), Err(StateError::Tampered), "byte {at}");
            bytes[at] ^= 1;
        }
        // The same key under another id: the id is authenticated with the body.
        let secret = StateKeys::generate("a");
        let both =
            StateKeys::parse(&format!("{secret},{}", secret.replacen("a:", "b:", 1))).unwrap();
        let under_a = both.seal(&state(&args));
        let under_b = under_a.replacen("v1.a.", "v1.b.", 1);
        let opened = both.open(&under_b, "ada", "orders_cancel", &args, NOW);
        assert_eq!(opened, Err(StateError::Tampered));
        assert_eq!(
            open(&sealed.replacen("v1.", "v2.", 1)),
            Err(StateError::Malformed)
        );
        for malformed in [
            "",
            "v1",
            "v1.k2",
            "v1.k2.",
            "v1.k2.!!!",
            "v1.k2.AAAA",
            "x.y.z",
        ] {
            assert_eq!(open(malformed), Err(StateError::Malformed), "{malformed:?}");
        }
        let long = format!("v1.k2.{}", "A".repeat(MAX_SEALED_LEN));
        assert_eq!(open(&long), Err(StateError::Malformed));
    }

    #[test]
    fn a_new_key_seals_and_the_old_one_still_opens_until_it_is_removed() {
        let old = StateKeys::generate("2026-11");
        let new = StateKeys::generate("2026-12");
        let before = StateKeys::parse(&old).unwrap();
        let rotated = StateKeys::parse(&format!("{new}, {old}")).unwrap();
        let retired = StateKeys::parse(&new).unwrap();
        let args = json!({});
        let sealed_before = before.seal(&state(&args));
        let open = |keys: &StateKeys, s: &str| keys.open(s, "ada", "orders_cancel", &args, NOW);
        assert!(open(&rotated, &sealed_before).is_ok());
        assert_eq!(rotated.sealing_id(), "2026-12");
        assert!(rotated.seal(&state(&args)).starts_with("v1.2026-12."));
        assert_eq!(open(&retired, &sealed_before), Err(StateError::UnknownKey));
        // Another process's random key has the same id and another secret.
        let elsewhere = StateKeys::random().seal(&state(&args));
        assert_eq!(
            open(&StateKeys::random(), &elsewhere),
            Err(StateError::Tampered)
        );
    }

    #[test]
    fn keys_are_read_from_configuration_with_clear_errors() {
        let key = STANDARD.encode([7u8; 32]);
        let url_safe = URL_SAFE_NO_PAD.encode([7u8; 32]);
        assert!(StateKeys::parse(&format!("a:{key}")).is_ok());
        assert!(StateKeys::parse(&format!(" a:{url_safe} ,")).is_ok());
        assert_eq!(StateKeys::parse(" , ").unwrap_err(), StateKeyError::Empty);
        let entry = |text: &str| match StateKeys::parse(text) {
            Err(StateKeyError::Entry { index, reason }) => format!("{index}: {reason}"),
            other => panic!("{text}: {other:?}"),
        };
        assert!(entry("nokey").contains("expected `id:key`"));
        assert!(entry(&format!("bad id:{key}")).contains("the id must be"));
        assert!(entry("a:c2hvcnQ=").starts_with("1: the key must be 32 bytes"));
        assert!(entry(&format!("a:{key},b:%%%")).starts_with("2: "));
        assert_eq!(
            StateKeys::parse(&format!("a:{key},a:{url_safe}")).unwrap_err(),
            StateKeyError::DuplicateId("a".into())
        );
        let debug = format!("{:?}", StateKeys::parse(&format!("a:{key}")).unwrap());
        assert_eq!(debug, r#"StateKeys { ids: ["a"] }"#, "no key material");
    }
}
