"""Ending a run, in SQL both stores run as it is (``?`` placeholders).

Why one place: a run's end writes what changed in it, turns the URLs no page links any more
into ``unlinked`` when the crawl finished, and records what changed.  SQLite and
PostgreSQL each had this SQL written out; a rule changed in one drifted from the
other.  SQLite passes its connection, PostgreSQL
:class:`~sitemapkit.store.postgres_conn.Qmark`.
"""

from __future__ import annotations

from sitemapkit.store.base import UrlState
from sitemapkit.store.sqlite_changes import record_changes
from sitemapkit.store.sqlreader import SqlReader

#: A new run's first step: every URL the last run decided, ``DONE`` or ``HELD``
#: (``nofollow-only``), is ``STALE`` until this run reaches it, so one no page links
#: any more ends ``unlinked`` (:func:`end_run`) whatever the last run said of it.
MARK_STALE = (
    f"UPDATE urls SET state = {int(UrlState.STALE)} "
    f"WHERE state IN ({int(UrlState.DONE)}, {int(UrlState.HELD)})"
)


def end_run(db: SqlReader, state: str, ended_at: float) -> bool:
    """Close the last run as ``state``; True when URLs turned ``unlinked`` (caches are stale).

    The run's pages, ``304``s and bytes are not written here: each session added its
    own as it went (:mod:`~sitemapkit.store.sessions`), and a fleet's run may be ended
    by one worker while another is still adding its last page's.
    """
    # A finished run keeps its end: a resume of it (nothing left to do) or a fleet's
    # second process to see the frontier drained must not move it (``took``).
    db.execute(
        "UPDATE runs SET state = CASE WHEN state = 'finished' THEN state ELSE ? END, "
        "ended_at = CASE WHEN state = 'finished' THEN ended_at ELSE ? END, "
        "changed = (SELECT COUNT(*) FROM urls WHERE fingerprint_run = runs.id) "
        "WHERE id = (SELECT MAX(id) FROM runs)",
        (state, ended_at),
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
