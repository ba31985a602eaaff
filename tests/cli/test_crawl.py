"""``sitemapkit crawl``, ``--why`` and ``sitemapkit inventory`` end to end on the fixture site."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from lxml import etree

from crawl.fixture_site import EXPECTED_REASONS, EXPECTED_SITEMAP_PATHS, FixtureSite
from sitemapkit.cli import main

NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}


def locs(path: Path) -> list[str]:
    tree = etree.parse(str(path), etree.XMLParser(resolve_entities=False, no_network=True))
    return [str(x) for x in tree.xpath("//sm:url/sm:loc/text()", namespaces=NS)]


def crawl_site(site: FixtureSite, out: Path, *extra: str) -> int:
    return main(["crawl", site.base + "/", "-o", str(out), *extra])


def test_crawl_writes_the_exact_sitemap(
    site: FixtureSite,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    xmllint_urlset: Callable[[Path], None],
) -> None:
    out = tmp_path / "out"
    assert crawl_site(site, out, "--concurrency", "4") == 0
    sitemap = out / "sitemap.xml"
    xmllint_urlset(sitemap)
    got = locs(sitemap)
    assert len(got) == len(set(got))
    assert {u.removeprefix(site.base) for u in got} == EXPECTED_SITEMAP_PATHS
    text = sitemap.read_text()
    assert "<lastmod>2024-05-01T10:00:00Z</lastmod>" in text
    assert 'hreflang="de"' in text
    stdout = capsys.readouterr().out
    assert f"{len(EXPECTED_SITEMAP_PATHS)} pages in the sitemap" in stdout
    assert "redirect-loop 2" in stdout
    assert f"robots.txt line: Sitemap: {site.base}/sitemap.xml" in stdout
    assert (out / "crawl.sqlite").is_file()


def test_gzip_and_images(site: FixtureSite, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert crawl_site(site, out, "--gzip", "--images", "--max-depth", "1") == 0
    assert (out / "sitemap.xml.gz").is_file()
    assert not (out / "sitemap.xml").exists()


def test_start_url_failure_exits_1(
    site: FixtureSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["crawl", site.base + "/broken", "-o", str(tmp_path / "o")])
    assert code == 1
    assert "the start URL" in capsys.readouterr().err


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["crawl", "ftp://example.org/", "-o", str(tmp_path)]) == 2
    assert main(["crawl", "http://127.0.0.1:9/", "-o", str(tmp_path), "--include", "("]) == 2
    assert main(["crawl", "--why", "http://x/"]) == 2
    assert main(["crawl", "--resume", "-o", str(tmp_path), "--db", str(tmp_path / "no")]) == 2
    err = capsys.readouterr().err
    assert "not an absolute http(s) URL" in err


def test_explicit_db_is_never_overwritten(
    site: FixtureSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sitemapkit.store.sqlite import SqliteStore

    db = tmp_path / "state.sqlite"
    args = ["--db", str(db), "--max-depth", "0"]
    assert crawl_site(site, tmp_path / "o", *args) == 0
    # Again on a finished crawl: a new run in the same store, the first one kept.
    assert crawl_site(site, tmp_path / "o", *args) == 0
    store = SqliteStore(db)
    assert [r.state for r in store.runs()] == ["finished", "finished"]
    store.set_meta("state", "interrupted")
    store.close()
    capsys.readouterr()
    # An unfinished one is continued with --resume, never overwritten or restarted.
    assert crawl_site(site, tmp_path / "o", *args) == 2
    assert "continue it with --resume" in capsys.readouterr().err
    other = tmp_path / "notes.txt"
    other.write_text("mine")
    assert crawl_site(site, tmp_path / "o", "--db", str(other)) == 2
    assert other.read_text() == "mine"


def test_why_explains_a_redirect_chain_and_a_reason(
    site: FixtureSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "c.sqlite"
    assert crawl_site(site, tmp_path / "o", "--db", str(db)) == 0
    capsys.readouterr()
    assert main(["crawl", "--db", str(db), "--why", site.base + "/old"]) == 0
    out = capsys.readouterr().out
    assert "not in the sitemap: redirect" in out
    assert f"301 {site.base}/old" in out
    assert f"200 {site.base}/new" in out
    assert f"found on:   {site.base}/ (a)" in out
    assert main(["crawl", "--db", str(db), "--why", site.base + "/noindex-meta"]) == 0
    assert "not in the sitemap: noindex" in capsys.readouterr().out
    assert main(["crawl", "--db", str(db), "--why", site.base + "/about"]) == 0
    out = capsys.readouterr().out
    assert "in the sitemap" in out
    assert "lastmod:    2024-03-02T08:00:00+00:00 (from article:modified_time)" in out
    assert main(["crawl", "--db", str(db), "--why", site.base + "/never"]) == 1
    assert main(["crawl", "--db", str(tmp_path / "o" / "sitemap.xml"), "--why", "/x"]) == 2


def test_inventory_csv_and_jsonl(
    site: FixtureSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "c.sqlite"
    assert crawl_site(site, tmp_path / "o", "--db", str(db)) == 0
    capsys.readouterr()
    assert main(["inventory", str(db)]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    by_path = {r["url"].removeprefix(site.base): r for r in rows}
    for path, reason in EXPECTED_REASONS.items():
        assert by_path[path]["reason"] == reason
        assert by_path[path]["indexable"] == "no"
    for path in EXPECTED_SITEMAP_PATHS:
        assert by_path[path]["indexable"] == "yes"
        assert by_path[path]["reason"] == ""
    assert by_path["/blog/post-1"]["lastmod_source"] == "last-modified"
    target = tmp_path / "inv.jsonl"
    assert main(["inventory", str(db), "--format", "jsonl", "-o", str(target)]) == 0
    lines = [json.loads(x) for x in target.read_text().splitlines()]
    assert len(lines) == len(rows)
    assert {
        "url",
        "status",
        "depth",
        "title",
        "canonical",
        "indexable",
        "reason",
        "inlinks",
        "lastmod",
        "lastmod_source",
    } <= set(lines[0])
    assert main(["inventory", str(tmp_path / "inv.jsonl")]) == 2


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_only_on_a_terminal() -> None:
    from sitemapkit.cli.crawl import Progress
    from sitemapkit.crawl.engine import CrawlStats

    stats = CrawlStats(fetched=12, in_sitemap=10, frontier=30, queued=2, active=3, errors=1)
    tty = _Tty()
    progress = Progress(tty)
    progress(stats)
    progress.done()
    text = tty.getvalue()
    assert "crawled 12" in text
    assert "queued 32" in text
    assert "errors 1" in text
    assert text.endswith("\r")
    plain = io.StringIO()
    Progress(plain)(stats)
    assert plain.getvalue() == ""
