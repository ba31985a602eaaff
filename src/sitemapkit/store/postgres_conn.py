"""Reaching a PostgreSQL crawl store: the spec, the connection, retries, and the error guard.

Why these choices:

* **One schema per crawl.**  ``postgresql://host/db?schema=NAME`` keeps a crawl's
  tables in schema ``NAME`` (default ``sitemapkit``), so one database holds many crawls
  (an agency's 500 sites), each dropped whole by ``--db ... `` in ``replace`` mode, and
  every query stays unqualified (``search_path``).  ``schema`` is ours, not libpq's: it
  is taken out of the URL before connecting.
* **The name never carries a password**: it is what every message shows.
* **A lost connection is retried with backoff** (0.5 s doubling, six tries, about half
  a minute), each try announced on stderr in one line, because a database restart or a
  network blip should not end a crawl of a million pages.
* **psycopg is optional** (``pip install 'sitemapkit[postgres]'``): it is imported
  here, on first use, and its absence is one line naming the extra.
"""

from __future__ import annotations

import functools
import itertools
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, Protocol, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from sitemapkit.errors import StoreError, StoreUnreachableError
from sitemapkit.store.guard import cannot, guard_stream
from sitemapkit.store.spec import login_shown

if TYPE_CHECKING:
    import psycopg

_P = ParamSpec("_P")
_R = TypeVar("_R")
_T = TypeVar("_T")

DEFAULT_SCHEMA = "sitemapkit"
#: A schema name we create and drop: plain, so it never needs a second quoting rule.
_SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}\Z")
#: Seconds before each reconnection attempt.
BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
#: Rows a server-side cursor fetches at a time.
STREAM_BATCH = 1000
_cursor_names = itertools.count(1)


@dataclass(frozen=True, slots=True)
class PgSpec:
    """A parsed ``postgresql://`` spec: what libpq gets, what messages show, the schema."""

    conninfo: str
    name: str
    schema: str


def parse_spec(spec: str) -> PgSpec:
    """Split ``spec`` into the libpq URL, a password-free name and the crawl's schema."""
    parts = urlsplit(spec)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schemas = [v for k, v in query if k == "schema"]
    schema = schemas[-1] if schemas else DEFAULT_SCHEMA
    if not _SCHEMA_NAME.match(schema):
        raise StoreError(
            f"{spec.partition('?')[0]}: schema={schema!r}: use lower-case letters, digits "
            "and _ (at most 63, not starting with a digit)"
        )
    rest = urlencode([(k, v) for k, v in query if k != "schema"])
    conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, rest, ""))
    shown = urlunsplit((parts.scheme, login_shown(parts), parts.path, f"schema={schema}", ""))
    return PgSpec(conninfo=conninfo, name=shown, schema=schema)


def psycopg_module() -> object:
    """Import psycopg, or one line saying which extra brings it."""
    try:
        import psycopg
    except ImportError as exc:
        raise StoreError(
            "PostgreSQL stores need psycopg 3: pip install 'sitemapkit[postgres]'"
        ) from exc
    return psycopg


def connect(
    spec: PgSpec,
    *,
    autocommit: bool,
    say: Callable[[str], None] | None = None,
    tries: int = len(BACKOFF) + 1,
) -> psycopg.Connection:
    """A connection with ``search_path`` set to the crawl's schema, retried with backoff."""
    psycopg_module()
    import psycopg

    tell = say or _stderr
    delays = (*BACKOFF[: tries - 1], None)
    for attempt, delay in enumerate(delays, 1):
        try:
            conn = psycopg.connect(spec.conninfo, autocommit=True, connect_timeout=10)
        except psycopg.OperationalError as exc:
            if delay is None:
                raise StoreUnreachableError(
                    f"{spec.name}: cannot connect after {attempt} tries: {_first_line(exc)}"
                ) from exc
            tell(
                f"sitemapkit: {spec.name}: cannot connect ({_first_line(exc)}); "
                f"retrying in {delay:g} s ({attempt}/{len(delays) - 1})"
            )
            time.sleep(delay)
            continue
        conn.execute(f'SET search_path TO "{spec.schema}"')
        conn.autocommit = autocommit
        return conn
    raise AssertionError("unreachable")  # pragma: no cover


def server_rows(
    conn: psycopg.Connection, sql: str, args: Sequence[object] = ()
) -> Iterator[Sequence[Any]]:
    """Rows of ``sql`` from a server-side cursor, so memory stays flat on any size.

    ``WITH HOLD``: the cursor outlives a commit made while the rows are read.
    """
    name = f"sitemapkit_{next(_cursor_names)}"
    with conn.cursor(name=name, withhold=True) as cur:
        cur.itersize = STREAM_BATCH
        cur.execute(sql, args)
        yield from cur


def pg_params(sql: str) -> str:
    """SQL both stores share (``?`` placeholders) in psycopg's spelling (``%s``).

    Only for statements with no literal ``?`` or ``%``.
    """
    return sql.replace("?", "%s")


class Qmark:
    """A PostgreSQL connection that takes ``?`` placeholders, for the SQL both stores share
    (a :class:`~sitemapkit.store.sqlreader.SqlStreamer`).

    Only for statements with no literal ``?`` or ``%`` (the shared read helpers).
    """

    def __init__(self, conn: psycopg.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, parameters: Sequence[object] = (), /) -> psycopg.Cursor:
        return self._conn.execute(pg_params(sql), parameters)

    def stream(self, sql: str, parameters: Sequence[object] = (), /) -> Iterator[Sequence[Any]]:
        return server_rows(self._conn, pg_params(sql), parameters)


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def is_connection_lost(exc: BaseException) -> bool:
    """True when ``exc`` means the server or the network went away (worth reconnecting)."""
    import psycopg

    if isinstance(exc, psycopg.OperationalError):
        return True
    return isinstance(exc, psycopg.errors.AdminShutdown | psycopg.errors.CrashShutdown)


class Guarded(Protocol):
    """A store that names itself in messages and can reconnect."""

    @property
    def name(self) -> str: ...

    def checkpoint(self) -> int:
        """Where the current call starts in the batch of writes to replay."""
        ...

    def recover(self, exc: BaseException, checkpoint: int) -> bool:
        """Reconnect after a lost connection and replay the batch up to ``checkpoint``."""
        ...


_S = TypeVar("_S", bound=Guarded)


def pg_guard(
    what: str, error: type[StoreError]
) -> Callable[[Callable[Concatenate[_S, _P], _R]], Callable[Concatenate[_S, _P], _R]]:
    """A decorator: a lost connection is recovered and the call retried once; any other
    ``psycopg`` failure is ``error("NAME: cannot WHAT: ...")``."""

    def decorate(method: Callable[Concatenate[_S, _P], _R]) -> Callable[Concatenate[_S, _P], _R]:
        @functools.wraps(method)
        def guarded(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
            import psycopg

            mark = self.checkpoint()
            try:
                return method(self, *args, **kwargs)
            except psycopg.Error as exc:
                if not self.recover(exc, mark):
                    raise error(cannot(self, what, _first_line(exc))) from exc
            try:
                return method(self, *args, **kwargs)
            except psycopg.Error as exc:
                raise error(cannot(self, what, _first_line(exc))) from exc

        return guarded

    return decorate


def _psycopg_error() -> type[Exception]:
    import psycopg

    return psycopg.Error


def pg_guard_stream(
    what: str, error: type[StoreError]
) -> Callable[
    [Callable[Concatenate[_S, _P], Iterator[_T]]], Callable[Concatenate[_S, _P], Iterator[_T]]
]:
    """:func:`~sitemapkit.store.guard.guard_stream` for ``psycopg`` (no retry once rows
    were given)."""
    return guard_stream(what, error, caught=_psycopg_error, cause=_first_line)
