"""``sitemapkit demo`` (what ``make run`` runs): serves, crawls, writes, checks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sitemapkit.cli import main
from sitemapkit.demo.expected import SITEMAP_PATHS


def test_demo_writes_sitemap_db_and_inventory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], xmllint_urlset: Callable[[Path], None]
) -> None:
    out = tmp_path / "out"
    assert main(["demo", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        ".sitemapkit-manifest.json",
        "audit.html",
        "crawl.sqlite",
        "inventory.csv",
        "site-map.html",
        "sitemap.xml",
    ]
    page = (out / "site-map.html").read_text(encoding="utf-8")
    assert "Northwind Lamps (demo)" in page
    assert "<noscript>" in page
    xmllint_urlset(out / "sitemap.xml")
    stdout = capsys.readouterr().out
    assert "every URL, reason and audit finding matches" in stdout
    assert "listed-redirect" in stdout  # the audit summary of the planted faults
    assert "Content-Security-Policy" in (out / "audit.html").read_text(encoding="utf-8")
    assert f"{len(SITEMAP_PATHS)} pages in the sitemap" in stdout
    assert main(["inventory", str(out / "crawl.sqlite"), "--format", "jsonl"]) == 0
