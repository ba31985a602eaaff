"""A small real website for crawl tests, served by aiohttp on 127.0.0.1 in a thread.

Every pitfall the crawler must handle has a page here; :data:`EXPECTED_SITEMAP`
and :data:`EXPECTED_REASONS` say what a correct crawl makes of them.  The
server runs in its own thread and event loop so that the code under test
(``asyncio.run`` inside the CLI, or a subprocess) can talk to it like to any
website.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web

#: An aiohttp request handler.
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

HUGE_BYTES = 11 * 1024 * 1024  # over the default 10 MiB body cap


def html(title: str, body: str = "", head: str = "") -> str:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>{head}</head>"
        f"<body><h1>{title}</h1>{body}</body></html>"
    )


def links(*hrefs: str) -> str:
    return "".join(f'<a href="{h}">{h}</a> ' for h in hrefs)


@dataclass
class Page:
    body: str | bytes = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "text/html; charset=utf-8"
    delay: float = 0.0


Handler = Callable[[web.Request], "Page"]


def robots_txt() -> str:
    return (
        "User-agent: *\n"
        "Disallow: /private/\n"
        "Disallow: /*.php$\n"
        "Allow: /private/open\n"
        "\n"
        "User-agent: otherbot\n"
        "Disallow: /\n"
    )


class FixtureSite:
    """The pages of the test site, plus request counters the tests can read."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.user_agents: set[str] = set()
        self.busy_left = 1
        self.host = "127.0.0.1"
        self.port = 0

    @property
    def base(self) -> str:
        return f"http://{self.host}:{self.port}"

    def page(self, request: web.Request) -> Page:
        path = request.path
        qs = request.query_string
        base = self.base
        if path == "/robots.txt":
            return Page(robots_txt(), content_type="text/plain")
        if path == "/":
            return Page(
                html(
                    "Home",
                    links(
                        "/about",
                        "blog/",
                        "/relative/",
                        f"//{self.host}:{self.port}/proto-rel",
                        "/noindex-meta",
                        "/noindex-header",
                        "/canon-dup",
                        "/old",
                        "/loop-a",
                        "/chain/0",
                        "/missing",
                        "/broken",
                        "/private/secret",
                        "/private/open",
                        "/script.php",
                        "/script.php?page=2",
                        "/files/report.pdf",
                        "/caf%C3%A9",
                        "http://other.invalid/page",
                        "/calendar/2024/01",
                        "/huge",
                        "/slow",
                        "/busy",
                        "/lang/en",
                        "/refresh",
                        "mailto:someone@example.org",
                        "javascript:void(0)",
                        "#top",
                    )
                    + '<a rel="nofollow" href="/nofollow-target">nf</a>',
                    head="<meta property='article:modified_time' content='2024-05-01T10:00:00Z'>",
                ),
                headers={"Last-Modified": "Wed, 01 May 2024 10:00:00 GMT"},
            )
        if path == "/about":
            return Page(
                html(
                    "About",
                    links("/"),
                    head="<meta property='article:modified_time' "
                    "content='2024-03-02T08:00:00+00:00'>",
                )
            )
        if path == "/blog/":
            return Page(html("Blog", links("post-1", "post-2?utm_source=news", "./post-1#c")))
        if path in ("/blog/post-1", "/blog/post-2"):
            return Page(
                html(path, links("/blog/")),
                headers={"Last-Modified": "Tue, 02 Jan 2024 03:04:05 GMT"},
            )
        if path == "/relative/":
            return Page(html("Relative", links("page", "../about"), head="<base href='/based/'>"))
        if path == "/based/page":
            return Page(html("Based page"))
        if path == "/proto-rel":
            return Page(html("Protocol-relative"))
        if path == "/noindex-meta":
            return Page(
                html(
                    "Noindex",
                    links("/only-from-noindex"),
                    head="<meta name='robots' content='noindex'>",
                )
            )
        if path == "/only-from-noindex":
            return Page(html("Linked from a noindex page"))
        if path == "/noindex-header":
            return Page(html("Noindex by header"), headers={"X-Robots-Tag": "noindex"})
        if path == "/canon-dup":
            return Page(html("Dup", head=f"<link rel='canonical' href='{base}/about'>"))
        if path == "/old":
            return Page(status=301, headers={"Location": "/new"})
        if path == "/to-ip":
            return Page(status=301, headers={"Location": f"http://127.0.0.1:{self.port}/about"})
        if path == "/new":
            return Page(html("New home of old"))
        if path == "/loop-a":
            return Page(status=302, headers={"Location": "/loop-b"})
        if path == "/loop-b":
            return Page(status=302, headers={"Location": f"{base}/loop-a"})
        if path.startswith("/chain/"):
            n = int(path.rsplit("/", 1)[1])
            if n < 12:
                return Page(status=302, headers={"Location": f"/chain/{n + 1}"})
            return Page(html("End of a long chain"))
        if path == "/broken":
            return Page("oops", status=500, content_type="text/plain")
        if path == "/private/open":
            return Page(html("Open although under /private/"))
        if path == "/script.php":
            return Page(html("php"))
        if path == "/files/report.pdf":
            return Page(b"%PDF-1.4 not really", content_type="application/pdf")
        if path == "/café":
            return Page(html("Café", links("/")))
        if path.startswith("/calendar/"):
            year, month = (int(x) for x in path.split("/")[2:4])
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
            return Page(html(f"{year}-{month}", links(f"/calendar/{year}/{month:02d}")))
        if path == "/huge":
            return Page(html("Huge", "x" * HUGE_BYTES))
        if path == "/slow":
            return Page(html("Slow"), delay=0.3)
        if path == "/busy":
            if self.busy_left > 0:
                self.busy_left -= 1
                return Page(
                    "come back", status=429, headers={"Retry-After": "1"}, content_type="text/plain"
                )
            return Page(html("Busy, then fine"))
        if path == "/lang/en":
            return Page(
                html(
                    "English",
                    head=f"<link rel='alternate' hreflang='en' href='{base}/lang/en'>"
                    f"<link rel='alternate' hreflang='de' href='{base}/lang/de'>",
                )
            )
        if path == "/lang/de":
            return Page(
                html(
                    "Deutsch",
                    head=f"<link rel='alternate' hreflang='en' href='{base}/lang/en'>"
                    f"<link rel='alternate' hreflang='de' href='{base}/lang/de'>",
                )
            )
        if path == "/refresh":
            return Page(html("Moved", head="<meta http-equiv='refresh' content='0; url=/about'>"))
        if path == "/nofollow-target":
            return Page(html("Only linked with nofollow"))
        del qs
        return Page(html("Not found"), status=404)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.hits[request.path_qs] += 1
        self.user_agents.add(request.headers.get("User-Agent", ""))
        page = self.page(request)
        if page.delay:
            await asyncio.sleep(page.delay)
        body = page.body.encode("utf-8") if isinstance(page.body, str) else page.body
        headers = dict(page.headers)
        if page.status < 300 or page.status >= 400:
            headers["Content-Type"] = page.content_type
        return web.Response(body=body, status=page.status, headers=headers)


#: What a correct default crawl of the fixture site lists, as paths.
EXPECTED_SITEMAP_PATHS = {
    "/",
    "/about",
    "/blog/",
    "/blog/post-1",
    "/blog/post-2",
    "/relative/",
    "/based/page",
    "/proto-rel",
    "/new",
    "/private/open",
    "/script.php?page=2",
    "/caf%C3%A9",
    "/slow",
    "/busy",
    "/lang/en",
    "/lang/de",
    "/only-from-noindex",
    # the trap guard admits 12 URLs of a calendar pattern, then stops the rest
    *(f"/calendar/2024/{m:02d}" for m in range(1, 13)),
}

#: The reason each excluded path is recorded with.
EXPECTED_REASONS = {
    "/noindex-meta": "noindex",
    "/noindex-header": "noindex",
    "/canon-dup": "canonicalised-to",
    "/old": "redirect",
    "/loop-a": "redirect-loop",
    "/loop-b": "redirect-loop",
    "/chain/0": "redirect-chain",
    "/chain/10": "redirect-chain",
    "/missing": "http-404",
    "/broken": "http-500",
    "/private/secret": "blocked-by-robots",
    "/script.php": "blocked-by-robots",
    "/files/report.pdf": "not-html",
    "/huge": "too-large",
    "/nofollow-target": "nofollow-only",
    "/refresh": "redirect",
    "/calendar/2025/01": "trap-pattern",
}


@contextmanager
def serve(app_factory: Callable[[], web.Application], host: str = "127.0.0.1") -> Iterator[int]:
    """Run an aiohttp app on ``host`` in a background thread; yield its port."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    holder: dict[str, object] = {}

    async def start() -> None:
        runner = web.AppRunner(app_factory(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, 0)
        await site.start()
        server = site._server
        sockets = getattr(server, "sockets", None) or []
        holder["port"] = sockets[0].getsockname()[1]
        holder["runner"] = runner

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(start())
        started.set()
        loop.run_forever()
        runner = holder["runner"]
        assert isinstance(runner, web.AppRunner)
        loop.run_until_complete(runner.cleanup())
        loop.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    started.wait(10)
    try:
        port = holder["port"]
        assert isinstance(port, int)
        yield port
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)


@contextmanager
def serve_handler(
    handle: Handler, *, path: str = "/{tail:.*}", method: str = "GET", host: str = "127.0.0.1"
) -> Iterator[int]:
    """Serve one handler for every path (or only ``path``) on ``host``; yield the port."""

    def factory() -> web.Application:
        app = web.Application()
        app.router.add_route(method, path, handle)
        return app

    with serve(factory, host) as port:
        yield port


@contextmanager
def serve_site(site: FixtureSite | None = None) -> Iterator[FixtureSite]:
    """Serve a :class:`FixtureSite` on 127.0.0.1; yield it with its port set."""
    site = site or FixtureSite()
    with serve_handler(site.handle) as port:
        site.port = port
        yield site


def slow_branch_site(request_log: list[str]) -> Callable[[web.Request], Awaitable[web.Response]]:
    """``/`` links ``/slow`` and ``/fast``; ``/fast`` -> ``/deep`` -> ``/x``; ``/slow`` -> ``/x``.

    ``/x`` is two links from home (through ``/slow``), but ``/slow`` answers last: a
    crawl that goes on deeper meanwhile first sees ``/x`` from ``/deep``, three links away.
    """
    pages = {"/": ("/slow", "/fast"), "/slow": ("/x",), "/fast": ("/deep",), "/deep": ("/x",)}

    async def handle(request: web.Request) -> web.Response:
        request_log.append(request.path)
        if request.path == "/robots.txt":
            return web.Response(text="User-agent: *\nAllow: /\n")
        if request.path == "/slow":
            await asyncio.sleep(0.5)
        hrefs = pages.get(request.path, ())
        body = "".join(f'<a href="{h}">{h}</a>' for h in hrefs)
        return web.Response(text=f"<title>{request.path}</title>{body}", content_type="text/html")

    return handle


def assert_levels_kept(store: str | Path, base: str, request_log: list[str]) -> None:
    """What a crawl of :func:`slow_branch_site` under ``--max-depth 2`` that took one
    level at a time leaves: ``/x`` at depth 2 and kept, ``/deep`` asked for only after
    ``/slow`` (the last page of depth 1) had answered."""
    from sitemapkit.store import iter_page_records

    depths = {r.url.removeprefix(base): (r.depth, r.reason) for r in iter_page_records(store)}
    assert depths["/x"] == (2, None)
    assert depths["/deep"] == (2, None)
    assert request_log.index("/deep") > request_log.index("/slow")
