"""Crawl state stores behind the :class:`~sitemapkit.store.base.CrawlStore` protocol.

All SQL lives in this package.  Open a store by its spec with :func:`open_store`
(a path for SQLite, the default); the rest of sitemapkit talks to the protocol.
"""

from sitemapkit.store.registry import (
    is_crawl_db,
    iter_page_records,
    open_audit_store,
    open_store,
    store_exists,
)

__all__ = ["is_crawl_db", "iter_page_records", "open_audit_store", "open_store", "store_exists"]
