"""A link's query on a page that is not UTF-8 is requested and listed as a browser sends it.

WHATWG URL parsing: an http(s) link's query is percent-encoded in the *document's*
encoding, its path always in UTF-8.  ``<a href="/search?q=café">`` on an ISO-8859-1 page is
requested as ``/search?q=caf%E9`` by every browser; before, we fetched ``?q=caf%C3%A9``: a
URL the page never linked, which a Latin-1 site's search decodes as ``cafÃ©``.  A character
the page's encoding cannot hold (``ā``, U+0101) goes as the escaped reference ``&#257;``.
"""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from crawl.fixture_site import serve_handler
from sitemapdata.xmlread import locs
from sitemapkit.cli import main
from sitemapkit.crawl.urlnorm import query_in_encoding

PAGE = (
    '<html><head><meta charset="iso-8859-1"><title>Caf\xe9</title></head><body>'
    '<a href="/search?q=caf\xe9">search</a>'
    '<a href="/caf\xe9?q=\xe9&amp;x=&#257;">menu</a>'
    "</body></html>"
).encode("latin-1")


def test_a_latin1_page_links_its_query_in_latin1(tmp_path: Path) -> None:
    requested: list[str] = []

    async def handle(request: web.Request) -> web.Response:
        requested.append(request.raw_path)
        if request.raw_path == "/":
            return web.Response(body=PAGE, content_type="text/html")  # no HTTP charset
        return web.Response(text="<html><title>x</title></html>", content_type="text/html")

    out = tmp_path / "out"
    with serve_handler(handle) as port:
        base = f"http://127.0.0.1:{port}"
        assert main(["crawl", base + "/", "-o", str(out), "--render", "never"]) == 0
    assert sorted(p for p in requested if p != "/robots.txt") == [
        "/",
        "/caf%C3%A9?q=%E9&x=%26%23257%3B",
        "/search?q=caf%E9",
    ]
    assert sorted(locs(out / "sitemap.xml")) == [
        f"{base}/",
        f"{base}/caf%C3%A9?q=%E9&x=%26%23257%3B",
        f"{base}/search?q=caf%E9",
    ]


def test_the_query_alone_takes_the_encoding() -> None:
    assert query_in_encoding("/caf\xe9?q=caf\xe9#caf\xe9", "windows-1252") == (
        "/caf\xe9?q=caf%E9#caf\xe9"
    )
    assert query_in_encoding("/p#x?\xe9", "windows-1252") == "/p#x?\xe9"  # no query
    assert query_in_encoding("?q=\u65e5", "shift_jis") == "?q=%93%FA"
    assert query_in_encoding("?q=\u20ac\u0101", "windows-1252") == "?q=%80%26%23257%3B"
