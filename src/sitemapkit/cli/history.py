"""``sitemapkit history --db FILE``: the runs of a crawl store, oldest first.

Each crawl of the same ``--db`` is a run (issue 12); this lists when each ran,
how it ended, how many pages it asked for, how many the server said were
unchanged (``304``), how many pages' content changed in it (the fingerprint
first seen in that run) and the body bytes it downloaded: the figures that show
what a re-crawl saved.  The store is read without its lock, so it may be asked
while a crawl runs.

A run's figures are the sum of what each of its processes stored (a crawl, its
resumptions, every fleet worker), written with the pages they count.  A process
killed mid-run stored its figures up to its last commit; what it fetched after
that is not known (those URLs went back to the queue and were fetched again), so
such a run gets a note under the table, and ``unended`` in JSON, instead of figures
that look complete.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime

import click

from sitemapkit.cli.dbspec import DB_SPEC, DbSpec, shown
from sitemapkit.cli.status import ExitStatus
from sitemapkit.errors import StoreError, StoreRefusedError
from sitemapkit.store import is_crawl_db, open_store
from sitemapkit.store.rows import RunRow

_HEADER = ("run", "started (UTC)", "took", "state", "pages", "304", "changed", "bytes")


def _when(stamp: float) -> str:
    return datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%d %H:%M:%S")


def _took(run: RunRow) -> str:
    return "-" if run.ended_at is None else f"{run.ended_at - run.started_at:.1f} s"


def _n(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def run_line(run: RunRow) -> tuple[str, ...]:
    """One row of the text table (``-`` where a run did not record a figure)."""
    return (
        str(run.id),
        _when(run.started_at),
        _took(run),
        run.state,
        _n(run.pages),
        _n(run.not_modified),
        _n(run.changed),
        _n(run.bytes),
    )


def run_json(run: RunRow) -> dict[str, object]:
    return {
        "run": run.id,
        "started_at": run.started_at,
        "ended_at": run.ended_at,
        "state": run.state,
        "pages": run.pages,
        "not_modified": run.not_modified,
        "changed": run.changed,
        "bytes": run.bytes,
        "unended": run.unended,
    }


def unended_note(run: RunRow) -> str | None:
    """The line that says a run's figures miss what a killed process fetched (None: none)."""
    if run.unended == 0 or run.state == "running":
        return None  # while it runs, its processes are still adding theirs
    who = "1 process" if run.unended == 1 else f"{run.unended:,} processes"
    return (
        f"run {run.id}: {who} stopped without closing (killed?): its figures count up to "
        "its last commit; what it fetched after that is not known"
    )


@click.command("history")
@click.option(
    "--db",
    "db",
    required=True,
    type=DB_SPEC,
    help="The crawl store whose runs to list (a file or postgresql://...).",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
@click.pass_context
def history(ctx: click.Context, db: DbSpec, fmt: str) -> None:
    """List the runs of a crawl store: time, state, pages, 304s, changes, bytes."""
    if not is_crawl_db(db):
        raise click.UsageError(f"{shown(db)}: not a sitemapkit crawl database")
    try:
        store = open_store(db, mode="read")
        try:
            runs = store.runs()
        finally:
            store.close()
    except StoreRefusedError:
        raise  # newer, or unreachable: one line, exit 1 (cli.main)
    except StoreError as exc:
        raise click.UsageError(str(exc)) from exc
    if fmt == "json":
        for run in runs:
            sys.stdout.write(json.dumps(run_json(run)) + "\n")
        ctx.exit(ExitStatus.OK)
    rows = [_HEADER, *(run_line(run) for run in runs)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER))]
    for row in rows:
        cells = [
            cell.ljust(w) if i in (1, 3) else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(row, widths, strict=True))
        ]
        click.echo("  ".join(cells).rstrip())
    for run in runs:
        note = unended_note(run)
        if note is not None:
            click.echo(note)
    ctx.exit(ExitStatus.OK)
