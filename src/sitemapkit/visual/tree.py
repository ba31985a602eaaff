"""The site tree behind the visual map: pages arranged by URL path and by crawl depth.

Why a Python model and not just JavaScript: the tree is built once, where it
can be tested on its own (hostile URLs, duplicate forms of one URL, pages that
are also folders), and shipped to the page as compact columnar JSON that a
100,000-page site can parse in a few hundred milliseconds.  The page then only
lays out what is expanded.

Shape of the path tree::

    site (only when there are several hosts)
    └── https://example.com            host: the home page when it was seen
        ├── blog                       page that is also a folder
        │   ├── 2024                   virtual folder (no page at /blog/2024/)
        │   │   └── hello-world        page
        │   └── ?page=2                query form of /blog
        ├── about                      page
        └── External links             group: hosts a crawl only saw linked (out of
            └── https://other.example  scope), always last; the map opens it closed

A crawl's map shows the *site*: a host whose every URL is out of the crawl's
scope (``docs.oracle.com`` linked from the JDK docs) goes into the one
"External links" group instead of standing beside the site as a top-level
branch (65 of them made "Fit" shrink the site to unreadable cards).

Nodes are stored in one list in pre-order, children sorted by the number of
pages below them (biggest sections first) and then by name, so the order is
the same in Python and in the browser.  Children beyond ``max_children`` are
folded into a "+N more" group (see :meth:`SiteTree.visible_children`).

The crawl-depth tree re-parents the same page nodes under the page each one
was first found from: ``PageRecord.extra["parent"]`` (also read from
``"found_from"`` / ``"referrer"``) when the crawl recorded it, otherwise the
nearest path ancestor with a smaller depth, otherwise the home page, and as a
last resort a virtual "depth N" group under the root.
"""

from __future__ import annotations

import enum
import gc
from array import array
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, overload
from urllib.parse import unquote

from sitemapkit.model import PageRecord
from sitemapkit.visual.order import natural_key
from sitemapkit.visual.urlparts import join_url, split_url

__all__ = [
    "ColorMode",
    "Kind",
    "More",
    "Node",
    "SiteTree",
    "join_url",
    "natural_key",
    "paused_gc",
    "split_url",
]

#: Children shown before the rest fold into a "+N more" group (a screenful).
DEFAULT_MAX_CHILDREN = 50

#: What the synthetic root above several hosts (or several start pages) is called.
SITE_LABEL = "all hosts"

#: The group (its segment and label) that holds the hosts a crawl only saw linked.
EXTERNAL_LABEL = "External links"

#: The keys a crawl may use in ``PageRecord.extra`` for "first found from".
PARENT_KEYS = ("parent", "found_from", "referrer")

#: Longest title carried to the page: a hostile page can have a megabyte of title.
MAX_TITLE = 500

#: Flag bits above the kind (the page's JSON carries the same byte).
TRAILING = 8
QUERY = 16
PAGE = 32

#: Page columns (payload keys) and the value a page without that field has.
#: t title, h status, d depth, x indexable (1/0/2 unknown), r reason, i/o in/outlinks,
#: l lastmod, ls its source, c content type; g change (``visualize --diff``: new, gone,
#: changed, same), gw what changed; r, l, ls, c, g and gw index the string table.
COLUMN_DEFAULTS: dict[str, Any] = {
    "t": "", "h": 0, "d": -1, "x": 2, "r": 0, "i": 0, "o": 0, "l": 0, "ls": 0, "c": 0,
    "g": 0, "gw": 0,
}  # fmt: skip


class Kind(enum.IntEnum):
    """What a node stands for; the integer is what the page's JSON carries."""

    PAGE = 0
    FOLDER = 1  # a path prefix with no page of its own
    HOST = 2
    SITE = 3  # synthetic root above several hosts
    DEPTH_GROUP = 4  # synthetic "depth N" bucket in the crawl-depth tree
    EXTERNAL = 5  # synthetic "External links" group: hosts the crawl only saw linked


class ColorMode(enum.StrEnum):
    SECTION = "section"
    STATUS = "status"
    INDEXABILITY = "indexability"
    DEPTH = "depth"
    LASTMOD = "lastmod"
    #: Only on a map drawn with ``--diff`` (the pages carry a change).
    CHANGE = "change"


@dataclass(frozen=True, slots=True)
class More:
    """The "+N more" group standing for the children a view folds away."""

    parent: int
    hidden: tuple[int, ...]
    pages: int  # pages inside the hidden children's subtrees

    @property
    def label(self) -> str:
        return f"+{len(self.hidden)} more"


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a big tree is built and rendered.

    Hundreds of thousands of small objects, none of them cyclic garbage: the
    collector would only rescan them again and again (it cost ~40% of a
    100,000-page build).  Reference counting still frees everything.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def rebuild_url(kinds: Sequence[int], segments: Sequence[str], parents: Sequence[int],
                node: int) -> str:  # fmt: skip
    """The URL the page rebuilds for ``node`` from its path (``nodeUrl`` in ``app.js``)."""
    chain: list[int] = []
    i = node
    while i >= 0 and kinds[i] & 7 != Kind.HOST:
        chain.append(i)
        i = parents[i]
    base = segments[i] if i >= 0 else ""
    for c in reversed(chain[1:]):
        if not kinds[c] & QUERY:
            base += "/" + segments[c]
    flags = kinds[node]
    if node != i and not flags & QUERY:
        base += "/" + segments[node]
    url = base + ("/" if flags & TRAILING else "")
    return url + segments[node] if flags & QUERY else url


class Node:
    """A view of one box of the map (made on demand; the tree itself is columns)."""

    __slots__ = ("index", "tree")

    def __init__(self, tree: SiteTree, index: int) -> None:
        self.tree = tree
        self.index = index

    @property
    def kind(self) -> Kind:
        return Kind(self.tree.kinds[self.index] & 7)

    @property
    def segment(self) -> str:
        return self.tree.segments[self.index]

    @property
    def parent(self) -> int:
        return self.tree.parents[self.index]

    @property
    def trailing_slash(self) -> bool:
        return bool(self.tree.kinds[self.index] & TRAILING)

    @property
    def is_query(self) -> bool:
        return bool(self.tree.kinds[self.index] & QUERY)

    @property
    def children(self) -> Sequence[int]:
        return self.tree.children(self.index)

    @property
    def pages(self) -> int:
        return self.tree.counts[self.index]

    @property
    def depth_parent(self) -> int:
        t = self.tree
        return t.depth_parents[self.index] if t.has_depth_tree else -1

    @property
    def depth_children(self) -> Sequence[int]:
        return self.tree.children(self.index, "depth")

    @property
    def depth_pages(self) -> int:
        return self.tree.page_count(self.index, "depth")

    @property
    def record(self) -> PageRecord | None:
        return self.tree.record(self.index)

    @property
    def label(self) -> str:
        """Title when known, else the last path segment (what a node card shows)."""
        t = self.tree
        title = t.value("t", self.index)
        if title:
            return str(title)
        kind = self.kind
        if kind is Kind.HOST:
            return self.segment.split("://", 1)[-1]
        if kind is Kind.SITE:
            return SITE_LABEL
        if kind is Kind.PAGE and self.segment == "" and self.parent >= 0:
            return "/"
        # "caf%C3%A9" reads as "café" (display only; the URL is kept as found)
        return (unquote(self.segment) if "%" in self.segment else self.segment) or "/"


class NodeList(Sequence[Node]):
    """``tree.nodes``: node views by index, made when asked for."""

    def __init__(self, tree: SiteTree) -> None:
        self._tree = tree

    def __len__(self) -> int:
        return len(self._tree.segments)

    @overload
    def __getitem__(self, i: int) -> Node: ...
    @overload
    def __getitem__(self, i: slice) -> list[Node]: ...
    def __getitem__(self, i: int | slice) -> Node | list[Node]:
        if isinstance(i, slice):
            return [Node(self._tree, j) for j in range(len(self))[i]]
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        return Node(self._tree, i % len(self))


class SiteTree:
    """Pages arranged by URL path (always) and by crawl depth (when depths are known).

    One value per node in each list, nodes in pre-order of the path tree (the
    crawl-depth tree's own group nodes come after it); page fields are rows of
    :attr:`cols`, found through :attr:`rows`.  Build one with
    :meth:`from_records` or :meth:`from_urls`.
    """

    def __init__(self) -> None:
        self.kinds = bytearray()  # Kind | TRAILING | QUERY | PAGE
        self.segments: list[str] = []
        self.parents = array("i")
        self.counts = array("i")  # pages in the subtree, the node included
        self.rows = array("i")  # row of the node's page in cols, -1 for virtual nodes
        self.kids: list[array[int] | None] = []
        self.overrides: dict[int, str] = {}  # node -> URL the path cannot rebuild
        #: node -> pages below it that this tree does not hold (the app's first screen of
        #: a big map, :mod:`~sitemapkit.visual.preview`); empty for a whole tree
        self.cut: dict[int, int] = {}
        self.strings: list[str] = [""]
        self.cols: dict[str, list[Any]] = {}  # only columns some page has a value for
        self.canonical: dict[int, str] = {}  # by row
        self.redirect: dict[int, str] = {}  # by row
        self.root: int = -1
        self.path_size = 0  # nodes of the path tree; the depth tree's groups come after
        self.depth_root: int = -1
        self.depth_parents: list[int] = []
        self.depth_kids: list[list[int] | None] = []
        self.depth_counts: list[int] = []
        self.duplicates = 0
        self.has_depth_tree = False
        #: The "External links" group node, -1 when there is none.
        self.external = -1
        #: Rendered pages by row: (status, why, links only rendering found).
        self.rendered: dict[int, tuple[str, str, tuple[str, ...]]] = {}
        #: The crawl's ``--render`` mode (``None``: not a crawl, or not known).
        self.render_mode: str | None = None
        #: Thumbnails by node, as ``data:`` URLs (``crawl --thumbnails``).
        self.thumbnails: dict[int, str] = {}

    # -- building ---------------------------------------------------------

    @classmethod
    def from_records(cls, records: Iterable[PageRecord]) -> SiteTree:
        """Build both trees; duplicates of one exact URL are counted, not drawn twice."""
        from sitemapkit.visual.builder import Builder

        with paused_gc():
            builder = Builder()
            builder.add_records(records)
            return builder.finish()

    @classmethod
    def from_urls(
        cls, rows: Iterable[tuple[str, str | None]], lastmod_source: str = "sitemap"
    ) -> SiteTree:
        """The tree of ``(url, lastmod)`` rows (a sitemap or URL list): no page objects made."""
        from sitemapkit.visual.builder import Builder

        with paused_gc():
            builder = Builder()
            builder.add_urls(rows, lastmod_source)
            return builder.finish()

    # -- reading ----------------------------------------------------------

    @property
    def nodes(self) -> NodeList:
        return NodeList(self)

    def value(self, key: str, i: int) -> Any:
        """Page field ``key`` (a :data:`COLUMN_DEFAULTS` key) of node ``i``, or its default."""
        col = self.cols.get(key)
        return COLUMN_DEFAULTS[key] if col is None else col[self.rows[i]]

    def column(self, key: str) -> list[Any] | None:
        """Field ``key`` for every node in node order (``None`` when no page has one)."""
        col = self.cols.get(key)
        return None if col is None else [col[r] for r in self.rows]

    def url(self, i: int) -> str:
        """The exact URL of node ``i`` (the rebuilt one for folders)."""
        return self.overrides.get(i) or rebuild_url(self.kinds, self.segments, self.parents, i)

    def node_urls(self) -> list[str]:
        """The URL the page rebuilds for each node, in one pass (parents come first)."""
        base: list[str] = [""] * len(self.segments)
        urls: list[str] = [""] * len(self.segments)
        kinds, segs, parents = self.kinds, self.segments, self.parents
        for i, flags in enumerate(kinds):
            p = parents[i]
            if flags & 7 == Kind.HOST:
                b = segs[i]
            elif p < 0:
                b = ""
            elif flags & QUERY:
                b = base[p]
            else:
                b = base[p] + "/" + segs[i]
            base[i] = b
            url = b + "/" if flags & TRAILING else b
            urls[i] = url + segs[i] if flags & QUERY else url
        return urls

    def record(self, i: int) -> PageRecord | None:
        """Node ``i``'s page as a record again (tests and small tools; not for hot loops)."""
        row = self.rows[i]
        if row < 0:
            return None
        s = self.strings

        def v(key: str) -> Any:
            return self.value(key, i)

        extra = {}
        if self.has_depth_tree and self.depth_parents[i] >= 0:
            parent = self.depth_parents[i]
            if self.rows[parent] >= 0:
                extra["found_from"] = self.url(parent)
        depth, indexable = v("d"), v("x")
        return PageRecord(
            url=self.url(i), status=v("h") or None, depth=None if depth < 0 else depth,
            title=v("t") or None, canonical=self.canonical.get(row),
            indexable=None if indexable == 2 else bool(indexable), reason=s[v("r")] or None,
            inlinks=v("i"), outlinks=v("o"), lastmod=s[v("l")] or None,
            lastmod_source=s[v("ls")] or None, content_type=s[v("c")] or None,
            redirect_to=self.redirect.get(row), extra=extra,
        )  # fmt: skip

    def children(self, i: int, view: str = "path") -> Sequence[int]:
        kids = self.depth_kids[i] if view == "depth" else self.kids[i]
        return kids if kids is not None else ()

    def page_count(self, i: int, view: str = "path") -> int:
        return self.depth_counts[i] if view == "depth" else self.counts[i]

    def descendants(self, i: int, view: str = "path") -> int:
        """Nodes below ``i`` (virtual ones included)."""
        total = 0
        stack = list(self.children(i, view))
        while stack:
            total += 1
            stack.extend(self.children(stack.pop(), view))
        return total

    def visible_children(
        self, i: int, max_children: int = DEFAULT_MAX_CHILDREN, view: str = "path"
    ) -> tuple[list[int], More | None]:
        """The first ``max_children`` children and a "+N more" group for the rest."""
        kids = self.children(i, view)
        if max_children <= 0 or len(kids) <= max_children:
            return list(kids), None
        hidden = tuple(kids[max_children:])
        pages = sum(self.page_count(c, view) for c in hidden)
        return list(kids[:max_children]), More(parent=i, hidden=hidden, pages=pages)

    def walk(self, view: str = "path") -> Iterator[tuple[int, int]]:
        """``(node index, level)`` in pre-order."""
        start = self.depth_root if view == "depth" else self.root
        if start < 0:
            return
        stack = [(start, 0)]
        while stack:
            i, level = stack.pop()
            yield i, level
            stack.extend((c, level + 1) for c in reversed(self.children(i, view)))

    @property
    def page_total(self) -> int:
        return self.counts[self.root] if self.segments else 0

    @property
    def host_count(self) -> int:
        return sum(1 for k in self.kinds if k & 7 == Kind.HOST)

    @property
    def external_hosts(self) -> int:
        """Hosts in the "External links" group (only linked from the crawled site)."""
        return len(self.children(self.external)) if self.external >= 0 else 0

    def section_of(self, i: int) -> str:
        """The top-level section a node is in ("/" for the home page)."""
        chain: list[int] = []
        while self.parents[i] >= 0:
            chain.append(i)
            i = self.parents[i]
        if not chain:
            return "/"
        top = chain[-1]
        if self.kinds[top] & 7 == Kind.HOST:
            # several hosts: the main one keeps plain sections, the others (links
            # out of scope, a CDN) are one section each, named by host
            if top != self.primary_host:
                return self.segments[top].split("://", 1)[-1]
            chain.pop()
            if not chain:
                return "/"
            top = chain[-1]
        return "/" if self.kinds[top] & QUERY else self.segments[top]

    @property
    def primary_host(self) -> int:
        """The host with the most pages (the root itself when there is only one)."""
        if not self.segments or self.root < 0:
            return -1
        if self.kinds[self.root] & 7 != Kind.SITE:
            return self.root
        hosts = [c for c in self.children(self.root) if self.kinds[c] & 7 == Kind.HOST]
        return max(hosts, key=lambda c: self.counts[c]) if hosts else -1

    def color_counts(
        self,
        mode: str,
        now: datetime | None = None,
        *,
        under: int | None = None,
        view: str = "path",
    ) -> dict[str, int]:
        """Pages per colour category: the legend's figures (the page computes the same).

        With ``under``, only the pages in that node's subtree (itself included):
        the breakdown the details panel shows for a section or folder.
        """
        now = now or datetime.now(UTC)
        if under is None:
            indexes: Iterable[int] = range(len(self.segments))
        else:
            indexes = [under]
            stack = list(self.children(under, view))
            while stack:
                i = stack.pop()
                indexes.append(i)
                stack.extend(self.children(i, view))
        counts: dict[str, int] = {}
        color = ColorMode(mode)
        for i in indexes:
            if self.rows[i] < 0:
                continue
            key = self.color_key(i, color, now)
            counts[key] = counts.get(key, 0) + 1
        return counts

    def color_key(self, i: int, mode: ColorMode, now: datetime) -> str:
        """The colour category of node ``i``'s page (``MODES`` in ``app.js`` mirrors it)."""
        if mode is ColorMode.SECTION:
            return self.section_of(i)
        if mode is ColorMode.STATUS:
            return status_class(self.value("h", i))
        if mode is ColorMode.INDEXABILITY:
            return indexability_class(self.value("x", i), self.strings[self.value("r", i)])
        if mode is ColorMode.CHANGE:
            return self.strings[self.value("g", i)] or "unknown"
        if mode is ColorMode.DEPTH:
            return depth_class(self.value("d", i))
        return lastmod_bucket(self.strings[self.value("l", i)], now)


def indexability_class(indexable: int, reason: str | None) -> str:
    """In the sitemap, excluded (and why), or unknown (``indexable`` 2: not fetched)."""
    if indexable == 2:
        return "unknown"
    if indexable:
        return "in sitemap"
    return "excluded: " + (reason or "no reason given")


def depth_class(depth: int) -> str:
    """Clicks from the start page, 5 and more as one; unknown below 0."""
    if depth < 0:
        return "unknown"
    return "5+" if depth >= 5 else str(depth)


def status_class(status: int | None) -> str:
    if status is None or status <= 0:
        return "not fetched"
    return f"{status // 100}xx" if 100 <= status < 600 else "other"


def lastmod_bucket(lastmod: str | None, now: datetime) -> str:
    """Age buckets shared with the page: < 30 days, < 90 days, < 1 year, older, unknown."""
    if not lastmod:
        return "unknown"
    text = lastmod.strip()
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            when = datetime.fromisoformat(text[:10])
        except ValueError:
            return "unknown"
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    days = (now - when).total_seconds() / 86400
    if days < 30:
        return "< 30 days"
    if days < 90:
        return "30-90 days"
    if days < 365:
        return "90-365 days"
    return "> 1 year"
