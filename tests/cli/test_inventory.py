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
