"""What ``crawl`` publishes is what ``inventory`` and ``visualize`` make of its store.

``crawl`` writes its inventory and builds its map from one read of the store
(issue 13: reading the records twice was a third of their cost); the files must
stay exactly what the two commands write from the same database.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from aiohttp import web

from crawl.fixture_site import FixtureSite, serve_handler
from sitemapkit.cli import main
from sitemapkit.cli.inventory import COLUMNS, record_row
from sitemapkit.model import PageRecord

#: The minute the page was drawn (header) and the second (the data's ``generated``).
_WHEN = re.compile(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d\+00:00)?")


def test_crawl_publishes_what_inventory_and_visualize_write(
    site: FixtureSite, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    assert main(["crawl", site.base + "/", "-o", str(out), "--workers", "1"]) == 0
    db = str(out / "crawl.sqlite")
    assert main(["inventory", db, "-o", str(tmp_path / "inventory.csv")]) == 0
    assert (out / "inventory.csv").read_bytes() == (tmp_path / "inventory.csv").read_bytes()
    assert main(["visualize", db, "-o", str(tmp_path / "map.html")]) == 0
    ours = _WHEN.sub("WHEN", (out / "site-map.html").read_text(encoding="utf-8"))
    theirs = _WHEN.sub("WHEN", (tmp_path / "map.html").read_text(encoding="utf-8"))
    assert ours == theirs
    assert len((out / "inventory.csv").read_text().splitlines()) > 20


def test_crawl_without_one_of_them(site: FixtureSite, tmp_path: Path) -> None:
    for flag, absent, present in (
        ("--no-map", "site-map.html", "inventory.csv"),
        ("--no-inventory", "inventory.csv", "site-map.html"),
    ):
        out = tmp_path / flag
        assert main(["crawl", site.base + "/", "-o", str(out), "--workers", "1", flag]) == 0
        assert not (out / absent).exists()
        assert (out / present).stat().st_size > 0


def test_a_row_is_written_in_the_column_order() -> None:
    """CSV rows are ``record_row``'s values in order: its keys are the header."""
    assert tuple(record_row(PageRecord("http://a/", status=200))) == COLUMNS


def test_a_crawl_with_no_indexable_page_publishes_no_sitemap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Every page ``noindex``: an empty ``<urlset>`` would fail the sitemaps.org XSD, so the
    crawl publishes no sitemap, exits 1 and says why and where to look; the store is kept."""

    async def handle(request: web.Request) -> web.Response:
        body = '<meta name="robots" content="noindex"><a href="/b">b</a><a href="/c">c</a>'
        return web.Response(text=f"<html><head>{body}</head></html>", content_type="text/html")

    out = tmp_path / "out"
    with serve_handler(handle) as port:
        code = main(["crawl", f"http://127.0.0.1:{port}/", "-o", str(out), "--render", "never"])
    captured = capsys.readouterr()
    assert code == 1
    errors = captured.err.strip().splitlines()
    assert errors[-1].startswith(f"sitemapkit: error: nothing written to {out}")
    assert "urlset-empty" in errors[-1]
    assert "sitemapkit inventory" in errors[-1]
    assert not list(out.glob("sitemap*"))
    assert main(["inventory", str(out / "crawl.sqlite"), "-o", str(tmp_path / "i.csv")]) == 0
    assert (tmp_path / "i.csv").read_text().count("noindex") == 3
