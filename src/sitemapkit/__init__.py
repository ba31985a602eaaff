"""sitemapkit: crawl a site, write standards-perfect sitemaps, validate any sitemap,
and draw an interactive visual sitemap.

The public API is exactly ``__all__``; everything else is internal and may change.
"""

from __future__ import annotations

from sitemapkit.errors import (
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

__version__ = "0.1.0"

__all__ = [
    "Alternate",
    "ChangeFreq",
    "EntryError",
    "FetchError",
    "Finding",
    "Image",
    "InputError",
    "LimitError",
    "News",
    "PageRecord",
    "PublishError",
    "Scope",
    "Severity",
    "SitemapRef",
    "SitemapkitError",
    "StoreError",
    "UrlEntry",
    "Video",
    "VideoPlatform",
    "VideoRestriction",
    "__version__",
    "iri_to_uri",
]
