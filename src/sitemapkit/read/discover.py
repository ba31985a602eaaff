"""Finding a site's sitemaps: robots.txt ``Sitemap:`` lines first, then well-known paths.

Why robots.txt first: it is where site owners declare sitemaps on purpose
([SM], [GR]); the well-known paths are a guess, tried only when robots.txt
names none.  The ``Sitemap:`` lines are read by the one parser,
:func:`sitemapkit.read.robots.parse_robots_sitemaps`, which the crawler calls too.
"""

from __future__ import annotations

from contextlib import aclosing
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

from sitemapkit.limits import MAX_ROBOTS_BYTES
from sitemapkit.model import Finding
from sitemapkit.read.robots import parse_robots_sitemaps
from sitemapkit.read.source import FetchInfo, ReadLimits, SourceProblem, fetch_chunks

if TYPE_CHECKING:
    import aiohttp

    from sitemapkit.addresses import AddressGuard

#: Paths tried, in order, when robots.txt names no sitemap; the first that answers wins.
WELL_KNOWN_PATHS: Final = (
    "/sitemap.xml",
    "/sitemap_index.xml",
    "/sitemap-index.xml",
    "/sitemap.xml.gz",
    "/wp-sitemap.xml",
    "/sitemap.txt",
)


async def read_capped(
    session: aiohttp.ClientSession,
    url: str,
    lim: ReadLimits,
    cap: int,
    guard: AddressGuard | None = None,
) -> bytes:
    """The first ``cap`` bytes of ``url`` (robots.txt, a sniffed head): a URL of the site the
    user named, so it is a start for ``guard`` (its redirects are judged)."""
    info = FetchInfo(url)
    buf = bytearray()
    async with aclosing(fetch_chunks(session, url, lim, info, guard, start=True)) as chunks:
        async for chunk in chunks:
            buf += chunk
            if len(buf) >= cap:
                break  # aclosing releases the connection now, not at garbage collection
    return bytes(buf[:cap])


def _looks_like_sitemap(head: bytes) -> bool:
    if head.startswith(b"\x1f\x8b"):
        return True
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith((b"http://", b"https://")):
        return True
    return any(tag in text for tag in (b"<urlset", b"<sitemapindex", b"<rss", b"<feed"))


async def discover(
    site_url: str,
    session: aiohttp.ClientSession,
    lim: ReadLimits | None = None,
    guard: AddressGuard | None = None,
) -> tuple[list[str], list[Finding]]:
    """Sitemap URLs of the site at ``site_url`` and the robots.txt findings met on the way."""
    lim = lim or ReadLimits()
    guard = guard or lim.guard()
    parts = urlsplit(site_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    robots_url = origin + "/robots.txt"
    findings: list[Finding] = []
    try:
        body = await read_capped(session, robots_url, lim, MAX_ROBOTS_BYTES, guard)
    except SourceProblem:
        body = b""
    robots = parse_robots_sitemaps(body, robots_url)
    findings.extend(robots.findings)
    if robots.urls:  # robots.txt names sitemaps: no guessing
        return list(robots.urls), findings
    for path in WELL_KNOWN_PATHS:
        url = origin + path
        try:
            head = await read_capped(session, url, lim, 2048, guard)
        except SourceProblem:
            continue
        if _looks_like_sitemap(head):
            return [url], findings
    return [], findings


async def discover_sitemaps(
    site_url: str, *, session: aiohttp.ClientSession, limits: ReadLimits | None = None
) -> list[str]:
    """The sitemap URLs a site declares in robots.txt, else the first well-known one found."""
    found, _ = await discover(site_url, session, limits)
    return found
