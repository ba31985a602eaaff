"""A small JavaScript-built website on 127.0.0.1 for the render tests.

Every page holds one thing a renderer must get right; :class:`AppSite` counts
the requests it receives (by path and by the ``Host`` the browser used), so a
test can see what was fetched and what was kept out.  ``other`` is a second
name for the same server (``localhost`` instead of ``127.0.0.1``): to the
browser it is another host, a third party.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import web

from crawl.fixture_site import serve


def page(body: str, head: str = "", title: str = "t") -> str:
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title>{head}</head>"
        f"<body>{body}</body></html>"
    )


ROBOTS = "User-agent: *\nDisallow: /private/\n"

# The shell: an empty mount point and a script that builds the navigation from JSON.
SHELL = page("<div id='root'></div><script src='/static/app.js'></script>", title="App")
APP_JS = """
fetch('/api/nav.json').then(r => r.json()).then(nav => {
  const root = document.getElementById('root');
  for (const item of nav) {
    const a = document.createElement('a');
    a.href = item; a.textContent = item; root.appendChild(a);
  }
  const map = document.createElement('map');
  map.innerHTML = "<area href='/app/area' alt='x'>";
  root.appendChild(map);
  const c = document.createElement('link');
  c.rel = 'canonical'; c.href = '/app/home'; document.head.appendChild(c);
  document.title = 'App home';
});
"""
NAV = '["/app/one", "/app/two", "/app/three?b=2&a=1"]'
#: Pages of the mixed site (``/mixed``): ``/more/0`` .. ``/more/5`` get their onward link
#: from an inline script; ``/quiet/0`` .. ``/quiet/5`` have inline scripts that write
#: markup without links.  Neither looks like an application shell.
SECTION_PAGES = 6
WORDS = "<p>" + "Words on a page rendered by its server. " * 8 + "</p>"
TRACK = "<script>window.dataLayer = [['page', location.pathname]];</script>"


def mixed_page(path: str) -> str | None:
    """``/mixed`` and its two sections, or None."""
    if path == "/mixed":
        links = ["/more/0", *(f"/quiet/{i}" for i in range(SECTION_PAGES))]
        return page(WORDS + "".join(f"<a href='{h}'>{h}</a> " for h in links) + TRACK)
    section, _, number = path.strip("/").partition("/")
    if section not in ("more", "quiet") or not number.isdigit():
        return None
    i = int(number)
    if i >= SECTION_PAGES:
        return None
    written = (
        f"<a href='/more/{i + 1}'>next</a>" if section == "more" and i + 1 < SECTION_PAGES else ""
    )
    script = f"<script>document.getElementById('out').innerHTML = \"<b>hi</b>{written}\";</script>"
    return page(WORDS + "<a href='/mixed'>up</a><div id='out'></div>" + script + TRACK)


class AppSite:
    """Pages, counters and the two names of one server."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.hosts: Counter[str] = Counter()
        self.port = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def other(self) -> str:
        return f"http://localhost:{self.port}"

    def html(self, name: str) -> str:
        """The raw HTML of page ``name`` (what the crawler would have fetched)."""
        other = self.other
        pages = {
            "shell": SHELL,
            "plain": page("<a href='/plain/a'>a</a> <a href='/plain/b'>b</a> <p>text</p>"),
            "heavy": page(
                "<img src='/static/pic.png'><video src='/static/clip.mp4'></video>"
                "<div id='out'></div>"
                f"<script src='{other}/tracker.js'></script>"
                "<script src='/private/secret.js'></script>"
                "<script>fetch('/api/nav.json').then(r => r.json()).then(n => {"
                "document.getElementById('out').innerHTML = n.map("
                "u => `<a href='${u}'>${u}</a>`).join('');});"
                "const i = new Image(); i.src = '/static/late.png';</script>",
                head="<link rel='stylesheet' href='/static/site.css'>"
                "<style>@font-face{font-family:x;src:url(/static/f.woff2)}"
                "body{font-family:x}</style>",
            ),
            "endless": page(
                "<a href='/endless/raw'>raw</a><script>"
                "setTimeout(() => { while (true) {} }, 10);</script>"
            ),
            # endless network: a long poll, asked again each time it answers
            "polling": page(
                "<div id='out'></div><script>"
                "document.getElementById('out').innerHTML = \"<a href='/polling/found'>f</a>\";"
                "const poll = () => fetch('/api/nav.json?slow=3').then(poll); poll();</script>"
            ),
            "rude": page(
                "<div id='out'></div><script>"
                "alert('hello'); const ok = confirm('sure?'); prompt('name?');"
                "window.open('/popup-target');"
                "const a = document.createElement('a'); a.href = '/static/file.zip';"
                "a.download = 'file.zip'; document.body.appendChild(a); a.click();"
                "document.getElementById('out').innerHTML = "
                "\"<a href='/rude/after-dialogs'>x</a>\" + (ok ? 'yes' : 'no');"
                "setTimeout(() => { location.href = '/rude/moved'; }, 20);"
                "</script>"
            ),
            "late-noindex": page(
                "<a href='/x'>x</a><script>const m = document.createElement('meta');"
                "m.name = 'robots'; m.content = 'noindex'; document.head.appendChild(m);</script>"
            ),
        }
        return pages[name]

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        self.hits[path] += 1
        self.hosts[request.host.split(":")[0]] += 1
        if path == "/robots.txt":
            return web.Response(text=ROBOTS, content_type="text/plain")
        if path == "/static/app.js":
            return web.Response(text=APP_JS, content_type="application/javascript")
        if path == "/api/nav.json":
            if request.query.get("slow"):
                await asyncio.sleep(float(request.query["slow"]))
            return web.Response(text=NAV, content_type="application/json")
        if path == "/tracker.js" or path.startswith("/private/"):
            return web.Response(text="window.__leaked = true;", content_type="text/javascript")
        if path.startswith("/static/"):
            return web.Response(body=b"\0" * 64, content_type="application/octet-stream")
        mixed = mixed_page(path)
        if mixed is not None:
            return web.Response(text=mixed, content_type="text/html")
        name = path.strip("/") or "shell"
        try:
            return web.Response(text=self.html(name), content_type="text/html")
        except KeyError:
            return web.Response(text=page("<p>page</p>"), content_type="text/html")


@contextmanager
def serve_app() -> Iterator[AppSite]:
    """Serve an :class:`AppSite` on 127.0.0.1 (and, for the browser, on localhost)."""
    site = AppSite()

    def factory() -> web.Application:
        app = web.Application()
        app.router.add_route("GET", "/{tail:.*}", site.handle)
        return app

    with serve(factory) as port:
        site.port = port
        yield site
