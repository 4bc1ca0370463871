//! A handler's output serialized into JSON within its tool's [`ResultCap`]: a
//! `serde::Serializer` that builds the `Value` as `serde_json::to_value` would, but keeps at
//! most `items` items of each list and stops keeping a list's items once the answer's bytes
//! would pass `bytes`, counting (never serializing) the items it leaves out. A 50 MB output
//! therefore never becomes a 50 MB `Value`: what is built stays near the cap.
//!
//! Bytes are counted as compact JSON while the value is built, exactly (a unit test holds it
//! to `serde_json::to_string`). Only list items can be left out: a string, a map's entry or a
//! struct's field is kept whole or the answer does not fit. When what follows the lists
//! (closing fields, other values) does not fit beside them, the lists are given less room and
//! the output is serialized again, a few times at most.

use std::fmt;
use std::io;

use serde::ser::{self, Serialize};
use serde_json::{Map, Value};
use toolspec_vocab::pointer;
use toolspec_vocab::result_cap::ResultCap;

use crate::model::truncation::{Cut, CutBy, MAX_LISTED, Truncation};

/// How many times an output is serialized, giving its lists less room each time, before it
/// is found too large.
const ATTEMPTS: usize = 4;

/// The most items a list or map reserves room for before it has them (a `Serialize`
/// implementation's length is a hint, not a promise).
const MAX_RESERVED: usize = 1024;

/// An output within its cap: the value, and what was cut when something was.
#[derive(Debug)]
pub(crate) struct Capped {
    pub value: Value,
    pub truncation: Option<Truncation>,
}

/// An output that cannot be answered within its cap.
#[derive(Debug, PartialEq)]
pub(crate) enum Refused {
    /// No cut fits: the answer would take at least `bytes` bytes of JSON.
    TooLarge { bytes: u64 },
    /// The output does not serialize (a map key that is not a string, a `Serialize` error).
    Invalid(String),
}

/// `output` as JSON within `cap`.
pub(crate) fn to_value<T: Serialize + ?Sized>(
    output: &T,
    cap: ResultCap,
) -> Result<Capped, Refused> {
    let ceiling = cap.bytes.unwrap_or(u64::MAX);
    let mut lists = ceiling;
    for _ in 0..ATTEMPTS {
        let mut state = State::new(cap.items, ceiling, lists);
        let value = match output.serialize(Ser { state: &mut state }) {
            Ok(value) => value,
            Err(Error::Custom(e)) => return Err(Refused::Invalid(e.into())),
            // Only a list's item is refused for its size, and lists keep what they refuse.
            Err(Error::Over) => return Err(Refused::TooLarge { bytes: state.used }),
        };
        if !state.over {
            return Ok(Capped {
                value,
                truncation: state.notice(cap),
            });
        }
        // What follows the lists passed the ceiling: the lists leave it room, or nothing can.
        let overshoot = state.used - ceiling;
        if state.list_peak <= overshoot {
            return Err(Refused::TooLarge { bytes: state.used });
        }
        lists = state.list_peak - overshoot;
    }
    Err(Refused::TooLarge { bytes: ceiling })
}

/// What the serializer keeps as it goes.
struct State {
    /// The most items kept of a list.
    items: Option<u32>,
    /// The most bytes of the whole answer.
    ceiling: u64,
    /// The most bytes the answer may take when a list's item ends (the ceiling, or less to
    /// leave room for what follows the lists).
    lists: u64,
    /// The bytes of compact JSON of what is kept so far, closing brackets included.
    used: u64,
    /// How many list items the serializer is inside (an item can be left out).
    within_items: u32,
    /// Whether the answer passed the ceiling outside any list item: nothing more is kept, but
    /// bytes are still counted, to know by how much.
    over: bool,
    /// The most bytes used when a list item was kept.
    list_peak: u64,
    /// The lists cut, the first [`MAX_LISTED`]; each learns where it is from the containers it
    /// is in as they end (nothing is tracked while nothing is cut).
    cuts: Vec<Placed>,
    /// The lists cut beyond those.
    more: u64,
}

impl State {
    fn new(items: Option<u32>, ceiling: u64, lists: u64) -> Self {
        Self {
            items,
            ceiling,
            lists,
            used: 0,
            within_items: 0,
            over: false,
            list_peak: 0,
            cuts: Vec::new(),
            more: 0,
        }
    }

    /// Counts `bytes` more: past the room inside a list item, that item is refused.
    fn add(&mut self, bytes: u64) -> Result<(), Error> {
        self.used = self.used.saturating_add(bytes);
        if self.within_items > 0 {
            if self.used > self.lists {
                return Err(Error::Over);
            }
        } else if self.used > self.ceiling {
            self.over = true;
        }
        Ok(())
    }

    /// The room a value may take where the serializer is.
    fn room(&self) -> u64 {
        if self.within_items > 0 {
            self.lists
        } else {
            self.ceiling
        }
    }

    /// Keeps `value` unless nothing more is kept.
    fn keep(&self, value: Value) -> Value {
        if self.over { Value::Null } else { value }
    }

    fn cut(&mut self, kept: u64, total: u64, by: CutBy) {
        if self.cuts.len() < MAX_LISTED {
            let placed = Placed {
                upward: Vec::new(),
                kept,
                total,
                by,
            };
            self.cuts.push(placed);
        } else {
            self.more += 1;
        }
    }

    /// The lists cut since the `from`th are below `token`.
    fn below(&mut self, from: usize, token: impl Fn() -> Token) {
        for cut in &mut self.cuts[from..] {
            cut.upward.push(token());
        }
    }

    fn notice(self, cap: ResultCap) -> Option<Truncation> {
        (!self.cuts.is_empty()).then(|| Truncation {
            limit: cap.into(),
            cut: self.cuts.into_iter().map(Placed::into_cut).collect(),
            more: self.more,
        })
    }
}

/// A list cut, with the tokens of its place from the list up.
struct Placed {
    upward: Vec<Token>,
    kept: u64,
    total: u64,
    by: CutBy,
}

impl Placed {
    fn into_cut(self) -> Cut {
        let mut at = String::new();
        for token in self.upward.iter().rev() {
            at.push('/');
            match token {
                Token::Field(name) => at.push_str(&pointer::escape(name)),
                Token::Key(key) => at.push_str(&pointer::escape(key)),
                Token::Index(index) => at.push_str(&index.to_string()),
            }
        }
        Cut {
            at,
            kept: self.kept,
            total: self.total,
            by: self.by,
        }
    }
}

/// A token of a JSON pointer: a struct's field, a map's key, a list's index.
enum Token {
    Field(&'static str),
    Key(String),
    Index(u64),
}

/// Why serializing stopped.
#[derive(Debug)]
enum Error {
    /// A list item does not fit in the room left.
    Over,
    /// The output itself cannot be serialized (boxed: results stay small).
    Custom(Box<str>),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Over => f.write_str("the item does not fit in the result cap"),
            Self::Custom(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self::Custom(msg.to_string().into())
    }
}

/// Counts the bytes written to it.
struct Count(u64);

impl io::Write for Count {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The bytes each byte adds to a JSON string when serde_json escapes it: 1 for `\"`, `\\`,
/// `\b \f \n \r \t`, 5 for other control characters (`\u00XX`), else 0.
static ESCAPED: [u8; 256] = {
    let mut extra = [0; 256];
    let mut byte = 0;
    while byte < 0x20 {
        extra[byte] = 5;
        byte += 1;
    }
    let short = [b'"', b'\\', 0x08, 0x0c, b'\n', b'\r', b'\t'];
    let mut i = 0;
    while i < short.len() {
        extra[short[i] as usize] = 1;
        i += 1;
    }
    extra
};

/// The bytes of `text` as a JSON string, quotes included, escaped as serde_json escapes it.
fn str_len(text: &str) -> u64 {
    let escapes: u64 = text
        .bytes()
        .map(|b| u64::from(ESCAPED[usize::from(b)]))
        .sum();
    text.len() as u64 + 2 + escapes
}

/// The bytes of an integer's JSON: its digits, and its sign.
fn int_len(negative: bool, mut magnitude: u64) -> u64 {
    let mut digits = 1;
    while magnitude >= 10 {
        magnitude /= 10;
        digits += 1;
    }
    digits + u64::from(negative)
}

/// The bytes of `value`'s compact JSON.
fn json_len<T: Serialize + ?Sized>(value: &T) -> u64 {
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => u64::MAX,
    }
}

/// The serializer, over the state it shares with the lists and maps it opens.
struct Ser<'s> {
    state: &'s mut State,
}

impl Ser<'_> {
    /// A scalar: built as serde_json builds it, then counted.
    fn scalar(self, value: Result<Value, serde_json::Error>) -> Result<Value, Error> {
        let value = value.map_err(|e| Error::Custom(e.to_string().into()))?;
        self.state.add(json_len(&value))?;
        Ok(self.state.keep(value))
    }
}

macro_rules! scalars {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, v: $ty) -> Result<Value, Error> {
            self.scalar(serde_json::to_value(v))
        })*
    };
}

/// Integers: counted by their digits, built as serde_json builds them (out of its range, an
/// error).
macro_rules! integers {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(fn $method(self, v: $ty) -> Result<Value, Error> {
            let value = serde_json::to_value(v).map_err(|e| Error::Custom(e.to_string().into()))?;
            // Within 64 bits, so its magnitude is a `u64`.
            let wide = v as i128;
            self.state.add(int_len(wide < 0, wide.unsigned_abs() as u64))?;
            Ok(self.state.keep(value))
        })*
    };
}

impl<'s> ser::Serializer for Ser<'s> {
    type Ok = Value;
    type Error = Error;
    type SerializeSeq = List<'s>;
    type SerializeTuple = Fixed<'s>;
    type SerializeTupleStruct = Fixed<'s>;
    type SerializeTupleVariant = Fixed<'s>;
    type SerializeMap = Object<'s>;
    type SerializeStruct = Object<'s>;
    type SerializeStructVariant = Object<'s>;

    integers! {
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
    }

    scalars! {
        serialize_i128: i128, serialize_u128: u128, serialize_f32: f32, serialize_f64: f64,
        serialize_char: char, serialize_bytes: &[u8],
    }

    fn serialize_bool(self, v: bool) -> Result<Value, Error> {
        self.state.add(if v { 4 } else { 5 })?;
        Ok(Value::Bool(v))
    }

    fn serialize_str(self, v: &str) -> Result<Value, Error> {
        // A string that cannot fit is counted by its length and never copied.
        let at_least = v.len() as u64 + 2;
        if self.state.used.saturating_add(at_least) > self.state.room() {
            self.state.add(at_least)?;
            return Ok(Value::Null);
        }
        self.state.add(str_len(v))?;
        Ok(self.state.keep(Value::String(v.to_owned())))
    }

    fn serialize_none(self) -> Result<Value, Error> {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, Error> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<Value, Error> {
        self.state.add(4)?;
        Ok(Value::Null)
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value, Error> {
        self.serialize_unit()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Value, Error> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Value, Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, Error> {
        // `{"variant":…}`
        self.state.add(str_len(variant) + 3)?;
        let from = self.state.cuts.len();
        let inner = value.serialize(Ser { state: self.state })?;
        self.state.below(from, || Token::Field(variant));
        let mut map = Map::new();
        map.insert(variant.to_owned(), inner);
        Ok(self.state.keep(Value::Object(map)))
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<List<'s>, Error> {
        self.state.add(2)?;
        // Room for what the list may keep, and no more: a hostile length is not trusted.
        let most = self.state.items.map_or(usize::MAX, |most| most as usize);
        let room = len.unwrap_or(0).min(most).min(MAX_RESERVED);
        Ok(List {
            state: self.state,
            items: Vec::with_capacity(room),
            kept: 0,
            left_out: 0,
            full: None,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<Fixed<'s>, Error> {
        Fixed::open(self.state, None, len)
    }

    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<Fixed<'s>, Error> {
        Fixed::open(self.state, None, len)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Fixed<'s>, Error> {
        Fixed::open(self.state, Some(variant), len)
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Object<'s>, Error> {
        Object::open(self.state, None, len.unwrap_or(0))
    }

    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Object<'s>, Error> {
        Object::open(self.state, None, len)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Object<'s>, Error> {
        Object::open(self.state, Some(variant), len)
    }
}

/// A list: items are kept while they fit, then counted.
struct List<'s> {
    state: &'s mut State,
    items: Vec<Value>,
    kept: u64,
    left_out: u64,
    /// What stopped the list keeping items.
    full: Option<CutBy>,
}

impl ser::SerializeSeq for List<'_> {
    type Ok = Value;
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let state = &mut *self.state;
        if self.full.is_none() && state.items.is_some_and(|most| self.kept >= u64::from(most)) {
            self.full = Some(CutBy::Items);
        }
        if self.full.is_some() {
            self.left_out += 1;
            return Ok(());
        }
        let before = (state.used, state.cuts.len(), state.more);
        state.within_items += 1;
        let comma = u64::from(self.kept > 0);
        let item = match state.add(comma) {
            Ok(()) => value.serialize(Ser { state }),
            Err(e) => Err(e),
        };
        state.within_items -= 1;
        match item {
            Ok(item) => {
                let index = self.kept;
                self.state.below(before.1, || Token::Index(index));
                let state = &mut *self.state;
                if !state.over {
                    self.items.push(item);
                }
                self.kept += 1;
                state.list_peak = state.list_peak.max(state.used);
                Ok(())
            }
            Err(Error::Over) => {
                // Left out whole, with whatever it cut inside.
                (state.used, state.more) = (before.0, before.2);
                state.cuts.truncate(before.1);
                self.full = Some(CutBy::Bytes);
                self.left_out += 1;
                Ok(())
            }
            Err(e) => Err(e),
        }
    }

    fn end(self) -> Result<Value, Error> {
        if let Some(by) = self.full.filter(|_| self.left_out > 0) {
            self.state.cut(self.kept, self.kept + self.left_out, by);
        }
        Ok(self.state.keep(Value::Array(self.items)))
    }
}

/// A tuple (or a byte string's numbers): its length is part of its type, so it is kept whole.
struct Fixed<'s> {
    state: &'s mut State,
    variant: Option<&'static str>,
    items: Vec<Value>,
}

impl<'s> Fixed<'s> {
    fn open(
        state: &'s mut State,
        variant: Option<&'static str>,
        len: usize,
    ) -> Result<Self, Error> {
        // `[]`, or `{"variant":[]}`
        let wrapper = variant.map_or(0, |v| str_len(v) + 3);
        state.add(2 + wrapper)?;
        Ok(Self {
            state,
            variant,
            items: Vec::with_capacity(len.min(MAX_RESERVED)),
        })
    }

    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.state.add(u64::from(!self.items.is_empty()))?;
        let (from, index) = (self.state.cuts.len(), self.items.len() as u64);
        let item = value.serialize(Ser { state: self.state })?;
        self.state.below(from, || Token::Index(index));
        self.items.push(item);
        Ok(())
    }

    fn close(self) -> Result<Value, Error> {
        let array = Value::Array(self.items);
        let value = match self.variant {
            Some(variant) => Value::Object(Map::from_iter([(variant.to_owned(), array)])),
            None => array,
        };
        Ok(self.state.keep(value))
    }
}

/// The serde traits of a tuple's kinds, each pushing its items and closing alike.
macro_rules! fixed {
    ($($kind:ident::$method:ident),*) => {
        $(impl ser::$kind for Fixed<'_> {
            type Ok = Value;
            type Error = Error;

            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
                self.push(value)
            }

            fn end(self) -> Result<Value, Error> {
                self.close()
            }
        })*
    };
}

fixed!(
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// A map or a struct: every entry is kept.
struct Object<'s> {
    state: &'s mut State,
    variant: Option<&'static str>,
    map: Map<String, Value>,
    /// The key of the entry whose value comes next.
    key: Option<String>,
    entries: u64,
}

impl<'s> Object<'s> {
    fn open(
        state: &'s mut State,
        variant: Option<&'static str>,
        len: usize,
    ) -> Result<Self, Error> {
        // `{}`, or `{"variant":{}}`
        let wrapper = variant.map_or(0, |v| str_len(v) + 3);
        state.add(2 + wrapper)?;
        Ok(Self {
            state,
            variant,
            map: Map::with_capacity(len.min(MAX_RESERVED)),
            key: None,
            entries: 0,
        })
    }

    /// The entry `key`: `value`; `token` makes the key a token of a cut list's place.
    fn entry<T: Serialize + ?Sized>(
        &mut self,
        key: &str,
        token: impl Fn() -> Token,
        value: &T,
    ) -> Result<(), Error> {
        // `,"key":`
        let comma = u64::from(self.entries > 0);
        self.state.add(comma + str_len(key) + 1)?;
        self.entries += 1;
        let from = self.state.cuts.len();
        let value = value.serialize(Ser { state: self.state })?;
        self.state.below(from, token);
        if !self.state.over {
            self.map.insert(key.to_owned(), value);
        }
        Ok(())
    }

    fn close(self) -> Result<Value, Error> {
        let object = Value::Object(self.map);
        let value = match self.variant {
            Some(variant) => Value::Object(Map::from_iter([(variant.to_owned(), object)])),
            None => object,
        };
        Ok(self.state.keep(value))
    }
}

/// A map key as JSON writes it: a string, or a number or boolean as its text.
fn key_text<T: Serialize + ?Sized>(key: &T) -> Result<String, Error> {
    match serde_json::to_value(key) {
        Ok(Value::String(text)) => Ok(text),
        Ok(Value::Number(n)) => Ok(n.to_string()),
        Ok(Value::Bool(b)) => Ok(b.to_string()),
        Ok(_) => Err(Error::Custom("a map key must be a string".into())),
        Err(e) => Err(Error::Custom(e.to_string().into())),
    }
}

impl ser::SerializeMap for Object<'_> {
    type Ok = Value;
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = Some(key_text(key)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self.key.take().unwrap_or_default();
        self.entry(&key, || Token::Key(key.clone()), value)
    }

    fn end(self) -> Result<Value, Error> {
        self.close()
    }
}

/// The serde traits of a struct's kinds, each an entry per field.
macro_rules! structs {
    ($($kind:ident),*) => {
        $(impl ser::$kind for Object<'_> {
            type Ok = Value;
            type Error = Error;

            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Error> {
                self.entry(key, || Token::Field(key), value)
            }

            fn end(self) -> Result<Value, Error> {
                self.close()
            }
        })*
    };
}

structs!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests;
