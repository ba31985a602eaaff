"""The demo site crawled with ``--render auto``: its lamp finder is found, the rest is unchanged
and not rendered at all (no page of it looks built by scripts).

The expected answer is the demo's own (:mod:`sitemapkit.demo.expected`) plus its
rendering part; one real Chromium for the crawl.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.engine import Crawler, sitemap_entries
from sitemapkit.demo import expected as ex
from sitemapkit.demo.server import HITS, start_demo_server
from sitemapkit.store.sqlite import SqliteStore

pytestmark = pytest.mark.browser


async def test_demo_with_render_auto_finds_the_script_built_section(tmp_path: Path) -> None:
    runner, base = await start_demo_server()
    store = SqliteStore(tmp_path / "demo.sqlite")
    try:
        config = CrawlConfig(base, render="auto", render_timeout=8.0)
        crawler = Crawler(config, store)
        await crawler.run()
        locs = {e.loc for e in sitemap_entries(store)}
        records = {r.url: r for r in store.page_records()}
    finally:
        store.close()
        hits = runner.app[HITS]
        await runner.cleanup()
    rendered_paths = {ex.absolute(base, p) for p in ex.RENDERED_SITEMAP_PATHS}
    assert locs == ex.sitemap_urls(base) | rendered_paths
    for path, reason in {**ex.excluded(base), **ex.RENDERED_EXCLUDED}.items():
        assert records[ex.absolute(base, path)].reason == reason, path
    assert records[ex.absolute(base, "/app/compare.html")].canonical == ex.absolute(
        base, "/app/desk.html"
    )  # set by script
    shell = records[ex.absolute(base, "/app/")]
    assert shell.extra["render"] == "rendered"
    assert shell.extra["render_why"] == "app-shell"
    assert set(shell.extra["rendered_links"].split()) == {
        ex.absolute(base, p)
        for p in ("/app/desk.html", "/app/floor.html", "/app/compare.html", "/app/live.html")
    }
    for path in ex.RENDER_TIMEOUT_PATHS:
        assert records[ex.absolute(base, path)].extra["render"] == "render-timeout", path
    # the server-rendered pages are not rendered, not even a sample of them
    rendered = {r.url for r in records.values() if "render" in r.extra}
    assert rendered == {ex.absolute(base, p) for p in ("/app/", *ex.RENDERED_SITEMAP_PATHS)} | {
        ex.absolute(base, p) for p in ex.RENDERED_EXCLUDED
    }
    assert {r.extra["render_why"] for r in records.values() if "render" in r.extra} == {"app-shell"}
    assert crawler.renderer is not None
    assert crawler.renderer.pool.launches == 1
    assert hits["/robots.txt"] == 1  # rendering asked robots.txt through the crawl's cache
    assert hits["/private/salaries.html"] == 0
