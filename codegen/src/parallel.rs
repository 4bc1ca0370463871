//! Work spread over the machine's cores, results in input order: the compiler parses,
//! checks and writes each spec on its own, so large projects build in parallel.
//!
//! The work runs on threads of its own with a stack of [`STACK_SIZE`], whatever thread calls:
//! writing a type nested as deep as the schema depth limit allows recurses once per level (and
//! a shape's types in `syn` and `prettyplease`), and checking a default recurses in the
//! validator, which must not depend on the caller's stack (a test thread has 2 MiB).

/// The stack of each worker thread (address space; only what is used is touched).
pub const STACK_SIZE: usize = 16 << 20;

/// `f` applied to every item, on up to `available_parallelism` threads (one for small inputs);
/// the results keep the items' order.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = if items.len() < 32 {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    };
    let chunk = items.len().div_ceil(threads).max(1);
    let f = &f;
    std::thread::scope(|scope| {
        let workers: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                let work = move || part.iter().map(f).collect::<Vec<R>>();
                std::thread::Builder::new()
                    .stack_size(STACK_SIZE)
                    .spawn_scoped(scope, work)
                    .map_err(|_| part)
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| match worker {
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                // No thread to be had: the work runs here.
                Err(part) => part.iter().map(f).collect(),
            })
            .collect()
    })
}

/// `a()` and `b()` at once: `a` on a thread of its own (with a stack of [`STACK_SIZE`]), `b`
/// on this one; `a` runs here after `b` when no thread is to be had.
pub fn join<A: Send, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B) -> (A, B) {
    let a = std::sync::Mutex::new(Some(a));
    // Whichever thread takes `a` first runs it.
    let run = || {
        let a = a.lock().ok()?.take()?;
        Some(a())
    };
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, run);
        let b = b();
        let ran = match spawned {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => None,
        };
        let Some(a) = ran.or_else(run) else {
            unreachable!("`a` is taken by one thread, which returns its value or panics")
        };
        (a, b)
    })
}
