"""The one thing the SQL both stores share needs of a connection: ``execute`` with ``?``.

Why: reads and change records written once in portable SQL (``?`` placeholders)
run on SQLite's connection as they are and on PostgreSQL's behind
:class:`~sitemapkit.store.postgres_conn.Qmark`, so a rule in SQL lives in one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol


class SqlReader(Protocol):
    """A DB-API connection taking ``?`` placeholders (the cursor it returns is duck-typed)."""

    def execute(self, sql: str, parameters: Sequence[object] = ..., /) -> Any: ...
