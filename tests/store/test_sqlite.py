"""The SQLite crawl store: schema, frontier order, claims, resume, records."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from sitemapkit.errors import StoreError
from sitemapkit.model import Alternate
from sitemapkit.store.base import LinkRow, NewUrl, Outcome, UrlState
from sitemapkit.store.sqlite import (
    SCHEMA_VERSION,
    SqliteStore,
    explain_url,
    is_crawl_db,
    iter_page_records,
)


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    return SqliteStore(tmp_path / "c.sqlite")


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


def test_frontier_is_shallowest_first_and_deduplicated(store: SqliteStore) -> None:
    ids = store.add_urls(
        [
            NewUrl("http://a/2", 2, None),
            NewUrl("http://a/1", 1, None),
            NewUrl("http://a/0", 0, None),
        ]
    )
    again = store.add_urls([NewUrl("http://a/1", 5, None)])
    assert again["http://a/1"] == ids["http://a/1"]
    claimed = store.claim(2)
    assert [c.url for c in claimed] == ["http://a/0", "http://a/1"]
    assert [c.url for c in store.claim(10)] == ["http://a/2"]
    assert store.claim(10) == []
    # a crash leaves claims; resume puts them back
    assert store.release_claims() == 3
    assert len(store.claim(10)) == 3


def test_held_urls_are_requeued_by_a_followed_link(store: SqliteStore) -> None:
    ids = store.add_urls([NewUrl("http://a/nf", 1, None, UrlState.HELD, "nofollow-only")])
    assert store.claim(5) == []
    url_id, state = ids["http://a/nf"]
    assert state == UrlState.HELD
    store.requeue([(url_id, 3)])
    assert store.lookup(["http://a/nf"])["http://a/nf"][1] == UrlState.QUEUED
    (claimed,) = store.claim(5)
    assert (claimed.url, claimed.depth) == ("http://a/nf", 3)


def test_claim_url_only_once(store: SqliteStore) -> None:
    first = store.claim_url("http://a/r", 1, None)
    assert first is not None
    assert store.claim_url("http://a/r", 1, None) is None


def test_records_inlinks_and_explanations(store: SqliteStore) -> None:
    ids = store.add_urls(
        [
            NewUrl("http://a/", 0, None),
            NewUrl("http://a/old", 1, None),
            NewUrl("http://a/new", 1, None),
        ]
    )
    home, old, new = (ids[u][0] for u in ("http://a/", "http://a/old", "http://a/new"))
    store.finish(
        home,
        Outcome(
            status=200,
            indexable=True,
            title="Home",
            outlinks=2,
            alternates=(Alternate("de", "http://a/de"),),
        ),
    )
    store.add_links(home, [LinkRow(old, False, "a"), LinkRow(new, True, "a")])
    store.finish(old, Outcome(status=301, reason="redirect", redirect_to="http://a/new"))
    store.add_links(old, [LinkRow(new, False, "redirect")])
    store.finish(
        new,
        Outcome(status=200, indexable=True, lastmod="2024-01-01", lastmod_source="last-modified"),
    )
    store.commit()
    rows = store.sitemap_rows()
    assert [(r.url, r.alternates) for r in rows] == [
        ("http://a/", (Alternate("de", "http://a/de"),)),
        ("http://a/new", ()),
    ]
    store.close()
    records = {r.url: r for r in iter_page_records(store.path)}
    assert records["http://a/new"].inlinks == 2
    assert records["http://a/new"].extra == {}
    assert records["http://a/"].extra.get("found_from") is None
    assert records["http://a/old"].reason == "redirect"
    assert records["http://a/"].title == "Home"
    info = explain_url(store.path, "http://a/old")
    assert info is not None
    assert info.redirect_chain == (("http://a/old", 301), ("http://a/new", 200))
    assert explain_url(store.path, "http://a/zzz") is None


def test_unfinished_urls_are_reported_not_crawled(store: SqliteStore) -> None:
    store.add_urls([NewUrl("http://a/", 0, None)])
    store.commit()
    store.close()
    (record,) = iter_page_records(store.path)
    assert (record.reason, record.indexable) == ("not-crawled", False)


def test_records_name_the_page_each_url_was_found_on(store: SqliteStore) -> None:
    home = store.add_urls([NewUrl("http://a/", 0, None)])["http://a/"][0]
    store.add_urls([NewUrl("http://a/x", 1, home)])
    store.commit()
    store.close()
    records = {r.url: r for r in iter_page_records(store.path)}
    assert records["http://a/x"].extra["found_from"] == "http://a/"
    assert "found_from" not in records["http://a/"].extra
