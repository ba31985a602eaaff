"""Kill ``sitemapkit crawl`` with SIGKILL mid-crawl, ``--resume`` it, and compare.

The resumed crawl must produce exactly the sitemap of an uninterrupted crawl,
and no page whose result was committed before the kill may be fetched again.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from cli.crawl_process import cli, kill_at, run, start
from crawl.fixture_site import serve_handler

PAGES = 160
DELAY = 0.02


class SlowSite:
    """A binary tree of pages, each answering after a short delay."""

    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()

    async def handle(self, request: web.Request) -> web.Response:
        self.hits[request.path] += 1
        if request.path == "/robots.txt":
            return web.Response(text="User-agent: *\nDisallow: /never/\n")
        name = request.path.strip("/") or "0"
        if not name.isdigit() or int(name) >= PAGES:
            return web.Response(status=404, text="no")
        i = int(name)
        await asyncio.sleep(DELAY)
        kids = [k for k in (2 * i + 1, 2 * i + 2) if k < PAGES + 3]
        links = "".join(f'<a href="/{k}">{k}</a>' for k in kids)
        return web.Response(
            text=f"<html><head><title>{i}</title></head><body>{links}"
            f'<a href="/">home</a><a href="/never/{i}">x</a></body></html>',
            content_type="text/html",
        )


@pytest.fixture
def slow_site() -> Iterator[tuple[SlowSite, str]]:
    site = SlowSite()

    with serve_handler(site.handle) as port:
        yield site, f"http://127.0.0.1:{port}/"


def done_urls(db: Path) -> set[str]:
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            rows = conn.execute("SELECT url FROM urls WHERE state = 2 AND status IS NOT NULL")
            return {str(r[0]) for r in rows}
        finally:
            conn.close()
    except sqlite3.Error:
        return set()


def sitemap(out: Path) -> set[str]:
    text = (out / "sitemap.xml").read_text()
    return {part.split("</loc>", 1)[0] for part in text.split("<loc>")[1:]}


@pytest.mark.slow
def test_sigkill_then_resume_equals_an_uninterrupted_crawl(
    slow_site: tuple[SlowSite, str], tmp_path: Path
) -> None:
    site, base = slow_site
    ref_out = tmp_path / "ref"
    first = run("crawl", base, "-o", str(ref_out), "--concurrency", "2")
    assert first.returncode == 0, first.stderr
    reference = sitemap(ref_out)
    assert len(reference) == PAGES

    site.hits.clear()
    out = tmp_path / "out"
    db = tmp_path / "state.sqlite"
    args = ("crawl", base, "-o", str(out), "--db", str(db), "--concurrency", "2")
    proc = start(*args, output=subprocess.DEVNULL)
    done = kill_at(proc, lambda: len(done_urls(db)), PAGES // 3)
    assert PAGES // 3 <= done < PAGES, "the kill came too late to test resuming"
    assert not (out / "sitemap.xml").exists()
    # committed before the kill (re-read: the kill may have landed after one more commit)
    committed = done_urls(db)
    hits_before = Counter(site.hits)

    resumed = run("crawl", "--resume", "--db", str(db), "-o", str(out))
    assert resumed.returncode == 0, resumed.stderr
    assert sitemap(out) == reference
    for url in committed:
        path = "/" + url.split("/", 3)[3]
        assert site.hits[path] == hits_before[path] == 1, f"{url} fetched again after resume"
    conn = sqlite3.connect(db)
    try:
        assert (
            conn.execute("SELECT value FROM meta WHERE key = 'state'").fetchone()[0] == "finished"
        )
        assert conn.execute("SELECT COUNT(*) FROM urls WHERE state IN (0, 1)").fetchone()[0] == 0
    finally:
        conn.close()


@pytest.mark.slow
def test_sigint_saves_the_crawl_and_exits_130(
    slow_site: tuple[SlowSite, str], tmp_path: Path
) -> None:
    _site, base = slow_site
    out = tmp_path / "out"
    db = tmp_path / "state.sqlite"
    with subprocess.Popen(
        cli("crawl", base, "-o", str(out), "--db", str(db), "--concurrency", "2"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(done_urls(db)) < 10:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert "--resume" in err
    conn = sqlite3.connect(db)
    try:
        state = conn.execute("SELECT value FROM meta WHERE key = 'state'").fetchone()[0]
        claimed = conn.execute("SELECT COUNT(*) FROM urls WHERE state = 1").fetchone()[0]
    finally:
        conn.close()
    assert (state, claimed) == ("interrupted", 0)
    resumed = run("crawl", "--resume", "--db", str(db), "-o", str(out))
    assert resumed.returncode == 0, resumed.stderr
    assert len(sitemap(out)) == PAGES
