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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sitemapkit.model import PageRecord
from sitemapkit.store.base import Fate, UrlState
from sitemapkit.store.sessions import RUN_FIGURES_SQL
from sitemapkit.store.sqlreader import SqlReader

if TYPE_CHECKING:
    from sitemapkit.store.rows import Explanation, RunRow


def run_started(db: SqlReader) -> float | None:
    """When the last run started (None: no run yet)."""
    row = db.execute("SELECT started_at FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    return None if row is None else float(row[0])


def runs(db: SqlReader) -> list[RunRow]:
    """Every run, oldest first; its figures are its sessions' (see :mod:`.sessions`)."""
    # Imported here: a crawl never builds this row (store/rows.py).
    from sitemapkit.store.rows import RunRow

    return [
        RunRow(
            int(i),
            float(s),
            None if e is None else float(e),
            str(st),
            pages=_int(pages),
            not_modified=_int(not_modified),
            changed=_int(changed),
            bytes=_int(size),
            tracked=bool(tracked),
            unended=int(unended),
        )
        for i, s, e, st, changed, tracked, pages, not_modified, size, unended in db.execute(
            "SELECT id, started_at, ended_at, state, changed, tracked, "
            + RUN_FIGURES_SQL
            + " FROM runs ORDER BY id"
        )
    ]


def _int(value: Any) -> int | None:
    """A figure as an int (PostgreSQL sums ``BIGINT`` columns as ``numeric``)."""
    return None if value is None else int(value)


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
            f"SELECT CASE WHEN state IN {UNDECIDED_SQL} THEN 'not-crawled' ELSE reason END, "
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


#: A page's record (SQLite's SQL; the PostgreSQL store passes its own to :func:`explain`).
RECORD_SQL = (
    "SELECT COALESCE(u.loc, u.url), u.status, u.depth, u.title, u.canonical, u.indexable, "
    "u.reason, (SELECT COUNT(DISTINCT l.from_id) FROM links l WHERE l.to_id = u.id), "
    "u.outlinks, u.lastmod, u.lastmod_source, u.content_type, u.redirect_to, u.state, "
    "u.detail, COALESCE(f.loc, f.url), r.status, r.why, r.links, "
    "(SELECT group_concat(n.code || ': ' || n.message, char(10)) FROM notes n "
    "WHERE n.page_id = u.id) "
    "FROM urls u LEFT JOIN urls f ON f.id = u.found_from LEFT JOIN renders r ON r.page_id = u.id"
)

#: States of a URL this run has not decided yet: its reason reads as ``not-crawled``.
UNDECIDED = (UrlState.QUEUED, UrlState.CLAIMED, UrlState.STALE)


def undecided(state: object) -> bool:
    """A URL this run has not decided yet (one of :data:`UNDECIDED`)."""
    return int(state) in UNDECIDED  # type: ignore[call-overload]


#: :data:`UNDECIDED` as plain ints, the values a row's ``state`` column holds.
_UNDECIDED_STATES = frozenset(map(int, UNDECIDED))
#: :data:`UNDECIDED` as an SQL list: ``state NOT IN`` it is a URL this run decided,
#: ``DONE`` or ``HELD`` (``nofollow-only`` is a verdict too).
UNDECIDED_SQL = "(" + ", ".join(str(s) for s in sorted(_UNDECIDED_STATES)) + ")"


def page_record(row: Sequence[Any]) -> PageRecord:
    """A row of :data:`RECORD_SQL` (or the PostgreSQL store's twin) as a :class:`PageRecord`.

    The values are passed on as the driver gives them: both stores' columns already
    have the record's types (``INTEGER``/``SMALLINT``/``BIGINT`` read as ``int``,
    ``TEXT`` as ``str``, ``NULL`` as ``None``), and every row of a crawl's inventory and
    map comes through here, so a conversion per field was a third of the call.
    """
    # (the first 20: PostgreSQL's records_by_id adds the id)
    (url, status, depth, title, canonical, indexable, reason, inlinks, outlinks, lastmod,
     lastmod_source, content_type, redirect_to, state, detail, found_from, render, why,
     links, notes) = row[:20]  # fmt: skip
    if state in _UNDECIDED_STATES:
        # Not decided in this run (an earlier run's verdict may still be in the row).
        reason, indexable = "not-crawled", False
    else:
        indexable = bool(indexable)
    extra: dict[str, str] = {}
    if detail is not None:
        extra["detail"] = detail
    if found_from is not None:
        extra["found_from"] = found_from
    if render is not None:  # rendered: how it went, why, and the links only rendering found
        extra["render"] = render
        extra["render_why"] = why or ""
        extra["rendered_links"] = " ".join(links.split())
    if notes is not None:  # links-capped, annotations the writer left out ...
        extra["notes"] = notes
    return PageRecord(
        url, status, depth, title, canonical, indexable, reason, inlinks, outlinks,
        lastmod, lastmod_source, content_type, redirect_to, extra,
    )  # fmt: skip


def counts(conn: SqlReader) -> dict[str, int]:
    """URLs by state, and the fetched, indexable and failed totals (``CrawlStore.counts``)."""
    out = {"queued": 0, "claimed": 0, "done": 0, "held": 0, "stale": 0}
    names = {0: "queued", 1: "claimed", 2: "done", 3: "held", 4: "stale"}
    for state, n in conn.execute("SELECT state, COUNT(*) FROM urls GROUP BY state"):
        out[names.get(int(state), "other")] = int(n)
    out["seen"] = sum(out.values())  # every URL, as many as page_records yields
    row = conn.execute(
        "SELECT COUNT(fetched_at), "
        "COALESCE(SUM(CASE WHEN state = 2 THEN indexable ELSE 0 END), 0), "
        "COALESCE(SUM(CASE WHEN status IS NULL AND fetched_at IS NOT NULL THEN 1 "
        "WHEN status >= 500 THEN 1 ELSE 0 END), 0) FROM urls"
    ).fetchone()
    out["fetched"], out["indexable"], out["errors"] = int(row[0]), int(row[1]), int(row[2])
    return out


def explain(conn: SqlReader, url: str, record_sql: str = RECORD_SQL) -> Explanation | None:
    """Why ``url`` has its fate: its record, who found it and how, its redirect chain."""
    # Imported here: a crawl never builds this row (store/rows.py).
    from sitemapkit.store.rows import Explanation

    row = conn.execute(record_sql + " WHERE u.url = ? OR u.loc = ?", (url, url)).fetchone()
    if row is None:
        return None
    ids = conn.execute(
        "SELECT id, found_from, fetched_at FROM urls WHERE url = ? OR loc = ?", (url, url)
    ).fetchone()
    url_id, found_from_id, fetched_at = ids
    found_from = found_how = None
    if found_from_id is not None:
        src = conn.execute(
            "SELECT COALESCE(loc, url) FROM urls WHERE id = ?", (found_from_id,)
        ).fetchone()
        found_from = None if src is None else str(src[0])
        how = conn.execute(
            "SELECT kind, nofollow FROM links WHERE to_id = ? AND from_id = ? LIMIT 1",
            (url_id, found_from_id),
        ).fetchone()
        if how is not None:
            found_how = str(how[0]) + (" (nofollow)" if how[1] else "")
    chain: list[tuple[str, int | None]] = []
    seen = {url}
    current = url
    while True:
        hop = conn.execute(
            "SELECT status, redirect_to FROM urls WHERE url = ? OR loc = ?", (current, current)
        ).fetchone()
        if hop is None:
            chain.append((current, None))
            break
        chain.append((current, None if hop[0] is None else int(hop[0])))
        target = hop[1]
        if target is None or target in seen or len(chain) > 20:
            if target is not None and target in seen:
                chain.append((str(target), None))
            break
        seen.add(str(target))
        current = str(target)
    record = page_record(row)
    return Explanation(
        record=record,
        state=UrlState(int(row[13])),
        detail=None if row[14] is None else str(row[14]),
        found_from=found_from,
        found_how=found_how,
        redirect_chain=tuple(chain) if len(chain) > 1 else (),
        fetched_at=None if fetched_at is None else float(fetched_at),
    )
