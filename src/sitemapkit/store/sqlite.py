"""The default crawl store: one SQLite file (WAL), written in batched transactions.

Why this shape:

* All writes happen on the event-loop thread and are grouped into one
  transaction that the engine commits every few hundred milliseconds: a
  point write costs microseconds, a commit costs a sync, so batching is what
  makes SQLite fast enough to sit under a crawler.
* WAL with ``synchronous=NORMAL``: a killed process loses nothing committed;
  a power cut may lose the last batch but never corrupts the file.  Pages of
  a lost batch are still ``QUEUED``/``CLAIMED`` and are simply fetched again
  on ``--resume``.
* The seen-set is the ``UNIQUE`` index on ``urls.url``; a bounded dict in front
  saves the lookups for the navigation links every page repeats.
* Schema changes are numbered migrations recorded in ``PRAGMA user_version``.
* A store opened for writing holds :class:`~sitemapkit.store.lock.StoreLock`
  from before the file is opened (or replaced) until :meth:`SqliteStore.close`.
* Every ``sqlite3`` failure of a write (``database or disk is full``, I/O
  errors) becomes one :class:`~sitemapkit.errors.StoreWriteError` naming the
  file; :meth:`SqliteStore.rollback` then drops the batch, whose URLs are still
  ``QUEUED``/``CLAIMED`` in the committed state.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from sitemapkit.errors import StoreError, StoreVersionError, StoreWriteError
from sitemapkit.model import OUT_OF_SCOPE, Alternate, PageRecord
from sitemapkit.store import chain_sql, crawl_reads, fleet_sql
from sitemapkit.store.base import (
    UPDATED_COLUMNS,
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
from sitemapkit.store.guard import guard, guard_stream
from sitemapkit.store.lock import StoreLock
from sitemapkit.store.run_end import MARK_STALE, end_run
from sitemapkit.store.sessions import ADD_SQL, SESSIONS_SCHEMA, Session
from sitemapkit.store.sqlite_audit import AUDIT_SCHEMA, AuditTables
from sitemapkit.store.sqlite_changes import (
    CHANGES_SCHEMA,
    facts_at,
    url_history,
)
from sitemapkit.store.sqlite_changes import changes_between as _changes_between
from sitemapkit.store.sqlite_fleet import FLEET_SCHEMA, FleetTables
from sitemapkit.store.sqlite_indexnow import INDEXNOW_SCHEMA, IndexNowTables
from sitemapkit.store.sqlreader import Batched
from sitemapkit.urls import origin_of

if TYPE_CHECKING:
    from sitemapkit.store.rows import Explanation, RunRow

_P = ParamSpec("_P")
_R = TypeVar("_R")
_T = TypeVar("_T")

#: Marks a file as ours (``is_crawl_db``) beside the schema version.
APPLICATION_ID = 0x534D4B43  # "SMKC"
_CACHE_MAX = 50_000
#: Each stored state's member by its number: indexing a tuple, where ``UrlState(n)`` is an
#: enum call per row read (~0.4 us).
_STATES: tuple[UrlState, ...] = tuple(sorted(UrlState))
_IN_CHUNK = 400

_MIGRATIONS: tuple[str, ...] = (
    # 1: the first schema.
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE urls (
        id INTEGER PRIMARY KEY,
        url TEXT NOT NULL UNIQUE,
        depth INTEGER NOT NULL,
        found_from INTEGER,
        state INTEGER NOT NULL,
        status INTEGER,
        content_type TEXT,
        title TEXT,
        canonical TEXT,
        indexable INTEGER NOT NULL DEFAULT 0,
        reason TEXT,
        detail TEXT,
        lastmod TEXT,
        lastmod_source TEXT,
        fetched_at REAL,
        bytes INTEGER,
        redirect_to TEXT,
        outlinks INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX urls_queue ON urls(depth, id) WHERE state = 0;
    CREATE INDEX urls_claimed ON urls(id) WHERE state = 1;
    CREATE INDEX urls_indexable ON urls(id) WHERE indexable = 1;
    CREATE TABLE links (
        from_id INTEGER NOT NULL,
        to_id INTEGER NOT NULL,
        nofollow INTEGER NOT NULL,
        kind TEXT NOT NULL
    );
    CREATE INDEX links_to ON links(to_id, from_id);
    CREATE TABLE redirects (
        from_id INTEGER NOT NULL,
        hop INTEGER NOT NULL,
        to_url TEXT NOT NULL,
        status INTEGER NOT NULL
    );
    CREATE INDEX redirects_from ON redirects(from_id);
    CREATE TABLE alternates (page_id INTEGER NOT NULL, hreflang TEXT NOT NULL, href TEXT NOT NULL);
    CREATE INDEX alternates_page ON alternates(page_id);
    CREATE TABLE images (page_id INTEGER NOT NULL, loc TEXT NOT NULL);
    CREATE INDEX images_page ON images(page_id);
    CREATE TABLE migrations (version INTEGER PRIMARY KEY, applied_at REAL NOT NULL);
    """,
    # 2: rendering (issue 14): how each rendered page went, and the links only it had.
    """
    CREATE TABLE renders (
        page_id INTEGER PRIMARY KEY,
        status TEXT NOT NULL,
        why TEXT,
        links TEXT NOT NULL DEFAULT ''
    );
    """,
    # 3: the audit's listed URLs and findings (sitemapkit audit).
    AUDIT_SCHEMA,
    # 4: the site's own spelling of a URL where it differs from the dedup key in ``url``
    # (a sorted query is a key, never a URL to publish), and notes on pages that do not
    # change their fate (``links-capped``, annotations the writer left out).
    """
    ALTER TABLE urls ADD COLUMN loc TEXT;
    CREATE INDEX urls_loc ON urls(loc) WHERE loc IS NOT NULL;
    CREATE TABLE notes (page_id INTEGER NOT NULL, code TEXT NOT NULL, message TEXT NOT NULL);
    CREATE INDEX notes_page ON notes(page_id);
    """,
    # 5: runs (issue 12): crawling the same store again starts a new run, history kept.  A
    # crawl made before this migration becomes run 1.  A page fetched again replaces its
    # links, found by ``links_from``; ``urls_stale`` finds the URLs a run has not reached.
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        started_at REAL NOT NULL,
        ended_at REAL,
        state TEXT NOT NULL
    );
    INSERT INTO runs(id, started_at, ended_at, state)
        SELECT 1, CAST(s.value AS REAL),
            (SELECT CAST(e.value AS REAL) FROM meta e WHERE e.key = 'ended_at'),
            COALESCE((SELECT t.value FROM meta t WHERE t.key = 'state'), 'interrupted')
        FROM meta s WHERE s.key = 'started_at';
    CREATE INDEX links_from ON links(from_id);
    CREATE INDEX urls_stale ON urls(id) WHERE state = 4;
    """,
    # 6: conditional requests (issue 12): the validators of a page's last 200, sent back by
    # the next run as If-None-Match / If-Modified-Since.
    """
    ALTER TABLE urls ADD COLUMN etag TEXT;
    ALTER TABLE urls ADD COLUMN last_modified TEXT;
    """,
    # 7: content fingerprints (issue 12): what makes the page significant, and the first run
    # that saw the current one (its start is the page's lastmod, source content-change).
    """
    ALTER TABLE urls ADD COLUMN fingerprint TEXT;
    ALTER TABLE urls ADD COLUMN fingerprint_run INTEGER;
    """,
    # 8: what each run did, for `sitemapkit history`.
    """
    ALTER TABLE runs ADD COLUMN pages INTEGER;
    ALTER TABLE runs ADD COLUMN not_modified INTEGER;
    ALTER TABLE runs ADD COLUMN changed INTEGER;
    ALTER TABLE runs ADD COLUMN bytes INTEGER;
    CREATE INDEX urls_fingerprint_run ON urls(fingerprint_run);
    """,
    # 9: an audit row may stand for many findings (the "and N more" of a capped listing).
    """
    ALTER TABLE audit_findings ADD COLUMN weight INTEGER NOT NULL DEFAULT 1;
    """,
    # 10: change records (issue 12): a row per URL and run only when one of its facts
    # changed, so any two runs compare (UrlFacts).  Runs before this migration are not
    # ``tracked``: only the last one's state is known, copied from the URLs as they are.
    CHANGES_SCHEMA,
    # 11: the IndexNow submission log (issue 12): what each URL was last submitted at.
    INDEXNOW_SCHEMA,
    # 12: thumbnails (issue 14, ``crawl --thumbnails``): a small picture of each indexable
    # page's first screen, shown by the visual map.
    """
    CREATE TABLE thumbnails (
        page_id INTEGER PRIMARY KEY,
        type TEXT NOT NULL,
        image BLOB NOT NULL
    );
    """,
    # 13: many workers on one frontier (issue 13): URLs by host, leases, shared counters.
    FLEET_SCHEMA,
    # 14: a page's links are found by page only when a later run replaces them, so the
    # index that finds them is made when a later run starts (LINKS_BY_PAGE), not kept up
    # by every first crawl: on the JDK docs it cost the crawl 0.25 s of CPU for 318k links.
    """
    DROP INDEX IF EXISTS links_from;
    """,
    # 15: the redirect chains being followed (issue 13): a crawl killed between two hops
    # takes its chain up again from the store (``chain_before``), not from the hop it
    # was waiting for.  Emptied when a run starts.
    chain_sql.SCHEMA,
    # 16: a run's figures per session, written as it goes (a fleet worker stopped or
    # killed mid-crawl keeps its part).
    SESSIONS_SCHEMA,
)
SCHEMA_VERSION = len(_MIGRATIONS)
#: The index of links by the page they are on: what a later run's re-fetch of a page
#: deletes (``PAGE_FACTS``) and what a ``304`` walks (``page_links``).
LINKS_BY_PAGE = "CREATE INDEX IF NOT EXISTS links_from ON links(from_id)"


#: How long a shared store's writer waits for the others' turn (they hold it for one step).
SHARED_BUSY_MS = 30_000


def _connect(path: Path | str, *, readonly: bool) -> sqlite3.Connection:
    if readonly:
        # A read-write open with query_only: a read-only *file* open of a WAL database
        # would leave -wal/-shm files behind when it is the last connection to close.
        uri = f"{Path(path).resolve().as_uri()}?mode=rw"
        conn = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA query_only = 1")
    else:
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA busy_timeout = 5000")
    return conn


def _migrate(conn: sqlite3.Connection, source: str) -> None:
    current = int(conn.execute("PRAGMA user_version").fetchone()[0])
    app = int(conn.execute("PRAGMA application_id").fetchone()[0])
    if current and app != APPLICATION_ID:
        raise StoreError(f"{source}: not a sitemapkit crawl database")
    if current > SCHEMA_VERSION:
        raise StoreVersionError.newer(source, current, SCHEMA_VERSION)
    if current == SCHEMA_VERSION:
        return
    # Every missing step in one transaction: a new file is made in one commit instead of
    # one per migration, and an upgrade is all or nothing.
    conn.execute("BEGIN IMMEDIATE")
    try:
        for version in range(current + 1, SCHEMA_VERSION + 1):
            for statement in _MIGRATIONS[version - 1].split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute(
                "INSERT INTO migrations(version, applied_at) VALUES (?, ?)", (version, time.time())
            )
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID:d}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


#: Writes: a failure (disk full, I/O) ends a crawl, resumable from the last commit.
_writes = guard("write the crawl state", StoreWriteError)
#: Reads: a failure (a corrupt file) is one line, not a traceback.
_reads = guard("read the crawl state", StoreError)
#: :data:`_reads` for a method that streams rows.
_streams = guard_stream("read the crawl state", StoreError)


def remove_database(path: Path) -> None:
    """Delete a crawl database and its WAL companions (the caller holds the lock)."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


class SqliteStore(AuditTables, IndexNowTables, FleetTables):
    """:class:`~sitemapkit.store.base.CrawlStore` on stdlib ``sqlite3``.

    ``mode`` is an :data:`~sitemapkit.store.base.OpenMode`: every mode but
    ``read`` takes the lock first and checks the file only while holding it.
    ``shared``: several worker processes write it at once (a fleet, see
    :mod:`~sitemapkit.store.sqlite_fleet`); the lock is then a shared one that only
    keeps a single-process crawl out, and writes start with ``BEGIN IMMEDIATE``.
    """

    def __init__(self, path: Path | str, *, mode: OpenMode = "open", shared: bool = False) -> None:
        self.path = Path(path)
        self.name = str(path)
        self._lock: StoreLock | None = None
        self.shared = shared and mode != "read"
        if mode == "read":
            if not is_crawl_db(self.path):
                raise StoreError(f"{self.path}: not a sitemapkit crawl database")
            self._upgrade()
            self._conn = _connect(self.path, readonly=True)
        else:
            # A fleet's first process creates or replaces the file alone, then shares it.
            creates = mode in ("new", "replace")
            self._lock = StoreLock(self.path, shared=self.shared and not creates)
            try:
                self._prepare_file(mode)
                self._conn = self._open_for_writing()
                if self.shared:
                    self._conn.execute(f"PRAGMA busy_timeout = {SHARED_BUSY_MS:d}")
                    self._lock.share()
            except BaseException:
                self._lock.release()
                raise
        self._in_tx = False
        self._closed = False
        self._cache: dict[str, tuple[int, UrlState]] = {}
        #: This process's figures for the run, written with each commit.
        self._session = Session()
        #: Trap counts the crawl took since the last commit (:meth:`tally_traps`).
        self._tally: list[tuple[str, str]] = []
        #: A later run: a page fetched again replaces what its earlier fetch recorded.
        self._recrawl = self._run_count() > 1
        if self._recrawl and mode != "read":  # resumed, or a store of an earlier version
            self._conn.execute(LINKS_BY_PAGE)

    @_reads
    def _run_count(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def _upgrade(self) -> None:
        """Bring a crawl made by an older sitemapkit up to this schema before reading it.

        The readers' queries name the newest tables; a writer migrates when it
        opens, so only a crawl nobody has opened since an upgrade needs this, and
        it takes the lock for the few milliseconds the migrations need.
        """
        try:
            conn = _connect(self.path, readonly=True)
            try:
                current = int(conn.execute("PRAGMA user_version").fetchone()[0])
            finally:
                conn.close()
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot read the crawl state: {exc}") from exc
        if current < SCHEMA_VERSION:
            lock = StoreLock(self.path)
            try:
                self._open_for_writing().close()
            finally:
                lock.release()

    def _prepare_file(self, mode: OpenMode) -> None:
        if mode == "replace":
            remove_database(self.path)
        elif mode == "new" and self.path.exists():
            raise StoreError(
                f"{self.path} already exists: add --resume to continue it, or pick another --db"
            )
        elif mode == "resume" and not is_crawl_db(self.path):
            raise StoreError(f"{self.path} is not a crawl database to resume")

    def _open_for_writing(self) -> sqlite3.Connection:
        try:
            conn = _connect(self.path, readonly=False)
            mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise StoreError(f"{self.path}: cannot switch the database to WAL mode")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA temp_store = MEMORY")
            conn.execute("PRAGMA cache_size = -4000")
            _migrate(conn, str(self.path))
        except sqlite3.OperationalError as exc:  # disk full, read-only, I/O: not the file's fault
            raise StoreWriteError(f"{self.path}: cannot open crawl database: {exc}") from exc
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: cannot open crawl database: {exc}") from exc
        except OSError as exc:
            raise StoreWriteError(f"{self.path}: cannot open crawl database: {exc}") from exc
        return conn

    # -- transactions -------------------------------------------------------------
    def _begin(self) -> sqlite3.Connection:
        if not self._in_tx:
            self._conn.execute("BEGIN IMMEDIATE" if self.shared else "BEGIN")
            self._in_tx = True
        return self._conn

    @_writes
    def commit(self) -> None:
        figures = self._session.take()
        if figures is not None:  # with the pages they count, in one transaction
            self._begin().execute(ADD_SQL, figures)
        if self._tally:  # with the URLs they count
            tally, self._tally = self._tally, []
            self.count_traps(tally)
        if self._in_tx:
            self._conn.execute("COMMIT")
            self._in_tx = False

    def rollback(self) -> None:
        """Drop the pending batch (SQLite may already have rolled it back itself)."""
        self._in_tx = False
        self._cache.clear()
        self._session.drop()
        self._tally.clear()
        with contextlib.suppress(sqlite3.Error):
            if self._conn.in_transaction:
                self._conn.execute("ROLLBACK")

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.commit()
        finally:
            self._conn.close()
            if self._lock is not None:
                self._lock.release()

    # -- meta ---------------------------------------------------------------------
    @_reads
    def get_meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @_writes
    def set_meta(self, key: str, value: str) -> None:
        self._begin().execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    @_reads
    def meta(self) -> dict[str, str]:
        return {str(k): str(v) for k, v in self._conn.execute("SELECT key, value FROM meta")}

    # -- frontier -----------------------------------------------------------------
    @_reads
    def lookup(self, urls: Sequence[str]) -> dict[str, tuple[int, UrlState]]:
        """Id and state of each of ``urls`` the store already knows (others are absent).

        Shared: the write turn starts here, so what a page's links find, judge (trap
        counters) and add is one step no other worker interleaves with.
        """
        if self.shared:
            self._begin()
        found: dict[str, tuple[int, UrlState]] = {}
        missing: list[str] = []
        cache = self._cache
        for url in urls:
            hit = cache.get(url)
            if hit is not None:
                found[url] = hit
            else:
                missing.append(url)
        if missing:
            self._select(missing, found)
        return found

    def _select(self, keys: list[str], found: dict[str, tuple[int, UrlState]]) -> None:
        cache = self._cache
        if len(cache) + len(keys) > _CACHE_MAX:
            cache.clear()
        conn = self._conn
        for start in range(0, len(keys), _IN_CHUNK):
            chunk = keys[start : start + _IN_CHUNK]
            marks = ",".join("?" * len(chunk))
            for url, url_id, state in conn.execute(
                f"SELECT url, id, state FROM urls WHERE url IN ({marks})", chunk
            ):
                value = (int(url_id), _STATES[state])
                found[url] = value
                cache[url] = value

    @_writes
    def add_urls(self, urls: Sequence[NewUrl]) -> dict[str, tuple[int, UrlState]]:
        found: dict[str, tuple[int, UrlState]] = {}
        missing: dict[str, NewUrl] = {}
        cache = self._cache
        for new in urls:
            hit = cache.get(new.url)
            if hit is not None and hit[1] != UrlState.STALE:
                found[new.url] = hit
            elif new.url not in missing:
                missing[new.url] = new
        if not missing:
            return found
        conn = self._begin()
        conn.executemany(
            _ADD_URL_SQL,
            [
                (
                    n.url,
                    n.depth,
                    n.found_from,
                    int(n.state),
                    n.reason,
                    n.detail,
                    n.loc,
                    origin_of(n.url),
                )
                for n in missing.values()
            ],
        )
        self._select(list(missing), found)
        return found

    @_writes
    def requeue(self, ids: Iterable[tuple[int, int]]) -> None:
        rows = list(ids)
        if not rows:
            return
        conn = self._begin()
        conn.executemany(
            "UPDATE urls SET state = 0, reason = NULL, depth = ? WHERE id = ? AND state = 3",
            [(depth, url_id) for url_id, depth in rows],
        )
        wanted = {url_id for url_id, _ in rows}
        for url, (url_id, state) in list(self._cache.items()):
            if url_id in wanted and state == UrlState.HELD:
                self._cache[url] = (url_id, UrlState.QUEUED)

    @_writes
    def claim(self, limit: int, one_level: bool = False) -> list[Claimed]:
        conn = self._begin()
        rows = conn.execute(
            f"SELECT {claim_columns()} FROM urls WHERE state = 0{level_clause(one_level)} "
            "ORDER BY depth, id LIMIT ?",
            (limit,),
        ).fetchall()
        if rows:
            conn.executemany("UPDATE urls SET state = 1 WHERE id = ?", [(r[0],) for r in rows])
        return claimed(rows)

    @_writes
    def claim_url(
        self, url: str, depth: int, found_from: int | None, loc: str | None = None
    ) -> Claimed | None:
        conn = self._begin()
        row = conn.execute(
            "INSERT INTO urls(url, depth, found_from, state, loc, origin, worker) "
            "VALUES (?, ?, ?, 1, ?, ?, ?) "
            "ON CONFLICT(url) DO UPDATE SET state = 1, depth = excluded.depth, "
            "found_from = excluded.found_from, worker = excluded.worker WHERE urls.state = 4 "
            "RETURNING id, etag, last_modified, fingerprint, lastmod, lastmod_source",
            (url, depth, found_from, loc, origin_of(url), self.fleet_worker),
        ).fetchone()
        if row is None:
            return None
        url_id = int(row[0])
        self._cache[url] = (url_id, UrlState.CLAIMED)
        return Claimed(url_id, url, depth, loc, *row[1:])

    @_writes
    def unchanged(self, url_id: int, fetched_at: float) -> bool:
        row = (
            self._begin()
            .execute(
                "UPDATE urls SET state = 2, fetched_at = ? WHERE id = ? RETURNING indexable",
                (fetched_at, url_id),
            )
            .fetchone()
        )
        return row is not None and bool(row[0])

    @_reads
    def page_links(self, url_id: int) -> list[tuple[str, str, bool, str]]:
        return [
            (str(url), str(loc or url), bool(nofollow), str(kind))
            for url, loc, nofollow, kind in self._conn.execute(
                "SELECT u.url, u.loc, l.nofollow, l.kind FROM links l "
                "JOIN urls u ON u.id = l.to_id WHERE l.from_id = ? ORDER BY l.rowid",
                (url_id,),
            )
        ]

    @_writes
    def start_run(self, started_at: float) -> int:
        conn = self._begin()
        conn.execute(MARK_STALE)
        conn.execute(chain_sql.FORGET)
        fleet_sql.carry_trap_counts(conn)
        cur = conn.execute(
            "INSERT INTO runs(started_at, state) VALUES (?, 'running')", (started_at,)
        )
        self._cache.clear()
        self._recrawl = self._run_count() > 1
        if self._recrawl:
            conn.execute(LINKS_BY_PAGE)
        return int(cur.lastrowid or 0)

    def tally_traps(self, keys: Sequence[tuple[str, str]]) -> None:
        self._tally += keys

    @_reads
    def trapped_before(self) -> set[str]:
        return {str(row[0]) for row in self._conn.execute(TRAPPED_BEFORE_SQL)}

    def add_figures(self, figures: RunFigures) -> None:
        self._session.add(figures)

    def end_session(self) -> None:
        self._session.end()

    @_writes
    def end_run(self, state: str, ended_at: float) -> None:
        if end_run(self._begin(), state, ended_at):
            self._cache.clear()

    @_reads
    def run_started(self) -> float | None:
        return crawl_reads.run_started(self._conn)

    @_reads
    def runs(self) -> list[RunRow]:
        return crawl_reads.runs(self._conn)

    @_streams
    def changes_between(
        self, run_a: int, run_b: int
    ) -> Iterator[tuple[str, UrlFacts | None, UrlFacts | None]]:
        return _changes_between(Batched(self._conn), run_a, run_b)

    @_streams
    def facts_at(self, run: int) -> Iterator[UrlFacts]:
        return facts_at(Batched(self._conn), run)

    @_reads
    def url_history(self, url: str) -> list[UrlFacts]:
        return url_history(self._conn, url)

    @_writes
    def release_claims(self, now: float | None = None) -> int:
        now = time.time() if now is None else now
        cur = self._begin().execute(fleet_sql.RELEASE_SQL, (now,))
        self._cache.clear()
        return int(cur.rowcount)

    # -- results ------------------------------------------------------------------
    @_writes
    def finish(self, url_id: int, outcome: Outcome) -> None:
        conn = self._begin()
        if self._recrawl:  # fetched again: this fetch's facts replace the earlier run's
            for table, column in PAGE_FACTS:
                conn.execute(f"DELETE FROM {table} WHERE {column} = ?", (url_id,))
        conn.execute(_FINISH_SQL, outcome.update_values(url_id))
        if outcome.alternates:
            conn.executemany(
                "INSERT INTO alternates(page_id, hreflang, href) VALUES (?, ?, ?)",
                [(url_id, a.hreflang, a.href) for a in outcome.alternates],
            )
        if outcome.images:
            conn.executemany(
                "INSERT INTO images(page_id, loc) VALUES (?, ?)",
                [(url_id, loc) for loc in outcome.images],
            )
        if outcome.notes:
            conn.executemany(
                "INSERT INTO notes(page_id, code, message) VALUES (?, ?, ?)",
                [(url_id, code, message) for code, message in outcome.notes],
            )
        if outcome.render is not None:
            conn.execute(
                "INSERT OR REPLACE INTO renders(page_id, status, why, links) VALUES (?, ?, ?, ?)",
                (url_id, outcome.render, outcome.render_why, "\n".join(outcome.rendered_links)),
            )
        if outcome.thumbnail is not None:
            conn.execute(
                "INSERT OR REPLACE INTO thumbnails(page_id, type, image) VALUES (?, ?, ?)",
                (url_id, outcome.thumbnail.type, outcome.thumbnail.image),
            )

    @_writes
    def decide(self, url_id: int, reason: str, detail: str | None) -> None:
        self._begin().execute(
            "UPDATE urls SET state = 2, reason = ?, detail = ?, indexable = 0, etag = NULL, "
            "last_modified = NULL WHERE id = ?",
            (reason, detail, url_id),
        )

    @_reads
    def fate(self, url_id: int) -> Fate | None:
        return crawl_reads.fate(self._conn, url_id)

    @_writes
    def add_links(self, from_id: int, links: Sequence[tuple[int, bool, str]]) -> None:
        if links:
            self._begin().executemany(
                "INSERT INTO links(from_id, to_id, nofollow, kind) VALUES (?, ?, ?, ?)",
                # an int, not the bool: sqlite3 binds a bool through its adapter lookup
                # (0.4 us a row more here)
                [(from_id, to_id, 1 if nofollow else 0, kind) for to_id, nofollow, kind in links],
            )

    @_writes
    def add_redirect(self, from_id: int, hop: int, to_url: str, status: int) -> None:
        if self._recrawl and hop == 1:  # the chain as this run follows it
            self._begin().execute("DELETE FROM redirects WHERE from_id = ?", (from_id,))
        self._begin().execute(
            "INSERT INTO redirects(from_id, hop, to_url, status) VALUES (?, ?, ?, ?)",
            (from_id, hop, to_url, status),
        )

    @_writes
    def add_chain_hop(self, url_id: int, start_id: int, hop: int) -> None:
        self._begin().execute(chain_sql.ADD, (url_id, start_id, hop))

    @_reads
    def chain_before(self, url_id: int) -> list[Claimed]:
        return chain_sql.hops(self._conn.execute(chain_sql.BEFORE, chain_sql.before_args(url_id)))

    # -- reading ------------------------------------------------------------------
    @_reads
    def counts(self) -> dict[str, int]:
        return crawl_reads.counts(self._conn)

    @_reads
    def queued(self) -> int:
        """URLs waiting in the frontier (a count over the partial queue index)."""
        return int(self._conn.execute("SELECT COUNT(*) FROM urls WHERE state = 0").fetchone()[0])

    @_reads
    def reasons(self) -> dict[str, int]:
        return crawl_reads.reasons(self._conn)

    @_streams
    def sitemap_rows(self) -> Iterator[SitemapRow]:
        return _sitemap_rows(self._conn)

    @_writes
    def add_notes(self, notes: Sequence[tuple[str, str, str]]) -> None:
        if notes:
            self._begin().executemany(
                "INSERT INTO notes(page_id, code, message) "
                "SELECT u.id, ?, ? FROM urls u WHERE (u.url = ? OR u.loc = ?) AND NOT EXISTS "
                "(SELECT 1 FROM notes n WHERE n.page_id = u.id AND n.code = ? AND n.message = ?) "
                "LIMIT 1",
                [(code, msg, url, url, code, msg) for url, code, msg in notes],
            )

    @_reads
    def note_counts(self) -> dict[str, tuple[int, str]]:
        return crawl_reads.note_counts(self._conn)

    @_streams
    def noted(self, code: str) -> Iterator[tuple[str, str]]:
        cur = self._conn.execute(
            "SELECT COALESCE(u.loc, u.url), n.message FROM notes n JOIN urls u ON u.id = n.page_id "
            "WHERE n.code = ? ORDER BY n.rowid",
            (code,),
        )
        while rows := cur.fetchmany(1000):
            for url, message in rows:
                yield str(url), str(message)

    @_streams
    def page_records(self) -> Iterator[PageRecord]:
        """Every URL a crawl saw, in discovery order, as :class:`~sitemapkit.model.PageRecord`.

        Streams (constant memory); ``inlinks`` counts distinct pages linking to
        the URL, ``reason`` is ``None`` only for URLs in the sitemap.  ``extra``
        holds ``found_from`` (the page the URL was first found on) and
        ``detail`` (the canonical target, trap or redirect explanation) when known;
        for a rendered page, ``render`` (``rendered``, ``render-timeout`` ...),
        ``render_why`` and ``rendered_links`` (space-separated URLs only rendering found).
        """
        cur = self._conn.execute(crawl_reads.RECORD_SQL + " ORDER BY u.id")
        while True:
            rows = cur.fetchmany(1000)
            if not rows:
                return
            for row in rows:
                yield crawl_reads.page_record(row)

    @_streams
    def page_urls(self) -> Iterator[tuple[int, str, bool]]:
        cur = self._conn.execute(PAGE_URLS_SQL)
        while rows := cur.fetchmany(5000):
            yield from rows

    @_reads
    def explain(self, url: str) -> Explanation | None:
        return crawl_reads.explain(self._conn, url)

    @_reads
    def fetched_count(self, since: float) -> int:
        row = self._conn.execute("SELECT COUNT(*) FROM urls WHERE fetched_at >= ?", (since,))
        return int(row.fetchone()[0])

    @_reads
    def fetched_ids(self, after: float) -> list[tuple[int, float]]:
        return [
            (int(i), float(t))
            for i, t in self._conn.execute(
                "SELECT id, fetched_at FROM urls WHERE fetched_at > ? ORDER BY fetched_at, id",
                (after,),
            )
        ]

    @_reads
    def records_by_id(self, ids: Sequence[int]) -> list[PageRecord]:
        one = crawl_reads.RECORD_SQL + " WHERE u.id = ?"
        rows = (self._conn.execute(one, (url_id,)).fetchone() for url_id in ids)
        return [crawl_reads.page_record(row) for row in rows if row is not None]

    @_streams
    def thumbnails(self) -> Iterator[tuple[str, Thumbnail]]:
        """Every stored thumbnail with its page's URL (as :meth:`page_records` spells it)."""
        cur = self._conn.execute(
            "SELECT COALESCE(u.loc, u.url), t.type, t.image FROM thumbnails t "
            "JOIN urls u ON u.id = t.page_id ORDER BY t.page_id"
        )
        while True:
            rows = cur.fetchmany(100)
            if not rows:
                return
            for url, kind, image in rows:
                yield str(url), Thumbnail(str(kind), bytes(image))


# -- read-only helpers shared by the store and the module functions ---------------------


def _sitemap_rows(conn: sqlite3.Connection) -> Iterator[SitemapRow]:
    has_alt = conn.execute("SELECT 1 FROM alternates LIMIT 1").fetchone() is not None
    has_img = conn.execute("SELECT 1 FROM images LIMIT 1").fetchone() is not None
    cur = conn.execute(
        "SELECT id, COALESCE(loc, url), lastmod FROM urls WHERE indexable = 1 AND state = 2 "
        "ORDER BY id"
    )
    while True:
        rows = cur.fetchmany(1000)
        if not rows:
            return
        for url_id, url, lastmod in rows:
            alternates: tuple[Alternate, ...] = ()
            images: tuple[str, ...] = ()
            if has_alt:
                alternates = tuple(
                    Alternate(str(h), str(u))
                    for h, u in conn.execute(
                        "SELECT hreflang, href FROM alternates WHERE page_id = ? ORDER BY rowid",
                        (url_id,),
                    )
                )
            if has_img:
                images = tuple(
                    str(r[0])
                    for r in conn.execute(
                        "SELECT loc FROM images WHERE page_id = ? ORDER BY rowid", (url_id,)
                    )
                )
            yield SitemapRow(str(url), lastmod, alternates, images)


#: The URLs the last run stopped by a pattern's limit and this run has not judged yet
#: (:meth:`CrawlStore.trapped_before`).
TRAPPED_BEFORE_SQL = "SELECT url FROM urls WHERE state = 4 AND reason = 'trap-pattern'"

#: Insert a URL, or judge anew one known only from an earlier run (``STALE``): queued
#: again it keeps its last verdict and validators until fetched (a 304 keeps them);
#: decided otherwise (out of scope, trap ...), it drops both, so a later 304 can never
#: bring back a verdict that is no longer true.
REJUDGE_STALE = (
    "ON CONFLICT(url) DO UPDATE SET depth = excluded.depth, "
    "found_from = excluded.found_from, state = excluded.state, "
    "reason = CASE WHEN excluded.state = 0 THEN urls.reason ELSE excluded.reason END, "
    "detail = CASE WHEN excluded.state = 0 THEN urls.detail ELSE excluded.detail END, "
    "indexable = CASE WHEN excluded.state = 0 THEN urls.indexable ELSE 0 END, "
    "etag = CASE WHEN excluded.state = 0 THEN urls.etag END, "
    "last_modified = CASE WHEN excluded.state = 0 THEN urls.last_modified END "
    "WHERE urls.state = 4"
)
_ADD_URL_SQL = (
    "INSERT INTO urls(url, depth, found_from, state, reason, detail, loc, origin) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) " + REJUDGE_STALE
)
#: A fetched page's row (:meth:`Outcome.update_values`); a new fingerprint marks the run.
_FINISH_SQL = (
    "UPDATE urls SET state = 2, "
    + "".join(f"{column} = ?, " for column in UPDATED_COLUMNS)
    + "fingerprint_run = CASE WHEN fingerprint IS ? "
    "THEN fingerprint_run ELSE (SELECT MAX(id) FROM runs) END, fingerprint = ? WHERE id = ?"
)
#: What one fetch of a page records beside its row: replaced when it is fetched again.
PAGE_FACTS = (
    ("links", "from_id"),
    ("alternates", "page_id"),
    ("images", "page_id"),
    ("notes", "page_id"),
    ("renders", "page_id"),
    ("thumbnails", "page_id"),
)


#: :meth:`SqliteStore.page_urls` (plain SQL, the PostgreSQL store runs it too): the
#: verdict is made by the database, a Python step per row cost more than the read.
PAGE_URLS_SQL = (
    f"SELECT id, COALESCE(loc, url), (COALESCE(reason, '') = '{OUT_OF_SCOPE}' AND state NOT IN "
    f"{crawl_reads.UNDECIDED_SQL}) FROM urls ORDER BY id"
)


# -- the file test -------------------------------------------------------


def is_crawl_db(path: Path | str) -> bool:
    """True when ``path`` is a sitemapkit crawl database (never raises)."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            if fh.read(16) != b"SQLite format 3\x00":
                return False
        conn = _connect(p, readonly=True)
    except (OSError, sqlite3.Error):
        return False
    try:
        app = int(conn.execute("PRAGMA application_id").fetchone()[0])
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        return app == APPLICATION_ID and version >= 1
    except sqlite3.Error:
        return False
    finally:
        conn.close()
