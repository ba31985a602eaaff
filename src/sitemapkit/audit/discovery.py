"""Which sitemaps does a site publish, and does its robots.txt name them?

The reader's :func:`~sitemapkit.read.discover.discover` answers "which
sitemaps", but an audit also needs "where from": a sitemap found only at a
well-known path is ``sitemap-not-in-robots``, a robots.txt line that leads
nowhere is ``robots-sitemap-broken`` (judged later, from the validator's
findings).  The ``Sitemap:`` lines are parsed by the reader's one parser
(:func:`~sitemapkit.read.robots.parse_robots_sitemaps`); robots.txt is read
under the same 500 KiB cap (``limits.MAX_ROBOTS_BYTES``), so a 50 MB robots.txt
costs 500 KiB.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from sitemapkit.limits import MAX_ROBOTS_BYTES
from sitemapkit.model import Finding
from sitemapkit.read.discover import WELL_KNOWN_PATHS
from sitemapkit.read.discover import _looks_like_sitemap as looks_like_sitemap
from sitemapkit.read.discover import read_capped as _read
from sitemapkit.read.robots import parse_robots_sitemaps
from sitemapkit.read.source import ReadLimits, SourceProblem

if TYPE_CHECKING:
    import aiohttp

#: Bytes read of a well-known path to tell a sitemap from an HTML error page.
_HEAD_BYTES = 2048


@dataclass(slots=True)
class Discovery:
    """The site's sitemaps and their provenance."""

    robots_url: str
    #: ``Sitemap:`` URLs of robots.txt, in file order.
    in_robots: list[str] = field(default_factory=list)
    #: Well-known paths that answered with something sitemap-shaped and that robots.txt
    #: does not name (``sitemap-not-in-robots``; audited only when robots.txt names none).
    well_known: list[str] = field(default_factory=list)
    #: robots.txt findings of the reader (``robots-sitemap-relative``).
    findings: list[Finding] = field(default_factory=list)
    #: Why robots.txt could not be read (``None``: read, or 404 which means "no rules").
    robots_problem: str | None = None

    @property
    def sitemaps(self) -> list[str]:
        return self.in_robots or self.well_known


async def find_sitemaps(
    site_url: str, session: aiohttp.ClientSession, lim: ReadLimits | None = None
) -> Discovery:
    """robots.txt ``Sitemap:`` lines first; when it names none, the well-known paths."""
    lim = lim or ReadLimits()
    parts = urlsplit(site_url)
    origin = f"{parts.scheme}://{parts.netloc}"
    found = Discovery(robots_url=origin + "/robots.txt")
    body = b""
    try:
        body = await _read(session, found.robots_url, lim, MAX_ROBOTS_BYTES)
    except SourceProblem as exc:
        if exc.code != "http-404":
            found.robots_problem = f"{exc.code}: {exc.message}"
    robots = parse_robots_sitemaps(body, found.robots_url)
    found.in_robots, found.findings = list(robots.urls), list(robots.findings)
    named = set(found.in_robots)
    found.well_known = [
        url for url in await probe_well_known(origin, session, lim) if url not in named
    ]
    if not found.in_robots:
        found.well_known = found.well_known[:1]  # the reader's rule: the first one wins
    return found


async def probe_well_known(
    origin: str, session: aiohttp.ClientSession, lim: ReadLimits
) -> list[str]:
    """Every well-known sitemap path of ``origin`` that answers with a sitemap (2 KiB each)."""
    found: list[str] = []
    for path in WELL_KNOWN_PATHS:
        url = origin + path
        try:
            head = await _read(session, url, lim, _HEAD_BYTES)
        except SourceProblem:
            continue
        if looks_like_sitemap(head):
            found.append(url)
    return found
