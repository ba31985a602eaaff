"""``sitemapkit demo`` (what ``make run`` runs): serves, crawls, writes, checks."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sitemapkit.cli import main
from sitemapkit.demo.expected import RENDER_TIMEOUT_PATHS, SITEMAP_PATHS, sitemap_paths


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
    # rendering is installed here (the [render] extra and Chromium): the lamp finder is
    # rendered (--render auto, the default) and there is a thumbnail per sitemap page
    in_sitemap = sitemap_paths(rendered=True)
    assert len(in_sitemap) > len(SITEMAP_PATHS)
    data = json.loads(re.search(r'type="application/json">(.*?)</script>', page, re.S)[1])  # type: ignore[index]
    # the live page is cut at the render timeout: whether a picture was taken by then
    # depends on the machine's load ("a page that cannot be drawn has no thumbnail")
    assert len(in_sitemap) - len(RENDER_TIMEOUT_PATHS) <= len(data["th"]) <= len(in_sitemap)
    xmllint_urlset(out / "sitemap.xml")
    stdout = capsys.readouterr().out
    assert "every URL, reason and audit finding matches" in stdout
    assert "listed-redirect" in stdout  # the audit summary of the planted faults
    assert "Content-Security-Policy" in (out / "audit.html").read_text(encoding="utf-8")
    assert f"{len(in_sitemap)} pages in the sitemap" in stdout
    assert "rendered 6 pages: render-timeout 1, rendered 5" in stdout
    assert main(["inventory", str(out / "crawl.sqlite"), "--format", "jsonl"]) == 0


def test_demo_works_without_the_render_extra(tmp_path: Path) -> None:
    """Playwright missing (an import that fails, as when the extra is not installed)."""
    code = (
        "import sys; sys.modules['playwright'] = None; "
        "from sitemapkit.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "-c", code, "demo", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "note: no page thumbnails on the map: rendering needs the Playwright package" in (
        proc.stderr
    )
    assert "every URL, reason and audit finding matches" in proc.stdout
    # the lamp finder needed rendering: one line says so, naming the missing piece
    missing = [line for line in proc.stdout.splitlines() if "sitemapkit[render]" in line]
    assert missing == [
        "not rendered: 1 page looks built by scripts, but rendering needs the Playwright "
        "package, which is not installed: pip install 'sitemapkit[render]'"
    ]
    assert f"{len(SITEMAP_PATHS)} pages in the sitemap" in proc.stdout
    assert '"th":' not in (out / "site-map.html").read_text(encoding="utf-8")
    asked = subprocess.run(
        [sys.executable, "-c", code, "demo", "--out", str(out), "--thumbnails"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert asked.returncode == 1
    assert asked.stderr.strip().splitlines()[-1].endswith("pip install 'sitemapkit[render]'")
