"""Many worker processes on one frontier: ``crawl --fleet`` and ``sitemapkit worker``.

Why hosts, not URLs, are leased: a queue of URLs shared by N processes that
each apply ``--per-host`` and ``--rate`` on their own is N times as hard on every
host (scrapy-redis); Nutch and StormCrawler partition the frontier by host so
politeness holds across fetchers.  Here a host has ``per_host`` slots in the
store (:class:`~sitemapkit.store.base.FleetStore`); a worker fetches from a host
only through slots it holds, so the fleet never opens more than ``--per-host``
connections to it.  The slots are shared out evenly among the live workers (one
site still keeps every worker busy); pacing (``--rate``, ``Crawl-delay``) is one
``last_start`` per host taken by compare-and-set in the store, and robots.txt is
fetched once per host for the whole fleet and read by the others from the store.

Leases last as long as a worker's heartbeat (every commit tick pushes them
:data:`LEASE_TTL` seconds on).  A worker killed with ``SIGKILL`` stops beating;
the first other worker to notice the expiry frees its slots and puts the URLs
it had claimed back in the queue, which is why a killed worker costs at most a
refetch, never a page.  A worker stops when the frontier is empty and no live
worker holds a claim; the last one to stop ends the run (``finished``), and any
process can then write the sitemap set.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import os
import socket
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING

from sitemapkit.crawl.config import LEASE_META, LEASE_TTL, CrawlConfig
from sitemapkit.crawl.engine import Crawler, CrawlStats
from sitemapkit.crawl.fetch import Fetcher
from sitemapkit.crawl.httpclient import HttpClient
from sitemapkit.crawl.politeness import ROBOTS_RETRY_AFTER, Politeness, RobotsRules
from sitemapkit.crawl.traps import TrapGuard, TrapLimits, counter_keys, trap_keys
from sitemapkit.errors import StoreError
from sitemapkit.store.base import Claimed, FleetStore
from sitemapkit.store.rows import HostRobots
from sitemapkit.urls import origin_of

if TYPE_CHECKING:
    from sitemapkit.render import Renderer

#: Hosts looked at per claim round when this worker needs more work.
HOSTS_PER_ROUND = 64
#: URLs a worker claims ahead per slot it holds: enough to keep the slot busy, few enough
#: that one worker does not swallow a small frontier while the others wait.
CLAIM_PER_SLOT = 4
#: How often a worker waiting for a host's slot or robots.txt asks the store again.
POLL = 0.05
#: How often a busy worker counts the live workers (its share of a host's slots) and
#: looks for hosts it does not hold: at most this often, not at every claim.  Counted
#: per claim, with a claim after nearly every page, these two reads were two of the
#: five round trips of a claim round (PostgreSQL manual, two workers: 0.48 rounds a page).
LOOK_EVERY = POLL * 4


def worker_name() -> str:
    """Where a worker runs, for ``workers.name`` and messages: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


class SharedTrapGuard(TrapGuard):
    """A trap guard whose pattern counters live in the fleet's store.

    The engine judges a new URL inside the store's write turn (a shared store's
    ``lookup`` starts it), so reading and counting here are one step for the whole
    fleet: a calendar stops after the same twelve months however many workers find
    its pages.
    """

    def __init__(self, store: FleetStore, limits: TrapLimits | None = None) -> None:
        super().__init__(limits)
        self._store = store
        #: The counters read for the page being judged (:meth:`judging`), kept current.
        self._known: dict[tuple[str, str], int] | None = None
        #: Counts taken while judging, written in one statement when the page is judged.
        self._taken: list[tuple[str, str]] = []

    @contextmanager
    def judging(self, urls: Sequence[str]) -> Iterator[None]:
        """Read the counters of every URL of the page in one query, not one per URL.

        Inside the store's write turn (the engine's lookup took it) no other worker
        moves a counter, so what was read here and counted since is the truth until
        the block ends.  A JDK docs crawl judges about one new URL a page: on
        PostgreSQL that was one more round trip a page, each made with the fleet's
        write turn held.
        """
        keys: set[tuple[str, str]] = set()
        for url in urls:
            found = counter_keys(url)
            if found is not None:
                keys.update(trap_keys(*found))
        ordered = sorted(keys)
        self._known = dict(zip(ordered, self._store.trap_counts(ordered), strict=True))
        self._taken = []
        try:
            yield
            self._flush()  # one write for the page's new URLs, not one per URL
        finally:
            self._known = None
            self._taken = []

    def _flush(self) -> None:
        if self._taken:
            taken, self._taken = self._taken, []
            self._store.count_traps(taken)

    def _seen(self, pattern: str, facet: str | None) -> tuple[int, int]:
        keys = trap_keys(pattern, facet)
        known = self._known
        if known is not None and all(k in known for k in keys):
            counts = [known[k] for k in keys]
        else:
            self._flush()  # the store must see what this page counted so far
            counts = self._store.trap_counts(keys)
        return self._and_before(pattern, facet, counts[0], counts[1] if facet is not None else 0)

    def _admitted(self, pattern: str, facet: str | None) -> None:
        keys = trap_keys(pattern, facet)
        if self._known is None:
            self._store.count_traps(keys)
            return
        self._taken += keys
        for key in keys:
            if key in self._known:
                self._known[key] += 1


def turn_keys(url: str) -> tuple[str, ...]:
    """What a step adding ``url`` must hold alone: the trap counters it is judged by.

    Two steps that could add the same URL (one pattern) or move the same counter
    share a key and take turns; the rest run at once.  One turn for the whole fleet
    made the second worker wait: JDK docs, two workers, 22 s of lock waits in a
    146 s crawl, every one blocking a worker's event loop.
    """
    found = counter_keys(url)
    if found is None:
        return (url,)
    # "TABLE KEY": the store reads the counter a held key names (FleetStore.split_turn).
    return tuple(f"{table} {key}" for table, key in trap_keys(*found))


class Leases:
    """This worker's slots on hosts, and its heartbeat.

    ``held[origin]`` is how many of the origin's slots the store says are ours;
    ``active[origin]`` how many requests to it are in flight here; ``pending[origin]``
    how many of its URLs this worker claimed and has not started yet.  ``capacity``:
    the requests this worker runs at once (``--concurrency``); while its slots cannot
    fill it, it looks for more hosts.  ``cap``: ``--max-pages``, the URLs the whole
    fleet may take from the frontier (counted by the store, in each claim).
    """

    def __init__(
        self,
        store: FleetStore,
        per_host: int,
        ttl: float = LEASE_TTL,
        capacity: int = 16,
        cap: int | None = None,
        one_level: bool = False,
    ) -> None:
        self.store = store
        self.per_host = per_host
        self.ttl = ttl
        self.capacity = capacity
        self.cap = cap
        #: Claims take one depth at a time across the fleet (``--max-depth``).
        self.one_level = one_level
        self.worker = store.join_fleet(worker_name(), time.time(), ttl)
        self.held: dict[str, int] = {}
        self.active: dict[str, int] = {}
        self.pending: dict[str, int] = {}
        self.live = max(1, store.live_workers(time.time()))
        self._beat = time.monotonic()
        self._counted = self._looked = -math.inf  # monotonic times of the last looks
        self.lost = False

    def share(self) -> int:
        """Slots of one host each live worker may hold: ``per_host`` split evenly."""
        return max(1, math.ceil(self.per_host / self.live))

    def beat(self, *, force: bool = False) -> None:
        """Renew the leases (every third of their life); reap workers that stopped."""
        now_mono = time.monotonic()
        if not force and now_mono - self._beat < self.ttl / 3:
            return
        self._beat = now_mono
        now = time.time()
        if not self.store.heartbeat(self.worker, now, self.ttl):
            self.lost = True
            raise StoreError(
                f"{self.store.name}: worker {self.worker} missed its heartbeats for "
                f"{self.ttl:g} s and its leases went to the others; stopping"
            )
        self.store.reap_workers(now)
        self.live = max(1, self.store.live_workers(now))
        self._counted = now_mono

    def _count_live(self) -> None:
        """Count the live workers again (one may have joined), at most every LOOK_EVERY."""
        now = time.monotonic()
        if now - self._counted >= LOOK_EVERY:
            self._counted = now
            self.live = max(1, self.store.live_workers(time.time()))

    def _wants_hosts(self) -> bool:
        """Look for hosts not held: when none is, or (every LOOK_EVERY) while short of slots."""
        now = time.monotonic()
        if self.held and (
            sum(self.held.values()) >= self.capacity or now - self._looked < LOOK_EVERY
        ):
            return False
        self._looked = now
        return True

    def lease(self, origin: str, want: int) -> int:
        """Hold ``want`` slots of ``origin`` (fewer if the others hold the rest)."""
        held = self.store.lease_slots(self.worker, origin, self.per_host, want, time.time())
        if held:
            self.held[origin] = held
        else:
            self.held.pop(origin, None)
        return held

    def claim(self, limit: int) -> list[Claimed]:
        """Up to ``limit`` URLs of hosts this worker holds, leasing more hosts when short."""
        self.beat()
        if self.spent():
            return []
        self._count_live()  # a worker may have joined: the share shrinks
        share = self.share()
        out: list[Claimed] = []
        for origin in list(self.held):
            if len(out) >= limit:
                break
            busy = self.active.get(origin, 0)
            if self.held[origin] != max(share, busy):
                self.lease(origin, max(share, busy))
            got = self._claim_from(origin, limit - len(out))
            if not got and busy == 0 and not self.pending.get(origin):
                self.lease(origin, 0)  # nothing queued here: let the others have it
            out.extend(got)
        if len(out) < limit and self._wants_hosts():
            for origin in self.store.hosts_with_work(HOSTS_PER_ROUND):
                if len(out) >= limit:
                    break
                if origin in self.held or not self.lease(origin, share):
                    continue
                out.extend(self._claim_from(origin, limit - len(out)))
        return out

    def spent(self) -> bool:
        """The fleet took all ``--max-pages`` URLs (until a dead worker's claims come back).

        Asked once a claim round: without it, every host with queued URLs would be
        leased and asked for URLs the cap no longer allows.
        """
        return self.cap is not None and self.store.taken() >= self.cap

    def _claim_from(self, origin: str, limit: int) -> list[Claimed]:
        """Claim when at most half of the host's allowance is left: batches, not one URL a page.

        The engine asks for work after every page; topping the allowance up each time
        made a claim (a round trip and a commit) of one or two URLs a page.
        """
        allowance = self.held.get(origin, 0) * CLAIM_PER_SLOT
        room = allowance - self.pending.get(origin, 0)
        if room <= 0 or limit <= 0 or room * 2 < allowance:
            return []
        got = self.store.claim_host(self.worker, origin, min(room, limit), self.cap, self.one_level)
        self.pending[origin] = self.pending.get(origin, 0) + len(got)
        return got

    def started(self, url: str) -> None:
        """A claimed URL is being processed: room to claim another of its host."""
        origin = origin_of(url)
        left = self.pending.get(origin, 0) - 1
        if left > 0:
            self.pending[origin] = left
        else:
            self.pending.pop(origin, None)

    def leave(self) -> int:
        """Free every slot and put this worker's claims back in the queue."""
        self.held.clear()
        if self.lost:
            return 0
        return self.store.leave_fleet(self.worker)


class FleetPoliteness(Politeness):
    """:class:`Politeness` whose limits hold for the fleet: slots, shared pacing, one robots."""

    def __init__(self, fetcher: Fetcher, leases: Leases, config: CrawlConfig) -> None:
        super().__init__(
            fetcher,
            user_agent=config.user_agent,
            respect_robots=config.respect_robots,
            per_host=config.per_host,
            rate=config.rate,
        )
        self.leases = leases
        self.store = leases.store
        #: One condition per origin: a freed slot wakes one waiter of its own host, not
        #: every task of the worker (most of them wait for a slot on a one-host site).
        self._freed: dict[str, asyncio.Condition] = {}

    async def _fetch_robots(self, origin: str) -> RobotsRules:
        """The origin's robots.txt as the fleet fetched it once (fetched here if first)."""
        store, worker = self.store, self.leases.worker
        while True:
            now = time.time()
            stored = store.host_robots(origin)
            stale = now - ROBOTS_RETRY_AFTER
            if stored is not None:
                rules = self._rules(origin, stored.status, stored.body, stored.error)
                if not (getattr(rules, "retry", False) and stored.fetched_at < stale):
                    return rules
            if store.take_robots_fetch(worker, origin, now, stale):
                status, body, error = await self._download_robots(origin)
                store.set_host_robots(origin, HostRobots(status, body, error, time.time()))
                return self._rules(origin, status, body, error)
            await asyncio.sleep(POLL)  # another worker is fetching it

    @asynccontextmanager
    async def slot(self, origin: str) -> AsyncIterator[None]:
        """One of this worker's slots on ``origin``, started when the fleet's pace allows."""
        leases = self.leases
        freed = self._freed.get(origin)
        if freed is None:
            freed = self._freed[origin] = asyncio.Condition()
        async with freed:
            while True:
                active, held = leases.active.get(origin, 0), leases.held.get(origin, 0)
                if active < min(held, leases.share()):
                    break
                # All ours are busy (or none: a redirect to another host): one more if the
                # share allows and another worker let go of one.
                if held < leases.share() and leases.lease(origin, held + 1) > held:
                    break
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(POLL * 4):
                        await freed.wait()  # a local request to it ended, or poll again
            leases.active[origin] = active + 1
        try:
            await self._pace(origin)
            yield
        finally:
            leases.active[origin] -= 1
            if leases.held.get(origin, 0) > max(leases.share(), leases.active[origin]):
                # More workers joined since: give back what is over this one's share.
                leases.lease(origin, max(leases.share(), leases.active[origin]))
            async with freed:
                freed.notify()

    async def _pace(self, origin: str) -> None:
        """Wait until ``origin``'s interval has passed since the fleet's last request to it."""
        state = self._origin(origin)
        if state.delay <= 0:
            return
        async with state.pace:  # one local request asks the store at a time
            while True:
                wait = self.store.pace(origin, time.time(), state.delay)
                if wait <= 0:
                    return
                await asyncio.sleep(wait)


class FleetCrawler(Crawler):
    """A :class:`Crawler` that is one worker of a fleet sharing a :class:`FleetStore`.

    ``join=False``: the process that starts (or resumes) the crawl (``crawl --fleet``);
    ``join=True``: a worker that joins the crawl the store holds (``sitemapkit worker``).
    """

    #: Work (and slots) freed by the other workers is looked for this often when idle.
    IDLE_POLL = POLL * 4

    def __init__(
        self,
        config: CrawlConfig,
        store: FleetStore,
        *,
        join: bool = False,
        lease: float = LEASE_TTL,
        session: HttpClient | None = None,
        progress: Callable[[CrawlStats], None] | None = None,
        renderer: Renderer | None = None,
    ) -> None:
        limits = (
            TrapLimits() if config.max_depth is None else TrapLimits(max_depth=config.max_depth)
        )
        super().__init__(
            config,
            store,
            session=session,
            progress=progress,
            traps=SharedTrapGuard(store, limits),
            renderer=renderer,
        )
        self.fleet_store = store
        store.split_turn(turn_keys)
        #: Origins of claimed URLs whose scope was read after they were first seen.
        self._origins_read: set[str] = set()
        self._join = join
        self._lease = lease
        self.leases: Leases | None = None

    def _prepare(self, resume: bool) -> str:
        if self._join:
            start = self._join_crawl()
            self._lease = float(self.store.get_meta(LEASE_META) or LEASE_TTL)
        else:
            start = super()._prepare(resume)
            self.store.set_meta(LEASE_META, repr(self._lease))
            # The workers read the settings here: a resume's new --max-pages is theirs too,
            # and a resumed crawl is running again (a worker joins only a running crawl).
            self.store.set_meta("config", self.config.to_json())
            self.store.set_meta("state", "running")
            # --max-pages counts the URLs this crawl (or this resumption of it) takes, as
            # alone; what an earlier session took is done, or back in the queue.
            self.fleet_store.restart_taken()
            self.store.commit()
        self.leases = Leases(
            self.fleet_store,
            self.config.per_host,
            self._lease,
            self.config.concurrency,
            self.config.max_pages,
            one_level=self._one_level(),
        )
        return start

    def _join_crawl(self) -> str:
        """Join the running crawl: its start URL, the origins it adopted, its start page."""
        store = self.store
        start = store.get_meta("start_url")
        if start is None:
            raise StoreError(f"{store.name}: no crawl was started here")
        self._adopt_origins()
        self._carry_over(None)  # the fleet's counters: the store's (SharedTrapGuard)
        ids = store.lookup([self._key(start)])
        store.commit()
        hit = ids.get(self._key(start))
        self._start_id = None if hit is None else hit[0]
        self._load_start_state()
        self._run_started = store.run_started() or time.time()
        return start

    def _adopt_origins(self) -> None:
        for origin in (self.store.get_meta("scope_origins") or "").split():
            self.scope.adopt(origin)

    def _politeness(self, fetcher: Fetcher) -> Politeness:
        assert self.leases is not None  # _prepare ran
        return FleetPoliteness(fetcher, self.leases, self.config)

    def _claim(self, limit: int) -> list[Claimed]:
        """Claim work; read the crawl's origins again when a claimed URL is on a new one.

        The start page may have moved the site (http -> https): the worker that
        followed it stored the new origin before queueing its first URL, so a claimed
        URL on an origin not seen yet is the moment to read them (not every claim: that
        was one more round trip a claim round).
        """
        assert self.leases is not None
        claimed = self.leases.claim(limit)
        fresh = {origin_of(item.spelling) for item in claimed} - self._origins_read
        if fresh:
            self._adopt_origins()
            self._origins_read |= fresh
        return claimed

    async def _process(self, item: Claimed) -> None:
        assert self.leases is not None
        self.leases.started(item.spelling)
        await super()._process(item)

    def _room(self) -> int | None:
        """No count of this process's own: the store caps the fleet's claims (``Leases``)."""
        return None

    def _drained(self) -> bool:
        """Done when no worker holds a claim and the frontier is empty or the cap is reached.

        Nothing claimed anywhere first: a dead worker's claims come back to the queue
        (and off the fleet's count), and the live workers take them, within the cap.
        The cap is asked before the queue, as a lone crawl does (``_limit_reached``):
        a crawl that took ``--max-pages`` URLs stopped by max-pages, queue or not.
        """
        counts = self.store.counts()
        if counts.get("claimed", 0) != 0:
            return False
        assert self.leases is not None
        if self.leases.spent():
            self._stop_reason = "max-pages"
            return True
        return counts.get("queued", 0) == 0

    def _checkpoint(self) -> None:
        """End a step: at once when it holds the fleet's turn (the others wait for it).

        A step that holds nothing (on PostgreSQL, most: their URLs were all known)
        leaves its writes to the commit tick, as a lone crawl does: its page's commit
        was two round trips a page, each one blocking this worker's event loop.  A
        worker killed meanwhile loses nothing: its uncommitted pages are still claimed
        and go back to the queue with its leases.
        """
        if self.fleet_store.holds_turn():
            self.store.commit()

    def _on_tick(self) -> None:
        if self.leases is not None:
            self.leases.beat()

    def _release(self) -> None:
        if self.leases is not None:
            self.leases.leave()

    def _ends_run(self, state: str) -> bool:
        if state == "finished":
            return True  # the frontier is empty and nobody holds a claim: the crawl is done
        # Stopped or interrupted: the run goes on while other workers are live.
        return self.fleet_store.live_workers(time.time()) == 0
