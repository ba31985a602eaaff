"""Rendered pages in the store: how each went, why, and the links only rendering found."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sitemapkit.store.base import NewUrl, Outcome
from sitemapkit.store.sqlite import _MIGRATIONS, APPLICATION_ID, SCHEMA_VERSION, SqliteStore


def test_render_outcome_reaches_records_and_explain(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "c.sqlite")
    try:
        ids = store.add_urls(
            [NewUrl("https://e.com/app/", 0, None), NewUrl("https://e.com/", 0, None)]
        )
        app_id = ids["https://e.com/app/"][0]
        store.finish(
            app_id,
            Outcome(
                status=200,
                indexable=True,
                render="rendered",
                render_why="app-shell",
                rendered_links=("https://e.com/app/a", "https://e.com/app/b"),
            ),
        )
        store.finish(ids["https://e.com/"][0], Outcome(status=200, indexable=True))
        store.commit()
        records = {r.url: r for r in store.page_records()}
        assert records["https://e.com/app/"].extra["render"] == "rendered"
        assert records["https://e.com/app/"].extra["render_why"] == "app-shell"
        assert (
            records["https://e.com/app/"].extra["rendered_links"]
            == "https://e.com/app/a https://e.com/app/b"
        )
        assert "render" not in records["https://e.com/"].extra  # not rendered: no entry
        info = store.explain("https://e.com/app/")
        assert info is not None
        assert info.record.extra["render"] == "rendered"
    finally:
        store.close()


def test_a_crawl_file_of_schema_1_is_upgraded_and_still_reads(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    for statement in _MIGRATIONS[0].split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute("INSERT INTO migrations(version, applied_at) VALUES (1, 0)")
    conn.execute("PRAGMA user_version = 1")
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID:d}")
    conn.execute(
        "INSERT INTO urls(url, depth, state, status, indexable) "
        "VALUES ('https://e.com/', 0, 2, 200, 1)"
    )
    conn.close()
    store = SqliteStore(path)
    try:
        assert store._conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        (record,) = list(store.page_records())
        assert record.url == "https://e.com/"
        assert "render" not in record.extra
    finally:
        store.close()
