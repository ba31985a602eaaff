"""A SQLite crawl store as an earlier version of sitemapkit left it, for the upgrade tests."""

from __future__ import annotations

from pathlib import Path

import pytest

import sitemapkit.store.sqlite as sqlite_store


def store_at_version(path: Path, version: int, sql: str) -> None:
    """Create ``path`` with the first ``version`` migrations only, then run ``sql`` in it.

    Opening it afterwards with :class:`~sitemapkit.store.sqlite.SqliteStore` runs the
    later migrations, as an upgrade does.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sqlite_store, "SCHEMA_VERSION", version)
        conn = sqlite_store._connect(path, readonly=False)
        sqlite_store._migrate(conn, str(path))
        conn.executescript(sql)
        conn.close()
