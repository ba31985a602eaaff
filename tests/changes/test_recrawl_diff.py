"""Issue 12's quality test: a site that changes between two crawls, and what diff says.

The site and its changes are in :mod:`changes.changed_site`.  lastmod must move for
exactly the pages whose content changed, the removed pages leave the sitemap and the
new ones join it, and ``diff`` must list exactly these changes, compared as sets, in
every output format and in both forms (one store, two stores).
"""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from changes.changed_site import (
    ADDED,
    NOINDEX,
    PAGES,
    REMOVED,
    RETITLED,
    TEXT,
    crawl,
    expected,
)
from crawl.changing_site import ChangingSite
from sitemapkit.cli import main

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def sitemap(out: Path, base: str) -> dict[str, str | None]:
    root = ET.parse(out / "sitemap.xml").getroot()
    entries = {}
    for url in root.iter(NS + "url"):
        loc = url.findtext(NS + "loc") or ""
        entries[loc.removeprefix(base)] = url.findtext(NS + "lastmod")
    return entries


def by_kind(rows: list[dict[str, str]], base: str) -> dict[str, set[str]]:
    kinds: dict[str, set[str]] = {}
    for row in rows:
        kinds.setdefault(row["change"], set()).add(row["url"].removeprefix(base))
    return kinds


def test_lastmod_moves_for_exactly_the_changed_content_and_the_sitemap_follows(
    crawled: tuple[ChangingSite, Path, Path],
) -> None:
    site, _db, tmp = crawled
    first, second = sitemap(tmp / "one", site.base), sitemap(tmp / "two", site.base)
    assert set(first) == {"/", *(f"/p{i}" for i in range(PAGES))}
    assert set(second) == (set(first) - REMOVED - {NOINDEX}) | ADDED
    moved = {path for path in set(first) & set(second) if first[path] != second[path]}
    assert moved == TEXT | {RETITLED, "/"}  # never the boilerplate group


def test_diff_of_two_runs_lists_exactly_the_changes(
    crawled: tuple[ChangingSite, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    site, db, _tmp = crawled
    capsys.readouterr()
    assert main(["diff", "--db", str(db), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["before"]["run"], doc["after"]["run"]) == (1, 2)
    assert by_kind(doc["changes"], site.base) == expected()
    nochange = {"status": 0, "canonical": 0}
    assert doc["counts"] == {**{k: len(v) for k, v in expected().items()}, **nochange}
    [noindex] = [c for c in doc["changes"] if c["change"] == "indexability"]
    assert (noindex["before"], noindex["after"]) == ("indexable", "not indexable: noindex")
    [title] = [c for c in doc["changes"] if c["change"] == "title"]
    assert (title["before"], title["after"]) == (f"Page {RETITLED}", "A better title")
    # the same run pair given explicitly, and backwards (added and removed swap)
    assert main(["diff", "--db", str(db), "2", "1", "--format", "json"]) == 0
    back = by_kind(json.loads(capsys.readouterr().out)["changes"], site.base)
    assert (back["added"], back["removed"]) == (REMOVED, ADDED)


def test_diff_csv_and_text_forms(
    crawled: tuple[ChangingSite, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    site, db, tmp = crawled
    target = tmp / "changes.csv"
    capsys.readouterr()
    assert main(["diff", "--db", str(db), "--format", "csv", "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    text = target.read_text()
    assert text.startswith("url,change,before,after\n")
    assert by_kind(list(csv.DictReader(io.StringIO(text))), site.base) == expected()
    assert [p.name for p in tmp.iterdir() if p.name.startswith(".changes")] == []
    assert main(["diff", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "added 3, removed 3, status 0, indexability 1, title 1, canonical 0, content 7" in out
    assert f"\nremoved (3):\n  {site.base}/p7  (was 200, indexable; unlinked)\n" in out
    assert f'  {site.base}{RETITLED}  "Page {RETITLED}" -> "A better title"\n' in out


def test_diff_of_two_stores_lists_the_same_changes(
    crawled: tuple[ChangingSite, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    site, _db, tmp = crawled
    capsys.readouterr()
    old, new = str(tmp / "old.sqlite"), str(tmp / "new.sqlite")
    assert main(["diff", old, new, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert (doc["before"]["store"], doc["after"]["store"]) == (old, new)
    assert by_kind(doc["changes"], site.base) == expected()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["7", "1"], "site.sqlite: no run 7 (it has runs 1-2)"),
        (["x", "1"], "'x' is not a run number"),
        (["1"], "give two run numbers (RUN_A RUN_B) or none"),
    ],
)
def test_a_bad_run_is_one_usage_line(
    crawled: tuple[ChangingSite, Path, Path],
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    message: str,
) -> None:
    _site, db, _tmp = crawled
    capsys.readouterr()
    assert main(["diff", "--db", str(db), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("sitemapkit: error: ")
    assert message in err


def test_a_store_with_one_run_cannot_be_diffed_alone(
    site: ChangingSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "one.sqlite"
    crawl(site, db, tmp_path / "o")
    capsys.readouterr()
    assert main(["diff", "--db", str(db)]) == 2
    assert "one.sqlite: has 1 run; a diff needs two" in capsys.readouterr().err
    (tmp_path / "x.sqlite").write_text("no crawl")
    assert main(["diff", str(db), str(tmp_path / "x.sqlite")]) == 2
    assert "x.sqlite: not a sitemapkit crawl database" in capsys.readouterr().err


def test_why_shows_a_urls_history_over_the_runs(
    crawled: tuple[ChangingSite, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _site, db, _tmp = crawled
    capsys.readouterr()
    assert main(["crawl", "--db", str(db), "--why", NOINDEX]) == 0
    out = capsys.readouterr().out
    assert "  history:\n    run 1: first seen (200, indexable)\n" in out
    assert "    run 2: indexability, content\n" in out
    assert "  last seen:  " in out
    assert main(["crawl", "--db", str(db), "--why", "/p7"]) == 0
    assert "    run 2: gone (no longer reached)\n" in capsys.readouterr().out
    assert main(["crawl", "--db", str(db), "--why", "/p5"]) == 0  # boilerplate only
    assert capsys.readouterr().out.endswith("  history:\n    run 1: first seen (200, indexable)\n")
