"""A crawl store made before runs existed (schema 4) opens as one finished run."""

from __future__ import annotations

from pathlib import Path

from sitemapkit.store.sqlite import SqliteStore
from store.old_schema import store_at_version


def test_a_schema_4_crawl_becomes_run_1(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    store_at_version(
        path,
        4,
        "INSERT INTO meta VALUES ('start_url', 'http://x.test/'), "
        "('started_at', '1700000000.5'), ('ended_at', '1700000100'), ('state', 'finished');"
        "INSERT INTO urls(url, depth, state, indexable) VALUES ('http://x.test/', 0, 2, 1);",
    )
    store = SqliteStore(path, mode="read")
    try:
        [run] = store.runs()
        assert (run.id, run.started_at, run.ended_at, run.state) == (
            1,
            1700000000.5,
            1700000100.0,
            "finished",
        )
        assert [row.url for row in store.sitemap_rows()] == ["http://x.test/"]
    finally:
        store.close()


def test_a_runs_figures_from_before_sessions_become_one_closed_session(tmp_path: Path) -> None:
    """Schema 15 wrote a run's figures in its row; they become its only session's."""
    path = tmp_path / "old.sqlite"
    store_at_version(
        path,
        15,
        "INSERT INTO runs(started_at, ended_at, state, pages, not_modified, changed, bytes) "
        "VALUES (1700000000, 1700000100, 'finished', 7, 2, 5, 9000), "
        "(1700000200, NULL, 'running', NULL, NULL, NULL, NULL);",
    )
    store = SqliteStore(path, mode="read")
    try:
        one, two = store.runs()
        assert (one.pages, one.not_modified, one.changed, one.bytes, one.unended) == (
            7,
            2,
            5,
            9000,
            0,
        )
        assert (two.pages, two.bytes, two.unended) == (None, None, 0)
    finally:
        store.close()
