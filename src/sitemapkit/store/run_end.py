"""Ending a run, in SQL both stores run as it is (``?`` placeholders).

Why one place: a run's end writes its figures, turns the URLs no page links any more
into ``unlinked`` when the crawl finished, and records what changed.  SQLite and
PostgreSQL each had this SQL written out; a rule changed in one drifted from the
other.  SQLite passes its connection, PostgreSQL
:class:`~sitemapkit.store.postgres_conn.Qmark`.
"""

from __future__ import annotations

from sitemapkit.store.base import RunFigures
from sitemapkit.store.sqlite_changes import record_changes
from sitemapkit.store.sqlreader import SqlReader


def end_run(db: SqlReader, state: str, ended_at: float, figures: RunFigures | None) -> bool:
    """Close the last run as ``state``; True when URLs turned ``unlinked`` (caches are stale)."""
    done = figures or RunFigures()
    db.execute(
        "UPDATE runs SET state = ?, ended_at = ?, pages = COALESCE(pages, 0) + ?, "
        "not_modified = COALESCE(not_modified, 0) + ?, bytes = COALESCE(bytes, 0) + ?, "
        "changed = (SELECT COUNT(*) FROM urls WHERE fingerprint_run = runs.id) "
        "WHERE id = (SELECT MAX(id) FROM runs)",
        (state, ended_at, done.pages, done.not_modified, done.bytes),
    )
    finished = state == "finished"
    if finished:  # every page still linked was reached: the rest are gone
        db.execute(
            "UPDATE urls SET state = 2, indexable = 0, reason = 'unlinked', "
            "detail = 'no longer linked from the site', etag = NULL, last_modified = NULL "
            "WHERE state = 4"
        )
    run = db.execute("SELECT MAX(id) FROM runs").fetchone()
    if run is not None and run[0] is not None:
        record_changes(db, int(run[0]))
    return finished
