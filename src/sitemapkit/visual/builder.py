"""Records -> the columns of a :class:`~sitemapkit.visual.tree.SiteTree`, fast and flat.

Why columns and not one object per node: a million-URL site made ~2.5 million
Python objects (a node, its two child lists, the record) and took 1.1 GB and
30 s.  Here a node is one slot in a few lists, a page's fields are rows of
columns that exist only when some page has a value for them, and strings that
repeat (lastmod dates, reasons, content types) are indexes into one table.

Why a fast lane: most URLs of a big site share their folder with hundreds of
siblings.  The URL up to its last ``/`` is looked up once in a dict of folders
already made, so a URL costs one ``rpartition`` and two dict lookups; only
new folders, query strings and fragments take the segment-by-segment walk.
"""

from __future__ import annotations

import itertools
import operator
from array import array
from collections.abc import Iterable
from itertools import compress, islice, repeat
from typing import Any

from sitemapkit.model import OUT_OF_SCOPE, PageRecord
from sitemapkit.visual.depth import build_depth_tree
from sitemapkit.visual.tree import (
    COLUMN_DEFAULTS,
    EXTERNAL_LABEL,
    MAX_TITLE,
    PAGE,
    PARENT_KEYS,
    QUERY,
    TRAILING,
    Kind,
    SiteTree,
    natural_key,
    rebuild_url,
)
from sitemapkit.visual.urlparts import fast_head, join_url, split_url

#: Sitemap-only rows: the URL and its lastmod text.
UrlRow = tuple[str, str | None]


class Strings:
    """A string table: index 0 is "no value"."""

    def __init__(self) -> None:
        self.items: list[str] = [""]
        self.index: dict[str, int] = {"": 0}  # value -> its index (read by the fast lane)

    def __call__(self, value: str | None) -> int:
        if not value:
            return 0
        i = self.index.get(value)
        if i is None:
            i = self.index[value] = len(self.items)
            self.items.append(value)
        return i


def fold_title(title: str | None) -> str:
    """Whitespace folded and cut at :data:`MAX_TITLE` (a hostile page can send a megabyte)."""
    if not title:
        return ""
    text = " ".join(title.split())
    return text if len(text) <= MAX_TITLE else text[: MAX_TITLE - 1] + "\u2026"


#: Every ASCII digit to "0": names of one shape differ only in digits, run for run.
_SHAPE = str.maketrans("123456789", "000000000")

#: Joins a sibling group's names for the batch string calls.
_SEP = "\n"

#: The kind byte of a page placed as a new leaf (:meth:`Builder._new_leaf`).
_NEW_LEAF = Kind.PAGE | PAGE


def in_natural_order(names: list[str], shapes: list[str] | None = None) -> bool:
    """Whether lowercased ``names`` are already in :func:`natural_key` order, checked in C loops.

    Two names of one shape (digits at the same places) compare as numbers
    exactly as they compare as text, so only neighbours of different shapes
    need the natural key: a sitemap listed in order (most are) skips the sort
    and the million keys it would make.
    """
    if shapes is None:
        shapes = list(map(str.translate, names, repeat(_SHAPE)))
    nxt = islice(names, 1, None)
    same = list(map(operator.eq, shapes, islice(shapes, 1, None)))
    if not all(map(operator.or_, map(operator.not_, same), map(operator.le, names, nxt))):
        return False
    changes = compress(range(len(same)), map(operator.not_, same))
    return all(natural_key(names[i]) <= natural_key(names[i + 1]) for i in changes)


class Builder:
    """Places URLs in the path tree; :meth:`finish` orders it into a :class:`SiteTree`."""

    def __init__(self) -> None:
        self.kinds = bytearray()
        self.segments: list[str] = []
        self.parents = array("i")  # machine ints: no int object per node
        self.rows = array("i")  # page row of a node, -1 for virtual nodes
        self.lookup: dict[int, dict[str, int]] = {}  # children by segment / "?query"
        self.alts: dict[int, list[int]] = {}  # second forms of one node ("/a" and "/a/")
        self.heads: dict[str, tuple[int, bool, dict[str, int]] | None] = {}
        self.hosts: dict[str, int] = {}
        self.overrides: dict[int, str] = {}  # node -> URL when the rebuild differs
        self.duplicates = 0
        self.strings = Strings()
        self.cols: dict[str, list[Any]] = {}
        self.canonical: dict[int, str] = {}  # by row
        self.redirect: dict[int, str] = {}
        self.rendered: dict[int, tuple[str, str, tuple[str, ...]]] = {}  # by row
        self.found_from: dict[int, str] = {}
        self.row_count = 0  # pages placed; rows come in that order
        self.outside: list[int] = []  # nodes of out-of-scope URLs (only linked)
        #: folder -> [pages, out-of-scope pages] below it that have no node (:meth:`add_hidden`)
        self.weights: dict[int, list[int]] = {}
        self.site = self._new(Kind.SITE, "", -1)

    def _new(self, kind: int, segment: str, parent: int) -> int:
        i = len(self.segments)
        self.kinds.append(kind)
        self.segments.append(segment)
        self.parents.append(parent)
        self.rows.append(-1)
        return i

    # -- placing ----------------------------------------------------------

    def _walk(self, origin: str, segments: list[str]) -> int:
        cur = self.hosts.get(origin)
        if cur is None:
            cur = self.hosts[origin] = self._new(Kind.HOST, origin, self.site)
        for seg in segments:
            kids = self.lookup.get(cur)
            if kids is None:
                kids = self.lookup[cur] = {}
            nxt = kids.get(seg)
            if nxt is None:
                nxt = kids[seg] = self._new(Kind.FOLDER, seg, cur)
            cur = nxt
        return cur

    def _head(self, head: str) -> tuple[int, bool, dict[str, int]] | None:
        """The folder for a URL's part before its last ``/`` (cached), or ``None``: slow lane."""
        entry: tuple[int, bool, dict[str, int]] | None = None
        if fast_head(head):
            origin, segments, _, _ = split_url(head + "/")
            folder = self._walk(origin, segments)
            kids = self.lookup.get(folder)
            if kids is None:
                kids = self.lookup[folder] = {}
            entry = (folder, join_url(origin, segments, False, None) == head, kids)
        self.heads[head] = entry
        return entry

    def place(self, url: str) -> int:
        """The node that takes the page at ``url``; -1 when that exact URL was placed before."""
        if "?" not in url and "#" not in url:
            head, _, leaf = url.rpartition("/")
            entry = self.heads[head] if head in self.heads else self._head(head)
            if entry is not None:
                folder, exact, kids = entry
                if not leaf:
                    return self._claim(folder, url, True, exact)
                node = kids.get(leaf)
                if node is None:
                    node = kids[leaf] = self._new(Kind.FOLDER, leaf, folder)
                return self._claim(node, url, False, exact)
        origin, segments, trailing, query = split_url(url)
        cur = self._walk(origin, segments)
        if query is not None:
            key = "?" + query + ("/" if trailing else "")
            queries = self.lookup.setdefault(cur, {})
            nxt = queries.get(key)
            if nxt is None:
                nxt = queries[key] = self._new(Kind.FOLDER, "?" + query, cur)
                self.kinds[nxt] |= QUERY | (TRAILING if trailing else 0)
            cur = nxt
        return self._claim(cur, url, trailing, None)

    def _claim(self, node: int, url: str, trailing: bool, exact: bool | None) -> int:
        if self.rows[node] >= 0:
            # "/blog" and "/blog/" are two pages with one folder: the second form
            # becomes a sibling leaf so neither is lost; the same URL again is a duplicate
            alts = self.alts.setdefault(node, [])
            for other in (node, *alts):
                if self.url_of(other) == url:
                    self.duplicates += 1
                    return -1
            if self.kinds[node] & 7 == Kind.HOST:
                alt = self._new(Kind.PAGE, "", node)
            else:
                alt = self._new(Kind.PAGE, self.segments[node], self.parents[node])
                self.kinds[alt] |= self.kinds[node] & QUERY
            alts.append(alt)
            node, exact = alt, None
        flags = self.kinds[node]
        if flags & 7 == Kind.FOLDER:
            flags = (flags & ~7) | Kind.PAGE
        if not flags & QUERY:
            flags = (flags | TRAILING) if trailing else (flags & ~TRAILING)
        self.kinds[node] = flags | PAGE
        self.rows[node] = self.row_count
        self.row_count += 1
        if exact is None:
            exact = rebuild_url(self.kinds, self.segments, self.parents, node) == url
        if not exact:
            self.overrides[node] = url
        return node

    def url_of(self, node: int) -> str:
        return self.overrides.get(node) or rebuild_url(
            self.kinds, self.segments, self.parents, node
        )

    # -- rows -------------------------------------------------------------

    def _new_leaf(self, url: str, row: int) -> int:
        """``url`` placed as a new leaf of a folder already known, on page row ``row``: its
        node, or -1 when :meth:`place` must decide (a query or fragment, a folder not seen
        yet, a leaf already there).

        Why: most pages of a big site are new leaves of known folders; placing them here
        skips the calls :meth:`place` makes (a third of the build).  The caller counts the
        row it gave when a node comes back.
        """
        if "?" in url or "#" in url:
            return -1
        head, _, leaf = url.rpartition("/")
        heads = self.heads
        entry = heads[head] if head in heads else self._head(head)
        if entry is None or not leaf or leaf in entry[2]:
            return -1
        node = entry[2][leaf] = len(self.segments)
        self.kinds.append(_NEW_LEAF)
        self.segments.append(leaf)
        self.parents.append(entry[0])
        self.rows.append(row)
        if not entry[1]:
            self.overrides[node] = url
        return node

    def add_records(self, records: Iterable[PageRecord]) -> None:
        """Crawl records: every field a column.

        A new leaf in a known folder (most of a crawl's pages) is placed by
        :meth:`_new_leaf`, as in :meth:`add_urls`.
        """
        s = self.strings
        names = ("t", "h", "d", "x", "r", "i", "o", "l", "ls", "c")
        t, h, d, x, r, ins, outs, lm, ls, ct = (self.cols.setdefault(k, []) for k in names)
        outside = self.outside
        place, new_leaf = self.place, self._new_leaf
        known = s.index  # the table's own dict first: a call per value cost more
        for rec in records:
            url = rec.url
            node = new_leaf(url, self.row_count)
            if node >= 0:
                self.row_count += 1
            else:
                node = place(url)
                if node < 0:
                    continue
            if rec.reason == OUT_OF_SCOPE:
                outside.append(node)
            row = len(t)
            t.append(fold_title(rec.title))
            h.append(rec.status or 0)
            d.append(rec.depth if rec.depth is not None else -1)
            x.append(2 if rec.indexable is None else int(rec.indexable))
            v = rec.reason
            r.append(known[v] if v in known else s(v))
            ins.append(rec.inlinks)
            outs.append(rec.outlinks)
            v = rec.lastmod
            lm.append(known[v] if v in known else s(v))
            v = rec.lastmod_source
            ls.append(known[v] if v in known else s(v))
            v = rec.content_type
            ct.append(known[v] if v in known else s(v))
            if rec.canonical or rec.redirect_to or rec.extra:
                self._links_and_extra(row, rec)

    def _links_and_extra(self, row: int, rec: PageRecord) -> None:
        """Row ``row``'s canonical and redirect target, its change, rendering and parent."""
        if rec.canonical and rec.canonical != rec.url:
            self.canonical[row] = rec.canonical
        if rec.redirect_to:
            self.redirect[row] = rec.redirect_to
        if rec.extra:
            if "change" in rec.extra:  # visualize --diff
                self._change(row, rec.extra)
            if "render" in rec.extra:  # how rendering went (store.page_records)
                links = tuple(rec.extra.get("rendered_links", "").split())
                self.rendered[row] = (
                    rec.extra["render"],
                    rec.extra.get("render_why", ""),
                    links,
                )
            for key in PARENT_KEYS:
                if rec.extra.get(key):
                    self.found_from[row] = rec.extra[key]
                    break

    def _change(self, row: int, extra: dict[str, str]) -> None:
        """The page's change (``new``/``gone``/``changed``/``same``) and what changed."""
        s = self.strings
        for key, value in (("g", extra["change"]), ("gw", extra.get("changes"))):
            col = self.cols.setdefault(key, [])
            col.extend([0] * (row - len(col)))  # rows before it had none
            col.append(s(value))

    def add_urls(self, rows: Iterable[UrlRow], lastmod_source: str = "sitemap") -> None:
        """Sitemap entries or listed URLs: only the URL and (maybe) its lastmod.

        A new leaf in a known folder (most URLs of a big site) is placed by
        :meth:`_new_leaf`, without the calls :meth:`place` makes.
        """
        s = self.strings
        lm = self.cols.setdefault("l", [])
        ls = self.cols.setdefault("ls", [])
        source = s(lastmod_source)
        place, new_leaf = self.place, self._new_leaf
        known = s.index
        for url, lastmod in rows:
            # every page so far has its lastmod in lm: its length is the next row
            if new_leaf(url, len(lm)) >= 0:
                # the table's own dict first: a call per URL costs more than the lookup
                lm.append((known[lastmod] if lastmod in known else s(lastmod)) if lastmod else 0)
                ls.append(source if lastmod else 0)
                continue
            self.row_count = len(lm)
            if place(url) >= 0:
                lm.append(s(lastmod))
                ls.append(source if lastmod else 0)
        self.row_count = len(lm)

    def add_hidden(self, url: str, pages: int, outside: int) -> None:
        """``pages`` URLs below the first path segment of ``url`` (one of them), ``outside``
        of them out of scope, counted on that folder instead of placed one by one.

        Why: the app's first screen of a big crawl's map needs each section's exact
        count, not the hundred thousand nodes below; the folder sorts and counts as it
        does in the whole tree, and :attr:`SiteTree.cut` says what it holds unseen.
        """
        origin, segments, _, _ = split_url(url)
        folder = self._walk(origin, segments[:1])
        weight = self.weights.setdefault(folder, [0, 0])
        weight[0] += pages
        weight[1] += outside

    # -- ordering ---------------------------------------------------------

    def finish(self) -> SiteTree:
        """Count, order (biggest first, then natural names), renumber in pre-order.

        The per-node passes are ``map`` over list lookups (C loops): a Python
        loop per node costs ~0.1 s per million, and there are several.
        """
        tree = SiteTree()
        tree.duplicates = self.duplicates
        kids = self._children()
        counts = array("i", [1 if r >= 0 else 0 for r in self.rows])
        for node, (pages, _) in self.weights.items():
            counts[node] += pages
        for p in sorted(kids, reverse=True):  # a parent is made before its children
            counts[p] += sum(map(counts.__getitem__, kids[p]))
        root, group = self._group_external(kids, counts)
        order = self._preorder(root, kids, counts, last=group)
        self.lookup = {}
        self.heads = {}
        new = array("i", [-1]) * (len(counts) + 1)  # new[-1] stays -1: "no parent" maps to itself
        for pos, old in enumerate(order):
            new[old] = pos
        at = new.__getitem__
        tree.segments = list(map(self.segments.__getitem__, order))
        tree.kinds = bytearray(map(self.kinds.__getitem__, order))
        tree.parents = array("i", map(at, map(self.parents.__getitem__, order)))
        tree.counts = array("i", map(counts.__getitem__, order))
        tree.rows = array("i", map(self.rows.__getitem__, order))
        tree.kids = [None] * len(order)
        for old, ks in kids.items():
            if new[old] >= 0:
                tree.kids[new[old]] = array("i", map(at, ks))
        tree.overrides = {new[o]: u for o, u in self.overrides.items()}
        tree.cut = {new[o]: w[0] for o, w in self.weights.items() if new[o] >= 0}
        tree.strings = self.strings.items
        rows = self.row_count
        for key, col in self.cols.items():
            default = COLUMN_DEFAULTS[key]
            if key in ("g", "gw"):  # set only from the first page with a change on
                col.extend([default] * (rows - len(col)))
            if len(col) == rows and col.count(default) != rows:
                col.append(default)  # row -1 (a virtual node) reads the default
                tree.cols[key] = col
        tree.canonical = self.canonical
        tree.redirect = self.redirect
        tree.rendered = self.rendered
        tree.root = 0
        tree.external = new[group] if group >= 0 else -1
        tree.path_size = len(order)
        if "d" in tree.cols:
            build_depth_tree(tree, self.found_from)
        return tree

    def _group_external(self, kids: dict[int, list[int]], counts: array[int]) -> tuple[int, int]:
        """The root, and the "External links" group node (-1: none) made under it.

        The root is the site's one host, or the "all hosts" node when the site
        itself has several; hosts only linked out of scope hang under the group.
        """
        external = self._external_hosts(counts)
        inside = [h for h in self.hosts.values() if h not in external]
        if len(inside) == 1:
            root = inside[0]
            self.parents[root] = -1
        else:
            root = self.site
        group = -1
        if external:
            group = self._new(Kind.EXTERNAL, EXTERNAL_LABEL, root)
            counts.append(sum(map(counts.__getitem__, external)))
            kids[group] = [h for h in self.hosts.values() if h in external]
            for h in kids[group]:
                self.parents[h] = group
            kids[self.site] = inside
            kids.setdefault(root, []).append(group)
            if root != self.site:  # the site's host now holds them too
                counts[root] += counts[group]
        return root, group

    def _external_hosts(self, counts: array[int]) -> set[int]:
        """Hosts all of whose URLs are out of the crawl's scope, when some host is not.

        Counted from the out-of-scope nodes up (usually few), so a site of a
        million in-scope pages costs nothing here.
        """
        hidden = [(node, w[1]) for node, w in self.weights.items() if w[1]]
        if len(self.hosts) < 2 or not (self.outside or hidden):
            return set()
        parents, kinds = self.parents, self.kinds
        per_host: dict[int, int] = {}
        for node, n in itertools.chain(zip(self.outside, repeat(1)), hidden):
            while kinds[node] & 7 != Kind.HOST:
                node = parents[node]
            per_host[node] = per_host.get(node, 0) + n
        external = {h for h, n in per_host.items() if n == counts[h]}
        return external if len(external) < len(self.hosts) else set()

    def _children(self) -> dict[int, list[int]]:
        kids = {p: list(d.values()) for p, d in self.lookup.items() if d}
        for folder in self.weights:  # a branch, however few of its nodes are here
            kids.setdefault(folder, [])
        if len(self.hosts) > 1:
            kids[self.site] = list(self.hosts.values())
        for alts in self.alts.values():
            for alt in alts:
                p = self.parents[alt]
                kids[p] = sorted([*kids.get(p, []), alt])
        return kids

    def _preorder(
        self, root: int, kids: dict[int, list[int]], counts: array[int], last: int = -1
    ) -> list[int]:
        """Nodes in pre-order, children sorted; ``kids`` is sorted in place.

        ``last`` (the "External links" group) comes after its siblings, however big.

        Plain leaves (one page, no children) sort by name alone and are emitted
        as one run: they are most of a big site and cost no stack traffic.
        """
        segs = self.segments
        order: list[int] = []
        runs: list[list[int]] = []
        stack = [root]
        while stack:
            i = stack.pop()
            if i < 0:
                order.extend(runs[~i])
                continue
            order.append(i)
            ks = kids.get(i)
            if not ks:
                continue
            # a node without children is a page (a folder exists only for what is below it)
            if not any(map(kids.__contains__, ks)):
                ks[:] = self._by_name(ks)  # all plain leaves
                order.extend(ks)
                continue
            leaves = [c for c in ks if c not in kids]
            branches = [c for c in ks if c in kids and c != last]
            branches.sort(key=lambda c: (-counts[c], natural_key(segs[c])))
            leaves = self._by_name(leaves)
            tail = [last] if last in ks else []
            ks[:] = branches + leaves + tail
            stack.extend(tail)
            if leaves:
                runs.append(leaves)
                stack.append(~(len(runs) - 1))
            stack.extend(reversed(branches))
        return order

    def _by_name(self, nodes: list[int]) -> list[int]:
        """``nodes`` in natural order of their names (ties keep their order: stable)."""
        if len(nodes) < 2:
            return nodes
        # one join, one lower, one translate for the whole group: per-name calls cost
        # ~1 µs each, and a big site has a million names
        text = _SEP.join(map(self.segments.__getitem__, nodes)).lower()
        names = text.split(_SEP)
        if len(names) == len(nodes):
            shapes = text.translate(_SHAPE).split(_SEP)
        else:  # a name holds the separator (hostile input): name by name
            names = [self.segments[n].lower() for n in nodes]
            shapes = None
        if in_natural_order(names, shapes):
            return nodes
        keys = list(map(natural_key, names))
        return list(map(nodes.__getitem__, sorted(range(len(nodes)), key=keys.__getitem__)))
