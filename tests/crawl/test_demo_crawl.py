"""The engine against the bundled demo site: every expected URL, reason, lastmod, image."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.engine import Crawler, sitemap_entries
from sitemapkit.demo import expected as ex
from sitemapkit.demo.server import HITS, start_demo_server
from sitemapkit.store import iter_page_records
from sitemapkit.store.sqlite import SqliteStore


async def crawl_demo(db: Path, **options: object) -> tuple[str, web.AppRunner]:
    runner, base = await start_demo_server()
    store = SqliteStore(db)
    try:
        await Crawler(CrawlConfig(base, **options), store).run()  # type: ignore[arg-type]
    finally:
        store.close()
    return base, runner


async def test_demo_crawl_matches_the_expected_results(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite"
    base, runner = await crawl_demo(db, images=True)
    try:
        hits = runner.app[HITS]
        store = SqliteStore(db)
        entries = {e.loc: e for e in sitemap_entries(store, images=True)}
        store.close()
        assert set(entries) == ex.sitemap_urls(base)
        records = {r.url: r for r in iter_page_records(db)}
        for url, reason in ex.excluded(base).items():
            assert records[url].reason == reason, url
        for url, record in records.items():
            if record.reason is None:
                assert url in entries
            elif url not in ex.excluded(base):
                allowed = ex.may_appear_reasons(base, url)
                assert allowed is not None, f"{url}: unexpected row ({record.reason})"
                assert record.reason in allowed, url
        for path, (lastmod, source) in ex.LASTMOD.items():
            record = records[ex.absolute(base, path)]
            assert (record.lastmod, record.lastmod_source) == (lastmod, source), path
        lastmod_pages = {ex.absolute(base, p) for p in ex.LASTMOD}
        assert all(e.lastmod is None for u, e in entries.items() if u not in lastmod_pages)
        for path, alts in ex.ALTERNATES.items():
            got = {(a.hreflang, a.href) for a in entries[ex.absolute(base, path)].alternates}
            assert got == {(h, ex.absolute(base, p)) for h, p in alts}
        for path, images in ex.IMAGES.items():
            got_images = tuple(i.loc for i in entries[ex.absolute(base, path)].images)
            assert got_images == tuple(ex.absolute(base, p) for p in images), path
        for path, title in ex.TITLES.items():
            assert records[ex.absolute(base, path)].title == title
        for path in ex.NEVER_FETCHED:
            assert hits[path.split("?")[0]] == 0 or "?" in path, path
        for spelling in ex.NORMALISED_AWAY:
            assert ex.absolute(base, spelling) not in records
        assert hits["/robots.txt"] == 1
    finally:
        await runner.cleanup()


async def test_seed_from_sitemaps_finds_orphans(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite"
    base, runner = await crawl_demo(db, seed_from_sitemaps=True)
    try:
        store = SqliteStore(db)
        locs = {e.loc for e in sitemap_entries(store)}
        store.close()
        assert locs == ex.sitemap_urls(base) | {ex.absolute(base, p) for p in ex.SITEMAP_ONLY}
    finally:
        await runner.cleanup()
