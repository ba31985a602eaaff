"""The one definition of a change, and a URL's timeline."""

from __future__ import annotations

import io
from dataclasses import replace

from sitemapkit.changes.compare import MAX_HISTORY, Change, Kind, compare, map_state, timeline
from sitemapkit.changes.report import write_text
from sitemapkit.changes.runs import Diff, Side
from sitemapkit.fileio import spreadsheet_cell
from sitemapkit.store.base import UrlFacts
from sitemapkit.store.rows import RunRow

PAGE = UrlFacts("http://a/x", 1, False, 200, True, None, "X", None, "f1", None)


def test_each_fact_is_its_own_kind_and_a_404_is_status_and_indexability() -> None:
    broken = replace(PAGE, run=2, status=404, indexable=False, reason="http-404", fingerprint=None)
    kinds = [(c.kind, c.before, c.after) for c in compare(PAGE.url, PAGE, broken)]
    assert kinds == [
        (Kind.STATUS, "200", "404"),
        (Kind.INDEXABILITY, "indexable", "not indexable: http-404"),
    ]
    assert compare(PAGE.url, PAGE, replace(PAGE, run=2)) == []
    assert map_state(compare(PAGE.url, None, PAGE)) == "new"
    assert map_state(compare(PAGE.url, PAGE, replace(PAGE, gone=True))) == "gone"
    assert compare(PAGE.url, replace(PAGE, gone=True), None) == []  # absent on both sides


def test_a_long_history_keeps_the_latest_runs() -> None:
    records = [replace(PAGE, run=n, title=f"X{n}") for n in range(1, MAX_HISTORY + 6)]
    lines = timeline(records)
    assert len(lines) == MAX_HISTORY + 1
    assert lines[0] == "... 5 earlier changes"
    assert lines[-1] == f"run {MAX_HISTORY + 5}: title"


def test_csv_cells_that_a_spreadsheet_would_run_get_a_quote() -> None:
    # the audit's own copy left "-" out: -1+2 ran as a formula in its CSV
    assert [spreadsheet_cell(v) for v in ("-1+2", "=A1", "@x", "ok", None, 3)] == [
        "'-1+2",
        "'=A1",
        "'@x",
        "ok",
        "",
        "3",
    ]


def test_text_groups_are_capped_with_and_n_more() -> None:
    run = RunRow(1, 1_700_000_000.0, 1_700_000_100.0, "finished")
    added = [Change(f"http://a/{i}", Kind.ADDED, "", "200, indexable") for i in range(5)]
    diff = Diff(Side("a.sqlite", run), Side("a.sqlite", replace(run, id=2)), iter(added))
    out = io.StringIO()
    counts = write_text(diff, out, cap=2)
    assert counts[Kind.ADDED] == 5
    text = out.getvalue()
    assert "added 5, removed 0" in text
    more = "  ... and 3 more (only the first 2 are listed)\n"
    assert "  http://a/1  (200, indexable)\n" + more in text
    assert "http://a/2" not in text
