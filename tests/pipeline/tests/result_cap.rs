//! Answers past their tool's result cap: cut at a list item, with a notice, within the cap —
//! and a hostile handler's 50 MB output is answered within its 64 KiB cap while the call
//! allocates little beyond what the handler itself built (a counting global allocator
//! measures the peak; run with `--nocapture` for the figures).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};

use serde_json::{Value, json};
use toolspec::truncation::CutBy;
use toolspec::{AmbientContext, ToolResult};
use toolspec_test_pipeline::{App, dump};

/// The system allocator, counting the bytes allocated now and the most at once.
struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(bytes: usize) {
    let now = NOW.fetch_add(bytes, SeqCst) + bytes;
    PEAK.fetch_max(now, SeqCst);
}

// SAFETY: every call is passed to the system allocator unchanged; only counters are kept.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        NOW.fetch_sub(layout.size(), SeqCst);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        if !moved.is_null() {
            NOW.fetch_sub(layout.size(), SeqCst);
            grew(new_size);
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The dump tool's cap.
const CAP: usize = 64 * 1024;
/// What a call may allocate beyond the handler's own output: a small multiple of the cap.
const BEYOND: usize = 16 * CAP;

/// The bytes `build` leaves allocated.
fn held<T>(build: impl FnOnce() -> T) -> usize {
    let before = NOW.load(SeqCst);
    let built = build();
    let held = NOW.load(SeqCst) - before;
    drop(built);
    held
}

/// The call's result, and the most it had allocated at once above what was allocated before.
async fn peak_of(registry: &toolspec::Registry, args: Value) -> (ToolResult, usize) {
    let before = NOW.load(SeqCst);
    PEAK.store(before, SeqCst);
    let ambient = AmbientContext::default();
    let result = registry.invoke("hostile_dump", args, &ambient).await;
    let peak = PEAK.load(SeqCst) - before;
    (result.expect("a tool of the registry"), peak)
}

#[tokio::test]
async fn a_hostile_50_mb_output_is_answered_within_the_cap_without_a_50_mb_value() {
    let registry = App::new().registry();
    // Warm up: the first call compiles the tool's schemas.
    let small = json!({"rows": 2, "row_bytes": 10});
    let (warm, _) = peak_of(&registry, small).await;
    assert!(warm.is_ok() && warm.truncated.is_none(), "{warm:?}");

    // 500,000 rows of 100 bytes: 50 MB of strings, 51.5 MB of JSON.
    let handler = held(|| dump(500_000, 100, false));
    let args = json!({"rows": 500_000, "row_bytes": 100});
    let (result, peak) = peak_of(&registry, args).await;
    eprintln!(
        "rows: the handler holds {handler} bytes; the call peaked {peak} bytes above its start \
         ({} beyond the handler's output)",
        peak.saturating_sub(handler)
    );
    let value = result.value().expect("the answer, cut");
    let sent = value.to_string().len();
    assert!(sent <= CAP, "{sent} bytes of JSON");
    let kept = value["rows"].as_array().unwrap().len() as u64;
    assert!(kept > 500, "it keeps what fits: {kept}");
    assert_eq!(
        value["note"], "That is all.",
        "what follows the list is kept"
    );
    let notice = result.truncated.as_ref().expect("a notice");
    assert_eq!(notice.cut.len(), 1);
    assert_eq!(
        (
            notice.cut[0].at.as_str(),
            notice.cut[0].kept,
            notice.cut[0].total
        ),
        ("/rows", kept, 500_000)
    );
    assert_eq!(notice.cut[0].by, CutBy::Bytes);
    assert!(
        peak <= handler + BEYOND,
        "the call allocated {peak} bytes at most, the handler's output is {handler}"
    );

    // One 50 MB string cannot be cut: `result_too_large`, and it is never copied.
    let handler = held(|| dump(1, 50_000_000, true));
    let args = json!({"rows": 1, "row_bytes": 50_000_000, "as_one_string": true});
    let (result, peak) = peak_of(&registry, args).await;
    eprintln!(
        "blob: the handler holds {handler} bytes; the call peaked {peak} bytes above its start"
    );
    let error = result.error().expect("a failure");
    assert_eq!(error.code, "result_too_large");
    assert_eq!(
        error.message,
        "The answer is larger than this tool's cap (64 KiB of JSON) and cannot be cut to fit: \
         ask for less."
    );
    assert_eq!(error.details, Some(json!({"limit": {"bytes": 65536}})));
    assert!(
        peak <= handler + BEYOND,
        "{peak} bytes for a {handler}-byte output"
    );
}

#[tokio::test]
async fn a_cut_the_output_schema_refuses_is_result_too_large() {
    let registry = App::new().registry();
    let ambient = AmbientContext::default();
    let one = registry
        .invoke("hostile_pairs", json!({"count": 1}), &ambient)
        .await
        .unwrap();
    // One pair is not cut: the handler's own mistake, an internal error.
    assert_eq!(one.error().unwrap().code, "internal_error");
    let many = registry
        .invoke("hostile_pairs", json!({"count": 5}), &ambient)
        .await
        .unwrap();
    let error = many.error().expect("a failure");
    assert_eq!(error.code, "result_too_large", "{error:?}");
    let exception = many.exception.as_deref().unwrap();
    assert!(
        exception.contains("the cut answer does not match the output schema"),
        "{exception}"
    );
}
