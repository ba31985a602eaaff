"""The renderer in real headless Chromium (Debian's) against a real site on 127.0.0.1.

One browser pool for the module (one launch, plus the restart test's); each
test renders the pages it needs.  Nothing is mocked: the pages are served by
aiohttp, the browser is the one users run, and the links are read by the
crawler's own extractor.
"""

from __future__ import annotations

import asyncio
import struct
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from sitemapkit.crawl.extract import PageFacts, extract_page
from sitemapkit.crawl.robots import RobotsPolicy
from sitemapkit.render import Renderer, RenderSettings
from sitemapkit.render.browser import CHROMIUM, BrowserPool
from sitemapkit.render.page import THUMB_SCALE, context_options

from .app_site import ROBOTS, AppSite, serve_app

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="module")]

HEADERS = {"Content-Type": "text/html; charset=utf-8"}


@pytest.fixture(scope="module")
def site() -> Iterator[AppSite]:
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian chromium is missing: run `make system-deps`")
    with serve_app() as served:
        yield served


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pool() -> AsyncIterator[BrowserPool]:
    shared = BrowserPool(concurrency=2)
    yield shared
    await shared.close()


def make_renderer(site: AppSite, pool: BrowserPool, **settings: object) -> Renderer:
    robots = RobotsPolicy.parse(ROBOTS.encode(), url=site.base + "/robots.txt")

    async def allowed(url: str) -> bool:
        return robots.allowed(url, "sitemapkit")

    return Renderer(
        RenderSettings(mode="always", **settings),  # type: ignore[arg-type]
        allowed=allowed,
        pool=pool,
    )


def raw_facts(site: AppSite, name: str) -> tuple[str, bytes, PageFacts]:
    url = f"{site.base}/{name}"
    body = site.html(name).encode()
    return url, body, extract_page(body, url=url, headers=HEADERS)


async def test_links_that_exist_only_after_scripts_run(site: AppSite, pool: BrowserPool) -> None:
    renderer = make_renderer(site, pool)
    url, body, raw = raw_facts(site, "shell")
    assert raw.links == ()  # the raw HTML is an empty shell
    before = site.hits["/shell"]
    done = await renderer.render(url, body, HEADERS, raw, why="always")
    assert done.status == "rendered", done.detail
    base = site.base
    expected = [f"{base}/app/{p}" for p in ("one", "two", "three?a=1&b=2", "area")]
    assert [link.url for link in done.facts.links] == expected  # normalised as the crawler does
    assert [link.kind for link in done.facts.links][-1] == "area"
    assert done.only_rendered == tuple(expected)
    assert done.facts.canonical == f"{base}/app/home"  # set by script
    assert done.facts.canonical_source == "link-rel"
    assert done.facts.title == "App home"
    assert site.hits["/shell"] == before  # the page itself was not downloaded again
    assert site.hits["/static/app.js"] >= 1
    assert site.hits["/api/nav.json"] >= 1


async def test_blocks_images_media_fonts_styles_third_parties_and_robots(
    site: AppSite, pool: BrowserPool
) -> None:
    renderer = make_renderer(site, pool)
    url, body, raw = raw_facts(site, "heavy")
    done = await renderer.render(url, body, HEADERS, raw, why="always")
    assert done.status == "rendered", done.detail
    assert len(done.only_rendered) == 3  # the data the page needed still came
    blocked = done.blocked
    assert blocked["type:image"] >= 2  # <img> and new Image()
    assert blocked["type:media"] >= 1
    assert blocked["type:stylesheet"] == 1
    assert blocked["third-party"] == 1
    assert blocked["robots"] == 1
    for path in ("/static/pic.png", "/static/late.png", "/static/clip.mp4", "/static/site.css"):
        assert site.hits[path] == 0, path
    assert site.hits["/private/secret.js"] == 0
    assert site.hits["/tracker.js"] == 0
    assert site.hosts["localhost"] == 0


async def test_a_page_that_never_settles_is_cut_at_the_timeout(
    site: AppSite, pool: BrowserPool
) -> None:
    renderer = make_renderer(site, pool, timeout=4.0)  # room for a loaded machine
    # endless network (polling every 40 ms) and an endless script, side by side
    url_p, body_p, raw_p = raw_facts(site, "polling")
    url_e, body_e, raw_e = raw_facts(site, "endless")
    started = time.monotonic()
    polling, endless = await asyncio.gather(
        renderer.render(url_p, body_p, HEADERS, raw_p, why="always"),
        renderer.render(url_e, body_e, HEADERS, raw_e, why="always"),
    )
    elapsed = time.monotonic() - started
    assert polling.status == "render-timeout"
    assert endless.status == "render-timeout"
    assert polling.detail == "not settled after 4 s"
    # what the polling page had built by the cut is kept; the frozen page keeps its raw links
    assert polling.only_rendered == (f"{site.base}/polling/found",)
    assert [link.url for link in endless.facts.links] == [f"{site.base}/endless/raw"]
    assert elapsed < 30  # bounded (a sanity guard, not a timing assertion)
    # and the browser is still good for the next page
    url, body, raw = raw_facts(site, "shell")
    after = await renderer.render(url, body, HEADERS, raw, why="always")
    assert after.status == "rendered"
    assert renderer.counts == {"render-timeout": 2, "rendered": 1}


async def test_dialogs_popups_downloads_and_navigation_are_dismissed(
    site: AppSite, pool: BrowserPool
) -> None:
    renderer = make_renderer(site, pool)
    url, body, raw = raw_facts(site, "rude")
    done = await renderer.render(url, body, HEADERS, raw, why="always")
    assert done.status == "rendered", done.detail
    base = site.base
    links = [link.url for link in done.facts.links]
    assert f"{base}/rude/after-dialogs" in links  # the script ran on past three dialogs
    assert site.hits["/popup-target"] == 0
    assert site.hits["/static/file.zip"] == 0
    assert site.hits["/rude/moved"] == 0  # the page was not taken away ...
    assert f"{base}/rude/moved" in links  # ... but where it wanted to go is a link


async def test_script_noindex_counts_and_a_raw_noindex_is_never_rendered(
    site: AppSite, pool: BrowserPool
) -> None:
    renderer = make_renderer(site, pool)
    url, body, raw = raw_facts(site, "late-noindex")
    assert not raw.noindex
    done = await renderer.render(url, body, HEADERS, raw, why="always")
    assert done.facts.noindex
    noindex_raw = extract_page(
        b"<html><head><meta name=robots content=noindex></head><body><div id=root></div>",
        url=url,
        headers=HEADERS,
    )
    assert await renderer.decide(url, b"", noindex_raw) is None


async def test_concurrency_is_bounded_and_the_browser_restarts(site: AppSite) -> None:
    pool = BrowserPool(concurrency=2, restart_every=3)
    try:
        renderer = make_renderer(site, pool)
        url, body, raw = raw_facts(site, "shell")
        results = await asyncio.gather(
            *(renderer.render(url, body, HEADERS, raw, why="always") for _ in range(7))
        )
        assert [r.status for r in results] == ["rendered"] * 7
        assert all(len(r.only_rendered) == 4 for r in results)
        assert pool.peak_active == 2
        assert pool.launches == 3  # pages 1-3, 4-6, 7
        assert pool.tabs_opened == 5  # two tabs per browser, reused: 2 + 2 + 1
    finally:
        await pool.close()


async def test_a_tab_is_replaced_after_its_pages(site: AppSite) -> None:
    """A reused tab's renderer grows page by page: it is closed after ``tab_pages``."""
    pool = BrowserPool(concurrency=1, tab_pages=4)
    try:
        renderer = make_renderer(site, pool)
        url, body, raw = raw_facts(site, "shell")
        for _ in range(9):
            done = await renderer.render(url, body, HEADERS, raw, why="always")
            assert len(done.only_rendered) == 4
        assert pool.launches == 1
        assert pool.tabs_opened == 3  # pages 1-4, 5-8, 9
    finally:
        await pool.close()


async def test_a_thumbnail_is_a_jpeg_of_the_first_screen(site: AppSite) -> None:
    pool = BrowserPool(concurrency=1, context_options=context_options(thumbnails=True))
    try:
        renderer = make_renderer(site, pool)
        url, body, raw = raw_facts(site, "shell")
        done = await renderer.render(url, body, HEADERS, raw, why="always", thumbnail=True)
        assert done.status == "rendered"
        shot = done.thumbnail
        assert shot is not None
        assert shot[:3] == b"\xff\xd8\xff"  # JPEG
        # the SOF0 marker holds the size: 1280x800 CSS pixels at THUMB_SCALE
        sof = shot.index(b"\xff\xc0")
        height, width = struct.unpack(">HH", shot[sof + 5 : sof + 9])
        assert (width, height) == (round(1280 * THUMB_SCALE), round(800 * THUMB_SCALE))
        assert len(shot) < 30_000
    finally:
        await pool.close()
