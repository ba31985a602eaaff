"""``sitemapkit write --db SPEC -o OUTDIR``: write the sitemap set of a stored crawl.

Why a command of its own: with ``--db postgresql://...`` the crawl may be made by
several processes on several machines, and any one of them (or none) writes the
set at the end; with SQLite it rewrites a set from a kept crawl (another
``--base-url``, ``--gzip``) without crawling again.  It is the crawl's own output
step (:func:`~sitemapkit.cli.crawl_output.publish_crawl`, the same guards against
a set shrunk by half), not a copy of it.
"""

from __future__ import annotations

from pathlib import Path

import click

from sitemapkit.cli.crawl import default_base_url
from sitemapkit.cli.crawl_output import (
    ShrinkError,
    check_shrink,
    empty_hint,
    publish_crawl,
    published_lines,
)
from sitemapkit.cli.dbspec import DB_SPEC, DbSpec, shown
from sitemapkit.cli.outdir import OUT_FOLDER
from sitemapkit.cli.status import ExitStatus
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.errors import (
    EmptySetError,
    StoreError,
    StoreRefusedError,
    StoreWriteError,
)
from sitemapkit.store import is_crawl_db, open_store


@click.command("write")
@click.option(
    "--db", required=True, type=DB_SPEC, help="The crawl store (file or postgresql://...)."
)
@click.option(
    "-o",
    "--out",
    "out_dir",
    required=True,
    type=OUT_FOLDER,
    help="Folder for the sitemap set.",
)
@click.option("--base-url", help="Where the sitemap set will be served (default: site root).")
@click.option("--gzip", is_flag=True, help="Write .xml.gz files.")
@click.option("--inventory", is_flag=True, help="Also write inventory.csv (every URL's fate).")
@click.option("--map", "visual_map", is_flag=True, help="Also draw site-map.html.")
@click.option(
    "--allow-shrink", is_flag=True, help="Publish even if under half the URLs already published."
)
@click.pass_context
def write(
    ctx: click.Context,
    db: DbSpec,
    out_dir: Path,
    base_url: str | None,
    gzip: bool,
    inventory: bool,
    visual_map: bool,
    allow_shrink: bool,
) -> None:
    """Write the sitemap set of the crawl stored in --db into OUTDIR."""
    if not is_crawl_db(db):
        raise click.UsageError(f"--db {shown(db)}: not a sitemapkit crawl database")
    try:
        store = open_store(db, mode="resume")  # locked: notes on left-out annotations are stored
    except (StoreRefusedError, StoreWriteError):
        raise  # in use, newer, unreachable, or cannot be written: one line, exit 1
    except StoreError as exc:
        raise click.UsageError(str(exc)) from exc
    try:
        stored = store.get_meta("config")
        config = CrawlConfig.from_json(stored) if stored else None
        indexable = store.counts().get("indexable", 0)
        # Not decided by the last run yet: queued, claimed, or an earlier run's page not
        # reached again (a cut re-crawl has no queue left, but those pages are not listed).
        unfinished = store.reasons().get("not-crawled", 0)
        if not allow_shrink:
            try:
                check_shrink(out_dir, indexable)
            except ShrinkError as exc:
                click.echo(f"sitemapkit: error: {exc}", err=True)
                ctx.exit(ExitStatus.ERROR)
        try:
            done = publish_crawl(
                store,
                db,
                out_dir,
                base_url=base_url or default_base_url(store),
                gzip=gzip,
                images=config.images if config else False,
                other_hosts=bool(config and (config.subdomains or config.allow_hosts)),
                inventory=inventory,
                visual_map=visual_map,
            )
        except EmptySetError as exc:
            click.echo(f"sitemapkit: error: {exc} ({empty_hint(db)})", err=True)
            ctx.exit(ExitStatus.ERROR)
    finally:
        store.close()
    for line in published_lines(done, db):
        click.echo(line)
    if unfinished:
        click.echo(
            f"note: the crawl is not finished ({unfinished:,} URLs not decided yet): the set "
            "lists the pages decided so far (--resume the crawl, then write again)",
            err=True,
        )
    for note in done.notes:
        click.echo(f"note: {note}", err=True)
    ctx.exit(ExitStatus.OK)
