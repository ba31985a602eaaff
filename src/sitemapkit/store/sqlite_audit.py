"""The audit's tables in the SQLite crawl store: listed URLs and findings.

Why here and not in Python sets: an audit compares every URL a sitemap lists
with every URL a crawl saw; for a site with a million listed URLs both sides
are too big to hold, and SQLite joins them on the ``urls.url`` unique index in
one streaming pass.  The tables live beside the crawl's (schema migration 3),
so ``sitemapkit audit --db`` of a finished crawl needs nothing else.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from sitemapkit.errors import StoreWriteError
from sitemapkit.store import audit_reads as reads
from sitemapkit.store.guard import guard
from sitemapkit.store.sqlreader import Batched

if TYPE_CHECKING:
    from sitemapkit.store.rows import AuditRow, ListedFacts, ListedRow

#: Schema migration 3: the audit's tables.
AUDIT_SCHEMA = """
    CREATE TABLE listed (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL,
        loc TEXT NOT NULL,
        sitemap TEXT NOT NULL,
        line INTEGER,
        lastmod TEXT,
        kind TEXT NOT NULL,
        parent TEXT
    );
    CREATE INDEX listed_key ON listed(key, kind);
    CREATE TABLE audit_findings (
        id INTEGER PRIMARY KEY,
        code TEXT NOT NULL,
        severity TEXT NOT NULL,
        url TEXT,
        sitemap TEXT,
        line INTEGER,
        evidence TEXT NOT NULL
    );
    CREATE INDEX audit_findings_code ON audit_findings(code, id);
"""

#: A failed audit write (disk full, read-only file) is one :class:`StoreWriteError` line.
_writes = guard("write the audit", StoreWriteError)


class AuditTables:
    """The audit half of :class:`~sitemapkit.store.base.AuditStore` (mixed into SqliteStore).

    The reads are :mod:`~sitemapkit.store.audit_reads`' (both stores run them); they
    use a second cursor on the same connection, so they see the writes of the open
    transaction, and long reads are streamed in batches.
    """

    _conn: sqlite3.Connection
    name: str

    def _begin(self) -> sqlite3.Connection:  # provided by the store
        raise NotImplementedError

    @_writes
    def clear_audit(self) -> None:
        conn = self._begin()
        conn.execute("DELETE FROM listed")
        conn.execute("DELETE FROM audit_findings")

    @_writes
    def add_listed(self, rows: Sequence[ListedRow]) -> None:
        if rows:
            self._begin().executemany(
                "INSERT INTO listed(key, loc, sitemap, line, lastmod, kind, parent) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(r.key, r.loc, r.sitemap, r.line, r.lastmod, r.kind, r.parent) for r in rows],
            )

    def listed_unknown(self, limit: int) -> list[str]:
        return reads.listed_unknown(self._conn, limit)

    def listed_facts(self) -> Iterator[ListedFacts]:
        return reads.listed_facts(Batched(self._conn))

    def listed_duplicates(self) -> Iterator[tuple[str, list[tuple[str, int | None]]]]:
        return reads.listed_duplicates(Batched(self._conn))

    def unlisted_indexable(self) -> Iterator[tuple[str, int]]:
        return reads.unlisted_indexable(Batched(self._conn))

    def redirect_hops(self, url_id: int) -> list[tuple[str, int]]:
        return reads.redirect_hops(self._conn, url_id)

    @_writes
    def add_findings(self, rows: Sequence[AuditRow]) -> None:
        if rows:
            self._begin().executemany(
                "INSERT INTO audit_findings(code, severity, url, sitemap, line, evidence, weight) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (r.code, r.severity, r.url, r.sitemap, r.line, r.evidence, r.weight)
                    for r in rows
                ],
            )

    def finding_counts(self) -> dict[str, int]:
        return reads.finding_counts(self._conn)

    def findings(self, code: str | None = None, limit: int | None = None) -> Iterator[AuditRow]:
        return reads.findings(Batched(self._conn), code, limit)
