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
from sitemapkit.store.base import LinkRow, NewUrl
from sitemapkit.store.sqlite import (
    _MIGRATIONS,
    APPLICATION_ID,
    SCHEMA_VERSION,
    SqliteStore,
    is_crawl_db,
)


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


def test_a_crawl_from_an_older_sitemapkit_is_upgraded_before_it_is_read(tmp_path: Path) -> None:
    """Readers query the newest tables: a schema-1 crawl used to fail on `no such table`."""
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(_MIGRATIONS[0])
    conn.execute("INSERT INTO migrations(version, applied_at) VALUES (1, 0)")
    conn.execute("INSERT INTO urls(url, depth, state, status) VALUES ('http://a/', 0, 2, 200)")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID:d}")
    conn.execute("PRAGMA user_version = 1")
    conn.commit()
    conn.close()
    (record,) = iter_page_records(path)
    assert (record.url, record.status) == ("http://a/", 200)
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        conn.close()
    assert not Path(str(path) + ".lock").exists()


def test_a_corrupt_crawl_is_one_error_line_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from sitemapkit.cli import main

    path = tmp_path / "c.sqlite"
    store = SqliteStore(path)
    store.add_urls([NewUrl(f"http://a/{i}", 1, None) for i in range(3000)])
    store.close()
    with path.open("r+b") as fh:  # keep the header, break the pages after it
        fh.seek(8192)
        fh.write(b"\xff" * 32768)
    assert main(["inventory", str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert err[0].startswith(f"sitemapkit: error: {path}: cannot read the crawl state: ")
    assert main(["crawl", "--db", str(path), "--why", "/x"]) == 1
    assert "cannot read the crawl state" in capsys.readouterr().err


def test_a_failed_audit_write_is_one_store_write_error(tmp_path: Path) -> None:
    from sitemapkit.errors import StoreWriteError
    from sitemapkit.store.rows import AuditRow

    store = SqliteStore(tmp_path / "c.sqlite")
    store._conn.execute("PRAGMA query_only = 1")  # what a read-only file answers to a write
    with pytest.raises(StoreWriteError, match=r"c\.sqlite: cannot write the audit: "):
        store.add_findings([AuditRow("listed-error", "error", "https://x/", None, None, "404")])
    store._conn.execute("PRAGMA query_only = 0")
    store.close()


def _link_indexes(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    try:
        return {str(row[1]) for row in conn.execute("PRAGMA index_list(links)")}
    finally:
        conn.close()


def test_links_are_indexed_by_page_from_the_second_run_on(tmp_path: Path) -> None:
    """A first crawl only adds links; a later run replaces a page's links, found by page.

    Keeping that index up cost a first crawl of the JDK docs 0.25 s of CPU for nothing.
    """
    path = tmp_path / "c.sqlite"
    store = SqliteStore(path)
    try:
        store.start_run(1.0)
        ids = store.add_urls([NewUrl("http://a.test/", 0, None), NewUrl("http://a.test/b", 1, 1)])
        store.add_links(ids["http://a.test/"][0], [LinkRow(ids["http://a.test/b"][0], False, "a")])
        store.end_run("finished", 2.0)
        store.commit()
        assert _link_indexes(path) == {"links_to"}
        store.start_run(3.0)  # a later run of the same crawl
        store.commit()
        assert _link_indexes(path) == {"links_to", "links_from"}
    finally:
        store.close()
    conn = sqlite3.connect(path)  # a later run's store as an older version left it
    conn.execute("DROP INDEX links_from")
    conn.close()
    SqliteStore(path, mode="read").close()  # reading changes nothing
    assert _link_indexes(path) == {"links_to"}
    SqliteStore(path).close()  # a writer (a resume) makes it again
    assert _link_indexes(path) == {"links_to", "links_from"}
