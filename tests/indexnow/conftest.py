"""A changing site that serves an IndexNow key file, and the stand-in endpoint."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from crawl.changing_site import ChangingSite, page, serve_changing
from indexnow.standin import StandIn, serve_standin

KEY = "a1b2c3d4-e5f6-7890-key"


@pytest.fixture
def site() -> Iterator[ChangingSite]:
    served = ChangingSite(
        pages={
            "/": page("Home", "/a", "/b"),
            "/a": page("A", "/"),
            "/b": page("B", "/"),
            f"/{KEY}.txt": KEY,
        }
    )
    with serve_changing(served) as running:
        yield running


@pytest.fixture
def standin() -> Iterator[StandIn]:
    with serve_standin() as running:
        yield running
