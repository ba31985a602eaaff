"""Change records (issue 12): a row per URL and run only when a fact changed."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawl.changing_site import ChangingSite, page, serve_changing
from sitemapkit.cli import main
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.engine import Crawler
from sitemapkit.store.sqlite import SqliteStore
from store.old_schema import store_at_version


@pytest.fixture
def site() -> Iterator[ChangingSite]:
    pages = {"/": page("Home", *(f"/p{i}" for i in range(30)))}
    pages.update({f"/p{i}": page(f"P{i}", "/") for i in range(30)})
    with serve_changing(ChangingSite(pages=pages)) as served:
        yield served


def crawl(site: ChangingSite, db: Path) -> None:
    store = SqliteStore(db)
    try:
        asyncio.run(Crawler(CrawlConfig(site.base + "/"), store).run())
    finally:
        store.close()


def test_a_recrawl_where_nothing_changed_writes_no_change_record(
    site: ChangingSite, tmp_path: Path
) -> None:
    db = tmp_path / "s.sqlite"
    crawl(site, db)
    crawl(site, db)
    site.pages["/p4"] = page("P4 again", "/")
    crawl(site, db)
    store = SqliteStore(db, mode="read")
    try:
        assert len(list(store.facts_at(1))) == 31
        assert list(store.changes_between(1, 2)) == []  # no row for run 2 at all
        [(url, before, after)] = list(store.changes_between(2, 3))
        assert url == site.base + "/p4"
        assert before is not None
        assert after is not None
        assert (before.run, before.title, after.run, after.title) == (1, "P4", 3, "P4 again")
        assert before.fingerprint != after.fingerprint
        # the state at run 2 is still run 1's record
        assert [f.title for f in store.facts_at(2) if f.url.endswith("/p4")] == ["P4"]
        assert all(run.tracked for run in store.runs())
    finally:
        store.close()


def test_a_store_made_before_change_records_knows_only_its_last_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "old.sqlite"
    store_at_version(
        path,
        9,
        "INSERT INTO runs(id, started_at, ended_at, state) VALUES "
        "(1, 1700000000, 1700000100, 'finished'), (2, 1700001000, 1700001100, 'finished');"
        "INSERT INTO urls(url, depth, state, status, indexable, title) VALUES "
        "('http://x.test/', 0, 2, 200, 1, 'Home'), "
        "('http://x.test/gone', 1, 2, 200, 0, 'Gone');"
        "UPDATE urls SET reason = 'unlinked' WHERE url = 'http://x.test/gone';",
    )
    store = SqliteStore(path, mode="read")  # upgraded on open
    try:
        assert [run.tracked for run in store.runs()] == [False, True]
        assert [(f.url, f.run, f.title) for f in store.facts_at(2)] == [
            ("http://x.test/", 2, "Home")
        ]
    finally:
        store.close()
    assert main(["diff", "--db", str(path), "1", "2"]) == 2
    assert (
        "run 1 was made before sitemapkit recorded changes per run; runs 2 and later can "
        "be compared" in capsys.readouterr().err
    )
