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

from sitemapkit.cli.dbspec import DB_SPEC, DbSpec, shown
from sitemapkit.cli.status import ExitStatus
from sitemapkit.fileio import FORMULA_START, atomic_open, spreadsheet_cell
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


def record_values(record: PageRecord) -> tuple[object, ...]:
    """One inventory row's values, in :data:`COLUMNS` order (the one definition of a row)."""
    extra = record.extra
    return (
        record.url,
        record.status,
        record.depth,
        record.title,
        record.canonical,
        record.indexable,
        record.reason,
        extra.get("detail"),
        record.inlinks,
        record.outlinks,
        record.lastmod,
        record.lastmod_source,
        record.content_type,
        record.redirect_to,
        extra.get("found_from"),
        # rendered, render-timeout, render-failed; empty when the page was not rendered
        extra.get("render"),
        extra.get("rendered_links"),
        # facts that do not change the fate: links-capped, annotations left out, ...
        "; ".join(extra["notes"].splitlines()) if "notes" in extra else None,
    )


def record_row(record: PageRecord) -> dict[str, object]:
    """One inventory row as a mapping (JSON Lines): :func:`record_values` by column."""
    return dict(zip(COLUMNS, record_values(record), strict=True))


#: Column of ``indexable``, written as ``yes``/``no`` in CSV.
_INDEXABLE = COLUMNS.index("indexable")

#: Rows handed to the CSV writer at once.
_BATCH = 1000


def csv_cells(record: PageRecord) -> list[object]:
    """One CSV row: :func:`~sitemapkit.fileio.spreadsheet_cell` of every value.

    Only text (and a negative number) can start like a formula; ``None`` and other
    numbers go to the CSV writer as they are, which writes them as ``spreadsheet_cell``
    would (``""``, the digits): a call per cell was a fifth of the export.
    """
    cells: list[object] = [
        v if v is None or (v.__class__ is str and not v.startswith(FORMULA_START)) else
        spreadsheet_cell(v)
        for v in record_values(record)
    ]  # fmt: skip
    cells[_INDEXABLE] = "yes" if record.indexable else "no"
    return cells


class InventoryWriter:
    """Writes one inventory row per record as records pass by; ``rows`` counts them.

    :meth:`passing` lets a single read of the store feed the inventory and the visual
    map (``crawl`` publishes both, from the same records).  CSV rows go to the writer a
    batch at a time (:meth:`flush`; :meth:`passing` and :func:`write_inventory` call it).
    """

    def __init__(self, out: IO[str], fmt: str) -> None:
        self.rows = 0
        self._out = out
        self._csv = None
        self._batch: list[list[object]] = []
        if fmt == "csv":
            self._csv = csv.writer(out, lineterminator="\n")
            self._csv.writerow(COLUMNS)

    def write(self, record: PageRecord) -> None:
        if self._csv is not None:
            self._batch.append(csv_cells(record))
            if len(self._batch) >= _BATCH:
                self.flush()
        else:
            self._out.write(json.dumps(record_row(record), ensure_ascii=False) + "\n")
        self.rows += 1

    def flush(self) -> None:
        """Hand the rows written so far to the CSV writer."""
        if self._csv is not None and self._batch:
            self._csv.writerows(self._batch)
            self._batch.clear()

    def passing(self, records: Iterable[PageRecord]) -> Iterator[PageRecord]:
        """``records`` again, each written as it goes by."""
        for record in records:
            self.write(record)
            yield record
        self.flush()


def write_inventory(records: Iterable[PageRecord], out: IO[str], fmt: str) -> int:
    """Write ``records`` to ``out`` as ``csv`` or ``jsonl``; return the row count."""
    writer = InventoryWriter(out, fmt)
    for record in records:
        writer.write(record)
    writer.flush()
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
        click.echo(f"sitemapkit: error: {shown(db)}: not a sitemapkit crawl database", err=True)
        ctx.exit(ExitStatus.USAGE)
    if output is None or str(output) == "-":
        write_inventory(iter_page_records(db), sys.stdout, fmt)
    else:
        n = export_inventory(db, output, fmt)
        click.echo(f"wrote {n:,} rows to {output}", err=True)
    ctx.exit(ExitStatus.OK)
