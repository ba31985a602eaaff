"""The demo site's web server: Northwind Lamps, with every pitfall a crawler meets.

The pages are static files under ``demo/site/`` (they ship in the wheel); this
module serves them and adds what static files cannot show: redirects (a 301 chain,
a 302, a loop, a chain longer than ten, one leaving the site), a 500, a slow page,
response headers (``X-Robots-Tag`` in its plain, ``googlebot:`` and other-bot forms,
``Link: rel=canonical``, ``Last-Modified``), non-ASCII paths, and generated spaces
(an endless calendar, faceted filters, a path that repeats itself, a 2 MB page).

Static files get no ``Last-Modified`` from their file time: an installed file's
mtime is the install time, and a crawler must not mistake it for a modification
date.  Pages that demonstrate ``Last-Modified`` get a fixed one from
:data:`HEADERS`.  ``__HOST__`` and ``__ORIGIN__`` in the files become the
server's own address, so absolute and protocol-relative links work on any port.

Every request is counted in ``app[HITS]`` so tests can assert that, for
example, robots-blocked pages were never fetched.  The ground truth of what a
correct crawl finds is in :mod:`sitemapkit.demo.expected`.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Final
from urllib.parse import urlencode

from aiohttp import web

__all__ = [
    "HEADERS",
    "HITS",
    "REDIRECTS",
    "SITE_DIR",
    "SLOW_SECONDS",
    "make_app",
    "serve_demo",
    "start_demo_server",
]

SITE_DIR: Final = Path(str(resources.files("sitemapkit.demo") / "site"))
HITS: Final = web.AppKey("hits", Counter[str])
#: Seconds the slow page takes to answer.
SLOW_SECONDS: Final = 1.5
#: First path segments that are not ASCII on the web but are stored under ASCII names.
ALIASES: Final = {"café": "cafe", "über-uns": "ueber-uns"}
#: Path → (status, Location).  A Location starting with ``/`` is on this server.
REDIRECTS: Final[dict[str, tuple[int, str]]] = {
    "/old-about": (301, "/old-about-2"),
    "/old-about-2": (301, "/about/"),
    "/promo": (302, "/products/"),
    "/loop-a": (302, "/loop-b"),
    "/loop-b": (302, "/loop-a"),
    "/go/partner": (302, "https://partner.example/"),
    **{f"/chain/{i}": (301, f"/chain/{i + 1}") for i in range(1, 12)},
    "/chain/12": (301, "/about/"),
}
#: Path → extra response headers.  ``__ORIGIN__`` is replaced by the server origin.
HEADERS: Final[dict[str, dict[str, str]]] = {
    "/terms.html": {"Last-Modified": "Tue, 03 Mar 2026 08:00:00 GMT"},
    "/blog/2025/year-in-review.html": {"Last-Modified": "Mon, 29 Dec 2025 17:00:00 GMT"},
    "/products/floor-lamps/beacon-print.html": {
        "Link": '<__ORIGIN__/products/floor-lamps/beacon.html>; rel="canonical"'
    },
    "/thank-you.html": {"X-Robots-Tag": "noindex"},
    "/docs/print-guide.html": {"X-Robots-Tag": "googlebot: noindex, nofollow"},
    "/downloads.html": {"X-Robots-Tag": "otherbot: noindex"},
}
#: Path → Content-Type, where the extension's default is not what we want to show.
CONTENT_TYPES: Final = {
    "/de/preise.html": "text/html",  # no charset: the page's <meta charset> must be used
}
_TYPES: Final = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".pdf": "application/pdf",
    ".txt": "text/plain; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".xml": "application/xml",
}
_STATUS_BROKEN: Final = "/status/broken"
#: The lamp finder's live stock feed (fetched only by the page's script).
STOCK_FEED: Final = "/app/stock-feed"
#: Seconds the stock feed streams before it ends.
STOCK_FEED_SECONDS: Final = 60.0
_SLOW: Final = "/slow.html"
_CHANGELOG: Final = "/docs/changelog.html"
_CALENDAR_PREFIX: Final = "/events/"
_FACETS_PATH: Final = "/products/all/"
_REPEAT_SEGMENT: Final = "lamps-and-more"
_REPEAT_PREFIX: Final = "/products/lamps-and-more/"
FACETS: Final = {
    "color": ("red", "blue", "green", "black", "white"),
    "size": ("s", "m", "l", "xl"),
    "sort": ("price", "name", "new"),
}
#: Entries in the generated changelog (about 2 MB of HTML).
CHANGELOG_ENTRIES: Final = 16_000


async def _stock_feed(request: web.Request) -> web.StreamResponse:
    """The lamp finder's live stock: a response that never ends (a page that never settles).

    One line every half second for :data:`STOCK_FEED_SECONDS` at most, so a
    forgotten client cannot keep the server busy for ever.
    """
    response = web.StreamResponse(headers={"Content-Type": "text/plain; charset=utf-8"})
    await response.prepare(request)
    try:
        for tick in range(int(STOCK_FEED_SECONDS * 2)):
            await response.write(f"{42 - tick % 5} lamps in stock\n".encode())
            await asyncio.sleep(0.5)
    except ConnectionResetError:
        pass  # the page was closed: that is how this feed ends
    return response


def _origin(request: web.Request) -> str:
    return f"{request.scheme}://{request.host}"


def _fill(body: bytes, request: web.Request) -> bytes:
    if b"__" not in body:
        return body
    return body.replace(b"__ORIGIN__", _origin(request).encode("ascii")).replace(
        b"__HOST__", request.host.encode("ascii")
    )


def _file_for(path: str) -> Path | None:
    """The file under the site that serves ``path`` (decoded), or ``None``."""
    parts = [p for p in path.split("/") if p]
    if any(p in (".", "..") or "\\" in p or "\x00" in p for p in parts):
        return None
    if parts and parts[0] in ALIASES.values():
        return None  # only reachable under their real (non-ASCII) names
    if parts and parts[0] in ALIASES:
        parts[0] = ALIASES[parts[0]]
    if path.endswith("/") or not parts:
        parts.append("index.html")
    candidate = SITE_DIR.joinpath(*parts)
    try:
        candidate.resolve().relative_to(SITE_DIR.resolve())
    except ValueError:
        return None
    return candidate if candidate.is_file() else None


def _page(title: str, body: str, *, head: str = "") -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<title>{title}</title>\n<link rel="stylesheet" href="/static/site.css">\n{head}'
        '</head>\n<body>\n<header><a href="/">Northwind Lamps</a> '
        '<a href="/products/">Products</a> <a href="/events/">Events</a></header>\n'
        f"<main>\n{body}\n</main>\n</body>\n</html>\n"
    )


def _calendar(path: str) -> str | None:
    """``/events/YYYY/M``: a month page whose "next month" link never ends."""
    rest = path[len(_CALENDAR_PREFIX) :].strip("/").split("/")
    if len(rest) != 2 or not all(p.isdigit() for p in rest):
        return None
    year, month = int(rest[0]), int(rest[1])
    if not (1 <= month <= 12 and 1900 <= year <= 9999) or rest[1] != str(month):
        return None
    nxt_year, nxt_month = (year + 1, 1) if month == 12 else (year, month + 1)
    return _page(
        f"Events in {year}-{month:02d} | Northwind Lamps",
        f"<h1>Events, {year}-{month:02d}</h1>\n<p>Open workshop every Saturday.</p>\n"
        f'<p><a href="../{nxt_year}/{nxt_month}">Next month</a></p>',
    )


def _facets(request: web.Request) -> str:
    """``/products/all/?color=&size=&sort=``: every filter links to every other one."""
    current = {k: v for k, v in request.query.items() if k in FACETS}
    links: list[str] = []
    for name, values in FACETS.items():
        for value in values:
            chosen = dict(current)
            if chosen.get(name) == value:
                del chosen[name]
            else:
                chosen[name] = value
            query = urlencode(chosen)
            label = f"{name}: {value}"
            links.append(f'<li><a href="./{"?" + query if query else ""}">{label}</a></li>')
    chosen_text = ", ".join(f"{k}={v}" for k, v in current.items()) or "none"
    return _page(
        "All lamps | Northwind Lamps",
        f"<h1>All lamps</h1>\n<p>Filters: {chosen_text}</p>\n<ul>\n" + "\n".join(links) + "\n</ul>",
        head='<link rel="canonical" href="/products/all/">\n',
    )


def _repeating(path: str) -> str | None:
    """``/products/lamps-and-more/`` and deeper: a CMS that ignores extra path segments.

    Its relative link ``lamps-and-more/`` appends a segment on every hop.
    """
    rest = [p for p in path[len(_REPEAT_PREFIX) :].split("/") if p]
    if any(p != _REPEAT_SEGMENT for p in rest) or not path.endswith("/"):
        return None
    return _page(
        "Lamps and more | Northwind Lamps",
        "<h1>Lamps and more</h1>\n<p>Shades, bulbs and cables.</p>\n"
        f'<p><a href="{_REPEAT_SEGMENT}/">More lamps and more</a></p>',
        head=f'<link rel="canonical" href="{_REPEAT_PREFIX}">\n',
    )


def _changelog() -> str:
    entries = "\n".join(
        f'<li id="r{i}"><b>1.{i // 100}.{i % 100}</b> Fixed flicker at low dimmer settings '
        f"on lamps built in batch {i}; improved the colour temperature curve.</li>"
        for i in range(CHANGELOG_ENTRIES, 0, -1)
    )
    return _page(
        "Firmware changelog | Docs",
        f"<h1>Firmware changelog</h1>\n<ol>\n{entries}\n</ol>\n"
        '<p>Older releases: <a href="/docs/changelog-archive.html">the archive</a>.</p>',
    )


_CHANGELOG_BODY: bytes | None = None


async def _handle(request: web.Request) -> web.StreamResponse:
    """One request: a fixed answer, a generated page, or a file of ``site/``."""
    path = request.path
    request.app[HITS][path] += 1
    if path == STOCK_FEED:
        return await _stock_feed(request)
    fixed = _fixed(request)
    if fixed is not None:
        return fixed
    generated = _generated(request)
    if generated is not None:
        return web.Response(text=generated, content_type="text/html", charset="utf-8")
    if path == _SLOW:
        await asyncio.sleep(SLOW_SECONDS)
    return _static(request)


def _fixed(request: web.Request) -> web.Response | None:
    """The redirects, the broken page and the 2 MB changelog (built once)."""
    global _CHANGELOG_BODY  # noqa: PLW0603 - built once, 2 MB
    path = request.path
    if path in REDIRECTS:
        status, location = REDIRECTS[path]
        target = _origin(request) + location if location.startswith("/") else location
        return web.Response(status=status, headers={"Location": target})
    if path == _STATUS_BROKEN:
        return web.Response(status=500, text="Internal Server Error", content_type="text/plain")
    if path == _CHANGELOG:
        if _CHANGELOG_BODY is None:
            _CHANGELOG_BODY = _changelog().encode()
        return web.Response(body=_CHANGELOG_BODY, content_type="text/html", charset="utf-8")
    return None


def _generated(request: web.Request) -> str | None:
    """The pages made on request (calendar, facets, the repeating path); None: not one."""
    path = request.path
    generated: str | None = None
    if path.startswith(_CALENDAR_PREFIX) and path != _CALENDAR_PREFIX:
        generated = _calendar(path)
    elif path == _FACETS_PATH:
        return _facets(request)
    elif path.startswith(_REPEAT_PREFIX):
        generated = _repeating(path)
    else:
        return None
    if generated is None:
        raise web.HTTPNotFound
    return generated


def _static(request: web.Request) -> web.Response:
    """A file of ``site/`` with its origin filled in and its headers, or the 404 page."""
    path = request.path
    file = _file_for(path)
    if file is None:
        return web.Response(
            status=404,
            text=_page("Not found | Northwind Lamps", "<h1>Not found</h1>"),
            content_type="text/html",
            charset="utf-8",
        )
    body = _fill(file.read_bytes(), request)
    headers = {
        "Content-Type": CONTENT_TYPES.get(path, _TYPES.get(file.suffix, "application/octet-stream"))
    }
    origin = _origin(request)
    for name, value in HEADERS.get(path, {}).items():
        headers[name] = value.replace("__ORIGIN__", origin)
    return web.Response(body=body, headers=headers)


def make_app() -> web.Application:
    """The demo site as an aiohttp application (for ``aiohttp_client`` in tests)."""
    app = web.Application()
    app[HITS] = Counter()
    app.router.add_get("/{tail:.*}", _handle)  # HEAD too
    return app


async def start_demo_server(host: str = "127.0.0.1", port: int = 0) -> tuple[web.AppRunner, str]:
    """Serve the demo site; returns the runner (call ``await runner.cleanup()``) and base URL.

    ``port=0`` picks a free port.  The base URL ends in ``/``.
    """
    runner = web.AppRunner(make_app(), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    sockname = runner.addresses[0]
    bound_port = sockname[1]
    shown = f"[{host}]" if ":" in host else host
    return runner, f"http://{shown}:{bound_port}/"


@contextmanager
def serve_demo(host: str = "127.0.0.1", port: int = 0) -> Iterator[str]:
    """Run the demo server on its own thread and event loop; yields the base URL.

    For synchronous callers (the CLI, tests without an event loop).  The server
    stops when the block ends.
    """
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    base: list[str] = []
    errors: list[BaseException] = []

    def run() -> None:
        asyncio.set_event_loop(loop)
        try:
            runner, url = loop.run_until_complete(start_demo_server(host, port))
        except Exception as exc:  # noqa: BLE001 - re-raised in the caller's thread below
            errors.append(exc)
            ready.set()
            return
        base.append(url)
        ready.set()
        loop.run_forever()
        loop.run_until_complete(runner.cleanup())

    thread = threading.Thread(target=run, name="sitemapkit-demo-server", daemon=True)
    thread.start()
    ready.wait()
    try:
        if errors:
            raise errors[0]
        yield base[0]
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
        loop.close()


def main(argv: list[str] | None = None) -> int:
    """``python -m sitemapkit.demo.server [PORT]``: serve the demo site until Ctrl-C."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    port = int(args[0]) if args else 8765
    try:
        with serve_demo(port=port) as base:
            sys.stderr.write(f"Northwind Lamps demo site at {base} (Ctrl-C to stop)\n")
            threading.Event().wait()
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
