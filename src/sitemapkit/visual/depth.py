"""The crawl-depth tree: the same page nodes re-parented under the page each was found from.

The parent is ``PageRecord.extra["parent"]`` (also read from ``"found_from"``
/ ``"referrer"``) when the crawl recorded it, otherwise the nearest path
ancestor with a smaller depth, otherwise the home page, and as a last resort
a virtual "depth N" group under the root.  A crawl's links may loop (A from
B, B from A): loops are cut at the root, so every page is reached once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sitemapkit.visual.tree import SiteTree


def build_depth_tree(tree: SiteTree, found_from: dict[int, str]) -> None:
    """Fill ``tree.depth_*`` (``found_from``: page row -> URL it was first found from)."""
    from sitemapkit.visual.tree import Kind

    depths = tree.cols["d"]
    rows = tree.rows
    pages = [i for i, r in enumerate(rows) if r >= 0]
    if not pages or all(depths[rows[i]] < 0 for i in pages):
        return
    tree.has_depth_tree = True
    urls = tree.node_urls()
    by_url = {tree.overrides.get(i) or urls[i]: i for i in pages}
    parents = [-1] * len(rows)
    tree.depth_parents = parents
    starts = [i for i in pages if depths[rows[i]] == 0]
    if len(starts) == 1:
        tree.depth_root = starts[0]
    else:
        tree.depth_root = _new(tree, Kind.SITE, "")
        for s in starts:
            parents[s] = tree.depth_root
    groups: dict[int, int] = {}
    for i in pages:
        depth = depths[rows[i]]
        if i == tree.depth_root or depth == 0:
            continue
        parent = _found_from(tree, i, by_url, found_from.get(rows[i]), depth)
        if parent is None:
            parent = groups.get(depth)
            if parent is None:
                label = f"depth {depth}" if depth >= 0 else "depth unknown"
                parent = groups[depth] = _new(tree, Kind.DEPTH_GROUP, label)
                parents[parent] = tree.depth_root
        parents[i] = parent
    _cut_cycles(tree)
    _count(tree)


def _new(tree: SiteTree, kind: int, segment: str) -> int:
    """A node of the depth tree only (no place in the path tree)."""
    i = len(tree.segments)
    tree.kinds.append(kind)
    tree.segments.append(segment)
    tree.parents.append(-1)
    tree.counts.append(0)
    tree.rows.append(-1)
    tree.kids.append(None)
    tree.depth_parents.append(-1)
    return i


def _found_from(
    tree: SiteTree, i: int, by_url: dict[str, int], recorded: str | None, depth: int
) -> int | None:
    if recorded and recorded in by_url and by_url[recorded] != i:
        return by_url[recorded]
    if depth < 0:
        return None
    # derived: the nearest path ancestor that is a page found earlier
    depths, rows = tree.cols["d"], tree.rows
    anc = tree.parents[i]
    while anc >= 0:
        if rows[anc] >= 0 and 0 <= depths[rows[anc]] < depth:
            return anc
        anc = tree.parents[anc]
    if depth == 1 and rows[tree.depth_root] >= 0:
        return tree.depth_root
    return None


def _cut_cycles(tree: SiteTree) -> None:
    parents = tree.depth_parents
    state = [0] * len(parents)  # 0 new, 1 on path, 2 done
    for start in range(len(parents)):
        path: list[int] = []
        i = start
        while i >= 0 and state[i] == 0:
            state[i] = 1
            path.append(i)
            i = parents[i]
        if i >= 0 and state[i] == 1:
            parents[i] = tree.depth_root if i != tree.depth_root else -1
        for p in path:
            state[p] = 2


def _count(tree: SiteTree) -> None:
    """Children lists, pages per subtree, children biggest first (then pre-order)."""
    n = len(tree.segments)
    kids: list[list[int] | None] = [None] * n
    for i, p in enumerate(tree.depth_parents):
        if p >= 0:
            k = kids[p]
            if k is None:
                kids[p] = [i]
            else:
                k.append(i)
    counts = [1 if r >= 0 else 0 for r in tree.rows]
    order: list[int] = []
    stack = [tree.depth_root]
    while stack:
        i = stack.pop()
        order.append(i)
        stack.extend(kids[i] or ())
    for i in reversed(order):
        for c in kids[i] or ():
            counts[i] += counts[c]
    for k in kids:
        if k is not None and len(k) > 1:
            k.sort(key=lambda c: (-counts[c], c))
    tree.depth_kids = kids
    tree.depth_counts = counts
