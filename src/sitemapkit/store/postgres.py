"""The PostgreSQL crawl store (``--db postgresql://...``): the same crawl, on a server.

Why this shape (the SQLite store's reasons hold; these are the differences):

* **Same answers as SQLite.**  Tables mirror :mod:`sitemapkit.store.sqlite` and the
  read helpers that are plain SQL are shared with it (through :class:`Qmark`); the
  contract tests run on both.
* **Round trips, not syncs, are the cost.**  Every call is a network round trip, so
  each method is one statement over arrays (``unnest``) where SQLite runs a statement
  per row, and :meth:`PostgresStore.finish` sends its statements in one pipeline.
* **The frontier is claimed with** ``FOR UPDATE SKIP LOCKED``: claimed rows stay
  locked by this transaction until the next commit, so workers sharing the store
  never hand out one URL twice.
* **One writer per crawl** is a session advisory lock on the crawl's schema: it dies
  with the connection (``kill -9``, a machine off the network), like SQLite's ``flock``.
* **A lost connection costs nothing committed and nothing pending.**  Every write of
  the open batch is kept as a replayable step (with the ids the server handed out, so
  the engine's ids stay true); after a reconnect (with backoff, announced on stderr)
  the lock is taken again, the batch replayed, and the failed call retried.  Only a
  connection lost *during* ``COMMIT`` is an error (whether it committed is unknown):
  the crawl stops and ``--resume`` continues.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from sitemapkit.errors import StoreBusyError, StoreError, StoreWriteError
from sitemapkit.fingerprints import SeenUrls
from sitemapkit.model import Alternate, PageRecord
from sitemapkit.store import chain_sql, crawl_reads, fleet_sql, run_end
from sitemapkit.store import sqlite_changes as changes
from sitemapkit.store import sqlite_indexnow as indexnow
from sitemapkit.store.base import (
    Claimed,
    Fate,
    NewUrl,
    OpenMode,
    Outcome,
    RunFigures,
    SitemapRow,
    Thumbnail,
    UrlFacts,
    UrlState,
)
from sitemapkit.store.claims import claim_columns, claimed, level_clause
from sitemapkit.store.postgres_arrays import int_array, nullable_int_array, text_array
from sitemapkit.store.postgres_audit import PgAuditTables
from sitemapkit.store.postgres_conn import (
    PgSpec,
    Qmark,
    connect,
    is_connection_lost,
    parse_spec,
    pg_guard,
    pg_guard_stream,
    pg_params,
    server_rows,
)
from sitemapkit.store.postgres_fleet import PgFleetTables
from sitemapkit.store.postgres_pages import PAGES_MAX, REPLAY_URLS, PageWrites, url_columns
from sitemapkit.store.postgres_schema import (
    SCHEMA_VERSION,
    create_schema,
    migrate,
    schema_state,
    schema_version,
)
from sitemapkit.store.rows import Explanation, IndexNowChange, RunRow, SubmissionRow
from sitemapkit.store.sessions import ADD_SQL, Session
from sitemapkit.store.sqlite import (
    APPLICATION_ID,
    PAGE_URLS_SQL,
    REJUDGE_STALE,
    TRAPPED_BEFORE_SQL,
)
from sitemapkit.urls import origin_of

if TYPE_CHECKING:
    import psycopg

_CACHE_MAX = 50_000
#: URLs a one-writer store holds in :attr:`PostgresStore._seen` (about 16 bytes each).
_SEEN_MAX = 2_000_000
#: The trap counters' tables a turn key may name (``"pattern ..."``, ``"facet ..."``).
_COUNTER_TABLES = ("pattern", "facet")
#: New URL ids taken from the sequence at a time by a store with one writer.
_ID_BLOCK = 1000

#: Writes: a failure (other than a lost connection, which is recovered) ends the crawl.
_writes = pg_guard("write the crawl state", StoreWriteError)
_reads = pg_guard("read the crawl state", StoreError)
_streams = pg_guard_stream("read the crawl state", StoreError)

#: One step of the open batch, run again on a new connection after a lost one.
Step = Callable[["psycopg.Connection"], object]


#: Hand out the shallowest queued URLs; rows another session holds are skipped, not waited
#: for, so claimers sharing one frontier never block each other nor get one URL twice.
def claim_sql(one_level: bool) -> str:
    """The claim of queued URLs, shallowest first (one level, when asked)."""
    return (
        "UPDATE urls u SET state = 1 FROM (SELECT id FROM urls WHERE state = 0"
        f"{level_clause(one_level)} ORDER BY depth, id LIMIT %s FOR UPDATE SKIP LOCKED) c "
        f"WHERE u.id = c.id RETURNING {claim_columns('u')}"
    )


#: A new URL's id: the one given (a one-writer store's block keeps discovery order), or
#: the sequence's next.
_NEXT_ID = "COALESCE(v.id, nextval(pg_get_serial_sequence('urls', 'id')))"
#: Insert (or judge anew, when ``STALE``) the given URLs and answer every one's id and
#: state in the same statement: the rows written, then the others as they were (the
#: outer query's snapshot does not see the insert).  One round trip per page's new links.
_ADD_URLS = (
    "WITH w AS (INSERT INTO urls(id, url, depth, found_from, state, reason, detail, loc, "
    "origin) "
    f"SELECT {_NEXT_ID}, v.url, v.depth, v.found_from, v.state, v.reason, v.detail, v.loc, "
    "v.origin FROM unnest(%s::bigint[], %s::text[], %s::int[], %s::bigint[], %s::smallint[], "
    "%s::text[], %s::text[], %s::text[], %s::text[]) "
    "AS v(id, url, depth, found_from, state, reason, detail, loc, origin) "
    + REJUDGE_STALE
    + " RETURNING url, id, state) "
    "SELECT url, id, state, true FROM w UNION ALL "
    "SELECT url, id, state, false FROM urls WHERE url = ANY(%s::text[]) "
    "AND url NOT IN (SELECT url FROM w)"
)
_RECORD_SELECT = (
    "SELECT COALESCE(u.loc, u.url), u.status, u.depth, u.title, u.canonical, u.indexable, "
    "u.reason, (SELECT COUNT(DISTINCT l.from_id) FROM links l WHERE l.to_id = u.id), "
    "u.outlinks, u.lastmod, u.lastmod_source, u.content_type, u.redirect_to, u.state, "
    "u.detail, COALESCE(f.loc, f.url), r.status, r.why, r.links, "
    "(SELECT string_agg(n.code || ': ' || n.message, chr(10) ORDER BY n.id) FROM notes n "
    "WHERE n.page_id = u.id) "
)
_RECORD_FROM = (
    "FROM urls u LEFT JOIN urls f ON f.id = u.found_from LEFT JOIN renders r ON r.page_id = u.id"
)
_RECORD_SQL = _RECORD_SELECT + _RECORD_FROM


def _lock_key(schema: str) -> tuple[int, str]:
    """The advisory lock of a crawl: our application id and the schema's name."""
    return APPLICATION_ID, schema


class PostgresStore(PgAuditTables, PgFleetTables):
    """:class:`~sitemapkit.store.base.CrawlStore` and ``AuditStore`` on PostgreSQL.

    ``spec`` is ``postgresql://[user[:password]@]host[:port]/dbname[?schema=NAME]``;
    ``mode`` is an :data:`~sitemapkit.store.base.OpenMode` and means what it means
    for SQLite, with the crawl's schema in the place of the file.
    """

    def __init__(
        self, spec: str | PgSpec, *, mode: OpenMode = "open", shared: bool = False
    ) -> None:
        self.spec = parse_spec(spec) if isinstance(spec, str) else spec
        self.name = self.spec.name
        self._writer = mode != "read"
        #: Written by several processes at once (a fleet): no one-writer lock; the
        #: frontier's ``SKIP LOCKED`` claims keep them apart.
        self._shared = shared
        #: The writes of the open transaction, replayable; the first ``_sent`` are on the server.
        self._batch: list[Step] = []
        self._sent = 0
        #: Pages' writes kept to go as one statement per table (sealed into the batch
        #: before anything else is written or read; see :mod:`.postgres_pages`).
        self._pages = PageWrites()
        #: The batch up to here holds sealed page writes of earlier calls: a failed call's
        #: replay drops only what came after it (see :meth:`recover`).
        self._sealed = 0
        #: The pipeline the writes are sent into (its context and itself), open until the
        #: raw connection is needed (:meth:`_now`).
        self._pipe: tuple[AbstractContextManager[Any], psycopg.Pipeline] | None = None
        #: Shared: this transaction holds the fleet's turn (see :meth:`lookup`).
        self._turn = False
        #: Split turns (:meth:`split_turn`): the keys a URL's step locks; the ones held.
        self._turn_keys: Callable[[str], Iterable[str]] | None = None
        self._held: set[str] = set()
        #: Trap counters read under the keys held (no other worker moves them until
        #: the commit), kept current with this transaction's counts.
        self._counts: dict[tuple[str, str], int] = {}
        self._cache: dict[str, tuple[int, UrlState]] = {}
        #: URLs a lookup did not find (one writer: still absent until this store adds them).
        self._absent: set[str] = set()
        #: Ids taken from the sequence, not yet given (one writer adds without waiting).
        self._ids: list[int] = []
        #: One writer: every URL the table holds (a superset), so a URL not in it is
        #: known absent without asking (see :meth:`_select`); ``None``: ask.  Read from
        #: the table at the first lookup (``_seen_due``): a store opened to audit or
        #: write a set never needs it.
        self._seen: SeenUrls | None = None
        self._seen_due = self._writer and not shared
        #: This process's figures for the run, written with each commit.
        self._session = Session()
        #: Trap counts the crawl took since the last commit (:meth:`tally_traps`).
        self._tally: list[tuple[str, str]] = []
        self._closed = False
        #: Why the connection is gone for good: the reconnect's backoff ran out.  Every
        #: later call fails with it at once instead of running the backoff again.
        self._gone: str | None = None
        self._conn = connect(self.spec, autocommit=True)
        try:
            if self._writer:
                self._take_lock()
                self._prepare(mode)
                self._conn.autocommit = False
            else:
                self._check_readable()
        except BaseException:
            self._conn.close()
            raise
        self._recrawl = self._run_count() > 1

    # -- opening ------------------------------------------------------------------
    def _take_lock(self) -> None:
        """One writer per crawl (exclusive), or any number of fleet workers (shared)."""
        how = "pg_try_advisory_lock_shared" if self._shared else "pg_try_advisory_lock"
        row = self._conn.execute(
            f"SELECT {how}(%s, hashtext(%s))", _lock_key(self.spec.schema)
        ).fetchone()
        if row is None or not row[0]:
            raise StoreBusyError(
                f"{self.name}: in use by another sitemapkit process; "
                "wait for it to finish or use another --db / -o"
            )

    def _prepare(self, mode: OpenMode) -> None:
        """Create, check, replace and migrate the crawl's schema as ``mode`` says (locked).

        One transaction, serialised by a transaction lock, so fleet workers starting at
        once create and migrate the schema exactly once.
        """
        schema = self.spec.schema
        conn = self._conn
        with conn.transaction():
            conn.execute(
                "SELECT pg_advisory_xact_lock(%s, hashtext(%s))",
                (APPLICATION_ID + 1, schema),
            )
            exists, ours = schema_state(conn, schema)
            if exists and not ours:
                raise StoreError(
                    f"{self.name}: schema {schema} exists and is not a sitemapkit crawl"
                )
            if mode == "new" and ours:
                raise StoreError(
                    f"{self.name} already exists: add --resume to continue it, or pick another --db"
                )
            if mode == "resume" and not ours:
                raise StoreError(f"{self.name} is not a crawl database to resume")
            if mode == "replace" and ours:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
                ours = False
            if not ours:
                create_schema(conn, schema)
            migrate(conn, self.name)

    def _check_readable(self) -> None:
        _exists, ours = schema_state(self._conn, self.spec.schema)
        if not ours:
            raise StoreError(f"{self.name}: not a sitemapkit crawl database")
        version = schema_version(self._conn)
        if version > SCHEMA_VERSION:
            migrate(self._conn, self.name)  # raises the one-line refusal
        if version < SCHEMA_VERSION:  # an older crawl: a writer brings it up to date first
            PostgresStore(self.spec, mode="resume").close()
        self._conn.execute("SET default_transaction_read_only = on")

    def _seen_set(self) -> SeenUrls | None:
        """:attr:`_seen`, read from the table first if it is due."""
        if self._seen_due:
            self._seen = self._load_seen()
            self._seen_due = False
        return self._seen

    def _load_seen(self) -> SeenUrls | None:
        """Every URL of the crawl, as :attr:`_seen` holds them (``None``: too many to hold).

        Why: a page's links that are neither in the cache nor in the table were one
        round trip each page (half the JDK docs' pages), the event loop waiting for
        the server to say "not there".  The lock says no other process adds URLs, so
        a URL this set lacks is absent.  A fresh crawl reads nothing here; a re-crawl
        reads its URLs once.  The writes sent so far are in the table it reads.
        """
        seen = SeenUrls()
        for (url,) in server_rows(self._now(), "SELECT url FROM urls LIMIT %s", (_SEEN_MAX + 1,)):
            seen.add(url)
        return seen if seen.count <= _SEEN_MAX else None

    def _saw(self, urls: Iterable[str]) -> None:
        """Remember URLs about to be inserted (a rollback leaves them: a superset is safe)."""
        seen = self._seen
        if seen is None or self._seen_due:  # not read yet: the table will say
            return
        for url in urls:
            seen.add(url)
        if seen.count > _SEEN_MAX:
            self._seen = None  # past what is worth holding: ask the server again

    @_reads
    def _run_count(self) -> int:
        row = self._conn.execute("SELECT COUNT(*) FROM runs").fetchone()
        return 0 if row is None else int(row[0])

    # -- the replayable batch -----------------------------------------------------
    def checkpoint(self) -> int:
        return len(self._batch)

    def recover(self, exc: BaseException, checkpoint: int) -> bool:
        """After a lost connection: reconnect, relock, replay the batch; False otherwise."""
        if self._closed or not is_connection_lost(exc):
            return False
        self._abandon_pipe()
        with contextlib.suppress(Exception):
            self._conn.close()
        # The failed call runs again from its start; page writes kept before it and
        # sealed during it stay (they were not its own).
        del self._batch[max(checkpoint, self._sealed) :]
        self._turn = False  # taken again if needed (the lock is re-entrant)
        self._held.clear()
        self._counts.clear()
        if self._gone is None:
            try:
                self._conn = connect(self.spec, autocommit=True)
            except StoreError as failed:
                self._gone = str(failed)
        if self._gone is not None:
            # What was committed stays (resume continues from it).  Once: the crawl's
            # cleanup (claims given back, state saved, close) made one call after
            # another, each running the whole backoff again (six tries, 31.5 s each).
            raise StoreWriteError(self._gone)
        if not self._writer:
            self._conn.execute("SET default_transaction_read_only = on")
            return True
        self._take_lock()
        self._conn.autocommit = False
        self._sent = 0
        self._now()
        return True

    def _write(self, step: Step) -> None:
        """Send ``step`` now without waiting for its answer (and keep it for a replay).

        Why at once: the writes go into a pipeline that stays open (a lookup, a claim
        or a commit waits for the answers so far, in one round trip, and leaves it
        open), so the server runs a page's writes while the crawl fetches and parses
        the next pages.  Kept until the next round trip instead, they were run while
        the event loop waited: on the JDK docs most of the time a crawl on PostgreSQL
        spent waiting for its server.  Only a read on the raw connection (:meth:`_now`)
        leaves the pipeline.
        """
        self._seal()  # the pages' writes kept so far come first
        self._batch.append(step)
        self._push()

    def _push(self) -> None:
        """:meth:`_send`, leaving the pipeline on a failure."""
        import psycopg

        try:
            self._send()
        except psycopg.Error:
            self._abandon_pipe()
            raise

    def _keep(self, add: Callable[[PageWrites], bool]) -> None:
        """Keep a page's write with the others kept (sent with them, one statement a
        table); what is kept is sent first when it is full or ``add`` would change its
        meaning.  Sent before this call's write is kept: a replay never holds it twice."""
        if len(self._pages) >= PAGES_MAX or not add(self._pages):
            self._seal()
            self._push()
            if not add(self._pages):
                raise AssertionError("a write refused by an empty batch")  # pragma: no cover

    def _seal(self) -> None:
        """The kept pages' writes, as one step of the batch (not sent yet)."""
        if len(self._pages):
            self._batch.append(self._pages.step())
            self._sealed = len(self._batch)

    def _send(self) -> None:
        """Send the kept writes not yet sent into the open pipeline (opened if need be)."""
        self._seal()
        if self._sent == len(self._batch):
            return
        if self._pipe is None:
            entered = self._conn.pipeline()
            self._pipe = (entered, entered.__enter__())
        for step in self._batch[self._sent :]:
            self._sent += 1  # counted first: a step that fails is not sent again
            step(self._conn)

    def _answer(self) -> None:
        """Wait for the answers to everything sent; the pipeline stays open (one round trip)."""
        if self._pipe is not None:
            self._pipe[1].sync()

    def _leave(self) -> None:
        """Leave the open pipeline, every answer received (a refusal raises here)."""
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            pipe[0].__exit__(None, None, None)

    def _abandon_pipe(self) -> None:
        """Leave the open pipeline after a failure (its answers no longer matter)."""
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            with contextlib.suppress(Exception):
                pipe[0].__exit__(None, None, None)

    def _write_now(self, step: Step) -> Any:
        """Run ``step`` now (its result is needed) and keep it for a replay."""
        result = step(self._now())
        self._sent_as(step)
        return result

    def _sent_as(self, replay: Step) -> None:
        """Record a write just run on the connection, as ``replay`` will run it again."""
        self._batch.append(replay)
        self._sent = len(self._batch)

    def _now(self) -> psycopg.Connection:
        """The connection, every kept write sent and answered (one round trip at most).

        A kept write the server refuses is a :class:`StoreWriteError` (a lost
        connection stays a ``psycopg`` error, for the guard to recover).
        """
        if self._pipe is not None or self._sent < len(self._batch) or len(self._pages):
            import psycopg

            try:
                self._send()
                self._leave()
            except psycopg.Error as exc:
                self._abandon_pipe()
                if is_connection_lost(exc):
                    raise
                raise StoreWriteError(f"{self.name}: cannot write the crawl state: {exc}") from exc
        return self._conn

    def _ask(
        self, sql: str, args: Sequence[object] = (), *, prepare: bool | None = False
    ) -> list[tuple[Any, ...]]:
        """The rows of ``sql`` (see :meth:`_ask_all`)."""
        return self._ask_all([(sql, args)], prepare=prepare)[0]

    def _ask_all(
        self, queries: Sequence[tuple[str, Sequence[object]]], *, prepare: bool | None = False
    ) -> list[list[tuple[Any, ...]]]:
        """The rows of ``sql``, sent after the kept writes; one round trip.

        The query joins the open pipeline (the writes already sent) and the pipeline's
        end is the only wait, so a crawl's page costs one wait on the server at most.

        Planned for its arguments every time (``prepare=False``, unless told): these
        are the frontier's reads (lookups, adds), first asked of a nearly empty table
        that has no statistics yet.  A prepared statement's cached generic plan made
        then is a sequential scan, kept as the table grows: on the JDK docs every
        lookup read the whole ``urls`` table (0.96 ms each, 4.8 s of a crawl's 8.8 s
        of server time).  Planning costs tens of microseconds.
        """
        import psycopg

        wrote = self._pipe is not None or self._sent < len(self._batch) or len(self._pages) > 0
        try:
            self._send()
            curs = [self._conn.execute(sql, args, prepare=prepare) for sql, args in queries]
            self._answer()
        except psycopg.Error as exc:
            self._abandon_pipe()
            if is_connection_lost(exc) or not wrote:
                raise
            raise StoreWriteError(f"{self.name}: cannot write the crawl state: {exc}") from exc
        self._sent = len(self._batch)
        return [cur.fetchall() for cur in curs]

    # -- transactions -------------------------------------------------------------
    @_writes
    def _flush(self) -> None:
        """Send the kept writes; in the open pipeline, answered with the ``COMMIT``."""
        if self._pipe is None:
            self._now()
        else:
            self._send()

    def commit(self) -> None:
        """Commit: one round trip (the ``COMMIT`` queued behind the writes sent)."""
        if not self._writer:
            return
        import psycopg

        figures = self._session.take()
        if figures is not None:  # with the pages they count, in one transaction
            self._write(lambda c: Qmark(c).execute(ADD_SQL, figures))
        if self._tally:  # with the URLs they count: one statement a commit, not a page
            tally, self._tally = self._tally, []
            self.count_traps(tally)
        self._flush()
        try:
            try:
                self._conn.commit()  # in the pipeline: it stays open for the next writes
            except psycopg.Error as exc:
                # A connection lost before COMMIT was answered (a pipeline learns it only
                # here): the server rolled the transaction back; replay it and commit.
                if not self.recover(exc, len(self._batch)):
                    raise
                self._now()
                self._conn.commit()
        except psycopg.Error as exc:
            raise StoreWriteError(
                f"{self.name}: cannot commit the crawl state ({exc}); the last batch may be "
                "lost: --resume continues from the last commit"
            ) from exc
        self._batch.clear()
        self._sent = 0
        self._sealed = 0
        self._turn = False
        self._held.clear()
        self._counts.clear()

    def rollback(self) -> None:
        self._abandon_pipe()
        self._session.drop()
        self._tally.clear()
        self._pages = PageWrites()
        self._batch.clear()
        self._sent = 0
        self._sealed = 0
        self._turn = False
        self._held.clear()
        self._counts.clear()
        self._cache.clear()
        self._absent.clear()
        with contextlib.suppress(Exception):
            self._conn.rollback()

    def close(self) -> None:
        """Commit what was written since the last commit, then close.

        Nothing written (a rollback, or only reads, since the last commit): nothing is
        committed, so a connection lost meanwhile (the reason for the rollback, often)
        does not turn the close into a second error over the first.
        """
        if self._closed:
            return
        try:
            if self._batch or len(self._pages) or self._session.pending() or self._tally:
                self.commit()
        finally:
            self._closed = True
            self._abandon_pipe()
            if self._writer:
                # Released here, answered: the session's end releases it too, but only
                # once the server's backend has exited, after this returns, so a store
                # opened at once could find the crawl still "in use".
                with contextlib.suppress(Exception):
                    self._conn.rollback()
                    self._conn.execute("SELECT pg_advisory_unlock_all()")
            self._conn.close()  # the advisory lock goes with the session

    # -- meta ---------------------------------------------------------------------
    @_reads
    def get_meta(self, key: str) -> str | None:
        row = self._now().execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
        return None if row is None else str(row[0])

    @_writes
    def set_meta(self, key: str, value: str) -> None:
        self._write(
            lambda c: c.execute(
                "INSERT INTO meta(key, value) VALUES (%s, %s) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
        )

    @_reads
    def meta(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self._now().execute("SELECT key, value FROM meta")}

    # -- frontier -----------------------------------------------------------------
    @_reads
    def lookup(self, urls: Sequence[str]) -> dict[str, tuple[int, UrlState]]:
        """Id and state of the known ``urls``; shared, it may start this worker's turn.

        A fleet worker's page step that meets new URLs (judge them with the shared
        trap counters, add them) holds a transaction advisory lock until the commit
        that ends the step, so no other worker interleaves (SQLite's ``BEGIN
        IMMEDIATE``).  A step whose URLs are all known (and not ``STALE``) needs no
        turn: its writes touch its own page's row and links, and requeueing a
        ``HELD`` URL twice is the same as once.  Most steps are such (the JDK docs
        meet about one new URL a page, in a few index pages), so they look up without
        the lock; only when something is new is the lock taken and the new ones looked
        up again under it (another worker may have added them meanwhile).
        """
        found: dict[str, tuple[int, UrlState]] = {}
        missing = [u for u in urls if u not in self._cache]
        for url in urls:
            hit = self._cache.get(url)
            if hit is not None:
                found[url] = hit
        if missing:
            self._select(missing, found)
        keys = self._turn_keys
        if self._shared and (not self._turn or keys is not None):
            unsure = [u for u in urls if (hit := found.get(u)) is None or hit[1] == UrlState.STALE]
            locks = [] if keys is None else [k for url in unsure for k in keys(url)]
            if unsure and self._take_turn(locks):
                for url in unsure:
                    found.pop(url, None)
                # Sent with the lock, with the counters the lock guards: one round trip.
                self._select(unsure, found, self._guarded_counters(locks))
        return found

    def _guarded_counters(self, locks: Iterable[str]) -> list[tuple[str, str]]:
        """The trap counters named by turn keys (``"pattern ..."``, ``"facet ..."``) this
        transaction holds and has not read yet (see :meth:`trap_counts`)."""
        wanted: set[tuple[str, str]] = set()
        for lock in locks:
            table, _, key = lock.partition(" ")
            if table in _COUNTER_TABLES and lock in self._held and (table, key) not in self._counts:
                wanted.add((table, key))
        return sorted(wanted)

    def holds_turn(self) -> bool:
        return self._turn

    def split_turn(self, keys: Callable[[str], Iterable[str]]) -> None:
        self._turn_keys = keys

    def _take_turn(self, keys: Sequence[str] = ()) -> bool:
        """The fleet's write turn until this transaction ends (kept for the next round trip).

        Split (:meth:`split_turn`): a transaction advisory lock per key not held yet,
        taken in one statement in the order of the locks' hashes, so two workers never
        hold one each of two keys both want (no deadlock).  True when a lock was asked
        for (what was looked up before it may have changed).
        """
        if self._turn_keys is None:
            if self._turn:
                return False
            key = (APPLICATION_ID + 2, self.spec.schema)
            self._write(lambda c: c.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", key))
            self._turn = True
            return True
        need = sorted(set(keys) - self._held)
        if not need:
            return False
        self._held.update(need)
        args = (APPLICATION_ID + 2, self.spec.schema + "\n", text_array(need))
        self._write(
            lambda c: c.execute(
                "SELECT pg_advisory_xact_lock(%s, h) FROM (SELECT DISTINCT hashtext(%s || k) AS h "
                "FROM unnest(%s::text[]) AS k ORDER BY 1) s",
                args,
            )
        )
        self._turn = True
        return True

    def _select(
        self,
        keys: list[str],
        found: dict[str, tuple[int, UrlState]],
        counters: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Look ``keys`` up into ``found`` (and read ``counters`` in the same round trip)."""
        seen = self._seen_set()
        if seen is not None:  # one writer: a URL never inserted is absent, no need to ask
            absent = [k for k in keys if k not in seen]
            if absent:
                if len(self._absent) + len(absent) > _CACHE_MAX:
                    self._absent.clear()
                self._absent.update(absent)
                keys = [k for k in keys if k in seen]
                if not keys:
                    return
        if len(self._cache) + len(keys) > _CACHE_MAX:
            self._cache.clear()
        lookup = (
            "SELECT url, id, state FROM urls WHERE url = ANY(%s::text[])",
            (text_array(keys),),
        )
        if counters:
            rows, counted = self._ask_all([lookup, self._counters_sql(counters)])
            self._counts.update(zip(counters, (int(n) for _, n in counted), strict=True))
        else:
            rows = self._ask(*lookup)
        self._found(rows, found)
        if not self._shared:  # the only writer: what is not there stays absent until added
            if len(self._absent) + len(keys) > _CACHE_MAX:
                self._absent.clear()
            self._absent.update(k for k in keys if k not in found)

    def _add_known(
        self, rows: list[NewUrl], found: dict[str, tuple[int, UrlState]]
    ) -> list[NewUrl]:
        """Add, with no wait, the rows whose fate is known here; the others, returned.

        A store with one writer knows a URL its last lookup did not find is still not
        there, and a ``STALE`` one's id: those are inserted (or judged anew) with ids
        taken from a block of the sequence, in a write kept for the next round trip.
        The ids ascend in the order given, as the server's would: discovery order holds.
        """
        if self._shared:
            return rows
        known = [n for n in rows if n.url in self._absent or self._is_stale(n.url)]
        if not known:
            return rows
        fresh = [n for n in known if n.url in self._absent]
        self._saw(n.url for n in fresh)
        ids = iter(self._take_ids(len(fresh)))
        given = [self._cache[n.url][0] if n.url not in self._absent else next(ids) for n in known]
        rows_given = list(zip(given, known, strict=True))
        self._keep(lambda pages: pages.add_urls(rows_given))
        for new, url_id in zip(known, given, strict=True):
            self._absent.discard(new.url)
            value = (url_id, new.state)
            found[new.url] = value
            self._cache[new.url] = value
        done = {n.url for n in known}
        return [n for n in rows if n.url not in done]

    def _is_stale(self, url: str) -> bool:
        hit = self._cache.get(url)
        return hit is not None and hit[1] == UrlState.STALE

    def _new_ids(self, n: int) -> list[int | None]:
        """Ids for ``n`` URLs about to be inserted: from the block with one writer (so ids
        follow discovery order as in SQLite), else ``None`` (the sequence's next)."""
        if self._shared:
            return [None] * n
        return list(self._take_ids(n))

    def _take_ids(self, n: int) -> list[int]:
        """``n`` new URL ids from this store's block (refilled 1,000 at a time, ascending)."""
        if len(self._ids) < n:
            more = self._ask(
                "SELECT nextval(pg_get_serial_sequence('urls', 'id')) "
                "FROM generate_series(1, %s) ORDER BY 1",
                (max(n, _ID_BLOCK),),
            )
            self._ids.extend(int(r[0]) for r in more)
        taken, self._ids = self._ids[:n], self._ids[n:]
        return taken

    def _found(self, rows: Iterable[Sequence[Any]], found: dict[str, tuple[int, UrlState]]) -> None:
        for url, url_id, state, *_ in rows:
            value = (int(url_id), UrlState(state))
            found[url] = value
            self._cache[url] = value

    @_writes
    def add_urls(self, urls: Sequence[NewUrl]) -> dict[str, tuple[int, UrlState]]:
        found: dict[str, tuple[int, UrlState]] = {}
        missing: dict[str, NewUrl] = {}
        for new in urls:
            hit = self._cache.get(new.url)
            if hit is not None and hit[1] != UrlState.STALE:
                found[new.url] = hit
            elif new.url not in missing:
                missing[new.url] = new
        if not missing:
            return found
        rows = self._add_known(list(missing.values()), found)
        if not rows:
            return found
        columns = url_columns(rows)
        if len(self._cache) + len(rows) > _CACHE_MAX:
            self._cache.clear()
        self._saw(n.url for n in rows)
        ids_given = nullable_int_array(self._new_ids(len(rows)))
        answer = self._ask(_ADD_URLS, (ids_given, *columns, columns[0]))
        written = [r for r in answer if r[3]]
        if written:
            ids = {str(url): int(url_id) for url, url_id, _state, _new in written}
            again = [n for n in rows if n.url in ids]
            replay = (int_array(ids[n.url] for n in again), *url_columns(again))
            self._sent_as(lambda c: c.execute(REPLAY_URLS, replay))
        self._found(answer, found)
        late = [n.url for n in rows if n.url not in found]
        if late:  # added by another worker after this statement's snapshot (a fleet)
            self._select(late, found)
        return found

    @_writes
    def requeue(self, ids: Iterable[tuple[int, int]]) -> None:
        rows = list(ids)
        if not rows:
            return
        args = (int_array(i for i, _ in rows), int_array(d for _, d in rows))
        if self._shared:
            # Another worker may requeue the same row: under the turn, so that no worker
            # waits on a row another holds while that one waits for the turn.  Split, the
            # rows' own keys: taken after the step's URL keys, and the last lock a step
            # takes before its commit, so no worker waits for a URL key holding a row key.
            self._take_turn([f"row {url_id}" for url_id, _ in rows])
        self._write(
            lambda c: c.execute(
                "UPDATE urls u SET state = 0, reason = NULL, depth = v.depth "
                "FROM unnest(%s::bigint[], %s::int[]) AS v(id, depth) "
                "WHERE u.id = v.id AND u.state = 3",
                args,
            )
        )
        wanted = {url_id for url_id, _ in rows}
        for url, (url_id, state) in list(self._cache.items()):
            if url_id in wanted and state == UrlState.HELD:
                self._cache[url] = (url_id, UrlState.QUEUED)

    @_writes
    def claim(self, limit: int, one_level: bool = False) -> list[Claimed]:
        rows = self._ask(claim_sql(one_level), (limit,), prepare=None)
        if not rows:
            return []
        ids = [int(r[0]) for r in rows]
        self._sent_as(lambda c: c.execute("UPDATE urls SET state = 1 WHERE id = ANY(%s)", (ids,)))
        rows.sort(key=lambda r: (r[2], r[0]))
        return claimed(rows)

    @_writes
    def claim_url(
        self, url: str, depth: int, found_from: int | None, loc: str | None = None
    ) -> Claimed | None:
        self._absent.discard(url)
        self._saw((url,))
        worker = self.fleet_worker
        upsert = (
            "ON CONFLICT(url) DO UPDATE SET state = 1, depth = excluded.depth, "
            "found_from = excluded.found_from, worker = excluded.worker WHERE urls.state = 4"
        )
        answer = self._ask(
            "INSERT INTO urls(id, url, depth, found_from, state, loc, origin, worker) SELECT "
            + _NEXT_ID
            + ", %s, %s, %s, 1, %s, %s, %s FROM (SELECT %s::bigint AS id) v "
            + upsert
            + " RETURNING id, etag, last_modified, fingerprint, lastmod, lastmod_source",
            (url, depth, found_from, loc, origin_of(url), worker, self._new_ids(1)[0]),
        )
        if not answer:
            return None
        row = answer[0]
        url_id = int(row[0])
        self._sent_as(
            lambda c: c.execute(
                "INSERT INTO urls(id, url, depth, found_from, state, loc, origin, worker) "
                "VALUES (%s, %s, %s, %s, 1, %s, %s, %s) " + upsert,
                (url_id, url, depth, found_from, loc, origin_of(url), worker),
            )
        )
        self._cache[url] = (url_id, UrlState.CLAIMED)
        return Claimed(url_id, url, depth, loc, *row[1:])

    @_writes
    def unchanged(self, url_id: int, fetched_at: float) -> bool:
        row = self._write_now(
            lambda c: c.execute(
                "UPDATE urls SET state = 2, fetched_at = %s WHERE id = %s RETURNING indexable",
                (fetched_at, url_id),
            ).fetchone()
        )
        return row is not None and bool(row[0])

    @_reads
    def page_links(self, url_id: int) -> list[tuple[str, str, bool, str]]:
        return [
            (str(url), str(loc or url), bool(nofollow), str(kind))
            for url, loc, nofollow, kind in self._now().execute(
                "SELECT u.url, u.loc, l.nofollow, l.kind FROM links l "
                "JOIN urls u ON u.id = l.to_id WHERE l.from_id = %s ORDER BY l.id",
                (url_id,),
            )
        ]

    # -- runs ---------------------------------------------------------------------
    @_writes
    def start_run(self, started_at: float) -> int:
        self._write(lambda c: c.execute(run_end.MARK_STALE))
        self._write(lambda c: c.execute(chain_sql.FORGET))
        self._write(lambda c: fleet_sql.carry_trap_counts(Qmark(c)))
        row = (
            self._now()
            .execute(
                "INSERT INTO runs(started_at, state) VALUES (%s, 'running') RETURNING id",
                (started_at,),
            )
            .fetchone()
        )
        run_id = 0 if row is None else int(row[0])
        self._sent_as(
            lambda c: c.execute(
                "INSERT INTO runs(id, started_at, state) VALUES (%s, %s, 'running')",
                (run_id, started_at),
            )
        )
        self._cache.clear()
        self._recrawl = self._run_count() > 1
        return run_id

    def add_figures(self, figures: RunFigures) -> None:
        self._session.add(figures)

    def end_session(self) -> None:
        self._session.end()

    @_writes
    def end_run(self, state: str, ended_at: float) -> None:
        self._write(lambda c: run_end.end_run(Qmark(c), state, ended_at))
        if state == "finished":  # URLs turned unlinked: what the cache says is stale
            self._cache.clear()

    def tally_traps(self, keys: Sequence[tuple[str, str]]) -> None:
        self._tally += keys

    @_reads
    def trapped_before(self) -> set[str]:
        return {str(row[0]) for row in Qmark(self._now()).execute(TRAPPED_BEFORE_SQL).fetchall()}

    @_reads
    def run_started(self) -> float | None:
        return crawl_reads.run_started(Qmark(self._now()))

    @_reads
    def runs(self) -> list[RunRow]:
        return crawl_reads.runs(Qmark(self._now()))

    @_streams
    def changes_between(
        self, run_a: int, run_b: int
    ) -> Iterator[tuple[str, UrlFacts | None, UrlFacts | None]]:
        return changes.changes_between(Qmark(self._now()), run_a, run_b)

    @_streams
    def facts_at(self, run: int) -> Iterator[UrlFacts]:
        return changes.facts_at(Qmark(self._now()), run)

    @_reads
    def url_history(self, url: str) -> list[UrlFacts]:
        return changes.url_history(Qmark(self._now()), url)

    @_writes
    def release_claims(self, now: float | None = None) -> int:
        now = time.time() if now is None else now
        count = self._write_now(lambda c: Qmark(c).execute(fleet_sql.RELEASE_SQL, (now,)).rowcount)
        self._cache.clear()
        return int(count)

    # -- results ------------------------------------------------------------------
    @_writes
    def finish(self, url_id: int, outcome: Outcome) -> None:
        again = self._recrawl  # fetched again: this fetch's facts replace the earlier run's
        self._keep(lambda pages: pages.finish(url_id, outcome, again=again))

    @_writes
    def decide(self, url_id: int, reason: str, detail: str | None) -> None:
        self._write(
            lambda c: c.execute(
                "UPDATE urls SET state = 2, reason = %s, detail = %s, indexable = 0, "
                "etag = NULL, last_modified = NULL WHERE id = %s",
                (reason, detail, url_id),
            )
        )

    @_reads
    def fate(self, url_id: int) -> Fate | None:
        return crawl_reads.fate(Qmark(self._now()), url_id)

    @_writes
    def add_links(self, from_id: int, links: Sequence[tuple[int, bool, str]]) -> None:
        if not links:
            return
        self._keep(lambda pages: pages.add_links(from_id, links))

    @_writes
    def add_redirect(self, from_id: int, hop: int, to_url: str, status: int) -> None:
        recrawl = self._recrawl

        def step(c: psycopg.Connection) -> None:
            if recrawl and hop == 1:  # the chain as this run follows it
                c.execute("DELETE FROM redirects WHERE from_id = %s", (from_id,))
            c.execute(
                "INSERT INTO redirects(from_id, hop, to_url, status) VALUES (%s, %s, %s, %s)",
                (from_id, hop, to_url, status),
            )

        self._write(step)

    @_writes
    def add_chain_hop(self, url_id: int, start_id: int, hop: int) -> None:
        self._write(lambda c: Qmark(c).execute(chain_sql.ADD, (url_id, start_id, hop)))

    @_reads
    def chain_before(self, url_id: int) -> list[Claimed]:
        """One round trip, behind the writes sent (asked once per chain a crawl follows)."""
        rows = self._ask(pg_params(chain_sql.BEFORE), chain_sql.before_args(url_id))
        return chain_sql.hops(rows)

    # -- reading ------------------------------------------------------------------
    @_reads
    def counts(self) -> dict[str, int]:
        return crawl_reads.counts(Qmark(self._now()))

    @_reads
    def queued(self) -> int:
        row = self._now().execute("SELECT COUNT(*) FROM urls WHERE state = 0").fetchone()
        return 0 if row is None else int(row[0])

    @_reads
    def reasons(self) -> dict[str, int]:
        return crawl_reads.reasons(Qmark(self._now()))

    @_streams
    def sitemap_rows(self) -> Iterator[SitemapRow]:
        sql = (
            "SELECT COALESCE(u.loc, u.url), u.lastmod, "
            "ARRAY(SELECT a.hreflang FROM alternates a WHERE a.page_id = u.id ORDER BY a.id), "
            "ARRAY(SELECT a.href FROM alternates a WHERE a.page_id = u.id ORDER BY a.id), "
            "ARRAY(SELECT i.loc FROM images i WHERE i.page_id = u.id ORDER BY i.id) "
            "FROM urls u WHERE u.indexable = 1 AND u.state = 2 ORDER BY u.id"
        )
        for url, lastmod, langs, hrefs, images in self.stream(sql):
            alternates = tuple(Alternate(str(h), str(u)) for h, u in zip(langs, hrefs, strict=True))
            yield SitemapRow(str(url), lastmod, alternates, tuple(str(i) for i in images))

    @_writes
    def add_notes(self, notes: Sequence[tuple[str, str, str]]) -> None:
        if not notes:
            return
        args = [(code, msg, url, url, code, msg) for url, code, msg in notes]

        def step(c: psycopg.Connection) -> None:
            with c.cursor() as cur:
                cur.executemany(
                    "INSERT INTO notes(page_id, code, message) "
                    "SELECT u.id, %s, %s FROM urls u WHERE (u.url = %s OR u.loc = %s) "
                    "AND NOT EXISTS (SELECT 1 FROM notes n WHERE n.page_id = u.id "
                    "AND n.code = %s AND n.message = %s) LIMIT 1",
                    args,
                )

        self._write(step)

    @_reads
    def note_counts(self) -> dict[str, tuple[int, str]]:
        return crawl_reads.note_counts(Qmark(self._now()))

    @_streams
    def noted(self, code: str) -> Iterator[tuple[str, str]]:
        for url, message in self.stream(
            "SELECT COALESCE(u.loc, u.url), n.message FROM notes n JOIN urls u "
            "ON u.id = n.page_id WHERE n.code = %s ORDER BY n.id",
            (code,),
        ):
            yield str(url), str(message)

    # -- IndexNow (the submission log's SQL is the SQLite store's) --------------------
    @_reads
    def indexnow_pending(self, after: int, limit: int) -> list[IndexNowChange]:
        return indexnow.pending(Qmark(self._now()), after, limit)

    @_writes
    def record_submission(self, row: SubmissionRow, sent: Sequence[IndexNowChange]) -> None:
        self._write(
            lambda c: c.execute(
                "INSERT INTO indexnow_submissions(at, endpoint, host, urls, status, accepted, "
                "detail) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                (
                    row.at,
                    row.endpoint,
                    row.host,
                    row.urls,
                    row.status,
                    int(row.accepted),
                    row.detail,
                ),
            )
        )
        if row.accepted and sent:
            args = (
                [s.url_id for s in sent],
                [s.version for s in sent],
                [0 if s.change == "removed" else 1 for s in sent],
                row.at,
            )
            self._write(
                lambda c: c.execute(
                    "INSERT INTO indexnow_sent(url_id, version, present, sent_at) "
                    "SELECT v.*, %s FROM unnest(%s::bigint[], %s::text[], %s::smallint[]) v "
                    "ON CONFLICT(url_id) DO UPDATE SET version = excluded.version, "
                    "present = excluded.present, sent_at = excluded.sent_at",
                    (args[3], args[0], args[1], args[2]),
                )
            )

    @_reads
    def submissions(self) -> list[SubmissionRow]:
        return indexnow.submissions(Qmark(self._now()))

    @_streams
    def page_records(self) -> Iterator[PageRecord]:
        """Every URL seen, in discovery order, streamed (see the SQLite store)."""
        for row in self.stream(_RECORD_SQL + " ORDER BY u.id"):
            yield crawl_reads.page_record(row)

    @_streams
    def page_urls(self) -> Iterator[tuple[int, str, bool]]:
        for url_id, url, outside in self.stream(PAGE_URLS_SQL):
            yield int(url_id), str(url), bool(outside)

    @_reads
    def explain(self, url: str) -> Explanation | None:
        return crawl_reads.explain(Qmark(self._now()), url, _RECORD_SQL)

    @_reads
    def fetched_count(self, since: float) -> int:
        row = (
            self._now()
            .execute("SELECT COUNT(*) FROM urls WHERE fetched_at >= %s", (since,))
            .fetchone()
        )
        return 0 if row is None else int(row[0])

    @_reads
    def fetched_ids(self, after: float) -> list[tuple[int, float]]:
        rows = self._now().execute(
            "SELECT id, fetched_at FROM urls WHERE fetched_at > %s ORDER BY fetched_at, id",
            (after,),
        )
        return [(int(i), float(t)) for i, t in rows]

    @_reads
    def records_by_id(self, ids: Sequence[int]) -> list[PageRecord]:
        rows = self._now().execute(
            _RECORD_SELECT + ", u.id " + _RECORD_FROM + " WHERE u.id = ANY(%s)", (list(ids),)
        )
        found = {int(row[-1]): crawl_reads.page_record(row) for row in rows.fetchall()}
        return [found[i] for i in ids if i in found]

    @_streams
    def thumbnails(self) -> Iterator[tuple[str, Thumbnail]]:
        """Every stored thumbnail with its page's URL (see the SQLite store)."""
        for url, kind, image in self.stream(
            "SELECT COALESCE(u.loc, u.url), t.type, t.image FROM thumbnails t "
            "JOIN urls u ON u.id = t.page_id ORDER BY t.page_id"
        ):
            yield str(url), Thumbnail(str(kind), bytes(image))

    def stream(self, sql: str, args: Sequence[object] = ()) -> Iterator[Sequence[Any]]:
        """Rows of ``sql`` from a server-side cursor, the kept writes sent first."""
        yield from server_rows(self._now(), sql, args)


def is_crawl_db(spec: str) -> bool:
    """True when ``spec`` names a database schema holding a sitemapkit crawl (never raises)."""
    try:
        parsed = parse_spec(spec)
        conn = connect(parsed, autocommit=True, say=lambda _line: None, tries=1)
    except StoreError:
        return False
    try:
        return schema_state(conn, parsed.schema)[1]
    except Exception:  # noqa: BLE001 - a yes/no question about a server that may be gone
        return False
    finally:
        conn.close()
