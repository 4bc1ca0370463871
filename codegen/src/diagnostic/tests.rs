//! The renderer's and the suggestions' tests.
use crate::diagnostic::kind::Kind;
use crate::diagnostic::message::Diagnostic;
use crate::diagnostic::render::*;
use crate::diagnostic::suggest::*;
use crate::read::yaml;
use crate::source::Pos;
use crate::source::{Sources, Span};

const CANCEL: &str = "specs/orders/cancel.yaml";
const CANCEL_SRC: &str = "name: cancel_order\ndescription: Cancel an order.\nargs:\n  order_id:\n    type: string\n  reason:\n    type: strng\n    optional: true\n";

fn span(l1: u32, c1: u32, l2: u32, c2: u32) -> Span {
    Span {
        start: Pos {
            line: l1,
            col: c1,
            offset: 0,
        },
        end: Pos {
            line: l2,
            col: c2,
            offset: 0,
        },
    }
}

fn sources(files: &[(&str, &str)]) -> Sources {
    let mut sources = Sources::new();
    for (file, text) in files {
        sources.insert(*file, *text);
    }
    sources
}

fn unknown_type() -> Diagnostic {
    let root = yaml::parse(CANCEL_SRC).expect("valid YAML");
    let ty = root
        .get("args")
        .and_then(|a| a.get("reason"))
        .and_then(|r| r.get("type"))
        .expect("the type");
    Diagnostic::error(
        Kind::UnknownName,
        CANCEL,
        Some(ty.span),
        "unknown type `strng`",
    )
    .with_label("not a known type")
    .with_help("did you mean `string`?")
}

#[test]
fn error_with_label_and_help() {
    let d = unknown_type();
    assert_eq!(
        d.render(&sources(&[(CANCEL, CANCEL_SRC)])),
        "\
error[unknown-name]: unknown type `strng`
 --> specs/orders/cancel.yaml:7:11
  |
7 |     type: strng
  |           ^^^^^ not a known type
  |
  = help: did you mean `string`?
"
    );
    assert_eq!(
        d.one_line(),
        "specs/orders/cancel.yaml:7:11: error[unknown-name]: unknown type `strng`"
    );
}

#[test]
fn warning_with_notes() {
    let d = Diagnostic::warning(
        Kind::InvalidValue,
        CANCEL,
        Some(span(2, 14, 2, 30)),
        "description should not end with a period",
    )
    .with_note("descriptions are shown to the model\nas one sentence")
    .with_note("see the style guide");
    assert_eq!(
        d.render(&sources(&[(CANCEL, CANCEL_SRC)])),
        "\
warning[invalid-value]: description should not end with a period
 --> specs/orders/cancel.yaml:2:14
  |
2 | description: Cancel an order.
  |              ^^^^^^^^^^^^^^^^
  |
  = note: descriptions are shown to the model
          as one sentence
  = note: see the style guide
"
    );
    assert_eq!(
        d.one_line(),
        "specs/orders/cancel.yaml:2:14: warning[invalid-value]: description should not end with a period"
    );
}

#[test]
fn without_span() {
    let d = Diagnostic::error(Kind::InvalidValue, "specs", None, "no tool specs found")
        .with_help("add a `*.yaml` file");
    assert_eq!(
        d.render(&Sources::new()),
        "\
error[invalid-value]: no tool specs found
 --> specs
  |
  = help: add a `*.yaml` file
"
    );
    assert_eq!(
        d.one_line(),
        "specs: error[invalid-value]: no tool specs found"
    );
    let bare = Diagnostic::error(Kind::InvalidValue, "specs/a.yaml", None, "empty file");
    assert_eq!(
        bare.render(&Sources::new()),
        "error[invalid-value]: empty file\n --> specs/a.yaml\n"
    );
}

#[test]
fn source_not_available() {
    let d = Diagnostic::error(
        Kind::InvalidValue,
        "specs/gone.yaml",
        Some(span(3, 4, 3, 9)),
        "bad",
    )
    .with_label("here");
    assert_eq!(
        d.render(&Sources::new()),
        "error[invalid-value]: bad\n --> specs/gone.yaml:3:4\n"
    );
    // A line past the end of the text is treated the same way.
    let d = Diagnostic::error(Kind::InvalidValue, CANCEL, Some(span(40, 1, 40, 2)), "bad");
    assert_eq!(
        d.render(&sources(&[(CANCEL, CANCEL_SRC)])),
        "error[invalid-value]: bad\n --> specs/orders/cancel.yaml:40:1\n"
    );
}

#[test]
fn related_span_in_another_file() {
    let other = "specs/orders/create.yaml";
    let d = Diagnostic::error(
        Kind::NameClash,
        CANCEL,
        Some(span(1, 7, 1, 19)),
        "tool name `cancel_order` is used twice",
    )
    .with_label("used again here")
    .with_related(other, span(3, 7, 3, 19), "first used here");
    let files = sources(&[
        (CANCEL, CANCEL_SRC),
        (other, "# Create.\n\nname: cancel_order\n"),
    ]);
    assert_eq!(
        d.render(&files),
        "\
error[name-clash]: tool name `cancel_order` is used twice
 --> specs/orders/cancel.yaml:1:7
  |
1 | name: cancel_order
  |       ^^^^^^^^^^^^ used again here
  |
 ::: specs/orders/create.yaml:3:7
  |
3 | name: cancel_order
  |       ------------ first used here
"
    );
}

#[test]
fn multi_line_span_underlines_to_the_end_of_its_first_line() {
    let d = Diagnostic::error(
        Kind::InvalidValue,
        CANCEL,
        Some(span(6, 3, 8, 19)),
        "field `reason` is invalid",
    )
    .with_label("this field");
    assert_eq!(
        d.render(&sources(&[(CANCEL, CANCEL_SRC)])),
        "\
error[invalid-value]: field `reason` is invalid
 --> specs/orders/cancel.yaml:6:3
  |
6 |   reason:
  |   ^^^^^^^ this field
"
    );
}

#[test]
fn zero_width_span_gets_one_caret() {
    let src = "name:\n";
    let root = yaml::parse(src).expect("valid YAML");
    let value = root.get("name").expect("the key");
    let d = Diagnostic::error(
        Kind::InvalidValue,
        "a.yaml",
        Some(value.span),
        "expected a string, found null",
    )
    .with_label("missing");
    assert_eq!(
        d.render(&sources(&[("a.yaml", src)])),
        "\
error[invalid-value]: expected a string, found null
 --> a.yaml:1:6
  |
1 | name:
  |      ^ missing
"
    );
}

#[test]
fn non_ascii_and_tabs_before_the_caret() {
    let src = "beschreibung: \"Größe\" # ünits\nk:\t[é,\tstrng]\n";
    let root = yaml::parse(src).expect("valid YAML");
    let items = root.get("k").and_then(yaml::Node::as_seq).expect("a list");
    let d = Diagnostic::error(
        Kind::UnknownName,
        "a.yaml",
        Some(items[1].span),
        "unknown type `strng`",
    )
    .with_label("here");
    assert_eq!(
        d.render(&sources(&[("a.yaml", src)])),
        "\
error[unknown-name]: unknown type `strng`
 --> a.yaml:2:8
  |
2 | k:    [é,    strng]
  |              ^^^^^ here
"
    );
    let comment = Diagnostic::warning(
        Kind::InvalidValue,
        "a.yaml",
        Some(span(1, 25, 1, 30)),
        "units",
    )
    .with_label("ü counts as one column");
    assert_eq!(
        comment.render(&sources(&[("a.yaml", src)])),
        "\
warning[invalid-value]: units
 --> a.yaml:1:25
  |
1 | beschreibung: \"Größe\" # ünits
  |                         ^^^^^ ü counts as one column
"
    );
}

#[test]
fn gutter_width_follows_the_widest_line_number() {
    let src = "1\n2\n3\n4\n5\n6\n7\n8\nnine: 9\nten: 10\n";
    let files = sources(&[("a.yaml", src)]);
    let nine = Diagnostic::error(Kind::InvalidValue, "a.yaml", Some(span(9, 1, 9, 5)), "nine");
    assert_eq!(
        nine.render(&files),
        "error[invalid-value]: nine\n --> a.yaml:9:1\n  |\n9 | nine: 9\n  | ^^^^\n"
    );
    let ten = Diagnostic::error(
        Kind::InvalidValue,
        "a.yaml",
        Some(span(10, 1, 10, 4)),
        "ten",
    )
    .with_related("a.yaml", span(9, 1, 9, 5), "nine")
    .with_help("count");
    assert_eq!(
        ten.render(&files),
        "\
error[invalid-value]: ten
  --> a.yaml:10:1
   |
10 | ten: 10
   | ^^^
   |
  ::: a.yaml:9:1
   |
9  | nine: 9
   | ---- nine
   |
   = help: count
"
    );
}

#[test]
fn render_all_sorts_and_summarises() {
    let files = sources(&[("b.yaml", "x: 1\ny: 2\n"), ("a.yaml", "z: 3\n")]);
    let diagnostics = [
        Diagnostic::warning(Kind::InvalidValue, "a.yaml", Some(span(1, 1, 1, 2)), "w1"),
        Diagnostic::error(Kind::InvalidValue, "b.yaml", Some(span(2, 1, 2, 2)), "e3"),
        Diagnostic::error(Kind::InvalidValue, "b.yaml", Some(span(1, 4, 1, 5)), "e2"),
        Diagnostic::error(Kind::InvalidValue, "a.yaml", None, "e1"),
    ];
    assert_eq!(
        render_all(&diagnostics, &files),
        "\
error[invalid-value]: e1
 --> a.yaml

error[invalid-value]: e2
 --> b.yaml:1:4
  |
1 | x: 1
  |    ^

error[invalid-value]: e3
 --> b.yaml:2:1
  |
2 | y: 2
  | ^

warning[invalid-value]: w1
 --> a.yaml:1:1
  |
1 | z: 3
  | ^

error: could not compile specs: 3 errors, 1 warning
"
    );
    let one = [Diagnostic::error(Kind::InvalidValue, "a.yaml", None, "e")];
    assert!(render_all(&one, &files).ends_with("\nerror: could not compile specs: 1 error\n"));
    let warnings = [Diagnostic::warning(Kind::InvalidValue, "a.yaml", None, "w")];
    assert_eq!(
        render_all(&warnings, &files),
        "warning[invalid-value]: w\n --> a.yaml\n\n"
    );
    assert_eq!(render_all(&[], &files), "");
}

#[test]
fn render_all_shows_the_first_diagnostics_and_counts_the_rest() {
    let files = sources(&[("a.yaml", "x: 1\n")]);
    let mut diagnostics: Vec<Diagnostic> = (0..MAX_SHOWN + 50)
        .map(|i| {
            Diagnostic::error(
                Kind::InvalidValue,
                "a.yaml",
                Some(span(1, 1, 1, 2)),
                format!("e{i:03}"),
            )
        })
        .collect();
    diagnostics.push(Diagnostic::warning(Kind::InvalidValue, "a.yaml", None, "w"));
    let out = render_all(&diagnostics, &files);
    assert_eq!(
        out.matches("\nerror[invalid-value]: e").count() + 1,
        MAX_SHOWN,
        "{out}"
    );
    assert!(
        out.starts_with("error[invalid-value]: e000\n")
            && out.contains("error[invalid-value]: e099\n")
    );
    assert!(!out.contains("e100"));
    assert!(out.ends_with(
            "… and 50 more errors and 1 more warning\n\nerror: could not compile specs: 150 errors, 1 warning\n"
        ));
}

#[test]
fn long_lines_are_shown_as_a_window_and_long_texts_cut() {
    let line = format!("{}bad{}", "a".repeat(1_000), "z".repeat(1_000));
    let d = Diagnostic::error(
        Kind::InvalidValue,
        "a.yaml",
        Some(span(1, 1_001, 1, 1_004)),
        "x".repeat(10_000),
    )
    .with_label("here");
    let out = d.render(&sources(&[("a.yaml", &line)]));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0].chars().count(),
        "error[invalid-value]: ".len() + MAX_TEXT + 1
    );
    assert!(lines[0].ends_with("x…"));
    let (source, caret) = (lines[3], lines[4]);
    assert!(
        source.starts_with("1 | ...a") && source.ends_with("z..."),
        "{source}"
    );
    assert_eq!(source.chars().count(), "1 | ".len() + MAX_LINE_WIDTH + 6);
    let at = caret.find('^').expect("a caret");
    assert_eq!(&source[at..at + 3], "bad");
    assert_eq!(&caret[at..], "^^^ here");
}

#[test]
fn did_you_mean_cases() {
    let types = ["string", "integer", "number", "boolean", "list", "map"];
    assert_eq!(did_you_mean("strng", types), Some("string"));
    assert_eq!(did_you_mean("integr", types), Some("integer"));
    assert_eq!(did_you_mean("String", types), Some("string"));
    assert_eq!(did_you_mean("xyz", types), None);
    assert_eq!(did_you_mean("", types), None);
    let keys = ["name", "description", "read_only", "args"];
    assert_eq!(did_you_mean("desription", keys), Some("description"));
    assert_eq!(did_you_mean("read-only", keys), Some("read_only"));
    assert_eq!(did_you_mean("arsg", keys), Some("args"));
    assert_eq!(did_you_mean("nmae", keys), Some("name"));
    assert_eq!(did_you_mean("anything", []), None);
    // Ties go to the first candidate.
    assert_eq!(did_you_mean("cat", ["bat", "hat"]), Some("bat"));
    // A word far longer than every candidate is not compared letter by letter.
    assert_eq!(did_you_mean(&"a".repeat(1_000_000), keys), None);
}
