"""The audit's left side: every URL the sitemaps list, read once into the store.

Each ``<loc>`` becomes a :class:`~sitemapkit.store.rows.ListedRow` with its
sitemap and line; each hreflang alternate of an entry becomes one too
(``kind="alternate"``), so alternates get a known fate like any listed URL.
Rows are keyed by the crawl's own spelling of the URL (the crawl's
normaliser and query policy), which is what makes "listed" and "crawled" meet.
Reading streams in batches: a million listed URLs never sit in a Python list.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sitemapkit.crawl.urlnorm import QueryPolicy, normalize
from sitemapkit.model import Finding
from sitemapkit.read.reader import aiter_sourced
from sitemapkit.read.source import ReadLimits
from sitemapkit.read.walk import is_url
from sitemapkit.store.base import AuditStore
from sitemapkit.store.rows import ListedRow

if TYPE_CHECKING:
    import aiohttp

_BATCH = 1000


def listed_key(url: str, policy: QueryPolicy) -> str:
    """The crawl's spelling of ``url`` (the URL itself, trimmed, when it cannot be crawled)."""
    return normalize(url, policy=policy) or url.strip()


async def read_listed(
    store: AuditStore,
    sources: Sequence[str],
    *,
    session: aiohttp.ClientSession | None,
    site_root: str,
    policy: QueryPolicy,
    limits: ReadLimits | None = None,
    log: list[Finding] | None = None,
) -> int:
    """Store every loc (and hreflang alternate) of ``sources``; return how many locs."""
    batch: list[ListedRow] = []
    count = 0
    for source in sources:
        served_at = None if is_url(source) else site_root
        async for item in aiter_sourced(
            source, session=session, limits=limits, sitemap_url=served_at, log=log
        ):
            entry = item.entry
            count += 1
            batch.append(
                ListedRow(
                    listed_key(entry.loc, policy),
                    entry.loc,
                    item.sitemap,
                    item.line,
                    None if entry.lastmod is None else str(entry.lastmod),
                )
            )
            for alt in entry.alternates:
                batch.append(
                    ListedRow(
                        listed_key(alt.href, policy),
                        alt.href,
                        item.sitemap,
                        item.line,
                        kind="alternate",
                        parent=entry.loc,
                    )
                )
            if len(batch) >= _BATCH:
                store.add_listed(batch)
                batch.clear()
    store.add_listed(batch)
    store.commit()
    return count
