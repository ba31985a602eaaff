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
        └── about                      page

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
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from urllib.parse import unquote

from sitemapkit.model import PageRecord

#: Children shown before the rest fold into a "+N more" group (a screenful).
DEFAULT_MAX_CHILDREN = 50

#: What the synthetic root above several hosts (or several start pages) is called.
SITE_LABEL = "all hosts"

#: The keys a crawl may use in ``PageRecord.extra`` for "first found from".
PARENT_KEYS = ("parent", "found_from", "referrer")


class Kind(enum.IntEnum):
    """What a node stands for; the integer is what the page's JSON carries."""

    PAGE = 0
    FOLDER = 1  # a path prefix with no page of its own
    HOST = 2
    SITE = 3  # synthetic root above several hosts
    DEPTH_GROUP = 4  # synthetic "depth N" bucket in the crawl-depth tree


class ColorMode(enum.StrEnum):
    SECTION = "section"
    STATUS = "status"
    INDEXABILITY = "indexability"
    DEPTH = "depth"
    LASTMOD = "lastmod"


@dataclass(slots=True, eq=False)
class Node:
    """One box of the map.  ``record`` is ``None`` for virtual nodes."""

    index: int
    kind: Kind
    segment: str  # path segment, "?query", or origin for hosts
    parent: int = -1
    record: PageRecord | None = None
    trailing_slash: bool = False
    is_query: bool = False
    children: list[int] = field(default_factory=list)
    pages: int = 0  # pages in this subtree, this node included
    depth_parent: int = -1
    depth_children: list[int] = field(default_factory=list)
    depth_pages: int = 0

    @property
    def label(self) -> str:
        """Title when known, else the last path segment (what a node card shows)."""
        if self.record is not None and self.record.title and self.record.title.strip():
            return " ".join(self.record.title.split())
        if self.kind is Kind.HOST:
            return self.segment.split("://", 1)[-1]
        if self.kind is Kind.SITE:
            return SITE_LABEL
        if self.kind is Kind.PAGE and self.segment == "" and self.parent >= 0:
            return "/"
        # "caf%C3%A9" reads as "café" (display only; the URL is kept as found)
        return (unquote(self.segment) if "%" in self.segment else self.segment) or "/"


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


def split_url(url: str) -> tuple[str, list[str], bool, str | None]:
    """``(origin, path segments, trailing slash, query)`` for a URL, or a non-HTTP fallback.

    The split is purely textual so that :func:`join_url` gives back the exact
    string; anything it cannot give back (fragments, odd forms) is kept as an
    override in the page JSON instead of being "fixed" here.
    """
    scheme_end = url.find("://")
    if scheme_end <= 0:
        return "(other)", [url], False, None
    rest_start = scheme_end + 3
    cut = len(url)
    for ch in "/?#":
        pos = url.find(ch, rest_start)
        if pos != -1 and pos < cut:
            cut = pos
    origin = url[:cut].lower()
    rest = url[cut:]
    rest = rest.split("#", 1)[0]
    path, qmark, query = rest.partition("?")
    trailing = path.endswith("/")
    if trailing:  # strip exactly one slash: "/a//" keeps its empty last segment
        segments = path[1:-1].split("/") if len(path) > 1 else []
    else:
        segments = path[1:].split("/") if path else []
    return origin, segments, trailing, (query if qmark else None)


def join_url(origin: str, segments: list[str], trailing: bool, query: str | None) -> str:
    """The inverse of :func:`split_url` for the forms it understands (and the JS mirrors)."""
    url = origin
    for seg in segments:
        url += "/" + seg
    if trailing:
        url += "/"
    if query is not None:
        url += "?" + query
    return url


_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple[str | int, ...]:
    """ "page-2" before "page-10": digit runs compare as numbers.

    ``re.split`` with a capturing group alternates text and digit runs, so
    even positions are always ``str`` and odd ones always ``int``: tuples of
    this shape never compare a number with a string.
    """
    parts: list[str | int] = list(_DIGITS.split(text.lower()))
    if len(parts) > 1:
        parts[1::2] = [int(p) for p in parts[1::2]]
    return tuple(parts)


def _sort_key(nodes: list[Node], i: int) -> tuple[int, int, tuple[str | int, ...]]:
    n = nodes[i]
    return (-n.pages, 0 if n.children else 1, natural_key(n.segment))


class SiteTree:
    """Pages arranged by URL path (always) and by crawl depth (when depths are known)."""

    def __init__(self) -> None:
        self.nodes: list[Node] = []
        self.root: int = -1
        self.depth_root: int = -1
        self.duplicates = 0
        self.has_depth_tree = False

    # -- building ---------------------------------------------------------

    @classmethod
    def from_records(cls, records: Iterable[PageRecord]) -> SiteTree:
        """Build both trees; duplicates of one exact URL are counted, not drawn twice."""
        tree = cls()
        with paused_gc():
            tree._build(records)
        return tree

    def _new(self, kind: Kind, segment: str, parent: int) -> Node:
        node = Node(index=len(self.nodes), kind=kind, segment=segment, parent=parent)
        self.nodes.append(node)
        if parent >= 0:
            self.nodes[parent].children.append(node.index)
        return node

    def _build(self, records: Iterable[PageRecord]) -> None:
        # child lookup: (parent index, key) -> node index.  The key tells the
        # query form "?a=1" apart from a segment literally named "?a=1".
        lookup: dict[tuple[int, str], int] = {}
        hosts: dict[str, int] = {}
        seen: set[str] = set()
        provisional = self._new(Kind.SITE, "", -1)
        for rec in records:
            if rec.url in seen:
                self.duplicates += 1
                continue
            seen.add(rec.url)
            origin, segments, trailing, query = split_url(rec.url)
            cur = hosts.get(origin)
            if cur is None:
                cur = self._new(Kind.HOST, origin, provisional.index).index
                hosts[origin] = cur
            for seg in segments:
                key = (cur, "/" + seg)
                nxt = lookup.get(key)
                if nxt is None:
                    nxt = self._new(Kind.FOLDER, seg, cur).index
                    lookup[key] = nxt
                cur = nxt
            if query is not None:
                key = (cur, "?" + query + ("/" if trailing else ""))
                nxt = lookup.get(key)
                if nxt is None:
                    qnode = self._new(Kind.FOLDER, "?" + query, cur)
                    qnode.is_query = True
                    qnode.trailing_slash = trailing
                    nxt = qnode.index
                    lookup[key] = nxt
                cur = nxt
            node = self.nodes[cur]
            if node.record is not None:
                # "/blog" and "/blog/" are two pages with one folder: the
                # second form becomes a sibling leaf so neither is lost.
                if node.kind is Kind.HOST:
                    alt = self._new(Kind.PAGE, "", node.index)
                else:
                    alt = self._new(Kind.PAGE, node.segment, node.parent)
                    alt.is_query = node.is_query
                node = alt
            node.record = rec
            if not node.is_query:
                node.trailing_slash = trailing
            if node.kind is Kind.FOLDER:
                node.kind = Kind.PAGE
        if len(hosts) == 1:
            only = next(iter(hosts.values()))
            self.nodes[only].parent = -1
            self.root = only
        else:
            self.root = provisional.index
        self._count_pages()
        self._renumber()
        self._build_depth_tree()

    def _count_pages(self) -> None:
        for node in reversed(self.nodes):  # children are created after parents
            node.pages += 1 if node.record is not None else 0
            if node.parent >= 0:
                self.nodes[node.parent].pages += node.pages

    def _renumber(self) -> None:
        """Store nodes in pre-order with sorted children: the order both views rely on."""
        old = self.nodes
        order: list[int] = []
        stack = [self.root]
        while stack:
            i = stack.pop()
            order.append(i)
            kids = old[i].children
            if len(kids) > 1:
                kids = old[i].children = sorted(kids, key=lambda c: _sort_key(old, c))
            stack.extend(reversed(kids))
        new_index = {o: n for n, o in enumerate(order)}
        nodes: list[Node] = []
        for n, o in enumerate(order):
            node = old[o]
            node.index = n
            node.parent = new_index.get(node.parent, -1)
            node.children = [new_index[c] for c in node.children]
            nodes.append(node)
        self.nodes = nodes
        self.root = 0

    def _build_depth_tree(self) -> None:
        pages = [n for n in self.nodes if n.record is not None]
        if not pages or all(n.record is None or n.record.depth is None for n in pages):
            return
        self.has_depth_tree = True
        by_url = {n.record.url: n.index for n in pages if n.record is not None}
        starts = [n for n in pages if n.record is not None and n.record.depth == 0]
        if len(starts) == 1:
            self.depth_root = starts[0].index
        else:
            site = self._new(Kind.SITE, "", -1)
            self.depth_root = site.index
            for s in starts:
                s.depth_parent = site.index
        groups: dict[int, int] = {}
        for node in pages:
            rec = node.record
            assert rec is not None
            if node.index == self.depth_root or rec.depth == 0:
                continue
            parent = self._found_from(node, by_url)
            if parent is None:
                depth = rec.depth if rec.depth is not None else -1
                parent = groups.get(depth)
                if parent is None:
                    label = f"depth {depth}" if depth >= 0 else "depth unknown"
                    parent = self._new(Kind.DEPTH_GROUP, label, -1).index
                    self.nodes[parent].depth_parent = self.depth_root
                    groups[depth] = parent
            node.depth_parent = parent
        self._check_depth_cycles()
        for node in self.nodes:
            if node.depth_parent >= 0:
                self.nodes[node.depth_parent].depth_children.append(node.index)
        for i in self._depth_postorder():
            node = self.nodes[i]
            node.depth_pages += 1 if node.record is not None else 0
            for c in node.depth_children:
                node.depth_pages += self.nodes[c].depth_pages
        for node in self.nodes:
            node.depth_children.sort(
                key=lambda c: (-self.nodes[c].depth_pages, self.nodes[c].index)
            )

    def _found_from(self, node: Node, by_url: dict[str, int]) -> int | None:
        rec = node.record
        assert rec is not None
        for key in PARENT_KEYS:
            url = rec.extra.get(key)
            if url and url in by_url and by_url[url] != node.index:
                return by_url[url]
        if rec.depth is None:
            return None
        # derived: the nearest path ancestor that is a page found earlier
        anc = node.parent
        while anc >= 0:
            arec = self.nodes[anc].record
            if arec is not None and arec.depth is not None and arec.depth < rec.depth:
                return anc
            anc = self.nodes[anc].parent
        if rec.depth == 1 and self.nodes[self.depth_root].record is not None:
            return self.depth_root
        return None

    def _check_depth_cycles(self) -> None:
        """A crawl's "found from" links may loop (A from B, B from A): cut them at the root."""
        state = [0] * len(self.nodes)  # 0 new, 1 on path, 2 done
        for start in range(len(self.nodes)):
            path: list[int] = []
            i = start
            while i >= 0 and state[i] == 0:
                state[i] = 1
                path.append(i)
                i = self.nodes[i].depth_parent
            if i >= 0 and state[i] == 1:
                self.nodes[i].depth_parent = self.depth_root if i != self.depth_root else -1
            for p in path:
                state[p] = 2

    def _depth_postorder(self) -> list[int]:
        out: list[int] = []
        stack: list[tuple[int, bool]] = [(self.depth_root, False)]
        while stack:
            i, done = stack.pop()
            if done:
                out.append(i)
                continue
            stack.append((i, True))
            stack.extend((c, False) for c in self.nodes[i].depth_children)
        return out

    # -- reading ----------------------------------------------------------

    def children(self, i: int, view: str = "path") -> list[int]:
        node = self.nodes[i]
        return node.depth_children if view == "depth" else node.children

    def page_count(self, i: int, view: str = "path") -> int:
        node = self.nodes[i]
        return node.depth_pages if view == "depth" else node.pages

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
        return self.nodes[self.root].pages if self.nodes else 0

    def section_of(self, i: int) -> str:
        """The top-level section a node is in ("/" for the home page)."""
        node = self.nodes[i]
        chain: list[Node] = []
        while node.parent >= 0:
            chain.append(node)
            node = self.nodes[node.parent]
        if not chain:
            return "/"
        top = chain[-1]
        if top.kind is Kind.HOST:
            # several hosts: the main one keeps plain sections, the others (links
            # out of scope, a CDN) are one section each, named by host
            if top.index != self.primary_host:
                return top.segment.split("://", 1)[-1]
            chain.pop()
            if not chain:
                return "/"
            top = chain[-1]
        return "/" if top.is_query else top.segment

    @property
    def primary_host(self) -> int:
        """The host with the most pages (the root itself when there is only one)."""
        if not self.nodes or self.root < 0:
            return -1
        root = self.nodes[self.root]
        if root.kind is not Kind.SITE:
            return self.root
        hosts = [self.nodes[c] for c in root.children if self.nodes[c].kind is Kind.HOST]
        return max(hosts, key=lambda n: n.pages).index if hosts else -1

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
            indexes: Iterable[int] = range(len(self.nodes))
        else:
            indexes = [under]
            stack = list(self.children(under, view))
            while stack:
                i = stack.pop()
                indexes.append(i)
                stack.extend(self.children(i, view))
        counts: dict[str, int] = {}
        for i in indexes:
            rec = self.nodes[i].record
            if rec is None:
                continue
            key = color_key(rec, ColorMode(mode), now, self.section_of(i))
            counts[key] = counts.get(key, 0) + 1
        return counts


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


def color_key(rec: PageRecord, mode: ColorMode, now: datetime, section: str) -> str:
    if mode is ColorMode.SECTION:
        return section
    if mode is ColorMode.STATUS:
        return status_class(rec.status)
    if mode is ColorMode.INDEXABILITY:
        if rec.indexable is None:
            return "unknown"
        if rec.indexable:
            return "in sitemap"
        return "excluded: " + (rec.reason or "no reason given")
    if mode is ColorMode.DEPTH:
        if rec.depth is None:
            return "unknown"
        return "5+" if rec.depth >= 5 else str(rec.depth)
    return lastmod_bucket(rec.lastmod, now)
