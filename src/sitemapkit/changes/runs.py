"""Which two states a diff compares: two runs of one store, or the last runs of two stores.

A wrong run number, a store with fewer than two runs or a run made before change
records are caller mistakes: :class:`~sitemapkit.errors.InputError` with one line
that says what can be compared instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sitemapkit.changes.compare import Change, compare, merge_by_url
from sitemapkit.errors import InputError
from sitemapkit.store import is_crawl_db, open_store
from sitemapkit.store.base import CrawlStore, UrlFacts
from sitemapkit.store.rows import RunRow


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a diff: a store and one of its runs."""

    store: str
    run: RunRow


@dataclass(slots=True)
class Diff:
    """The two sides and the changes between them (streamed once)."""

    before: Side
    after: Side
    changes: Iterator[Change]
    #: Things the reader should know (a side that did not finish ...).
    notes: list[str] = field(default_factory=list)
    #: The newest run of the (later) store.
    last_run: int = 0


def _open(spec: str | Path, stack: ExitStack) -> CrawlStore:
    if not is_crawl_db(spec):
        raise InputError(f"{spec}: not a sitemapkit crawl database", value=str(spec))
    store = open_store(spec, mode="read")
    stack.callback(store.close)
    return store


def _unfinished(side: Side) -> list[str]:
    if side.run.state == "finished":
        return []
    if side.run.state == "running":  # no end, no change records yet (written at the end)
        return [
            f"note: {side.store} run {side.run.id} has not ended (still running, or killed: "
            "continue it with crawl --resume): its changes are recorded when it ends, so "
            "none of them are compared here"
        ]
    return [
        f"note: {side.store} run {side.run.id} ended {side.run.state}: the URLs it did not "
        "reach are compared as the run before it left them"
    ]


def _pick(store: CrawlStore, runs: list[RunRow], number: int) -> RunRow:
    by_id = {run.id: run for run in runs}
    if number not in by_id:
        known = f"runs {runs[0].id}-{runs[-1].id}" if runs else "no runs"
        raise InputError(f"{store.name}: no run {number} (it has {known})", value=number)
    run = by_id[number]
    if not run.tracked:
        first = min(r.id for r in runs if r.tracked)
        raise InputError(
            f"{store.name}: run {number} was made before sitemapkit recorded changes per "
            f"run; runs {first} and later can be compared",
            value=number,
        )
    return run


def _changes(pairs: Iterator[tuple[str, UrlFacts | None, UrlFacts | None]]) -> Iterator[Change]:
    for url, before, after in pairs:
        yield from compare(url, before, after)


@contextmanager
def runs_of_one_store(
    db: str | Path, run_a: int | None = None, run_b: int | None = None
) -> Iterator[Diff]:
    """Compare two runs of ``db`` (default: the last two; ``run_a`` alone: with the last)."""
    with ExitStack() as stack:
        store = _open(db, stack)
        runs = store.runs()
        if len(runs) < 2:
            raise InputError(
                f"{db}: has {len(runs)} run{'s' if len(runs) != 1 else ''}; a diff needs two "
                "(crawl again with the same --db, or give two stores)",
                value=str(db),
            )
        run_b = runs[-1].id if run_b is None else run_b
        run_a = runs[-2].id if run_a is None else run_a
        before, after = (
            Side(str(db), _pick(store, runs, run_a)),
            Side(str(db), _pick(store, runs, run_b)),
        )
        pairs = store.changes_between(run_a, run_b)
        notes = _unfinished(before) + _unfinished(after)
        yield Diff(before, after, _changes(pairs), notes, runs[-1].id)


def _last_run(store: CrawlStore, spec: str | Path) -> RunRow:
    runs = store.runs()
    if not runs:
        raise InputError(f"{spec}: has no crawl run to compare", value=str(spec))
    return runs[-1]


@contextmanager
def last_runs_of_two_stores(old: str | Path, new: str | Path) -> Iterator[Diff]:
    """Compare the last run of ``old`` with the last run of ``new``, URL by URL."""
    with ExitStack() as stack:
        a, b = _open(old, stack), _open(new, stack)
        run_a, run_b = _last_run(a, old), _last_run(b, new)
        before, after = Side(str(old), run_a), Side(str(new), run_b)
        pairs = merge_by_url(a.facts_at(run_a.id), b.facts_at(run_b.id))
        notes = _unfinished(before) + _unfinished(after)
        yield Diff(before, after, _changes(pairs), notes, run_b.id)
