"""CLI tests reuse the crawl fixture site."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from crawl.fixture_site import FixtureSite, serve_site


@pytest.fixture
def site() -> Iterator[FixtureSite]:
    with serve_site() as served:
        yield served
