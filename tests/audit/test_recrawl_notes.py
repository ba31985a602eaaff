"""The audit reports the crawl's ``lastmod-ahead`` notes (issue 12).

A page whose stated date moves between two crawls while its content does not keeps
its earlier lastmod in the crawl, with the note; ``audit --db`` of that crawl reports
it under the one ``lastmod-ahead`` code, with the crawl's evidence.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawl.changing_site import ChangingSite, page, serve_changing
from sitemapkit.audit.codes import AUDIT_CODES
from sitemapkit.cli import main


def _stated(date: str, text: str = "same words") -> str:
    meta = f'<meta property="article:modified_time" content="{date}">'
    return page("P", "/", text=text).replace("<title>", meta + "<title>", 1)


@pytest.fixture
def site() -> Iterator[ChangingSite]:
    served = ChangingSite(
        pages={
            "/": page("Home", "/p", "/q"),
            "/p": _stated("2024-03-01T00:00:00Z"),
            "/q": page("Q"),
        }
    )
    with serve_changing(served) as running:
        yield running


def _audit(db: Path, sitemap: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, str]]:
    capsys.readouterr()
    main(["audit", "--db", str(db), "--sitemap", str(sitemap), "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    return [f for f in findings if f["code"] == "lastmod-ahead"]


def test_a_date_moved_without_a_content_change_is_an_audit_finding(
    site: ChangingSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, out = tmp_path / "site.sqlite", tmp_path / "out"
    args = ["crawl", site.base + "/", "--db", str(db), "-o", str(out)]
    assert main(args) == 0
    assert _audit(db, out / "sitemap.xml", capsys) == []
    site.pages["/p"] = _stated("2024-08-08T00:00:00Z")  # a new claim, the same content
    assert main(args) == 0
    (finding,) = _audit(db, out / "sitemap.xml", capsys)
    assert finding["url"] == site.base + "/p"
    assert finding["severity"] == AUDIT_CODES["lastmod-ahead"].severity.value
    assert finding["evidence"].startswith(
        "re-crawl: article:modified_time says 2024-08-08T00:00:00Z, but the content has not"
    )
    # The sitemap the crawl wrote kept the earlier date: the finding is about the site's claim.
    assert "<lastmod>2024-03-01T00:00:00Z</lastmod>" in (out / "sitemap.xml").read_text()
    site.pages["/p"] = _stated("2024-09-09T00:00:00Z", text="really new words")
    assert main(args) == 0
    assert _audit(db, out / "sitemap.xml", capsys) == []  # a real change: nothing ahead
