"""A diff written out: text for people, JSON and CSV for machines.

Text gives the counts per kind first, then one group per kind, each listing at
most :data:`~sitemapkit.limits.MAX_LISTED_FINDINGS` URLs and "and N more" for the
rest (the house cap of :mod:`sitemapkit.listing`), so a site-wide change stays
readable and memory stays flat.  JSON and CSV carry every change, one per URL and
kind: ``url, change, before, after``.
"""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime
from typing import IO

from sitemapkit.changes.compare import Change, Kind
from sitemapkit.changes.runs import Diff, Side
from sitemapkit.fileio import spreadsheet_cell
from sitemapkit.limits import MAX_LISTED_FINDINGS

FORMATS = ("text", "json", "csv")
CSV_HEADER = ("url", "change", "before", "after")


def _when(stamp: float) -> str:
    return datetime.fromtimestamp(int(stamp), UTC).strftime("%Y-%m-%d %H:%M:%S")


def side_text(side: Side) -> str:
    return f"{side.store} run {side.run.id} ({_when(side.run.started_at)} UTC, {side.run.state})"


def side_json(side: Side) -> dict[str, object]:
    return {
        "store": side.store,
        "run": side.run.id,
        "started_at": side.run.started_at,
        "state": side.run.state,
    }


def write_text(diff: Diff, out: IO[str], cap: int = MAX_LISTED_FINDINGS) -> dict[Kind, int]:
    """The summary line, then each non-empty group (capped); the counts per kind."""
    counts = dict.fromkeys(Kind, 0)
    listed: dict[Kind, list[Change]] = {kind: [] for kind in Kind}
    for change in diff.changes:
        counts[change.kind] += 1
        if counts[change.kind] <= cap:
            listed[change.kind].append(change)
    out.write(f"before: {side_text(diff.before)}\nafter:  {side_text(diff.after)}\n")
    for note in diff.notes:
        out.write(note + "\n")
    out.write(", ".join(f"{kind.value} {counts[kind]:,}" for kind in Kind) + "\n")
    for kind in Kind:
        if not counts[kind]:
            continue
        out.write(f"\n{kind.value} ({counts[kind]:,}):\n")
        for change in listed[kind]:
            out.write(f"  {change.url}{_detail(change)}\n")
        if counts[kind] > cap:
            out.write(
                f"  ... and {counts[kind] - cap:,} more (only the first {cap:,} are listed)\n"
            )
    return counts


def _detail(change: Change) -> str:
    if change.kind is Kind.ADDED:
        return f"  ({change.after})"
    if change.kind is Kind.REMOVED:
        return f"  (was {change.before}{'; ' + change.after if change.after else ''})"
    return f"  {_quoted(change)[0]} -> {_quoted(change)[1]}"


def _quoted(change: Change) -> tuple[str, str]:
    if change.kind in (Kind.TITLE, Kind.CANONICAL):
        return json.dumps(change.before, ensure_ascii=False), json.dumps(
            change.after, ensure_ascii=False
        )
    return change.before, change.after


def write_json(diff: Diff, out: IO[str]) -> dict[Kind, int]:
    """One JSON document: both sides, every change, then the counts (streamed)."""
    counts = dict.fromkeys(Kind, 0)
    out.write('{"before":' + json.dumps(side_json(diff.before)))
    out.write(',"after":' + json.dumps(side_json(diff.after)))
    out.write(',"notes":' + json.dumps(diff.notes) + ',"changes":[')
    for n, change in enumerate(diff.changes):
        counts[change.kind] += 1
        out.write(("," if n else "") + "\n" + json.dumps(_row(change), ensure_ascii=False))
    out.write('\n],"counts":' + json.dumps({k.value: v for k, v in counts.items()}) + "}\n")
    return counts


def _row(change: Change) -> dict[str, str]:
    return dict(zip(CSV_HEADER, _cells(change), strict=True))


def _cells(change: Change) -> tuple[str, str, str, str]:
    return change.url, change.kind.value, change.before, change.after


def write_csv(diff: Diff, out: IO[str]) -> dict[Kind, int]:
    """A header and one row per change (url, change, before, after)."""
    counts = dict.fromkeys(Kind, 0)
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for change in diff.changes:
        counts[change.kind] += 1
        writer.writerow([spreadsheet_cell(cell) for cell in _cells(change)])
    return counts


def write(diff: Diff, fmt: str, out: IO[str]) -> dict[Kind, int]:
    """Write ``diff`` in ``fmt`` (one of :data:`FORMATS`)."""
    writers = {"text": write_text, "json": write_json, "csv": write_csv}
    return writers[fmt](diff, out)
