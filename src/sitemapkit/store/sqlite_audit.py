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
from typing import ParamSpec, TypeVar

from sitemapkit.errors import StoreWriteError
from sitemapkit.store.base import AuditRow, ListedFacts, ListedRow, UrlState
from sitemapkit.store.guard import guard

_P = ParamSpec("_P")
_R = TypeVar("_R")

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

#: Link kinds that count as "a crawled page links to it" (not canonical/alternate hints).
_LINK_KINDS = "('a', 'area')"
_BATCH = 1000

_FACTS_SQL = (
    "SELECT l.key, l.loc, l.sitemap, l.line, l.lastmod, l.kind, l.parent, "
    "u.id, u.state, u.status, u.reason, u.detail, u.content_type, u.canonical, u.redirect_to, "
    "u.lastmod, u.lastmod_source, COALESCE(u.indexable, 0), "
    "CASE WHEN u.id IS NULL THEN 0 ELSE (SELECT COUNT(DISTINCT k.from_id) FROM links k "
    f"WHERE k.to_id = u.id AND k.from_id != u.id AND k.nofollow = 0 AND k.kind IN {_LINK_KINDS}) "
    "END "
    "FROM listed l LEFT JOIN urls u ON u.url = l.key ORDER BY l.id"
)


def _opt_int(value: object) -> int | None:
    return None if value is None else int(value)  # type: ignore[call-overload]


def _opt_str(value: object) -> str | None:
    return None if value is None else str(value)


def _facts(row: Sequence[object]) -> ListedFacts:
    listed = ListedRow(
        key=str(row[0]),
        loc=str(row[1]),
        sitemap=str(row[2]),
        line=_opt_int(row[3]),
        lastmod=_opt_str(row[4]),
        kind=str(row[5]),
        parent=_opt_str(row[6]),
    )
    state = _opt_int(row[8])
    return ListedFacts(
        listed=listed,
        url_id=_opt_int(row[7]),
        state=None if state is None else UrlState(state),
        status=_opt_int(row[9]),
        reason=_opt_str(row[10]),
        detail=_opt_str(row[11]),
        content_type=_opt_str(row[12]),
        canonical=_opt_str(row[13]),
        redirect_to=_opt_str(row[14]),
        page_lastmod=_opt_str(row[15]),
        page_lastmod_source=_opt_str(row[16]),
        indexable=bool(row[17]),
        inlinks=int(row[18]),  # type: ignore[call-overload]
    )


def _stream(cur: sqlite3.Cursor) -> Iterator[Sequence[object]]:
    while True:
        rows = cur.fetchmany(_BATCH)
        if not rows:
            return
        yield from rows


#: A failed audit write (disk full, read-only file) is one :class:`StoreWriteError` line.
_writes = guard("write the audit", StoreWriteError)


class AuditTables:
    """The audit half of :class:`~sitemapkit.store.base.AuditStore` (mixed into SqliteStore).

    Reads use a second cursor on the same connection, so they see the writes of
    the open transaction; long reads are streamed in batches.
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
        rows = self._conn.execute(
            "SELECT DISTINCT l.key FROM listed l LEFT JOIN urls u ON u.url = l.key "
            "WHERE u.id IS NULL OR u.state = ? LIMIT ?",
            (int(UrlState.HELD), limit),
        ).fetchall()
        return [str(r[0]) for r in rows]

    def listed_facts(self) -> Iterator[ListedFacts]:
        for row in _stream(self._conn.execute(_FACTS_SQL)):
            yield _facts(row)

    def listed_duplicates(self) -> Iterator[tuple[str, list[tuple[str, int | None]]]]:
        cur = self._conn.execute(
            "SELECT key FROM listed WHERE kind = 'loc' GROUP BY key HAVING COUNT(*) > 1 "
            "ORDER BY MIN(id)"
        )
        for row in _stream(cur):
            places = self._conn.execute(
                "SELECT sitemap, line FROM listed WHERE key = ? AND kind = 'loc' "
                "ORDER BY id LIMIT 10",
                (row[0],),
            ).fetchall()
            yield str(row[0]), [(str(s), _opt_int(n)) for s, n in places]

    def unlisted_indexable(self) -> Iterator[tuple[str, int]]:
        cur = self._conn.execute(
            "SELECT COALESCE(u.loc, u.url), (SELECT COUNT(DISTINCT k.from_id) FROM links k "
            "WHERE k.to_id = u.id "
            f"AND k.from_id != u.id AND k.nofollow = 0 AND k.kind IN {_LINK_KINDS}) AS n "
            "FROM urls u WHERE u.indexable = 1 "
            "AND NOT EXISTS (SELECT 1 FROM listed l WHERE l.key = u.url AND l.kind = 'loc') "
            "AND n > 0 ORDER BY u.id"
        )
        for row in _stream(cur):
            yield str(row[0]), int(row[1])  # type: ignore[call-overload]

    def redirect_hops(self, url_id: int) -> list[tuple[str, int]]:
        rows = self._conn.execute(
            "SELECT to_url, status FROM redirects WHERE from_id = ? ORDER BY hop", (url_id,)
        ).fetchall()
        return [(str(t), int(s)) for t, s in rows]

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
        return {
            str(code): int(n)
            for code, n in self._conn.execute(
                "SELECT code, SUM(weight) FROM audit_findings GROUP BY code ORDER BY code"
            )
        }

    def findings(self, code: str | None = None, limit: int | None = None) -> Iterator[AuditRow]:
        sql = "SELECT code, severity, url, sitemap, line, evidence FROM audit_findings"
        args: list[object] = []
        if code is not None:
            sql += " WHERE code = ?"
            args.append(code)
        sql += " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(limit)
        for row in _stream(self._conn.execute(sql, args)):
            yield AuditRow(
                code=str(row[0]),
                severity=str(row[1]),
                url=_opt_str(row[2]),
                sitemap=_opt_str(row[3]),
                line=_opt_int(row[4]),
                evidence=str(row[5]),
            )
