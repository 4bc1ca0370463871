//! A YAML document as a tree of nodes that remember where they came from.
//!
//! [`parse`] reads one YAML document and builds a [`Node`] tree in which every node (map keys
//! included) carries the [`Span`](crate::source::Span) of its source text, so later stages can
//! point diagnostics at the exact characters a user wrote. Plain scalars are resolved with the
//! YAML 1.2 core schema (`yes`/`no`/`on`/`off` stay strings).
//!
//! This module owns the tree's types (`node`), its building from `saphyr-parser`'s events
//! within the limits hostile input needs (`builder`, `keys` for duplicate keys), scalar
//! resolution (`scalar`), the repair of tabs after a `:` (`tabs`) and positions in the text
//! (`text`). It does not own what a spec means (the other readers of [`crate::read`]), nor
//! lines, columns and spans in general ([`crate::source`]), and it reads no files.
//!
//! The tree is our own, built on the parser's events, because `saphyr`'s `MarkedYaml` lacks
//! what diagnostics need: its loader recurses once per nesting level (deep input overflows the
//! stack), its spans of flow collections and block scalars are inexact, and it forgets quoting.
//! It also turns integers beyond `i64` into floats, reports a duplicate key without the span of
//! the first, and silently makes an alias to the node that contains it a bad value.

mod builder;
mod keys;
mod node;
mod scalar;
mod tabs;
mod text;

pub use crate::read::yaml::node::{Node, Value, YamlError};

use crate::read::yaml::tabs::build_repairing_tabs;
use crate::read::yaml::text::Text;

/// Parses `source`, which must hold at most one YAML document. An empty document (no content,
/// or only comments) is a [`Value::Null`] node at line 1, column 1. A leading byte order mark is
/// skipped: it counts in byte offsets but not in columns.
pub fn parse(source: &str) -> Result<Node, YamlError> {
    let (base, text) = match source.strip_prefix('\u{feff}') {
        Some(rest) => ('\u{feff}'.len_utf8(), rest),
        None => (0, source),
    };
    // The parser treats NUL as the end of the input; refuse it rather than silently truncate.
    if let Some(nul) = text.find('\0') {
        let text = Text::new(text, base);
        return Err(text.error(nul, nul, "the file contains a NUL character"));
    }
    build_repairing_tabs(text, base)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::yaml::builder::MAX_DEPTH;
    use crate::source::{Pos, Span};

    fn parse_ok(src: &str) -> Node {
        match parse(src) {
            Ok(node) => node,
            Err(e) => panic!("unexpected error {e} in {src:?}"),
        }
    }

    fn parse_err(src: &str) -> YamlError {
        match parse(src) {
            Ok(node) => panic!("expected an error for {src:?}, got {node:?}"),
            Err(e) => e,
        }
    }

    /// The source text a span covers.
    fn text(src: &str, span: Span) -> &str {
        &src[span.start.offset..span.end.offset]
    }

    /// (line, col) of a span's start and end.
    fn lc(span: Span) -> ((u32, u32), (u32, u32)) {
        (
            (span.start.line, span.start.col),
            (span.end.line, span.end.col),
        )
    }

    fn entry<'a>(node: &'a Node, key: &str) -> (&'a Node, &'a Node) {
        let map = node.as_map().expect("a map");
        let (k, v) = map
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .expect("the key");
        (k, v)
    }

    #[test]
    fn block_map_spans() {
        let src = "name: cancel\nargs:\n  id:\n    type: strng\n";
        let root = parse_ok(src);
        assert_eq!(lc(root.span).0, (1, 1));
        let (k, v) = entry(&root, "name");
        assert_eq!(lc(k.span), ((1, 1), (1, 5)));
        assert_eq!(text(src, k.span), "name");
        assert_eq!(lc(v.span), ((1, 7), (1, 13)));
        assert_eq!(text(src, v.span), "cancel");
        let (_, args) = entry(&root, "args");
        assert_eq!(lc(args.span).0, (3, 3));
        let (id_key, id) = entry(args, "id");
        assert_eq!(lc(id_key.span), ((3, 3), (3, 5)));
        assert_eq!(lc(id.span).0, (4, 5));
        let (tk, tv) = entry(id, "type");
        assert_eq!(text(src, tk.span), "type");
        assert_eq!(lc(tv.span), ((4, 11), (4, 16)));
        assert_eq!(text(src, tv.span), "strng");
        assert_eq!(text(src, id.span), "type: strng");
        assert_eq!(text(src, root.span), src.trim_end());
    }

    #[test]
    fn flow_spans() {
        let src = "id: { type: string, optional: true }\ntags: [a, \"b c\", 'd''e']\nempty: {}\n";
        let root = parse_ok(src);
        let (_, id) = entry(&root, "id");
        assert_eq!(text(src, id.span), "{ type: string, optional: true }");
        let (k, v) = entry(id, "optional");
        assert_eq!(lc(k.span), ((1, 21), (1, 29)));
        assert_eq!(v.value, Value::Bool(true));
        assert_eq!(text(src, v.span), "true");
        let (_, tags) = entry(&root, "tags");
        assert_eq!(text(src, tags.span), "[a, \"b c\", 'd''e']");
        let items = tags.as_seq().expect("a list");
        assert_eq!(
            items.iter().map(|n| text(src, n.span)).collect::<Vec<_>>(),
            ["a", "\"b c\"", "'d''e'"]
        );
        assert_eq!(items[2].as_str(), Some("d'e"));
        assert!(items[1].quoted && !items[0].quoted);
        let (_, empty) = entry(&root, "empty");
        assert_eq!(text(src, empty.span), "{}");
        assert_eq!(empty.as_map().map(<[_]>::len), Some(0));
    }

    #[test]
    fn nested_block_lists() {
        let src = "a:\n  - x\n  - - y\n    - z\n  - k: 1\n    j: 2\nb:\n- &q one\n-\n- \"two\"\n";
        let root = parse_ok(src);
        let (_, a) = entry(&root, "a");
        assert_eq!(lc(a.span).0, (2, 3));
        let items = a.as_seq().expect("a list");
        assert_eq!(text(src, items[1].span), "- y\n    - z");
        assert_eq!(text(src, items[2].span), "k: 1\n    j: 2");
        let (_, b) = entry(&root, "b");
        // A list that is not indented under its key starts at its first `-`.
        assert_eq!(lc(b.span).0, (8, 1));
        let items = b.as_seq().expect("a list");
        assert_eq!(text(src, items[0].span), "one");
        assert_eq!(items[1].value, Value::Null);
        assert_eq!(lc(items[1].span), ((9, 2), (9, 2)));
        assert_eq!(text(src, items[2].span), "\"two\"");
    }

    #[test]
    fn empty_values_sit_after_their_colon() {
        let src = "k:\nj: # nothing\nl: ~\n";
        let root = parse_ok(src);
        assert_eq!(lc(entry(&root, "k").1.span), ((1, 3), (1, 3)));
        assert_eq!(lc(entry(&root, "j").1.span), ((2, 3), (2, 3)));
        assert_eq!(text(src, entry(&root, "l").1.span), "~");
    }

    #[test]
    fn scalar_resolution() {
        let cases: &[(&str, Value)] = &[
            ("null", Value::Null),
            ("Null", Value::Null),
            ("NULL", Value::Null),
            ("~", Value::Null),
            ("", Value::Null),
            ("true", Value::Bool(true)),
            ("True", Value::Bool(true)),
            ("FALSE", Value::Bool(false)),
            ("0", Value::Int(0)),
            ("-17", Value::Int(-17)),
            ("+5", Value::Int(5)),
            ("007", Value::Int(7)),
            ("0x1F", Value::Int(31)),
            ("0o17", Value::Int(15)),
            ("9223372036854775807", Value::Int(i64::MAX)),
            ("-9223372036854775808", Value::Int(i64::MIN)),
            ("1.5", Value::Float(1.5)),
            ("-0.25", Value::Float(-0.25)),
            ("1e3", Value::Float(1000.0)),
            ("2.5E-1", Value::Float(0.25)),
            (".5", Value::Float(0.5)),
            ("1.", Value::Float(1.0)),
            (".inf", Value::Float(f64::INFINITY)),
            ("-.inf", Value::Float(f64::NEG_INFINITY)),
            ("yes", Value::Str("yes".into())),
            ("no", Value::Str("no".into())),
            ("on", Value::Str("on".into())),
            ("off", Value::Str("off".into())),
            ("0x", Value::Str("0x".into())),
            ("1_000", Value::Str("1_000".into())),
            ("1.2.3", Value::Str("1.2.3".into())),
            ("e3", Value::Str("e3".into())),
            ("nan", Value::Str("nan".into())),
            ("inf", Value::Str("inf".into())),
            ("0b101", Value::Str("0b101".into())),
            ("-0x10", Value::Str("-0x10".into())),
        ];
        for (text, want) in cases {
            let root = parse_ok(&format!("v: {text}\n"));
            let got = &entry(&root, "v").1.value;
            assert_eq!(got, want, "resolving {text:?}");
        }
        let root = parse_ok("v: .nan\n");
        assert!(matches!(entry(&root, "v").1.value, Value::Float(f) if f.is_nan()));
    }

    #[test]
    fn quoted_block_and_tagged_scalars_are_strings() {
        let src = "a: \"42\"\nb: 'true'\nc: !!str 12\nd: |\n  x: 1\n  y\ne: >-\n  folded\n  text\n\n# after\nf: |+\n\n";
        let root = parse_ok(src);
        let (_, a) = entry(&root, "a");
        assert_eq!((a.as_str(), a.quoted), (Some("42"), true));
        assert_eq!(text(src, a.span), "\"42\"");
        assert_eq!(entry(&root, "b").1.as_str(), Some("true"));
        let (_, c) = entry(&root, "c");
        assert_eq!((c.as_str(), c.quoted), (Some("12"), false));
        assert_eq!(text(src, c.span), "12");
        let (_, d) = entry(&root, "d");
        assert_eq!((d.as_str(), d.quoted), (Some("x: 1\ny\n"), false));
        assert_eq!(text(src, d.span), "|\n  x: 1\n  y");
        let (_, e) = entry(&root, "e");
        assert_eq!(e.as_str(), Some("folded text"));
        assert_eq!(text(src, e.span), ">-\n  folded\n  text");
        let (_, f) = entry(&root, "f");
        assert_eq!(f.as_str(), Some("\n"));
        assert_eq!(text(src, f.span), "|+");
    }

    #[test]
    fn integer_out_of_range() {
        let e = parse_err("n: 9223372036854775808\n");
        assert_eq!(e.message, "integer out of range");
        assert_eq!(lc(e.span), ((1, 4), (1, 23)));
        assert_eq!(
            parse_err("n: 0x8000000000000000\n").message,
            "integer out of range"
        );
    }

    #[test]
    fn duplicate_key() {
        let src = "name: a\nx: 1\nname: b\n";
        let e = parse_err(src);
        assert_eq!(e.message, "duplicate key `name` (first defined on line 1)");
        assert_eq!(lc(e.span), ((3, 1), (3, 5)));
        assert_eq!(text(src, e.span), "name");
        let e = parse_err("m: {a: 1, 'a': 2}\n");
        assert_eq!(e.message, "duplicate key `a` (first defined on line 1)");
        assert_eq!(lc(e.span).0, (1, 11));
        // A string and an integer are different keys.
        assert!(parse("1: a\n'1': b\n").is_ok());
    }

    #[test]
    fn syntax_error_position() {
        let e = parse_err("a: [1, 2\n");
        assert_eq!(
            e.message,
            "while parsing a flow sequence, expected ',' or ']'"
        );
        assert_eq!(
            e.span.start,
            Pos {
                line: 2,
                col: 1,
                offset: 9
            }
        );
        assert_eq!(e.span.end, e.span.start);
        let e = parse_err("k: 1\nk2: \"open\n");
        assert!(e.message.contains("quoted scalar"), "{}", e.message);
        assert_eq!((e.span.start.line, e.span.start.col), (2, 5));
        let e = parse_err("a: b\n  c: d\n");
        assert_eq!(e.span.start.line, 2);
    }

    #[test]
    fn aliases_copy_the_anchored_node() {
        let src = "base: &b\n  type: string\ncopy: *b\nname: &n x\nagain: *n\n";
        let root = parse_ok(src);
        let (_, base) = entry(&root, "base");
        let (_, copy) = entry(&root, "copy");
        assert_eq!(copy, base);
        assert_eq!(lc(copy.span).0, (2, 3));
        let (_, again) = entry(&root, "again");
        assert_eq!(again.as_str(), Some("x"));
        assert_eq!(text(src, again.span), "x");
        let e = parse_err("a: &x [1, *x]\n");
        assert_eq!(e.message, "alias `*x` refers to a node that contains it");
        assert_eq!(text("a: &x [1, *x]\n", e.span), "*x");
    }

    #[test]
    fn alias_expansion_is_bounded() {
        let mut src = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        let mut prev = 'a';
        for name in 'b'..='h' {
            src.push_str(&format!("{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
            prev = name;
        }
        assert!(
            parse_err(&src)
                .message
                .starts_with("aliases expand to too many nodes")
        );
    }

    #[test]
    fn deep_nesting_is_an_error() {
        // The parser has a limit of its own on flow nesting; either limit gives a clean error.
        for (open, close) in [("[", "]"), ("{", "}"), ("{a: ", "}"), ("- ", "")] {
            let src = format!("{}{}", open.repeat(100_000), close.repeat(100_000));
            assert_eq!(parse_err(&src).span.start.line, 1, "{open}");
        }
        let src = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
        assert!(parse(&src).is_ok(), "{MAX_DEPTH} levels are read");
        let mut src = String::new();
        for depth in 0..1000 {
            src.push_str(&format!("{}k:\n", " ".repeat(depth)));
        }
        assert!(parse(&src).is_err());
    }

    #[test]
    fn several_documents() {
        let e = parse_err("a: 1\n---\nb: 2\n");
        assert_eq!(e.message, "expected one YAML document, found several");
        assert_eq!(lc(e.span), ((2, 1), (2, 4)));
        let e = parse_err("a: 1\n...\nb: 2\n");
        assert_eq!(lc(e.span).0, (3, 1));
        // One explicit document is fine.
        assert_eq!(
            parse_ok("---\na: 1\n...\n").get("a").map(|n| &n.value),
            Some(&Value::Int(1))
        );
    }

    #[test]
    fn empty_documents() {
        let origin = Span {
            start: Pos {
                line: 1,
                col: 1,
                offset: 0,
            },
            end: Pos {
                line: 1,
                col: 1,
                offset: 0,
            },
        };
        for src in ["", "# only a comment\n", "\n\n"] {
            let node = parse_ok(src);
            assert_eq!((node.value, node.span), (Value::Null, origin), "{src:?}");
        }
    }

    #[test]
    fn columns_count_characters() {
        let src = "héllo: wörld\n\"ключ\": значение\n";
        let root = parse_ok(src);
        let (k, v) = entry(&root, "héllo");
        assert_eq!(lc(k.span), ((1, 1), (1, 6)));
        assert_eq!(lc(v.span), ((1, 8), (1, 13)));
        assert_eq!(text(src, v.span), "wörld");
        let (_, v) = entry(&root, "ключ");
        assert_eq!(lc(v.span), ((2, 9), (2, 17)));
        assert_eq!(text(src, v.span), "значение");
        let e = parse_err("é: [1\n");
        assert_eq!(
            e.span.start,
            Pos {
                line: 2,
                col: 1,
                offset: 7
            }
        );
    }

    #[test]
    fn crlf_tabs_and_bom() {
        let src = "\u{feff}a: x\tz\r\nb: [1,\r\n  2]\r\nc: |\r\n  t\r\n";
        let root = parse_ok(src);
        let (k, v) = entry(&root, "a");
        assert_eq!(lc(k.span), ((1, 1), (1, 2)));
        assert_eq!(k.span.start.offset, 3);
        assert_eq!(v.as_str(), Some("x\tz"));
        assert_eq!(text(src, v.span), "x\tz");
        let (_, b) = entry(&root, "b");
        assert_eq!(text(src, b.span), "[1,\r\n  2]");
        assert_eq!(lc(b.as_seq().expect("a list")[1].span).0, (3, 3));
        let (_, c) = entry(&root, "c");
        assert_eq!(c.as_str(), Some("t\n"));
        assert_eq!(text(src, c.span), "|\r\n  t");
        // A tab as the only separator after `:` is accepted.
        let src = "a:\tx\nb:\t\t- 1\n";
        let e = parse_err(src);
        assert_eq!(lc(e.span).0.0, 2);
        let root = parse_ok("a:\tx\nb: \t[1]\nc:\t'q'\n");
        assert_eq!(lc(entry(&root, "a").1.span), ((1, 4), (1, 5)));
        assert_eq!(entry(&root, "c").1.as_str(), Some("q"));
    }

    #[test]
    fn every_tab_separator_is_repaired_in_one_pass() {
        // More separators than the old one-repair-per-parse loop allowed (200).
        let src: String = (0..300)
            .map(|i| format!("f{i}:\t{{ type:\tstring }}\n"))
            .collect();
        let root = parse_ok(&src);
        assert_eq!(root.as_map().map(<[_]>::len), Some(300));
        let (_, f299) = entry(&root, "f299");
        assert_eq!(lc(entry(f299, "type").1.span).0, (300, 15));
        // Tabs after a `:` inside strings are content and stay, next to a repaired separator.
        let src = "a: \"x:\ty\"\nb:\t'p:\tq'\nc: |\n  k:\tv\nd:\t1\n";
        let root = parse_ok(src);
        assert_eq!(entry(&root, "a").1.as_str(), Some("x:\ty"));
        assert_eq!(entry(&root, "b").1.as_str(), Some("p:\tq"));
        assert_eq!(entry(&root, "c").1.as_str(), Some("k:\tv\n"));
        assert_eq!(entry(&root, "d").1.value, Value::Int(1));
        // What the repair cannot fix is still reported where it is.
        let e = parse_err("a:\tx\nb: [1\n");
        assert_eq!(lc(e.span).0.0, 3);
    }

    #[test]
    fn multi_line_plain_scalar() {
        let src = "d: a long\n  description\n\n  here\nn: 1\n";
        let root = parse_ok(src);
        let (_, d) = entry(&root, "d");
        assert_eq!(d.as_str(), Some("a long description\nhere"));
        assert_eq!(text(src, d.span), "a long\n  description\n\n  here");
    }

    #[test]
    fn helpers_and_json() {
        let src = "s: x\ni: 3\nf: 1.5\nn: ~\nb: false\nl: [1, .inf]\nm: {1: a, true: b, null: c}\n";
        let root = parse_ok(src);
        let kinds: Vec<_> = root
            .as_map()
            .expect("a map")
            .iter()
            .map(|(_, v)| v.kind())
            .collect();
        assert_eq!(
            kinds,
            [
                "string", "integer", "number", "null", "boolean", "list", "map"
            ]
        );
        assert_eq!(root.get("s").and_then(Node::as_str), Some("x"));
        assert!(root.get("missing").is_none());
        assert!(root.get("s").and_then(|s| s.get("x")).is_none());
        assert_eq!(
            root.to_json(),
            serde_json::json!({
                "s": "x", "i": 3, "f": 1.5, "n": null, "b": false,
                "l": [1, null], "m": {"1": "a", "true": "b", "null": "c"}
            })
        );
        assert_eq!(
            serde_json::to_string(&root.to_json()).ok().as_deref(),
            Some(
                r#"{"s":"x","i":3,"f":1.5,"n":null,"b":false,"l":[1,null],"m":{"1":"a","true":"b","null":"c"}}"#
            )
        );
    }

    #[test]
    fn nul_is_refused() {
        let e = parse_err("a: b\0c\n");
        assert_eq!(
            e.span.start,
            Pos {
                line: 1,
                col: 5,
                offset: 4
            }
        );
    }

    // The parser's spans reach past some nodes (over the blanks and the comment after a quoted
    // scalar or a closing bracket, over the blank lines after a block scalar) and include the
    // `&anchor` and `!tag` before others; ours cover the node's own text.

    #[test]
    fn flow_collections_end_at_their_bracket() {
        let src = "a: { b: [integer] , c: {x: 1}  }  # c\nd: [ [1]  # c\n  , {} ]\n";
        let root = parse_ok(src);
        let (_, a) = entry(&root, "a");
        assert_eq!(text(src, a.span), "{ b: [integer] , c: {x: 1}  }");
        assert_eq!(text(src, entry(a, "b").1.span), "[integer]");
        assert_eq!(text(src, entry(a, "c").1.span), "{x: 1}");
        let (_, d) = entry(&root, "d");
        assert_eq!(text(src, d.span), "[ [1]  # c\n  , {} ]");
        let items = d.as_seq().expect("a list");
        assert_eq!(text(src, items[0].span), "[1]");
        assert_eq!(lc(items[1].span), ((3, 5), (3, 7)));
    }

    #[test]
    fn quoted_scalars_end_at_their_quote() {
        let src = "a: \"x\\\"y\"  # \"c\"\nb: 'it''s'\t# c\nc: [ \"p\n  q\"  , 'r' ]\n";
        let root = parse_ok(src);
        let (_, a) = entry(&root, "a");
        assert_eq!(
            (a.as_str(), text(src, a.span)),
            (Some("x\"y"), "\"x\\\"y\"")
        );
        let (_, b) = entry(&root, "b");
        assert_eq!((b.as_str(), text(src, b.span)), (Some("it's"), "'it''s'"));
        let items = entry(&root, "c").1.as_seq().expect("a list");
        assert_eq!(items[0].as_str(), Some("p q"));
        assert_eq!(text(src, items[0].span), "\"p\n  q\"");
        assert_eq!(text(src, items[1].span), "'r'");
    }

    #[test]
    fn block_scalars_span_header_to_last_content_line() {
        let src = "a: |  # c\n  x  \n\n   y\n\n\nb: >+\n  z\n\nc: &k !!str |-\n  w\nd: !<tag:x> >\n  v\ne: |\n  end";
        let root = parse_ok(src);
        let (_, a) = entry(&root, "a");
        assert_eq!(a.as_str(), Some("x  \n\n y\n"));
        // Trailing spaces are content; the blank lines after it are not in the span.
        assert_eq!(text(src, a.span), "|  # c\n  x  \n\n   y");
        let (_, b) = entry(&root, "b");
        assert_eq!(b.as_str(), Some("z\n\n"));
        assert_eq!(text(src, b.span), ">+\n  z");
        let (_, c) = entry(&root, "c");
        assert_eq!((c.as_str(), text(src, c.span)), (Some("w"), "|-\n  w"));
        // A verbatim tag may hold `>` or `|`: the header is the one after it.
        let (_, d) = entry(&root, "d");
        assert_eq!((d.as_str(), text(src, d.span)), (Some("v\n"), ">\n  v"));
        let (_, e) = entry(&root, "e");
        assert_eq!((e.as_str(), text(src, e.span)), (Some("end\n"), "|\n  end"));
    }

    #[test]
    fn empty_block_scalars() {
        // No content: the span is the header; a clipped or kept scalar without lines is empty.
        let src = "a: |\nb: >- # c\n\nc: |+\n";
        let root = parse_ok(src);
        for (key, header) in [("a", "|"), ("b", ">-"), ("c", "|+")] {
            let (_, v) = entry(&root, key);
            assert_eq!((v.as_str(), text(src, v.span)), (Some(""), header), "{key}");
        }
        // A document marker ends a block scalar, and starts a second document.
        let e = parse_err("|\n  x\n---\n");
        assert_eq!(e.message, "expected one YAML document, found several");
        assert_eq!(lc(e.span), ((3, 1), (3, 4)));
    }

    #[test]
    fn multi_line_plain_scalars_in_flow_and_before_comments() {
        let src = "a: [one\n  two  # c\n  , three\n   four ]\nb: x\n  y  \n  # c\n\nc: z\n";
        let root = parse_ok(src);
        let items = entry(&root, "a").1.as_seq().expect("a list");
        assert_eq!(
            (items[0].as_str(), text(src, items[0].span)),
            (Some("one two"), "one\n  two")
        );
        assert_eq!(text(src, items[1].span), "three\n   four");
        let (_, b) = entry(&root, "b");
        assert_eq!((b.as_str(), text(src, b.span)), (Some("x y"), "x\n  y"));
    }

    #[test]
    fn spans_leave_out_anchors_and_tags() {
        let src =
            "&k a: &m\n  # c\n  !!map\n  b: &s [1]\n  c: &q\n    - !t  x\n  d: !!str\n    \"q\"\n";
        let root = parse_ok(src);
        // The anchor before the first key is the key's: the map starts at the key.
        assert_eq!(lc(root.span).0, (1, 4));
        let (k, a) = entry(&root, "a");
        assert_eq!(text(src, k.span), "a");
        assert_eq!(lc(a.span).0, (4, 3));
        assert_eq!(text(src, entry(a, "b").1.span), "[1]");
        let (_, c) = entry(a, "c");
        assert_eq!(lc(c.span).0, (6, 5));
        assert_eq!(text(src, c.as_seq().expect("a list")[0].span), "x");
        assert_eq!(text(src, entry(a, "d").1.span), "\"q\"");
    }

    #[test]
    fn aliases_in_flow_and_before_comments() {
        let src = "a: &x 1\nb: *x   # c\nc: [ *x , *x]\n";
        let root = parse_ok(src);
        let (_, b) = entry(&root, "b");
        assert_eq!((b.value.clone(), text(src, b.span)), (Value::Int(1), "1"));
        // An alias has the span of the node it copies; errors point at the alias itself.
        let items = entry(&root, "c").1.as_seq().expect("a list");
        assert_eq!(items, [b.clone(), b.clone()]);
        // An alias refers to the latest anchor of its name, here the node that contains it.
        let src = "a: &x 1\nb: &x [*x  , 2]\n";
        let e = parse_err(src);
        assert_eq!(e.message, "alias `*x` refers to a node that contains it");
        assert_eq!(text(src, e.span), "*x");
        // The first `k` is an alias: it was defined where its anchor is.
        let e = parse_err("a: &x k\nb: {*x  : 1, k : 2}\n");
        assert_eq!(e.message, "duplicate key `k` (first defined on line 1)");
        assert_eq!(lc(e.span), ((2, 14), (2, 15)));
    }

    #[test]
    fn non_ascii_before_tokens() {
        let src = "ключ: [é, \"ü\"]  # ö\nçé: &ä |\n  ñ\nx: *ä\nж: {я: 'ё'}\n";
        let root = parse_ok(src);
        let (_, list) = entry(&root, "ключ");
        assert_eq!(lc(list.span), ((1, 7), (1, 15)));
        assert_eq!(text(src, list.span), "[é, \"ü\"]");
        assert_eq!(
            lc(list.as_seq().expect("a list")[1].span),
            ((1, 11), (1, 14))
        );
        let (_, block) = entry(&root, "çé");
        assert_eq!(lc(block.span), ((2, 8), (3, 4)));
        assert_eq!(text(src, entry(&root, "x").1.span), "|\n  ñ");
        let (_, map) = entry(&root, "ж");
        assert_eq!(lc(map.span), ((5, 4), (5, 12)));
        assert_eq!(text(src, entry(map, "я").1.span), "'ё'");
        let e = parse_err("é: 'ü' ]\n");
        assert_eq!((e.span.start.line, e.span.start.col), (1, 8));
    }

    #[test]
    fn the_parser_follows_yaml_1_2_on_these() {
        // A `:` right before `[` or `{` in a flow mapping is not a separator.
        let e = parse_err("a: { b:[1] }\n");
        assert_eq!(e.message, "':' may not precede any of `[{` in flow mapping");
        assert_eq!(lc(e.span).0, (1, 7));
        // It is after a quoted key (JSON style).
        let root = parse_ok("a: { \"b\":[1] }\n");
        assert_eq!(
            text("a: { \"b\":[1] }\n", entry(&root, "a").1.span),
            "{ \"b\":[1] }"
        );
        // A byte order mark is allowed at the start only.
        let e = parse_err("a: b\u{feff}\n");
        assert_eq!(
            e.message,
            "a byte order mark must not appear inside a document"
        );
        assert_eq!(lc(e.span).0, (1, 5));
    }
}
