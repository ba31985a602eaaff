"""``--seed-from-sitemaps``: the site's own sitemaps as extra crawl seeds.

A crawl finds only what is linked; a site's sitemap often lists pages no
link reaches (orphans).  Reading them through the hardened reader (caps and all,
with the crawl's User-Agent and no cookies) and queueing their URLs finds those
too — and they still go through every decision (scope, robots, noindex, canonical).
The reader speaks aiohttp: it is imported here, only when the crawl asks for seeds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from sitemapkit.crawl.urlnorm import QueryPolicy, normalize
from sitemapkit.model import Finding

#: URLs taken from the site's sitemaps at most (the crawl's own limits apply too).
MAX_SEED_URLS = 1_000_000


async def sitemap_urls(
    sitemaps: Sequence[str],
    *,
    user_agent: str,
    policy: QueryPolicy,
    log: list[Finding] | None = None,
) -> AsyncIterator[str]:
    """The normalised, de-duplicated-per-call URLs listed by ``sitemaps`` (indexes followed)."""
    import aiohttp

    from sitemapkit.read.reader import aiter_entries

    count = 0
    headers = {"User-Agent": user_agent}
    async with aiohttp.ClientSession(
        headers=headers, cookie_jar=aiohttp.DummyCookieJar()
    ) as session:
        for source in sitemaps:
            async for entry in aiter_entries(source, session=session, log=log):
                url = normalize(entry.loc, policy=policy)
                if url is None:
                    continue
                yield url
                count += 1
                if count >= MAX_SEED_URLS:
                    return
