"""A build stamp among a crawl's lastmod dates, found before its sitemap is written.

A static site served from files that one build or deploy wrote (a Debian documentation
package, a site generator's output copied to a server) answers every page with the same
``Last-Modified``: the moment the files were written, not when each page changed.  Written
as lastmod, that date says every page changed at once, which is the "stamped at build time"
that the validator's ``lastmod-uniform`` rule warns about (and search engines learn to
ignore a site's lastmod for).  Measured on 7 Debian documentation packages served by
nginx (bench/realsites_bench.py): 5 had one date on 95-100% of their pages.

:func:`build_stamp` applies that same rule (:func:`sitemapkit.rulebook.hints.uniform_lastmod`)
to the dates the crawl would write; the writer then leaves that date out (the pages
that carry another date keep theirs, unless those are one stamp too) and says so in one
line.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sitemapkit.rulebook.hints import UNIFORM_TRACK, uniform_lastmod
from sitemapkit.store.base import CrawlStore

__all__ = ["BuildStamp", "build_stamp"]


@dataclass(frozen=True, slots=True)
class BuildStamp:
    """The dates (``values``) that ``count`` of the ``total`` dated pages carry."""

    values: tuple[str, ...]
    count: int
    total: int

    def note(self) -> str:
        """The line the crawl's summary prints."""
        said = " or ".join(f'"{v}"' for v in self.values)
        what = "a build or deploy stamp" if len(self.values) == 1 else "build or deploy stamps"
        return (
            f"lastmod left out of {self.count:,} of {self.total:,} dated pages: they all said "
            f"{said}, {what}, not when each page changed (lastmod-uniform)"
        )


def build_stamp(store: CrawlStore) -> BuildStamp | None:
    """The build stamps among the dates of ``store``'s sitemap pages, or ``None``.

    A stamp is a date that (nearly) every dated page carries; with it left out, the rest
    is judged again, since a package can hold two builds (libstdc++'s docs: 3,651 pages of
    the Debian build and the other 102 of the upstream one, each one date).
    """
    counts: Counter[str] = Counter()
    total = 0
    for row in store.sitemap_rows():
        if row.lastmod is None:
            continue
        total += 1
        if row.lastmod in counts or len(counts) < UNIFORM_TRACK:
            counts[row.lastmod] += 1
    values: list[str] = []
    left = total
    while (found := uniform_lastmod(counts, left)) is not None:
        values.append(found[0])
        left -= found[1]
        del counts[found[0]]
    return BuildStamp(tuple(values), total - left, total) if values else None
