"""``sitemapkit worker --db SPEC``: one more process on a running fleet crawl.

A worker needs nothing but the store: the crawl's start URL, scope, limits, rate
and per-host setting are what ``sitemapkit crawl URL --fleet --db SPEC`` stored,
so every worker crawls by the same rules.  It fetches only from hosts it holds
slots of (see :mod:`sitemapkit.crawl.fleet`), and runs until the frontier is
empty and no live worker holds a claim.  SIGTERM and Ctrl-C release its leases
and claims at once (the others carry on); a ``kill -9`` releases them when they
expire.  The process that started the crawl writes the sitemap set at the end.
"""

from __future__ import annotations

import asyncio
import time
from typing import cast

import click

from sitemapkit.cli.dbspec import DB_SPEC, DbSpec, shown
from sitemapkit.cli.status import ExitStatus
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.errors import InputError, StoreBusyError, StoreError
from sitemapkit.store import is_crawl_db
from sitemapkit.store.base import FleetStore
from sitemapkit.store.registry import open_fleet_store

#: Seconds between looks at a store that is not there yet (or still being created).
_LOOK_EVERY = 0.2


def _open(db: DbSpec, wait: float) -> FleetStore:
    """The fleet's store once the crawl that starts it has stored its settings and runs.

    A store whose last run ended is waited on too: a worker started with the lead of a
    re-crawl may look before the lead has begun the new run.  At the deadline it is
    returned as it is (the caller says there is nothing to do).
    """
    deadline = time.monotonic() + wait
    while True:
        problem: str
        if is_crawl_db(db):
            try:
                store = open_fleet_store(db, mode="open")
            except StoreBusyError as exc:  # being created, or a single-process crawl's
                problem = str(exc)
            else:
                if store.get_meta("config") is not None and (
                    _state(store) == "running" or time.monotonic() >= deadline
                ):
                    return store
                store.close()
                problem = f"{shown(db)}: holds no crawl yet"
        else:
            problem = (
                f"{shown(db)}: no crawl store there (start one with `sitemapkit crawl URL --fleet`)"
            )
        if time.monotonic() >= deadline:
            raise StoreError(problem)
        time.sleep(_LOOK_EVERY)


def _state(store: FleetStore) -> str:
    """The stored crawl's state (``running`` until a run ends)."""
    return store.get_meta("state") or "running"


@click.command("worker")
@click.option(
    "--db",
    required=True,
    type=DB_SPEC,
    help="The store (a file or postgresql://...) of a crawl started with "
    "`sitemapkit crawl URL --fleet --db ...`.",
)
@click.option(
    "--wait",
    type=click.FloatRange(min=0),
    default=30.0,
    show_default=True,
    help="Seconds to wait for a running crawl in --db (one not started yet, or a "
    "re-crawl whose lead has not begun its run).",
)
@click.pass_context
def worker(ctx: click.Context, db: DbSpec, wait: float) -> None:
    """Join the fleet crawl stored in --db and work until its frontier is empty."""
    from sitemapkit.cli.crawl import Terminated, _run
    from sitemapkit.crawl.fleet import FleetCrawler

    store = _open(db, wait)
    try:
        state = _state(store)
        if state != "running":
            click.echo(f"{shown(db)}: the crawl there is {state}; nothing to do")
            ctx.exit(ExitStatus.OK)
        try:
            config = CrawlConfig.from_json(cast(str, store.get_meta("config"))).validate()
        except (InputError, ValueError, TypeError) as exc:
            raise StoreError(f"{shown(db)}: the stored crawl settings are unusable: {exc}") from exc
        crawler = FleetCrawler(config, store, join=True)
        try:
            result = asyncio.run(_run(crawler, False))
        except (KeyboardInterrupt, Terminated) as stop:
            terminated = isinstance(stop, Terminated)
            how = "terminated" if terminated else "interrupted"
            click.echo(
                f"sitemapkit: worker {how}; its hosts and URLs went back to the fleet", err=True
            )
            ctx.exit(ExitStatus.TERMINATED if terminated else ExitStatus.INTERRUPTED)
    finally:
        store.close()
    stats = result.stats
    counts = result.counts
    click.echo(
        f"worker: fetched {stats.fetched:,} URLs in {stats.elapsed:.1f} s; the crawl has "
        f"{counts.get('indexable', 0):,} pages for the sitemap and nothing left to fetch"
        if result.stopped_by is None
        else f"worker: fetched {stats.fetched:,} URLs; stopped by {result.stopped_by}"
    )
    ctx.exit(ExitStatus.OK)
