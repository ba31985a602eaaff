"""robots.txt once per origin, RFC 9309 status rules, Crawl-delay pacing, per-host limits."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.fetch import Fetcher, make_session
from sitemapkit.crawl.politeness import Politeness, origin_of, robots_token

ServerFactory = Callable[[web.Application], Awaitable[TestServer]]


def robots_app(status: int, body: str, hits: list[float], delay: float = 0.0) -> web.Application:
    async def robots(request: web.Request) -> web.Response:
        hits.append(time.monotonic())
        await asyncio.sleep(delay)
        return web.Response(status=status, text=body)

    app = web.Application()
    app.router.add_get("/robots.txt", robots)
    return app


async def polite_for(
    server: TestServer, **kw: object
) -> tuple[Politeness, Callable[[], Awaitable[None]]]:
    session = make_session(CrawlConfig(str(server.make_url("/"))))
    fetcher = Fetcher(session, max_body=100_000, retries=0, backoff_base=0.01)
    polite = Politeness(fetcher, user_agent="sitemapkit/1.0 (+x)", **kw)  # type: ignore[arg-type]
    return polite, session.close


def test_token_and_origin() -> None:
    assert (
        robots_token("sitemapkit/0.1.0 (+https://github.com/sitemapkit/sitemapkit)") == "sitemapkit"
    )
    assert origin_of("https://a.example:8443/x/y?z") == "https://a.example:8443"


async def test_robots_is_fetched_once_while_workers_wait(aiohttp_server: ServerFactory) -> None:
    hits: list[float] = []
    server = await aiohttp_server(
        robots_app(200, "User-agent: sitemapkit\nDisallow: /no/\n", hits, delay=0.1)
    )
    polite, close = await polite_for(server)
    base = str(server.make_url("/"))
    try:
        verdicts = await asyncio.gather(
            *(polite.allowed(base + ("no/x" if i % 2 else "yes")) for i in range(20))
        )
    finally:
        await close()
    assert len(hits) == 1
    assert verdicts == [i % 2 == 0 for i in range(20)]


async def test_rfc9309_status_rules(aiohttp_server: ServerFactory) -> None:
    for status, expected in ((404, True), (403, True), (500, False)):
        server = await aiohttp_server(robots_app(status, "Disallow: /", []))
        polite, close = await polite_for(server)
        try:
            assert await polite.allowed(str(server.make_url("/page"))) is expected, status
        finally:
            await close()


async def test_ignoring_robots_never_fetches_it(aiohttp_server: ServerFactory) -> None:
    hits: list[float] = []
    server = await aiohttp_server(robots_app(200, "User-agent: *\nDisallow: /\n", hits))
    polite, close = await polite_for(server, respect_robots=False)
    try:
        assert await polite.allowed(str(server.make_url("/x")))
    finally:
        await close()
    assert hits == []


@pytest.mark.parametrize(
    "robots",
    [
        "User-agent: *\nCrawl-delay: 0.2\nAllow: /\n",
        # Request-rate paces the crawl as Crawl-delay does (protego read it, nothing used it)
        "User-agent: *\nRequest-rate: 5/1s\n",
    ],
    ids=["crawl-delay", "request-rate"],
)
async def test_a_robots_pace_spaces_requests(aiohttp_server: ServerFactory, robots: str) -> None:
    server = await aiohttp_server(robots_app(200, robots, []))
    polite, close = await polite_for(server, per_host=4)
    origin = origin_of(str(server.make_url("/")))
    starts: list[float] = []

    async def one() -> None:
        async with polite.slot(origin):
            starts.append(time.monotonic())

    try:
        await polite.robots(origin)
        before = time.monotonic()
        await asyncio.gather(*(one() for _ in range(4)))
    finally:
        await close()
    # A lower bound only (a loaded machine may make anything slower, never faster):
    # four paced starts 0.2 s apart cannot all have begun within 0.6 s.
    assert max(starts) - before >= 0.6 - 1e-3, [t - before for t in starts]


async def test_per_host_concurrency_is_bounded() -> None:
    session = make_session(CrawlConfig("http://127.0.0.1/"))
    polite = Politeness(Fetcher(session, max_body=10), user_agent="x", per_host=2)
    active = peak = 0

    async def one() -> None:
        nonlocal active, peak
        async with polite.slot("http://h"):
            active += 1
            peak = max(peak, active)
            await asyncio.sleep(0.01)
            active -= 1

    try:
        await asyncio.gather(*(one() for _ in range(10)))
    finally:
        await session.close()
    assert peak == 2


async def test_unreachable_robots_is_asked_again_later(
    aiohttp_server: ServerFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sitemapkit.crawl import politeness

    answers = [500, 200]
    seen: list[int] = []

    async def robots(request: web.Request) -> web.Response:
        status = answers[min(len(seen), 1)]
        seen.append(status)
        return web.Response(status=status, text="User-agent: *\nAllow: /\n")

    app = web.Application()
    app.router.add_get("/robots.txt", robots)
    server = await aiohttp_server(app)
    polite, close = await polite_for(server)
    page = str(server.make_url("/page"))
    try:
        assert not await polite.allowed(page)  # 5xx: disallow everything for now
        assert not await polite.allowed(page)  # and not asked again at once
        monkeypatch.setattr(politeness, "ROBOTS_RETRY_AFTER", 0.0)
        assert await polite.allowed(page)
    finally:
        await close()
    assert seen == [500, 200]


async def test_concurrency_bounds_requests_over_all_hosts() -> None:
    """``--concurrency`` counts connections, not pages: the slots of every host share it."""
    session = make_session(CrawlConfig("http://127.0.0.1/"))
    polite = Politeness(Fetcher(session, max_body=10), user_agent="x", per_host=3, concurrency=4)
    active = peak = 0
    per_host_peak: dict[str, int] = {}
    per_host_now: dict[str, int] = {}

    async def one(origin: str) -> None:
        nonlocal active, peak
        async with polite.slot(origin):
            active += 1
            per_host_now[origin] = per_host_now.get(origin, 0) + 1
            peak = max(peak, active)
            per_host_peak[origin] = max(per_host_peak.get(origin, 0), per_host_now[origin])
            await asyncio.sleep(0.01)
            per_host_now[origin] -= 1
            active -= 1

    try:
        await asyncio.gather(*(one(f"http://h{i % 3}") for i in range(30)))
    finally:
        await session.close()
    assert peak == 4
    assert max(per_host_peak.values()) <= 3


async def test_a_slot_is_given_back_when_its_request_fails_or_is_cancelled() -> None:
    """The host's and the crawl's slots come back whatever ends the request (a fetch that
    raises, a task cancelled while it waits for a slot), or the crawl would stall."""
    session = make_session(CrawlConfig("http://127.0.0.1/"))
    polite = Politeness(Fetcher(session, max_body=10), user_agent="x", per_host=1, concurrency=1)
    try:
        with pytest.raises(RuntimeError):
            async with polite.slot("http://h"):
                raise RuntimeError("the fetch failed")
        held = asyncio.Event()

        async def holder() -> None:
            async with polite.slot("http://h"):
                held.set()
                await asyncio.sleep(0.05)

        first = asyncio.create_task(holder())
        await held.wait()
        waiting = asyncio.create_task(polite.slot("http://h").__aenter__())
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        await first
        async with asyncio.timeout(1):  # the host's and the crawl's slot free: taken at once
            async with polite.slot("http://h"):
                pass
            async with polite.slot("http://other"):
                pass
    finally:
        await session.close()
