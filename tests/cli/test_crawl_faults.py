"""``sitemapkit crawl`` when things go wrong: a site that is down, a crawl that finds far
fewer pages, SIGTERM, a deadline with a trickling page, a broken ``Content-Length``.

Everything is real: servers on 127.0.0.1 (a raw socket where aiohttp would refuse
to misbehave), the CLI in a subprocess where a signal or a deadline is the point.
"""

from __future__ import annotations

import asyncio
import csv
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from cli.crawl_process import cli
from cli.raw_http import closed_port, response, serve_raw, trickle
from crawl.fixture_site import EXPECTED_SITEMAP_PATHS, FixtureSite, serve_handler
from sitemapkit.cli import main
from sitemapkit.cli.crawl_output import ShrinkError, check_shrink, published_urls
from sitemapkit.cli.display import shorten
from sitemapkit.write.writer import WriterOptions, write_sitemaps


def inventory(out: Path) -> dict[str, dict[str, str]]:
    with (out / "inventory.csv").open(encoding="utf-8", newline="") as fh:
        return {row["url"]: row for row in csv.DictReader(fh)}


def test_crawl_writes_the_inventory_and_the_visual_map(site: FixtureSite, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert main(["crawl", site.base + "/", "-o", str(out), "--max-depth", "1"]) == 0
    assert {p.name for p in out.iterdir() if not p.name.startswith(".")} == {
        "crawl.sqlite",
        "inventory.csv",
        "site-map.html",
        "sitemap.xml",
    }
    rows = inventory(out)
    assert rows[site.base + "/missing"]["reason"] == "http-404"
    assert "<noscript>" in (out / "site-map.html").read_text(encoding="utf-8")
    again = tmp_path / "again"
    args = ["crawl", site.base + "/", "-o", str(again), "--max-depth", "1"]
    assert main([*args, "--no-map", "--no-inventory"]) == 0
    assert {p.name for p in again.iterdir() if not p.name.startswith(".")} == {
        "crawl.sqlite",
        "sitemap.xml",
    }


def test_a_site_that_is_down_publishes_nothing(
    site: FixtureSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["crawl", site.base + "/", "-o", str(out), "--no-map"]) == 0
    before = (out / "sitemap.xml").read_bytes()
    inventory_before = (out / "inventory.csv").read_bytes()
    capsys.readouterr()
    down = f"http://127.0.0.1:{closed_port()}/"
    assert main(["crawl", down, "-o", str(out), "--no-map"]) == 1
    err = capsys.readouterr().err
    assert f"the start URL {down} failed: robots.txt unreachable: connection refused" in err
    assert "nothing published" in err
    assert (out / "sitemap.xml").read_bytes() == before
    assert (out / "inventory.csv").read_bytes() == inventory_before


def test_a_refused_start_page_names_the_refusal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    down = f"http://127.0.0.1:{closed_port()}/"
    assert main(["crawl", down, "-o", str(tmp_path / "o"), "--ignore-robots"]) == 1
    err = capsys.readouterr().err
    assert "failed: connection-error (connection refused by 127.0.0.1:" in err
    assert not (tmp_path / "o" / "sitemap.xml").exists()


def test_a_crawl_that_finds_under_half_stops_unless_allowed(
    site: FixtureSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert main(["crawl", site.base + "/", "-o", str(out), "--no-map"]) == 0
    before = (out / "sitemap.xml").read_bytes()
    capsys.readouterr()
    small = ["crawl", site.base + "/", "-o", str(out), "--no-map", "--max-pages", "3"]
    assert main(small) == 1
    err = capsys.readouterr().err
    total = len(EXPECTED_SITEMAP_PATHS)
    assert f"under half of the {total} URLs in {out / 'sitemap.xml'}: nothing published" in err
    assert "--allow-shrink" in err
    assert (out / "sitemap.xml").read_bytes() == before
    assert main([*small, "--allow-shrink"]) == 0
    assert (out / "sitemap.xml").read_bytes() != before


class SlowPages:
    """A binary tree of pages, each answering after a short delay."""

    async def handle(self, request: web.Request) -> web.Response:
        if request.path == "/robots.txt":
            return web.Response(text="User-agent: *\nAllow: /\n")
        name = request.path.strip("/") or "0"
        if not name.isdigit():
            return web.Response(status=404, text="no")
        await asyncio.sleep(0.05)
        i = int(name)
        links = "".join(f'<a href="/{k}">{k}</a>' for k in (2 * i + 1, 2 * i + 2) if k < 400)
        return web.Response(text=f"<html><body>{links}</body></html>", content_type="text/html")


@pytest.fixture
def slow_pages() -> Iterator[str]:
    pages = SlowPages()

    with serve_handler(pages.handle) as port:
        yield f"http://127.0.0.1:{port}/"


def fetched(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM urls WHERE status = 200").fetchone()[0])
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_sigterm_saves_the_crawl_like_ctrl_c(slow_pages: str, tmp_path: Path) -> None:
    out, db = tmp_path / "out", tmp_path / "state.sqlite"
    args = ("crawl", slow_pages, "-o", str(out), "--db", str(db), "--concurrency", "2")
    with subprocess.Popen(cli(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and fetched(db) < 5:
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        _, err_bytes = proc.communicate(timeout=60)
    err = err_bytes.decode()
    assert proc.returncode == 143, err
    assert "Traceback" not in err
    assert "terminated; the crawl is saved" in err
    assert f"sitemapkit crawl --resume --db {db}" in err
    with sqlite3.connect(db) as conn:
        state = conn.execute("SELECT value FROM meta WHERE key = 'state'").fetchone()[0]
        claimed = conn.execute("SELECT COUNT(*) FROM urls WHERE state = 1").fetchone()[0]
    assert (state, claimed) == ("interrupted", 0)
    assert not (out / "sitemap.xml").exists()


@pytest.mark.slow
@pytest.mark.timeout(60)
def test_max_duration_is_a_deadline_for_requests_in_flight(tmp_path: Path) -> None:
    home = b"<html><body><a href='/trickle'>t</a><a href='/fine'>f</a></body></html>"
    routes = {
        "/robots.txt": response(b"User-agent: *\nAllow: /\n"),
        "/": response(home),
        "/fine": response(b"<html><body>fine</body></html>"),
        "/trickle": trickle,
    }
    out = tmp_path / "out"
    with serve_raw(routes) as server:
        # Before: 4 attempts of up to 70 s each on the trickling page (287 s for a
        # 150 s deadline).  The guard is the subprocess timeout, never a wall clock.
        # The deadline leaves the start-up room on a loaded machine (2 s did not always
        # reach the start URL at load 20), and no parse processes are started.
        argv = ["-o", str(out), "--max-duration", "5", "--no-map", "--workers", "1"]
        done = subprocess.run(
            cli("crawl", server.base + "/", *argv),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "stopped by max-duration: 1 URLs left in the queue" in done.stdout
    rows = inventory(out)
    assert rows[server.base + "/trickle"]["reason"] == "not-crawled"
    assert rows[server.base + "/fine"]["indexable"] == "yes"


def test_content_length_minus_5_is_one_line_and_the_crawl_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = b"<html><body><a href='/neg'>n</a><a href='/fine'>f</a></body></html>"
    routes = {
        "/robots.txt": response(b"", status="404 Not Found"),
        "/": response(home),
        "/fine": response(b"<html><body>fine</body></html>"),
        "/neg": b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: -5\r\n\r\nhello",
    }
    out = tmp_path / "out"
    with serve_raw(routes) as server:
        assert main(["crawl", server.base + "/", "-o", str(out), "--no-map"]) == 0
        assert server.hits["/neg"] == 1  # a response that breaks HTTP is not asked again
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert "bad-response 1" in captured.out
    row = inventory(out)[server.base + "/neg"]
    assert row["reason"] == "bad-response"
    assert row["detail"] == "malformed response: Invalid character in Content-Length: " + (
        "Content-Length: -5"
    )
    assert main(["crawl", "--db", str(out / "crawl.sqlite"), "--why", "/neg"]) == 0
    why = capsys.readouterr().out
    assert "  detail:     malformed response: Invalid character in Content-Length:" in why
    assert len(why.splitlines()) == len([ln for ln in why.splitlines() if ln.strip()])


def test_shorten_keeps_head_tail_and_the_length() -> None:
    url = "https://example.org/" + "a" * 3000 + "/end"
    short = shorten(url)
    assert len(short) == 100
    assert short.startswith("https://example.org/aaa")
    assert short.endswith("a/end")
    assert "[3,024 chars]" in short
    assert shorten("https://example.org/") == "https://example.org/"


def test_the_shrink_guard_counts_every_part_of_an_index(tmp_path: Path) -> None:
    urls = [f"https://example.org/p{i}" for i in range(25)]
    options = WriterOptions(base_url="https://example.org/", max_urls=10, gzip=True)
    write_sitemaps(urls, tmp_path, options)
    assert published_urls(tmp_path) == (tmp_path / "sitemap.xml.gz", 25)
    check_shrink(tmp_path, 13)
    with pytest.raises(ShrinkError, match="found 12 pages, under half of the 25 URLs"):
        check_shrink(tmp_path, 12)
    assert published_urls(tmp_path / "nothing-here") is None
