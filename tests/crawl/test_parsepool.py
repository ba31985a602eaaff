"""``crawl --workers N``: pages parsed in a pool of processes give the same crawl.

Real parts only: the demo site and the trap-laden fixture site on 127.0.0.1, the
real CLI, real parse processes killed with a real SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import pickle
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from crawl.fixture_site import serve, serve_site
from sitemapkit.cli import main
from sitemapkit.cli.crawl import _resumed_config
from sitemapkit.crawl import heap, parseworker
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.engine import Crawler, sitemap_entries
from sitemapkit.crawl.forked import may_fork
from sitemapkit.crawl.parsepool import (
    MAX_PARSE_ATTEMPTS,
    MAX_WORKERS,
    PARSE_NICENESS,
    InlineParser,
    ProcessParser,
    default_workers,
    make_parser,
)
from sitemapkit.crawl.parseworker import FRAME
from sitemapkit.crawl.urlnorm import QueryPolicy
from sitemapkit.demo.server import make_app
from sitemapkit.store import iter_page_records
from sitemapkit.store.sqlite import SqliteStore


def _crawl_cli(url: str, out: Path, *extra: str) -> str:
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        # --render never: parse processes are the subject, not the demo's lamp finder
        args = ["crawl", url, "-o", str(out), "--no-map", "--concurrency", "1", "--render", "never"]
        code = main([*args, *extra])
    assert code == 0, stdout.getvalue()
    return stdout.getvalue()


@contextlib.contextmanager
def _demo() -> Iterator[str]:
    with serve(make_app) as port:
        yield f"http://127.0.0.1:{port}/"


def _crawl_program(url: str, out: Path, *extra: str) -> None:
    """The crawl as users run it, a program of its own: one thread, so its parse
    processes are forked (in this process, the test servers' threads forbid it)."""
    args = ["crawl", url, "-o", str(out), "--no-map", "--concurrency", "1", "--render", "never"]
    done = subprocess.run(
        [sys.executable, "-m", "sitemapkit", *args, *extra],
        capture_output=True,
        text=True,
        timeout=300,  # a hang guard only
        check=False,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("which", ["demo", "traps"])
@pytest.mark.parametrize("how", ["here", "program"])
def test_workers_give_the_same_sitemap_and_inventory(which: str, how: str, tmp_path: Path) -> None:
    """One page at a time (``--concurrency 1``) the order is fixed, so the files are
    byte for byte the same with the pool and without it; parse processes started as
    programs (``here``: threads run beside the crawl) or forked (``program``)."""
    crawl = _crawl_cli if how == "here" else _crawl_program
    with contextlib.ExitStack() as stack:
        if which == "demo":
            base = stack.enter_context(_demo())
        else:
            base = stack.enter_context(serve_site()).base + "/"
        crawl(base, tmp_path / "one", "--workers", "1")
        crawl(base, tmp_path / "two", "--workers", "2")
    for name in ("sitemap.xml", "inventory.csv"):
        one = (tmp_path / "one" / name).read_bytes()
        assert one == (tmp_path / "two" / name).read_bytes(), name
    assert one.count(b"\n") > 20  # a real crawl, not two empty files


def test_the_workers_setting_is_kept_for_resume(tmp_path: Path) -> None:
    with _demo() as base:
        db = tmp_path / "crawl.sqlite"
        out = tmp_path / "out"
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            first = ["crawl", base, "-o", str(out), "--db", str(db), "--max-pages", "3"]
            assert main([*first, "--workers", "3"]) == 0
            assert _stored(db).workers == 3
            assert main(["crawl", "--resume", "--db", str(db), "-o", str(out)]) == 0
    store = SqliteStore(db)
    try:  # what a resume runs with: the stored setting, or the one asked for
        assert _resumed_config(store, db, None, None, None).workers == 3
        assert _resumed_config(store, db, None, None, None, 1).workers == 1
    finally:
        store.close()


def _stored(db: Path) -> CrawlConfig:
    store = SqliteStore(db)
    try:
        return CrawlConfig.from_json(store.get_meta("config") or "{}")
    finally:
        store.close()


def test_default_workers_is_the_cores_capped() -> None:
    assert 1 <= default_workers() <= MAX_WORKERS
    assert default_workers() == min(len(os.sched_getaffinity(0)), MAX_WORKERS)
    assert isinstance(make_parser(1, QueryPolicy()), InlineParser)
    assert isinstance(make_parser(2, QueryPolicy()), ProcessParser)


# --- a dead parse process -----------------------------------------------------------

#: A page big enough that its parse takes long enough to be caught in the act.
BIG_LINKS = 60_000


def _big_page() -> str:
    rows = "".join(
        f'<tr><td><a href="/p/{i % 40}">row {i}</a> some text {i}</td></tr>'
        for i in range(BIG_LINKS)
    )
    return f"<!doctype html><html><head><title>Big</title></head><body><table>{rows}</table>"


def _site() -> web.Application:
    big = _big_page()

    async def handle(request: web.Request) -> web.Response:
        path = request.path
        if path == "/robots.txt":
            return web.Response(text="User-agent: *\nAllow: /\n")
        if path == "/":
            body = '<a href="/big">big</a>' + "".join(f'<a href="/p/{i}">{i}</a>' for i in range(8))
            return web.Response(text=f"<title>Home</title>{body}", content_type="text/html")
        if path == "/big":
            return web.Response(text=big, content_type="text/html")
        if path.startswith("/p/"):
            return web.Response(text=f"<title>{path}</title>", content_type="text/html")
        return web.Response(status=404)

    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", handle)
    return app


async def _crawl_killing(base: str, db: Path, kills: int | None) -> tuple[Crawler, int]:
    """Crawl ``base`` with 2 parse processes, SIGKILLing the one that holds /big (``kills``
    times, or whenever it does); the number of kills done."""
    config = CrawlConfig(base, workers=2, concurrency=4)
    store = SqliteStore(db)
    crawler = Crawler(config, store)
    parser = crawler.parser
    assert isinstance(parser, ProcessParser)
    await parser.start()  # ready before the crawl, or the small site is parsed in-process
    async with asyncio.timeout(60):  # a hang guard only
        while parser.ready < 2:
            await asyncio.sleep(0.005)
    done = 0

    async def killer() -> None:
        nonlocal done
        killed: set[int] = set()
        while kills is None or done < kills:
            for pid, urls in parser.busy().items():
                if any(u.endswith("/big") for u in urls) and pid not in killed:
                    os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
                    done += 1
            await asyncio.sleep(0.001)

    task = asyncio.create_task(killer())
    try:
        await crawler.run()
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        store.close()
    return crawler, done


def _pages(db: Path) -> dict[str, tuple[str | None, int | None, int]]:
    return {r.url: (r.reason, r.status, r.outlinks) for r in iter_page_records(db)}


async def test_a_killed_parse_process_is_replaced_and_its_page_parsed_again(
    tmp_path: Path,
) -> None:
    with serve(_site) as port:
        base = f"http://127.0.0.1:{port}/"
        crawler, kills = await _crawl_killing(base, tmp_path / "killed.sqlite", 1)
        store = SqliteStore(tmp_path / "calm.sqlite")
        try:
            await Crawler(CrawlConfig(base, workers=1, concurrency=4), store).run()
        finally:
            store.close()
    assert kills == 1
    parser = crawler.parser
    assert isinstance(parser, ProcessParser)
    assert parser.replaced == 1
    killed, calm = _pages(tmp_path / "killed.sqlite"), _pages(tmp_path / "calm.sqlite")
    assert killed == calm
    assert killed[base + "big"] == (None, 200, 40)
    store = SqliteStore(tmp_path / "killed.sqlite")
    try:
        listed = {e.loc for e in sitemap_entries(store)}
    finally:
        store.close()
    assert base + "big" in listed


async def test_a_page_that_kills_every_parse_process_is_given_up(tmp_path: Path) -> None:
    with serve(_site) as port:
        base = f"http://127.0.0.1:{port}/"
        crawler, kills = await _crawl_killing(base, tmp_path / "killed.sqlite", None)
    # Only a death while the page was alone counts an attempt; whether /big shared its
    # first batch with other pages depends on timing, so one more kill may be needed.
    assert MAX_PARSE_ATTEMPTS <= kills <= MAX_PARSE_ATTEMPTS + 1
    pages = _pages(tmp_path / "killed.sqlite")
    assert pages[base + "big"][0] == "parse-failed"
    assert pages[base + "p/3"] == (None, 200, 0)  # the rest of the crawl went on
    parser = crawler.parser
    assert isinstance(parser, ProcessParser)
    assert len(parser.started) == 2 + kills
    assert parser.replaced == kills
    for pid in parser.started:  # every one ended and was reaped
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_the_stored_config_round_trips_workers() -> None:
    config = CrawlConfig("http://example.test/", workers=4)
    assert json.loads(config.to_json())["workers"] == 4
    assert CrawlConfig.from_json(config.to_json()).workers == 4


# --- what a parse process costs ------------------------------------------------------


def _batch(pages: list[tuple[bytes, str]]) -> bytes:
    request = pickle.dumps(
        (QueryPolicy(), [(b, u, [("content-type", "text/html")], False) for b, u in pages])
    )
    return FRAME.pack(len(request)) + request


def test_a_parse_process_trims_its_heap_only_after_a_big_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A trim after every batch hands back pages the next batch faults in again (a sixth
    of a JDK page's parse); only a batch of BIG_BODY bytes or more is followed by one."""
    trims: list[int] = []
    monkeypatch.setattr(heap, "trim_heap", lambda: trims.append(1) or True)
    small = [(b"<title>a</title><a href='/b'>b</a>", f"http://x.test/{i}") for i in range(4)]
    big = [(b"<p>" + b"x" * heap.BIG_BODY + b"</p>", "http://x.test/big")]
    stdout = io.BytesIO()
    parseworker.serve(io.BytesIO(_batch(small) + _batch(small) + _batch(big)), stdout)
    answers = []
    data = memoryview(stdout.getvalue())
    while data:
        size = FRAME.unpack(data[: FRAME.size])[0]
        answers.append(pickle.loads(data[FRAME.size : FRAME.size + size]))
        data = data[FRAME.size + size :]
    assert [len(a) for a in answers] == [4, 4, 1]
    assert all(kind == "ok" for batch in answers for kind, _ in batch)
    assert trims == [1]  # after the big batch only


async def test_parse_processes_run_nicer_than_the_crawl() -> None:
    """The event loop paces the crawl: parse processes must not take its core."""
    parser = ProcessParser(2, QueryPolicy())
    await parser.start()
    try:
        ours = os.getpriority(os.PRIO_PROCESS, 0)
        for pid in parser.started:
            assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, ours + PARSE_NICENESS)
    finally:
        await parser.close()


async def test_parse_processes_forked_from_the_crawl_parse_and_are_replaced() -> None:
    """Forked parse processes need no start: their facts equal the crawl's own; a killed
    one is replaced by a started one; every one is reaped at the end."""
    pages = [
        (f"<title>{i}</title><a href='/p/{i + 1}'>next</a>".encode(), f"http://x.test/p/{i}")
        for i in range(40)
    ]
    headers = {"Content-Type": "text/html"}
    here = InlineParser(QueryPolicy())
    expected = [await here.parse(body, url, headers) for body, url in pages]
    parser = ProcessParser(2, QueryPolicy(), fork=True)
    try:
        await parser.start()
        assert parser.forked == 2
        ours = Path("/proc/self/cmdline").read_bytes()
        for pid in parser.started:  # the crawl's own program, not a new interpreter's
            assert Path(f"/proc/{pid}/cmdline").read_bytes() == ours
        # Their ready frames are read by the pool's own tasks: until those have run, a page
        # is parsed here (on a loaded machine all 40 were, and ``inline`` said 40).
        async with asyncio.timeout(60):  # a hang guard only
            while parser.ready < 2:
                await asyncio.sleep(0.005)
        first = await asyncio.gather(*(parser.parse(b, u, headers) for b, u in pages))
        os.kill(parser.started[0], signal.SIGKILL)
        async with asyncio.timeout(60):  # a hang guard only
            while parser.replaced < 1 or parser.ready < 2:
                await asyncio.sleep(0.005)
        second = await asyncio.gather(*(parser.parse(b, u, headers) for b, u in pages))
    finally:
        await parser.close()
    assert first == second == expected
    assert parser.inline == 0
    assert (parser.forked, len(parser.started)) == (2, 3)
    for pid in parser.started:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_no_fork_while_another_thread_runs() -> None:
    """A thread holding a lock at the fork would leave the child waiting for it forever."""
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert not may_fork()
    finally:
        release.set()
        other.join()
