"""A server that has just started answers the first screen of Pages from the store's head.

Why: reading every record of a 100,000-page store takes seconds; the first rows of an
unfiltered table in discovery order and the number of URLs take milliseconds.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from sitemapkit.store import open_store
from sitemapkit.store.base import NewUrl, Outcome
from sitemapkit.visual import preview

from .conftest import start_client

SITE = "shop.example"
PAGES = 1200
FETCHED = PAGES - 100
MISSING = len(range(0, FETCHED, 50))


def _workspace(tmp_path: Path) -> Path:
    """A workspace whose one site is a finished store of :data:`PAGES` URLs (some unfetched)."""
    ws = tmp_path / "ws"
    db = ws / "sites" / SITE / "crawl.sqlite"
    db.parent.mkdir(parents=True)
    store = open_store(str(db), mode="new")
    try:
        urls = [f"https://{SITE}/s{i % 7}/p{i}" for i in range(PAGES)]
        added = store.add_urls([NewUrl(u, 1, None) for u in urls])
        for i, url in enumerate(urls[:FETCHED]):  # the rest stay queued
            status = 404 if i % 50 == 0 else 200
            store.finish(added[url][0], Outcome(status=status, indexable=status == 200,
                                                reason=None if status == 200 else "http-404",
                                                title=f"Page {i}"))  # fmt: skip
        store.commit()
    finally:
        store.close()
    return ws


async def test_the_first_rows_come_before_the_whole_table(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    fresh = await start_client(ws)
    try:
        head = await (await fresh.get(f"/api/sites/{SITE}/pages?limit=500")).json()
        later = await (await fresh.get(f"/api/sites/{SITE}/pages?offset=100&limit=50")).json()
    finally:
        await fresh.close()
    assert head["facets"] is None  # read from the head: the menus come with the whole table
    other = await start_client(ws)
    try:
        whole = await (await other.get(f"/api/sites/{SITE}/pages?limit=500&wait=1")).json()
        again = await (await other.get(f"/api/sites/{SITE}/pages?limit=500")).json()
        found = await (await other.get(f"/api/sites/{SITE}/pages?reason=http-404&limit=5")).json()
    finally:
        await other.close()
    assert whole["facets"]["reasons"]["http-404"] == MISSING
    assert whole["facets"]["reasons"]["not-crawled"] == PAGES - FETCHED
    assert head["total"] == head["all"] == whole["total"] == PAGES
    assert head["rows"] == whole["rows"]
    assert later["rows"] == whole["rows"][100:150]
    assert again["facets"] == whole["facets"]  # the table is loaded: every answer has them
    assert found["total"] == MISSING  # a filter never reads only the head
    assert all(r["reason"] == "http-404" for r in found["rows"])


def _map_data(page: str) -> dict[str, Any]:
    found = re.search(
        r'<script id="sitemap-data" type="application/json">(.*?)</script>', page, re.S
    )
    assert found, page[:300]
    data: dict[str, Any] = json.loads(found.group(1))
    return data


async def test_a_big_map_shows_its_sections_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(preview, "PREVIEW_OVER", PAGES - 1)
    ws = _workspace(tmp_path)
    fresh = await start_client(ws)
    try:
        first = _map_data(await (await fresh.get(f"/api/sites/{SITE}/map")).text())
        whole = _map_data(await (await fresh.get(f"/api/sites/{SITE}/map?whole=1")).text())
        again = _map_data(await (await fresh.get(f"/api/sites/{SITE}/map")).text())
        kept = _map_data(await (await fresh.get(f"/api/sites/{SITE}/map?whole=1")).text())
    finally:
        await fresh.close()
    assert first["pages"] == whole["pages"] == PAGES
    assert sum(first["w"].values()) == PAGES  # every page of the 7 sections, counted not drawn
    assert len(first["k"]) == 8  # the host and its 7 sections
    assert "w" not in whole
    assert len(whole["k"]) > PAGES
    assert again == first  # each built once, then kept for every visit
    assert kept == whole
    monkeypatch.setattr(preview, "PREVIEW_OVER", PAGES)  # a store this small: the whole map
    other = await start_client(ws)
    try:
        small = _map_data(await (await other.get(f"/api/sites/{SITE}/map")).text())
    finally:
        await other.close()
    assert "w" not in small
