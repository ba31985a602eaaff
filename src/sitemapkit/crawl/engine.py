"""The crawl: frontier -> politeness -> fetch -> extract -> decision -> store.

Shape, and why:

* **The store is the frontier.**  Workers get URLs from an in-memory queue that
  a feeder refills, a few hundred at a time, from the store's ``QUEUED`` rows
  (shallowest first, so depths are true BFS depths).  Nothing grows with the
  site in Python: the seen-set is the store's unique index.
* **One event loop, one store (the** ``CrawlStore`` **protocol, nothing else).**
  Writes land in the current batch and a ticker commits it a few times a
  second; a crash loses at most that batch, whose URLs are still
  ``QUEUED``/``CLAIMED`` and are fetched again on ``--resume``.  What a resume
  relies on beyond the frontier (the adopted origin) is committed the moment
  it is decided.
* **A failing store stops the crawl.**  A worker or the ticker that dies (disk
  full) ends the run with its :class:`~sitemapkit.errors.StoreWriteError`; the
  broken batch is rolled back, the committed state is resumable.
* **Redirects are followed by the worker itself**, hop by hop, so each hop is
  recorded, scope- and robots-checked, and loops and long chains are caught.
  The final URL is the one that can enter the sitemap; the 3xx sources are in
  the inventory with reason ``redirect``.  A chain is judged as a whole (one
  rule, :func:`~sitemapkit.crawl.traps.redirect_problem`), so each hop it claims
  is stored with its chain, in the same batch: a crawl killed between two hops
  goes on with that chain when the hop is taken up again (``--resume``, or
  another worker of a fleet), and every hop ends as an unkilled crawl leaves it.
* **Every URL ends with a decision** (the ``reason`` column): the sitemap is
  the set of pages without one.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

from sitemapkit import dates
from sitemapkit.crawl.config import LEASE_META, CrawlConfig, ScopeRule
from sitemapkit.crawl.extract import MAX_LINKS_PER_PAGE, PageFacts
from sitemapkit.crawl.fetch import Fetcher, Response, make_session
from sitemapkit.crawl.httpclient import HttpClient
from sitemapkit.crawl.parsepool import PageParser, ParseFailed, make_parser
from sitemapkit.crawl.politeness import Politeness
from sitemapkit.crawl.traps import TrapGuard, TrapLimits, redirect_problem, saved_counts
from sitemapkit.crawl.urlnorm import QueryPolicy, normalize
from sitemapkit.errors import StoreError
from sitemapkit.limits import MAX_REDIRECTS
from sitemapkit.model import OUT_OF_SCOPE, Image, UrlEntry
from sitemapkit.store.base import (
    Claimed,
    CrawlStore,
    NewUrl,
    Outcome,
    RunFigures,
    UrlState,
)
from sitemapkit.urls import origin_of

if TYPE_CHECKING:
    from sitemapkit.render import Renderer

#: MIME types we parse as HTML pages (a missing type is sniffed).
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
#: Link kinds that lead to more pages (``frame`` sources are recorded, not crawled).
_FOLLOW_KINDS = frozenset({"a", "area", "meta-refresh"})
#: Seconds between commits of the write batch (and progress reports).
COMMIT_EVERY = 0.5
#: Seconds between saves of the trap guard's counters into the store.
SAVE_TRAPS_EVERY = 15.0

#: What the start URL's problem is until some process fetched it.
_NOT_FETCHED = "not fetched"


class TrapChecker(Protocol):
    """What the engine asks of a trap guard (:class:`sitemapkit.crawl.traps.TrapGuard`)."""

    def check(self, url: str, depth: int, *, admitted_before: bool = ...) -> str | None: ...
    def judging(self, urls: Sequence[str]) -> AbstractContextManager[None]: ...
    def carry_over(self, counts: tuple[dict[str, int], dict[str, int]]) -> None: ...
    def restore_counts(self, counts: tuple[dict[str, int], dict[str, int]]) -> None: ...
    def take_tally(self) -> list[tuple[str, str]]: ...
    def to_state(self) -> dict[str, Any]: ...


def _trap_guard(config: CrawlConfig, state: str | None) -> TrapChecker:
    limits = TrapLimits() if config.max_depth is None else TrapLimits(max_depth=config.max_depth)
    if state is None:
        return TrapGuard(limits)
    return TrapGuard.from_state(json.loads(state), limits)


def query_policy(mode: str) -> QueryPolicy:
    """The :class:`QueryPolicy` of a ``--query`` mode (``sort``, ``keep``, ``drop``)."""
    if mode == "drop":
        return QueryPolicy(drop_all=True)
    return QueryPolicy(order="keep" if mode == "keep" else "sort")


def _wants_body(mime: str | None) -> bool:
    return mime is None or mime in HTML_TYPES


def _looks_like_html(body: bytes) -> bool:
    head = body[:1024].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html")) or b"<html" in head


@dataclass(slots=True)
class CrawlStats:
    """Live counters for progress and the final summary."""

    started: float = field(default_factory=time.monotonic)
    #: URLs taken from the frontier (what ``max_pages`` counts).
    taken: int = 0
    #: HTTP requests for pages (a redirect chain makes several).
    fetched: int = 0
    pages: int = 0
    #: Pages the server said were unchanged (``304``): walked from the stored facts.
    not_modified: int = 0
    #: Body bytes downloaded for pages.
    bytes: int = 0
    errors: int = 0
    in_sitemap: int = 0
    #: URLs claimed and waiting in memory for a worker.
    queued: int = 0
    #: URLs waiting in the store's frontier (refreshed with the progress line).
    frontier: int = 0
    active: int = 0

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.started

    @property
    def rate(self) -> float:
        elapsed = self.elapsed
        return self.fetched / elapsed if elapsed > 0 else 0.0


@dataclass(slots=True)
class CrawlResult:
    """How the crawl went; the details are in the store."""

    start_url: str
    start_ok: bool
    start_problem: str | None
    stats: CrawlStats
    stopped_by: str | None
    counts: dict[str, int]
    reasons: dict[str, int]
    #: Example URLs each trap limit stopped (``trap-pattern`` -> [...]).
    trap_examples: dict[str, list[str]] = field(default_factory=dict)
    #: Rendered pages by how it went (``rendered``, ``render-timeout``, ``render-failed``;
    #: ``render-unavailable``: needed, but rendering is not installed).
    rendered: dict[str, int] = field(default_factory=dict)
    #: Why pages that needed rendering were not rendered (the missing piece), if so.
    render_missing: str | None = None


class Crawler:
    """One crawl of one site into one store.  Use :meth:`run` (or :func:`crawl`)."""

    #: Seconds the feeder waits, with nothing claimable, before it asks the store again
    #: (a lone crawl is woken by its own pages; a fleet's work also arrives from others).
    IDLE_POLL: float = 1.0

    def __init__(
        self,
        config: CrawlConfig,
        store: CrawlStore,
        *,
        session: HttpClient | None = None,
        progress: Callable[[CrawlStats], None] | None = None,
        backoff_base: float = 1.0,
        traps: TrapChecker | None = None,
        follow_links: bool = True,
        renderer: Renderer | None = None,
        parser: PageParser | None = None,
    ) -> None:
        self.config = config.validate()
        #: False fetches and judges the queued URLs only (the audit's listed URLs the
        #: crawl did not reach): their links are neither recorded nor followed.
        self._follow_links = follow_links
        self.store = store
        self._session = session
        self._progress = progress
        self._backoff_base = backoff_base
        #: The dedup key's policy (``--query``) and the site's spelling's (its own order).
        self.policy = query_policy(config.query)
        self.spell_policy = dataclasses.replace(self.policy, order="keep")
        self.scope = ScopeRule(config)
        #: Where pages are parsed (``--workers``): in-process, or a pool of processes.
        self.parser = parser or make_parser(config.workers, self.spell_policy)
        self.stats = CrawlStats()
        self.traps: TrapChecker = traps if traps is not None else _trap_guard(config, None)
        #: A guard given here keeps its counters elsewhere (a fleet's store): a resume
        #: must not swap it for one restored from the saved state.
        self._own_traps = traps is None
        #: Keys of the URLs the last run stopped by a pattern's limit (a re-crawl).
        self._trapped_before: set[str] = set()
        self._queue: asyncio.Queue[Claimed] = asyncio.Queue()
        #: Pages parsed and stored apart from the task that fetched them (``--workers`` N),
        #: at most ``parser.ahead`` at once; the crawl tasks that handed theirs on.
        ahead = self.parser.ahead(self.config.concurrency)
        self._ahead = asyncio.Semaphore(ahead) if ahead > 0 else None
        self._passed: set[asyncio.Task[None]] = set()
        self._handed: set[asyncio.Task[Any] | None] = set()
        #: Fails with the first failure of a page parsed and stored apart (set in run()).
        self._broken: asyncio.Future[None]
        self._wake = asyncio.Event()
        self._stop_reason: str | None = None
        self._start_id: int | None = None
        self._start_problem: str | None = _NOT_FETCHED
        self._start_ok = False
        self._fetcher: Fetcher
        #: When the current run started: the lastmod of content that changed in it.
        self._run_started = time.time()
        self._polite: Politeness
        #: Renders the pages that need it (``--render``); closed when the run ends.
        #: ``auto`` without thumbnails: the renderer (and :mod:`sitemapkit.render`) is made
        #: when the first page looks built by scripts, so a plain site never imports it.
        self._render_later = renderer is None and _lazy_render(self.config)
        self.renderer = renderer
        if renderer is None and not self._render_later:
            self._start_renderer()

    def _start_renderer(self) -> None:
        self.renderer = _renderer(self.config)
        if self.renderer is not None:
            self.renderer.bind(
                policy=self.spell_policy,  # rendered links in the site's spelling, as raw ones
                is_site=self.scope.check,
                allowed=self._robots_allow,
            )

    async def _robots_allow(self, url: str) -> bool:
        """robots.txt's word on ``url`` (what a rendering page may load, too)."""
        return await self._polite.allowed(url)

    # -- set-up ---------------------------------------------------------------------------
    def _prepare(self, resume: bool) -> str:
        store = self.store
        start = normalize(self.config.start_url, policy=self.spell_policy)
        if start is None:
            raise StoreError(f'start URL "{self.config.start_url}" cannot be crawled')
        known = store.get_meta("start_url")
        if resume:
            if known is None:
                raise StoreError(f"{store.name}: nothing to resume (no crawl was started here)")
            released = store.release_claims()
            store.set_meta("resumed", str(int(store.get_meta("resumed") or "0") + 1))
            store.set_meta("released_on_resume", str(released))
            if self._own_traps:  # a fleet's shared guard reads the store's counts itself
                self._restore_traps(store.get_meta("traps"))
            self._carry_over(None)
            for origin in (store.get_meta("scope_origins") or "").split():
                self.scope.adopt(origin)
            start_row = store.add_urls([self._new(known, 0, None)])
            self._start_id = start_row[self._key(known)][0]
            self._load_start_state()
            self._run_started = store.run_started() or time.time()
            return known
        if known is not None:
            self._check_rerun(known, start)
            # A new run of the same site: what earlier runs learnt stays, judged anew when
            # reached; the trap guard starts afresh, the adopted origins stay adopted.
            for origin in (store.get_meta("scope_origins") or "").split():
                self.scope.adopt(origin)
            start = known
        else:
            store.set_meta("schema", "sitemapkit-crawl")
            store.set_meta("start_url", start)
            store.set_meta("started_at", str(time.time()))
        store.set_meta("config", self.config.to_json())
        store.set_meta("state", "running")
        store.set_meta(LEASE_META, "")  # run alone (a fleet's lead sets its lease after)
        store.start_run(time.time())
        if known is not None:
            self._carry_over(store.get_meta("traps"))
        self._run_started = store.run_started() or time.time()
        ids = store.add_urls([self._new(start, 0, None)])
        self._start_id = ids[self._key(start)][0]
        store.commit()
        return start

    def _restore_traps(self, saved: str | None) -> None:
        """A resume: the guard's examples from its saved state, its counts from the store.

        The state is saved every few seconds, the counts with every commit: a crawl
        killed between the two went on from older counts and admitted again URLs its
        limits had stopped (a calendar's months).  A store written before the counts
        were kept has only the state's.
        """
        if saved:
            self.traps = _trap_guard(self.config, saved)
        counts = self.store.stored_trap_counts()
        if counts[0] or counts[1]:
            self.traps.restore_counts(counts)

    def _carry_over(self, saved: str | None) -> None:
        """A run over an earlier one (new or resumed): judge the URLs as that run did.

        Without it a re-crawl counted every pattern afresh, and a pattern over its limit
        (the demo's filter combinations) admitted whichever URLs answered first: an
        unchanged site showed changed pages in ``history``, ``diff`` and the inventory.
        ``saved``: the last run's saved state, read when the store kept no counts for it
        (a run of an earlier sitemapkit).
        """
        earlier = self.store.stored_trap_counts(earlier=True)
        if not (earlier[0] or earlier[1]) and saved:
            earlier = saved_counts(json.loads(saved))
        self.traps.carry_over(earlier)
        self._trapped_before = self.store.trapped_before()

    def _check_rerun(self, known: str, start: str) -> None:
        """Refuse a new run over another site's crawl, or over a run not yet finished."""
        name = self.store.name
        if known != start:
            raise StoreError(
                f"{name}: already holds a crawl of {known}; use --resume or another --db"
            )
        state = self.store.get_meta("state") or "running"
        if state in ("running", "interrupted"):
            raise StoreError(
                f"{name}: its last crawl of {known} did not finish ({state}); "
                "continue it with --resume"
            )

    def _key(self, spelling: str) -> str:
        """The dedup key of a URL the site spelled so (its query sorted under ``sort``)."""
        if self.policy.order == "keep" or "&" not in spelling:
            return spelling
        return normalize(spelling, policy=self.policy) or spelling

    def _new(
        self,
        spelling: str,
        depth: int,
        found_from: int | None,
        state: UrlState = UrlState.QUEUED,
        reason: str | None = None,
        detail: str | None = None,
    ) -> NewUrl:
        """A new URL keyed for the seen-set, keeping the site's spelling when it differs."""
        key = self._key(spelling)
        loc = None if key == spelling else spelling
        return NewUrl(key, depth, found_from, state, reason, detail, loc)

    def _load_start_state(self) -> None:
        fate = None if self._start_id is None else self.store.fate(self._start_id)
        if fate is not None and fate.state == UrlState.DONE:
            self._start_ok = fate.status is not None and fate.status < 400
            self._start_problem = None if self._start_ok else str(fate.reason)

    # -- running --------------------------------------------------------------------------
    async def run(self, *, resume: bool = False) -> CrawlResult:
        start = self._prepare(resume)
        own_session = self._session is None
        session = self._session or make_session(self.config)
        self._fetcher = Fetcher(
            session,
            max_body=self.config.max_body,
            retries=self.config.retries,
            max_retry_wait=self.config.max_retry_wait,
            backoff_base=self._backoff_base,
            total_timeout=self.config.read_timeout * 2 + self.config.connect_timeout,
        )
        self._polite = self._politeness(self._fetcher)
        self._broken = asyncio.get_running_loop().create_future()
        workers: list[asyncio.Task[None]] = []
        ticker: asyncio.Task[None] | None = None
        finished = failed = False
        deadline = asyncio.timeout_at(self._deadline())
        try:
            async with deadline:
                await self.parser.start()
                if self.config.seed_from_sitemaps:
                    await self._seed_from_sitemaps(start)
                ticker = asyncio.create_task(self._tick())
                workers = [
                    asyncio.create_task(self._worker()) for _ in range(self.config.concurrency)
                ]
                await self._until_drained([ticker, *workers])
            finished = True
        except TimeoutError:
            if not deadline.expired():
                raise
            # A deadline is a deadline: requests in flight are cut; their URLs go back
            # to the queue (released below) and count as not-crawled.
            self._stop_reason = "max-duration"
            finished = True
        except StoreError:  # a write (disk full) or a read (corrupt file) failed mid-run
            failed = True
            raise
        finally:
            passed = list(self._passed)
            for task in (*workers, *passed):
                task.cancel()
            if ticker is not None:
                ticker.cancel()
            # Collected, not re-raised: the first failure is already on its way up.
            await asyncio.gather(
                *workers, *passed, *([ticker] if ticker else []), return_exceptions=True
            )
            if own_session:
                await session.close()
            if self.renderer is not None:
                await self.renderer.close()
            await self.parser.close()
            self._close(finished, failed)
        return self._result(start)

    def _politeness(self, fetcher: Fetcher) -> Politeness:
        """Robots, per-host limits and pacing for this process (a fleet shares them)."""
        return Politeness(
            fetcher,
            user_agent=self.config.user_agent,
            respect_robots=self.config.respect_robots,
            per_host=self.config.per_host,
            rate=self.config.rate,
            concurrency=self.config.concurrency,
        )

    # -- hooks a fleet worker (crawl/fleet.py) fills in; alone, the crawl needs none --------
    def _claim(self, limit: int) -> list[Claimed]:
        """Up to ``limit`` URLs from the frontier for this process."""
        return self.store.claim(limit, one_level=self._one_level())

    def _one_level(self) -> bool:
        """Claims take one depth at a time: under ``--max-depth``, so that it leaves out
        no page within reach (see :mod:`~sitemapkit.store.claims`)."""
        return self.config.max_depth is not None

    def _drained(self) -> bool:
        """Nothing left anywhere (this process has nothing queued or in flight)."""
        return True

    def _checkpoint(self) -> None:
        """A step is complete (about to wait): a shared store commits it here."""

    def _on_tick(self) -> None:
        """Called with every commit tick (a fleet worker renews its leases)."""

    def _release(self) -> None:
        """Put what was handed out but not finished back in the queue."""
        self.store.release_claims()

    def _ends_run(self, state: str) -> bool:
        """Does this process's end end the run (a fleet's does when the crawl is done)?"""
        return True

    async def _drive(self) -> None:
        await self._feed()
        await self._queue.join()

    async def _until_drained(self, helpers: list[asyncio.Task[None]]) -> None:
        """Feed until the frontier is drained, unless a worker or the ticker dies first.

        Workers and the ticker only end by failing (a store write on a full disk,
        say); their exception then ends the crawl instead of leaving the queue
        undrained and the process waiting forever.
        """
        drive = asyncio.create_task(self._drive())
        try:
            done, _ = await asyncio.wait(
                [drive, *helpers, self._broken], return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            if not drive.done():
                drive.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await drive
        for task in done:
            task.result()  # re-raises the failure
            if task is not drive:  # pragma: no cover - helpers loop forever
                raise RuntimeError("a crawl worker stopped without a result")

    def _close(self, finished: bool, failed: bool = False) -> None:
        store = self.store
        if failed:  # the batch holds a half-written page: drop it, keep the last commit
            store.rollback()
        try:
            # Whatever was handed out but not finished goes back to the queue.
            self._release()
            store.set_meta("traps", json.dumps(self.traps.to_state()))
            store.set_meta("scope_origins", " ".join(self.scope.origins))
            if finished:
                state = "finished" if self._stop_reason is None else f"stopped:{self._stop_reason}"
            else:
                state = "interrupted"
            store.end_session()  # this process's figures are in: it did not die mid-run
            if self._ends_run(state):
                ended = time.time()
                store.set_meta("state", state)
                store.set_meta("ended_at", str(ended))
                store.end_run(state, ended)
            store.commit()
        except StoreError:
            store.rollback()
            if finished:
                raise
            # Already failing: the error on its way up says why; claims are released on resume.

    def _result(self, start: str) -> CrawlResult:
        if self._start_problem == _NOT_FETCHED:
            # Another process of a fleet may have fetched it: the store knows its fate.
            self._load_start_state()
        counts = self.store.counts()
        reasons = self.store.reasons()
        self.stats.in_sitemap = counts.get("indexable", 0)
        return CrawlResult(
            start_url=start,
            start_ok=self._start_ok,
            start_problem=self._start_problem,
            stats=self.stats,
            stopped_by=self._stop_reason,
            counts=counts,
            reasons=reasons,
            trap_examples=self._trap_examples(),
            rendered={} if self.renderer is None else dict(self.renderer.counts),
            render_missing=None if self.renderer is None else self.renderer.missing,
        )

    def _trap_examples(self) -> dict[str, list[str]]:
        examples = getattr(self.traps, "examples", None)
        if examples is None:
            return {}
        found: dict[str, list[str]] = examples()
        return {code: urls for code, urls in found.items() if code.startswith("trap-")}

    async def _tick(self) -> None:
        last_traps = time.monotonic()
        while True:
            await asyncio.sleep(COMMIT_EVERY)
            now = time.monotonic()
            if now - last_traps > SAVE_TRAPS_EVERY:
                self.store.set_meta("traps", json.dumps(self.traps.to_state()))
                last_traps = now
            self.store.commit()
            self._on_tick()
            if self._progress is not None:
                self.stats.frontier = self.store.queued()
                self._progress(self.stats)

    def _deadline(self) -> float | None:
        """Loop time at which ``--max-duration`` cuts the crawl (counted from the start)."""
        if self.config.max_duration is None:
            return None
        left = self.config.max_duration - self.stats.elapsed
        return asyncio.get_running_loop().time() + left

    def _room(self) -> int | None:
        """URLs this process may still take from the frontier (None: no ``--max-pages``).

        ``--max-pages`` counts URLs taken from the frontier (``stats.taken``), redirect
        targets not included; a fleet counts the same in its store, for all its
        processes at once (:meth:`FleetCrawler._room`).
        """
        cap = self.config.max_pages
        return None if cap is None else max(0, cap - self.stats.taken)

    def _limit_reached(self) -> str | None:
        if self._room() == 0:
            return "max-pages"
        return None

    async def _feed(self) -> None:
        batch = max(2 * self.config.concurrency, 64)
        low = max(self.config.concurrency, 16)
        while True:
            limit = self._limit_reached()
            if limit is not None:
                self._stop_reason = limit  # claimed URLs count as pages: let them finish
                return
            if self._queue.qsize() < low:
                room = self._room()
                want = batch if room is None else min(batch, room)
                claimed = self._claim(want) if want > 0 else []
                self.stats.taken += len(claimed)
                for item in claimed:
                    self._queue.put_nowait(item)
                self.stats.queued = self._queue.qsize()
                idle = not claimed and self.stats.active == 0 and self._queue.empty()
                if idle and self._drained():
                    return
                if claimed:
                    continue
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.IDLE_POLL):
                    await self._wake.wait()

    async def _worker(self) -> None:
        queue = self._queue
        me = asyncio.current_task()
        while True:
            item = await queue.get()
            self.stats.active += 1
            handed = False
            try:
                await self._process(item)
                handed = me in self._handed  # its page went on in a task of its own
                if not handed:
                    self._checkpoint()
            finally:
                self._handed.discard(me)
                if not handed:
                    self._done()

    def _done(self) -> None:
        """A URL taken from the queue is through (fetched, parsed, stored: or failed)."""
        self.stats.active -= 1
        self._queue.task_done()
        self._wake.set()

    async def _pass_on(self, item: Claimed, response: Response) -> None:
        """Parse and store a fetched page; with parse processes, in a task of its own.

        The task that fetched it goes on to its next URL at once: a crawl task (one of
        ``--concurrency``) stands for a connection, not for a page, so the pages waiting
        for a parse process or being parsed (up to :meth:`PageParser.ahead` of them) do
        not hold back the fetches that keep the parse processes busy.
        """
        ahead = self._ahead
        if ahead is None:
            await self._page(item, response)
            return
        await ahead.acquire()
        task = asyncio.create_task(self._page_apart(item, response, ahead))
        self._passed.add(task)
        task.add_done_callback(self._passed.discard)
        self._handed.add(asyncio.current_task())  # the page is no longer its to finish

    async def _page_apart(
        self, item: Claimed, response: Response, ahead: asyncio.Semaphore
    ) -> None:
        """:meth:`_page` in its own task; a failure (a store write) ends the crawl."""
        try:
            await self._page(item, response)
            self._checkpoint()
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # noqa: BLE001 - handed to the crawl, which raises it
            if not self._broken.done():
                self._broken.set_exception(exc)
        finally:
            ahead.release()
            self._done()

    # -- one URL --------------------------------------------------------------------------
    async def _process(self, item: Claimed) -> None:
        if not await self._polite.allowed(item.spelling):
            await self._blocked(item)
            return
        chain: list[Claimed] = [item]
        current = item
        while True:
            async with self._polite.slot(origin_of(current.spelling)):
                response = await self._fetcher.get(
                    current.spelling, want_body=_wants_body, headers=_conditional(current)
                )
            self.stats.fetched += 1
            if not response.is_redirect:
                await self._pass_on(current, response)
                return
            if current is item:
                # A hop whose process died waiting for it: its chain goes on, from the store.
                chain = [*self.store.chain_before(item.id), item]
            target = normalize(response.location or "", policy=self.spell_policy)
            status = int(response.status or 0)
            first = chain[0]
            self.store.add_redirect(first.id, len(chain), target or str(response.location), status)
            outcome = Outcome(
                status=status,
                reason="redirect",
                redirect_to=target or response.location,
                fetched_at=time.time(),
            )
            if target is None:
                outcome.reason = "redirect-invalid"
                self._finish(current, outcome)
                return
            if current.id == self._start_id and not self.scope.check(target):
                # The site lives elsewhere (http -> https, bare -> www): follow it there.
                self.scope.adopt(target)
                self.store.set_meta("site_origin", origin_of(target))
                # Saved in the batch that admits the first URL of the new origin (a batch
                # commits whole), so a resume never judges the site's own pages out of scope.
                self.store.set_meta("scope_origins", " ".join(self.scope.origins))
            key = self._key(target)
            problem = redirect_problem([*(c.url for c in chain), key], MAX_REDIRECTS)
            if problem is not None:
                self._judge_chain(chain, problem, outcome, target)
                return
            self._finish(current, outcome)
            known = self.store.lookup([key]).get(key)
            if known is not None and known[1] != UrlState.STALE:
                # Already seen: it was, or will be, crawled (and judged) on its own.
                self._link(current.id, [(known[0], False, "redirect")])
                if known[1] == UrlState.HELD:
                    self.store.requeue([(known[0], current.depth)])
                return
            decided = self._judge(target, current.depth)
            if decided is not None:
                ids = self.store.add_urls(
                    [self._new(target, current.depth, current.id, UrlState.DONE, *decided)]
                )
                self._link(current.id, [(ids[key][0], False, "redirect")])
                return
            loc = None if key == target else target
            nxt = self.store.claim_url(key, current.depth, current.id, loc)
            if nxt is None:  # pragma: no cover - looked up just above, same thread
                return
            # In the claim's batch: whoever takes this hop up again goes on with this chain.
            self.store.add_chain_hop(nxt.id, first.id, len(chain))
            self._link(current.id, [(nxt.id, False, "redirect")])
            self._checkpoint()
            if not await self._polite.allowed(target):
                await self._blocked(nxt)
                return
            chain.append(nxt)
            current = nxt

    def _judge_chain(
        self, chain: Sequence[Claimed], problem: str, last: Outcome, target: str
    ) -> None:
        """Mark every hop of a chain :func:`redirect_problem` judged (a loop, too long).

        The last hop keeps its own answer (status, where it went); the hops before it
        keep what their fetch recorded and take the chain's reason.  The detail names
        the chain from its first hop (the loop's path, or where the long chain began),
        so a chain taken up again after a kill reads as an unkilled one does.
        """
        if problem == "redirect-loop":
            detail = " -> ".join([*(c.spelling for c in chain), target])
        else:
            detail = f"more than {MAX_REDIRECTS} redirects from {chain[0].spelling}"
        current = chain[-1]
        for c in chain:
            hop = Outcome(
                status=last.status if c is current else None,
                reason=problem,
                redirect_to=target if c is current else None,
                detail=detail,
                fetched_at=last.fetched_at,
            )
            self._finish(c, hop, keep_status=c is not current)

    async def _blocked(self, item: Claimed) -> None:
        detail = await self._polite.refusal(item.spelling)
        self._finish(item, Outcome(reason="blocked-by-robots", detail=detail))

    def _judge(
        self, url: str, depth: int, admitted_before: bool = False
    ) -> tuple[str, str | None] | None:
        """A reason not to fetch ``url`` at ``depth`` (and a detail), or None.

        ``url`` is the site's spelling: scope and trap shapes ignore query order, and
        the trap guard's examples (printed in the summary) are URLs the site uses.
        ``admitted_before``: the last run judged it and did not stop it by a pattern.
        """
        if not self.scope.check(url):
            return (OUT_OF_SCOPE, None)
        trap = self.traps.check(url, depth, admitted_before=admitted_before)
        tally = self.traps.take_tally()
        if tally:  # kept with the URL rows they count, in the same commit
            self.store.tally_traps(tally)
        if trap is not None:
            return (trap, None)
        return None

    def _finish(self, item: Claimed, outcome: Outcome, *, keep_status: bool = False) -> None:
        if keep_status:
            self.store.decide(item.id, outcome.reason or "failed", outcome.detail)
        else:
            self.store.finish(item.id, outcome)
        if item.id == self._start_id:
            status = outcome.status
            self._start_ok = (
                status is not None
                and status < 400
                and outcome.reason
                in (
                    None,
                    "redirect",
                    "noindex",
                    "canonicalised-to",
                    "not-html",
                )
            )
            problem = outcome.reason or "failed"
            if outcome.detail and outcome.reason == "blocked-by-robots":
                problem = outcome.detail  # "robots.txt unreachable: connection refused ..."
            elif outcome.detail:
                problem = f"{problem} ({outcome.detail})"
            self._start_problem = None if self._start_ok else problem

    def _link(self, from_id: int, rows: list[tuple[int, bool, str]]) -> None:
        self.store.add_links(from_id, rows)

    async def _page(self, item: Claimed, response: Response) -> None:
        """Judge and store a fetched page, then count it (see :meth:`_count`)."""
        self._count(await self._store_page(item, response))

    def _count(self, figures: RunFigures) -> None:
        """A page is stored: its figures go to this process's stats and its run's session.

        Counted after the page's writes, with no wait between: the session's figures
        reach the store in the commit that stores the page, never before (a process
        killed meanwhile would count a page another process fetches again) nor without.
        """
        stats = self.stats
        stats.pages += figures.pages
        stats.not_modified += figures.not_modified
        stats.bytes += figures.bytes
        self.store.add_figures(figures)

    async def _store_page(self, item: Claimed, response: Response) -> RunFigures:
        """Judge a fetched page and write its fate; what it adds to the run's figures."""
        now = time.time()
        if response.error is not None:
            self.stats.errors += 1
            self._finish(
                item, Outcome(reason=response.error, detail=response.error_detail, fetched_at=now)
            )
            return RunFigures(pages=1)
        status = int(response.status or 0)
        figures = RunFigures(pages=1, bytes=len(response.body))
        if status == 304 and (item.etag or item.last_modified):
            self._not_modified(item, now)
            return RunFigures(pages=1, not_modified=1, bytes=figures.bytes)
        out = Outcome(
            status=status,
            content_type=response.content_type,
            bytes=len(response.body),
            fetched_at=now,
        )
        if status != 200:
            if status >= 500 or status == 429:
                self.stats.errors += 1
            out.reason = f"http-{status}"
            self._finish(item, out)
            return figures
        mime = response.content_type
        if mime not in HTML_TYPES and not (mime is None and _looks_like_html(response.body)):
            out.reason = "not-html"
            self._finish(item, out)
            return figures
        judge = self._render_later and not response.truncated  # --render auto: a browser yet?
        try:
            facts, scripted = await self.parser.parse(
                response.body, item.spelling, response.headers, judge
            )
        except ParseFailed as exc:
            out.reason, out.detail = "parse-failed", str(exc)
            self._finish(item, out)
            return figures
        rendered = None
        if scripted and self._render_later:
            self._render_later = False
            self._start_renderer()
        if self.renderer is not None and not response.truncated:
            facts, rendered = await self.renderer.crawl_page(
                item.spelling, response.body, response.headers, facts
            )
            if rendered is not None:
                out.render, out.render_why = rendered.status, rendered.why
                out.rendered_links = rendered.only_rendered
        out.etag = response.headers.get("ETag")
        out.last_modified = response.headers.get("Last-Modified")
        out.fingerprint = facts.fingerprint
        out.title = facts.title
        out.canonical = facts.canonical
        out.lastmod, out.lastmod_source, ahead = self._lastmod(item, facts)
        if response.truncated:
            out.reason = "too-large"
            out.detail = f"body larger than {self.config.max_body} bytes"
        elif facts.meta_refresh is not None and self._key(facts.meta_refresh) != item.url:
            # A meta refresh to another URL is a redirect to search engines (Google: an
            # instant one permanent, a delayed one temporary): the target counts, not this.
            out.reason = "redirect"
            out.redirect_to = facts.meta_refresh
        elif facts.noindex:
            out.reason = "noindex"
        elif facts.canonical is not None and self._key(facts.canonical) != item.url:
            out.reason = "canonicalised-to"
            out.detail = facts.canonical
        else:
            out.indexable = True
            out.alternates = facts.alternates
            if self.config.images:
                out.images = facts.images
        out.outlinks = len(facts.links)
        if facts.links_dropped:
            out.notes = (("links-capped", _links_capped(facts.links_dropped)),)
        if ahead is not None:
            out.notes = (*out.notes, ("lastmod-ahead", ahead))
        if out.indexable and self.config.thumbnails and self.renderer is not None:
            out.thumbnail = await self.renderer.thumbnail(
                item.spelling, response.body, response.headers, rendered
            )
        self._finish(item, out)
        if out.indexable:
            self.stats.in_sitemap += 1
        if self._follow_links:
            self._discover(item, facts)
        return figures

    def _lastmod(
        self, item: Claimed, facts: PageFacts
    ) -> tuple[str | None, str | None, str | None]:
        """Which date is lastmod (issue 12), its source, and a contradiction to note.

        A date the page states (``article:modified_time``, JSON-LD ...) is its own claim
        and wins.  ``Last-Modified`` is the server's guess (a file time every rebuild
        moves): used on the first crawl, later only when the fingerprint changed too and
        the header moved past the lastmod the page had (a header that held still, as a
        page built from a template keeps its file's, cannot date this change).
        When the content changed without such a date, lastmod is this run's start
        (``content-change``).  When it did not change, the earlier lastmod stays, and a
        stated date or header that moved anyway is noted (``lastmod-ahead``, for the audit).
        """
        if item.fingerprint is None:  # a first crawl: the page's word, else the header
            return facts.lastmod, facts.lastmod_source, None
        if item.fingerprint == facts.fingerprint and item.lastmod is not None:
            ahead = None
            if facts.lastmod is not None and facts.lastmod != item.lastmod:
                ahead = (
                    f"{facts.lastmod_source} says {facts.lastmod}, but the content has not "
                    f"changed since {item.lastmod}: lastmod kept"
                )
            return item.lastmod, item.lastmod_source, ahead
        stated = facts.lastmod_source not in (None, "last-modified")
        if item.fingerprint == facts.fingerprint:  # unchanged, no date before
            return (facts.lastmod, facts.lastmod_source, None) if stated else (None, None, None)
        if facts.lastmod is not None and (stated or _later(facts.lastmod, item.lastmod)):
            return facts.lastmod, facts.lastmod_source, None
        return _w3c_time(self._run_started), CONTENT_CHANGE, None

    def _not_modified(self, item: Claimed, now: float) -> None:
        """A ``304``: keep what the last fetch learnt, and walk on through its stored links."""
        indexable = self.store.unchanged(item.id, now)
        if item.id == self._start_id:
            fate = self.store.fate(item.id)
            self._start_ok = fate is not None and fate.status is not None and fate.status < 400
            self._start_problem = None if self._start_ok else str(fate and fate.reason)
        if indexable:
            self.stats.in_sitemap += 1
        if not self._follow_links:
            return
        follow_all = self.config.follow_nofollow
        found: dict[str, tuple[bool, str, bool, str]] = {}
        for key, spelling, nofollow, kind in self.store.page_links(item.id):
            # Stored as _discover stored them: nofollow already holds the page's own.
            followable = kind in ("canonical", "alternate") or (
                kind in _FOLLOW_KINDS and (follow_all or not nofollow)
            )
            found.setdefault(key, (nofollow, kind, followable, spelling))
        self._admit(item, found, store_links=False)

    def _discover(self, item: Claimed, facts: PageFacts) -> None:
        follow_all = self.config.follow_nofollow
        page_nofollow = facts.nofollow and not follow_all
        # key -> (nofollow, kind, followable, spelling); the first occurrence names the
        # kind and the spelling (what the sitemap will list, never the sorted key).
        found: dict[str, tuple[bool, str, bool, str]] = {}
        key = self._key
        sorts = self.policy.order != "keep"  # else the key is the spelling
        facts_nofollow = facts.nofollow
        for url, link_nofollow, kind in facts.links:
            followable = kind in _FOLLOW_KINDS and (
                follow_all or not (link_nofollow or page_nofollow)
            )
            found.setdefault(
                key(url) if sorts and "&" in url else url,
                (link_nofollow or facts_nofollow, kind, followable, url),
            )
        if facts.canonical is not None:
            found.setdefault(key(facts.canonical), (False, "canonical", True, facts.canonical))
        for alt in facts.alternates:
            found.setdefault(key(alt.href), (False, "alternate", True, alt.href))
        self._admit(item, found)

    def _admit(
        self,
        item: Claimed,
        found: dict[str, tuple[bool, str, bool, str]],
        *,
        store_links: bool = True,
    ) -> None:
        """Judge the URLs a page links to (key -> nofollow, kind, followable, spelling).

        New ones and ones known only from an earlier run are judged and queued;
        ``HELD`` ones a followable link reaches are queued.  ``store_links`` records the
        links (a ``304`` page keeps the ones already stored).
        """
        depth = item.depth + 1
        found.pop(item.url, None)
        if not found:
            return
        store = self.store
        ids = store.lookup(list(found))
        trapped_before = self._trapped_before
        new = [  # stale: judged anew, as the last run judged it (its pattern limits)
            (spelling, followable, hit is not None and url not in trapped_before)
            for url, (_nofollow, _kind, followable, spelling) in found.items()
            if (hit := ids.get(url)) is None or hit[1] == UrlState.STALE
        ]
        if new:  # most pages link to no URL the crawl has not seen: nothing to judge
            rows: list[NewUrl] = []
            with self.traps.judging([spelling for spelling, _, _ in new]):
                for spelling, followable, before in new:
                    # Judged once, when first seen: trap counters must not count repeats.
                    decided = self._judge(spelling, depth, before)
                    if decided is not None:
                        rows.append(self._new(spelling, depth, item.id, UrlState.DONE, *decided))
                    elif not followable:
                        rows.append(
                            self._new(spelling, depth, item.id, UrlState.HELD, "nofollow-only")
                        )
                    else:
                        rows.append(self._new(spelling, depth, item.id))
            ids.update(store.add_urls(rows))
        held_to_queue: list[tuple[int, int]] = []
        # Plain (to_id, nofollow, kind) tuples: a LinkRow per link cost a Python call each.
        link_rows: list[tuple[int, bool, str]] = []
        held = UrlState.HELD
        for url, (nofollow, kind, followable, _spelling) in found.items():
            hit = ids.get(url)
            if hit is None:
                continue
            link_rows.append((hit[0], nofollow, kind))
            if followable and hit[1] == held:
                held_to_queue.append((hit[0], depth))
        if store_links:
            store.add_links(item.id, link_rows)
        if held_to_queue:
            store.requeue(held_to_queue)

    async def _seed_from_sitemaps(self, start: str) -> None:
        """Queue the URLs of the site's own sitemaps (found through robots.txt) at depth 1."""
        from sitemapkit.crawl.seed import sitemap_urls

        origin = origin_of(start)
        await self._polite.robots(origin)
        listed = self._polite.sitemaps.get(origin) or [origin + "/sitemap.xml"]
        batch: list[NewUrl] = []
        ua = self.config.user_agent
        async for url in sitemap_urls(listed, user_agent=ua, policy=self.spell_policy):
            decided = self._judge(url, 1)
            if decided is None:
                batch.append(self._new(url, 1, self._start_id))
            if len(batch) >= 500:
                self.store.add_urls(batch)
                self._checkpoint()
                batch.clear()
        if batch:
            self.store.add_urls(batch)
        self.store.commit()


#: The lastmod source of a date that is the start of the run that saw the content change.
CONTENT_CHANGE = "content-change"


def _later(lastmod: str, before: str | None) -> bool:
    """Whether ``lastmod`` is after ``before`` (no date before, or one that does not read:
    it is)."""
    if before is None:
        return True
    new, old = dates.parse(lastmod), dates.parse(before)
    return new is None or old is None or new > old


def _w3c_time(stamp: float) -> str:
    """A W3C datetime (UTC, seconds) for a run's start."""
    return datetime.fromtimestamp(int(stamp), UTC).isoformat().replace("+00:00", "Z")


def _conditional(item: Claimed) -> dict[str, str] | None:
    """The validators an earlier run stored for ``item``, as request headers."""
    if item.etag is None and item.last_modified is None:
        return None
    headers: dict[str, str] = {}
    if item.etag is not None:
        headers["If-None-Match"] = item.etag
    if item.last_modified is not None:
        headers["If-Modified-Since"] = item.last_modified
    return headers


def _links_capped(dropped: int) -> str:
    return (
        f"the page has more than {MAX_LINKS_PER_PAGE:,} links; the first {MAX_LINKS_PER_PAGE:,} "
        f"were read, {dropped:,} more link elements were not"
    )


def _lazy_render(config: CrawlConfig) -> bool:
    """Whether the renderer can wait for a page that needs it (``auto``, no thumbnails)."""
    return config.render == "auto" and not config.thumbnails


def _renderer(config: CrawlConfig) -> Renderer | None:
    """The renderer ``config.render`` asks for (``None`` for ``never``: no browser, no import)."""
    if config.render == "never" and not config.thumbnails:
        return None
    from sitemapkit.render import Renderer, RenderSettings

    return Renderer(
        RenderSettings(
            mode=config.render,
            timeout=config.render_timeout,
            concurrency=config.render_concurrency,
            thumbnails=config.thumbnails,
            optional=config.render_optional,
        )
    )


def sitemap_entries(
    store: CrawlStore, *, images: bool = False, omit_lastmod: Collection[str] = ()
) -> Iterator[UrlEntry]:
    """The crawl's sitemap as :class:`UrlEntry` values, in discovery order.

    ``omit_lastmod`` are build stamps (:func:`sitemapkit.crawl.stamp.build_stamp`): pages
    dated exactly one of them are written without a lastmod.
    """
    for row in store.sitemap_rows():
        yield UrlEntry(
            loc=row.url,
            lastmod=None if row.lastmod in omit_lastmod else row.lastmod,
            alternates=row.alternates,
            images=tuple(Image(loc) for loc in row.images) if images else (),
        )


async def crawl(
    config: CrawlConfig,
    store: CrawlStore,
    *,
    resume: bool = False,
    session: HttpClient | None = None,
    progress: Callable[[CrawlStats], None] | None = None,
) -> CrawlResult:
    """Crawl ``config.start_url`` into ``store`` (or continue the crawl it holds)."""
    return await Crawler(config, store, session=session, progress=progress).run(resume=resume)
