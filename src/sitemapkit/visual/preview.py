"""The first screen of a big crawl's map: the site's sections with their exact counts.

Why: the whole map of a 100,000-page crawl takes seconds to build (a record per
URL, a node per page) and the browser half a second more to read, while its
first screen shows the site's host and sections.  Here only the URLs with at
most one path segment (``/about``, ``/docs/``) become nodes, with their records
for titles and statuses; every deeper URL is counted on its section's folder
(:meth:`~sitemapkit.visual.builder.Builder.add_hidden`), from ids and URLs
alone (:meth:`~sitemapkit.store.base.CrawlStore.page_urls`).  The tree is the
whole tree's first level exactly (the same counts, order and External links
group) and :attr:`~sitemapkit.visual.tree.SiteTree.cut` says how many pages each
section holds unseen; the app shows it while the whole map is built behind.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from sitemapkit.model import OUT_OF_SCOPE, PageRecord
from sitemapkit.visual.builder import Builder
from sitemapkit.visual.tree import SiteTree, paused_gc

__all__ = ["MAX_RECORDS", "PREVIEW_OVER", "preview_tree", "split_rows"]

#: URLs a store holds before the app shows a first screen ahead of the whole map.
PREVIEW_OVER = 20_000

#: Top-level pages read as whole records (a site whose every page sits at the top
#: shows the rest of them by URL until the whole map comes).
MAX_RECORDS = 2_000

#: A page row: the store's id, the URL, and whether the crawl called it out of scope.
UrlRow = tuple[int, str, bool]
#: (scheme, host, first segment) -> (one URL below it, [URLs below, out of scope below])
Hidden = dict[tuple[str, str, str], tuple[str, list[int]]]


def split_rows(rows: Iterable[UrlRow]) -> tuple[list[UrlRow], Hidden]:
    """Top-level rows, and the deeper ones counted by section.

    Deeper means ``scheme://host/first/more`` with a plain first segment (no
    ``?`` or ``#``, not empty); everything else is placed as it is, so odd URLs
    take the builder's own path.  An exact URL seen twice counts once, as in
    the whole tree.
    """
    top: list[UrlRow] = []
    hidden: Hidden = {}
    seen: set[str] = set()
    for row in rows:
        url = row[1]
        parts = url.split("/", 4)
        if (
            len(parts) < 5
            or not parts[4]
            or parts[1]
            or not parts[3]
            or "?" in parts[3]
            or "#" in parts[3]
            or "?" in parts[2]
            or "#" in parts[2]
        ):
            top.append(row)
            continue
        if url in seen:
            continue
        seen.add(url)
        key = (parts[0], parts[2], parts[3])
        group = hidden.get(key)
        if group is None:
            hidden[key] = (url, [1, int(row[2])])
        else:
            counts = group[1]
            counts[0] += 1
            counts[1] += row[2]
    return top, hidden


def _top_records(store_records: list[PageRecord], top: list[UrlRow]) -> Iterator[PageRecord]:
    """Whole records for the first rows, bare ones (URL and scope) for the rest."""
    yield from store_records
    for _, url, outside in top[len(store_records) :]:
        yield PageRecord(url=url, reason=OUT_OF_SCOPE if outside else None)


def preview_tree(spec: str) -> SiteTree:
    """The first screen's tree of the crawl store ``spec`` (see the module's docstring)."""
    from sitemapkit.store import open_store

    store = open_store(spec, mode="read")
    try:
        with paused_gc():
            top, hidden = split_rows(store.page_urls())
            records = store.records_by_id([i for i, _, _ in top[:MAX_RECORDS]])
    finally:
        store.close()
    with paused_gc():
        builder = Builder()
        builder.add_records(_top_records(records, top))
        builder.found_from.clear()  # a depth tree of the top pages alone would mislead
        for url, (pages, outside) in hidden.values():
            builder.add_hidden(url, pages, outside)
        tree = builder.finish()
    tree.has_depth_tree = False
    return tree
