"""Requests are cut per host and at 10,000 URLs; checked on the wire and as values."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from crawl.changing_site import ChangingSite
from indexnow.conftest import KEY
from indexnow.standin import StandIn
from sitemapkit.indexnow.protocol import batches, key_problem
from sitemapkit.indexnow.submit import Settings, submit
from sitemapkit.limits import INDEXNOW_MAX_URLS
from sitemapkit.store import open_store
from sitemapkit.store.base import CrawlStore, NewUrl, Outcome
from sitemapkit.store.rows import IndexNowChange


def _finished_crawl(db: Path, urls: list[str]) -> CrawlStore:
    """A store whose one finished run put ``urls`` in the sitemap (through the protocol)."""
    store = open_store(db, mode="new")
    store.start_run(1.0)
    ids = store.add_urls([NewUrl(u, 1, None) for u in urls])
    store.claim(len(urls))
    for url in urls:
        store.finish(ids[url][0], Outcome(status=200, indexable=True, fingerprint="f-" + url))
    store.end_run("finished", 2.0)
    store.commit()
    return store


def test_over_10000_urls_go_in_requests_of_at_most_10000(
    site: ChangingSite, standin: StandIn, tmp_path: Path
) -> None:
    urls = [f"{site.base}/p/{i}" for i in range(INDEXNOW_MAX_URLS + 1)]
    store = _finished_crawl(tmp_path / "big.sqlite", urls)
    try:
        results = asyncio.run(submit(store, Settings(KEY, endpoint=standin.endpoint)))
        assert [len(r.batch.changes) for r in results] == [10_000, 1]
        assert all(r.accepted for r in results)
        assert [len(got.urls) for got in standin.accepted] == [10_000, 1]
        assert standin.accepted_urls() == urls
        assert store.indexnow_pending(0, 10) == []
    finally:
        store.close()


def test_each_host_gets_its_own_request_and_its_own_key_file(
    site: ChangingSite, standin: StandIn, tmp_path: Path
) -> None:
    other = f"http://localhost:{site.port}"
    urls = [f"{site.base}/x", f"{other}/y", f"{site.base}/z", f"{other}/w"]
    store = _finished_crawl(tmp_path / "two.sqlite", urls)
    try:
        results = asyncio.run(submit(store, Settings(KEY, endpoint=standin.endpoint)))
    finally:
        store.close()
    assert [(got.host, got.urls) for got in standin.accepted] == [
        ("127.0.0.1", [urls[0], urls[2]]),
        ("localhost", [urls[1], urls[3]]),
    ]
    assert [r.key_location for r in results] == [
        f"{site.base}/{KEY}.txt",
        f"{other}/{KEY}.txt",
    ]


def _change(url_id: int, url: str) -> IndexNowChange:
    return IndexNowChange(url_id, url, "added", "v")


def test_batches_split_by_host_and_limit_in_order_of_first_appearance() -> None:
    changes = [_change(i, f"https://{'ab'[i % 2]}.example/{i}") for i in range(7)]
    cut = list(batches(changes, limit=2))
    assert [(b.host, [c.url_id for c in b.changes]) for b in cut] == [
        ("a.example", [0, 2]),
        ("b.example", [1, 3]),
        ("a.example", [4, 6]),
        ("b.example", [5]),
    ]
    assert cut[0].origin == "https://a.example"


@pytest.mark.parametrize(
    ("key", "ok"),
    [
        ("a" * 8, True),
        ("a" * 128, True),
        ("a" * 7, False),
        ("a" * 129, False),
        ("ab-CD-09", True),
        ("ab cd efg", False),
        ("abcdéfgh", False),
    ],
)
def test_key_format(key: str, ok: bool) -> None:
    assert (key_problem(key) is None) is ok
