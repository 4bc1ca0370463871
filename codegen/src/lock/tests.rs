//! The drift table: spec changes, each with the classes its findings must have, against a
//! lock of one base project; and the lock's own promises (deterministic, round trip, edits
//! caught).

use std::collections::BTreeSet;

use super::{Class, Lock, LockError, drift};
use crate::project::{Project, from_files};

const CONFIG: &str = "membership: { default: all }\nadapters:\n  openai: { strict: false }\n";

const BASE: &str = "\
description: Cancel an order.
version: 1
expects:
  order_id: { type: integer, minimum: 1, description: The order. }
  reason:
    type: string
    one_of: [customer_request, duplicate, fraud]
    default: customer_request
  note: { type: string, optional: true, max_length: 200 }
exposes:
  order:
    type: object
    fields:
      id: { type: integer }
      status: { type: string, one_of: [open, cancelled] }
      tags: { type: array, items: string }
errors:
  headline: Could not cancel the order
  codes:
    already_shipped: The order has already shipped.
    not_found: { message: No such order., standalone: true }
guards:
  not_cancelled: Order must not already be cancelled.
hints: [idempotent]
scopes: [\"orders:write\"]
";

const OTHER: &str = "description: Look an order up.\nhints: [read_only]\nexpects:\n  order_id: { type: integer }\nexposes:\n  status: { type: string }\n";

fn project(cancel: &str, other: Option<&str>) -> Project {
    let mut files = vec![("toolspec.yaml", CONFIG), ("orders/cancel.yaml", cancel)];
    if let Some(other) = other {
        files.push(("orders/get.yaml", other));
    }
    let project = from_files(&files);
    assert!(!project.has_errors(), "{}", project.render_diagnostics());
    project
}

/// The drift of the base project, edited, from the base project's lock.
fn drift_of(cancel: &str, other: Option<&str>) -> super::Drift {
    let lock = Lock::of(&project(BASE, Some(OTHER)));
    let text = lock.to_text();
    drift(&lock, &text, "specs/toolspec.lock", &project(cancel, other))
}

/// The base spec with `from` replaced by `to` (which must be there).
fn edit(from: &str, to: &str) -> String {
    assert!(BASE.contains(from), "the base spec has no `{from}`");
    BASE.replacen(from, to, 1)
}

use Class::{Breaking as B, Compatible as C, NeedsReview as R};

/// A change, the spec after it (and the second tool's, `None` when it is removed), the
/// classes of its findings, and words one finding must say.
struct Case {
    name: &'static str,
    cancel: String,
    other: Option<&'static str>,
    classes: &'static [Class],
    says: &'static str,
}

fn case(
    name: &'static str,
    from: &str,
    to: &str,
    classes: &'static [Class],
    says: &'static str,
) -> Case {
    Case {
        name,
        cancel: edit(from, to),
        other: Some(OTHER),
        classes,
        says,
    }
}

fn cases() -> Vec<Case> {
    vec![
        case(
            "description",
            "Cancel an order.",
            "Cancel one order.",
            &[C],
            "new description",
        ),
        case(
            "new optional input",
            "  note:",
            "  extra: { type: string, optional: true }\n  note:",
            &[C],
            "input `extra`: new optional input",
        ),
        case(
            "new required input",
            "  note:",
            "  extra: { type: string }\n  note:",
            &[B],
            "input `extra`: new required input",
        ),
        case(
            "input removed",
            "  note: { type: string, optional: true, max_length: 200 }\n",
            "",
            &[B],
            "input `note`: input field removed",
        ),
        case(
            "input renamed",
            "  note: {",
            "  comment: {",
            &[B, C],
            "input `note`: input field removed",
        ),
        case(
            "optional input now required",
            "note: { type: string, optional: true,",
            "note: { type: string,",
            &[B],
            "input `note`: is now required",
        ),
        case(
            "required input now optional",
            "order_id: { type: integer,",
            "order_id: { type: integer, optional: true,",
            &[C],
            "is now optional",
        ),
        case(
            "enum narrowed",
            "duplicate, fraud]",
            "duplicate]",
            &[B],
            "no longer accepts \"fraud\"",
        ),
        case(
            "enum widened",
            "duplicate, fraud]",
            "duplicate, fraud, other]",
            &[C],
            "also accepts \"other\"",
        ),
        case(
            "input retyped",
            "order_id: { type: integer, minimum: 1,",
            "order_id: { type: string,",
            &[B],
            "retyped from integer to string",
        ),
        case(
            "minimum raised",
            "minimum: 1,",
            "minimum: 5,",
            &[B],
            "narrowed: `minimum` 1 → 5",
        ),
        case(
            "max length loosened",
            "max_length: 200",
            "max_length: 500",
            &[C],
            "widened: `maxLength` 200 → 500",
        ),
        case(
            "pattern added",
            "max_length: 200",
            "max_length: 200, pattern: '^[a-z ]*$'",
            &[B],
            "`pattern`",
        ),
        case(
            "default changed",
            "default: customer_request",
            "default: duplicate",
            &[R],
            "default changed",
        ),
        case(
            "output field removed",
            "      tags: { type: array, items: string }\n",
            "",
            &[B],
            "output `order.tags`: output field removed",
        ),
        case(
            "output field retyped",
            "      id: { type: integer }",
            "      id: { type: string }",
            &[B],
            "output `order.id`: retyped from integer to string",
        ),
        case(
            "output field may be absent",
            "      id: { type: integer }",
            "      id: { type: integer, optional: true }",
            &[B],
            "may now be absent",
        ),
        case(
            "new output field",
            "      tags:",
            "      total: { type: integer }\n      tags:",
            &[C],
            "output `order.total`: new output field",
        ),
        case(
            "output enum gains a value",
            "one_of: [open, cancelled]",
            "one_of: [open, cancelled, held]",
            &[R],
            "may now be \"held\"",
        ),
        case(
            "error code removed",
            "    already_shipped: The order has already shipped.\n",
            "",
            &[B, C],
            "no longer has the error code `already_shipped`",
        ),
        case(
            "error code added",
            "    already_shipped: The order has already shipped.\n",
            "    already_shipped: The order has already shipped.\n    paid: The order is paid.\n",
            &[C],
            "new error code `paid`",
        ),
        case(
            "error message changed",
            "already shipped.",
            "already left.",
            &[C],
            "new text for the error code",
        ),
        case(
            "guard added",
            "guards:\n",
            "guards:\n  in_stock: Items must be in stock.\n",
            &[R, C],
            "new guard `in_stock`",
        ),
        case(
            "guard removed",
            "guards:\n  not_cancelled: Order must not already be cancelled.\n",
            "",
            &[B, C],
            "no longer has the guard `not_cancelled`",
        ),
        case(
            "became destructive",
            "hints: [idempotent]",
            "hints: [idempotent, destructive]",
            &[R],
            "became `destructive`",
        ),
        case(
            "lost idempotent",
            "hints: [idempotent]",
            "hints: []",
            &[R],
            "no longer `idempotent`",
        ),
        case(
            "new scope",
            "scopes: [\"orders:write\"]",
            "scopes: [\"orders:write\", \"orders:admin\"]",
            &[R],
            "new scope `orders:admin`",
        ),
        case(
            "scope removed",
            "scopes: [\"orders:write\"]",
            "scopes: []",
            &[R],
            "no longer requires scope `orders:write`",
        ),
        case(
            "confirmation added",
            "scopes:",
            "confirm: Cancel order {{ order_id }}?\nscopes:",
            &[R, C],
            "now asks its user to confirm",
        ),
        case(
            "tool renamed",
            "version: 1",
            "version: 1\nname: orders_void",
            &[B],
            "was renamed from `orders_cancel`",
        ),
        case(
            "off an adapter",
            "scopes:",
            "tool: { except: [gemini] }\nscopes:",
            &[B],
            "no longer served on `gemini`",
        ),
        case(
            "renamed on an adapter",
            "scopes:",
            "tool: { mcp: { name: cancel } }\nscopes:",
            &[B],
            "renamed on `mcp` to `cancel`",
        ),
        case(
            "strict on an adapter",
            "scopes:",
            "tool: { openai: { strict: true } }\nscopes:",
            &[R],
            "declared in openai-strict on `openai`",
        ),
        Case {
            name: "tool removed",
            cancel: BASE.to_owned(),
            other: None,
            classes: &[B],
            says: "`orders_get` was removed",
        },
        case(
            "result cap tightened",
            "scopes:",
            "result_cap: { items: 50 }\nscopes:",
            &[C, R],
            "cuts its answers sooner: 1 MiB of JSON, 50 items per list",
        ),
        case(
            "result cap loosened",
            "scopes:",
            "result_cap: { bytes: 4194304 }\nscopes:",
            &[C, C],
            "cuts its answers later: 4 MiB of JSON",
        ),
        case(
            "result cap off",
            "scopes:",
            "result_cap: off\nscopes:",
            &[C],
            "cuts its answers later: no cap",
        ),
        case(
            "timeout (not part of the contract)",
            "scopes:",
            "timeout: 5s\nscopes:",
            &[],
            "",
        ),
    ]
}

#[test]
fn every_change_in_the_table_has_its_class() {
    let cases = cases();
    assert!(cases.len() >= 20);
    let mut failures = Vec::new();
    for case in &cases {
        let drift = drift_of(&case.cancel, case.other);
        let classes: BTreeSet<Class> = drift.findings.iter().map(|f| f.class).collect();
        let expected: BTreeSet<Class> = case.classes.iter().copied().collect();
        let said = case.says.is_empty()
            || drift
                .findings
                .iter()
                .any(|f| f.to_string().contains(case.says));
        if classes != expected || !said {
            failures.push(format!(
                "{}: expected {expected:?} saying {:?}, got:\n{}",
                case.name,
                case.says,
                drift.render()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_new_tool_is_to_review() {
    let lock = Lock::of(&project(BASE, None));
    let drift = drift(
        &lock,
        &lock.to_text(),
        "specs/toolspec.lock",
        &project(BASE, Some(OTHER)),
    );
    let found: Vec<String> = drift.findings.iter().map(ToString::to_string).collect();
    assert_eq!(
        found,
        ["needs review: specs/orders/get.yaml:1:1: `orders_get` is a new tool"]
    );
    assert!(drift.fails());
}

#[test]
fn findings_are_placed_at_the_field_or_key_they_are_about() {
    let placed = |cancel: &str, says: &str| {
        let drift = drift_of(cancel, Some(OTHER));
        let finding = drift
            .findings
            .iter()
            .find(|f| f.what.contains(says))
            .expect(says);
        (finding.file.clone(), finding.line, finding.col)
    };
    let file = "specs/orders/cancel.yaml".to_owned();
    // `id:` of the output's `order`, line 14.
    assert_eq!(
        placed(
            &edit("      id: { type: integer }", "      id: { type: string }"),
            "order.id"
        ),
        (file.clone(), 14, 7)
    );
    // A removed input: the `expects:` key.
    assert_eq!(
        placed(
            &edit(
                "  note: { type: string, optional: true, max_length: 200 }\n",
                ""
            ),
            "note"
        ),
        (file.clone(), 3, 1)
    );
    // Scopes: their key, line 25.
    assert_eq!(
        placed(&edit("scopes: [\"orders:write\"]", "scopes: []"), "scope"),
        (file, 25, 1)
    );
    // A removed tool: its entry in the lock.
    let drift = drift_of(BASE, None);
    let removed = &drift.findings[0];
    assert_eq!(removed.file, "specs/toolspec.lock");
    let text = Lock::of(&project(BASE, Some(OTHER))).to_text();
    let line = text
        .lines()
        .nth(removed.line as usize - 1)
        .expect("the line");
    assert_eq!(line.trim(), "\"orders_get\": {");
}

#[test]
fn a_breaking_change_with_a_raised_version_does_not_hold_the_lock_back() {
    let removed = edit(
        "  note: { type: string, optional: true, max_length: 200 }\n",
        "",
    );
    let drift = drift_of(&removed, Some(OTHER));
    assert_eq!(drift.blocks_update().count(), 1);
    let raised = removed.replace("version: 1", "version: 2");
    let drift = drift_of(&raised, Some(OTHER));
    let breaking: Vec<_> = drift.of(Class::Breaking).collect();
    assert_eq!(breaking.len(), 1);
    assert_eq!(breaking[0].raised, Some((1, 2)));
    assert!(breaking[0].to_string().ends_with("[version 1 → 2]"));
    assert_eq!(drift.blocks_update().count(), 0);
    // Still a change to record: the check fails until the lock holds it.
    assert!(drift.fails());
}

#[test]
fn the_lock_is_deterministic_and_reads_back() {
    let project = project(BASE, Some(OTHER));
    let text = Lock::of(&project).to_text();
    assert_eq!(text, Lock::of(&project).to_text());
    let read = Lock::parse(&text).expect("a lock");
    assert_eq!(read, Lock::of(&project));
    assert_eq!(read.to_text(), text);
    assert!(drift(&read, &text, "specs/toolspec.lock", &project).is_empty());
    // Keys sorted at every level: a diff of two locks is a review of the change.
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    let keys: Vec<&String> = value["tools"]["orders_cancel"]
        .as_object()
        .expect("entry")
        .keys()
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
}

#[test]
fn an_entry_edited_by_hand_is_caught() {
    let project = project(BASE, Some(OTHER));
    let text = Lock::of(&project)
        .to_text()
        .replace("\"orders:write\"", "\"orders:read\"");
    let lock = Lock::parse(&text).expect("a lock");
    let drift = drift(&lock, &text, "specs/toolspec.lock", &project);
    let found: Vec<String> = drift.findings.iter().map(|f| f.what.clone()).collect();
    assert!(
        found.iter().any(|w| w.contains("edited by hand")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|w| w.contains("new scope `orders:write`")),
        "{found:?}"
    );
}

#[test]
fn a_lock_of_another_format_or_with_unknown_keys_is_refused_with_why() {
    let e = Lock::parse("{\"toolspec_lock\": 9, \"tools\": {}}").expect_err("format 9");
    assert!(matches!(e, LockError::Format(9)), "{e}");
    let e = Lock::parse("{\"toolspec_lock\": 1, \"tools\": {}, \"extra\": 1}").expect_err("extra");
    assert!(
        matches!(&e, LockError::Json(_)) && e.to_string().contains("unknown field `extra`"),
        "{e}"
    );
}
