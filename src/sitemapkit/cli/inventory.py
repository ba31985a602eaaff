"""``sitemapkit inventory DB``: every URL a crawl saw, with its fate, as CSV or JSON Lines.

The inventory is the other half of a crawl's answer: the sitemap says what is
in, this says what is out and why (``noindex``, ``canonicalised-to``,
``http-404`` ...).  Rows stream from the database, so a crawl of millions of
URLs exports in constant memory.  With ``-o FILE`` the file is written under a
temporary name and renamed, so a reader never sees half an export.
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

import click

from sitemapkit.cli.dbspec import DB_SPEC, DbSpec
from sitemapkit.cli.status import ExitStatus
from sitemapkit.fileio import atomic_open, spreadsheet_cell
from sitemapkit.model import PageRecord
from sitemapkit.store import is_crawl_db, iter_page_records

COLUMNS = (
    "url",
    "status",
    "depth",
    "title",
    "canonical",
    "indexable",
    "reason",
    "detail",
    "inlinks",
    "outlinks",
    "lastmod",
    "lastmod_source",
    "content_type",
    "redirect_to",
    "found_from",
    "render",
    "rendered_links",
    "notes",
)


def record_row(record: PageRecord) -> dict[str, object]:
    """One inventory row (the columns of :data:`COLUMNS`)."""
    return {
        "url": record.url,
        "status": record.status,
        "depth": record.depth,
        "title": record.title,
        "canonical": record.canonical,
        "indexable": record.indexable,
        "reason": record.reason,
        "detail": record.extra.get("detail"),
        "inlinks": record.inlinks,
        "outlinks": record.outlinks,
        "lastmod": record.lastmod,
        "lastmod_source": record.lastmod_source,
        "content_type": record.content_type,
        "redirect_to": record.redirect_to,
        "found_from": record.extra.get("found_from"),
        # rendered, render-timeout, render-failed; empty when the page was not rendered
        "render": record.extra.get("render"),
        "rendered_links": record.extra.get("rendered_links"),
        # facts that do not change the fate: links-capped, annotations left out, ...
        "notes": "; ".join(record.extra["notes"].splitlines()) if "notes" in record.extra else None,
    }


class InventoryWriter:
    """Writes one inventory row per record as records pass by; ``rows`` counts them.

    :meth:`passing` lets a single read of the store feed the inventory and the visual
    map (``crawl`` publishes both, from the same records).
    """

    def __init__(self, out: IO[str], fmt: str) -> None:
        self.rows = 0
        self._out = out
        self._csv = None
        if fmt == "csv":
            self._csv = csv.writer(out, lineterminator="\n")
            self._csv.writerow(COLUMNS)

    def write(self, record: PageRecord) -> None:
        row = record_row(record)
        if self._csv is not None:
            row["indexable"] = "yes" if record.indexable else "no"
            # A list in COLUMNS order (record_row's order): csv.DictWriter's own mapping
            # to a list was half the time of an export.
            self._csv.writerow([spreadsheet_cell(value) for value in row.values()])
        else:
            self._out.write(json.dumps(row, ensure_ascii=False) + "\n")
        self.rows += 1

    def passing(self, records: Iterable[PageRecord]) -> Iterator[PageRecord]:
        """``records`` again, each written as it goes by."""
        for record in records:
            self.write(record)
            yield record


def write_inventory(records: Iterable[PageRecord], out: IO[str], fmt: str) -> int:
    """Write ``records`` to ``out`` as ``csv`` or ``jsonl``; return the row count."""
    writer = InventoryWriter(out, fmt)
    for record in records:
        writer.write(record)
    return writer.rows


def export_inventory(db: DbSpec, target: Path, fmt: str = "csv") -> int:
    """Write the inventory of ``db`` to ``target`` atomically; return the row count."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(target, "w", what="the inventory") as fh:
        return write_inventory(iter_page_records(db), fh, fmt)


@click.command("inventory")
@click.argument("db", type=DB_SPEC)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["csv", "jsonl"]),
    default="csv",
    show_default=True,
    help="Output format.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to FILE instead of standard output ('-').",
)
@click.pass_context
def inventory(ctx: click.Context, db: DbSpec, fmt: str, output: Path | None) -> None:
    """Export every URL the crawl in DB saw: status, depth, title, canonical, reason, inlinks."""
    if (isinstance(db, Path) and not db.is_file()) or not is_crawl_db(db):
        click.echo(f"sitemapkit: error: {db}: not a sitemapkit crawl database", err=True)
        ctx.exit(ExitStatus.USAGE)
    if output is None or str(output) == "-":
        write_inventory(iter_page_records(db), sys.stdout, fmt)
    else:
        n = export_inventory(db, output, fmt)
        click.echo(f"wrote {n:,} rows to {output}", err=True)
    ctx.exit(ExitStatus.OK)
