"""Crawling the same store again: a new run, history kept (issue 12), on a real local site."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawl.changing_site import EPOCH, ChangingSite, page, serve_changing
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.engine import Crawler, CrawlResult, sitemap_entries
from sitemapkit.errors import StoreError
from sitemapkit.store import iter_page_records
from sitemapkit.store.sqlite import SqliteStore


@pytest.fixture
def changing() -> Iterator[ChangingSite]:
    site = ChangingSite(
        pages={
            "/": page("Home", "/a", "/b", "/c"),
            "/a": page("A", "/"),
            "/b": page("B", "/a"),
            "/c": page("C"),
        }
    )
    with serve_changing(site) as served:
        yield served


def run(site: ChangingSite, db: Path, *, resume: bool = False, **kw: object) -> CrawlResult:
    store = SqliteStore(db)
    try:
        config = CrawlConfig(site.base + "/", **kw)  # type: ignore[arg-type]
        return asyncio.run(Crawler(config, store, backoff_base=0.05).run(resume=resume))
    finally:
        store.close()


def sitemap(db: Path, base: str) -> list[str]:
    store = SqliteStore(db, mode="read")
    try:
        return [e.loc.removeprefix(base) for e in sitemap_entries(store)]
    finally:
        store.close()


def run_states(db: Path) -> list[str]:
    store = SqliteStore(db, mode="read")
    try:
        return [r.state for r in store.runs()]
    finally:
        store.close()


def test_second_crawl_is_a_new_run_that_drops_unlinked_and_adds_new_pages(
    changing: ChangingSite, db_path: Path
) -> None:
    run(changing, db_path)
    assert sitemap(db_path, changing.base) == ["/", "/a", "/b", "/c"]
    changing.pages["/"] = page("Home", "/a", "/b", "/d")  # /c unlinked, /d new
    changing.pages["/d"] = page("D")
    changing.reset_counts()
    result = run(changing, db_path)
    assert result.start_ok
    assert run_states(db_path) == ["finished", "finished"]
    assert sitemap(db_path, changing.base) == ["/", "/a", "/b", "/d"]
    reasons = {r.url.removeprefix(changing.base): r.reason for r in iter_page_records(db_path)}
    assert reasons["/c"] == "unlinked"
    assert changing.hits["/c"] == 0
    # every page still linked was visited again, once; links are this run's, not doubled
    assert all(changing.hits[p] == 1 for p in ("/", "/a", "/b", "/d"))
    inlinks = {r.url.removeprefix(changing.base): r.inlinks for r in iter_page_records(db_path)}
    assert inlinks["/a"] == 2  # from / and /b, counted once each


def test_a_page_linked_again_returns_to_the_sitemap(changing: ChangingSite, db_path: Path) -> None:
    run(changing, db_path)
    changing.pages["/"] = page("Home", "/a", "/b")
    run(changing, db_path)
    assert "/c" not in sitemap(db_path, changing.base)
    changing.pages["/"] = page("Home", "/a", "/b", "/c")
    run(changing, db_path)
    assert sitemap(db_path, changing.base) == ["/", "/a", "/b", "/c"]
    assert run_states(db_path) == ["finished"] * 3


def test_resume_continues_the_stopped_run_and_new_run_waits_for_an_unfinished_one(
    changing: ChangingSite, db_path: Path
) -> None:
    run(changing, db_path)
    stopped = run(changing, db_path, max_pages=2)
    assert stopped.stopped_by == "max-pages"
    assert run_states(db_path) == ["finished", "stopped:max-pages"]
    run(changing, db_path, resume=True)
    assert run_states(db_path) == ["finished", "finished"]
    assert sitemap(db_path, changing.base) == ["/", "/a", "/b", "/c"]
    store = SqliteStore(db_path)
    store.set_meta("state", "running")  # what a crawl killed with -9 leaves behind
    store.close()
    with pytest.raises(StoreError, match=r"did not finish \(running\); continue it with --resume"):
        run(changing, db_path)
    assert len(run_states(db_path)) == 2


def test_recrawl_sends_validators_and_walks_the_site_through_304s(
    changing: ChangingSite, db_path: Path
) -> None:
    changing.pages["/deep"] = page("Deep")
    changing.pages["/c"] = page("C", "/deep")  # reached only through /c
    run(changing, db_path)
    first_bytes = changing.body_bytes
    assert first_bytes > 0
    changing.reset_counts()
    again = run(changing, db_path)
    # nothing changed: every page answered 304, no body was downloaded ...
    assert changing.body_bytes == 0
    assert changing.not_modified == dict.fromkeys(("/", "/a", "/b", "/c", "/deep"), 1)
    assert again.stats.not_modified == 5
    # ... and the stored facts and links carried the crawl to the deepest page
    assert sitemap(db_path, changing.base) == ["/", "/a", "/b", "/c", "/deep"]
    titles = {r.url.removeprefix(changing.base): r.title for r in iter_page_records(db_path)}
    assert titles["/deep"] == "Deep"
    inlinks = {r.url.removeprefix(changing.base): r.inlinks for r in iter_page_records(db_path)}
    assert inlinks["/a"] == 2


def test_a_changed_page_is_downloaded_and_its_new_links_followed(
    changing: ChangingSite, db_path: Path
) -> None:
    run(changing, db_path)
    changing.pages["/b"] = page("B2", "/a", "/e")
    changing.pages["/e"] = page("E")
    changing.reset_counts()
    run(changing, db_path)
    assert changing.not_modified == dict.fromkeys(("/", "/a", "/c"), 1)
    assert changing.body_bytes == len(changing.pages["/b"]) + len(changing.pages["/e"])
    titles = {r.url.removeprefix(changing.base): r.title for r in iter_page_records(db_path)}
    assert titles["/b"] == "B2"
    assert sitemap(db_path, changing.base) == ["/", "/a", "/b", "/c", "/e"]


def test_if_modified_since_alone_is_sent_back(changing: ChangingSite, db_path: Path) -> None:
    """A server without ETags: the stored Last-Modified is the validator sent back."""
    changing.etags = False
    run(changing, db_path)
    changing.reset_counts()
    changing.modified["/a"] = changing.modified.get("/a", EPOCH) + 86_400  # /a changed
    run(changing, db_path)
    assert changing.not_modified == dict.fromkeys(("/", "/b", "/c"), 1)
    assert changing.body_bytes == len(changing.pages["/a"])


def test_a_server_ignoring_validators_still_gives_the_whole_site(
    changing: ChangingSite, db_path: Path
) -> None:
    run(changing, db_path)
    changing.reset_counts()
    changing.conditional = False
    run(changing, db_path)
    assert changing.not_modified == {}
    assert sitemap(db_path, changing.base) == ["/", "/a", "/b", "/c"]


def test_a_304_never_brings_back_a_verdict_of_an_earlier_run(
    changing: ChangingSite, db_path: Path
) -> None:
    run(changing, db_path)
    run(changing, db_path, exclude=("/c",))
    assert "/c" not in sitemap(db_path, changing.base)
    changing.reset_counts()
    run(changing, db_path)
    assert changing.not_modified["/c"] == 0  # fetched in full: its old validators were dropped
    assert sitemap(db_path, changing.base) == ["/", "/a", "/b", "/c"]
