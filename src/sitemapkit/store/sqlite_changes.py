"""Change records in SQLite: what changed per URL and run, and the two reads a diff needs.

Why a change log and not a copy of every URL per run: a re-crawl of a 10,000-page
site where nothing changed must cost nothing, so a run writes a row only for a URL
whose facts (:class:`~sitemapkit.store.base.UrlFacts`) differ from its latest row:
first seen, changed, gone, back.  The state at run N is each URL's latest row at or
before N.  The SQL is plain (``IS DISTINCT FROM``, ``ON CONFLICT``, correlated
``MAX``) so the PostgreSQL store can run the same statements.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sitemapkit.store.base import UrlFacts
from sitemapkit.store.crawl_reads import UNDECIDED_SQL
from sitemapkit.store.sqlreader import SqlReader, SqlStreamer

#: The facts a change record keeps, in the order every statement here reads them.
FACT_COLUMNS = "gone, status, indexable, reason, title, canonical, fingerprint, lastmod"
_FACTS = FACT_COLUMNS.split(", ")
#: A URL's facts as a change record takes them from its ``urls`` row (``u``): a URL the
#: run no longer reached (``unlinked``) is gone.
_FACT_VALUES = (
    "CASE WHEN u.reason = 'unlinked' THEN 1 ELSE 0 END, u.status, u.indexable, u.reason, "
    "u.title, u.canonical, u.fingerprint, u.lastmod"
)

#: Migration 10.  A store made before it knows only its last run's state (the URLs as
#: they are): that run is the first one a diff can compare; earlier runs are not tracked.
CHANGES_SCHEMA = f"""
    CREATE TABLE url_changes (
        url_id INTEGER NOT NULL,
        run INTEGER NOT NULL,
        gone INTEGER NOT NULL,
        status INTEGER,
        indexable INTEGER NOT NULL,
        reason TEXT,
        title TEXT,
        canonical TEXT,
        fingerprint TEXT,
        lastmod TEXT,
        PRIMARY KEY (url_id, run)
    );
    CREATE INDEX url_changes_run ON url_changes(run);
    ALTER TABLE runs ADD COLUMN tracked INTEGER NOT NULL DEFAULT 1;
    UPDATE runs SET tracked = 0 WHERE id < (SELECT MAX(id) FROM runs);
    INSERT INTO url_changes(url_id, run, {FACT_COLUMNS})
        SELECT u.id, r.last, {_FACT_VALUES}
        FROM urls u JOIN (SELECT MAX(id) AS last FROM runs) r ON r.last IS NOT NULL
        WHERE u.state IN (2, 4)
    """

#: A URL's latest change record at or before a run (``?``), joined as ``alias``.
_LATEST = (
    "LEFT JOIN url_changes {a} ON {a}.url_id = u.id AND {a}.run = "
    "(SELECT MAX(x.run) FROM url_changes x WHERE x.url_id = u.id AND x.run <= ?)"
)

_DIFFERS = " OR ".join(f"c.{col} IS DISTINCT FROM n.{col}" for col in _FACTS)

#: The run's rows for the decided URLs whose facts differ from their latest row (a
#: resumed run's second session updates the rows its first one wrote).  Decided is
#: ``DONE`` or ``HELD``: a page reached only through ``nofollow`` links left the sitemap.
_RECORD_SQL = f"""
    INSERT INTO url_changes(url_id, run, {FACT_COLUMNS})
    SELECT n.url_id, ?, {", ".join("n." + col for col in _FACTS)}
    FROM (SELECT u.id AS url_id, {
    ", ".join(f"{v} AS {c}" for v, c in zip(_FACT_VALUES.split(", "), _FACTS, strict=True))
} FROM urls u WHERE u.state NOT IN {UNDECIDED_SQL}) n
    LEFT JOIN url_changes c ON c.url_id = n.url_id AND c.run =
        (SELECT MAX(x.run) FROM url_changes x WHERE x.url_id = n.url_id)
    WHERE c.url_id IS NULL OR {_DIFFERS}
    ON CONFLICT(url_id, run) DO UPDATE SET
        {", ".join(f"{col} = excluded.{col}" for col in _FACTS)}
    """


def record_changes(conn: SqlReader, run: int) -> int:
    """Write run ``run``'s change records; how many URLs changed."""
    return int(conn.execute(_RECORD_SQL, (run,)).rowcount)


def _facts(url: str, row: Sequence[object]) -> UrlFacts | None:
    """The :class:`UrlFacts` of ``(run, gone, status, ...)`` (``None`` when run is NULL)."""
    if row[0] is None:
        return None
    run, gone, status, indexable, reason, title, canonical, fingerprint, lastmod = row
    return UrlFacts(
        url=url,
        run=int(run),  # type: ignore[call-overload]
        gone=bool(gone),
        status=None if status is None else int(status),  # type: ignore[call-overload]
        indexable=bool(indexable),
        reason=None if reason is None else str(reason),
        title=None if title is None else str(title),
        canonical=None if canonical is None else str(canonical),
        fingerprint=None if fingerprint is None else str(fingerprint),
        lastmod=None if lastmod is None else str(lastmod),
    )


def _cols(alias: str) -> str:
    return ", ".join(f"{alias}.{col}" for col in ["run", *_FACTS])


def changes_between(
    db: SqlStreamer, run_a: int, run_b: int
) -> Iterator[tuple[str, UrlFacts | None, UrlFacts | None]]:
    """``(url, facts at run_a, facts at run_b)`` for the URLs with a record in between."""
    low, high = min(run_a, run_b), max(run_a, run_b)
    rows = db.stream(
        f"SELECT COALESCE(u.loc, u.url), {_cols('a')}, {_cols('b')} "
        "FROM urls u JOIN (SELECT DISTINCT url_id FROM url_changes WHERE run > ? AND run <= ?) d "
        f"ON d.url_id = u.id {_LATEST.format(a='a')} {_LATEST.format(a='b')} ORDER BY u.id",
        (low, high, run_a, run_b),
    )
    width = len(_FACTS) + 1
    for row in rows:
        url = str(row[0])
        yield url, _facts(url, row[1 : 1 + width]), _facts(url, row[1 + width :])


def facts_at(db: SqlStreamer, run: int) -> Iterator[UrlFacts]:
    """Every URL not gone at the end of ``run``, in code-point order of its URL."""
    rows = db.stream(
        f"SELECT COALESCE(u.loc, u.url) AS spelling, {_cols('a')} FROM urls u "
        f"{_LATEST.format(a='a')} WHERE a.run IS NOT NULL AND a.gone = 0 ORDER BY spelling",
        (run,),
    )
    for row in rows:
        facts = _facts(str(row[0]), row[1:])
        if facts is not None:
            yield facts


def url_history(conn: SqlReader, url: str) -> list[UrlFacts]:
    """One URL's change records, oldest first."""
    rows = conn.execute(
        f"SELECT COALESCE(u.loc, u.url), {_cols('a')} FROM urls u JOIN url_changes a "
        "ON a.url_id = u.id WHERE u.id = (SELECT id FROM urls WHERE url = ? OR loc = ? LIMIT 1) "
        "ORDER BY a.run",
        (url, url),
    ).fetchall()
    return [f for row in rows if (f := _facts(str(row[0]), row[1:])) is not None]
