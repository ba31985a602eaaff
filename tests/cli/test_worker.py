"""``sitemapkit worker`` started a moment before the crawl it is meant to join.

A fleet re-crawled on a schedule starts its lead and its workers together.  A worker
that looked at the store before the lead had started the new run found the last run
finished and left ("the crawl there is finished; nothing to do"), so the re-crawl ran
with fewer processes than it was given, depending on which process started first.  A
worker waits (``--wait``) for a running crawl, as it waits for a store to appear.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.crawl_process import run, start
from crawl.changing_site import ChangingSite, page, serve_changing

PAGES = 12


@pytest.fixture
def site() -> Iterator[ChangingSite]:
    paths = [f"/p{i}" for i in range(PAGES)]
    pages = {p: page(p, "/") for p in paths}
    pages["/"] = page("Home", *paths)
    with serve_changing(ChangingSite(pages=pages)) as served:
        yield served


def test_a_worker_started_before_a_recrawl_joins_it(site: ChangingSite, tmp_path: Path) -> None:
    db, out = tmp_path / "fleet.sqlite", tmp_path / "out"
    lead = ("crawl", site.base + "/", "--db", str(db), "-o", str(out), "--fleet")
    lead += ("--render", "never", "--no-map", "--workers", "1", "--rate", "4")
    first = run(*lead)
    assert first.returncode == 0, first.stderr
    worker = start("worker", "--db", str(db), "--wait", "60")
    try:
        time.sleep(1.5)  # the worker finds the first run finished, before the second starts
        second = run(*lead)
        assert second.returncode == 0, second.stderr
        said, err = worker.communicate(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.communicate()
    assert worker.returncode == 0, err
    assert "nothing to do" not in said
    assert said.startswith("worker: fetched "), said


def test_a_worker_on_a_finished_crawl_says_so_once_it_has_waited(
    site: ChangingSite, tmp_path: Path
) -> None:
    db, out = tmp_path / "fleet.sqlite", tmp_path / "out"
    first = run("crawl", site.base + "/", "--db", str(db), "-o", str(out), "--fleet", "--no-map")
    assert first.returncode == 0, first.stderr
    late = run("worker", "--db", str(db), "--wait", "0")
    assert late.returncode == 0, late.stderr
    assert late.stdout == f"{db}: the crawl there is finished; nothing to do\n"
