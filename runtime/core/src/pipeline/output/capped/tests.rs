use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::json;

use super::*;

fn cap(bytes: Option<u64>, items: Option<u32>) -> ResultCap {
    ResultCap { bytes, items }
}

#[derive(Serialize)]
enum Shape {
    Dot,
    Circle(f64),
    Pair(i32, i32),
    Rect { w: u32, h: u32 },
}

#[derive(Serialize)]
struct Everything {
    text: String,
    escaped: &'static str,
    number: i64,
    big: u128,
    ratio: f32,
    missing: Option<u8>,
    present: Option<bool>,
    shapes: Vec<Shape>,
    pair: (u8, String),
    map: BTreeMap<u32, Vec<u8>>,
    bytes: serde_bytes_like::Bytes,
    nested: Vec<Vec<i8>>,
    unit: (),
}

/// Bytes serialized through `serialize_bytes`, as `serde_bytes` would.
mod serde_bytes_like {
    pub struct Bytes(pub Vec<u8>);

    impl serde::Serialize for Bytes {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(&self.0)
        }
    }
}

fn everything() -> Everything {
    Everything {
        text: "héllo wörld ✓".into(),
        escaped: "quote \" backslash \\ newline \n tab \t nul \u{0}",
        number: -1234567,
        big: 7,
        ratio: 0.1,
        missing: None,
        present: Some(true),
        shapes: vec![
            Shape::Dot,
            Shape::Circle(2.5),
            Shape::Pair(-1, 2),
            Shape::Rect { w: 3, h: 4 },
        ],
        pair: (7, "seven".into()),
        map: BTreeMap::from([(1, vec![1, 2]), (20, vec![])]),
        bytes: serde_bytes_like::Bytes(vec![0, 255]),
        nested: vec![vec![1, 2, 3], vec![], vec![-4]],
        unit: (),
    }
}

/// The bytes of `output`'s JSON as an adapter sends it: its `Value`'s compact text (an `f32`
/// becomes the `f64` it is, `0.10000000149011612`, as with `serde_json::to_value`).
fn sent_len<T: Serialize>(output: &T) -> u64 {
    serde_json::to_value(output).unwrap().to_string().len() as u64
}

#[test]
fn within_the_cap_the_value_is_what_serde_json_builds() {
    let output = everything();
    let capped = to_value(&output, ResultCap::DEFAULT).unwrap();
    assert_eq!(capped.value, serde_json::to_value(&output).unwrap());
    assert_eq!(capped.truncation, None);
}

#[test]
fn bytes_are_counted_exactly_as_compact_json() {
    let output = everything();
    let exact = sent_len(&output);
    // At its exact size it fits whole; a byte less and something must go.
    let whole = to_value(&output, cap(Some(exact), None)).unwrap();
    assert_eq!(whole.truncation, None);
    let less = to_value(&output, cap(Some(exact - 1), None)).unwrap();
    assert!(less.truncation.is_some());
    assert!((less.value.to_string().len() as u64) < exact);
}

#[test]
fn every_cut_fits_its_cap() {
    let output = everything();
    let exact = sent_len(&output);
    for bytes in 1..=exact {
        match to_value(&output, cap(Some(bytes), None)) {
            Ok(capped) => {
                let len = capped.value.to_string().len() as u64;
                assert!(len <= bytes, "{len} bytes over a cap of {bytes}");
            }
            Err(Refused::TooLarge { .. }) => {}
            Err(other) => panic!("{other:?}"),
        }
    }
}

#[test]
fn lists_keep_their_first_items_up_to_the_items_cap() {
    let output = json!({"orders": (0..250).collect::<Vec<_>>(), "count": 250});
    let capped = to_value(&output, cap(None, Some(100))).unwrap();
    assert_eq!(capped.value["orders"].as_array().unwrap().len(), 100);
    assert_eq!(capped.value["orders"][99], 99);
    assert_eq!(capped.value["count"], 250);
    let notice = capped.truncation.unwrap();
    assert_eq!(
        notice.cut,
        vec![Cut {
            at: "/orders".into(),
            kept: 100,
            total: 250,
            by: CutBy::Items,
        }]
    );
    assert_eq!(notice.limit.items, Some(100));
}

#[test]
fn nested_lists_are_cut_where_they_are() {
    let output = json!({"groups": [
        {"name": "a/b", "lines": [1, 2, 3]},
        {"name": "c", "lines": [4]},
        {"name": "d", "lines": [5, 6, 7, 8]},
    ]});
    let capped = to_value(&output, cap(None, Some(2))).unwrap();
    assert_eq!(
        capped.value,
        json!({"groups": [
            {"name": "a/b", "lines": [1, 2]},
            {"name": "c", "lines": [4]},
        ]})
    );
    let cut: Vec<_> = (capped.truncation.unwrap().cut.into_iter())
        .map(|c| (c.at, c.kept, c.total))
        .collect();
    assert_eq!(
        cut,
        [
            ("/groups/0/lines".to_owned(), 2, 3),
            ("/groups".to_owned(), 2, 3),
        ]
    );
}

#[test]
fn a_list_leaves_room_for_what_follows_it() {
    #[derive(Serialize)]
    struct Report {
        rows: Vec<String>,
        summary: String,
    }
    let report = Report {
        rows: (0..1000).map(|i| format!("row number {i}")).collect(),
        summary: "s".repeat(300),
    };
    let capped = to_value(&report, cap(Some(1000), None)).unwrap();
    let len = capped.value.to_string().len();
    assert!(len <= 1000, "{len}");
    assert!(len > 900, "the lists keep what fits: {len}");
    assert_eq!(capped.value["summary"].as_str().unwrap().len(), 300);
    let notice = capped.truncation.unwrap();
    assert_eq!(notice.cut[0].at, "/rows");
    assert_eq!(notice.cut[0].total, 1000);
    assert_eq!(notice.cut[0].by, CutBy::Bytes);
    let kept = capped.value["rows"].as_array().unwrap().len() as u64;
    assert_eq!(notice.cut[0].kept, kept);
}

#[test]
fn what_cannot_be_cut_is_too_large() {
    let output = json!({"blob": "x".repeat(10_000)});
    assert_eq!(
        to_value(&output, cap(Some(1000), None)).unwrap_err(),
        Refused::TooLarge { bytes: 10_011 }
    );
    // A list of one string larger than the cap keeps no item, and that fits.
    let output = json!({"blobs": ["x".repeat(10_000)]});
    let capped = to_value(&output, cap(Some(1000), None)).unwrap();
    assert_eq!(capped.value, json!({"blobs": []}));
}

#[test]
fn a_notice_names_sixteen_lists_and_counts_the_rest() {
    let output: BTreeMap<String, Vec<u8>> = (0..40)
        .map(|i| (format!("k{i:02}"), vec![1, 2, 3]))
        .collect();
    let notice = to_value(&output, cap(None, Some(2)))
        .unwrap()
        .truncation
        .unwrap();
    assert_eq!(notice.cut.len(), MAX_LISTED);
    assert_eq!(notice.cut[0].at, "/k00");
    assert_eq!(notice.more, 40 - MAX_LISTED as u64);
}

#[test]
fn keys_that_are_not_strings_do_not_serialize() {
    let output = BTreeMap::from([((1, 2), 3)]);
    assert!(matches!(
        to_value(&output, ResultCap::DEFAULT),
        Err(Refused::Invalid(_))
    ));
}

#[test]
fn strings_and_integers_are_counted_as_serde_json_writes_them() {
    let every_ascii: String = (0u8..128).map(char::from).collect();
    for text in [every_ascii.as_str(), "", "é ✓ 😀", "\u{2028}\u{7f}"] {
        assert_eq!(str_len(text), json_len(text), "{text:?}");
    }
    for n in [0i64, 9, 10, -1, -10, 99_999, i64::MIN, i64::MAX] {
        assert_eq!(int_len(n < 0, n.unsigned_abs()), json_len(&n), "{n}");
    }
    assert_eq!(int_len(false, u64::MAX), json_len(&u64::MAX));
}
