//! A look at each incoming JSON-RPC message before rmcp parses it, on stdio and over HTTP
//! alike: one pass over its text that builds nothing, and refuses what rmcp would answer
//! wrongly or what would cost too much to parse.
//!
//! - text that is not JSON: `-32700` Parse error (rmcp drops it silently, and a client waits
//!   forever for its answer);
//! - a message nested deeper, or holding more values, than the registry's
//!   [`Limits`](crate::model::limits::Limits) allow its arguments (plus the envelope): `-32600`,
//!   before a single value is allocated;
//! - `tools/call` whose `arguments` is neither an object nor absent: `-32602` Invalid params
//!   (rmcp answers `-32601`, method not found).
//!
//! Everything else goes on to rmcp unchanged.
//!
//! Screening only: nothing here parses a message into values, or knows a tool.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};

use crate::model::limits::Limits;

/// JSON-RPC: the text is not JSON.
pub(crate) const PARSE_ERROR: i32 = -32700;
/// JSON-RPC: the message is not a valid request.
pub(crate) const INVALID_REQUEST: i32 = -32600;
/// JSON-RPC: the method's parameters are invalid.
pub(crate) const INVALID_PARAMS: i32 = -32602;

/// How many levels and values a message's envelope adds around its arguments
/// (`{"params": {"arguments": …}}`, the id, the method, the name, `_meta`…).
const ENVELOPE_DEPTH: usize = 2;
const ENVELOPE_VALUES: usize = 64;

/// Why a message was refused, and the JSON-RPC error that says so.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rejection {
    pub(crate) code: i32,
    pub(crate) message: String,
    /// The message's id, when it could be read (else the answer's id is `null`).
    pub(crate) id: Option<Value>,
    /// Whether the message was read whole and is a notification (it has no id): then it
    /// gets no answer.
    pub(crate) notification: bool,
}

impl Rejection {
    /// The JSON-RPC error response.
    pub(crate) fn response(&self) -> Value {
        json!({
            "jsonrpc": "2.0",
            "id": self.id.clone().unwrap_or(Value::Null),
            "error": { "code": self.code, "message": self.message },
        })
    }

    /// A refusal answered with `id` (or `null`, when it could not be read).
    pub(crate) fn new(code: i32, message: String, id: Option<Value>) -> Self {
        Self {
            code,
            message,
            id,
            notification: false,
        }
    }

    /// Whether the refusal goes unanswered: a notification read whole gets no answer.
    pub(crate) fn is_silent(&self) -> bool {
        self.notification
    }
}

/// Screens one message's text within `limits`.
pub(crate) fn screen(text: &[u8], limits: &Limits) -> Result<(), Rejection> {
    let mut budget = Budget {
        values: limits.max_values.saturating_add(ENVELOPE_VALUES),
        depth: limits.max_depth.saturating_add(ENVELOPE_DEPTH),
        seen: 0,
        exceeded: None,
    };
    let mut deserializer = serde_json::Deserializer::from_slice(text);
    // serde_json's own recursion limit stays on: it is higher than ours.
    let walk = Walk {
        budget: &mut budget,
        depth: 1,
        role: Role::Message,
    };
    let parsed = walk
        .deserialize(&mut deserializer)
        .and_then(|found| deserializer.end().map(|()| found));
    if let Some(exceeded) = budget.exceeded {
        // The id, if it came before the limit was passed, is lost with the walk: answer null.
        let message = format!("Invalid Request: the message {exceeded}");
        return Err(Rejection::new(INVALID_REQUEST, message, None));
    }
    let found = match parsed {
        Ok(found) => found,
        Err(e) => {
            return Err(match e.classify() {
                serde_json::error::Category::Syntax | serde_json::error::Category::Eof => {
                    Rejection::new(PARSE_ERROR, format!("Parse error: {e}"), None)
                }
                _ => Rejection::new(INVALID_REQUEST, format!("Invalid Request: {e}"), None),
            });
        }
    };
    let arguments = found.arguments.unwrap_or(Kind::Absent);
    if found.calls_a_tool && !matches!(arguments, Kind::Absent | Kind::Null | Kind::Object) {
        let message = format!(
            "Invalid params: `arguments` must be an object, not {}",
            arguments.describe()
        );
        return Err(Rejection {
            notification: found.id.is_none(),
            ..Rejection::new(INVALID_PARAMS, message, found.id)
        });
    }
    Ok(())
}

/// What a walk may still spend.
#[derive(Debug)]
struct Budget {
    values: usize,
    depth: usize,
    seen: usize,
    /// Set once a limit is passed ("holds more than N values").
    exceeded: Option<String>,
}

impl Budget {
    /// Counts one value at `depth`; an error (ending the walk) once a limit is passed.
    fn count<E: serde::de::Error>(&mut self, depth: usize) -> Result<(), E> {
        self.seen += 1;
        if self.seen > self.values {
            self.exceeded = Some(format!("holds more than {} values", self.values));
        } else if depth > self.depth {
            self.exceeded = Some(format!("is nested deeper than {} levels", self.depth));
        }
        match &self.exceeded {
            Some(why) => Err(E::custom(why)),
            None => Ok(()),
        }
    }
}

/// The JSON kind of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Absent,
    Null,
    Bool,
    Number,
    String,
    Array,
    Object,
}

impl Kind {
    fn describe(self) -> &'static str {
        match self {
            Self::Absent => "absent",
            Self::Null => "null",
            Self::Bool => "a boolean",
            Self::Number => "a number",
            Self::String => "a string",
            Self::Array => "a list",
            Self::Object => "an object",
        }
    }
}

/// What the walk is looking at, and so what it keeps of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// The message itself: its `id`, `method` and `params`.
    Message,
    /// `params`: what its `arguments` is.
    Params,
    /// An `id` or a `method`: kept when it is a scalar.
    Scalar,
    /// Anything else: counted only.
    Any,
}

/// What the walk found in one value.
#[derive(Debug, Default)]
struct Found {
    kind: Option<Kind>,
    /// The value, when its role keeps it (an id, a method).
    scalar: Option<Value>,
    /// The message's `id`, and whether its `method` is `tools/call`.
    id: Option<Value>,
    calls_a_tool: bool,
    /// What `params.arguments` is.
    arguments: Option<Kind>,
}

/// One value, counted and never built; what its role asks for kept.
struct Walk<'b> {
    budget: &'b mut Budget,
    depth: usize,
    role: Role,
}

impl Walk<'_> {
    fn scalar<E: serde::de::Error>(
        self,
        kind: Kind,
        value: impl FnOnce() -> Value,
    ) -> Result<Found, E> {
        self.budget.count(self.depth)?;
        let scalar = (self.role == Role::Scalar).then(value);
        Ok(Found {
            kind: Some(kind),
            scalar,
            ..Found::default()
        })
    }

    fn child(&mut self, role: Role) -> Walk<'_> {
        Walk {
            budget: self.budget,
            depth: self.depth + 1,
            role,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = Found;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Found, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = Found;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<Found, A::Error> {
        self.budget.count(self.depth)?;
        let mut found = Found {
            kind: Some(Kind::Object),
            ..Found::default()
        };
        while let Some(key) = map.next_key::<Key>()? {
            let role = match (self.role, key) {
                (Role::Message, Key::Id | Key::Method) => Role::Scalar,
                (Role::Message, Key::Params) => Role::Params,
                _ => Role::Any,
            };
            let child = map.next_value_seed(self.child(role))?;
            match (self.role, key) {
                (Role::Message, Key::Id) => found.id = child.scalar.filter(|id| !id.is_null()),
                (Role::Message, Key::Method) => {
                    found.calls_a_tool =
                        child.scalar.as_ref().and_then(Value::as_str) == Some("tools/call");
                }
                (Role::Message, Key::Params) => found.arguments = child.arguments,
                (Role::Params, Key::Arguments) => found.arguments = child.kind,
                _ => {}
            }
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<Found, A::Error> {
        // A batch at the top: each message is counted, none is inspected (rmcp refuses them).
        self.budget.count(self.depth)?;
        while seq.next_element_seed(self.child(Role::Any))?.is_some() {}
        Ok(Found {
            kind: Some(Kind::Array),
            ..Found::default()
        })
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Found, E> {
        self.scalar(Kind::Null, || Value::Null)
    }

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Found, E> {
        self.scalar(Kind::Bool, || Value::Bool(b))
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Found, E> {
        self.scalar(Kind::Number, || Value::from(n))
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Found, E> {
        self.scalar(Kind::Number, || Value::from(n))
    }

    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Found, E> {
        self.scalar(Kind::Number, || Value::from(n))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Found, E> {
        // An id or a method is short; a long one is kept only in part.
        self.scalar(Kind::String, || {
            Value::String(s.chars().take(256).collect())
        })
    }
}

/// An object key: one of those the walk looks at, or another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Id,
    Method,
    Params,
    Arguments,
    Other,
}

impl<'de> serde::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "id" => Key::Id,
                    "method" => Key::Method,
                    "params" => Key::Params,
                    "arguments" => Key::Arguments,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_str(Name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(values: usize, depth: usize) -> Limits {
        Limits {
            max_values: values,
            max_depth: depth,
            ..Limits::DEFAULT
        }
    }

    #[test]
    fn ordinary_messages_pass() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2]}}}"#;
        assert_eq!(screen(call, &Limits::DEFAULT), Ok(()));
        let list = br#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#;
        assert_eq!(screen(list, &Limits::DEFAULT), Ok(()));
        let no_arguments =
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#;
        assert_eq!(screen(no_arguments, &Limits::DEFAULT), Ok(()));
    }

    #[test]
    fn text_that_is_not_json_is_a_parse_error_without_an_id() {
        let rejection = screen(b"{\"id\": 7, oops", &Limits::DEFAULT).unwrap_err();
        assert_eq!(rejection.code, PARSE_ERROR);
        assert_eq!(rejection.id, None);
        assert!(!rejection.is_silent());
        assert_eq!(rejection.response()["id"], Value::Null);
    }

    #[test]
    fn arguments_that_are_not_an_object_are_invalid_params() {
        let call = br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":[1]}}"#;
        let rejection = screen(call, &Limits::DEFAULT).unwrap_err();
        assert_eq!(rejection.code, INVALID_PARAMS);
        assert_eq!(rejection.id, Some(json!(9)));
        assert_eq!(
            rejection.message,
            "Invalid params: `arguments` must be an object, not a list"
        );
        // Only `tools/call` has arguments to check.
        let other = br#"{"jsonrpc":"2.0","id":9,"method":"other","params":{"arguments":[1]}}"#;
        assert_eq!(screen(other, &Limits::DEFAULT), Ok(()));
    }

    #[test]
    fn too_many_values_or_levels_are_refused() {
        let many = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"x","arguments":{{"a":[{}]}}}}}}"#,
            vec!["1"; 200].join(",")
        );
        let rejection = screen(many.as_bytes(), &limits(100, 64)).unwrap_err();
        assert_eq!(rejection.code, INVALID_REQUEST);
        assert_eq!(
            rejection.id, None,
            "the walk ends where the limit is passed"
        );
        assert_eq!(
            rejection.message,
            "Invalid Request: the message holds more than 164 values"
        );
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{{"arguments":{{"a":{}1{}}}}}}}"#,
            "[".repeat(20),
            "]".repeat(20)
        );
        let rejection = screen(deep.as_bytes(), &limits(1000, 10)).unwrap_err();
        assert_eq!(
            rejection.message,
            "Invalid Request: the message is nested deeper than 12 levels"
        );
    }

    #[test]
    fn only_a_notification_read_whole_goes_unanswered() {
        let call = br#"{"jsonrpc":"2.0","method":"tools/call","params":{"arguments":7}}"#;
        assert!(screen(call, &Limits::DEFAULT).unwrap_err().is_silent());
        let deep = br#"{"jsonrpc":"2.0","method":"x","params":{"arguments":{"a":[[[[[[1]]]]]]}}}"#;
        let rejection = screen(deep, &limits(1000, 2)).unwrap_err();
        assert!(!rejection.is_silent(), "it might have had an id further on");
    }
}
