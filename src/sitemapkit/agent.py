"""The one User-Agent of every request sitemapkit sends (the reader's, the crawler's default).

A module of its own so the crawl takes it without loading the sitemap reader's HTTP
source (``read/source.py``: its address guard and two dataclasses), which a crawl never
calls (``tests/cli/test_imports.py``).
"""

from __future__ import annotations

from typing import Final

from sitemapkit import __version__

USER_AGENT: Final = f"sitemapkit/{__version__} (+https://github.com/sitemapkit/sitemapkit)"
