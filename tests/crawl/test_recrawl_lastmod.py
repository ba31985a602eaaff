"""lastmod over runs: it moves for exactly the pages whose content changed (issue 12)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from crawl.changing_site import EPOCH, ChangingSite, serve_changing
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.engine import Crawler
from sitemapkit.store import iter_page_records
from sitemapkit.store.sqlite import SqliteStore

PAGES = 20
TEXT = [f"/p{i}" for i in (3, 11)]  # 10% change their text
BOILER = [f"/p{i}" for i in (5, 17)]  # 10% change only boilerplate


def body(i: int, *, text: str = "", footer: str = "2024-01-01T00:00:00Z", build: str = "a1") -> str:
    return (
        f"<!doctype html><html><head><title>Page {i}</title>"
        f'<meta name="csrf-token" content="tok-{build}"><script src="/app.{build}.js"></script>'
        f'</head><body><p>Text of page {i}. {text}</p><a href="/">home</a>'
        f'<input type="hidden" name="csrf" value="tok-{build}">'
        f"<footer>Generated at {footer}</footer></body></html>"
    )


@pytest.fixture
def site() -> Iterator[ChangingSite]:
    pages = {f"/p{i}": body(i) for i in range(PAGES)}
    pages["/"] = "<html><body>" + "".join(f'<a href="/p{i}">{i}</a>' for i in range(PAGES))
    with serve_changing(ChangingSite(pages=pages)) as served:
        yield served


def crawl(site: ChangingSite, db: Path) -> None:
    store = SqliteStore(db)
    try:
        asyncio.run(Crawler(CrawlConfig(site.base + "/"), store).run())
    finally:
        store.close()


def change(site: ChangingSite, *, moved: float | None) -> None:
    """The text group changes its words, the boilerplate group only its stamp and build."""
    for path in TEXT:
        i = int(path[2:])
        site.pages[path] = body(i, text="Now with news.")
    for path in BOILER:
        i = int(path[2:])
        site.pages[path] = body(i, footer="2024-09-09T09:09:09Z", build="b2")
    if moved is not None:  # a rebuild moves the file time of every page it wrote
        for path in (*TEXT, *BOILER):
            site.modified[path] = moved


def lastmods(db: Path, base: str) -> dict[str, tuple[str | None, str | None]]:
    return {
        r.url.removeprefix(base): (r.lastmod, r.lastmod_source)
        for r in iter_page_records(db)
        if r.url.removeprefix(base).startswith("/p")
    }


def run_start(db: Path) -> str:
    store = SqliteStore(db, mode="read")
    try:
        started = store.runs()[-1].started_at
    finally:
        store.close()
    return datetime.fromtimestamp(int(started), UTC).isoformat().replace("+00:00", "Z")


def test_last_modified_moves_lastmod_only_where_the_content_changed(
    site: ChangingSite, db_path: Path
) -> None:
    crawl(site, db_path)
    first = lastmods(db_path, site.base)
    assert set(first.values()) == {("2024-01-01T00:00:00Z", "last-modified")}
    change(site, moved=EPOCH + 86_400 * 30)
    crawl(site, db_path)
    after = lastmods(db_path, site.base)
    moved = {path for path, value in after.items() if value != first[path]}
    assert moved == set(TEXT)
    assert after[TEXT[0]] == ("2024-01-31T00:00:00Z", "last-modified")


def test_without_dates_lastmod_is_the_run_that_saw_the_change(
    site: ChangingSite, db_path: Path
) -> None:
    site.last_modified = False
    crawl(site, db_path)
    assert set(lastmods(db_path, site.base).values()) == {(None, None)}  # never the crawl time
    change(site, moved=None)
    crawl(site, db_path)
    second = run_start(db_path)
    after = lastmods(db_path, site.base)
    assert {p for p, v in after.items() if v != (None, None)} == set(TEXT)
    assert after[TEXT[1]] == (second, "content-change")
    # a third run over the same content keeps the date of the run that saw the change
    crawl(site, db_path)
    assert lastmods(db_path, site.base) == after


def test_a_stated_date_that_moves_without_a_change_is_kept_and_noted(
    site: ChangingSite, db_path: Path
) -> None:
    def stated(date: str, text: str = "") -> str:
        meta = f'<meta property="article:modified_time" content="{date}">'
        return body(1, text=text).replace("<title>", meta + "<title>", 1)

    site.pages["/p1"] = stated("2024-03-01T00:00:00Z")
    crawl(site, db_path)
    site.pages["/p1"] = stated("2024-08-08T00:00:00Z")  # same content, a new claim
    crawl(site, db_path)
    [record] = [r for r in iter_page_records(db_path) if r.url.endswith("/p1")]
    assert (record.lastmod, record.lastmod_source) == (
        "2024-03-01T00:00:00Z",
        "article:modified_time",
    )
    assert "lastmod-ahead: article:modified_time says 2024-08-08T00:00:00Z" in record.extra["notes"]
    site.pages["/p1"] = stated("2024-09-09T00:00:00Z", text="Really new.")  # a real change
    crawl(site, db_path)
    [record] = [r for r in iter_page_records(db_path) if r.url.endswith("/p1")]
    assert record.lastmod == "2024-09-09T00:00:00Z"
    assert "lastmod-ahead" not in record.extra.get("notes", "")


def test_a_last_modified_that_did_not_move_cannot_date_a_change(
    site: ChangingSite, db_path: Path
) -> None:
    """The text changes but the server's ``Last-Modified`` stays (a page built from a
    template, a counter): the old date cannot be when this change happened, so lastmod is
    the run that saw it, as without a header; lastmod never holds still on a real change."""
    crawl(site, db_path)
    change(site, moved=None)  # the bodies change, their Last-Modified does not
    crawl(site, db_path)
    second = run_start(db_path)
    after = lastmods(db_path, site.base)
    assert {p for p, v in after.items() if v[1] == "content-change"} == set(TEXT)
    assert after[TEXT[0]] == (second, "content-change")
    assert after[BOILER[0]] == ("2024-01-01T00:00:00Z", "last-modified")
    crawl(site, db_path)  # the same content again: the date of the run that saw the change
    assert lastmods(db_path, site.base) == after
