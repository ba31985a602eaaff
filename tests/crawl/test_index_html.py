"""``/`` and ``/index.html`` serving one page: what the sitemap lists is deliberate.

The crawler never folds ``/index.html`` into ``/`` by itself: they are two URLs (RFC 3986,
Google, Screaming Frog), and many servers answer them differently (``/index.html`` a 404
on an app, ``/`` a listing, one of them a redirect).  A site that means one page says so,
and that decides:

* a ``rel=canonical`` (in the HTML or a ``Link`` header) names the one to list; the other
  is ``canonicalised-to`` it;
* a redirect from one to the other leaves one page (``redirect``);
* with neither, both are listed, as the site links them; ``sitemapkit audit`` is where
  duplicate content is a finding, not the crawler's listing.
"""

from __future__ import annotations

import csv
from pathlib import Path

from aiohttp import web

from crawl.fixture_site import serve_handler
from sitemapdata.xmlread import locs
from sitemapkit.cli import main

LINKS = '<a href="/">home</a> <a href="/index.html">home again</a> <a href="/a">a</a>'


def _crawl(handle: web.RequestHandler, tmp_path: Path) -> tuple[str, list[str], dict[str, str]]:
    out = tmp_path / "out"
    with serve_handler(handle) as port:
        base = f"http://127.0.0.1:{port}"
        assert main(["crawl", base + "/", "-o", str(out), "--render", "never"]) == 0
    with (out / "inventory.csv").open(newline="", encoding="utf-8") as fh:
        reasons = {row["url"].removeprefix(base): row["reason"] for row in csv.DictReader(fh)}
    return base, sorted(u.removeprefix(base) for u in locs(out / "sitemap.xml")), reasons


def _page(head: str = "") -> str:
    return f"<html><head><title>Home</title>{head}</head><body>{LINKS}</body></html>"


def test_without_a_canonical_both_urls_are_listed(tmp_path: Path) -> None:
    async def handle(request: web.Request) -> web.Response:
        return web.Response(text=_page(), content_type="text/html")

    _, listed, _ = _crawl(handle, tmp_path)
    assert listed == ["/", "/a", "/index.html"]


def test_the_canonical_decides(tmp_path: Path) -> None:
    async def handle(request: web.Request) -> web.Response:
        home = request.path in ("/", "/index.html")
        head = f'<link rel="canonical" href="http://{request.host}/">' if home else ""
        return web.Response(text=_page(head), content_type="text/html")

    _, listed, reasons = _crawl(handle, tmp_path)
    assert listed == ["/", "/a"]
    assert reasons["/index.html"] == "canonicalised-to"


def test_a_redirect_decides(tmp_path: Path) -> None:
    async def handle(request: web.Request) -> web.StreamResponse:
        if request.path == "/index.html":
            raise web.HTTPMovedPermanently("/")
        return web.Response(text=_page(), content_type="text/html")

    _, listed, reasons = _crawl(handle, tmp_path)
    assert listed == ["/", "/a"]
    assert reasons["/index.html"] == "redirect"
