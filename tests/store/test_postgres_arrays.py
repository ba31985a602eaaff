"""The store's array literals read back, on the real server, as the values written."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.store.postgres_arrays import int_array, nullable_int_array, text_array

_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"))


@pytest.fixture(scope="module")
def conn(pg_url: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(pg_url, autocommit=True) as c:
        yield c


def _back(conn: psycopg.Connection, literal: str, cast: str) -> list[object]:
    row = conn.execute(f"SELECT %s::{cast}", (literal,)).fetchone()
    assert row is not None
    return list(row[0])


def test_awkward_texts_and_nulls_come_back_as_written(conn: psycopg.Connection) -> None:
    values = ['a"b', "c\\d", "{e,f}", " g ", "", "NULL", None, "h\ni", "ü→€", "a,b", '\\"']
    assert _back(conn, text_array(values), "text[]") == values
    assert _back(conn, text_array([]), "text[]") == []


def test_integers_and_nulls(conn: psycopg.Connection) -> None:
    assert _back(conn, int_array([1, -2, 2**62]), "bigint[]") == [1, -2, 2**62]
    assert _back(conn, nullable_int_array([None, 3, None]), "bigint[]") == [None, 3, None]
    assert _back(conn, int_array([]), "int[]") == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.none() | _TEXT, max_size=8))
def test_any_text_round_trips(conn: psycopg.Connection, values: list[str | None]) -> None:
    assert _back(conn, text_array(values), "text[]") == values
