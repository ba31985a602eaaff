"""Every pitfall of the demo server answers as documented in its module and expected.py."""

from __future__ import annotations

import asyncio
import time
import urllib.request

import aiohttp
import pytest
from aiohttp import web
from yarl import URL

from sitemapkit.crawl.robots import RobotsPolicy
from sitemapkit.demo import expected
from sitemapkit.demo.server import (
    CHANGELOG_ENTRIES,
    HITS,
    REDIRECTS,
    SITE_DIR,
    SLOW_SECONDS,
    serve_demo,
)

Demo = tuple[web.AppRunner, str]


async def get(base: str, path: str) -> tuple[int, dict[str, str], bytes]:
    async with (
        aiohttp.ClientSession() as http,
        http.get(URL(base.rstrip("/") + path, encoded=True), allow_redirects=False) as resp,
    ):
        return resp.status, dict(resp.headers), await resp.read()


async def test_base_url_and_home(demo: Demo) -> None:
    _, base = demo
    assert base.startswith("http://127.0.0.1:")
    assert base.endswith("/")
    status, headers, body = await get(base, "/")
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert b"Northwind Lamps" in body
    assert "Last-Modified" not in headers  # never the file time
    host = base.split("//", 1)[1].rstrip("/")
    assert f"HTTP://{host}/contact.html".encode() in body  # __HOST__ filled in


async def test_robots_txt(demo: Demo) -> None:
    _, base = demo
    status, _, body = await get(base, "/robots.txt")
    assert status == 200
    policy = RobotsPolicy.from_response(status, body, url=base + "robots.txt")
    ua = "sitemapkit/0.1"
    assert not policy.allowed(base + "private/salaries.html", ua)
    assert policy.allowed(base + "private/press-kit.html", ua)
    assert not policy.allowed(base + "blog/drafts/new-lamp.html", ua)
    assert not policy.allowed(base + "blog/2026/lighting-tips.html?print=1", ua)
    assert policy.allowed(base + "blog/2026/lighting-tips.html?print=10", ua)
    assert not policy.allowed(base + "about/", "BadBot/2.0")
    # one Sitemap: parser (read/robots.py): the relative line is resolved, and still invalid
    assert policy.sitemaps == (
        base + "sitemap.xml",
        base + "sitemap-docs.xml",
        base + "relative-sitemap.xml",
    )
    assert policy.invalid_sitemaps == ("/relative-sitemap.xml",)


async def test_site_sitemap_lists_the_orphan(demo: Demo) -> None:
    _, base = demo
    status, headers, body = await get(base, "/sitemap.xml")
    assert status == 200
    assert headers["Content-Type"].startswith("application/xml")
    for path in expected.SITEMAP_ONLY:
        assert f"<loc>{base.rstrip('/')}{path}</loc>".encode() in body


@pytest.mark.parametrize("path", sorted(expected.SITEMAP_PATHS - {"/slow.html"}))
async def test_every_sitemap_page_answers_200_html(demo: Demo, path: str) -> None:
    _, base = demo
    status, headers, body = await get(base, path)
    assert status == 200
    assert headers["Content-Type"].startswith("text/html")
    assert b"<title>" in body


async def test_non_ascii_paths_only_under_their_real_names(demo: Demo) -> None:
    _, base = demo
    assert (await get(base, "/caf%C3%A9/"))[0] == 200
    assert (await get(base, "/%C3%BCber-uns/"))[0] == 200
    assert (await get(base, "/cafe/"))[0] == 404
    assert (await get(base, "/ueber-uns/"))[0] == 404


@pytest.mark.parametrize(("path", "target"), sorted(REDIRECTS.items()))
async def test_redirects(demo: Demo, path: str, target: tuple[int, str]) -> None:
    _, base = demo
    status, headers, _ = await get(base, path)
    code, location = target
    assert status == code
    want = base.rstrip("/") + location if location.startswith("/") else location
    assert headers["Location"] == want


async def test_redirect_shapes() -> None:
    assert REDIRECTS["/loop-a"][1] == "/loop-b"
    assert REDIRECTS["/loop-b"][1] == "/loop-a"
    hops, path = 0, "/chain/1"
    while path in REDIRECTS:
        path = REDIRECTS[path][1]
        hops += 1
    assert hops == 12  # more than limits.MAX_REDIRECTS
    assert path == "/about/"


@pytest.mark.parametrize(
    ("path", "status"),
    [("/products/discontinued.html", 404), ("/status/broken", 500), ("/events/2026/13", 404)],
)
async def test_error_statuses(demo: Demo, path: str, status: int) -> None:
    _, base = demo
    assert (await get(base, path))[0] == status


@pytest.mark.parametrize(
    ("path", "header", "value"),
    [
        ("/thank-you.html", "X-Robots-Tag", "noindex"),
        ("/docs/print-guide.html", "X-Robots-Tag", "googlebot: noindex, nofollow"),
        ("/downloads.html", "X-Robots-Tag", "otherbot: noindex"),
        ("/terms.html", "Last-Modified", "Tue, 03 Mar 2026 08:00:00 GMT"),
        ("/blog/2025/year-in-review.html", "Last-Modified", "Mon, 29 Dec 2025 17:00:00 GMT"),
        ("/docs/catalogue.pdf", "Content-Type", "application/pdf"),
        ("/de/preise.html", "Content-Type", "text/html"),
    ],
)
async def test_headers(demo: Demo, path: str, header: str, value: str) -> None:
    _, base = demo
    assert (await get(base, path))[1][header] == value


async def test_link_header_canonical(demo: Demo) -> None:
    _, base = demo
    _, headers, _ = await get(base, "/products/floor-lamps/beacon-print.html")
    assert headers["Link"] == f'<{base}products/floor-lamps/beacon.html>; rel="canonical"'


async def test_encodings(demo: Demo) -> None:
    _, base = demo
    _, _, latin = await get(base, "/de/preise.html")
    assert b'<meta charset="iso-8859-1">' in latin
    assert "Größen".encode("latin-1") in latin
    with pytest.raises(UnicodeDecodeError):
        latin.decode("utf-8")
    _, _, broken = await get(base, "/blog/2025/broken-utf8.html")
    with pytest.raises(UnicodeDecodeError):
        broken.decode("utf-8")


async def test_calendar_links_next_month_forever(demo: Demo) -> None:
    _, base = demo
    _, _, body = await get(base, "/events/2026/12")
    assert b'href="../2027/1"' in body
    status, _, body = await get(base, "/events/2999/7")
    assert status == 200
    assert b'href="../2999/8"' in body


async def test_facets_link_to_every_combination(demo: Demo) -> None:
    _, base = demo
    _, _, body = await get(base, "/products/all/?color=red&size=m")
    text = body.decode()
    assert '<link rel="canonical" href="/products/all/">' in text
    assert 'href="./?color=blue&size=m"' in text
    assert 'href="./?size=m"' in text  # un-choosing red
    assert 'href="./?color=red&size=m&sort=price"' in text


async def test_repeating_path(demo: Demo) -> None:
    _, base = demo
    for depth in range(1, 5):
        path = "/products/" + "lamps-and-more/" * depth
        status, _, body = await get(base, path)
        assert status == 200
        assert b'href="lamps-and-more/"' in body
    assert (await get(base, "/products/lamps-and-more/other/"))[0] == 404


async def test_huge_page(demo: Demo) -> None:
    _, base = demo
    _, _, body = await get(base, "/docs/changelog.html")
    assert len(body) > 2_000_000
    assert body.count(b"<li ") == CHANGELOG_ENTRIES
    assert body.rstrip().endswith(b"</html>")
    assert b'href="/docs/changelog-archive.html"' in body[-500:]


async def test_malicious_title_is_served_as_markup_text(demo: Demo) -> None:
    _, base = demo
    _, _, body = await get(base, "/blog/2026/xss-title.html")
    assert b"<title>&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in body


async def test_slow_page(demo: Demo) -> None:
    _, base = demo
    start = time.perf_counter()
    status, _, _ = await get(base, "/slow.html")
    assert status == 200
    # a lower bound only: asyncio.sleep never returns early
    assert time.perf_counter() - start >= SLOW_SECONDS * 0.9


@pytest.mark.parametrize(
    "path",
    [
        "/..%2F..%2Fserver.py",
        "/static/..%2F..%2Fserver.py",
        "/%2e%2e/server.py",
        "/cafe/../server.py",
    ],
)
async def test_no_path_traversal(demo: Demo, path: str) -> None:
    _, base = demo
    status, _, body = await get(base, path)
    assert status == 404
    assert b"aiohttp" not in body


async def test_hits_are_counted(demo: Demo) -> None:
    runner, base = demo
    await asyncio.gather(*(get(base, "/about/") for _ in range(3)))
    assert runner.app[HITS]["/about/"] == 3


def test_sync_helper_serves_and_stops() -> None:
    with serve_demo() as base, urllib.request.urlopen(base + "robots.txt", timeout=10) as resp:
        assert resp.status == 200
        assert b"Disallow: /private/" in resp.read()
    with pytest.raises(OSError):
        urllib.request.urlopen(base + "robots.txt", timeout=2)


def test_site_files_exist() -> None:
    assert (SITE_DIR / "index.html").is_file()
    assert len([p for p in SITE_DIR.rglob("*") if p.is_file()]) >= 50


async def test_head_requests_are_answered(demo: Demo) -> None:
    _, base = demo
    async with aiohttp.ClientSession() as http, http.head(base + "about/") as resp:
        assert resp.status == 200
        assert resp.headers["Content-Type"] == "text/html; charset=utf-8"


async def test_other_methods_are_refused(demo: Demo) -> None:
    _, base = demo
    async with aiohttp.ClientSession() as http, http.post(base + "about/") as resp:
        assert resp.status == 405
