"""Being a good guest: robots.txt once per origin, Crawl-delay, per-host limits and rate.

Why a separate module: the rules are per *origin* (scheme, host, port), while
the engine thinks in URLs.  :class:`Politeness` keeps one small
:class:`_Origin` per origin — a future for its robots.txt that every worker
awaits (so it is fetched exactly once, while the others wait), a semaphore for
the per-host concurrency, and the next moment a request may start (the rate
and ``Crawl-delay``).  The number of origins of one crawl is small, so this
state is the only per-host memory the crawl keeps.

A slot is a *connection*, not a page: the engine holds one only while it fetches
(``--concurrency`` bounds them all, ``--per-host`` each origin's), so pages that wait
for a parse process or for the store hold none, and more pages than connections can
be in flight without the server ever seeing more than ``--per-host`` at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Protocol

from sitemapkit.crawl.fetch import Fetcher
from sitemapkit.limits import MAX_ROBOTS_BYTES
from sitemapkit.urls import origin_of

#: We do not wait longer than this between two requests, whatever Crawl-delay says.
MAX_CRAWL_DELAY = 30.0
#: Seconds after which an unreachable (5xx, 429, network error) robots.txt is asked again.
ROBOTS_RETRY_AFTER = 60.0


class RobotsRules(Protocol):
    """What the crawl needs from a parsed robots.txt (see :mod:`sitemapkit.crawl.robots`)."""

    def allowed(self, url: str, ua: str) -> bool: ...
    def pace(self, ua: str) -> float | None: ...
    @property
    def sitemaps(self) -> Sequence[str]: ...


def robots_token(user_agent: str) -> str:
    """The product token robots.txt groups are matched on (``sitemapkit``)."""
    token = user_agent.split("/", 1)[0].split(" ", 1)[0].strip()
    return token or user_agent


class _Origin:
    __slots__ = ("delay", "last_start", "pace", "ready", "robots", "robots_at", "sem")

    def __init__(self, per_host: int) -> None:
        self.robots: asyncio.Future[RobotsRules | None] | None = None
        #: The rules once they are final (not an unreachable robots.txt to ask again):
        #: what every later URL of the origin is checked against, with no wait.
        self.ready: RobotsRules | None = None
        self.robots_at = 0.0
        self.sem = asyncio.Semaphore(per_host)
        #: when the last paced request actually started (loop time), and the lock
        #: that makes pacing measure real starts rather than reservations, so a
        #: late-waking task can never bring the next request closer than the delay
        self.last_start = float("-inf")
        self.pace = asyncio.Lock()
        self.delay = 0.0


class Politeness:
    """Per-origin robots.txt, concurrency and pacing for one crawl."""

    def __init__(
        self,
        fetcher: Fetcher,
        *,
        user_agent: str,
        respect_robots: bool = True,
        per_host: int = 8,
        rate: float | None = None,
        concurrency: int | None = None,
    ) -> None:
        self.fetcher = fetcher
        self.user_agent = user_agent
        self.token = robots_token(user_agent)
        self.respect_robots = respect_robots
        self.per_host = per_host
        self.interval = 0.0 if not rate else 1.0 / rate
        #: Requests in flight over all origins (``--concurrency``; None: no bound here).
        self._requests = None if concurrency is None else asyncio.Semaphore(concurrency)
        self._origins: dict[str, _Origin] = {}
        #: Sitemaps each origin's robots.txt lists (for ``--seed-from-sitemaps``).
        self.sitemaps: dict[str, list[str]] = {}
        self.robots_fetched = 0

    def _origin(self, origin: str) -> _Origin:
        state = self._origins.get(origin)
        if state is None:
            state = _Origin(self.per_host)
            state.delay = self.interval
            self._origins[origin] = state
        return state

    async def robots(self, origin: str) -> RobotsRules | None:
        """The origin's robots rules, fetched once; ``None`` when robots are ignored."""
        if not self.respect_robots:
            return None
        state = self._origin(origin)
        if state.robots is not None and state.robots.done() and not state.robots.exception():
            done = state.robots.result()
            stale = asyncio.get_running_loop().time() - state.robots_at > ROBOTS_RETRY_AFTER
            if done is not None and getattr(done, "retry", False) and stale:
                state.robots = None  # unreachable last time: RFC 9309 says try again later
        if state.robots is None:
            state.robots = asyncio.get_running_loop().create_future()
            try:
                rules = await self._fetch_robots(origin)
            except BaseException as exc:
                state.robots.set_exception(exc)
                state.robots.exception()  # consumed: the first caller re-raises below
                state.robots = None
                raise
            state.robots.set_result(rules)
            state.robots_at = asyncio.get_running_loop().time()
            if not getattr(rules, "retry", False):
                state.ready = rules
            delay = rules.pace(self.token)
            if delay:
                state.delay = max(state.delay, min(float(delay), MAX_CRAWL_DELAY))
            return rules
        return await asyncio.shield(state.robots)

    async def _fetch_robots(self, origin: str) -> RobotsRules:
        status, body, error = await self._download_robots(origin)
        return self._rules(origin, status, body, error)

    async def _download_robots(self, origin: str) -> tuple[int | None, bytes, str | None]:
        """Fetch ``origin``'s robots.txt: ``(status, body, error)``, status None if unreachable."""
        url = origin + "/robots.txt"
        # robots.txt may redirect (http -> https is common); RFC 9309 says follow up to 5.
        keep = MAX_ROBOTS_BYTES + 1  # one more: the policy sees it was cut
        response = await self.fetcher.get(url, keep_bytes=keep)
        hops = 0
        while response.is_redirect and hops < 5 and response.location:
            hops += 1
            response = await self.fetcher.get(response.location, keep_bytes=keep)
        self.robots_fetched += 1
        status = response.status
        error = response.error_detail
        if response.is_redirect:
            error = f"more than 5 redirects from {url}"
        if response.error is not None or response.is_redirect:
            status = None  # unreachable: RFC 9309 says disallow everything
        return status, response.body[:keep], error

    def _rules(
        self, origin: str, status: int | None, body: bytes, error: str | None
    ) -> RobotsRules:
        """The policy of a robots.txt answer (and the sitemaps it lists, remembered)."""
        from sitemapkit.crawl.robots import RobotsPolicy

        url = origin + "/robots.txt"
        rules: RobotsRules = RobotsPolicy.from_response(status, body, url=url, error=error)
        self.sitemaps[origin] = list(rules.sitemaps)
        return rules

    async def allowed(self, url: str) -> bool:
        """May ``url`` be fetched (robots.txt fetched first if its origin's is not known)?"""
        if not self.respect_robots:
            return True
        origin = origin_of(url)
        state = self._origins.get(origin)
        rules = None if state is None else state.ready
        if rules is None:  # not fetched yet, or to be asked again: robots() decides
            rules = await self.robots(origin)
            if rules is None:  # pragma: no cover - robots() answers None only when not respected
                return True
        return rules.allowed(url, self.token)

    async def refusal(self, url: str) -> str | None:
        """Why robots.txt refuses ``url`` when it was not a rule but an outage, else None.

        RFC 9309 says an unreachable robots.txt disallows everything; the inventory
        and the start-URL message then say what failed (connection refused, HTTP 503).
        """
        rules = await self.robots(origin_of(url))
        if rules is None or getattr(rules, "mode", None) != "disallow-all":
            return None
        return str(getattr(rules, "reason", "")) or None

    def slot(self, origin: str) -> AbstractAsyncContextManager[None]:
        """Hold one of the origin's connections, starting no earlier than its pace allows.

        The origin's slot first, then one of the crawl's: a page waiting for a busy host
        holds none of the connections other hosts could use.  The pace comes last, so it
        measures when requests really start.
        """
        return _Slot(self._origin(origin), self._requests)


class _Slot:
    """:meth:`Politeness.slot`: a class, not a generator (one per request: an
    ``asynccontextmanager`` made a generator and two context objects each time)."""

    __slots__ = ("_requests", "_state")

    def __init__(self, state: _Origin, requests: asyncio.Semaphore | None) -> None:
        self._state = state
        self._requests = requests

    async def __aenter__(self) -> None:
        state, requests = self._state, self._requests
        await state.sem.acquire()
        try:
            if requests is not None:
                await requests.acquire()
            try:
                if state.delay > 0:
                    await _paced(state)
            except BaseException:
                if requests is not None:
                    requests.release()
                raise
        except BaseException:
            state.sem.release()
            raise

    async def __aexit__(self, *exc: object) -> None:
        if self._requests is not None:
            self._requests.release()
        self._state.sem.release()


async def _paced(state: _Origin) -> None:
    """Wait until the origin's delay has passed since its last request started."""
    loop = asyncio.get_running_loop()
    async with state.pace:
        wait = state.last_start + state.delay - loop.time()
        while wait > 0:
            await asyncio.sleep(wait)
            wait = state.last_start + state.delay - loop.time()
        state.last_start = loop.time()
