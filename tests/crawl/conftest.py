"""Fixtures for crawl tests: the fixture site on 127.0.0.1 and a fresh store path."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from crawl.fixture_site import FixtureSite, serve_site


@pytest.fixture
def site() -> Iterator[FixtureSite]:
    with serve_site() as served:
        yield served


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "crawl.sqlite"
