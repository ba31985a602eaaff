"""``sitemapkit visualize STORE --diff``: the map coloured by change, in real Chromium."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import headless
from changes.changed_site import ADDED, NOINDEX, REMOVED, expected
from crawl.changing_site import ChangingSite
from sitemapkit.changes.mapped import diff_records
from sitemapkit.cli import main
from sitemapkit.visual.tree import SiteTree


def states(db: Path, base: str) -> dict[str, str]:
    _before, _after, records = diff_records(db)
    return {r.url.removeprefix(base): r.extra["change"] for r in records}


def test_every_page_gets_one_change_and_gone_pages_are_drawn(
    crawled: tuple[ChangingSite, Path, Path],
) -> None:
    site, db, _tmp = crawled
    marked = states(db, site.base)
    changed = set().union(*(v for k, v in expected().items() if k not in ("added", "removed")))
    assert {p for p, s in marked.items() if s == "new"} == ADDED
    assert {p for p, s in marked.items() if s == "gone"} == REMOVED  # drawn, not in the run
    assert {p for p, s in marked.items() if s == "changed"} == changed
    assert set(marked.values()) == {"new", "gone", "changed", "same"}
    _b, _a, records = diff_records(db)
    tree = SiteTree.from_records(records)
    assert tree.color_counts("change") == {
        "new": 3,
        "gone": 3,
        "changed": len(changed),
        "same": len(marked) - 6 - len(changed),
    }


def test_a_diff_ending_before_the_last_run_or_of_a_sitemap_is_refused(
    crawled: tuple[ChangingSite, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _site, db, tmp = crawled
    out = tmp / "m.html"
    assert main(["visualize", str(db), "--diff", "1..1", "-o", str(out)]) == 2
    assert "the map draws the last run (2); give --diff 1..2" in capsys.readouterr().err
    assert main(["visualize", str(db), "--diff", "one", "-o", str(out)]) == 2
    assert "give RUN_A or RUN_A..RUN_B" in capsys.readouterr().err
    listed = tmp / "urls.txt"
    listed.write_text("http://x.test/\n")
    assert main(["visualize", str(listed), "--diff", "-o", str(out)]) == 2
    assert "not a sitemapkit crawl database" in capsys.readouterr().err
    assert not out.exists()


@pytest.fixture
def chromium(tmp_path: Path) -> Iterator[Any]:
    with headless.playwright() as driver, headless.chromium(driver, tmp_path / "profile") as ctx:
        yield ctx


@pytest.mark.browser
def test_the_map_colours_by_change_with_a_legend_filter_and_details(
    crawled: tuple[ChangingSite, Path, Path], chromium: Any
) -> None:
    site, db, tmp = crawled
    out = tmp / "diff-map.html"
    assert main(["visualize", str(db), "--diff", "1", "-o", str(out)]) == 0
    _b, _a, records = diff_records(db, 1)
    tree = SiteTree.from_records(records)
    page = chromium.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(out.as_uri())
    page.wait_for_selector("html[data-ready='1']", timeout=15_000)
    assert page.locator("#color").input_value() == "change"
    legend = {
        li.get_attribute("data-key"): int(li.locator(".n").text_content().replace(",", ""))
        for li in page.locator("#legend li[data-key]").all()
    }
    assert legend == tree.color_counts("change")
    drawn = page.locator("#map .node").count()
    page.locator("#legend li[data-key='gone']").click()  # the filter: only gone pages stand out
    assert 0 < page.locator("#map .node:not(.dim)").count() < drawn
    [node] = [n.index for n in tree.nodes if n.record and n.record.url == site.base + NOINDEX]
    page.locator(f"#node-n{node}").dispatch_event("click")
    details = page.locator("#details").text_content()
    assert "Changechanged" in details
    assert "indexability indexable -> not indexable: noindex; content" in details
    data = json.loads(page.locator("#sitemap-data").text_content())
    assert "g" in data
    assert errors == []
