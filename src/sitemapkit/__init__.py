"""sitemapkit: crawl a site, write standards-perfect sitemaps, validate any sitemap,
and draw an interactive visual sitemap.

The public API is exactly ``__all__``; everything else is internal and may change.
The values and errors are imported eagerly; the heavier parts (writer, reader,
validator, crawler, visual map) load on first use (PEP 562), so ``import
sitemapkit`` and the CLI's start-up stay fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sitemapkit.errors import (
    EmptySetError,
    EntryError,
    FetchError,
    InputError,
    LimitError,
    PublishError,
    SitemapkitError,
    StoreError,
)
from sitemapkit.model import (
    Alternate,
    ChangeFreq,
    Finding,
    Image,
    News,
    PageRecord,
    Severity,
    SitemapRef,
    UrlEntry,
    Video,
    VideoPlatform,
    VideoRestriction,
)
from sitemapkit.urls import Scope, iri_to_uri

if TYPE_CHECKING:
    from sitemapkit.crawl.config import CrawlConfig
    from sitemapkit.crawl.engine import Crawler, CrawlResult, CrawlStats
    from sitemapkit.crawl.robots import RobotsPolicy
    from sitemapkit.crawl.urlnorm import QueryPolicy, normalize
    from sitemapkit.read.discover import discover_sitemaps
    from sitemapkit.read.reader import SourcedEntry, aiter_entries, iter_entries
    from sitemapkit.store.base import CrawlStore
    from sitemapkit.store.registry import is_crawl_db, iter_page_records, open_store
    from sitemapkit.store.sqlite import SqliteStore
    from sitemapkit.validate.validator import ValidationReport, avalidate, validate
    from sitemapkit.visual.page import write_visual_map
    from sitemapkit.visual.tree import SiteTree
    from sitemapkit.write.writer import (
        SitemapSetWriter,
        WriteResult,
        WriterOptions,
        write_sitemaps,
        write_sitemaps_async,
    )

__version__ = "0.1.0"

#: public name -> the module that defines it, imported on first access
_LAZY: dict[str, str] = {
    "CrawlConfig": "sitemapkit.crawl.config",
    "CrawlResult": "sitemapkit.crawl.engine",
    "CrawlStats": "sitemapkit.crawl.engine",
    "CrawlStore": "sitemapkit.store.base",
    "Crawler": "sitemapkit.crawl.engine",
    "QueryPolicy": "sitemapkit.crawl.urlnorm",
    "RobotsPolicy": "sitemapkit.crawl.robots",
    "SiteTree": "sitemapkit.visual.tree",
    "SitemapSetWriter": "sitemapkit.write.writer",
    "SourcedEntry": "sitemapkit.read.reader",
    "SqliteStore": "sitemapkit.store.sqlite",
    "ValidationReport": "sitemapkit.validate.validator",
    "WriteResult": "sitemapkit.write.writer",
    "WriterOptions": "sitemapkit.write.writer",
    "aiter_entries": "sitemapkit.read.reader",
    "avalidate": "sitemapkit.validate.validator",
    "discover_sitemaps": "sitemapkit.read.discover",
    "is_crawl_db": "sitemapkit.store.registry",
    "iter_entries": "sitemapkit.read.reader",
    "iter_page_records": "sitemapkit.store.registry",
    "normalize": "sitemapkit.crawl.urlnorm",
    "open_store": "sitemapkit.store.registry",
    "validate": "sitemapkit.validate.validator",
    "write_sitemaps": "sitemapkit.write.writer",
    "write_sitemaps_async": "sitemapkit.write.writer",
    "write_visual_map": "sitemapkit.visual.page",
}


# (``crawl()`` itself is not exported here: ``sitemapkit.crawl`` is the subpackage;
# use ``Crawler`` or ``sitemapkit.crawl.engine.crawl``.)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'sitemapkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Alternate",
    "ChangeFreq",
    "CrawlConfig",
    "CrawlResult",
    "CrawlStats",
    "CrawlStore",
    "Crawler",
    "EmptySetError",
    "EntryError",
    "FetchError",
    "Finding",
    "Image",
    "InputError",
    "LimitError",
    "News",
    "PageRecord",
    "PublishError",
    "QueryPolicy",
    "RobotsPolicy",
    "Scope",
    "Severity",
    "SiteTree",
    "SitemapRef",
    "SitemapSetWriter",
    "SitemapkitError",
    "SourcedEntry",
    "SqliteStore",
    "StoreError",
    "UrlEntry",
    "ValidationReport",
    "Video",
    "VideoPlatform",
    "VideoRestriction",
    "WriteResult",
    "WriterOptions",
    "__version__",
    "aiter_entries",
    "avalidate",
    "discover_sitemaps",
    "iri_to_uri",
    "is_crawl_db",
    "iter_entries",
    "iter_page_records",
    "normalize",
    "open_store",
    "validate",
    "write_sitemaps",
    "write_sitemaps_async",
    "write_visual_map",
]
