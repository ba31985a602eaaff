"""The audit's tables in the PostgreSQL crawl store: listed URLs and findings.

The same tables and answers as :mod:`sitemapkit.store.sqlite_audit` (its row
conversion and its listed-facts query are shared); long reads stream from a
server-side cursor, writes are one statement over arrays and join the store's
replayable batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from sitemapkit.errors import StoreError, StoreWriteError
from sitemapkit.store.base import AuditRow, ListedFacts, ListedRow, UrlState
from sitemapkit.store.postgres_conn import Qmark, pg_guard, pg_guard_stream
from sitemapkit.store.sqlite_audit import _FACTS_SQL, _LINK_KINDS, _facts, _opt_int, _opt_str

if TYPE_CHECKING:
    import psycopg

_writes = pg_guard("write the audit", StoreWriteError)
_reads = pg_guard("read the audit", StoreError)
_streams = pg_guard_stream("read the audit", StoreError)


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

    def stream(self, sql: str, args: Sequence[object] = ()) -> Iterator[Sequence[Any]]:
        raise NotImplementedError  # provided by the store

    @_writes
    def clear_audit(self) -> None:
        self._write(lambda c: c.execute("TRUNCATE listed, audit_findings"))

    @_writes
    def add_listed(self, rows: Sequence[ListedRow]) -> None:
        if not rows:
            return
        args = tuple(
            [getattr(r, f) for r in rows]
            for f in ("key", "loc", "sitemap", "line", "lastmod", "kind", "parent")
        )
        self._write(
            lambda c: c.execute(
                "INSERT INTO listed(key, loc, sitemap, line, lastmod, kind, parent) "
                "SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::int[], "
                "%s::text[], %s::text[], %s::text[])",
                args,
            )
        )

    @_reads
    def listed_unknown(self, limit: int) -> list[str]:
        rows = (
            self._now()
            .execute(
                "SELECT DISTINCT l.key FROM listed l LEFT JOIN urls u ON u.url = l.key "
                "WHERE u.id IS NULL OR u.state = %s LIMIT %s",
                (int(UrlState.HELD), limit),
            )
            .fetchall()
        )
        return [str(r[0]) for r in rows]

    @_streams
    def listed_facts(self) -> Iterator[ListedFacts]:
        for row in self.stream(_FACTS_SQL):
            yield _facts(row)

    @_streams
    def listed_duplicates(self) -> Iterator[tuple[str, list[tuple[str, int | None]]]]:
        keys = self.stream(
            "SELECT key FROM listed WHERE kind = 'loc' GROUP BY key HAVING COUNT(*) > 1 "
            "ORDER BY MIN(id)"
        )
        for (key,) in keys:
            places = (
                self._now()
                .execute(
                    "SELECT sitemap, line FROM listed WHERE key = %s AND kind = 'loc' "
                    "ORDER BY id LIMIT 10",
                    (key,),
                )
                .fetchall()
            )
            yield str(key), [(str(s), _opt_int(n)) for s, n in places]

    @_streams
    def unlisted_indexable(self) -> Iterator[tuple[str, int]]:
        rows = self.stream(
            "SELECT url, n FROM (SELECT u.id, COALESCE(u.loc, u.url) AS url, "
            "(SELECT COUNT(DISTINCT k.from_id) FROM links k WHERE k.to_id = u.id "
            f"AND k.from_id != u.id AND k.nofollow = 0 AND k.kind IN {_LINK_KINDS}) AS n "
            "FROM urls u WHERE u.indexable = 1 "
            "AND NOT EXISTS (SELECT 1 FROM listed l WHERE l.key = u.url AND l.kind = 'loc')) t "
            "WHERE n > 0 ORDER BY id"
        )
        for url, n in rows:
            yield str(url), int(n)

    @_reads
    def redirect_hops(self, url_id: int) -> list[tuple[str, int]]:
        rows = Qmark(self._now()).execute(
            "SELECT to_url, status FROM redirects WHERE from_id = ? ORDER BY hop", (url_id,)
        )
        return [(str(t), int(s)) for t, s in rows]

    @_writes
    def add_findings(self, rows: Sequence[AuditRow]) -> None:
        if not rows:
            return
        args = tuple(
            [getattr(r, f) for r in rows]
            for f in ("code", "severity", "url", "sitemap", "line", "evidence", "weight")
        )
        self._write(
            lambda c: c.execute(
                "INSERT INTO audit_findings(code, severity, url, sitemap, line, evidence, weight) "
                "SELECT * FROM unnest(%s::text[], %s::text[], %s::text[], %s::text[], %s::int[], "
                "%s::text[], %s::int[])",
                args,
            )
        )

    @_reads
    def finding_counts(self) -> dict[str, int]:
        return {
            str(code): int(n)
            for code, n in self._now().execute(
                "SELECT code, SUM(weight) FROM audit_findings GROUP BY code ORDER BY code"
            )
        }

    @_streams
    def findings(self, code: str | None = None, limit: int | None = None) -> Iterator[AuditRow]:
        sql = "SELECT code, severity, url, sitemap, line, evidence FROM audit_findings"
        args: list[object] = []
        if code is not None:
            sql += " WHERE code = %s"
            args.append(code)
        sql += " ORDER BY id"
        if limit is not None:
            sql += " LIMIT %s"
            args.append(limit)
        for row in self.stream(sql, args):
            yield AuditRow(
                code=str(row[0]),
                severity=str(row[1]),
                url=_opt_str(row[2]),
                sitemap=_opt_str(row[3]),
                line=_opt_int(row[4]),
                evidence=str(row[5]),
            )
