"""A workspace on a disk that fills up mid-crawl: the store stays consistent, the app says
what happened (even though its log and job file cannot be written), and resume finishes."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from sitemapdata.mounts import tmpfs
from sitemapkit.app.workspace import site_id_for
from sitemapkit.demo.expected import SITEMAP_PATHS

from .conftest import start_client, wait_idle


def _fill(mount: Path) -> Path:
    """Write zeros into ``mount`` until the filesystem is full; the filler file."""
    filler = mount / "filler"
    # Unbuffered: a buffered file keeps what the full disk refused and raises ENOSPC
    # again when it is closed, outside the suppress (seen as a flaky failure).
    with filler.open("wb", buffering=0) as f, contextlib.suppress(OSError):
        while True:
            f.write(b"\0" * 65536)
    return filler


@pytest.mark.slow
async def test_a_full_disk_mid_crawl_then_resume(tmp_path: Path, demo) -> None:
    with tmpfs(tmp_path / "ws", size="6m") as ws:
        client = await start_client(ws)
        try:
            sid = site_id_for(demo)
            resp = await client.post(
                "/api/sites", json={"url": demo, "rate": 20, "render": "never"}
            )
            assert resp.status == 202
            for _ in range(600):
                site = await (await client.get(f"/api/sites/{sid}")).json()
                if site["pages"] >= 10:
                    break
                await asyncio.sleep(0.1)
            filler = await asyncio.to_thread(_fill, ws)
            site = await wait_idle(client, sid)
            job = site["job"]
            assert job["exit_code"] == 1, job
            assert "database or disk is full" in job["message"], job
            assert "nothing was published" in job["message"], job
            assert site["can_resume"], site
            assert site["pages"] < 153, "the disk filled too late to test"
            # the app still answers about the site while the disk is full
            listed = await client.get("/api/sites")
            assert listed.status == 200
            pages = await client.get(f"/api/sites/{sid}/pages?limit=5")
            assert pages.status == 200

            filler.unlink()  # room again: resume from the app
            resp = await client.post(f"/api/sites/{sid}/resume", json={})
            assert resp.status == 202, await resp.text()
            site = await wait_idle(client, sid)
            assert site["job"]["exit_code"] == 0, site["job"]
            assert site["in_sitemap"] >= len(SITEMAP_PATHS)
            assert site["last_run"]["state"] == "finished"
        finally:
            await client.close()
