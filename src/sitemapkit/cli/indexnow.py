"""``sitemapkit indexnow --db FILE --key KEY``: tell search engines what a crawl changed.

Submits the URLs of the crawl store that were added, changed or removed since their
last accepted submission (:mod:`sitemapkit.indexnow`); ``crawl --indexnow KEY`` calls
:func:`submit_store` after a finished run.  Accepted batches print one line each on
stdout; a batch that was not accepted is one error line on stderr naming the host,
the cause and that it goes next time, and the exit status is 1.
"""

from __future__ import annotations

import asyncio

import click

from sitemapkit.cli.dbspec import DB_SPEC, DbSpec, shown
from sitemapkit.cli.status import ExitStatus
from sitemapkit.errors import StoreError, StoreRefusedError, StoreWriteError
from sitemapkit.indexnow.protocol import DEFAULT_ENDPOINT, key_problem, transport_problem
from sitemapkit.indexnow.submit import BatchResult, Settings, run_problem, submit
from sitemapkit.store import is_crawl_db, open_store
from sitemapkit.store.base import CrawlStore


def check_settings(settings: Settings, option: str = "--key") -> None:
    """A bad key, endpoint or key location is a usage error, said before any request."""
    problem = key_problem(settings.key)
    if problem is not None:
        raise click.UsageError(f"{option} {settings.key!r} {problem}")
    for name, url in (("--endpoint", settings.endpoint), ("--key-location", settings.key_location)):
        if url is not None and (why := transport_problem(url)) is not None:
            raise click.UsageError(f"{name} {url} {why}")


def _counts(result: BatchResult) -> str:
    counts = result.batch.counts()
    return ", ".join(f"{counts[k]:,} {k}" for k in ("added", "changed", "removed") if k in counts)


def _report(result: BatchResult, settings: Settings) -> None:
    batch = result.batch
    n = len(batch.changes)
    what = f"{n:,} URL{'s' if n != 1 else ''} of {batch.host} ({_counts(result)})"
    if settings.dry_run:
        endpoint = settings.endpoint
        click.echo(f"would send {what} to {endpoint}, key location {result.key_location}:")
        for change in batch.changes:
            click.echo(f"  {change.change:<7} {change.url}")
    elif result.accepted:
        click.echo(f"sent {what}: {result.detail}")
    else:
        how = "not sent" if result.attempts == 0 else "not accepted"
        click.echo(
            f"sitemapkit: error: indexnow: {what} {how}: {result.detail}; left for the next run",
            err=True,
        )


def submit_store(store: CrawlStore, settings: Settings) -> int:
    """Submit ``store``'s pending URLs, print one line per batch; the exit status."""
    problem = run_problem(store)
    if problem is not None:
        click.echo(f"sitemapkit: error: indexnow: {problem}; nothing sent", err=True)
        return ExitStatus.ERROR
    results = asyncio.run(submit(store, settings, lambda r: _report(r, settings)))
    if not results:
        click.echo("indexnow: nothing to send: every URL was submitted at its current version")
    if settings.dry_run:
        return ExitStatus.OK
    return ExitStatus.OK if all(r.accepted for r in results) else ExitStatus.ERROR


@click.command("indexnow")
@click.option(
    "--db",
    "db",
    required=True,
    type=DB_SPEC,
    help="The crawl store whose changes to submit (a file or postgresql://...).",
)
@click.option("--key", required=True, help="Your IndexNow key (8-128 of A-Z a-z 0-9 -).")
@click.option(
    "--key-location",
    help="Where the key file is served (default https://HOST/KEY.txt).",
)
@click.option(
    "--endpoint",
    default=DEFAULT_ENDPOINT,
    show_default=True,
    help="The IndexNow endpoint to POST to.",
)
@click.option("--dry-run", is_flag=True, help="Print what would be sent; send nothing.")
@click.pass_context
def indexnow(
    ctx: click.Context,
    db: DbSpec,
    key: str,
    key_location: str | None,
    endpoint: str,
    dry_run: bool,
) -> None:
    """Submit the URLs added, changed or removed since the last submission to IndexNow."""
    settings = Settings(key=key, endpoint=endpoint, key_location=key_location, dry_run=dry_run)
    check_settings(settings)
    if not is_crawl_db(db):
        raise click.UsageError(f"{shown(db)}: not a sitemapkit crawl database")
    try:
        store = open_store(db, mode="read" if dry_run else "resume")
        try:
            code = submit_store(store, settings)
        finally:
            store.close()
    except (StoreRefusedError, StoreWriteError):
        raise  # in use by a crawl, newer, unreachable, unwritable: one line, exit 1
    except StoreError as exc:
        raise click.UsageError(str(exc)) from exc
    ctx.exit(code)
