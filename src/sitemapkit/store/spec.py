"""Which kind of store a ``--db`` spec names, told without loading any store.

Why a module of its own: every command that takes ``--db`` asks this of its value
(:mod:`sitemapkit.cli.dbspec`, :mod:`sitemapkit.store.registry`), while the
PostgreSQL connection code (:mod:`sitemapkit.store.postgres_conn`) is needed only
when the answer is yes; a plain SQLite crawl does not import it (issue 13).
"""

from __future__ import annotations

#: The URL schemes of a PostgreSQL crawl store.
SCHEMES = ("postgresql", "postgres")


def is_pg_spec(spec: object) -> bool:
    """True for a ``postgresql://`` or ``postgres://`` spec (a string, not a path)."""
    return isinstance(spec, str) and spec.partition("://")[0].lower() in SCHEMES and "://" in spec
