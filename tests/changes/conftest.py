"""Fixtures: the changing site served on 127.0.0.1, and two crawls of it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from changes.changed_site import PAGES, body, change, crawl, home
from crawl.changing_site import ChangingSite, serve_changing


@pytest.fixture
def site() -> Iterator[ChangingSite]:
    paths = [f"/p{i}" for i in range(PAGES)]
    pages = {p: body(p) for p in paths}
    pages["/"] = home(paths)
    # no Last-Modified: lastmod can only come from the content (the harder case)
    with serve_changing(ChangingSite(pages=pages, last_modified=False)) as served:
        yield served


@pytest.fixture
def crawled(site: ChangingSite, tmp_path: Path) -> tuple[ChangingSite, Path, Path]:
    """Two runs in ``site.sqlite`` (the second after the change); two stores as well."""
    db = tmp_path / "site.sqlite"
    crawl(site, db, tmp_path / "one")
    crawl(site, tmp_path / "old.sqlite", tmp_path / "old")
    change(site)
    crawl(site, db, tmp_path / "two")
    crawl(site, tmp_path / "new.sqlite", tmp_path / "new")
    return site, db, tmp_path
