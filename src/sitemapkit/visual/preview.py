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

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from itertools import compress
from operator import itemgetter, methodcaller

from sitemapkit.model import OUT_OF_SCOPE, PageRecord
from sitemapkit.visual.builder import Builder
from sitemapkit.visual.tree import SiteTree, paused_gc

__all__ = ["MAX_RECORDS", "PREVIEW_OVER", "preview_tree", "split_rows", "split_slowly"]

#: URLs a store holds before the app shows a first screen ahead of the whole map.
PREVIEW_OVER = 20_000

#: Top-level pages read as whole records (a site whose every page sits at the top
#: shows the rest of them by URL until the whole map comes).
MAX_RECORDS = 2_000

#: A page row: the store's id, the URL, and whether the crawl called it out of scope.
UrlRow = tuple[int, str, bool]
#: (scheme, host, first segment) -> (one URL below it, [URLs below, out of scope below])
Hidden = dict[tuple[str, str, str], tuple[str, list[int]]]


def split_rows(rows: Sequence[UrlRow]) -> tuple[list[UrlRow], Hidden]:
    """Top-level rows, and the deeper ones counted by section.

    Deeper means ``scheme://host/first/more`` with a plain first segment (no
    ``?`` or ``#``, not empty); everything else is placed as it is, so odd URLs
    take the builder's own path.  An exact URL seen twice counts once, as in
    the whole tree.

    Why by folder: the per-URL steps (the part before the last ``/``, counting)
    run in C (``map``, ``Counter``); Python looks at each folder once.  A store
    where one URL is spelled twice (a canonical ``loc``) takes :func:`split_slowly`.
    """
    urls = list(map(itemgetter(1), rows))
    known = set(urls)
    if len(known) != len(urls):
        return split_slowly(rows)
    heads = list(map(itemgetter(0), map(methodcaller("rpartition", "/"), urls)))
    per_head = Counter(heads)
    outside = Counter(compress(heads, map(itemgetter(2), rows)))
    hidden: Hidden = {}
    top_heads: set[str] = set()
    folder_pages: dict[str, tuple[str, str, str]] = {}  # "/first/" itself: a top page
    for head, pages in per_head.items():
        parts = head.split("/", 4)
        where = parts[2] + "/" + parts[3] if len(parts) > 3 else "?"
        if "?" in where or "#" in where or parts[1] or not parts[3]:
            top_heads.add(head)
            continue
        key = (parts[0], parts[2], parts[3])
        if len(parts) == 4 and head + "/" in known:
            folder_pages[head + "/"] = key
            pages -= 1
        group = hidden.setdefault(key, (head, [0, 0]))[1]
        group[0] += pages
        group[1] += outside[head]
    top = [
        row
        for row, head in zip(rows, heads, strict=True)
        if head in top_heads or (folder_pages and row[1] in folder_pages)
    ]
    for _, url, out in top:
        section = folder_pages.get(url) if out else None
        if section is not None:  # counted with its folder's deeper pages above: not one
            hidden[section][1][1] -= 1
    for key in [k for k, (_, (pages, _)) in hidden.items() if not pages]:
        del hidden[key]
    return top, hidden


def _is_top(url: str) -> bool:
    parts = url.split("/", 4)
    return not (
        len(parts) == 5
        and parts[4]
        and parts[3]
        and not parts[1]
        and "?" not in parts[2] + parts[3]
        and "#" not in parts[2] + parts[3]
    )


def split_slowly(rows: Iterable[UrlRow]) -> tuple[list[UrlRow], Hidden]:
    """:func:`split_rows` one URL at a time (exact duplicates dropped from the counts)."""
    top: list[UrlRow] = []
    hidden: Hidden = {}
    seen: set[str] = set()
    for row in rows:
        url = row[1]
        if _is_top(url):
            top.append(row)
            continue
        if url in seen:
            continue
        seen.add(url)
        parts = url.split("/", 4)
        group = hidden.setdefault((parts[0], parts[2], parts[3]), (url, [0, 0]))[1]
        group[0] += 1
        group[1] += int(row[2])
    return top, hidden


def _top_records(store_records: list[PageRecord], top: list[UrlRow]) -> Iterator[PageRecord]:
    """Whole records for the first rows, bare ones (URL and scope) for the rest."""
    yield from store_records
    for _, url, outside in top[len(store_records) :]:
        yield PageRecord(url=url, reason=OUT_OF_SCOPE if outside else None)


def preview_tree(spec: str, *, over: int = 0) -> SiteTree | None:
    """The first screen's tree of the crawl store ``spec`` (see the module's docstring);
    ``None`` when it holds no more than ``over`` URLs (the whole map is quick then)."""
    from sitemapkit.store import open_store

    store = open_store(spec, mode="read")
    try:
        with paused_gc():
            rows = list(store.page_urls())
            if len(rows) <= over:
                return None
            top, hidden = split_rows(rows)
            del rows
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
