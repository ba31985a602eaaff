"""A build stamp among a crawl's lastmod dates, found before its sitemap is written.

A static site served from files that one build or deploy wrote (a Debian documentation
package, a site generator's output copied to a server) answers every page with the same
``Last-Modified``: the moment the files were written, not when each page changed.  Written
as lastmod, that date says every page changed at once, which is the "stamped at build time"
that the validator's ``lastmod-uniform`` rule warns about (and search engines learn to
ignore a site's lastmod for).  Measured on 7 Debian documentation packages served by
nginx (bench/realsites_bench.py): 5 had one date on 95-100% of their pages.

:func:`build_stamp` applies that same rule (:func:`sitemapkit.rulebook.hints.uniform_lastmod`)
to the dates the crawl would write; the writer then leaves that one date out (the pages
that carry another date keep theirs) and says so in one line.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sitemapkit.rulebook.hints import UNIFORM_TRACK, uniform_lastmod
from sitemapkit.store.base import CrawlStore

__all__ = ["BuildStamp", "build_stamp"]


@dataclass(frozen=True, slots=True)
class BuildStamp:
    """The date ``count`` of the ``total`` dated pages carry."""

    value: str
    count: int
    total: int

    def note(self) -> str:
        """The line the crawl's summary prints."""
        return (
            f"lastmod left out of {self.count:,} of {self.total:,} dated pages: they all said "
            f'"{self.value}", a build or deploy stamp, not when each page changed '
            "(lastmod-uniform)"
        )


def build_stamp(store: CrawlStore) -> BuildStamp | None:
    """The one date (nearly) every dated sitemap page of ``store`` carries, or ``None``."""
    counts: Counter[str] = Counter()
    total = 0
    for row in store.sitemap_rows():
        if row.lastmod is None:
            continue
        total += 1
        if row.lastmod in counts or len(counts) < UNIFORM_TRACK:
            counts[row.lastmod] += 1
    found = uniform_lastmod(counts, total)
    return None if found is None else BuildStamp(found[0], found[1], total)
