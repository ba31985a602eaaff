"""``--render`` in the crawl: links only scripts make are crawled, and each page says how.

Real crawls (the engine, its store, its politeness) of the JavaScript test site
on 127.0.0.1, with real Chromium.  One browser launch per rendering crawl.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.engine import Crawler, CrawlResult
from sitemapkit.model import PageRecord
from sitemapkit.store.sqlite import SqliteStore

from .app_site import AppSite, serve_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site() -> Iterator[AppSite]:
    with serve_app() as served:
        yield served


def crawl(site: AppSite, db: Path, render: str) -> tuple[CrawlResult, dict[str, PageRecord]]:
    store = SqliteStore(db)
    try:
        config = CrawlConfig(site.base + "/", render=render, render_timeout=5.0)
        result = asyncio.run(Crawler(config, store).run())
        records = {r.url.removeprefix(site.base): r for r in store.page_records()}
        return result, records
    finally:
        store.close()


RENDERED_ONLY = {"/app/one", "/app/two", "/app/three?a=1&b=2", "/app/area"}


def test_never_sees_only_the_shell(site: AppSite, tmp_path: Path) -> None:
    result, records = crawl(site, tmp_path / "never.sqlite", "never")
    assert result.start_ok
    assert set(records) == {"/"}
    assert "render" not in records["/"].extra


def test_always_crawls_what_scripts_link_to(site: AppSite, tmp_path: Path) -> None:
    result, records = crawl(site, tmp_path / "always.sqlite", "always")
    assert result.start_ok
    assert set(records) == {"/", "/app/home", *RENDERED_ONLY}
    home = records["/"]
    assert home.extra["render"] == "rendered"
    assert home.extra["render_why"] == "always"
    assert set(home.extra["rendered_links"].split()) == {
        site.base + p for p in RENDERED_ONLY
    }  # the canonical is not a link: it is recorded as the canonical
    # the canonical the script set decides, as in the raw HTML it would
    assert home.reason == "canonicalised-to"
    assert home.canonical == site.base + "/app/home"
    for path in RENDERED_ONLY:
        assert records[path].indexable, path
        assert records[path].extra["render"] == "rendered"
        assert records[path].extra["found_from"] == site.base + "/"
        assert records[path].extra["rendered_links"] == ""


def test_auto_renders_the_shell_and_samples_the_section(site: AppSite, tmp_path: Path) -> None:
    result, records = crawl(site, tmp_path / "auto.sqlite", "auto")
    assert result.start_ok
    assert set(records) == {"/", "/app/home", *RENDERED_ONLY}  # the same URLs as always
    assert records["/"].extra["render_why"] == "app-shell"
    app = [r for path, r in records.items() if path.startswith("/app/")]
    sampled = [r for r in app if "render" in r.extra]
    # /app/ pages are server-rendered: three samples found nothing new, the rest were not rendered
    assert len(sampled) == 3
    assert {r.extra["render_why"] for r in sampled} == {"section-sample"}
    assert all(r.extra["rendered_links"] == "" for r in sampled)
