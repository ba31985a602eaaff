"""``crawl --workers N``: a page holds a connection only while it is fetched.

The parse processes are real and really stopped (SIGSTOP): while they cannot parse,
the crawl goes on fetching until every page it keeps in flight waits for them, far
more pages than ``--concurrency``; the server's own count says it never had more than
``--per-host`` requests at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path

from aiohttp import web

from crawl.fixture_site import serve
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.engine import Crawler
from sitemapkit.crawl.parsepool import (
    IN_FLIGHT,
    MAX_BATCH,
    PAGES_AHEAD,
    PIPE_BYTES,
    ProcessParser,
)
from sitemapkit.crawl.urlnorm import QueryPolicy
from sitemapkit.store.sqlite import SqliteStore

PAGES = 150
CONCURRENCY = 4
PER_HOST = 2


class _Counter:
    """What the server saw: pages answered, and the most requests it had at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pages = 0
        self.active = 0
        self.peak = 0


def _site(seen: _Counter) -> web.Application:
    async def handle(request: web.Request) -> web.Response:
        with seen.lock:
            seen.active += 1
            seen.peak = max(seen.peak, seen.active)
        try:
            await asyncio.sleep(0.002)  # requests overlap if the crawl sends them together
            if request.path == "/robots.txt":
                return web.Response(text="User-agent: *\nAllow: /\n")
            if request.path == "/":
                body = "".join(f'<a href="/p/{i}">{i}</a>' for i in range(PAGES))
                return web.Response(text=f"<title>Home</title>{body}", content_type="text/html")
            with seen.lock:
                seen.pages += 1
            return web.Response(text=f"<title>{request.path}</title>", content_type="text/html")
        finally:
            with seen.lock:
                seen.active -= 1

    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", handle)
    return app


async def _wait_for(what: str, test: Callable[[], bool], guard: float = 60.0) -> None:
    """Poll until ``test()`` holds (the guard only stops a hang; no time is asserted)."""
    try:
        async with asyncio.timeout(guard):
            while not test():
                await asyncio.sleep(0.005)
    except TimeoutError:
        raise AssertionError(f"never saw {what}") from None


async def test_pages_wait_for_the_parse_without_holding_connections(tmp_path: Path) -> None:
    seen = _Counter()
    config = CrawlConfig("http://127.0.0.1/", concurrency=CONCURRENCY, per_host=PER_HOST, workers=2)
    with serve(lambda: _site(seen)) as port:
        config.start_url = f"http://127.0.0.1:{port}/"
        store = SqliteStore(tmp_path / "crawl.sqlite")
        crawler = Crawler(config, store)
        parser = crawler.parser
        assert isinstance(parser, ProcessParser)
        in_flight = CONCURRENCY + 2 * PAGES_AHEAD
        stopped: list[int] = []

        async def stop_the_parse_then_count() -> None:
            # The start page is parsed; then no page is, until the pages in flight are all
            # fetched and waiting.
            await _wait_for("the start page", lambda: parser.parsed >= 1)
            for pid in parser.started:
                os.kill(pid, signal.SIGSTOP)
                stopped.append(pid)
            await _wait_for("pages in flight", lambda: seen.pages >= in_flight)
            for pid in stopped:
                os.kill(pid, signal.SIGCONT)

        await parser.start()  # the crawl's own start() finds it started
        await _wait_for("the parse processes ready", lambda: parser.ready == 2)
        try:
            async with asyncio.TaskGroup() as group:  # a failed watcher cancels the crawl
                group.create_task(stop_the_parse_then_count())
                crawl = group.create_task(crawler.run())
        finally:
            for pid in stopped:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
            store.close()
        result = crawl.result()
    assert result.stats.pages == PAGES + 1
    assert parser.parsed == PAGES + 1
    assert seen.pages == PAGES
    assert seen.peak <= PER_HOST


async def test_pages_are_parsed_here_until_a_parse_process_is_ready() -> None:
    """A small site does not wait for the parse processes to import the parser."""
    parser = ProcessParser(2, QueryPolicy())
    body = b"<title>One</title><a href='/two'>two</a>"
    headers = {"Content-Type": "text/html"}
    try:
        here = await parser.parse(body, "http://x.test/one", headers)  # not started: no process
        assert (parser.inline, parser.parsed) == (1, 0)
        await parser.start()
        await _wait_for("the parse processes ready", lambda: parser.ready == 2)
        there = await parser.parse(body, "http://x.test/one", headers)
        assert (parser.inline, parser.parsed) == (1, 1)
    finally:
        await parser.close()
    assert here == there
    assert [link.url for link in here.facts.links] == ["http://x.test/two"]


async def test_a_parse_process_has_its_next_batch_before_it_answers() -> None:
    """While a parse process works on one batch, the next one is already in its pipe.

    The process is stopped (SIGSTOP) so that it answers nothing: the crawl still sends it
    :data:`IN_FLIGHT` batches (one batch at a time left it idle from each answer until the
    busy event loop sent the next).  Its pipe holds a whole batch at once.
    """
    parser = ProcessParser(1, QueryPolicy())
    headers = {"Content-Type": "text/html"}
    pages = [
        (f"<title>{i}</title><a href='/p/{i + 1}'>next</a>".encode(), f"http://x.test/p/{i}")
        for i in range(3 * MAX_BATCH)
    ]
    stopped: list[int] = []
    try:
        await parser.start()
        await _wait_for("the parse process ready", lambda: parser.ready == 1)
        (pid,) = parser.started
        proc = parser._procs[pid]
        assert proc.stdin is not None
        pipe = proc.stdin.transport.get_extra_info("pipe")
        assert fcntl.fcntl(pipe.fileno(), fcntl.F_GETPIPE_SZ) == PIPE_BYTES
        os.kill(pid, signal.SIGSTOP)
        stopped.append(pid)
        parses = [asyncio.create_task(parser.parse(b, u, headers)) for b, u in pages]
        await _wait_for("two batches sent", lambda: parser.unanswered().get(pid) == IN_FLIGHT)
        os.kill(pid, signal.SIGCONT)
        stopped.clear()
        got = await asyncio.gather(*parses)
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
        await parser.close()
    assert IN_FLIGHT == 2
    assert parser.parsed == len(pages)
    assert [[link.url for link in p.facts.links] for p in got] == [
        [f"http://x.test/p/{i + 1}"] for i in range(len(pages))
    ]
