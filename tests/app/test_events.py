"""Server-sent progress: coalesced to one batch per tick, no page lost on the way."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from sitemapkit.app.events import PAGES_PER_TICK, TICK, Snapshot, Subscriber, Watcher
from sitemapkit.app.workspace import site_id_for


def test_a_slow_reader_gets_the_latest_progress_once_and_every_page() -> None:
    sub = Subscriber()
    for n in range(100):  # a hundred ticks while the tab was busy
        sub.offer(Snapshot({"fetched": n}, [{"url": f"/p{n}"}]))
    chunks = sub.take()
    events = [c.decode().split("\n", 1)[0] for c in chunks]
    assert events == ["event: progress", "event: pages"]
    assert json.loads(chunks[0].decode().split("data: ", 1)[1]) == {"fetched": 99}
    pages = json.loads(chunks[1].decode().split("data: ", 1)[1])["pages"]
    assert [p["url"] for p in pages] == [f"/p{n}" for n in range(100)]
    assert sub.take() == []


def test_pages_beyond_one_batch_wait_for_the_next_tick() -> None:
    sub = Subscriber()
    sub.offer(Snapshot({"fetched": 1}, [{"url": f"/p{n}"} for n in range(PAGES_PER_TICK + 7)]))
    first, second = sub.take(), sub.take()
    assert len(json.loads(first[1].decode().split("data: ", 1)[1])["pages"]) == PAGES_PER_TICK
    assert len(json.loads(second[0].decode().split("data: ", 1)[1])["pages"]) == 7


async def _events(
    resp: Any, out: list[tuple[float, str, Any]], done: asyncio.Event, after: float
) -> None:
    """Collect the stream's events; ``done`` once a job started after ``after`` ended."""
    name = None
    async for raw in resp.content:
        line = raw.decode().rstrip("\n")
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: ") and name is not None:
            out.append((time.monotonic(), name, json.loads(line[6:])))
            job = out[-1][2].get("job") if name == "state" else None
            if job and job["ended_at"] and job["started_at"] >= after:
                done.set()
            name = None


async def test_live_progress_of_a_crawl(client, demo) -> None:
    sid = site_id_for(demo)
    # the site exists before the stream opens: a first crawl, then watch a second one
    first = await client.post("/api/sites", json={"url": demo, "render": "never"})
    assert first.status == 202
    from .conftest import wait_idle

    await wait_idle(client, sid)
    stream = await client.get(f"/api/sites/{sid}/events")
    assert stream.headers["Content-Type"] == "text/event-stream"
    seen: list[tuple[float, str, Any]] = []
    done = asyncio.Event()
    reader = asyncio.create_task(_events(stream, seen, done, time.time()))
    await asyncio.sleep(2 * TICK)
    opened = time.monotonic()
    resp = await client.post(f"/api/sites/{sid}/crawl", json={})
    assert resp.status == 202
    await asyncio.wait_for(done.wait(), 120)
    site = await (await client.get(f"/api/sites/{sid}")).json()
    final = site["last_run"]["pages"]
    # the last pages may come a tick after the end: wait for an idle progress event after it
    mark = len(seen)
    while not any(n == "progress" and d["state"] == "idle" for _, n, d in seen[mark:]):
        await asyncio.sleep(TICK)
    elapsed = time.monotonic() - opened
    reader.cancel()
    stream.close()
    progress = [d for t, n, d in seen if n == "progress" and t >= opened]
    assert progress[0]["state"] in ("running", "idle")
    assert any(d["state"] == "running" and d["fetched"] for d in progress)
    assert progress[-1]["state"] == "idle"
    # coalesced: never more than one progress event per tick, however fast the crawl went
    assert len(progress) <= elapsed / TICK + 2
    running = [d for d in progress if d["state"] == "running" and d["run"] == 2]
    assert any(d["rate"] > 0 for d in running), str(
        [(d["state"], d["run"], d["fetched"], d["rate"]) for d in progress]
    )[-3000:]
    assert running[-1]["reasons"]
    # every page the second run fetched reached the stream, each once
    pages = [p for t, n, d in seen if n == "pages" for p in d["pages"]]
    assert len(pages) == len({p["url"] for p in pages}) == progress[-1]["fetched"]
    assert progress[-1]["fetched"] >= final
    assert {p["url"] for p in pages if p["indexable"]} >= {demo}
    assert pages
    assert all(set(p) == {"url", "status", "depth", "title", "reason", "indexable"} for p in pages)


def test_a_page_committed_after_later_stamped_ones_still_reaches_the_map(tmp_path) -> None:
    """Fetch times are stamped before the batch commits: a slow page's row appears after
    rows stamped later; a cursor on the newest time alone lost it (149 of 153 pages)."""
    from sitemapkit.app.workspace import SitePaths

    watcher = Watcher(SitePaths("a", tmp_path), lambda _paths: "running")
    t0 = watcher._opened_at
    assert watcher._new_ids([(1, t0 + 1), (3, t0 + 3)]) == [1, 3]
    # the page stamped t0+2 commits only now, after the one stamped t0+3 was sent
    assert watcher._new_ids([(1, t0 + 1), (2, t0 + 2), (3, t0 + 3), (4, t0 + 4)]) == [2, 4]
    assert watcher._new_ids([(2, t0 + 2), (3, t0 + 3), (4, t0 + 4)]) == []
    # pages fetched before the stream opened are the map's, not the stream's
    assert watcher._new_ids([(0, t0 - 1)]) == []


async def test_two_tabs_watch_one_crawl_and_cannot_start_a_second(client, demo) -> None:
    """Two tabs: both streams get the crawl's end; a second start is refused while it runs."""
    sid = site_id_for(demo)
    resp = await client.post("/api/sites", json={"url": demo, "rate": 40, "render": "never"})
    assert resp.status == 202
    again = await client.post("/api/sites", json={"url": demo, "render": "never"})
    assert again.status == 409
    assert "running" in (await again.json())["error"]
    tabs = [await client.get(f"/api/sites/{sid}/events") for _ in range(2)]
    seen: list[list[tuple[float, str, Any]]] = [[], []]
    done = [asyncio.Event(), asyncio.Event()]
    readers = [
        asyncio.create_task(_events(tab, got, ended, 0.0))
        for tab, got, ended in zip(tabs, seen, done, strict=True)
    ]
    await asyncio.wait_for(asyncio.gather(*(d.wait() for d in done)), 120)
    for reader, tab in zip(readers, tabs, strict=True):
        reader.cancel()
        tab.close()
    for got in seen:
        assert any(n == "progress" and d["state"] == "running" for _, n, d in got)
        assert [
            d["job"]["exit_code"] for _, n, d in got if n == "state" and d["job"]["ended_at"]
        ] == [0]


async def test_a_job_state_goes_out_after_a_reading_begun_after_it(tmp_path) -> None:
    """The page that shows "finished" shows the numbers the crawl ended with: the state
    change is sent after a reading of the store begun once the job was over (at once,
    not at the next tick), never with the reading of the tick before."""
    from sitemapkit.app.workspace import SitePaths

    now = {"state": "running"}
    watcher = Watcher(SitePaths("a", tmp_path), lambda _paths: now["state"])
    sub = watcher.subscribe()
    await asyncio.wait_for(sub.wake.wait(), 5)
    assert [c.decode().split("\n", 1)[0] for c in sub.take()] == ["event: progress"]
    now["state"] = "idle"
    changed = time.monotonic()
    watcher.state_changed({"state": "idle"})
    await asyncio.wait_for(sub.wake.wait(), 5)
    assert time.monotonic() - changed < TICK  # read at once, not at the next tick
    chunks = [c.decode() for c in sub.take()]
    assert [c.split("\n", 1)[0] for c in chunks] == ["event: progress", "event: state"]
    assert json.loads(chunks[0].split("data: ", 1)[1])["state"] == "idle"
    watcher.unsubscribe(sub)
