"""The IndexNow submission log in the SQLite crawl store.

Why a log per URL and not "everything since time T": what a search engine must hear
about is the difference between what it was last told and what the crawl now knows.
``indexnow_sent`` keeps, for every URL once submitted, the version it was submitted
at (its content fingerprint, or its lastmod for a page without one) and whether it
was in the sitemap then.  The URLs to send are a join of that log with the crawl:
in the sitemap and never sent (added), sent at another version (changed), sent as
present and no longer in the sitemap (removed).  A batch the endpoint accepted
updates the log; a failed one does not, so it is pending again on the next run, and
a rerun after a success finds nothing to send.  ``indexnow_submissions`` records
every request made, accepted or not, for the user to read.  The SQL is plain
(``IS DISTINCT FROM``, ``ON CONFLICT``) so the PostgreSQL store runs the same.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING

from sitemapkit.errors import StoreError, StoreWriteError
from sitemapkit.store.crawl_reads import UNDECIDED_SQL
from sitemapkit.store.guard import guard
from sitemapkit.store.sqlreader import SqlReader

if TYPE_CHECKING:
    from sitemapkit.store.rows import IndexNowChange, SubmissionRow

#: Schema migration 11: the IndexNow submission log.
INDEXNOW_SCHEMA = """
    CREATE TABLE indexnow_sent (
        url_id INTEGER PRIMARY KEY,
        version TEXT,
        present INTEGER NOT NULL,
        sent_at REAL NOT NULL
    );
    CREATE TABLE indexnow_submissions (
        id INTEGER PRIMARY KEY,
        at REAL NOT NULL,
        endpoint TEXT NOT NULL,
        host TEXT NOT NULL,
        urls INTEGER NOT NULL,
        status INTEGER,
        accepted INTEGER NOT NULL,
        detail TEXT NOT NULL
    );
"""

#: What a submitted URL is submitted as: a new fingerprint is new content; a page
#: without one (a PDF, an image) counts as changed when its lastmod moves.
_VERSION = "COALESCE(u.fingerprint, u.lastmod)"
_IN_SITEMAP = "u.state = 2 AND u.indexable = 1"

PENDING_SQL = f"""
    SELECT u.id, COALESCE(u.loc, u.url),
        CASE WHEN s.url_id IS NULL OR s.present = 0 THEN 'added' ELSE 'changed' END,
        {_VERSION}
    FROM urls u LEFT JOIN indexnow_sent s ON s.url_id = u.id
    WHERE u.id > ? AND {_IN_SITEMAP}
        AND (s.url_id IS NULL OR s.present = 0 OR s.version IS DISTINCT FROM {_VERSION})
    UNION ALL
    SELECT u.id, COALESCE(u.loc, u.url), 'removed', NULL
    FROM indexnow_sent s JOIN urls u ON u.id = s.url_id
    WHERE s.url_id > ? AND s.present = 1 AND u.state NOT IN {UNDECIDED_SQL} AND u.indexable = 0
    ORDER BY 1 LIMIT ?
"""


def pending(db: SqlReader, after: int, limit: int) -> list[IndexNowChange]:
    """The URLs to submit after id ``after`` (both stores run this SQL)."""
    # Imported here: a crawl never builds this row (store/rows.py).
    from sitemapkit.store.rows import IndexNowChange

    return [
        IndexNowChange(int(i), str(url), str(change), None if v is None else str(v))
        for i, url, change, v in db.execute(PENDING_SQL, (after, after, limit))
    ]


def submissions(db: SqlReader) -> list[SubmissionRow]:
    """Every request made, oldest first (both stores run this SQL)."""
    # Imported here: a crawl never builds this row (store/rows.py).
    from sitemapkit.store.rows import SubmissionRow

    return [
        SubmissionRow(
            float(at),
            str(ep),
            str(host),
            int(n),
            None if st is None else int(st),
            bool(ok),
            str(detail),
        )
        for at, ep, host, n, st, ok, detail in db.execute(
            "SELECT at, endpoint, host, urls, status, accepted, detail "
            "FROM indexnow_submissions ORDER BY id"
        )
    ]


_writes = guard("write the IndexNow log", StoreWriteError)
_reads = guard("read the IndexNow log", StoreError)


class IndexNowTables:
    """The IndexNow half of the store protocol (mixed into ``SqliteStore``)."""

    _conn: sqlite3.Connection
    name: str

    def _begin(self) -> sqlite3.Connection:  # provided by the store
        raise NotImplementedError

    @_reads
    def indexnow_pending(self, after: int, limit: int) -> list[IndexNowChange]:
        return pending(self._conn, after, limit)

    @_writes
    def record_submission(self, row: SubmissionRow, sent: Sequence[IndexNowChange]) -> None:
        conn = self._begin()
        conn.execute(
            "INSERT INTO indexnow_submissions(at, endpoint, host, urls, status, accepted, detail) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (row.at, row.endpoint, row.host, row.urls, row.status, int(row.accepted), row.detail),
        )
        if row.accepted and sent:
            conn.executemany(
                "INSERT INTO indexnow_sent(url_id, version, present, sent_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(url_id) DO UPDATE SET version = excluded.version, "
                "present = excluded.present, sent_at = excluded.sent_at",
                [(c.url_id, c.version, 0 if c.change == "removed" else 1, row.at) for c in sent],
            )

    @_reads
    def submissions(self) -> list[SubmissionRow]:
        return submissions(self._conn)
