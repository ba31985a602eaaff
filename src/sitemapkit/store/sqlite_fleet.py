"""The fleet's tables in the SQLite crawl store: workers, host slots, robots, trap counters.

Why SQLite can carry a fleet at all: several processes on one machine (every core
of it) may share one WAL database; a store opened *shared* starts every write
transaction with ``BEGIN IMMEDIATE`` and the engine commits at each of its await
points, so a writer holds the database for one short synchronous step (a page's
outcome and links) and the others take turns.  Each method here commits its own
work, for the same reason.  The statements both stores run are in
:mod:`~sitemapkit.store.fleet_sql`; the claim, the trap counters and the schema are here.  See
:class:`~sitemapkit.store.base.FleetStore` for what each method promises.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from sitemapkit.errors import StoreError, StoreWriteError
from sitemapkit.store import fleet_sql
from sitemapkit.store.base import Claimed
from sitemapkit.store.claims import claim_columns, claimed, level_clause
from sitemapkit.store.guard import guard

if TYPE_CHECKING:
    from sitemapkit.store.rows import HostRobots

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

_fleet = guard("write the fleet's leases", StoreWriteError)
_reads = guard("read the fleet's leases", StoreError)


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
        worker = fleet_sql.join(conn, name, now, ttl)
        missing = fleet_sql.unplaced(conn)
        if missing:
            from sitemapkit.urls import origin_of

            conn.executemany(
                "UPDATE urls SET origin = ? WHERE id = ?",
                [(origin_of(url), url_id) for url_id, url in missing],
            )
        self.commit()
        self.fleet_worker = worker
        return worker

    @_fleet
    def heartbeat(self, worker: int, now: float, ttl: float) -> bool:
        beat = fleet_sql.heartbeat(self._begin(), worker, now, ttl)
        self.commit()
        return beat

    @_fleet
    def reap_workers(self, now: float) -> int:
        conn = self._begin()
        dead = [int(r[0]) for r in conn.execute("SELECT id FROM workers WHERE expires < ?", (now,))]
        released = sum(fleet_sql.drop_worker(conn, worker) for worker in dead)
        self.commit()
        return released

    def live_workers(self, now: float) -> int:
        return fleet_sql.live_workers(self._conn, now)

    @_fleet
    def leave_fleet(self, worker: int) -> int:
        released = fleet_sql.drop_worker(self._begin(), worker)
        self.commit()
        if worker == self.fleet_worker:
            self.fleet_worker = None
        return released

    def hosts_with_work(self, limit: int) -> list[str]:
        return fleet_sql.hosts_with_work(self._conn, limit)

    @_fleet
    def lease_slots(self, worker: int, origin: str, per_host: int, want: int, now: float) -> int:
        held = fleet_sql.lease_slots(self._begin(), worker, origin, per_host, want)
        self.commit()
        return held

    @_fleet
    def claim_host(
        self,
        worker: int,
        origin: str,
        limit: int,
        cap: int | None = None,
        one_level: bool = False,
    ) -> list[Claimed]:
        conn = self._begin()  # BEGIN IMMEDIATE: no other worker claims or counts meanwhile
        limit = fleet_sql.capped(conn, limit, cap)
        rows = conn.execute(
            f"SELECT {claim_columns()} FROM urls WHERE state = 0 AND origin = ?"
            f"{level_clause(one_level)} ORDER BY depth, id LIMIT ?",
            (origin, limit),
        ).fetchall()
        if rows:
            conn.executemany(
                "UPDATE urls SET state = 1, worker = ? WHERE id = ?",
                [(worker, r[0]) for r in rows],
            )
            if cap is not None:
                fleet_sql.count_taken(conn, len(rows))
        self.commit()
        return claimed(rows)

    @_reads
    def taken(self) -> int:
        return fleet_sql.taken(self._conn)

    @_fleet
    def restart_taken(self) -> None:
        fleet_sql.restart_taken(self._begin())

    def host_robots(self, origin: str) -> HostRobots | None:
        return fleet_sql.host_robots(self._conn, origin)

    @_fleet
    def take_robots_fetch(self, worker: int, origin: str, now: float, stale_before: float) -> bool:
        taken = fleet_sql.take_robots_fetch(self._begin(), worker, origin, now, stale_before)
        self.commit()
        return taken

    @_fleet
    def set_host_robots(self, origin: str, robots: HostRobots) -> None:
        fleet_sql.set_host_robots(self._begin(), origin, robots)
        self.commit()

    @_fleet
    def pace(self, origin: str, now: float, interval: float) -> float:
        wait = fleet_sql.pace(self._begin(), origin, now, interval)
        self.commit()
        return wait

    @_reads
    def stored_trap_counts(self, earlier: bool = False) -> tuple[dict[str, int], dict[str, int]]:
        return fleet_sql.stored_trap_counts(self._conn, earlier)

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
