"""The Map view's page is built once per state of the store, not once per visit."""

from __future__ import annotations

from pathlib import Path

from sitemapkit.app.mapcache import MapCache
from sitemapkit.app.pages import store_stamp
from sitemapkit.store import open_store
from sitemapkit.store.base import NewUrl, Outcome


def _store_with(db: Path, *urls: str) -> None:
    store = open_store(str(db), mode="open")
    try:
        added = store.add_urls([NewUrl(u, 0, None) for u in urls])
        for url in urls:
            store.finish(added[url][0], Outcome(status=200, indexable=True, title=url))
        store.commit()
    finally:
        store.close()


def test_the_page_is_built_again_only_when_the_store_changed(tmp_path: Path) -> None:
    db = tmp_path / "crawl.sqlite"
    _store_with(db, "http://a.example/")
    built: list[int] = []

    def build() -> str:
        built.append(1)
        return f"page {len(built)}"

    cache = MapCache()
    assert cache.get(db, build) == "page 1"
    assert cache.get(db, build) == "page 1"
    assert len(built) == 1
    _store_with(db, "http://a.example/new")
    assert cache.get(db, build) == "page 2"
    assert cache.get(db, build) == "page 2"
    assert len(built) == 2


def test_a_reader_elsewhere_does_not_change_the_stamp(tmp_path: Path) -> None:
    """Another view reading the store (its empty WAL appears and goes) is no change."""
    db = tmp_path / "crawl.sqlite"
    _store_with(db, "http://a.example/")
    before = store_stamp(db)
    reader = open_store(str(db), mode="read")
    try:
        reader.counts()
        assert store_stamp(db) == before
    finally:
        reader.close()
    assert store_stamp(db) == before
    _store_with(db, "http://a.example/new")
    assert store_stamp(db) != before
