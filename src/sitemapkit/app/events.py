"""Live progress of a site as server-sent events, coalesced to a few per second.

Why poll the store rather than hear from the crawl: the store is the one
truth (a crawl started from a terminal shows up the same way), the crawl
process does no extra work for the watchers, and however fast it runs the
browser gets at most one ``progress`` and one ``pages`` event per tick.  One
watcher per site reads the store (read-only, in a thread, only while someone
listens) and hands the same snapshot to every tab; a slow tab keeps only the
latest progress, never a growing backlog.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from sitemapkit.app.workspace import SitePaths
from sitemapkit.errors import SitemapkitError
from sitemapkit.model import PageRecord
from sitemapkit.store import is_crawl_db, open_store

#: Seconds between two reads of the store (so at most 1/TICK progress events a second).
TICK = 0.25
#: Pages sent per tick at most (the rest come in the next ticks).
PAGES_PER_TICK = 500
#: Seconds a page's fetch time may precede its commit (parse + batch): looked back over.
LOOK_BACK = 60.0
#: Pages a slow tab may fall behind before the oldest are dropped (it can reload map.json).
MAX_BACKLOG = 50_000
#: Seconds of history the pages/s figure is measured over.
RATE_WINDOW = 2.0
#: A progress event before the store can be read (every key always present).
EMPTY_PROGRESS: dict[str, Any] = {
    "state": "idle", "fetched": 0, "fetched_total": 0, "in_sitemap": 0, "queued": 0,
    "errors": 0, "rate": 0.0, "elapsed": 0.0, "reasons": {}, "run": None,
}  # fmt: skip
#: Seconds between keep-alive comments on a quiet stream.
PING_EVERY = 15.0


def page_row(record: PageRecord) -> dict[str, Any]:
    """A page as the live map gets it (crawled text only ever as JSON strings)."""
    return {
        "url": record.url,
        "status": record.status,
        "depth": record.depth,
        "title": record.title,
        "reason": record.reason,
        "indexable": bool(record.indexable),
    }


def sse(event: str, data: Any) -> bytes:
    """One server-sent event; JSON has no raw newlines, so one ``data:`` line is enough."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


@dataclass(slots=True)
class Snapshot:
    """What one tick read."""

    progress: dict[str, Any]
    pages: list[dict[str, Any]] = field(default_factory=list)


class Subscriber:
    """One open event stream: the latest progress, pending pages, and state changes."""

    def __init__(self) -> None:
        self.wake = asyncio.Event()
        self.progress: dict[str, Any] | None = None
        self.pages: list[dict[str, Any]] = []
        self.states: list[dict[str, Any]] = []

    def offer(self, snap: Snapshot) -> None:
        self.progress = snap.progress  # only the newest survives
        self.pages.extend(snap.pages)
        del self.pages[: max(0, len(self.pages) - MAX_BACKLOG)]
        self.wake.set()

    def take(self) -> list[bytes]:
        # The numbers first: a state change comes with the reading made after it, so a
        # page that shows "finished" already shows what the crawl ended with.
        out = []
        if self.progress is not None:
            out.append(sse("progress", self.progress))
            self.progress = None
        out += [sse("state", s) for s in self.states]
        self.states.clear()
        if self.pages:
            out.append(sse("pages", {"pages": self.pages[:PAGES_PER_TICK]}))
            del self.pages[:PAGES_PER_TICK]
        self.wake.clear()
        return out


class Watcher:
    """Reads one site's store each tick while it has subscribers."""

    def __init__(self, paths: SitePaths, state_of: Any) -> None:
        self.paths = paths
        self._state_of = state_of
        self.subscribers: set[Subscriber] = set()
        self._task: asyncio.Task[None] | None = None
        self._after = self._opened_at = time.time()
        self._sent: dict[int, float] = {}
        self._history: deque[tuple[float, int]] = deque()
        self._started = time.monotonic()
        #: Set by a state change: read the store now rather than at the next tick.
        self._read_now = asyncio.Event()
        #: State changes waiting for a reading begun after them.
        self._states: list[dict[str, Any]] = []

    def subscribe(self) -> Subscriber:
        sub = Subscriber()
        self.subscribers.add(sub)
        if self._task is None or self._task.done():
            self._after = self._opened_at = time.time()
            self._sent.clear()
            self._task = asyncio.create_task(self._run())
        return sub

    def unsubscribe(self, sub: Subscriber) -> None:
        self.subscribers.discard(sub)

    def state_changed(self, state: dict[str, Any]) -> None:
        """A job started or ended: sent with a reading of the store begun after it (the
        next one, begun at once), never with the numbers of a reading made before."""
        if self.subscribers:
            self._states.append(state)
            self._read_now.set()

    async def _run(self) -> None:
        while self.subscribers:
            self._read_now.clear()
            states, self._states = self._states, []
            snap = await asyncio.to_thread(self._read)
            for sub in list(self.subscribers):
                sub.states += states
                sub.offer(snap)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._read_now.wait(), TICK)

    def _read(self) -> Snapshot:
        """One tick's reading (in a worker thread; the store is only used from here)."""
        state = self._state_of(self.paths)
        progress: dict[str, Any] = dict(EMPTY_PROGRESS, state=state)
        if not is_crawl_db(self.paths.db):
            return Snapshot(progress)
        try:
            store = open_store(self.paths.db, mode="read")
            try:
                counts = store.counts()
                progress["reasons"] = store.reasons()
                started = store.run_started()
                runs = store.runs()
                fetched = store.fetched_count(started) if started else 0
                fresh = store.records_by_id(
                    self._new_ids(store.fetched_ids(self._after - LOOK_BACK))
                )
            finally:
                store.close()
        except SitemapkitError as exc:
            progress["problem"] = str(exc)
            return Snapshot(progress)
        now = time.monotonic()
        progress.update(
            fetched=fetched,
            fetched_total=counts.get("fetched", 0),
            in_sitemap=counts.get("indexable", 0),
            queued=counts.get("queued", 0) + counts.get("claimed", 0),
            errors=counts.get("errors", 0),
            rate=round(self._rate(now, fetched), 1),
            elapsed=round(time.time() - started, 1) if started else 0.0,
            run=runs[-1].id if runs else None,
        )
        return Snapshot(progress, [page_row(rec) for rec in fresh])

    def _new_ids(self, fetched: list[tuple[int, float]]) -> list[int]:
        """The ids not sent yet (at most :data:`PAGES_PER_TICK`), oldest fetch first.

        Fetch times are stamped before their batch commits, so the store is asked
        for :data:`LOOK_BACK` seconds before the newest time sent, and ids already
        sent are skipped; pages fetched before the stream opened are never sent.
        """
        new: list[int] = []
        for url_id, when in fetched:
            if url_id in self._sent or when <= self._opened_at:
                continue
            if len(new) == PAGES_PER_TICK:
                break
            new.append(url_id)
            self._sent[url_id] = when
            self._after = max(self._after, when)
        horizon = self._after - LOOK_BACK
        for url_id in [i for i, t in self._sent.items() if t < horizon]:
            del self._sent[url_id]
        return new

    def _rate(self, now: float, fetched: int) -> float:
        """Pages per second over the last :data:`RATE_WINDOW` seconds of ticks."""
        if self._history and fetched < self._history[-1][1]:
            self._history.clear()  # a new run began: its own count starts again
        self._history.append((now, fetched))
        while len(self._history) > 2 and now - self._history[1][0] >= RATE_WINDOW:
            self._history.popleft()
        then, before = self._history[0]
        return (fetched - before) / (now - then) if now > then else 0.0


async def stream(watcher: Watcher, first: dict[str, Any] | None = None) -> AsyncIterator[bytes]:
    """The bytes of one event stream: what each tick brings, a ping when quiet."""
    sub = watcher.subscribe()
    try:
        if first is not None:
            yield sse("state", first)
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(sub.wake.wait(), PING_EVERY)
            chunks = sub.take()
            yield b"".join(chunks) if chunks else b": ping\n\n"
            await asyncio.sleep(TICK)  # coalesce: never more than one batch per tick
    finally:
        watcher.unsubscribe(sub)
