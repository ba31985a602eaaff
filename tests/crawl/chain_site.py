"""A small site of redirect chains whose hops can be held, to kill a crawl mid-chain.

Why: a crawl follows a redirect chain hop by hop, recording each hop as it goes,
so what a crawl killed with SIGKILL leaves behind depends on which hop it was
waiting for.  :meth:`ChainSite.hold` makes that moment exact instead of timed: the
held hop's request is answered only once the test has killed the crawler and
called :meth:`ChainSite.release`, and :attr:`ChainSite.reached` says the crawler
is waiting for it.  Each hold catches one request (the resumed crawl's request
of the same hop is answered at once).

The chains, from the home page:

* ``/chain/1`` -> ... -> ``/chain/12`` -> ``/about``: twelve redirects, more than
  ``limits.MAX_REDIRECTS``, so every hop followed is ``redirect-chain``;
* ``/loop-a`` -> ``/loop-b`` -> ``/loop-c`` -> ``/loop-a``: every hop ``redirect-loop``;
* ``/old`` -> ``/older`` -> ``/page/2``: a short chain, its hops plain ``redirect``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import web

from crawl.fixture_site import html, links, serve_handler

#: Where each redirect goes (a 301 each).
REDIRECTS: dict[str, str] = {
    **{f"/chain/{i}": f"/chain/{i + 1}" for i in range(1, 12)},
    "/chain/12": "/about",
    "/loop-a": "/loop-b",
    "/loop-b": "/loop-c",
    "/loop-c": "/loop-a",
    "/old": "/older",
    "/older": "/page/2",
}
#: The pages (each links back home and to the next one, so a fleet has work to share).
PAGES = ("/about", *(f"/page/{n}" for n in range(1, 9)))


class ChainSite:
    """The site's handler, its base URL, and one hold at a time on a path."""

    def __init__(self) -> None:
        self.port = 0
        self.reached = threading.Event()
        self._released = threading.Event()
        self._held: str | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def hold(self, path: str) -> None:
        """Keep the next request of ``path`` waiting until :meth:`release`."""
        self.reached.clear()
        self._released.clear()
        self._held = path

    def release(self) -> None:
        """Answer the held request (its crawler is gone by now) and hold nothing more."""
        self._held = None
        self._released.set()

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if path == self._held:
            self._held = None  # one request only: the resumed crawl's goes through
            self.reached.set()
            await asyncio.get_running_loop().run_in_executor(None, self._released.wait, 60)
        if path == "/robots.txt":
            return web.Response(text="User-agent: *\nAllow: /\n")
        if path in REDIRECTS:
            raise web.HTTPMovedPermanently(REDIRECTS[path])
        if path == "/":
            body = links("/chain/1", "/loop-a", "/old", *PAGES)
            return web.Response(text=html("Home", body), content_type="text/html")
        if path in PAGES:
            n = PAGES.index(path)
            body = links("/", PAGES[(n + 1) % len(PAGES)])
            return web.Response(text=html(path, body), content_type="text/html")
        return web.Response(status=404, text="not here")


@contextmanager
def serve_chains() -> Iterator[ChainSite]:
    """Serve a :class:`ChainSite` on 127.0.0.1; yield it with its port set."""
    site = ChainSite()
    with serve_handler(site.handle) as port:
        site.port = port
        try:
            yield site
        finally:
            site.release()  # a held request never outlives the server
