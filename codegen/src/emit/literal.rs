//! Data written into Rust source by walking the value: serde's `Serialize` (derived on the
//! descriptor model with the vocabulary's `bake` feature) drives a serializer whose output is a
//! Rust expression in the generated code's style, laid out as it is written — the runtime's
//! types named through `::toolspec::__private`, `Cow`, `Some` and `None` fully qualified,
//! integers with their type's suffix, text holding quotes (JSON) as raw strings.
//!
//! No token stream and no parse: descriptors are most of a generated file, and writing them as
//! text is what keeps a large project's build short. What makes it sound is the descriptor
//! model's rule (`toolspec_vocab::descriptor`): every text is a `Cow<'static, str>` and every
//! list a `Cow<'static, [T]>`, so a string and a sequence are each written one way; the
//! generated code's compilation checks the rest.

use std::fmt;

use serde::ser::{self, Serialize};

/// Where the generated code reaches the runtime's types.
const PATH: &str = "::toolspec::__private";

/// The width a list is kept on one line within (a long text overflows it, as with rustfmt).
const WIDTH: usize = 100;

/// `value` written as a Rust expression at the end of `out`, its lines after the first
/// indented by `indent` levels of four spaces.
pub fn write(out: &mut String, value: &impl Serialize, indent: usize) -> Result<(), Unsupported> {
    value.serialize(Walk)?.write(out, indent);
    Ok(())
}

/// A text as a Rust string literal: raw (`r#"…"#`) when it holds quotes, as JSON does.
pub fn string(text: &str) -> String {
    if !text.contains('"') || text.contains('\r') {
        return format!("{text:?}");
    }
    let mut hashes = String::from("#");
    while text.contains(&format!("\"{hashes}")) {
        hashes.push('#');
    }
    format!("r{hashes}\"{text}\"{hashes}")
}

/// A form of data the generated code has no literal for (a map, a float, bytes…).
#[derive(Debug)]
pub struct Unsupported(String);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no Rust literal for {}", self.0)
    }
}

impl std::error::Error for Unsupported {}

impl ser::Error for Unsupported {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self(msg.to_string())
    }
}

/// An expression, before it is laid out.
enum Node {
    /// Written as it is.
    Atom(String),
    /// `callee(argument)`.
    Call(String, Box<Node>),
    /// `path { field: value, … }`, one field a line.
    Struct(String, Vec<(&'static str, Node)>),
    /// `&[item, …]`: on one line when it fits and holds no struct.
    List(Vec<Node>),
    /// `path(item, …)` (`path` empty for a tuple): on one line unless it holds a struct.
    Tuple(String, Vec<Node>),
}

impl Node {
    /// The width of the node on one line; `None` when it holds a struct.
    fn flat_width(&self) -> Option<usize> {
        match self {
            Node::Atom(text) => Some(text.len()),
            Node::Call(callee, argument) => Some(callee.len() + 2 + argument.flat_width()?),
            Node::Struct(..) => None,
            Node::List(items) => items_width(items).map(|w| w + 3),
            Node::Tuple(path, items) => items_width(items).map(|w| w + path.len() + 2),
        }
    }

    fn write(&self, out: &mut String, indent: usize) {
        match self {
            Node::Atom(text) => out.push_str(text),
            Node::Call(callee, argument) => {
                out.push_str(callee);
                out.push('(');
                argument.write(out, indent);
                out.push(')');
            }
            Node::Struct(path, fields) => {
                out.push_str(path);
                if fields.is_empty() {
                    out.push_str(" {}");
                    return;
                }
                out.push_str(" {");
                for (name, value) in fields {
                    line(out, indent + 1);
                    out.push_str(name);
                    out.push_str(": ");
                    value.write(out, indent + 1);
                    out.push(',');
                }
                line(out, indent);
                out.push('}');
            }
            Node::List(items) => {
                let fits = self
                    .flat_width()
                    .is_some_and(|w| column(out) + w + 2 <= WIDTH);
                out.push_str("&[");
                sequence(out, items, indent, fits);
                out.push(']');
            }
            Node::Tuple(path, items) => {
                out.push_str(path);
                out.push('(');
                sequence(out, items, indent, self.flat_width().is_some());
                out.push(')');
            }
        }
    }
}

fn items_width(items: &[Node]) -> Option<usize> {
    items.iter().try_fold(0, |width, item| {
        let separator = if width == 0 { 0 } else { 2 };
        Some(width + separator + item.flat_width()?)
    })
}

/// `items` separated by `, ` on this line, or one a line below it.
fn sequence(out: &mut String, items: &[Node], indent: usize, flat: bool) {
    for (i, item) in items.iter().enumerate() {
        if flat {
            if i > 0 {
                out.push_str(", ");
            }
            item.write(out, indent);
        } else {
            line(out, indent + 1);
            item.write(out, indent + 1);
            out.push(',');
        }
    }
    if !flat && !items.is_empty() {
        line(out, indent);
    }
}

/// A new line, indented.
fn line(out: &mut String, indent: usize) {
    out.push('\n');
    for _ in 0..indent {
        out.push_str("    ");
    }
}

/// The column the next character of `out` is written at.
fn column(out: &str) -> usize {
    out.len() - out.rfind('\n').map_or(0, |i| i + 1)
}

/// The serializer: builds the value's [`Node`].
struct Walk;

fn atom(text: impl Into<String>) -> Result<Node, Unsupported> {
    Ok(Node::Atom(text.into()))
}

fn borrowed(node: Node) -> Node {
    Node::Call("::std::borrow::Cow::Borrowed".into(), Box::new(node))
}

fn unsupported(form: &str) -> Result<Node, Unsupported> {
    Err(Unsupported(form.into()))
}

/// The items of a list, a tuple or a struct as they are walked.
struct Items<T> {
    path: String,
    items: Vec<T>,
    /// A sequence (a `Cow` list) rather than a tuple.
    list: bool,
}

impl<T> Items<T> {
    fn new(path: String, len: usize, list: bool) -> Self {
        Self {
            path,
            items: Vec::with_capacity(len),
            list,
        }
    }
}

impl ser::Serializer for Walk {
    type Ok = Node;
    type Error = Unsupported;
    type SerializeSeq = Items<Node>;
    type SerializeTuple = Items<Node>;
    type SerializeTupleStruct = Items<Node>;
    type SerializeTupleVariant = Items<Node>;
    type SerializeMap = ser::Impossible<Node, Unsupported>;
    type SerializeStruct = Items<(&'static str, Node)>;
    type SerializeStructVariant = Items<(&'static str, Node)>;

    fn serialize_bool(self, v: bool) -> Result<Node, Unsupported> {
        atom(if v { "true" } else { "false" })
    }
    fn serialize_i8(self, v: i8) -> Result<Node, Unsupported> {
        atom(format!("{v}i8"))
    }
    fn serialize_i16(self, v: i16) -> Result<Node, Unsupported> {
        atom(format!("{v}i16"))
    }
    fn serialize_i32(self, v: i32) -> Result<Node, Unsupported> {
        atom(format!("{v}i32"))
    }
    fn serialize_i64(self, v: i64) -> Result<Node, Unsupported> {
        atom(format!("{v}i64"))
    }
    fn serialize_u8(self, v: u8) -> Result<Node, Unsupported> {
        atom(format!("{v}u8"))
    }
    fn serialize_u16(self, v: u16) -> Result<Node, Unsupported> {
        atom(format!("{v}u16"))
    }
    fn serialize_u32(self, v: u32) -> Result<Node, Unsupported> {
        atom(format!("{v}u32"))
    }
    fn serialize_u64(self, v: u64) -> Result<Node, Unsupported> {
        atom(format!("{v}u64"))
    }
    fn serialize_f32(self, _: f32) -> Result<Node, Unsupported> {
        unsupported("a float")
    }
    fn serialize_f64(self, _: f64) -> Result<Node, Unsupported> {
        unsupported("a float")
    }
    fn serialize_char(self, _: char) -> Result<Node, Unsupported> {
        unsupported("a char")
    }
    fn serialize_str(self, v: &str) -> Result<Node, Unsupported> {
        Ok(borrowed(Node::Atom(string(v))))
    }
    fn serialize_bytes(self, _: &[u8]) -> Result<Node, Unsupported> {
        unsupported("bytes")
    }
    fn serialize_none(self) -> Result<Node, Unsupported> {
        atom("::core::option::Option::None")
    }
    fn serialize_some<T: ?Sized + Serialize>(self, value: &T) -> Result<Node, Unsupported> {
        let value = value.serialize(Walk)?;
        Ok(Node::Call(
            "::core::option::Option::Some".into(),
            Box::new(value),
        ))
    }
    fn serialize_unit(self) -> Result<Node, Unsupported> {
        atom("()")
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<Node, Unsupported> {
        atom(format!("{PATH}::{name}"))
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Node, Unsupported> {
        atom(format!("{PATH}::{name}::{variant}"))
    }
    fn serialize_newtype_struct<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<Node, Unsupported> {
        let value = value.serialize(Walk)?;
        Ok(Node::Call(format!("{PATH}::{name}"), Box::new(value)))
    }
    fn serialize_newtype_variant<T: ?Sized + Serialize>(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Node, Unsupported> {
        let value = value.serialize(Walk)?;
        Ok(Node::Call(
            format!("{PATH}::{name}::{variant}"),
            Box::new(value),
        ))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Items<Node>, Unsupported> {
        Ok(Items::new(String::new(), len.unwrap_or(0), true))
    }
    fn serialize_tuple(self, len: usize) -> Result<Items<Node>, Unsupported> {
        Ok(Items::new(String::new(), len, false))
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Items<Node>, Unsupported> {
        Ok(Items::new(format!("{PATH}::{name}"), len, false))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Items<Node>, Unsupported> {
        Ok(Items::new(format!("{PATH}::{name}::{variant}"), len, false))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Unsupported> {
        Err(Unsupported("a map".into()))
    }
    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Items<(&'static str, Node)>, Unsupported> {
        Ok(Items::new(format!("{PATH}::{name}"), len, false))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Items<(&'static str, Node)>, Unsupported> {
        Ok(Items::new(format!("{PATH}::{name}::{variant}"), len, false))
    }
}

impl Items<Node> {
    fn push<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Unsupported> {
        self.items.push(value.serialize(Walk)?);
        Ok(())
    }

    fn finish(self) -> Node {
        if self.list {
            borrowed(Node::List(self.items))
        } else {
            Node::Tuple(self.path, self.items)
        }
    }
}

/// serde's four ways of walking a sequence, each an item of [`Items<Node>`].
macro_rules! sequence_walks {
    ($($walk:ident::$item:ident),*) => {$(
        impl ser::$walk for Items<Node> {
            type Ok = Node;
            type Error = Unsupported;
            fn $item<T: ?Sized + Serialize>(&mut self, value: &T) -> Result<(), Unsupported> {
                self.push(value)
            }
            fn end(self) -> Result<Node, Unsupported> {
                Ok(self.finish())
            }
        }
    )*};
}

sequence_walks!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

/// serde's two ways of walking a struct, each field a member of the [`Node::Struct`].
macro_rules! struct_walks {
    ($($walk:ident),*) => {$(
        impl ser::$walk for Items<(&'static str, Node)> {
            type Ok = Node;
            type Error = Unsupported;
            fn serialize_field<T: ?Sized + Serialize>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), Unsupported> {
                self.items.push((key, value.serialize(Walk)?));
                Ok(())
            }
            fn end(self) -> Result<Node, Unsupported> {
                Ok(Node::Struct(self.path, self.items))
            }
        }
    )*};
}

struct_walks!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    #[derive(serde::Serialize)]
    struct Sample {
        name: Cow<'static, str>,
        schema: Cow<'static, str>,
        tags: Cow<'static, [Cow<'static, str>]>,
        short: Cow<'static, [Cow<'static, str>]>,
        none: Option<u16>,
        some: Option<Inner>,
        pairs: Cow<'static, [(Kind, Cow<'static, str>)]>,
        empty: Cow<'static, [Inner]>,
    }

    #[derive(Clone, serde::Serialize)]
    struct Inner {
        limit: u32,
        kind: Kind,
    }

    #[derive(Clone, serde::Serialize)]
    enum Kind {
        Plain,
    }

    fn written(value: &impl Serialize) -> String {
        let mut out = String::new();
        write(&mut out, value, 0).expect("written");
        out
    }

    #[test]
    fn writes_every_form_in_the_generated_code_style() {
        let sample = Sample {
            name: "ping".into(),
            schema: r#"{"type":"object"}"#.into(),
            tags: vec!["a".into(), "b\n\"c\"\r".into()].into(),
            short: vec!["a".into()].into(),
            none: None,
            some: Some(Inner {
                limit: 7,
                kind: Kind::Plain,
            }),
            pairs: vec![(Kind::Plain, "x".into())].into(),
            empty: Cow::Borrowed(&[]),
        };
        let expected = r###"::toolspec::__private::Sample {
    name: ::std::borrow::Cow::Borrowed("ping"),
    schema: ::std::borrow::Cow::Borrowed(r#"{"type":"object"}"#),
    tags: ::std::borrow::Cow::Borrowed(&[
        ::std::borrow::Cow::Borrowed("a"),
        ::std::borrow::Cow::Borrowed("b\n\"c\"\r"),
    ]),
    short: ::std::borrow::Cow::Borrowed(&[::std::borrow::Cow::Borrowed("a")]),
    none: ::core::option::Option::None,
    some: ::core::option::Option::Some(::toolspec::__private::Inner {
        limit: 7u32,
        kind: ::toolspec::__private::Kind::Plain,
    }),
    pairs: ::std::borrow::Cow::Borrowed(&[
        (::toolspec::__private::Kind::Plain, ::std::borrow::Cow::Borrowed("x")),
    ]),
    empty: ::std::borrow::Cow::Borrowed(&[]),
}"###;
        assert_eq!(written(&sample), expected);
    }

    #[test]
    fn a_raw_string_has_enough_hashes() {
        assert_eq!(string(r##"a "# b"##), r###"r##"a "# b"##"###);
        assert_eq!(string("plain"), "\"plain\"");
    }

    #[test]
    fn a_map_or_a_float_is_refused_by_name() {
        let map = std::collections::BTreeMap::from([("k", 1)]);
        let err = write(&mut String::new(), &map, 0).expect_err("refused");
        assert_eq!(err.to_string(), "no Rust literal for a map");
        let err = write(&mut String::new(), &1.5f64, 0).expect_err("refused");
        assert_eq!(err.to_string(), "no Rust literal for a float");
    }
}
