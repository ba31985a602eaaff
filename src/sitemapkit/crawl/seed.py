"""``--seed-from-sitemaps``: the site's own sitemaps as extra crawl seeds.

A crawl finds only what is linked; a site's sitemap often lists pages no
link reaches (orphans).  Reading them through the hardened reader (with the
crawl's own session, caps and all) and queueing their URLs finds those too —
and they still go through every decision (scope, robots, noindex, canonical).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

import aiohttp

from sitemapkit.crawl.urlnorm import QueryPolicy, normalize
from sitemapkit.model import Finding

#: URLs taken from the site's sitemaps at most (the crawl's own limits apply too).
MAX_SEED_URLS = 1_000_000


async def sitemap_urls(
    sitemaps: Sequence[str],
    *,
    session: aiohttp.ClientSession,
    policy: QueryPolicy,
    log: list[Finding] | None = None,
) -> AsyncIterator[str]:
    """The normalised, de-duplicated-per-call URLs listed by ``sitemaps`` (indexes followed)."""
    from sitemapkit.read.reader import aiter_entries

    count = 0
    for source in sitemaps:
        async for entry in aiter_entries(source, session=session, log=log):
            url = normalize(entry.loc, policy=policy)
            if url is None:
                continue
            yield url
            count += 1
            if count >= MAX_SEED_URLS:
                return
