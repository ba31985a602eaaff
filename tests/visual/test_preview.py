"""The app's first screen of a big map: the whole tree's first level, exactly, from URLs alone.

The store is a real one written through the store API; the whole tree is what
``visualize`` draws from it, and every figure the first screen shows (counts,
order, labels, the External links group, the legend) must be the whole map's.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from sitemapkit.store import open_store
from sitemapkit.store.base import NewUrl, Outcome, UrlState
from sitemapkit.visual.page import render_html
from sitemapkit.visual.preview import preview_tree, split_rows, split_slowly
from sitemapkit.visual.sources import read_tree
from sitemapkit.visual.tree import Kind, SiteTree

from .test_browser import browser, pw  # noqa: F401  (fixtures)

HOME = "https://shop.example/"
TOP = ["", "about", "docs", "blog/", "p2", "p10", "search?q=1", "Caf%C3%A9"]
DEEP = (
    [f"s1/x/{i}" for i in range(30)]
    + [f"s2/{i}" for i in range(10)]
    + ["docs/a", "docs/b/c", "blog/2024/x", "p10/y/z", "Caf%C3%A9/menu/1"]
)
OUTSIDE = ["http://other.example/", "http://other.example/x/y", "http://other.example/x/z",
           "https://elsewhere.example/a/b"]  # fmt: skip
INSIDE_ELSEWHERE = ["https://cdn.shop.example/img/a", "https://cdn.shop.example/img/b"]


def _store(db: Path) -> None:
    store = open_store(str(db), mode="new")
    try:
        urls = [HOME + p for p in TOP + DEEP] + INSIDE_ELSEWHERE
        added = store.add_urls([NewUrl(u, 1, None) for u in urls])
        store.add_urls([NewUrl(u, 1, None, UrlState.HELD, "out-of-scope") for u in OUTSIDE])
        for n, url in enumerate(urls[:-3]):  # three stay queued
            missing = n % 7 == 3
            store.finish(added[url][0], Outcome(
                status=404 if missing else 200, indexable=not missing,
                reason="http-404" if missing else None, title=f"Title {n}" if n % 3 else None,
            ))  # fmt: skip
        store.commit()
    finally:
        store.close()


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> tuple[SiteTree, SiteTree]:
    db = tmp_path_factory.mktemp("preview") / "crawl.sqlite"
    _store(db)
    assert preview_tree(str(db), over=len(TOP + DEEP + OUTSIDE + INSIDE_ELSEWHERE)) is None
    first = preview_tree(str(db))
    assert first is not None
    return first, read_tree(str(db))


def _level(tree: SiteTree, node: int) -> list[tuple[str, str, int, bool]]:
    """(label, kind, pages below, is a page) of ``node``'s children, in order."""
    return [
        (tree.nodes[c].label, tree.nodes[c].kind.name, tree.counts[c], tree.rows[c] >= 0)
        for c in tree.children(node)
    ]


def test_the_first_level_is_the_whole_trees(trees: tuple[SiteTree, SiteTree]) -> None:
    first, whole = trees
    assert first.page_total == whole.page_total == len(TOP + DEEP + OUTSIDE + INSIDE_ELSEWHERE)
    assert first.nodes[first.root].label == whole.nodes[whole.root].label
    assert _level(first, first.root) == _level(whole, whole.root)
    for host in first.children(first.root):  # the hosts under "all hosts", and their sections
        (twin,) = [
            c for c in whole.children(whole.root) if whole.segments[c] == first.segments[host]
        ]
        assert _level(first, host) == _level(whole, twin)
    assert first.external >= 0
    assert _level(first, first.external) == _level(whole, whole.external)
    # what the first screen does not draw is counted where it belongs
    assert sum(first.cut.values()) + sum(1 for r in first.rows if r >= 0) == first.page_total
    assert not first.has_depth_tree


def test_deeper_urls_are_counted_not_placed() -> None:
    rows = [(1, HOME + "a/b", False), (2, HOME + "a/c", True), (3, HOME + "a/c", True),
            (4, HOME + "a", False), (5, HOME + "a/", False), (6, HOME + "a?x=/y/z", False),
            (7, HOME + "/x/y", False)]  # fmt: skip
    top, hidden = split_rows(rows)
    assert [i for i, _, _ in top] == [4, 5, 6, 7]
    assert hidden == {("https:", "shop.example", "a"): (HOME + "a/b", [2, 1])}


def test_by_folder_equals_one_url_at_a_time() -> None:
    """The fast split (per folder, C loops) against the plain one, on awkward URLs."""
    shapes = ["", "a", "a/", "a/b", "a/b/", "a/b/c", "a//b", "a?x=/y", "a#f/g", "b/c?d=/e",
              "%C3%A9/x", "a/b#c", "c/", "c/d/e/f/", "?q", "d"]  # fmt: skip
    urls = [f"{scheme}://{host}/{shape}" for scheme in ("https", "http")
            for host in ("h.example", "h.example:8080") for shape in shapes]  # fmt: skip
    urls += ["mailto:x@example.com", "https://h.example", "weird"]
    rows = [(n, u, n % 3 == 0) for n, u in enumerate(urls)]
    for given in (rows, [*rows, (999, urls[3], True)]):  # the second spells a URL twice
        fast, slow = split_rows(given), split_slowly(given)
        assert fast[0] == slow[0]
        assert {k: v[1] for k, v in fast[1].items()} == {k: v[1] for k, v in slow[1].items()}


def _legend(page: Any) -> dict[str, int]:
    return {
        li.get_attribute("data-key"): int(li.locator(".n").text_content().replace(",", ""))
        for li in page.locator("#legend li[data-key]").all()
    }


@pytest.mark.browser
def test_the_first_screen_in_chromium(
    browser: Any,  # noqa: F811
    trees: tuple[SiteTree, SiteTree],
    tmp_path: Path,
) -> None:
    first, whole = trees
    out = tmp_path / "first.html"
    out.write_text(render_html(first, title="Shop"), encoding="utf-8")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(out.as_uri())
        page.wait_for_selector("html[data-ready='1'][data-preview='1']")
        generated = page.evaluate(
            "JSON.parse(document.getElementById('sitemap-data').textContent).generated"
        )
        now = datetime.fromisoformat(generated)
        # the legend counts every page of the site, the undrawn ones in their sections
        assert _legend(page) == whole.color_counts("section", now)
        (s1,) = [i for i, seg in enumerate(first.segments) if seg == "s1"]
        assert first.nodes[s1].kind is Kind.FOLDER
        assert first.cut[s1] == 30
        card = page.locator(f"#node-n{s1}")
        assert card.get_attribute("aria-expanded") == "false"  # it opens, in the whole map
        assert "30 below" in card.locator(".l3").text_content()
        card.locator("[data-knob]").dispatch_event("click")
        assert "whole map is being built" in page.locator("#status").text_content()
        assert errors == []
    finally:
        page.close()
