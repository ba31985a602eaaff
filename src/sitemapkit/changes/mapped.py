"""The crawl's pages marked by change, for ``sitemapkit visualize STORE --diff``.

The map draws the store's last run, so the later side of the diff must be that run.
Each page gets ``extra["change"]`` (``new``, ``gone``, ``changed`` or ``same``,
:func:`~sitemapkit.changes.compare.map_state`) and, when changed, ``extra["changes"]``
saying what changed.  Gone pages are still in the store (reason ``unlinked``), so they
are drawn where they were; a URL gone before both runs is left out.  Only the changed
URLs are held in memory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from sitemapkit.changes.compare import SAME, Change, Kind, map_state
from sitemapkit.changes.runs import Side, runs_of_one_store
from sitemapkit.errors import InputError
from sitemapkit.model import PageRecord
from sitemapkit.store import iter_page_records

#: Longest "what changed" text carried to the map (titles come from the web).
MAX_SUMMARY = 300


def summary(changes: list[Change]) -> str:
    """What changed, in a line: ``status 200 -> 404; title; content``."""
    parts = []
    for change in changes:
        if change.kind in (Kind.STATUS, Kind.INDEXABILITY):
            parts.append(f"{change.kind.value} {change.before} -> {change.after}")
        elif change.kind not in (Kind.ADDED, Kind.REMOVED):
            parts.append(change.kind.value)
    text = "; ".join(parts)
    return text if len(text) <= MAX_SUMMARY else text[: MAX_SUMMARY - 1] + "\u2026"


def diff_records(
    db: str | Path, run_a: int | None = None, run_b: int | None = None
) -> tuple[Side, Side, Iterator[PageRecord]]:
    """The two sides, and the last run's pages marked by what changed since ``run_a``."""
    with runs_of_one_store(db, run_a, run_b) as plan:
        last = plan.last_run
        if plan.after.run.id != last:
            raise InputError(
                f"{db}: the map draws the last run ({last}); give --diff "
                f"{plan.before.run.id}..{last} or an earlier run alone",
                value=str(db),
            )
        changed: dict[str, list[Change]] = {}
        for change in plan.changes:
            changed.setdefault(change.url, []).append(change)
        before, after = plan.before, plan.after
    return before, after, _marked(db, changed)


def _marked(db: str | Path, changed: dict[str, list[Change]]) -> Iterator[PageRecord]:
    for record in iter_page_records(db):
        changes = changed.get(record.url)
        if changes is None:
            if record.reason == "unlinked":  # gone before both runs: not part of this diff
                continue
            yield replace(record, extra={**record.extra, "change": SAME})
            continue
        extra = {**record.extra, "change": map_state(changes)}
        text = summary(changes)
        if text:
            extra["changes"] = text
        yield replace(record, extra=extra)
