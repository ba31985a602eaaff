"""The :class:`CrawlStore` protocol: everything a crawl remembers, behind one small seam.

The engine never holds the frontier or the seen-set in Python containers: it
asks the store, so memory stays flat however large the site is, and a crawl
killed at any moment can be resumed from the store alone.  SQLite is the
default engine (:mod:`sitemapkit.store.sqlite`); another engine only has to
implement these methods (the contract tests in ``tests/store/test_contract.py``
are written against this protocol, parametrised over the implementations).
Nothing outside ``store/`` runs SQL or knows a schema: stores are opened by a
spec (a path or a URL) through :func:`sitemapkit.store.open_store`.  The rows a store
hands its readers other than the crawl (runs, ``--why``, the audit, IndexNow, a fleet's
robots.txt) are defined in :mod:`sitemapkit.store.rows`, which a crawl does not import.

URL states, as stored:

* ``QUEUED``   – discovered, waiting to be fetched;
* ``CLAIMED``  – handed to a worker; a crash leaves it here and ``--resume``
  puts it back in the queue (nothing fetched is ever lost, at worst refetched);
* ``DONE``     – decided: fetched, or refused without fetching (out of scope,
  robots, trap ...), with its reason;
* ``HELD``     – seen only through links we do not follow (reason ``nofollow-only``); a
  followed link to it later moves it to ``QUEUED``;
* ``STALE``    – decided in an earlier **run** and not yet reached in this one.  A new run
  (:meth:`CrawlStore.start_run`) turns every ``DONE`` URL ``STALE``, keeping what was learnt
  of it (validators for conditional requests, lastmod); reaching it again judges it anew
  (:meth:`CrawlStore.add_urls`); a run that finishes marks the ones never reached
  ``DONE`` with reason ``unlinked``: they leave the sitemap.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NamedTuple, Protocol

from sitemapkit.model import Alternate, PageRecord

if TYPE_CHECKING:
    from sitemapkit.store.rows import (
        AuditRow,
        Explanation,
        HostRobots,
        IndexNowChange,
        ListedFacts,
        ListedRow,
        RunRow,
        SubmissionRow,
    )

#: How a store is opened.  ``read``: an existing crawl, read-only and without the lock (it
#: may be read while a crawl writes it).  The others lock the store for this process until
#: ``close()`` and check it only once locked: ``open`` (create or continue), ``resume`` (an
#: existing crawl), ``new`` (nothing there yet), ``replace`` (throw away what is there).
OpenMode = Literal["read", "open", "resume", "new", "replace"]


class UrlState(enum.IntEnum):
    QUEUED = 0
    CLAIMED = 1
    DONE = 2
    HELD = 3
    STALE = 4


@dataclass(frozen=True, slots=True)
class RunFigures:
    """What one session of a run did (a run's figures are its sessions' added up).

    A session is one process's part of a run: a crawl, each resumption of it, each
    fleet worker.  Each adds its pages' figures to its own row with the commit that
    stores those pages (:meth:`CrawlStore.add_figures`), so what a session did is in
    the store as far as its pages are, however it ended.
    """

    pages: int = 0
    not_modified: int = 0
    bytes: int = 0


@dataclass(frozen=True, slots=True)
class UrlFacts:
    """What one URL looked like at the end of a run: the facts a change is made of.

    A store keeps these as a change log, one row per URL and run *only when a fact
    changed* (or the URL first appeared or went), so a re-crawl where nothing changed
    writes nothing; the state at run N is a URL's latest row at or before N.  Any two
    recorded runs can be compared that way.  ``run`` is the run that recorded these
    facts; ``gone`` says the run no longer reached the URL (reason ``unlinked``).
    """

    url: str
    run: int
    gone: bool
    status: int | None
    indexable: bool
    reason: str | None
    title: str | None
    canonical: str | None
    fingerprint: str | None
    lastmod: str | None


@dataclass(frozen=True, slots=True)
class NewUrl:
    """A URL found on a page (or given as a seed), before the store has seen it.

    ``url`` is the dedup key (the query sorted under ``--query sort``); ``loc`` is
    the site's own spelling when it differs: the URL fetched, shown and written.
    """

    url: str
    depth: int
    found_from: int | None
    state: UrlState = UrlState.QUEUED
    reason: str | None = None
    detail: str | None = None
    loc: str | None = None


@dataclass(frozen=True, slots=True)
class Claimed:
    """A frontier URL handed to a worker (``url`` the key, ``loc`` as for :class:`NewUrl`)."""

    id: int
    url: str
    depth: int
    loc: str | None = None
    #: The validators an earlier run stored (``ETag``, ``Last-Modified``): a re-crawl
    #: sends them, and a ``304`` keeps what that run learnt of the page.
    etag: str | None = None
    last_modified: str | None = None
    #: What the last fetch found: its content fingerprint and the lastmod it gave.
    fingerprint: str | None = None
    lastmod: str | None = None
    lastmod_source: str | None = None

    @property
    def spelling(self) -> str:
        """The URL as the site writes it: what is fetched and what the sitemap lists."""
        return self.url if self.loc is None else self.loc


@dataclass(frozen=True, slots=True)
class Thumbnail:
    """A small picture of a page's first screen (``crawl --thumbnails``)."""

    #: Its media type (``image/jpeg``).
    type: str
    image: bytes


@dataclass(slots=True)
class Outcome:
    """What happened to one URL: the row the inventory and the sitemap are made of."""

    status: int | None = None
    content_type: str | None = None
    title: str | None = None
    canonical: str | None = None
    indexable: bool = False
    reason: str | None = None
    detail: str | None = None
    lastmod: str | None = None
    lastmod_source: str | None = None
    bytes: int | None = None
    redirect_to: str | None = None
    outlinks: int = 0
    alternates: tuple[Alternate, ...] = ()
    images: tuple[str, ...] = ()
    fetched_at: float | None = None
    #: ``rendered``, ``render-timeout`` or ``render-failed``; ``None``: not rendered.
    render: str | None = None
    #: Why it was rendered (``always``, ``app-shell``, ``section-sample`` ...).
    render_why: str | None = None
    #: Links only the rendered page had (its raw HTML lacked them).
    rendered_links: tuple[str, ...] = ()
    #: ``(code, message)`` facts that do not change the fate (``links-capped`` ...).
    notes: tuple[tuple[str, str], ...] = ()
    #: The response's validators, sent back by the next run (conditional requests).
    etag: str | None = None
    last_modified: str | None = None
    #: The page's content fingerprint (:mod:`sitemapkit.crawl.significance`).
    fingerprint: str | None = None
    #: The first screen of an indexable page (``--thumbnails``), stored with the page.
    thumbnail: Thumbnail | None = None

    def update_values(self, url_id: int) -> tuple[object, ...]:
        """The values of ``finish``'s ``UPDATE urls``: :data:`UPDATED_COLUMNS` in order,
        then the fingerprint twice (compared with the stored one, then stored), the id.

        Why here: SQLite and PostgreSQL spell the statement in their own dialect, but
        which fact goes to which column is one list.
        """
        return (
            self.status,
            self.content_type,
            self.title,
            self.canonical,
            1 if self.indexable else 0,
            self.reason,
            self.detail,
            self.lastmod,
            self.lastmod_source,
            self.fetched_at,
            self.bytes,
            self.redirect_to,
            self.outlinks,
            self.etag,
            self.last_modified,
            self.fingerprint,
            self.fingerprint,
            url_id,
        )


#: The columns ``finish`` sets from :meth:`Outcome.update_values`, in its order (both
#: stores build their ``UPDATE urls`` from it).
UPDATED_COLUMNS = (
    "status",
    "content_type",
    "title",
    "canonical",
    "indexable",
    "reason",
    "detail",
    "lastmod",
    "lastmod_source",
    "fetched_at",
    "bytes",
    "redirect_to",
    "outlinks",
    "etag",
    "last_modified",
)


class LinkRow(NamedTuple):
    """One stored link of a page (a tuple: a page makes one per link it records).

    ``add_links`` takes plain ``(to_id, nofollow, kind)`` tuples too: the engine makes
    those, as a named tuple's constructor is a Python call per link."""

    to_id: int
    nofollow: bool
    kind: str


@dataclass(frozen=True, slots=True)
class SitemapRow:
    """One URL that goes into the sitemap, with what its entry carries."""

    url: str
    lastmod: str | None
    alternates: tuple[Alternate, ...] = ()
    images: tuple[str, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Fate:
    """Where one URL stands: enough for the engine to judge its start URL on resume."""

    state: UrlState
    status: int | None
    reason: str | None


class CrawlStore(Protocol):
    """The crawl's memory.  Writes may be buffered until :meth:`commit`.

    A store opened for writing is held by one process for the whole run (a lock
    that dies with the process); a store opened read-only may be read while a
    crawl writes it.  Failures of the engine underneath (disk full, I/O error,
    lost connection) are raised as :class:`~sitemapkit.errors.StoreError`; the
    caller then calls :meth:`rollback` and stops: the last committed state is what a
    ``--resume`` continues from.
    """

    #: Where the store is (a path or a URL without secrets), for messages.
    name: str

    def get_meta(self, key: str) -> str | None: ...
    def set_meta(self, key: str, value: str) -> None: ...

    def meta(self) -> dict[str, str]:
        """Every meta key and value (the crawl's start URL, config, state ...)."""
        ...

    def lookup(self, urls: Sequence[str]) -> dict[str, tuple[int, UrlState]]:
        """Id and state of the given URLs the store already knows.

        The id is exact, and so is whether the URL is ``HELD`` (what the engine acts
        on); ``QUEUED``/``CLAIMED``/``DONE`` may lag, since a store may answer repeated
        navigation links from a cache.  Use :meth:`fate` for the exact state.
        """
        ...

    def add_urls(self, urls: Sequence[NewUrl]) -> dict[str, tuple[int, UrlState]]:
        """Insert the URLs not yet known; return every given URL's id and state (as lookup).

        A URL known only from an earlier run (``STALE``) counts as not yet known: it takes
        the given state, depth and decision, and keeps what was fetched of it before.
        """
        ...

    def requeue(self, ids: Iterable[tuple[int, int]]) -> None:
        """Move ``HELD`` URLs to ``QUEUED`` at the given ``(id, depth)``."""
        ...

    def claim(self, limit: int, one_level: bool = False) -> list[Claimed]:
        """Hand out up to ``limit`` queued URLs, shallowest first, marking them ``CLAIMED``
        (``one_level``: none deeper than a URL claimed and not through, see
        :mod:`~sitemapkit.store.claims`)."""
        ...

    def claim_url(
        self, url: str, depth: int, found_from: int | None, loc: str | None = None
    ) -> Claimed | None:
        """Claim one URL (a redirect target, spelled ``loc``) unless this run knows it."""
        ...

    def unchanged(self, url_id: int, fetched_at: float) -> bool:
        """A ``304``: the page is ``DONE`` with every fact its last fetch stored; indexable?"""
        ...

    def page_links(self, url_id: int) -> list[tuple[str, str, bool, str]]:
        """The links the page's last fetch stored: ``(key, spelling, nofollow, kind)``."""
        ...

    def start_run(self, started_at: float) -> int:
        """Begin a new run (history kept): every ``DONE`` URL turns ``STALE``; its id.

        A fleet's trap counters move aside for the new run to judge against
        (:meth:`stored_trap_counts`).
        """
        ...

    def tally_traps(self, keys: Sequence[tuple[str, str]]) -> None:
        """Add one to each ``(table, key)`` trap counter with the next commit.

        Why in the store, in the commit that stores the URLs they count: a crawl killed
        and resumed must judge on from the counts of the URLs it kept, or it admits
        again what the limit had stopped (a calendar's extra months).  A fleet's shared
        guard writes its counts at once instead (:meth:`FleetStore.count_traps`).
        """
        ...

    def stored_trap_counts(self, earlier: bool = False) -> tuple[dict[str, int], dict[str, int]]:
        """This run's trap counters (patterns, facets), or the last run's (``earlier``),
        which :meth:`start_run` moved aside for a re-crawl to judge against."""
        ...

    def trapped_before(self) -> set[str]:
        """Keys of the ``STALE`` URLs the last run stopped by a pattern's limit.

        A re-crawl keeps them stopped while the pattern is as full as it was, and keeps
        the ones it admitted, whatever order it meets them in
        (:meth:`~sitemapkit.crawl.traps.TrapGuard.check`).
        """
        ...

    def add_figures(self, figures: RunFigures) -> None:
        """Add a page's figures to this session's part of the current run.

        Written with the next commit, in the same transaction as the page's own
        writes: a session killed between commits leaves exactly the figures of the
        pages it stored (the others go back to the queue and are counted by whoever
        fetches them again).  One row per session, so a fleet's workers never wait
        for each other's figures.
        """
        ...

    def end_session(self) -> None:
        """This session closes (written with the next commit): it did not die mid-run.

        A session that wrote figures and never closed is counted in
        :attr:`~sitemapkit.store.rows.RunRow.unended`.
        """
        ...

    def end_run(self, state: str, ended_at: float) -> None:
        """Record how the current run ended; a ``finished`` one marks ``STALE`` URLs gone.

        It also writes the run's change records (:class:`UrlFacts`): a row for each
        decided URL whose facts differ from its latest row (a resumed run updates its
        own rows), none for the unchanged ones.
        """
        ...

    def runs(self) -> list[RunRow]:
        """Every run of this store, oldest first."""
        ...

    def changes_between(
        self, run_a: int, run_b: int
    ) -> Iterator[tuple[str, UrlFacts | None, UrlFacts | None]]:
        """``(url, facts at run_a, facts at run_b)`` for every URL with a change record
        after the earlier run up to the later one (``None``: not seen by then).

        Only URLs that changed are read, so comparing two runs of a 10,000-page site
        where nothing changed reads nothing.  Streamed, in discovery order.
        """
        ...

    def url_history(self, url: str) -> list[UrlFacts]:
        """The change records of one URL (its key or spelling), oldest first: the run that
        first saw it, each run that changed one of its facts, the run it went (``--why``)."""
        ...

    def facts_at(self, run: int) -> Iterator[UrlFacts]:
        """Every URL as it stood at the end of ``run`` (gone ones left out), streamed in
        code-point order of the URL (``COLLATE "C"`` on PostgreSQL) so that two stores
        can be compared by a merge."""
        ...

    def run_started(self) -> float | None:
        """When the current (last) run started."""
        ...

    def finish(self, url_id: int, outcome: Outcome) -> None: ...

    def decide(self, url_id: int, reason: str, detail: str | None) -> None:
        """Mark a URL ``DONE`` and not indexable, keeping what was fetched (status, type)."""
        ...

    def fate(self, url_id: int) -> Fate | None:
        """State, status and reason of one URL (``None`` when the id is unknown)."""
        ...

    def add_links(self, from_id: int, links: Sequence[tuple[int, bool, str]]) -> None: ...

    def add_redirect(self, from_id: int, hop: int, to_url: str, status: int) -> None: ...

    def add_chain_hop(self, url_id: int, start_id: int, hop: int) -> None:
        """Record that the redirect chain from ``start_id`` claimed ``url_id`` as hop ``hop``.

        Written in the batch that claims the hop (1: the first redirect's target), so the
        chain can be taken up again from the store alone (:meth:`chain_before`).
        """
        ...

    def chain_before(self, url_id: int) -> list[Claimed]:
        """The hops a redirect chain followed before it claimed ``url_id``, first hop first.

        Empty when ``url_id`` was not claimed by a chain in this run.  A hop found
        again in the queue (its process died waiting for it) goes on with its chain.
        """
        ...

    def release_claims(self, now: float | None = None) -> int:
        """Put the ``CLAIMED`` URLs back in the queue (resume after a crash); how many.

        Every one, unless a fleet's live worker (leases unexpired at ``now``, default:
        the clock) holds it: that worker is still fetching it.
        """
        ...

    def counts(self) -> dict[str, int]:
        """``queued``, ``claimed``, ``done``, ``held``, ``fetched``, ``indexable``, ``errors``,
        and ``seen``: every URL (the rows :meth:`page_records` yields)."""
        ...

    def queued(self) -> int:
        """URLs waiting in the frontier."""
        ...

    def reasons(self) -> dict[str, int]:
        """URLs not in the sitemap, counted by reason (unfinished ones as ``not-crawled``)."""
        ...

    def sitemap_rows(self) -> Iterator[SitemapRow]: ...

    def add_notes(self, notes: Sequence[tuple[str, str, str]]) -> None:
        """Record ``(url, code, message)`` notes on pages named by their URL or spelling."""
        ...

    def note_counts(self) -> dict[str, tuple[int, str]]:
        """Pages noted per code, with the first such page's URL (for the summary)."""
        ...

    def noted(self, code: str) -> Iterator[tuple[str, str]]:
        """``(url, message)`` of every page noted with ``code``, in note order (streamed)."""
        ...

    def page_records(self) -> Iterator[PageRecord]:
        """Every URL seen, in discovery order, streamed (the inventory and the visual map)."""
        ...

    def page_urls(self) -> Iterator[tuple[int, str, bool]]:
        """``(id, URL, out of scope)`` of every URL in :meth:`page_records`' order, spelling
        and verdict (``reason == "out-of-scope"``; a true value, 1 in SQLite), streamed:
        the app's first screen of a map counts a 100,000-page site's sections without
        making a record per URL."""
        ...

    def explain(self, url: str) -> Explanation | None:
        """Everything known about ``url`` (``--why``); ``None`` when never seen."""
        ...

    def indexnow_pending(self, after: int, limit: int) -> list[IndexNowChange]:
        """Up to ``limit`` URLs (ids above ``after``, in id order) added, changed or removed
        since their last accepted IndexNow submission.

        Paged rather than streamed, so a caller may record submissions between pages.
        Ask only after a finished run: mid-run, pages not yet reached are not decided.
        """
        ...

    def record_submission(self, row: SubmissionRow, sent: Sequence[IndexNowChange]) -> None:
        """Log one IndexNow request; when ``row.accepted``, ``sent`` are no longer pending."""
        ...

    def submissions(self) -> list[SubmissionRow]:
        """Every IndexNow request logged, oldest first."""
        ...

    def fetched_count(self, since: float) -> int:
        """URLs fetched at or after the time ``since`` (a run's pages so far, for pages/s)."""
        ...

    def fetched_ids(self, after: float) -> list[tuple[int, float]]:
        """Id and fetch time of every URL fetched after the time ``after``, oldest first.

        For the app's live map.  Fetch times are stamped before the batch commits, so a
        page may appear a little after later-stamped ones: callers look back a while
        and skip the ids they already have.
        """
        ...

    def records_by_id(self, ids: Sequence[int]) -> list[PageRecord]:
        """The :meth:`page_records` rows of ``ids`` (unknown ids skipped), in that order."""
        ...

    def thumbnails(self) -> Iterator[tuple[str, Thumbnail]]:
        """Every stored thumbnail with its page's URL (as :meth:`page_records` spells it).

        Streamed: a thousand first screens are megabytes.  A page fetched again in a
        later run loses its thumbnail with its other facts (a ``304`` keeps it).
        """
        ...

    def commit(self) -> None: ...

    def rollback(self) -> None:
        """Drop the writes since the last commit (after a failed write)."""
        ...

    def close(self) -> None:
        """Commit what is pending, then release the store (and its lock)."""
        ...


class AuditStore(CrawlStore, Protocol):
    """What ``sitemapkit audit`` keeps beside a crawl: the listed URLs and the findings.

    Kept in the store, not in Python sets, so an audit of a million listed URLs
    runs in the memory of a crawl of the same site.
    """

    def clear_audit(self) -> None:
        """Forget the listed URLs and findings of an earlier audit of this store."""
        ...

    def add_listed(self, rows: Sequence[ListedRow]) -> None: ...

    def listed_unknown(self, limit: int) -> list[str]:
        """Up to ``limit`` listed keys the crawl never decided (unseen or only ``HELD``)."""
        ...

    def listed_facts(self) -> Iterator[ListedFacts]:
        """Every listed URL with the crawl's facts, in listing order (streamed)."""
        ...

    def listed_duplicates(self) -> Iterator[tuple[str, list[tuple[str, int | None]]]]:
        """Keys listed as a loc more than once, with up to 10 places (sitemap, line) each."""
        ...

    def unlisted_indexable(self) -> Iterator[tuple[str, int]]:
        """Indexable crawled pages that another page links to but no sitemap lists."""
        ...

    def redirect_hops(self, url_id: int) -> list[tuple[str, int]]:
        """The redirect chain recorded from ``url_id``: (target, status) per hop."""
        ...

    def add_findings(self, rows: Sequence[AuditRow]) -> None: ...

    def finding_counts(self) -> dict[str, int]:
        """Findings per code."""
        ...

    def findings(self, code: str | None = None, limit: int | None = None) -> Iterator[AuditRow]:
        """Stored findings (of one code), in the order they were added."""
        ...


class FleetStore(CrawlStore, Protocol):
    """A crawl store several worker processes share (``sitemapkit worker --db``).

    Hosts, not URLs, are leased (Nutch and StormCrawler partition the frontier by
    host for the same reason): a host has ``per_host`` *slots*, each held by at most
    one live worker, and a worker fetches from a host only through slots it holds,
    so ``--per-host`` counts connections across the whole fleet.  A worker's leases
    live as long as its heartbeat (:meth:`heartbeat` pushes ``expires`` forward); a
    worker that stops beating (``kill -9``, a machine off the network) is reaped by
    any other: its slots are freed and the URLs it had claimed go back to the queue.
    Pacing (``--rate``, ``Crawl-delay``) is one ``last_start`` per host row, taken by
    compare-and-set, and robots.txt is fetched once per host for the fleet and kept
    in the host row.  Trap-pattern counters are shared too, so a pattern's limit
    holds for the crawl, not per process.  Every method commits its own work when
    the store is shared (short transactions: the writers take turns).
    """

    def join_fleet(self, name: str, now: float, ttl: float) -> int:
        """Register a live worker (``name`` says where it runs); its id."""
        ...

    def holds_turn(self) -> bool:
        """Whether this worker's open transaction holds what the others wait for.

        SQLite: its write lock (any write takes it).  PostgreSQL: the fleet's write
        turn, taken only by a step that meets new URLs or requeues a ``HELD`` one.  A
        worker commits at once when this is true; otherwise its writes (its own
        pages' rows and links) wait for the next commit tick, as a lone crawl's do.
        """
        ...

    def split_turn(self, keys: Callable[[str], Iterable[str]]) -> None:
        """Split the write turn by ``keys(url)``: steps whose new URLs share no key run at once.

        The fleet passes the trap counters a URL is judged by (its pattern and facet),
        so two steps that could add the same URL or move the same counter still take
        turns, and the others do not wait.  A key ``"TABLE KEY"`` (``pattern ...``,
        ``facet ...``) names the counter ``(TABLE, KEY)`` of :meth:`trap_counts`: held,
        no other worker moves it, so PostgreSQL reads it with the lookup that takes the
        key.  SQLite: nothing (its write lock is one).
        """
        ...

    def heartbeat(self, worker: int, now: float, ttl: float) -> bool:
        """Renew the worker's leases until ``now + ttl``; False when it was reaped meanwhile."""
        ...

    def reap_workers(self, now: float) -> int:
        """Release the slots and claims of workers whose leases expired; how many URLs."""
        ...

    def live_workers(self, now: float) -> int:
        """Workers whose leases have not expired."""
        ...

    def leave_fleet(self, worker: int) -> int:
        """Free the worker's slots, put its claimed URLs back in the queue; how many."""
        ...

    def hosts_with_work(self, limit: int) -> list[str]:
        """Up to ``limit`` origins with queued URLs, in name order."""
        ...

    def lease_slots(self, worker: int, origin: str, per_host: int, want: int, now: float) -> int:
        """Hold ``want`` of ``origin``'s ``per_host`` slots if free (fewer if not); how many held.

        Asking for fewer than held gives the rest back; ``0`` gives the host up.
        """
        ...

    def claim_host(
        self,
        worker: int,
        origin: str,
        limit: int,
        cap: int | None = None,
        one_level: bool = False,
    ) -> list[Claimed]:
        """:meth:`CrawlStore.claim` restricted to one origin, the claims marked as ``worker``'s
        (``one_level`` across the whole fleet's claims).

        ``cap`` (``--max-pages``): the fleet takes at most ``cap`` URLs from the frontier
        in this session (:meth:`taken`), counted in the claim's own transaction, so no
        two workers can both take the last ones.  Without a cap nothing is counted (on
        PostgreSQL the count's row lock would make every claim wait for the others).
        """
        ...

    def taken(self) -> int:
        """URLs the fleet took from the frontier since the crawl (re)started.

        Claims given back (a worker that leaves, or is reaped, with URLs it never
        started) are taken off again: they are taken once, by whoever claims them next.
        """
        ...

    def restart_taken(self) -> None:
        """Count :meth:`taken` from zero: a crawl starts or resumes (in the batch)."""
        ...

    def host_robots(self, origin: str) -> HostRobots | None:
        """The robots.txt the fleet fetched for ``origin``, if any."""
        ...

    def take_robots_fetch(self, worker: int, origin: str, now: float, stale_before: float) -> bool:
        """True when ``worker`` is now the one to fetch ``origin``'s robots.txt.

        Only one live worker fetches it; the answer is stored by :meth:`set_host_robots`.
        An answer older than ``stale_before`` that asked to be retried is fetched again.
        """
        ...

    def set_host_robots(self, origin: str, robots: HostRobots) -> None: ...

    def pace(self, origin: str, now: float, interval: float) -> float:
        """Start a request to ``origin`` now if ``interval`` has passed since the last one.

        Returns 0.0 when the start was recorded, else the seconds still to wait.
        """
        ...

    def trap_counts(self, keys: Sequence[tuple[str, str]]) -> list[int]:
        """The shared counters of ``(table, key)`` trap patterns (0 when never counted)."""
        ...

    def count_traps(self, keys: Sequence[tuple[str, str]]) -> None:
        """Add one to each ``(table, key)`` trap counter."""
        ...
