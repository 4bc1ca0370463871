//! What `GET /docs` keeps: the catalog pages it has rendered, one per set of tools a caller may
//! see — by the caller's scopes (every listed tool under a challenge; the tools that need no
//! scope for the public page) and nothing else of the request, so a page is never rendered
//! again for another `Host` — up to [`CACHED_BYTES`]: a page of a thousand tools is about 5 MB
//! and a tenth of a second to render, which a caller asking again should not cost again. And
//! the route's budget per caller ([`DocsBudget`]): a caller with a token by its id, one without
//! (the public page) by its peer's address when the server knows it, else all such callers
//! together.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, MutexGuard, PoisonError};

use axum::body::Bytes;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use toolspec_vocab::codes;

use crate::adapters::gate::failure::failure;
use crate::model::caller::Scopes;
use crate::model::rate::{Limiter, Permit, RateLimit, Refusal};

/// How many bytes of rendered pages are kept.
pub(super) const CACHED_BYTES: usize = 8 << 20;

/// The default budget of `GET /docs` per caller: 60 requests a minute, all of them at once
/// after a quiet minute, 4 at the same time.
pub const DOCS_RATE_LIMIT: RateLimit = RateLimit {
    calls: 60,
    period_ms: 60_000,
    burst: 60,
    in_flight: 4,
};

/// Which page a request gets: what it depends on, and all it depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum PageKey {
    /// Every listed tool: a caller with a token, under a challenge (`on_missing_scope:
    /// challenge`), sees what a call would need.
    Listed,
    /// The tools a caller with these scopes may call.
    Scoped(Scopes),
    /// The public page of a request without a token: the tools that need no scope.
    Public,
}

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

/// Who asks for a page, as its budget knows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Asker<'a> {
    /// A caller the authenticator (or the API's own caller) named.
    Caller(&'a str),
    /// A request without a token, from this address.
    Peer(IpAddr),
    /// A request without a token from an address the server does not know (a router served
    /// without `ConnectInfo`): all such requests share one budget.
    Unknown,
}

impl Asker<'_> {
    /// The budget's key: the kinds cannot meet (a caller's id could read like an address).
    fn key(&self) -> String {
        match self {
            Self::Caller(id) => format!("c{id}"),
            Self::Peer(ip) => format!("p{ip}"),
            Self::Unknown => "u".to_owned(),
        }
    }
}

/// `GET /docs`'s budget per caller (none: no limit).
#[derive(Debug)]
pub(super) struct DocsBudget(Option<Limiter>);

impl DocsBudget {
    pub(super) fn new(limit: Option<RateLimit>) -> Self {
        Self(limit.map(Limiter::new))
    }

    /// Admits one request of `asker` (the permit is its place among those running), or the
    /// `429 rate_limited` answer, with `Retry-After`.
    #[allow(clippy::result_large_err)] // the refusal is the request's answer, made once
    pub(super) fn admit(&self, asker: Asker<'_>) -> Result<Option<Permit>, Response> {
        let Some(limiter) = &self.0 else {
            return Ok(None);
        };
        let (why, wait) = match limiter.admit(&asker.key()) {
            Ok(permit) => return Ok(Some(permit)),
            Err(Refusal::TooFast(wait)) => ("You asked for the tool catalog too often", wait),
            Err(Refusal::TooMany(_)) => (
                "As many of your requests for the tool catalog as allowed are running",
                std::time::Duration::from_secs(1),
            ),
        };
        let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        let message = format!("{why}; retry in {seconds} s.");
        let mut response = failure(StatusCode::TOO_MANY_REQUESTS, codes::RATE_LIMITED, &message);
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        Err(response)
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
        let reader = || PageKey::Scoped(Scopes::only(["orders:read"]));
        assert_eq!(pages.page(reader(), || render("reader's")), "reader's");
        assert_eq!(pages.page(reader(), || render("again")), "reader's");
        assert_eq!(renders.get(), 1);
        // Other scopes, the public page and the listed tools are pages of their own.
        let writer = PageKey::Scoped(Scopes::only(["orders:read", "orders:write"]));
        assert_eq!(
            pages.page(writer.clone(), || render("writer's")),
            "writer's"
        );
        assert_eq!(pages.page(PageKey::Public, || render("public")), "public");
        assert_eq!(pages.page(PageKey::Listed, || render("listed")), "listed");
        assert_eq!(pages.page(reader(), || render("again")), "reader's");
        assert_eq!(pages.page(writer, || render("again")), "writer's");
        assert_eq!((renders.get(), pages.len()), (4, 4));

        // Too large to keep: served, not kept; what would overflow the budget clears it.
        let huge = "x".repeat(CACHED_BYTES + 1);
        let none = || PageKey::Scoped(Scopes::none());
        assert_eq!(pages.page(none(), || huge.clone()).len(), huge.len());
        assert_eq!(pages.len(), 4);
        let most = "y".repeat(CACHED_BYTES - 10);
        pages.page(none(), || most.clone());
        assert_eq!(pages.len(), 1, "the earlier pages were let go");
    }

    #[test]
    fn askers_of_different_kinds_never_share_a_budget() {
        let ip: IpAddr = "10.0.0.1".parse().unwrap();
        let keys = [
            Asker::Caller("p10.0.0.1").key(),
            Asker::Peer(ip).key(),
            Asker::Unknown.key(),
            Asker::Caller("").key(),
        ];
        for (i, a) in keys.iter().enumerate() {
            for b in &keys[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
