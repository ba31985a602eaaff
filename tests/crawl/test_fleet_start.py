"""The process that started a fleet crawl knows its start URL's fate, whoever fetched it.

Under load a joined worker can claim the start URL before the starting process does;
the starter then finished with "start URL failed: not fetched" and published nothing,
although the page had been fetched and stored (seen twice in the fleet tests at load 20).
"""

from __future__ import annotations

import time
from pathlib import Path

from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.fleet import FleetCrawler
from sitemapkit.store.base import Outcome
from sitemapkit.store.registry import open_fleet_store

START = "http://127.0.0.1:9/"


def test_a_start_url_fetched_by_another_worker_is_the_starters_too(tmp_path: Path) -> None:
    db = tmp_path / "fleet.sqlite"
    lead_store = open_fleet_store(db, mode="new")
    other = None
    try:
        lead = FleetCrawler(CrawlConfig(START), lead_store)
        start = lead._prepare(False)
        lead_store.commit()
        other = open_fleet_store(db)  # another worker: it claims and fetches the start URL
        (claimed,) = other.claim(1)
        assert claimed.spelling == START
        other.finish(claimed.id, Outcome(status=200, indexable=True, fetched_at=time.time()))
        other.commit()
        result = lead._result(start)
    finally:
        lead_store.close()
        if other is not None:
            other.close()
    assert (result.start_ok, result.start_problem) == (True, None)
