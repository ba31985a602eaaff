"""The demo server on 127.0.0.1, started once per test module that asks for it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from sitemapkit.demo.server import start_demo_server


@pytest.fixture
async def demo() -> AsyncIterator[tuple[web.AppRunner, str]]:
    runner, base = await start_demo_server()
    try:
        yield runner, base
    finally:
        await runner.cleanup()
