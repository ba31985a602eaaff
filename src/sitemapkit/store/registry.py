"""Which store a ``--db`` spec names, opened in one place.

A spec is a path (the SQLite default, ``crawl.sqlite``), ``sqlite:///path``, or
a database URL.  Everything that opens a crawl store (the crawl, ``--why``,
``inventory``, ``visualize``, the demo) comes through :func:`open_store`, so a
second store (PostgreSQL: ``postgresql://...``) is added here and nowhere else.
The SQLite module is imported only when a SQLite store is opened, the PostgreSQL
one (and psycopg, an optional extra) only when a ``postgresql://`` spec is.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sitemapkit.errors import StoreError
from sitemapkit.model import PageRecord
from sitemapkit.store.base import AuditStore, CrawlStore, FleetStore, OpenMode
from sitemapkit.store.spec import is_pg_spec


def _sqlite_path(spec: str | Path) -> Path:
    """The SQLite file of ``spec``, or a :class:`StoreError` for any other kind."""
    if isinstance(spec, Path):
        return spec
    scheme, sep, rest = spec.partition("://")
    if not sep:
        return Path(spec.removeprefix("sqlite:")) if spec.startswith("sqlite:") else Path(spec)
    if scheme.lower() == "sqlite":
        return Path(rest) if rest.startswith("/") else Path("/" + rest)
    raise StoreError(f"{scheme}://...: not a kind of crawl store sitemapkit knows")


def open_store(spec: str | Path, *, mode: OpenMode = "open", shared: bool = False) -> CrawlStore:
    """Open the crawl store ``spec`` names, as ``mode`` says (:data:`OpenMode`).

    Every mode but ``read`` locks the store for this process until ``close()``;
    a second writer gets :class:`~sitemapkit.errors.StoreBusyError` and nothing
    is touched (``replace`` deletes the old crawl only once the lock is held).
    Any other problem (not a crawl, a newer schema, ``new`` on an existing
    store) is a :class:`StoreError` naming the store.  ``shared``: a fleet's store,
    written by several worker processes at once (:func:`open_fleet_store`).
    """
    if shared:
        return open_fleet_store(spec, mode=mode)
    return open_audit_store(spec, mode=mode)


def open_fleet_store(spec: str | Path, *, mode: OpenMode = "open") -> FleetStore:
    """:func:`open_store` for a fleet: shared with the other workers, leases and all."""
    if is_pg_spec(spec):
        from sitemapkit.store.postgres import PostgresStore

        return PostgresStore(str(spec), mode=mode, shared=True)
    from sitemapkit.store.sqlite import SqliteStore

    return SqliteStore(_sqlite_path(spec), mode=mode, shared=True)


def open_audit_store(spec: str | Path, *, mode: OpenMode = "open") -> AuditStore:
    """:func:`open_store` for ``sitemapkit audit``: the crawl store with the audit's tables."""
    if is_pg_spec(spec):
        from sitemapkit.store.postgres import PostgresStore

        return PostgresStore(str(spec), mode=mode)
    from sitemapkit.store.sqlite import SqliteStore

    return SqliteStore(_sqlite_path(spec), mode=mode)


def is_crawl_db(spec: str | Path) -> bool:
    """True when ``spec`` names an existing sitemapkit crawl store (never raises)."""
    if is_pg_spec(spec):
        from sitemapkit.store import postgres

        return postgres.is_crawl_db(str(spec))
    try:
        path = _sqlite_path(spec)
    except StoreError:
        return False
    from sitemapkit.store import sqlite

    return sqlite.is_crawl_db(path)


def store_exists(spec: str | Path) -> bool:
    """True when something is already stored under ``spec`` (a crawl or any other file)."""
    if is_pg_spec(spec):
        return is_crawl_db(spec)
    return _sqlite_path(spec).exists()


def iter_page_records(spec: str | Path) -> Iterator[PageRecord]:
    """Every URL the crawl in ``spec`` saw, in discovery order (streamed, read-only).

    See :meth:`~sitemapkit.store.base.CrawlStore.page_records`; the store is
    opened when iteration starts and closed when it ends.
    """
    store = open_store(spec, mode="read")
    try:
        yield from store.page_records()
    finally:
        store.close()
