"""A big site's Map in real headless Chromium: the sections first, then the whole map.

``sitemapkit serve`` runs as a child process on a workspace whose one site is a
store just over the first-screen threshold, written through the store API.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sitemapkit.app.launch import served_app
from sitemapkit.store import open_store
from sitemapkit.store.base import NewUrl, Outcome
from sitemapkit.visual.preview import PREVIEW_OVER

from .test_browser import browser  # noqa: F401  (the fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SITE = "big.example"
PAGES = PREVIEW_OVER + 500
WAIT_MS = 120_000


def _workspace(root: Path) -> Path:
    db = root / "sites" / SITE / "crawl.sqlite"
    db.parent.mkdir(parents=True)
    store = open_store(str(db), mode="new")
    try:
        home = f"https://{SITE}/"
        urls = [home] + [f"{home}s{i % 9}/c{i % 40}/p{i}" for i in range(PAGES - 1)]
        for start in range(0, PAGES, 5000):
            batch = urls[start : start + 5000]
            added = store.add_urls([NewUrl(u, 1, None) for u in batch])
            for u in batch:
                store.finish(added[u][0], Outcome(status=200, indexable=True, title=f"T {u}"))
            store.commit()
    finally:
        store.close()
    return root


@pytest.fixture
def big_app(tmp_path: Path) -> Iterator[str]:
    with served_app(_workspace(tmp_path / "ws")) as url:
        yield url


def _frame_is(page: Any, first: bool) -> None:
    want = "=== '1'" if first else "!== '1'"
    page.wait_for_function(
        "() => { const f = document.querySelector('iframe.map-frame');"
        " const d = f && f.contentDocument; const h = d && d.documentElement;"
        " return !!h && h.getAttribute('data-ready') === '1'"
        f" && h.getAttribute('data-preview') {want}; }}",
        timeout=WAIT_MS,
    )


def test_the_sections_come_first_then_the_whole_map(
    browser: Any,  # noqa: F811
    big_app: str,
) -> None:
    page = browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    try:
        page.goto(f"{big_app}#/site/{SITE}/map")
        _frame_is(page, first=True)
        frame = page.frame_locator("iframe.map-frame")
        # a hand on the sections (the whole map takes seconds to build): they stay
        frame.locator("#map").dispatch_event("pointerdown")
        sections = frame.locator("#map .node[aria-expanded='false']")
        assert sections.count() == 9  # the nine sections, closed, their pages counted
        assert f"{PAGES:,} pages" in frame.locator("#status").text_content()
        page.get_by_role("button", name="Show the whole map").wait_for(timeout=WAIT_MS)
        _frame_is(page, first=True)
        # opening a section asks for the whole map, which is ready: it comes at once
        sections.first.locator("[data-knob]").dispatch_event("click")
        _frame_is(page, first=False)
        assert frame.locator("#map .node").count() > 9
        assert page.locator(".map-note").text_content() == ""
        assert problems == []
    finally:
        page.close()
