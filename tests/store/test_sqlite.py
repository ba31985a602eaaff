"""What is special to the SQLite store: schema, WAL, migrations, the file test.

What every store must do is in ``test_contract.py``.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit.errors import StoreError
from sitemapkit.store import iter_page_records
from sitemapkit.store.sqlite import SCHEMA_VERSION, SqliteStore, is_crawl_db


@pytest.fixture
def store(tmp_path: Path) -> Iterator[SqliteStore]:
    opened = SqliteStore(tmp_path / "c.sqlite")
    yield opened
    opened.close()


def test_schema_is_recorded_and_wal(store: SqliteStore) -> None:
    conn = store._conn
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("SELECT version FROM migrations").fetchall() == [
        (v,) for v in range(1, SCHEMA_VERSION + 1)
    ]
    store.close()
    assert is_crawl_db(store.path)
    # reopening does not migrate again
    SqliteStore(store.path).close()


def test_is_crawl_db_rejects_other_files(tmp_path: Path) -> None:
    assert not is_crawl_db(tmp_path / "missing.sqlite")
    text = tmp_path / "t.txt"
    text.write_text("hello")
    assert not is_crawl_db(text)
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    assert not is_crawl_db(other)
    with pytest.raises(StoreError, match="not a sitemapkit crawl database"):
        list(iter_page_records(other))


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    SqliteStore(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer than this sitemapkit"):
        SqliteStore(path)


def test_a_failed_audit_write_is_one_store_write_error(tmp_path: Path) -> None:
    from sitemapkit.errors import StoreWriteError
    from sitemapkit.store.base import AuditRow

    store = SqliteStore(tmp_path / "c.sqlite")
    store._conn.execute("PRAGMA query_only = 1")  # what a read-only file answers to a write
    with pytest.raises(StoreWriteError, match=r"c\.sqlite: cannot write the audit: "):
        store.add_findings([AuditRow("listed-error", "error", "https://x/", None, None, "404")])
    store._conn.execute("PRAGMA query_only = 0")
    store.close()
