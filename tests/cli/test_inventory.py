"""The inventory export keeps hostile page text inert."""

from __future__ import annotations

import csv
import io
import json

from sitemapkit.cli.inventory import write_inventory
from sitemapkit.model import PageRecord


def test_csv_cells_that_look_like_formulas_stay_text() -> None:
    records = [
        PageRecord("http://a/", status=200, title='=HYPERLINK("http://evil","x")'),
        PageRecord("http://a/b", status=200, title="-1+2", indexable=True),
        PageRecord("http://a/c", status=200, title="<script>alert(1)</script> & more"),
    ]
    out = io.StringIO()
    assert write_inventory(iter(records), out, "csv") == 3
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert [r["title"] for r in rows] == [
        '\'=HYPERLINK("http://evil","x")',
        "'-1+2",
        "<script>alert(1)</script> & more",
    ]
    assert [r["indexable"] for r in rows] == ["no", "yes", "no"]
    out = io.StringIO()
    write_inventory(iter(records), out, "jsonl")
    assert json.loads(out.getvalue().splitlines()[0])["title"] == records[0].title


def test_a_csv_row_is_spreadsheet_cell_of_every_value() -> None:
    """The batch lane (values handed to the CSV writer as they are unless text, or a
    negative number, could start a formula) writes what ``spreadsheet_cell`` of every
    value writes, over more rows than one batch."""
    from sitemapkit.cli.inventory import COLUMNS, record_row
    from sitemapkit.fileio import spreadsheet_cell

    records = [
        PageRecord(
            f"http://a/{i}",
            status=None if i % 3 else 200,
            depth=-i if i % 7 == 0 else i,  # a negative number reads as a formula too
            title=["@SUM(A1)", "+1", "\tx", "plain", None, ""][i % 6],
            canonical="=x" if i % 5 == 0 else None,
            indexable=[True, False, None][i % 3],
            reason="-r" if i % 4 == 0 else "noindex",
            inlinks=i,
            outlinks=-1 if i == 5 else 0,
            extra={"notes": "a\n-b", "found_from": "=f"} if i % 2 else {},
        )
        for i in range(2500)
    ]
    out = io.StringIO()
    assert write_inventory(iter(records), out, "csv") == len(records)
    expected = io.StringIO()
    writer = csv.writer(expected, lineterminator="\n")
    writer.writerow(COLUMNS)
    for record in records:
        row = record_row(record)
        row["indexable"] = "yes" if record.indexable else "no"
        writer.writerow([spreadsheet_cell(value) for value in row.values()])
    assert out.getvalue() == expected.getvalue()
