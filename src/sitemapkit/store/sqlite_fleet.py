"""The fleet's tables in the SQLite crawl store: workers, host slots, robots, trap counters.

Why SQLite can carry a fleet at all: several processes on one machine (every core
of it) may share one WAL database; a store opened *shared* starts every write
transaction with ``BEGIN IMMEDIATE`` and the engine commits at each of its await
points, so a writer holds the database for one short synchronous step (a page's
outcome and links) and the others take turns.  Each method here commits its own
work, for the same reason.  The SQL is kept plain (``ON CONFLICT``, ``RETURNING``,
a recursive CTE) so the PostgreSQL store can run the same statements, adding
``FOR UPDATE SKIP LOCKED`` where it claims.  See
:class:`~sitemapkit.store.base.FleetStore` for what each method promises.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence

from sitemapkit.errors import StoreWriteError
from sitemapkit.store.base import Claimed, HostRobots
from sitemapkit.store.guard import guard

#: Schema migration 13: where every URL's host is (the frontier is claimed by host), who
#: claimed it, the live workers, the host slots they lease, and what the fleet shares.
FLEET_SCHEMA = """
    ALTER TABLE urls ADD COLUMN origin TEXT;
    ALTER TABLE urls ADD COLUMN worker INTEGER;
    CREATE INDEX urls_origin_queue ON urls(origin, depth, id) WHERE state = 0;
    CREATE TABLE workers (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        started REAL NOT NULL,
        expires REAL NOT NULL
    );
    CREATE TABLE hosts (
        origin TEXT PRIMARY KEY,
        last_start REAL NOT NULL DEFAULT 0,
        robots_status INTEGER,
        robots_body BLOB,
        robots_error TEXT,
        robots_at REAL,
        robots_by INTEGER
    );
    CREATE TABLE host_slots (
        origin TEXT NOT NULL,
        slot INTEGER NOT NULL,
        worker INTEGER NOT NULL,
        PRIMARY KEY (origin, slot)
    );
    CREATE INDEX host_slots_worker ON host_slots(worker);
    CREATE TABLE trap_counts (
        tbl TEXT NOT NULL,
        key TEXT NOT NULL,
        n INTEGER NOT NULL,
        PRIMARY KEY (tbl, key)
    )
"""

#: The next origin with queued URLs after a given one: a loose index scan over
#: ``urls_origin_queue``, one index probe per host however long its queue.
_HOSTS_SQL = (
    "WITH RECURSIVE h(o) AS ("
    "SELECT (SELECT MIN(origin) FROM urls WHERE state = 0) "
    "UNION ALL SELECT (SELECT MIN(origin) FROM urls WHERE state = 0 AND origin > h.o) "
    "FROM h WHERE h.o IS NOT NULL) "
    "SELECT o FROM h WHERE o IS NOT NULL LIMIT ?"
)

_ADD_HOST = "INSERT INTO hosts(origin) VALUES (?) ON CONFLICT(origin) DO NOTHING"

_fleet = guard("write the fleet's leases", StoreWriteError)


class FleetTables:
    """The fleet half of :class:`~sitemapkit.store.base.FleetStore` (mixed into SqliteStore)."""

    _conn: sqlite3.Connection
    name: str
    #: This process's worker id once it joined the fleet (claims are marked with it).
    fleet_worker: int | None = None

    def _begin(self) -> sqlite3.Connection:  # pragma: no cover - SqliteStore's
        raise NotImplementedError

    def commit(self) -> None:  # pragma: no cover - SqliteStore's
        raise NotImplementedError

    @_fleet
    def holds_turn(self) -> bool:
        return self._conn.in_transaction  # a write began it: BEGIN IMMEDIATE holds the file

    def split_turn(self, keys: Callable[[str], Iterable[str]]) -> None:
        """Nothing to split: SQLite's one write lock is the turn (see FleetStore)."""

    def join_fleet(self, name: str, now: float, ttl: float) -> int:
        conn = self._begin()
        row = conn.execute(
            "INSERT INTO workers(name, started, expires) VALUES (?, ?, ?) RETURNING id",
            (name, now, now + ttl),
        ).fetchone()
        # URLs queued by a crawl made before migration 13 have no origin yet.
        missing = conn.execute(
            "SELECT id, url FROM urls WHERE origin IS NULL AND state IN (0, 1, 3, 4)"
        ).fetchall()
        if missing:
            from sitemapkit.urls import origin_of

            conn.executemany(
                "UPDATE urls SET origin = ? WHERE id = ?",
                [(origin_of(str(url)), int(i)) for i, url in missing],
            )
        self.commit()
        self.fleet_worker = int(row[0])
        return self.fleet_worker

    @_fleet
    def heartbeat(self, worker: int, now: float, ttl: float) -> bool:
        cur = self._begin().execute(
            "UPDATE workers SET expires = ? WHERE id = ?", (now + ttl, worker)
        )
        self.commit()
        return cur.rowcount == 1

    @_fleet
    def reap_workers(self, now: float) -> int:
        conn = self._begin()
        dead = [int(r[0]) for r in conn.execute("SELECT id FROM workers WHERE expires < ?", (now,))]
        released = sum(self._drop_worker(conn, worker) for worker in dead)
        self.commit()
        return released

    def live_workers(self, now: float) -> int:
        row = self._conn.execute("SELECT COUNT(*) FROM workers WHERE expires >= ?", (now,))
        return int(row.fetchone()[0])

    @_fleet
    def leave_fleet(self, worker: int) -> int:
        released = self._drop_worker(self._begin(), worker)
        self.commit()
        if worker == self.fleet_worker:
            self.fleet_worker = None
        return released

    @staticmethod
    def _drop_worker(conn: sqlite3.Connection, worker: int) -> int:
        cur = conn.execute(
            "UPDATE urls SET state = 0, worker = NULL WHERE state = 1 AND worker = ?", (worker,)
        )
        conn.execute("DELETE FROM host_slots WHERE worker = ?", (worker,))
        conn.execute("UPDATE hosts SET robots_by = NULL WHERE robots_by = ?", (worker,))
        conn.execute("DELETE FROM workers WHERE id = ?", (worker,))
        return int(cur.rowcount)

    def hosts_with_work(self, limit: int) -> list[str]:
        return [str(r[0]) for r in self._conn.execute(_HOSTS_SQL, (limit,))]

    @_fleet
    def lease_slots(self, worker: int, origin: str, per_host: int, want: int, now: float) -> int:
        conn = self._begin()
        conn.execute(_ADD_HOST, (origin,))
        taken = conn.execute(
            "SELECT slot, worker FROM host_slots WHERE origin = ? ORDER BY slot", (origin,)
        ).fetchall()
        mine = [int(s) for s, w in taken if w == worker]
        if len(mine) > want:
            conn.executemany(
                "DELETE FROM host_slots WHERE origin = ? AND slot = ?",
                [(origin, s) for s in mine[want:]],
            )
            held = want
        else:
            used = {int(s) for s, _ in taken}
            free = [s for s in range(per_host) if s not in used][: want - len(mine)]
            conn.executemany(
                "INSERT INTO host_slots(origin, slot, worker) VALUES (?, ?, ?) "
                "ON CONFLICT(origin, slot) DO NOTHING",
                [(origin, s, worker) for s in free],
            )
            held = len(mine) + len(free)
        self.commit()
        return held

    @_fleet
    def claim_host(self, worker: int, origin: str, limit: int) -> list[Claimed]:
        conn = self._begin()
        rows = conn.execute(
            "SELECT id, url, depth, loc, etag, last_modified, fingerprint, lastmod, "
            "lastmod_source FROM urls WHERE state = 0 AND origin = ? ORDER BY depth, id LIMIT ?",
            (origin, limit),
        ).fetchall()
        if rows:
            conn.executemany(
                "UPDATE urls SET state = 1, worker = ? WHERE id = ?",
                [(worker, r[0]) for r in rows],
            )
        self.commit()
        return [Claimed(int(r[0]), str(r[1]), int(r[2]), *r[3:]) for r in rows]

    def host_robots(self, origin: str) -> HostRobots | None:
        row = self._conn.execute(
            "SELECT robots_status, robots_body, robots_error, robots_at FROM hosts "
            "WHERE origin = ? AND robots_at IS NOT NULL",
            (origin,),
        ).fetchone()
        if row is None:
            return None
        status = None if row[0] is None else int(row[0])
        return HostRobots(status, bytes(row[1] or b""), row[2], float(row[3]))

    @_fleet
    def take_robots_fetch(self, worker: int, origin: str, now: float, stale_before: float) -> bool:
        conn = self._begin()
        conn.execute(_ADD_HOST, (origin,))
        cur = conn.execute(
            "UPDATE hosts SET robots_by = ? WHERE origin = ? "
            "AND (robots_at IS NULL OR robots_at < ?) AND (robots_by IS NULL OR robots_by = ? "
            "OR robots_by NOT IN (SELECT id FROM workers WHERE expires >= ?))",
            (worker, origin, stale_before, worker, now),
        )
        self.commit()
        return cur.rowcount == 1

    @_fleet
    def set_host_robots(self, origin: str, robots: HostRobots) -> None:
        self._begin().execute(
            "UPDATE hosts SET robots_status = ?, robots_body = ?, robots_error = ?, "
            "robots_at = ?, robots_by = NULL WHERE origin = ?",
            (robots.status, robots.body, robots.error, robots.fetched_at, origin),
        )
        self.commit()

    @_fleet
    def pace(self, origin: str, now: float, interval: float) -> float:
        conn = self._begin()
        conn.execute(_ADD_HOST, (origin,))
        cur = conn.execute(
            "UPDATE hosts SET last_start = ? WHERE origin = ? AND last_start <= ?",
            (now, origin, now - interval),
        )
        wait = 0.0
        if cur.rowcount != 1:
            row = conn.execute("SELECT last_start FROM hosts WHERE origin = ?", (origin,))
            wait = max(float(row.fetchone()[0]) + interval - now, 1e-3)
        self.commit()
        return wait

    def trap_counts(self, keys: Sequence[tuple[str, str]]) -> list[int]:
        out: list[int] = []
        for table, key in keys:
            row = self._conn.execute(
                "SELECT n FROM trap_counts WHERE tbl = ? AND key = ?", (table, key)
            ).fetchone()
            out.append(0 if row is None else int(row[0]))
        return out

    @_fleet
    def count_traps(self, keys: Sequence[tuple[str, str]]) -> None:
        self._begin().executemany(
            "INSERT INTO trap_counts(tbl, key, n) VALUES (?, ?, 1) "
            "ON CONFLICT(tbl, key) DO UPDATE SET n = trap_counts.n + 1",
            keys,
        )
