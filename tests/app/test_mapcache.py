"""The Map view's page is built once per state of the store, not once per visit."""

from __future__ import annotations

from pathlib import Path

from sitemapkit.app.mapcache import MapCache
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
