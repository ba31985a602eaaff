"""Each listed URL's fate, branch by branch, on hand-made rows of the store's join.

The end-to-end audit tests reach every code through a real site; this table pins
the order the codes are tried in and the evidence each one writes, including the
reasons the audit site has no page for (a trap, a page too large, a held URL).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from sitemapkit.audit.compare import Context, fate
from sitemapkit.store import open_audit_store
from sitemapkit.store.base import AuditStore, NewUrl, Outcome, UrlState
from sitemapkit.store.rows import ListedFacts, ListedRow

SITE = "http://a.test"
HEALTHY = ListedFacts(
    listed=ListedRow(f"{SITE}/p", f"{SITE}/p", f"{SITE}/sitemap.xml", 3),
    url_id=None,
    state=UrlState.DONE,
    status=200,
    reason=None,
    detail=None,
    content_type="text/html",
    canonical=None,
    redirect_to=None,
    page_lastmod=None,
    page_lastmod_source=None,
    indexable=True,
    inlinks=2,
)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[AuditStore]:
    opened = open_audit_store(str(tmp_path / "crawl.sqlite"))
    try:
        yield opened
    finally:
        opened.close()


def _ctx(store: AuditStore, *, offline: bool = False, stopped_by: str | None = None) -> Context:
    return Context(
        store=store,
        on_site=lambda url: url.startswith(SITE),
        roots=frozenset({f"{SITE}/"}),
        stopped_by=stopped_by,
        offline=offline,
    )


def _with(**changes: object) -> ListedFacts:
    return replace(HEALTHY, **changes)  # type: ignore[arg-type]


def _listed(key: str, sitemap: str = f"{SITE}/sitemap.xml") -> ListedRow:
    return ListedRow(key, key, sitemap, 3)


CASES: list[tuple[ListedFacts, tuple[str, str] | None]] = [
    (HEALTHY, None),
    (
        _with(listed=_listed("http://b.test/p")),
        ("listed-out-of-scope", "not on the audited site (b.test)"),
    ),
    (
        _with(listed=_listed(f"{SITE}/p", f"{SITE}/blog/sitemap.xml")),
        ("listed-out-of-scope", f"outside the folder of {SITE}/blog/sitemap.xml"),
    ),
    (
        _with(status=None, reason="blocked-by-robots"),
        ("listed-blocked", "disallowed by robots.txt"),
    ),
    (
        _with(state=UrlState.QUEUED, status=None),
        ("listed-unverified", "still queued when the crawl stopped (interrupted)"),
    ),
    (
        _with(state=UrlState.HELD, status=None),
        ("listed-unverified", "only nofollow links lead to it; not fetched"),
    ),
    (
        _with(status=None, reason="out-of-scope"),
        ("listed-unverified", "excluded from the crawl (--include/--exclude)"),
    ),
    (
        _with(status=None, reason="trap-pattern"),
        ("listed-unverified", "not fetched: trap-pattern"),
    ),
    (
        _with(status=301, reason="redirect-chain", detail="/p -> /q -> /r"),
        ("listed-redirect", "redirect-chain: /p -> /q -> /r"),
    ),
    (
        _with(status=302, reason="redirect", redirect_to=f"{SITE}/q"),
        ("listed-redirect", f"HTTP 302 to {SITE}/q"),
    ),
    (
        _with(status=200, reason="redirect", redirect_to=f"{SITE}/q"),
        ("listed-redirect", f"meta refresh to {SITE}/q"),
    ),
    (_with(status=404, reason="http-404"), ("listed-error", "HTTP 404")),
    (
        _with(status=None, reason="timeout", detail="30 s"),
        ("listed-error", "timeout (30 s)"),
    ),
    (
        _with(reason="noindex"),
        ("listed-noindex", "the page says noindex (meta robots or X-Robots-Tag)"),
    ),
    (
        _with(reason="canonicalised-to", canonical=f"{SITE}/c"),
        ("listed-canonicalised", f"canonical is {SITE}/c"),
    ),
    (
        _with(reason="not-html", content_type="application/pdf"),
        ("listed-not-html", "Content-Type application/pdf"),
    ),
    (_with(reason="not-html", content_type=None), ("listed-not-html", "Content-Type missing")),
    (
        _with(reason="too-large", detail="over 10 MB"),
        ("listed-unverified", "fetched but too large to judge (over 10 MB)"),
    ),
    (_with(inlinks=0), ("listed-orphan", "no crawled page links to it")),
    (_with(inlinks=0, listed=_listed(f"{SITE}/")), None),
]


@pytest.mark.parametrize(("facts", "verdict"), CASES)
def test_each_row_earns_the_first_code_that_applies(
    store: AuditStore, facts: ListedFacts, verdict: tuple[str, str] | None
) -> None:
    assert fate(_ctx(store), facts) == verdict


def test_a_url_the_crawl_never_saw_says_why(store: AuditStore) -> None:
    unseen = _with(state=None, status=None, indexable=False, inlinks=0)
    assert fate(_ctx(store, stopped_by="max-pages"), unseen) == (
        "listed-unverified",
        "not fetched: the audit stopped at max-pages",
    )
    assert fate(_ctx(store), unseen) == (
        "listed-unverified",
        "not fetched: the audit stopped at its limits",
    )
    assert fate(_ctx(store, offline=True), unseen) == (
        "listed-unverified",
        "the crawl never saw it (offline audit: not fetched)",
    )


def test_a_redirect_shows_the_recorded_chain_and_its_end(store: AuditStore) -> None:
    added = store.add_urls([NewUrl(f"{SITE}/p", 0, None)])
    url_id = added[f"{SITE}/p"][0]
    store.finish(url_id, Outcome(status=301, reason="redirect", redirect_to=f"{SITE}/q"))
    store.add_redirect(url_id, 1, f"{SITE}/q", 301)
    store.add_redirect(url_id, 2, f"{SITE}/r", 302)
    store.commit()
    moved = _with(url_id=url_id, status=301, reason="redirect", redirect_to=f"{SITE}/q")
    assert fate(_ctx(store), moved) == (
        "listed-redirect",
        f"301 {SITE}/q -> 302 {SITE}/r (ends at {SITE}/r)",
    )
