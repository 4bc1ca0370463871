//! The catalog pages `GET /docs` has rendered, kept by who may see what and the host they
//! were asked of, up to [`CACHED_BYTES`]: a page of a thousand tools is about 5 MB and a
//! tenth of a second to render, which a caller asking again should not cost again.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use axum::body::Bytes;

use crate::caller::Scopes;

/// How many bytes of rendered pages are kept.
pub(super) const CACHED_BYTES: usize = 8 << 20;

/// What a page depends on: the scopes of the callers it is for (`None`: every listed tool,
/// under a challenge) and the host its examples point at.
pub(super) type PageKey = (Option<Scopes>, Option<String>);

/// The rendered pages.
#[derive(Debug, Default)]
pub(super) struct CatalogPages(Mutex<HashMap<PageKey, Bytes>>);

impl CatalogPages {
    /// The page for `key`, rendered by `render` when it is not kept; a page larger than the
    /// whole budget is served but not kept, and the pages kept are let go when the next one
    /// would not fit.
    pub(super) fn page(&self, key: PageKey, render: impl FnOnce() -> String) -> Bytes {
        if let Some(page) = self.lock().get(&key) {
            return page.clone();
        }
        let page = Bytes::from(render());
        if page.len() <= CACHED_BYTES {
            let mut pages = self.lock();
            let held: usize = pages.values().map(Bytes::len).sum();
            if held + page.len() > CACHED_BYTES {
                pages.clear();
            }
            pages.insert(key, page.clone());
        }
        page
    }

    /// How many pages are kept.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<PageKey, Bytes>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_rendered_once_per_key_and_the_kept_bytes_stay_bounded() {
        let pages = CatalogPages::default();
        let renders = std::cell::Cell::new(0);
        let render = |text: &str| {
            renders.set(renders.get() + 1);
            text.to_owned()
        };
        let key = |host: &str| (None, Some(host.to_owned()));
        assert_eq!(pages.page(key("a"), || render("page a")), "page a");
        assert_eq!(pages.page(key("a"), || render("again")), "page a");
        assert_eq!(renders.get(), 1);
        let scoped = (Some(Scopes::none()), Some("a".to_owned()));
        assert_eq!(pages.page(scoped, || render("scoped")), "scoped");
        assert_eq!((renders.get(), pages.len()), (2, 2));

        // Too large to keep: served, not kept; what would overflow the budget clears it.
        let huge = "x".repeat(CACHED_BYTES + 1);
        assert_eq!(pages.page(key("b"), || huge.clone()).len(), huge.len());
        assert_eq!(pages.len(), 2);
        let most = "y".repeat(CACHED_BYTES - 10);
        pages.page(key("c"), || most.clone());
        assert_eq!(pages.len(), 1, "the earlier pages were let go");
    }
}
