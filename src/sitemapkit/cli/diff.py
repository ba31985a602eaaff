"""``sitemapkit diff``: what changed on a site between two crawls (issue 12).

Two forms: ``--db site.sqlite [RUN_A RUN_B]`` compares two runs of one store (by
default the last two), reading only the URLs that have a change record in between;
``OLD.sqlite NEW.sqlite`` compares the last runs of two stores URL by URL (a
merge of two sorted streams).  Exit 0 when the diff was written (changes are
not failures), 2 for a usage error (a run the store does not have, a store with
fewer than two runs).  ``-o FILE`` appears complete or not at all.
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager
from pathlib import Path

import click

from sitemapkit.changes.report import FORMATS, write
from sitemapkit.changes.runs import Diff, last_runs_of_two_stores, runs_of_one_store
from sitemapkit.cli.dbspec import DB_SPEC, DbSpec
from sitemapkit.cli.status import ExitStatus
from sitemapkit.errors import InputError, StoreError
from sitemapkit.fileio import atomic_open


def _run_number(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise click.UsageError(f"{text!r} is not a run number (see sitemapkit history --db)")
    return int(text)


def _plan(db: DbSpec | None, args: tuple[str, ...]) -> AbstractContextManager[Diff]:
    if db is not None:
        if len(args) not in (0, 2):
            raise click.UsageError("with --db, give two run numbers (RUN_A RUN_B) or none")
        if not args:
            return runs_of_one_store(db)
        return runs_of_one_store(db, _run_number(args[0]), _run_number(args[1]))
    if len(args) != 2:
        raise click.UsageError("give --db STORE [RUN_A RUN_B], or two stores: OLD NEW")
    return last_runs_of_two_stores(args[0], args[1])


@click.command("diff")
@click.argument("args", nargs=-1, metavar="[RUN_A RUN_B | OLD NEW]")
@click.option(
    "--db",
    type=DB_SPEC,
    help="The crawl store (file or postgresql://...) whose runs to compare (default: its "
    "last two runs).",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option(
    "-o",
    "--output",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write to FILE (atomically) instead of standard output.",
)
@click.pass_context
def diff(
    ctx: click.Context, args: tuple[str, ...], db: DbSpec | None, fmt: str, output: Path | None
) -> None:
    """Show what changed between two crawls: URLs added and removed, status,
    indexability (and why), title, canonical and content changes.

    `diff --db site.sqlite [RUN_A RUN_B]` compares two runs of one store (default:
    the last two); `diff old.sqlite new.sqlite` compares the last runs of two stores.
    """
    try:
        with _plan(db, args) as plan:
            if output is None or str(output) == "-":
                write(plan, fmt, sys.stdout)
            else:
                with atomic_open(output, "w", what="the diff") as fh:
                    write(plan, fmt, fh)
    except (InputError, StoreError) as exc:
        click.echo(f"sitemapkit: error: {exc}", err=True)
        ctx.exit(ExitStatus.USAGE)
    except click.UsageError as exc:
        click.echo(f"sitemapkit: error: {exc.format_message()}", err=True)
        ctx.exit(ExitStatus.USAGE)
    ctx.exit(ExitStatus.OK)
