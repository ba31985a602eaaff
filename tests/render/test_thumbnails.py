"""``crawl --thumbnails``: a first-screen picture per indexable page, stored and on the map.

Real crawls of generated sites on 127.0.0.1 with real Chromium (the headless
shell when installed); the map is opened in Chromium too.  The size bound of
issue 14 (a 1,000-page map with thumbnails under 25 MB) is checked per page
on a smaller site: what the thumbnails add to the map, divided by the pages.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from crawl.fixture_site import serve
from sitemapkit.cli import main
from sitemapkit.store import open_store
from sitemapkit.store.base import Thumbnail
from sitemapkit.visual.sources import read_tree
from visual.test_browser import browser, open_map, pw, shop_map  # noqa: F401 (fixtures)

from .app_site import AppSite, serve_app

pytestmark = pytest.mark.browser

PAGES = 24
#: A 1,000-page map with thumbnails must stay under 25 MB: per page, with its thumbnail.
MAP_BYTES_PER_PAGE = 25_000_000 // 1000
JPEG = b"\xff\xd8\xff"

STYLE = (
    "body{font:16px sans-serif;margin:0}header{background:#123e6b;color:#fff;padding:24px}"
    "main{display:grid;grid-template-columns:repeat(3,1fr);gap:16px;padding:24px}"
    ".card{border:1px solid #ccc;border-radius:6px;padding:12px;background:#f6f8fa}"
)


def page_html(n: int) -> str:
    cards = "".join(
        f"<div class=card><h2>Product {n}.{k}</h2><p>{'Lamp text ' * 12}</p></div>"
        for k in range(6)
    )
    nav = "".join(f'<a href="/p/{m}">page {m}</a> ' for m in range(PAGES))
    head = "<link rel=stylesheet href=/static/site.css>"
    if n == 3:
        head += '<meta name="robots" content="noindex">'
    return (
        f"<!doctype html><html><head><title>Page {n}</title>{head}</head><body>"
        f"<header><h1>Northwind page {n}</h1><nav>{nav}</nav></header><main>{cards}</main>"
        "</body></html>"
    )


def shop_app() -> web.Application:
    async def handle(request: web.Request) -> web.Response:
        if request.path == "/static/site.css":
            return web.Response(text=STYLE, content_type="text/css")
        if request.path == "/":
            raise web.HTTPFound("/p/0")
        m = re.fullmatch(r"/p/(\d+)", request.path)
        if m is None or int(m[1]) >= PAGES:
            raise web.HTTPNotFound()
        return web.Response(text=page_html(int(m[1])), content_type="text/html")

    app = web.Application()
    app.router.add_get("/{tail:.*}", handle)
    return app


@pytest.fixture(scope="module")
def shop() -> Iterator[str]:
    with serve(shop_app) as port:
        yield f"http://127.0.0.1:{port}"


def thumbnails(db: Path) -> dict[str, Thumbnail]:
    store = open_store(db, mode="read")
    try:
        return dict(store.thumbnails())
    finally:
        store.close()


def map_data(path: Path) -> dict[str, Any]:
    m = re.search(r'type="application/json">(.*?)</script>', path.read_text("utf-8"), re.S)
    assert m is not None
    return json.loads(m[1])  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def crawled(shop: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A crawl stopped after 10 pages, then resumed to the end, both with --thumbnails."""
    out = tmp_path_factory.mktemp("thumbs")
    args = ["-o", str(out), "--thumbnails", "--render-timeout", "10"]
    assert main(["crawl", shop + "/", *args, "--max-pages", "10", "--concurrency", "1"]) == 0
    first = thumbnails(out / "crawl.sqlite")
    assert 5 <= len(first) <= 10
    (out / "first.json").write_text(json.dumps(sorted(first)))
    resume = ["crawl", "--resume", "--db", str(out / "crawl.sqlite"), "--max-pages", "100"]
    assert main([*resume, *args]) == 0
    return out


def test_every_indexable_page_has_a_small_first_screen(shop: str, crawled: Path) -> None:
    stored = thumbnails(crawled / "crawl.sqlite")
    indexable = {f"{shop}/p/{n}" for n in range(PAGES) if n != 3}
    assert set(stored) == indexable  # not the noindex page, not the redirect
    for thumb in stored.values():
        assert thumb.type == "image/jpeg"
        assert thumb.image.startswith(JPEG)
        # 256x160: the JPEG's SOF0 frame header holds the height and the width
        sof = thumb.image.index(b"\xff\xc0")
        assert thumb.image[sof + 5 : sof + 9] == bytes([0, 160, 1, 0])


def test_thumbnails_taken_before_a_resume_are_kept(crawled: Path) -> None:
    first = json.loads((crawled / "first.json").read_text())
    stored = thumbnails(crawled / "crawl.sqlite")
    assert set(first) < set(stored)


def test_the_map_carries_them_as_data_urls_within_the_size_bound(
    crawled: Path, tmp_path: Path
) -> None:
    with_thumbs = crawled / "site-map.html"
    data = map_data(with_thumbs)
    stored = thumbnails(crawled / "crawl.sqlite")
    tree = read_tree(str(crawled / "crawl.sqlite"))
    urls = {tree.url(int(node)): url for node, url in data["th"].items()}
    assert set(urls) == set(stored)
    for page_url, data_url in urls.items():
        head, _, b64 = data_url.partition(",")
        assert head == "data:image/jpeg;base64"
        assert base64.b64decode(b64) == stored[page_url].image
    # what a page with its thumbnail costs the map, against the 25 MB for 1,000 pages
    per_page = with_thumbs.stat().st_size / data["pages"]
    assert per_page < MAP_BYTES_PER_PAGE, per_page
    thumb_bytes = sum(len(u) for u in data["th"].values()) / len(data["th"])
    assert thumb_bytes < MAP_BYTES_PER_PAGE / 2, thumb_bytes


def test_cards_and_details_show_the_thumbnail(
    crawled: Path,
    open_map: Any,  # noqa: F811
) -> None:
    o = open_map(crawled / "site-map.html")
    page = o.page
    images = page.locator("#map .node image.thumb")
    assert images.count() >= 10
    href = images.first.get_attribute("href")
    assert href is not None
    assert href.startswith("data:image/jpeg;base64,")
    page.fill("#search", "/p/5")
    page.press("#search", "Enter")
    img = page.locator("#details img.thumb")
    img.wait_for()
    assert img.evaluate("i => i.complete && i.naturalWidth") == 256  # the browser decoded it
    assert "Rendered" in page.locator("#details").text_content()
    # crawled with the default, --render auto: a plain page is not rendered, and says why
    assert "no: not an application shell" in page.locator("#details").text_content()
    assert o.errors == []
    assert [r for r in o.requests if not r.startswith(("file:", "data:"))] == []


@pytest.fixture(scope="module")
def app_site() -> Iterator[AppSite]:
    with serve_app() as served:
        yield served


def test_details_say_how_rendering_went_and_what_only_it_found(
    app_site: AppSite,
    tmp_path: Path,
    open_map: Any,  # noqa: F811
) -> None:
    out = tmp_path / "rendered"
    base = app_site.base
    args = ["crawl", base + "/", "-o", str(out), "--render", "always", "--render-timeout", "5"]
    # its own thread: the map's browser (Playwright's sync API) runs a loop in this one
    with ThreadPoolExecutor(1) as pool:
        assert pool.submit(main, args).result() == 0
    data = map_data(out / "site-map.html")
    assert data["rm"] == "always"
    tree = read_tree(str(out / "crawl.sqlite"))
    (home,) = [
        i for i in range(len(tree.segments)) if tree.rows[i] >= 0 and tree.url(i) == base + "/"
    ]
    status, why, count, *links = data["rn"][str(home)]
    assert (status, why) == ("rendered", "always")
    assert count == len(links) >= 3
    assert base + "/app/one" in links
    o = open_map(out / "site-map.html")
    o.page.locator(f"#node-n{home}").click()
    text = o.page.locator("#details").text_content()
    assert "Renderedyes (--render always)" in text
    assert f"Links only rendering found{count}" in text
    assert o.page.locator(f"#details a[href='{base}/app/one']").count() == 1
    assert o.errors == []
