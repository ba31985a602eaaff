"""What the SQL both stores share needs of a connection: ``execute`` and ``stream`` with ``?``.

Why: reads and change records written once in portable SQL (``?`` placeholders)
run on SQLite's connection as they are and on PostgreSQL's behind
:class:`~sitemapkit.store.postgres_conn.Qmark`, so a rule in SQL lives in one place.
A read that may return a million rows takes a :class:`SqlStreamer`, so each store
streams it its own way (SQLite: batches from a cursor; PostgreSQL: a server-side
cursor) and memory stays flat on either.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

#: Rows fetched from SQLite at a time by :meth:`Batched.stream`.
BATCH = 1000


class SqlReader(Protocol):
    """A DB-API connection taking ``?`` placeholders (the cursor it returns is duck-typed)."""

    def execute(self, sql: str, parameters: Sequence[object] = ..., /) -> Any: ...


class SqlStreamer(SqlReader, Protocol):
    """A :class:`SqlReader` that can also stream the rows of a long read."""

    def stream(self, sql: str, parameters: Sequence[object] = (), /) -> Iterator[Sequence[Any]]:
        """The rows of ``sql``, fetched a batch at a time."""
        ...


class Batched:
    """An ``sqlite3`` connection as a :class:`SqlStreamer`.

    The stream runs on a cursor of its own, so it sees the writes of the open
    transaction and other statements may run while it is read.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, parameters: Sequence[object] = (), /) -> sqlite3.Cursor:
        return self._conn.execute(sql, parameters)

    def stream(self, sql: str, parameters: Sequence[object] = (), /) -> Iterator[Sequence[Any]]:
        cur = self._conn.execute(sql, parameters)
        while rows := cur.fetchmany(BATCH):
            yield from rows
