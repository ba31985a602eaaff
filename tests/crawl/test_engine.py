"""The crawl engine against a real local website with every pitfall (tests/crawl/fixture_site)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from crawl.fixture_site import (
    EXPECTED_REASONS,
    EXPECTED_SITEMAP_PATHS,
    FixtureSite,
    assert_levels_kept,
    serve_handler,
    slow_branch_site,
)
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.engine import Crawler, CrawlResult, sitemap_entries
from sitemapkit.store import iter_page_records
from sitemapkit.store.sqlite import SqliteStore

SMALL_BODY = 1024 * 1024


def run(config: CrawlConfig, db: Path, *, resume: bool = False) -> CrawlResult:
    store = SqliteStore(db)
    try:
        crawler = Crawler(config, store, backoff_base=0.05)
        return asyncio.run(crawler.run(resume=resume))
    finally:
        store.close()


def sitemap_paths(db: Path, base: str) -> set[str]:
    store = SqliteStore(db)
    try:
        return {e.loc.removeprefix(base) for e in sitemap_entries(store)}
    finally:
        store.close()


def reasons(db: Path, base: str) -> dict[str, str | None]:
    return {r.url.removeprefix(base): r.reason for r in iter_page_records(db)}


def test_fixture_site_gives_the_exact_sitemap_and_reasons(site: FixtureSite, db_path: Path) -> None:
    result = run(CrawlConfig(site.base + "/", max_body=SMALL_BODY), db_path)
    assert result.start_ok
    assert sitemap_paths(db_path, site.base) == EXPECTED_SITEMAP_PATHS
    got = reasons(db_path, site.base)
    for path, reason in EXPECTED_REASONS.items():
        assert got.get(path) == reason, path
    assert got["http://other.invalid/page"] == "out-of-scope"
    # tracking parameters and fragments never make a second URL
    assert not any("utm_" in u or "#" in u for u in got)
    # robots.txt was read once, and 429 was retried after Retry-After
    assert site.hits["/robots.txt"] == 1
    assert site.hits["/busy"] == 2
    # nothing beyond the chain limit or the calendar limit was fetched
    assert site.hits["/chain/11"] == 0
    assert site.hits["/calendar/2025/01"] == 0
    # each page fetched once, however often it is linked
    assert site.hits["/about"] == 1
    assert all(ua.startswith("sitemapkit/") for ua in site.user_agents)


def test_records_carry_lastmod_source_redirects_and_inlinks(
    site: FixtureSite, db_path: Path
) -> None:
    run(CrawlConfig(site.base + "/", max_body=SMALL_BODY), db_path)
    records = {r.url.removeprefix(site.base): r for r in iter_page_records(db_path)}
    home = records["/"]
    assert (home.lastmod, home.lastmod_source) == ("2024-05-01T10:00:00Z", "article:modified_time")
    post = records["/blog/post-1"]
    assert (post.lastmod, post.lastmod_source) == ("2024-01-02T03:04:05Z", "last-modified")
    assert records["/blog/"].lastmod is None  # unknown stays unknown, never the crawl time
    old = records["/old"]
    assert (old.status, old.redirect_to) == (301, site.base + "/new")
    assert records["/about"].inlinks >= 3  # home, canon-dup's canonical, /relative/
    assert records["/canon-dup"].canonical == site.base + "/about"
    assert records["/"].depth == 0
    assert records["/blog/post-1"].depth == 2
    assert records["/new"].depth == 1  # a redirect is not a click deeper


def test_alternates_and_images_reach_the_sitemap(site: FixtureSite, db_path: Path) -> None:
    run(CrawlConfig(site.base + "/", max_body=SMALL_BODY, images=True), db_path)
    store = SqliteStore(db_path)
    try:
        entries = {e.loc: e for e in sitemap_entries(store, images=True)}
    finally:
        store.close()
    en = entries[site.base + "/lang/en"]
    assert {(a.hreflang, a.href) for a in en.alternates} == {
        ("en", site.base + "/lang/en"),
        ("de", site.base + "/lang/de"),
    }


def test_ignore_robots_and_follow_nofollow(site: FixtureSite, db_path: Path) -> None:
    config = CrawlConfig(
        site.base + "/", max_body=SMALL_BODY, respect_robots=False, follow_nofollow=True
    )
    run(config, db_path)
    paths = sitemap_paths(db_path, site.base)
    assert {"/script.php", "/nofollow-target"} <= paths
    assert reasons(db_path, site.base)["/private/secret"] == "http-404"
    assert site.hits["/robots.txt"] == 0


def test_scope_patterns_and_depth(site: FixtureSite, db_path: Path) -> None:
    config = CrawlConfig(site.base + "/", max_body=SMALL_BODY, exclude=(r"/blog/",), max_depth=1)
    run(config, db_path)
    got = reasons(db_path, site.base)
    assert got["/blog/"] == "out-of-scope"
    assert "/blog/post-1" not in got
    assert got["/calendar/2024/02"] == "trap-depth"
    assert got["/about"] is None


def test_start_url_failure_is_reported(site: FixtureSite, db_path: Path) -> None:
    result = run(CrawlConfig(site.base + "/missing"), db_path)
    assert not result.start_ok
    assert result.start_problem == "http-404"


def test_start_redirect_to_another_origin_is_followed(site: FixtureSite, db_path: Path) -> None:
    # localhost -> 127.0.0.1: the site lives where its start URL redirects to.
    result = run(CrawlConfig(f"http://localhost:{site.port}/to-ip"), db_path)
    assert result.start_ok
    got = reasons(db_path, f"http://localhost:{site.port}")
    assert got["/to-ip"] == "redirect"
    assert got[site.base + "/about"] is None
    assert got[site.base + "/"] is None  # linked from /about, in the adopted origin


def test_max_pages_then_resume_finishes_the_same_crawl(
    site: FixtureSite, db_path: Path, tmp_path: Path
) -> None:
    full = tmp_path / "full.sqlite"
    run(CrawlConfig(site.base + "/", max_body=SMALL_BODY), full)
    site.busy_left = 1
    first = run(CrawlConfig(site.base + "/", max_body=SMALL_BODY, max_pages=10), db_path)
    assert first.stopped_by == "max-pages"
    assert first.stats.taken == 10
    left = reasons(db_path, site.base)
    assert "not-crawled" in left.values()
    store = SqliteStore(db_path)
    store.set_meta("config", CrawlConfig(site.base + "/", max_body=SMALL_BODY).to_json())
    store.close()
    second = run(CrawlConfig(site.base + "/", max_body=SMALL_BODY), db_path, resume=True)
    assert second.stopped_by is None
    assert sitemap_paths(db_path, site.base) == sitemap_paths(full, site.base)
    assert "not-crawled" not in reasons(db_path, site.base).values()


def test_a_store_holding_another_crawl_is_refused(site: FixtureSite, db_path: Path) -> None:
    from sitemapkit.errors import StoreError

    run(CrawlConfig(site.base + "/about", max_body=SMALL_BODY), db_path)
    # The same start URL again is a new run (tests/crawl/test_recrawl.py); another is refused.
    with pytest.raises(StoreError, match="already holds a crawl"):
        run(CrawlConfig(site.base + "/"), db_path)


def test_max_duration_stops_and_resume_completes(site: FixtureSite, db_path: Path) -> None:
    first = run(CrawlConfig(site.base + "/", max_duration=0.0), db_path)
    assert first.stopped_by == "max-duration"
    assert first.stats.fetched == 0
    assert set(reasons(db_path, site.base).values()) == {"not-crawled"}
    store = SqliteStore(db_path)
    store.set_meta("config", CrawlConfig(site.base + "/").to_json())
    store.close()
    second = run(CrawlConfig(site.base + "/"), db_path, resume=True)
    assert second.start_ok
    assert sitemap_paths(db_path, site.base) == EXPECTED_SITEMAP_PATHS


def test_seed_from_sitemaps_without_any_sitemap_still_crawls(
    site: FixtureSite, db_path: Path
) -> None:
    result = run(CrawlConfig(site.base + "/", seed_from_sitemaps=True), db_path)
    assert result.start_ok
    assert sitemap_paths(db_path, site.base) == EXPECTED_SITEMAP_PATHS
    assert site.hits["/sitemap.xml"] == 1


@pytest.mark.parametrize("workers", [1, 2])
def test_depth_is_the_shortest_link_path_whatever_answers_first(
    workers: int, db_path: Path
) -> None:
    """A level at a time: ``/x`` is at depth 2 and within ``--max-depth 2``, though the
    deeper page linking it (``/deep``) was ready to be fetched long before ``/slow``."""
    log: list[str] = []
    with serve_handler(slow_branch_site(log)) as port:
        base = f"http://127.0.0.1:{port}"
        config = CrawlConfig(
            base + "/", max_depth=2, concurrency=4, workers=workers, render="never"
        )
        assert run(config, db_path).start_ok
    assert_levels_kept(db_path, base, log)
    assert "/x" in sitemap_paths(db_path, base)
