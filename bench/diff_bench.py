"""What change records cost: an unchanged re-crawl, a 10% change, and `sitemapkit diff`.

No peer keeps per-URL change history of a crawl (Oncrawl and Sitebulb do, closed and
hosted), so this prints our own figures only: the time ``end_run`` takes to write a
run's change records (the only extra work a run does), the rows it wrote, and the
whole ``sitemapkit diff`` process as a user runs it.  The store is filled through the
store protocol (the crawler's own calls: ``finish`` for a 200, ``unchanged`` for a 304),
not by a crawl, so the figures are the store's and not the network's.

    .venv/bin/python bench/diff_bench.py [--pages 10000]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sitemapkit.store import open_store
from sitemapkit.store.base import CrawlStore, NewUrl, Outcome

SITE = "https://www.example.org/"


def outcome(i: int, version: int) -> Outcome:
    return Outcome(
        status=200,
        title=f"Page {i}",
        indexable=True,
        fingerprint=f"{i:08x}-{version}",
        lastmod="2024-01-01T00:00:00Z",
        etag=f'"{i}-{version}"',
    )


def run(store: CrawlStore, pages: int, changed: set[int], first: bool) -> tuple[float, int]:
    """One run over every page; the ``changed`` ones answer 200 with new content.

    Returns the seconds ``end_run`` took and the change records the run wrote.
    """
    started = time.time()
    run_id = store.start_run(started)
    store.add_urls([NewUrl(f"{SITE}p{i}", 1, None) for i in range(pages)])
    while claimed := store.claim(500):
        for c in claimed:
            i = int(c.url.rsplit("p", 1)[1])
            if first or i in changed:
                store.finish(c.id, outcome(i, run_id if i in changed else 1))
            else:
                store.unchanged(c.id, started)  # a 304
        store.commit()
    t0 = time.perf_counter()
    store.end_run("finished", time.time())
    store.commit()
    took = time.perf_counter() - t0
    rows = sum(1 for _ in store.changes_between(run_id - 1, run_id)) if run_id > 1 else pages
    return took, rows


def diff_process(db: Path, *args: str) -> float:
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "sitemapkit", "diff", "--db", str(db), *args],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=10_000)
    pages = parser.parse_args().pages
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "site.sqlite"
        store = open_store(db)
        try:
            first, _ = run(store, pages, set(), first=True)
            same, same_rows = run(store, pages, set(), first=False)
            tenth = set(range(0, pages, 10))
            some, some_rows = run(store, pages, tenth, first=False)
        finally:
            store.close()
        print(f"{pages:,} pages; end_run writes the run's change records:")
        print(f"  run 1 (all new)        {first * 1000:8.1f} ms  {pages:,} records")
        print(f"  run 2 (nothing changed){same * 1000:8.1f} ms  {same_rows:,} records")
        print(f"  run 3 (10% changed)    {some * 1000:8.1f} ms  {some_rows:,} records")
        print("sitemapkit diff --db (whole process, text to /dev/null):")
        print(f"  runs 1..2 (no change)  {diff_process(db, '1', '2'):8.2f} s")
        print(f"  runs 2..3 (10%)        {diff_process(db, '2', '3'):8.2f} s")
        print(f"  --format json 2..3     {diff_process(db, '2', '3', '--format', 'json'):8.2f} s")


if __name__ == "__main__":
    main()
