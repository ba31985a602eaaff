"""The fleet's statements both stores run as they are (``?`` placeholders, plain SQL).

Why one module: the workers, host slots, robots.txt and pacing rules were written
twice, once per store (``sqlite_fleet.py``, ``postgres_fleet.py``), line for line
alike; a rule fixed in one could drift from the other.  Each function takes a
:class:`~sitemapkit.store.sqlreader.SqlReader`: SQLite passes its connection inside
its ``BEGIN IMMEDIATE`` transaction, PostgreSQL
:class:`~sitemapkit.store.postgres_conn.Qmark`.  The statements are safe with
concurrent writers: a slot is counted only when its ``INSERT ... RETURNING`` says it
was ours, pacing and the robots.txt fetch are one conditional ``UPDATE`` each (the
row lock makes them compare-and-set).  What differs (claims: PostgreSQL adds
``FOR UPDATE SKIP LOCKED``; arrays) stays with each store; every caller commits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sitemapkit.store.sqlreader import SqlReader

if TYPE_CHECKING:
    from sitemapkit.store.rows import HostRobots

#: The origins with queued URLs, one index probe each (a loose scan of urls_origin_queue).
HOSTS_SQL = (
    "WITH RECURSIVE h(o) AS ("
    "SELECT (SELECT MIN(origin) FROM urls WHERE state = 0) "
    "UNION ALL SELECT (SELECT MIN(origin) FROM urls WHERE state = 0 AND origin > h.o) "
    "FROM h WHERE h.o IS NOT NULL) "
    "SELECT o FROM h WHERE o IS NOT NULL LIMIT ?"
)
_ADD_HOST = "INSERT INTO hosts(origin) VALUES (?) ON CONFLICT(origin) DO NOTHING"
#: The workers whose leases have not expired (``?``: now).
LIVE_SQL = "SELECT id FROM workers WHERE expires >= ?"
#: A resume puts back in the queue the claims no live worker holds (``?``: now): a lone
#: crawl's (no worker) and a dead worker's.  A live worker's stay its own: put back, they
#: were fetched twice, by it and by whoever claimed them again (a fleet's lead resumed
#: while its workers went on).  A store no fleet used has no worker: every claim goes back.
RELEASE_SQL = (
    "UPDATE urls SET state = 0, worker = NULL WHERE state = 1 "
    f"AND (worker IS NULL OR worker NOT IN ({LIVE_SQL}))"
)


def join(db: SqlReader, name: str, now: float, ttl: float) -> int:
    """A new worker row; its id."""
    row = db.execute(
        "INSERT INTO workers(name, started, expires) VALUES (?, ?, ?) RETURNING id",
        (name, now, now + ttl),
    ).fetchone()
    return int(row[0])


def unplaced(db: SqlReader) -> list[tuple[int, str]]:
    """URLs queued by a crawl started alone (or before the fleet's migration): no origin yet."""
    rows = db.execute(
        "SELECT id, url FROM urls WHERE origin IS NULL AND state IN (0, 1, 3, 4)"
    ).fetchall()
    return [(int(i), str(u)) for i, u in rows]


def heartbeat(db: SqlReader, worker: int, now: float, ttl: float) -> bool:
    """Push the worker's expiry on; False when it was reaped meanwhile."""
    cur = db.execute("UPDATE workers SET expires = ? WHERE id = ?", (now + ttl, worker))
    return int(cur.rowcount) == 1


def live_workers(db: SqlReader, now: float) -> int:
    row = db.execute(f"SELECT COUNT(*) FROM ({LIVE_SQL}) AS live", (now,)).fetchone()
    return 0 if row is None else int(row[0])


def drop_worker(db: SqlReader, worker: int) -> int:
    """Free a worker's slots and robots.txt fetch, requeue its claims; how many.

    The claims it gives back are taken off the fleet's count (:func:`taken`): they
    were never started, and whoever claims them next counts them once.
    """
    cur = db.execute(
        "UPDATE urls SET state = 0, worker = NULL WHERE state = 1 AND worker = ?", (worker,)
    )
    released = int(cur.rowcount)
    if released:
        db.execute(
            "UPDATE frontier_taken SET taken = CASE WHEN taken > ? THEN taken - ? ELSE 0 END "
            "WHERE id = 1",
            (released, released),
        )
    db.execute("DELETE FROM host_slots WHERE worker = ?", (worker,))
    db.execute("UPDATE hosts SET robots_by = NULL WHERE robots_by = ?", (worker,))
    db.execute("DELETE FROM workers WHERE id = ?", (worker,))
    return released


def hosts_with_work(db: SqlReader, limit: int) -> list[str]:
    return [str(r[0]) for r in db.execute(HOSTS_SQL, (limit,)).fetchall()]


def lease_slots(db: SqlReader, worker: int, origin: str, per_host: int, want: int) -> int:
    """Hold ``want`` of ``origin``'s slots (fewer if others hold the rest); how many held."""
    db.execute(_ADD_HOST, (origin,))
    taken = db.execute(
        "SELECT slot, worker FROM host_slots WHERE origin = ? ORDER BY slot", (origin,)
    ).fetchall()
    mine = [int(s) for s, w in taken if int(w) == worker]
    if len(mine) > want:
        for slot in mine[want:]:
            db.execute("DELETE FROM host_slots WHERE origin = ? AND slot = ?", (origin, slot))
        return want
    used = {int(s) for s, _ in taken}
    got = 0
    for slot in [s for s in range(per_host) if s not in used][: want - len(mine)]:
        row = db.execute(  # another worker may take a free slot first: count ours
            "INSERT INTO host_slots(origin, slot, worker) VALUES (?, ?, ?) "
            "ON CONFLICT(origin, slot) DO NOTHING RETURNING slot",
            (origin, slot, worker),
        ).fetchone()
        got += row is not None
    return len(mine) + got


def host_robots(db: SqlReader, origin: str) -> HostRobots | None:
    # Imported here: a crawl never builds this row (store/rows.py).
    from sitemapkit.store.rows import HostRobots

    row = db.execute(
        "SELECT robots_status, robots_body, robots_error, robots_at FROM hosts "
        "WHERE origin = ? AND robots_at IS NOT NULL",
        (origin,),
    ).fetchone()
    if row is None:
        return None
    status = None if row[0] is None else int(row[0])
    return HostRobots(status, bytes(row[1] or b""), row[2], float(row[3]))


def take_robots_fetch(
    db: SqlReader, worker: int, origin: str, now: float, stale_before: float
) -> bool:
    """Whether ``worker`` is the one to fetch ``origin``'s robots.txt now."""
    db.execute(_ADD_HOST, (origin,))
    cur = db.execute(
        "UPDATE hosts SET robots_by = ? WHERE origin = ? "
        "AND (robots_at IS NULL OR robots_at < ?) AND (robots_by IS NULL OR robots_by = ? "
        f"OR robots_by NOT IN ({LIVE_SQL}))",
        (worker, origin, stale_before, worker, now),
    )
    return int(cur.rowcount) == 1


def set_host_robots(db: SqlReader, origin: str, robots: HostRobots) -> None:
    db.execute(
        "UPDATE hosts SET robots_status = ?, robots_body = ?, robots_error = ?, "
        "robots_at = ?, robots_by = NULL WHERE origin = ?",
        (robots.status, robots.body, robots.error, robots.fetched_at, origin),
    )


def pace(db: SqlReader, origin: str, now: float, interval: float) -> float:
    """Seconds to wait before ``origin``'s next request (0: start now, and it is noted)."""
    db.execute(_ADD_HOST, (origin,))
    cur = db.execute(
        "UPDATE hosts SET last_start = ? WHERE origin = ? AND last_start <= ?",
        (now, origin, now - interval),
    )
    if int(cur.rowcount) == 1:
        return 0.0
    row = db.execute("SELECT last_start FROM hosts WHERE origin = ?", (origin,)).fetchone()
    return max(float(row[0]) + interval - now, 1e-3)


#: The fleet's count of URLs taken from the frontier (PostgreSQL adds ``FOR UPDATE``).
TAKEN_SQL = "SELECT taken FROM frontier_taken WHERE id = 1"


def taken(db: SqlReader, lock: str = "") -> int:
    """URLs the fleet took since the crawl (re)started; ``lock``: a locking clause."""
    row = db.execute(TAKEN_SQL + lock).fetchone()
    return 0 if row is None else int(row[0])


def capped(db: SqlReader, limit: int, cap: int | None, lock: str = "") -> int:
    """How many of ``limit`` URLs a claim may take with ``cap`` (None: no cap) for the fleet.

    Asked in the claim's own transaction (SQLite's write lock; PostgreSQL passes
    ``lock``, a ``FOR UPDATE`` held to the claim's commit), so two workers never both
    take the last ones.  The claim then counts what it got (:func:`count_taken`).
    """
    return limit if cap is None else min(limit, max(0, cap - taken(db, lock)))


def count_taken(db: SqlReader, n: int) -> None:
    """``n`` more URLs taken, in the claim's transaction (its row lock keeps the count true)."""
    if n:
        db.execute("UPDATE frontier_taken SET taken = taken + ? WHERE id = 1", (n,))


def restart_taken(db: SqlReader) -> None:
    db.execute("UPDATE frontier_taken SET taken = 0 WHERE id = 1")


#: The trap counter tables a re-crawl judges against: the last run's, moved aside.
_BEFORE = "('pattern-before', 'facet-before')"


def carry_trap_counts(db: SqlReader) -> None:
    """A new run: the last run's counters become ``TABLE-before``; this run counts from 0.

    Why not go on counting: a re-crawl re-judges every URL, and counters that already
    stood at a pattern's limit stopped the very URLs the last run admitted
    (:meth:`~sitemapkit.crawl.traps.TrapGuard.check`, ``admitted_before``).
    """
    db.execute(f"DELETE FROM trap_counts WHERE tbl IN {_BEFORE}")
    db.execute("UPDATE trap_counts SET tbl = tbl || '-before'")


def stored_trap_counts(db: SqlReader, earlier: bool) -> tuple[dict[str, int], dict[str, int]]:
    """This run's counters (patterns, facets), or the last run's (``earlier``: as
    :func:`carry_trap_counts` left them)."""
    tables = _BEFORE if earlier else "('pattern', 'facet')"
    patterns: dict[str, int] = {}
    facets: dict[str, int] = {}
    for table, key, n in db.execute(f"SELECT tbl, key, n FROM trap_counts WHERE tbl IN {tables}"):
        (patterns if str(table).startswith("pattern") else facets)[str(key)] = int(n)
    return patterns, facets
