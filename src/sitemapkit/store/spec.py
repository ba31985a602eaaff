"""Which kind of store a ``--db`` spec names, told without loading any store.

Why a module of its own: every command that takes ``--db`` asks this of its value
(:mod:`sitemapkit.cli.dbspec`, :mod:`sitemapkit.store.registry`), while the
PostgreSQL connection code (:mod:`sitemapkit.store.postgres_conn`) is needed only
when the answer is yes; a plain SQLite crawl does not import it (issue 13).
"""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit, urlunsplit

#: The URL schemes of a PostgreSQL crawl store.
SCHEMES = ("postgresql", "postgres")


def is_pg_spec(spec: object) -> bool:
    """True for a ``postgresql://`` or ``postgres://`` spec (a string, not a path)."""
    return isinstance(spec, str) and spec.partition("://")[0].lower() in SCHEMES and "://" in spec


def login_shown(parts: SplitResult) -> str:
    """A server URL's ``user@host:port`` as messages show it: never with its password."""
    host = parts.hostname or ""
    if parts.port is not None:
        host = f"{host}:{parts.port}"
    return f"{parts.username}@{host}" if parts.username else host


def shown(spec: object) -> str:
    """A ``--db`` value as messages and suggested commands show it.

    A PostgreSQL URL loses its password and keeps the rest (``sslmode``, the schema):
    the README promises the password is never shown (``~/.pgpass`` or ``PGPASSWORD``
    give it to the commands suggested); a file is its path.
    """
    if not is_pg_spec(spec):
        return str(spec)
    parts = urlsplit(str(spec))
    if parts.password is None:
        return str(spec)
    return urlunsplit(parts._replace(netloc=login_shown(parts)))
