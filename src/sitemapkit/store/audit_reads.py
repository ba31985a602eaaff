"""The audit's reads, written once in portable SQL for both crawl stores.

Why one module: what "listed", "crawled", "linked" and "a duplicate listing"
mean is the audit's rule, so each read is one query and one row mapping that the
SQLite store runs on its connection (:class:`~sitemapkit.store.sqlreader.Batched`)
and the PostgreSQL store behind :class:`~sitemapkit.store.postgres_conn.Qmark`.
The long reads take a :class:`~sitemapkit.store.sqlreader.SqlStreamer`, so a
million listed URLs stream on either store.  Only the writes differ by dialect
(``executemany`` against ``unnest`` of arrays) and stay with each store.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from sitemapkit.store.base import UrlState
from sitemapkit.store.sqlreader import SqlReader, SqlStreamer

if TYPE_CHECKING:
    from sitemapkit.store.rows import AuditRow, ListedFacts

#: Link kinds that count as "a crawled page links to it" (not canonical/alternate hints).
_LINK_KINDS = "('a', 'area')"

#: Distinct other pages linking to ``u`` with a followable link (the page's inlinks).
_INLINKS = (
    "(SELECT COUNT(DISTINCT k.from_id) FROM links k WHERE k.to_id = u.id "
    f"AND k.from_id != u.id AND k.nofollow = 0 AND k.kind IN {_LINK_KINDS})"
)

_FACTS_SQL = (
    "SELECT l.key, l.loc, l.sitemap, l.line, l.lastmod, l.kind, l.parent, "
    "u.id, u.state, u.status, u.reason, u.detail, u.content_type, u.canonical, u.redirect_to, "
    "u.lastmod, u.lastmod_source, COALESCE(u.indexable, 0), "
    f"CASE WHEN u.id IS NULL THEN 0 ELSE {_INLINKS} END "
    "FROM listed l LEFT JOIN urls u ON u.url = l.key ORDER BY l.id"
)

#: A derived table, not ``WHERE n > 0`` on the alias: PostgreSQL has no alias in WHERE.
_UNLISTED_SQL = (
    f"SELECT url, n FROM (SELECT u.id, COALESCE(u.loc, u.url) AS url, {_INLINKS} AS n "
    "FROM urls u WHERE u.indexable = 1 "
    "AND NOT EXISTS (SELECT 1 FROM listed l WHERE l.key = u.url AND l.kind = 'loc')) t "
    "WHERE n > 0 ORDER BY id"
)


def opt_int(value: object) -> int | None:
    """A nullable integer column."""
    return None if value is None else int(value)  # type: ignore[call-overload]


def opt_str(value: object) -> str | None:
    """A nullable text column."""
    return None if value is None else str(value)


def listed_unknown(db: SqlReader, limit: int) -> list[str]:
    """Up to ``limit`` listed keys the crawl never decided (unseen or only ``HELD``)."""
    rows = db.execute(
        "SELECT DISTINCT l.key FROM listed l LEFT JOIN urls u ON u.url = l.key "
        "WHERE u.id IS NULL OR u.state = ? LIMIT ?",
        (int(UrlState.HELD), limit),
    )
    return [str(r[0]) for r in rows]


def listed_facts(db: SqlStreamer) -> Iterator[ListedFacts]:
    """Every listed URL joined with the crawl's facts, in listing order."""
    # Imported here: a crawl never builds this row (store/rows.py).
    from sitemapkit.store.rows import ListedFacts, ListedRow

    for row in db.stream(_FACTS_SQL):
        listed = ListedRow(
            key=str(row[0]),
            loc=str(row[1]),
            sitemap=str(row[2]),
            line=opt_int(row[3]),
            lastmod=opt_str(row[4]),
            kind=str(row[5]),
            parent=opt_str(row[6]),
        )
        state = opt_int(row[8])
        yield ListedFacts(
            listed=listed,
            url_id=opt_int(row[7]),
            state=None if state is None else UrlState(state),
            status=opt_int(row[9]),
            reason=opt_str(row[10]),
            detail=opt_str(row[11]),
            content_type=opt_str(row[12]),
            canonical=opt_str(row[13]),
            redirect_to=opt_str(row[14]),
            page_lastmod=opt_str(row[15]),
            page_lastmod_source=opt_str(row[16]),
            indexable=bool(row[17]),
            inlinks=int(row[18]),
        )


def listed_duplicates(db: SqlStreamer) -> Iterator[tuple[str, list[tuple[str, int | None]]]]:
    """Keys listed as a loc more than once, with up to 10 places (sitemap, line) each."""
    keys = db.stream(
        "SELECT key FROM listed WHERE kind = 'loc' GROUP BY key HAVING COUNT(*) > 1 "
        "ORDER BY MIN(id)"
    )
    for (key,) in keys:
        places = db.execute(
            "SELECT sitemap, line FROM listed WHERE key = ? AND kind = 'loc' ORDER BY id LIMIT 10",
            (key,),
        )
        yield str(key), [(str(s), opt_int(n)) for s, n in places]


def unlisted_indexable(db: SqlStreamer) -> Iterator[tuple[str, int]]:
    """Indexable crawled pages that another page links to but no sitemap lists."""
    for url, n in db.stream(_UNLISTED_SQL):
        yield str(url), int(n)


def redirect_hops(db: SqlReader, url_id: int) -> list[tuple[str, int]]:
    """The redirect chain recorded from ``url_id``: (target, status) per hop."""
    rows = db.execute(
        "SELECT to_url, status FROM redirects WHERE from_id = ? ORDER BY hop", (url_id,)
    )
    return [(str(t), int(s)) for t, s in rows]


def finding_counts(db: SqlReader) -> dict[str, int]:
    """Findings per code, each row counted by its weight."""
    return {
        str(code): int(n)
        for code, n in db.execute(
            "SELECT code, SUM(weight) FROM audit_findings GROUP BY code ORDER BY code"
        )
    }


def findings(db: SqlStreamer, code: str | None, limit: int | None) -> Iterator[AuditRow]:
    """Stored findings (of one code), in the order they were added."""
    sql = "SELECT code, severity, url, sitemap, line, evidence FROM audit_findings"
    args: list[object] = []
    if code is not None:
        sql += " WHERE code = ?"
        args.append(code)
    sql += " ORDER BY id"
    if limit is not None:
        sql += " LIMIT ?"
        args.append(limit)
    # Imported here: a crawl never builds this row (store/rows.py).
    from sitemapkit.store.rows import AuditRow

    for row in db.stream(sql, args):
        yield AuditRow(
            code=str(row[0]),
            severity=str(row[1]),
            url=opt_str(row[2]),
            sitemap=opt_str(row[3]),
            line=opt_int(row[4]),
            evidence=str(row[5]),
        )
