"""The app under test: a real ``aiohttp`` server on a free 127.0.0.1 port, a real workspace,
and the bundled demo site as the site to crawl (crawls are real child processes)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from sitemapkit.app.security import Guard
from sitemapkit.app.server import make_app
from sitemapkit.app.workspace import Workspace, site_id_for
from sitemapkit.demo.server import start_demo_server

JSON = {"Content-Type": "application/json"}


@pytest.fixture
async def demo() -> AsyncIterator[str]:
    runner, base = await start_demo_server()
    try:
        yield base
    finally:
        await runner.cleanup()


async def start_client(workspace: Path, token: str | None = None) -> TestClient[Any, Any]:
    guard = Guard(host="127.0.0.1", token=token)
    app = make_app(Workspace(workspace), guard)
    server = TestServer(app, host="127.0.0.1")
    client: TestClient[Any, Any] = TestClient(server)
    await client.start_server()
    guard.port = server.port or 0
    return client


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[TestClient[Any, Any]]:
    c = await start_client(tmp_path / "ws")
    try:
        yield c
    finally:
        await c.close()


async def wait_idle(client: TestClient[Any, Any], site_id: str, limit: float = 120) -> Any:
    """Poll the site until no job runs; the site object (fails after ``limit`` seconds)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        resp = await client.get(f"/api/sites/{site_id}")
        site = await resp.json()
        assert resp.status == 200, site
        if site["state"] == "idle" and site["job"] and site["job"]["ended_at"]:
            return site
        await asyncio.sleep(0.2)
    pytest.fail(f"{site_id} still busy after {limit} s: {site}")


async def crawl(client: TestClient[Any, Any], url: str, **options: Any) -> Any:
    """Start a crawl of ``url`` from the API and wait for it to end; the site object.

    ``render`` is ``never`` unless given: these tests are not about rendering, and the
    default (``auto``) renders the demo's lamp finder, whose live page takes the whole
    render timeout (15 s) to be cut.
    """
    resp = await client.post("/api/sites", json={"url": url, "render": "never", **options})
    assert resp.status == 202, await resp.text()
    return await wait_idle(client, site_id_for(url))


__all__ = ["JSON", "crawl", "start_client", "wait_idle", "web"]
