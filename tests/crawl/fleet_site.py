"""A site on several loopback hosts (127.0.0.1, .2, .3) that logs every request it serves.

The fleet tests judge politeness from the server's side, as a site owner would:
each request's host, path, start and end (``time.monotonic`` in this process,
which serves every host) land in one :class:`AccessLog`, and
:meth:`AccessLog.most_at_once` / :meth:`AccessLog.shortest_gap` read the
concurrency and the pacing each host saw across all the crawling processes.
"""

from __future__ import annotations

import asyncio
import bisect
import itertools
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

from aiohttp import web

from crawl.fixture_site import html, links, serve

HOSTS = ("127.0.0.1", "127.0.0.2", "127.0.0.3")
PAGES_PER_HOST = 24
#: Each page takes this long to serve, so requests overlap when a crawler lets them.
SERVE_SECONDS = 0.03


@dataclass
class AccessLog:
    """Every request served: ``(host, path, start, end)``."""

    entries: list[tuple[str, str, float, float]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, host: str, path: str, start: float, end: float) -> None:
        with self.lock:
            self.entries.append((host, path, start, end))

    def hits(self, host: str) -> Counter[str]:
        return Counter(path for h, path, _, _ in self.entries if h == host)

    def most_at_once(self, host: str) -> int:
        """The most requests to ``host`` in progress at one moment."""
        events = sorted(
            (t, step)
            for h, _, start, end in self.entries
            if h == host
            for t, step in ((start, 1), (end, -1))
        )
        now = most = 0
        for _, step in events:  # an end at the same instant as a start counts first
            now += step
            most = max(most, now)
        return most

    def _starts(self, host: str) -> list[float]:
        return sorted(s for h, p, s, _ in self.entries if h == host and p != "/robots.txt")

    def shortest_gap(self, host: str) -> float:
        """The shortest time between two request starts on ``host`` (robots.txt excluded)."""
        return min((b - a for a, b in itertools.pairwise(self._starts(host))), default=1e9)

    def most_in(self, host: str, seconds: float) -> int:
        """The most request starts on ``host`` within any ``seconds`` (robots.txt excluded)."""
        starts = self._starts(host)
        return max(
            (bisect.bisect_left(starts, s + seconds) - i for i, s in enumerate(starts)), default=0
        )


def _page(host: str, port_of: dict[str, int], n: int) -> str:
    """Page ``n`` of ``host``: links to the next pages here and to the other hosts' pages.

    The root links every page of its host at once, so the frontier is wide enough
    for every worker to have work from the start.
    """
    ahead = range(1, PAGES_PER_HOST) if n == 0 else (n + 1, n + 2)
    here = [f"/p/{k}" for k in ahead if k < PAGES_PER_HOST]
    there = [f"http://{other}:{port_of[other]}/p/{n}" for other in HOSTS if other != host and n > 0]
    return html(f"{host} page {n}", links(*here, *there))


@contextmanager
def serve_hosts(robots: dict[str, str] | None = None) -> Iterator[tuple[dict[str, str], AccessLog]]:
    """Serve the site on every host of :data:`HOSTS`; yield each host's base URL and the log."""
    log = AccessLog()
    port_of: dict[str, int] = {}
    robots = robots or {}

    def factory_for(host: str) -> web.Application:
        async def handle(request: web.Request) -> web.Response:
            start = time.monotonic()
            try:
                if request.path == "/robots.txt":
                    return web.Response(text=robots.get(host, "User-agent: *\nAllow: /\n"))
                await asyncio.sleep(SERVE_SECONDS)
                if request.path == "/":
                    return web.Response(text=_page(host, port_of, 0), content_type="text/html")
                number = request.path.removeprefix("/p/")
                if not number.isdigit() or int(number) >= PAGES_PER_HOST:
                    return web.Response(status=404, text="not here")
                body = _page(host, port_of, int(number))
                return web.Response(text=body, content_type="text/html")
            finally:
                log.add(host, request.path, start, time.monotonic())

        app = web.Application()
        app.router.add_route("GET", "/{tail:.*}", handle)
        return app

    with ExitStack() as stack:
        for host in HOSTS:
            port_of[host] = stack.enter_context(serve(lambda h=host: factory_for(h), host=host))
        yield {host: f"http://{host}:{port}" for host, port in port_of.items()}, log


def all_pages(bases: dict[str, str]) -> set[str]:
    """Every URL of the site a crawl from the first host's root finds (other roots: unlinked)."""
    pages = {bases[HOSTS[0]] + "/"}
    pages |= {f"{base}/p/{n}" for base in bases.values() for n in range(1, PAGES_PER_HOST)}
    return pages
