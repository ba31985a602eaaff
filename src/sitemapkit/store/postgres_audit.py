"""The audit's tables in the PostgreSQL crawl store: listed URLs and findings.

The same tables and answers as :mod:`sitemapkit.store.sqlite_audit`: the reads
are :mod:`~sitemapkit.store.audit_reads`' (long ones stream from a server-side
cursor); the writes are one statement over arrays and join the store's replayable
batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from sitemapkit.errors import StoreError, StoreWriteError
from sitemapkit.store import audit_reads as reads
from sitemapkit.store.postgres_conn import Qmark, pg_guard, pg_guard_stream
from sitemapkit.store.rows import AuditRow, ListedFacts, ListedRow

if TYPE_CHECKING:
    import psycopg

_writes = pg_guard("write the audit", StoreWriteError)
_reads = pg_guard("read the audit", StoreError)
_streams = pg_guard_stream("read the audit", StoreError)

#: Each table's columns (the rows' field names) and their PostgreSQL array types.
_LISTED = {
    "key": "text",
    "loc": "text",
    "sitemap": "text",
    "line": "int",
    "lastmod": "text",
    "kind": "text",
    "parent": "text",
}
_FINDINGS = {
    "code": "text",
    "severity": "text",
    "url": "text",
    "sitemap": "text",
    "line": "int",
    "evidence": "text",
    "weight": "int",
}


def _insert(
    table: str, columns: dict[str, str], rows: Sequence[object]
) -> Callable[[psycopg.Connection], object]:
    """One ``INSERT ... SELECT * FROM unnest(arrays)`` for ``rows``: a column an array."""
    arrays = tuple([getattr(r, name) for r in rows] for name in columns)
    types = ", ".join(f"%s::{kind}[]" for kind in columns.values())
    sql = f"INSERT INTO {table}({', '.join(columns)}) SELECT * FROM unnest({types})"
    return lambda c: c.execute(sql, arrays)


class PgAuditTables:
    """The audit half of ``AuditStore`` (mixed into :class:`~.postgres.PostgresStore`)."""

    name: str

    def checkpoint(self) -> int:  # provided by the store
        raise NotImplementedError

    def recover(self, exc: BaseException, checkpoint: int) -> bool:  # provided by the store
        raise NotImplementedError

    def _write(self, step: Callable[[psycopg.Connection], object]) -> None:  # by the store
        raise NotImplementedError

    def _now(self) -> psycopg.Connection:  # provided by the store
        raise NotImplementedError

    @_writes
    def clear_audit(self) -> None:
        self._write(lambda c: c.execute("TRUNCATE listed, audit_findings"))

    @_writes
    def add_listed(self, rows: Sequence[ListedRow]) -> None:
        if rows:
            self._write(_insert("listed", _LISTED, rows))

    @_reads
    def listed_unknown(self, limit: int) -> list[str]:
        return reads.listed_unknown(Qmark(self._now()), limit)

    @_streams
    def listed_facts(self) -> Iterator[ListedFacts]:
        yield from reads.listed_facts(Qmark(self._now()))

    @_streams
    def listed_duplicates(self) -> Iterator[tuple[str, list[tuple[str, int | None]]]]:
        yield from reads.listed_duplicates(Qmark(self._now()))

    @_streams
    def unlisted_indexable(self) -> Iterator[tuple[str, int]]:
        yield from reads.unlisted_indexable(Qmark(self._now()))

    @_reads
    def redirect_hops(self, url_id: int) -> list[tuple[str, int]]:
        return reads.redirect_hops(Qmark(self._now()), url_id)

    @_writes
    def add_findings(self, rows: Sequence[AuditRow]) -> None:
        if rows:
            self._write(_insert("audit_findings", _FINDINGS, rows))

    @_reads
    def finding_counts(self) -> dict[str, int]:
        return reads.finding_counts(Qmark(self._now()))

    @_streams
    def findings(self, code: str | None = None, limit: int | None = None) -> Iterator[AuditRow]:
        yield from reads.findings(Qmark(self._now()), code, limit)
