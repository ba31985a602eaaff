"""Reads of the crawl's tables that both stores run as they are (portable SQL, ``?``).

Why a module: a run's figures, a URL's fate and the reasons pages were left out
are what the app, ``history``, ``--why`` and the crawl's end report show; one
query and one row mapping each keep SQLite and PostgreSQL answering alike.  The
SQLite store passes its connection, the PostgreSQL store
:class:`~sitemapkit.store.postgres_conn.Qmark`.  Reads whose SQL differs by
dialect (insertion order is ``rowid`` in SQLite, an ``id`` column in PostgreSQL;
arrays) stay with each store.
"""

from __future__ import annotations

from sitemapkit.store.base import Fate, RunRow, UrlState
from sitemapkit.store.sqlreader import SqlReader


def run_started(db: SqlReader) -> float | None:
    """When the last run started (None: no run yet)."""
    row = db.execute("SELECT started_at FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    return None if row is None else float(row[0])


def runs(db: SqlReader) -> list[RunRow]:
    """Every run, oldest first."""
    return [
        RunRow(
            int(i),
            float(s),
            None if e is None else float(e),
            str(st),
            pages=pages,
            not_modified=not_modified,
            changed=changed,
            bytes=size,
            tracked=bool(tracked),
        )
        for i, s, e, st, pages, not_modified, changed, size, tracked in db.execute(
            "SELECT id, started_at, ended_at, state, pages, not_modified, changed, bytes, "
            "tracked FROM runs ORDER BY id"
        )
    ]


def fate(db: SqlReader, url_id: int) -> Fate | None:
    """A URL's state, status and reason (None: no such id)."""
    row = db.execute("SELECT state, status, reason FROM urls WHERE id = ?", (url_id,)).fetchone()
    if row is None:
        return None
    return Fate(
        UrlState(int(row[0])),
        None if row[1] is None else int(row[1]),
        None if row[2] is None else str(row[2]),
    )


def reasons(db: SqlReader) -> dict[str, int]:
    """URLs kept out of the sitemap per reason (never reached: ``not-crawled``)."""
    return {
        str(reason): int(n)
        for reason, n in db.execute(
            "SELECT CASE WHEN state IN (0, 1, 4) THEN 'not-crawled' ELSE reason END, "
            "COUNT(*) FROM urls WHERE indexable = 0 OR state <> 2 GROUP BY 1"
        )
    }


def note_counts(db: SqlReader) -> dict[str, tuple[int, str]]:
    """Per note code: the pages noted and the first of them."""
    return {
        str(code): (int(n), str(url))
        for code, n, url in db.execute(
            "SELECT g.code, g.pages, COALESCE(u.loc, u.url) FROM "
            "(SELECT code, COUNT(DISTINCT page_id) AS pages, MIN(page_id) AS first "
            "FROM notes GROUP BY code) g JOIN urls u ON u.id = g.first ORDER BY g.code"
        )
    }
