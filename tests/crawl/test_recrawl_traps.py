"""A re-crawl judges a pattern over its limit as the last run did, in any order.

The trap guard admits ``max_facet_variants`` filter combinations of one path and
stops the rest.  Counted afresh each run, a re-crawl admitted whichever combinations
it met first: an unchanged site showed pages moving in and out of the sitemap in
``history`` and ``diff`` (the demo shop's filters, 17 "changed" in one re-crawl), and
a fleet, whose counters lived on in the store, stopped every combination the first
run had admitted (72 URLs "removed" from the demo).  Here the shop lists its
combinations in the opposite order on the second run, so counting afresh would
admit a different set.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from crawl.changing_site import ChangingSite, page, serve_changing
from crawl.test_recrawl import run, sitemap
from sitemapkit.cli import main
from sitemapkit.crawl.traps import TrapGuard, TrapLimits
from sitemapkit.store import iter_page_records
from sitemapkit.store.sqlite import SqliteStore

#: More combinations than the guard admits for one path.
COMBINATIONS = TrapLimits().max_facet_variants + 16
FILTERS = [f"/shop/?colour=c{i:02d}&size=m" for i in range(COMBINATIONS)]


@pytest.fixture
def shop() -> Iterator[ChangingSite]:
    site = ChangingSite(
        pages={
            "/": page("Home", "/shop/"),
            "/shop/": page("Shop", "/", *FILTERS),
        }
    )
    with serve_changing(site) as served:
        yield served


def _verdicts(db: Path | str, base: str) -> dict[str, str | None]:
    """Every filter URL's reason (None: fetched and listed)."""
    return {r.url.removeprefix(base): r.reason for r in iter_page_records(db) if "colour=" in r.url}


def _reverse_the_listing(site: ChangingSite) -> None:
    site.pages["/shop/"] = page("Shop", "/", *reversed(FILTERS))


def test_a_recrawl_in_another_order_keeps_the_same_filters(
    shop: ChangingSite, db_path: Path
) -> None:
    run(shop, db_path, concurrency=1)
    first = _verdicts(db_path, shop.base)
    assert list(first.values()).count("trap-pattern") == 16  # the guard did stop some
    listed = sitemap(db_path, shop.base)
    _reverse_the_listing(shop)
    run(shop, db_path, concurrency=1)
    assert _verdicts(db_path, shop.base) == first
    assert sorted(sitemap(db_path, shop.base)) == sorted(listed)
    run(shop, db_path, concurrency=1)  # and again: the carry-over is the last run's
    assert _verdicts(db_path, shop.base) == first


def test_a_filter_the_site_dropped_frees_its_place_in_the_run_after(
    shop: ChangingSite, db_path: Path
) -> None:
    run(shop, db_path, concurrency=1)
    first = _verdicts(db_path, shop.base)
    admitted = [url for url in FILTERS if first[url] is None]
    stopped = [url for url in FILTERS if first[url] == "trap-pattern"]
    shop.pages["/shop/"] = page("Shop", "/", *admitted[1:], *stopped)  # one admitted gone
    run(shop, db_path, concurrency=1)  # judged against the last run's full count
    assert all(_verdicts(db_path, shop.base)[url] == "trap-pattern" for url in stopped)
    run(shop, db_path, concurrency=1)  # the last run admitted one fewer: one place free
    now = _verdicts(db_path, shop.base)
    assert [url for url in stopped if now[url] is None] == stopped[:1]
    assert all(now[url] is None for url in admitted[1:])


def test_a_fleet_recrawl_admits_what_its_first_run_admitted(
    shop: ChangingSite, tmp_path: Path, store_spec: str
) -> None:
    """The fleet's counters live in the store: the new run moves them aside."""
    db = store_spec
    args = ["crawl", shop.base + "/", "-o", str(tmp_path / "out"), "--db", db, "--fleet"]
    args += ["--workers", "1", "--concurrency", "1", "--render", "never", "--no-map"]
    assert main(args) == 0
    first = _verdicts(db, shop.base)
    assert list(first.values()).count("trap-pattern") == 16
    _reverse_the_listing(shop)
    assert main(args) == 0
    assert _verdicts(db, shop.base) == first


def test_a_resumed_fleet_crawl_counts_in_the_fleets_store(
    shop: ChangingSite, tmp_path: Path
) -> None:
    """A resume once swapped the fleet's shared guard for one restored from the saved
    state: the resumed process counted alone, and the fleet's limit no longer held."""
    db = tmp_path / "fleet.sqlite"
    out = ["-o", str(tmp_path / "out"), "--db", str(db)]
    args = ["--workers", "1", "--concurrency", "1", "--render", "never", "--no-map"]
    assert main(["crawl", shop.base + "/", *out, "--fleet", "--max-pages", "1", *args]) == 0
    assert shop.hits["/shop/"] == 0  # the filters are judged after the resume
    assert main(["crawl", "--resume", *out, "--fleet", "--max-pages", "1000", *args]) == 0
    assert list(_verdicts(db, shop.base).values()).count("trap-pattern") == 16
    store = SqliteStore(db, mode="read")
    try:
        facet = f"127.0.0.1:{shop.port}/shop/"
        assert store.trap_counts([("facet", facet)]) == [TrapLimits().max_facet_variants]
    finally:
        store.close()


def test_a_resume_goes_on_from_the_counts_committed_with_the_urls(
    shop: ChangingSite, db_path: Path
) -> None:
    """The guard's state is saved every few seconds, its counts with every commit: a
    crawl killed before the state's first save went on from no counts at all and
    admitted again what the limit had stopped.  Here the saved state is set back to
    that of a fresh guard, as such a kill leaves it."""
    half = len(FILTERS) // 2
    shop.pages["/"] = page("Home", "/shop/", "/more/")
    shop.pages["/shop/"] = page("Shop", "/", *FILTERS[:half])
    shop.pages["/more/"] = page("More", "/", *FILTERS[half:])
    run(shop, db_path, concurrency=1, max_pages=2)  # / and /shop/: half the filters judged
    store = SqliteStore(db_path)
    try:
        store.set_meta("traps", json.dumps(TrapGuard().to_state()))
        store.commit()
    finally:
        store.close()
    run(shop, db_path, concurrency=1, resume=True)
    assert list(_verdicts(db_path, shop.base).values()).count("trap-pattern") == 16
