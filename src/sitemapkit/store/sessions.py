"""A run's figures, one row per session, and the fleet's count of URLs taken.

Why rows per session: a run's figures (pages, ``304``s, bytes) used to be written
once, by the process that ended the run, from its own memory.  A fleet worker that
stopped before the crawl ended (SIGTERM, ``--max-pages``, ``kill -9``) took its
figures with it, and ``history`` under-counted.  Now every process adds its pages'
figures to its own row with each commit, in the transaction that stores the pages
(:class:`Session`), so the figures are in the store as far as the pages are; a row
per session means no two workers ever wait for one row.  A session that closes says
so (``ended``); one that never did was killed, and ``history`` says that its
figures stop at its last commit.

The same SQL and schema serve both stores (``?`` placeholders; PostgreSQL runs them
through :class:`~sitemapkit.store.postgres_conn.Qmark`; SQLite reads ``BIGINT`` as an
integer).
"""

from __future__ import annotations

import os
import socket
import uuid

from sitemapkit.store.base import RunFigures

#: SQLite migration 16, PostgreSQL migration 5.  The figures runs had (``runs.pages``,
#: written at their end) become one closed session each, so a run's figures are always
#: its sessions' sum.  ``frontier_taken``: how many URLs the fleet took from the frontier
#: since the crawl (re)started, what ``--max-pages`` caps (one row, updated by the claim).
SESSIONS_SCHEMA = """
    CREATE TABLE run_sessions (
        run BIGINT NOT NULL,
        session TEXT NOT NULL,
        pages BIGINT NOT NULL DEFAULT 0,
        not_modified BIGINT NOT NULL DEFAULT 0,
        bytes BIGINT NOT NULL DEFAULT 0,
        ended INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (run, session)
    );
    INSERT INTO run_sessions(run, session, pages, not_modified, bytes, ended)
        SELECT id, 'before sessions', pages, COALESCE(not_modified, 0), COALESCE(bytes, 0), 1
        FROM runs WHERE pages IS NOT NULL;
    CREATE TABLE frontier_taken (id INTEGER PRIMARY KEY, taken BIGINT NOT NULL);
    INSERT INTO frontier_taken(id, taken) VALUES (1, 0)
"""

ADD_SQL = (
    "INSERT INTO run_sessions(run, session, pages, not_modified, bytes, ended) "
    "VALUES ((SELECT MAX(id) FROM runs), ?, ?, ?, ?, ?) "
    "ON CONFLICT(run, session) DO UPDATE SET pages = run_sessions.pages + excluded.pages, "
    "not_modified = run_sessions.not_modified + excluded.not_modified, "
    "bytes = run_sessions.bytes + excluded.bytes, "
    "ended = CASE WHEN excluded.ended = 1 THEN 1 ELSE run_sessions.ended END"
)

#: A run's figures: its sessions' sums (NULL: no session wrote any, a run before figures).
RUN_FIGURES_SQL = (
    "(SELECT SUM(s.pages) FROM run_sessions s WHERE s.run = runs.id), "
    "(SELECT SUM(s.not_modified) FROM run_sessions s WHERE s.run = runs.id), "
    "(SELECT SUM(s.bytes) FROM run_sessions s WHERE s.run = runs.id), "
    "(SELECT COUNT(*) FROM run_sessions s WHERE s.run = runs.id AND s.ended = 0)"
)


class Session:
    """This process's part of the current run: figures waiting for the next commit.

    A store keeps one and writes :meth:`take` just before each ``COMMIT`` (and
    :meth:`drop` on a rollback), so the figures land with the pages they describe.
    """

    def __init__(self) -> None:
        #: The row's key: where the process runs, and a random part (pids are reused).
        self.key = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._pages = self._not_modified = self._bytes = 0
        self._ended = False
        self._wrote = False

    def add(self, figures: RunFigures) -> None:
        self._pages += figures.pages
        self._not_modified += figures.not_modified
        self._bytes += figures.bytes

    def end(self) -> None:
        self._ended = True

    def pending(self) -> bool:
        """Anything to write: figures, or the end of a session that wrote some."""
        return bool(self._pages or self._not_modified or self._bytes) or (
            self._ended and self._wrote
        )

    def take(self) -> tuple[object, ...] | None:
        """The arguments of :data:`ADD_SQL` for what is pending (None: nothing), now cleared.

        Taken as values, not written here: the PostgreSQL store keeps each write to
        replay it after a lost connection, and a replay must add the same figures.
        """
        if not self.pending():
            return None
        args = (self.key, self._pages, self._not_modified, self._bytes, int(self._ended))
        self._pages = self._not_modified = self._bytes = 0
        self._wrote = not self._ended  # written as ended: nothing more to say
        return args

    def drop(self) -> None:
        """The transaction was rolled back: its figures went with its pages."""
        self._pages = self._not_modified = self._bytes = 0
