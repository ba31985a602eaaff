"""The validator: every RULES.md rule decidable from the files, as :class:`Finding` values.

Why it consumes the walker's events instead of a parsed tree: a 50 MB file or
a million-URL index is checked in one streaming pass with flat memory.  Per
entry it checks children, loc, dates, hints and extensions; per file the
root, namespace, encoding, counts and bytes; over the whole set (everything
reached from one SOURCE) duplicates, mixed origins, uniform lastmod and
hreflang reciprocity.  Cross-file duplicates use a table of 64-bit hashes, not
the URLs themselves, so a million URLs cost ~16 MB, not ~150 MB.

Why two paths: most entries of a large urlset come to the validator as
strict-lane blocks (:mod:`sitemapkit.read.lanes`) whose single-value rules a
regex has already decided, and are checked in bulk with set operations; any
entry that would draw a finding is checked as nodes, by the same per-entry
code as every other entry.  A test holds both paths to the same findings.

Nothing is called valid when it was not checked: :class:`ValidationReport`
lists the checks that were skipped, and why.
"""

from __future__ import annotations

import asyncio
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import accumulate, repeat
from operator import add
from typing import TYPE_CHECKING, Final, cast

from sitemapkit import dates, limits
from sitemapkit.errors import InputError
from sitemapkit.fingerprints import SeenUrls
from sitemapkit.limits import IMAGE_NS, MOBILE_NS, NEWS_NS, SITEMAP_NS, VIDEO_NS, XHTML_NS
from sitemapkit.listing import Listing
from sitemapkit.model import Finding, Severity
from sitemapkit.read.entries import is_sitemap_entry, text_line_url
from sitemapkit.read.kinds import Kind
from sitemapkit.read.lanes import (
    IMAGE_DEPRECATED_KEPT,
    LASTMODS,
    LOC_LASTMOD,
    LOCS,
    ORIGINS,
    Block,
    StrictLane,
    build_lane,
    lane_key,
)
from sitemapkit.read.reader import feed_link
from sitemapkit.read.source import ReadLimits
from sitemapkit.read.walk import Doc, Event, Walker, is_unreadable
from sitemapkit.read.xmlstream import LaneFactory, Node, XmlFacts, block_nodes
from sitemapkit.rulebook.codes import severity
from sitemapkit.rulebook.hints import changefreq_problem, lastmod_problem, priority_problem
from sitemapkit.rulebook.hreflang import reciprocity
from sitemapkit.rulebook.langcodes import hreflang_problem
from sitemapkit.rulebook.loc import ABSOLUTE, loc_problems, not_absolute, not_escaped
from sitemapkit.urls import Scope
from sitemapkit.validate.extensions import (
    check_hreflang,
    check_images,
    check_news,
    check_video,
)

if TYPE_CHECKING:
    import aiohttp

#: Core children of a url, in schema order.
URL_ORDER: Final = {"loc": 0, "lastmod": 1, "changefreq": 2, "priority": 3}
INDEX_ORDER: Final = {"loc": 0, "lastmod": 1}
KNOWN_EXT_NS: Final = frozenset({IMAGE_NS, VIDEO_NS, NEWS_NS, XHTML_NS, MOBILE_NS})
#: lastmod-uniform fires when this share of (at least UNIFORM_MIN) values is one value.
UNIFORM_SHARE: Final = 0.95
UNIFORM_MIN: Final = 10
#: distinct lastmod values tracked before the set is surely not uniform
UNIFORM_TRACK: Final = 1_000
#: distinct strict lanes (scope and extension prefixes) built per set; nodes after that
MAX_LANE_KINDS: Final = 64
#: pages with hreflang alternates kept for the reciprocity check before it is skipped
MAX_HREFLANG_PAGES: Final = limits.MAX_HREFLANG_PAGES
_ABS = ABSOLUTE
_FUTURE_SLACK: Final = timedelta(days=1)
#: attributes of this namespace (xsi:schemaLocation ...) are allowed anywhere
XSI_PREFIX: Final = "http://www.w3.org/2001/XMLSchema-instance\x01"


def _foreign_attrs(attrs: dict[str, str]) -> list[str]:
    return [a.rpartition("\x01")[2] for a in attrs if not a.startswith(XSI_PREFIX)]


@dataclass(slots=True)
class ValidationReport:
    """What a validation run found, and what it checked and could not check."""

    findings: list[Finding] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    sitemaps: list[str] = field(default_factory=list)
    entries: int = 0
    unreadable: bool = False
    #: source -> root element (urlset / sitemapindex) of each XML file read
    roots: dict[str, str] = field(default_factory=dict)

    def count(self, sev: Severity) -> int:
        return sum(1 for f in self.findings if f.severity is sev)

    @property
    def errors(self) -> int:
        return self.count(Severity.ERROR)

    @property
    def warnings(self) -> int:
        return self.count(Severity.WARNING)

    @property
    def infos(self) -> int:
        return self.count(Severity.INFO)


@dataclass(slots=True)
class _DocState:
    #: index files: loc -> line of its first entry
    seen: dict[str, int] = field(default_factory=dict)
    #: url and text files: hash(loc) of every entry, and the line of those read as nodes
    hashes: set[int] = field(default_factory=set)
    lines: dict[int, int] = field(default_factory=dict)
    #: hashes of the entries cleared in bulk (strict lane), in file order, and per block
    #: (index of its first entry there, that entry's line, one entry per line?)
    order: bytearray = field(default_factory=bytearray)
    blocks: list[tuple[int, int, bool]] = field(default_factory=list)
    entries: int = 0
    news: int = 0
    hints: int = 0
    hint_node: Node | None = None
    aggregated: dict[str, tuple[int, Node]] = field(default_factory=dict)
    unknown_ns: set[str] = field(default_factory=set)
    no_default: int = 0
    no_default_node: Node | None = None
    scope: Scope | None = None
    #: origin + directory: a loc starting with it is in scope without parsing it
    prefix: str = "\x00"


def _entry_starts(raw: str, n: int) -> list[int]:
    """Where each of the ``n`` entries of a strict-lane block starts (C-speed iterators)."""
    pieces = raw.split("<url>")  # one more than the entries: "<url>" is nowhere else
    return list(accumulate(map(add, map(len, pieces[1:n]), repeat(5)), initial=len(pieces[0])))


#: a page of a strict-lane block with alternates: (loc, hreflang -> href, entry index)
_Page = tuple[str, dict[str, str], int]


class Validator:
    """Consumes walker events and turns them into findings (one instance per SOURCE set)."""

    def __init__(self, report: ValidationReport, now: datetime) -> None:
        self.report = report
        self.now = now
        self._future_cut = now + _FUTURE_SLACK
        self._safe_day = (now - _FUTURE_SLACK).date().isoformat()
        self._docs: dict[int, _DocState] = {}
        self._set_seen = SeenUrls()
        self._origins: dict[tuple[str, str], tuple[str, int | None]] = {}
        self._origin_reported = False
        self._listing = Listing()
        self._origin_raw: set[str] = set()
        self._lastmods: Counter[str] = Counter()
        self._lastmod_total = 0
        self._lastmod_first: tuple[str, int | None] | None = None
        #: page -> (hash of its alternate set, its (code, href) pairs, source index, line);
        #: hrefs are shared through _canon so each URL string is held once
        self._hreflang: dict[str, tuple[int, tuple[tuple[str, str], ...], int, int]] = {}
        self._canon: dict[str, str] = {}
        self._sources: list[str] = []
        self._hreflang_over = False
        self._future_cache: dict[str, bool] = {}
        self._scope_unknown = False
        self._doc: Doc | None = None
        self._st = _DocState()
        self._lane_kinds: set[tuple[object, str | None]] = set()
        self._hreflang_codes: dict[str, bool] = {}

    # --- emitting --------------------------------------------------------------------
    def add(self, doc: Doc | None, f: Finding) -> None:
        if f.severity is Severity.ERROR and doc is not None:
            doc.errors += 1
        if not self._listing.take(f):  # a million broken URLs must not fill the memory
            return
        self.report.findings.append(f)

    def emit(self, code: str, msg: str, node: Node | None, url: str | None = None) -> None:
        doc = self._doc
        assert doc is not None
        line = node.line if node is not None else None
        col = node.col if node is not None else None
        self.add(doc, Finding(code, severity(code), msg, doc.source, line, col, url))

    def _emit_at(
        self,
        doc: Doc,
        code: str,
        msg: str,
        line: int | None = None,
        col: int | None = None,
        url: str | None = None,
    ) -> None:
        self.add(doc, Finding(code, severity(code), msg, doc.source, line, col, url))

    def _aggregate(self, what: str, node: Node) -> None:
        agg = self._st.aggregated
        got = agg.get(what)
        agg[what] = (got[0] + 1, got[1]) if got else (1, node)

    # --- events ----------------------------------------------------------------------
    def handle(self, ev: Event) -> None:
        doc = ev.doc
        if ev.kind == "nodes":
            self._doc = doc
            st = self._docs.get(id(doc))
            if st is None:
                st = self._begin(doc)
            self._st = st
            kind = doc.kind
            if kind == "urlset":
                for item in cast(list[Node | Block], ev.nodes):  # never lean: no tuples
                    if isinstance(item, Block):
                        self._block(item)
                    else:
                        self._url(item)
                return
            nodes = cast(list[Node], ev.nodes)  # blocks come only in a urlset
            if kind == "sitemapindex":
                for node in nodes:
                    self._sitemap(node)
            elif kind == "text":
                for node in nodes:
                    self._text_line(node)
            elif kind in ("rss", "atom"):
                for node in nodes:
                    self._feed_item(node)
        elif ev.kind == "start":
            self.report.sitemaps.append(doc.source)
        elif ev.kind == "end":
            self._doc = doc
            st = self._docs.pop(id(doc), None) or self._begin(doc, keep=False)
            self._st = st
            self._end_doc(doc, st)
        elif ev.kind in ("finding", "unreadable") and ev.finding is not None:
            f = ev.finding
            self.add(
                doc, Finding(f.code, severity(f.code), f.message, f.source, f.line, f.column, f.url)
            )
            if ev.kind == "unreadable" or (is_unreadable(f) and doc.parent is None):
                self.report.unreadable = True
        elif ev.kind == "skipped" and ev.finding is not None:
            # the child's loc-other-host is reported by the entry rules; say it was not read
            what = f"index children on other hosts ({doc.source})"
            self.report.skipped[what] = "not fetched (--allow-other-hosts to follow)"

    @staticmethod
    def _scope(doc: Doc) -> Scope | None:
        if doc.url is None:
            return None
        try:
            return Scope.of(doc.url)
        except InputError:
            return None

    def _begin(self, doc: Doc, keep: bool = True) -> _DocState:
        st = _DocState()
        st.scope = self._scope(doc)
        if st.scope is not None:
            st.prefix = st.scope.origin + st.scope.directory
        if st.scope is None:
            self._scope_unknown = True
        if keep:
            self._docs[id(doc)] = st
        return st

    # --- entries ---------------------------------------------------------------------
    def _loc(self, node: Node, entry: Node) -> str | None:
        raw = node.text
        loc = raw.strip()
        if loc != raw:
            self.emit(
                "loc-whitespace", f'loc "{loc[:200]}" has leading or trailing whitespace', node, loc
            )
        if not loc:
            self.emit("loc-not-absolute", "loc is empty", node)
            return None
        return self._check_url(loc, node, entry)

    def _check_url(self, loc: str, node: Node, entry: Node) -> str | None:
        problems = loc_problems(loc)
        for problem, msg in problems:
            self.emit(problem, msg, node, loc[:200])
        if problems and problems[-1][0] == "loc-not-absolute":
            return None
        st = self._st
        if st.scope is not None and not loc.startswith(st.prefix):
            code = st.scope.check(loc)
            if code is not None:
                where = (
                    f"the sitemap's origin {st.scope.origin}" if code == "loc-other-host"
                    else f"the sitemap's directory {st.scope.origin}{st.scope.directory}"
                )  # fmt: skip
                self.emit(code, f'"{loc[:200]}" is outside {where}', node, loc)
        h = hash(loc)
        if h in st.hashes:
            first = st.lines.get(h) or self._bulk_line(st, h)
            where = f"first at line {first}" if first else "first listed earlier in this file"
            self.emit("loc-duplicate", f'"{loc[:200]}" is listed again ({where})', entry, loc)
        else:
            st.hashes.add(h)
            st.lines[h] = entry.line
            if not self._set_seen.add_hash(h):
                self.emit(
                    "loc-duplicate",
                    f'"{loc[:200]}" is already listed in another sitemap of this set',
                    entry,
                    loc,
                )
        self._origin(loc, entry)
        return loc

    @staticmethod
    def _bulk_line(st: _DocState, h: int) -> int | None:
        """The line of a loc cleared in bulk, when its block had one entry per line."""
        needle = h.to_bytes(8, "little", signed=True)
        at = st.order.find(needle)
        while at >= 0 and at % 8:  # only whole 8-byte slots count
            at = st.order.find(needle, at + 1)
        if at < 0:
            return None
        i = at // 8
        start, line, one_per_line = st.blocks[bisect_right([b[0] for b in st.blocks], i) - 1]
        return line + (i - start) if one_per_line else None

    def _origin(self, loc: str, entry: Node) -> None:
        end = loc.find("/", 8)
        raw = loc[: end if end > 0 else len(loc)]
        if raw in self._origin_raw:  # nearly every URL: an origin already seen
            return
        if len(self._origin_raw) < 1000:
            self._origin_raw.add(raw)
        host = raw.lower()
        scheme, _, netloc = host.partition("://")
        bare = netloc.removeprefix("www.")
        key = (scheme, netloc)
        if key in self._origins:
            return
        if not self._origin_reported:
            for (s2, n2), (src, line) in self._origins.items():
                if n2.removeprefix("www.") == bare and (s2 != scheme or n2 != netloc):
                    self._origin_reported = True
                    self.emit(
                        "loc-mixed-origins",
                        f'"{scheme}://{netloc}" mixes with '
                        f'"{s2}://{n2}" (first at {src}:{line}); use one origin',
                        entry,
                        loc,
                    )
                    break
        if len(self._origins) < 1000:
            assert self._doc is not None
            self._origins[key] = (self._doc.source, entry.line)

    def _attrs(self, entry: Node) -> None:
        """Sitemap elements carry no attributes (xsi:* aside); report the first per element."""
        core = entry.ns
        if entry.attrs:
            self._attr_finding(entry)
        for node in entry.children:
            if node.attrs and node.ns == core:
                self._attr_finding(node)

    def _attr_finding(self, node: Node) -> None:
        bad = _foreign_attrs(node.attrs)
        if bad:
            self.emit(
                "attribute-unknown",
                f'<{node.name}> has attribute "{bad[0]}", which the sitemap schema does not allow',
                node,
            )

    def _children_order(
        self, entry: Node, order: dict[str, int], what: str
    ) -> tuple[dict[str, Node], list[Node]]:
        core = self._doc.core_ns if self._doc else SITEMAP_NS
        got: dict[str, Node] = {}
        ext: list[Node] = []
        last = -1
        ext_seen = False
        for c in entry.children:
            if c.ns == core:
                r = order.get(c.name)
                if r is None:
                    self.emit(
                        "element-unknown", f"<{c.name}> is not a sitemap element of <{what}>", c
                    )
                    continue
                if c.name in got:
                    if c.name == "loc":
                        self.emit("loc-missing", f"<{what}> has more than one <loc>", c)
                    else:
                        self.emit("element-repeated", f"<{c.name}> given twice in <{what}>", c)
                    continue
                if r < last or ext_seen:
                    after = "an extension element" if ext_seen else "a later element"
                    self.emit(
                        "element-order",
                        f"<{c.name}> comes after {after} in <{what}> "
                        "(order: loc, lastmod, changefreq, priority, extensions)",
                        c,
                    )
                last = max(last, r)
                got[c.name] = c
            else:
                ext_seen = True
                ext.append(c)
        if "loc" not in got:
            self.emit("loc-missing", f"<{what}> has no <loc>", entry)
        return got, ext

    def _lastmod(self, node: Node) -> None:
        text = node.text.strip()
        bad = lastmod_problem(text)
        if bad is not None:
            self.emit(*bad, node)
            return
        # A date string before the cut's day (minus a day for offsets) cannot be in the
        # future: a string comparison spares parsing nearly every value.
        future = False if text[:10] < self._safe_day else self._future_cache.get(text)
        if future is None:
            when = dates.parse(text)
            future = when is not None and when > self._future_cut
            if len(self._future_cache) < 10_000:
                self._future_cache[text] = future
        if future:
            self.emit("lastmod-future", f'"{text}" is in the future', node)
        self._lastmod_total += 1
        if self._lastmod_first is None:
            assert self._doc is not None
            self._lastmod_first = (self._doc.source, node.line)
        lm = self._lastmods
        if text in lm or len(lm) < UNIFORM_TRACK:
            lm[text] += 1

    def _entry_start(self, entry: Node, name: str, root: str, most: int) -> bool:
        """Checks every ``<url>``/``<sitemap>`` shares; ``False`` when it is not one at all."""
        st = self._st
        st.entries += 1
        kind: Kind = "urlset" if root == "urlset" else "sitemapindex"
        if not is_sitemap_entry(entry, kind, self._doc.core_ns if self._doc else SITEMAP_NS):
            self._stray(entry, root, name)
            return False
        if st.entries == most + 1:
            self.emit("too-many-entries", f"more than {most:,} <{name}> entries", entry)
        if entry.text and not entry.text.isspace():
            self.emit(
                "content-stray",
                f'text "{entry.text.strip()[:60]}" inside <{name}>, '
                "where only elements are allowed",
                entry,
            )
        self._attrs(entry)
        return True

    def _url(self, entry: Node) -> None:
        if not self._entry_start(entry, "url", "urlset", limits.MAX_ENTRIES_PER_FILE):
            return
        got, ext = self._children_order(entry, URL_ORDER, "url")
        loc_node = got.get("loc")
        loc = self._loc(loc_node, entry) if loc_node is not None else None
        lm = got.get("lastmod")
        if lm is not None:
            self._lastmod(lm)
        cf = got.get("changefreq")
        if cf is not None:
            bad = changefreq_problem(cf.text.strip())
            if bad is not None:
                self.emit(*bad, cf)
            self._hint(cf)
        pr = got.get("priority")
        if pr is not None:
            bad = priority_problem(pr.text.strip())
            if bad is not None:
                self.emit(*bad, pr)
            self._hint(pr)
        if ext:
            self._extensions(ext, loc, entry)

    def _hint(self, node: Node) -> None:
        st = self._st
        st.hints += 1
        if st.hint_node is None:
            st.hint_node = node

    def _extensions(self, ext: list[Node], loc: str | None, entry: Node) -> None:
        images: list[Node] = []
        links: list[Node] = []
        news_seen = False
        for c in ext:
            ns = c.ns
            if ns == IMAGE_NS and c.name == "image":
                images.append(c)
            elif ns == VIDEO_NS and c.name == "video":
                check_video(c, loc, self.emit, self._deprecated)
            elif ns == NEWS_NS and c.name == "news":
                self._st.news += 1
                if news_seen:
                    self.emit("news-required", "two news:news in one url", c)
                news_seen = True
                if self._st.news == limits.MAX_NEWS_PER_FILE + 1:
                    self.emit(
                        "news-too-many",
                        f"more than {limits.MAX_NEWS_PER_FILE:,} news:news in one file",
                        c,
                    )
                check_news(c, self.now, self.emit, self._deprecated)
            elif ns == XHTML_NS and c.name == "link":
                links.append(c)
            elif ns == MOBILE_NS and c.name == "mobile":
                continue
            elif ns in KNOWN_EXT_NS:
                self.emit(
                    "ext-schema",
                    f"<{c.name}> is not a top-level element of its extension ({ns})",
                    c,
                )
            elif ns in (SITEMAP_NS, ""):
                self.emit("element-unknown", f"<{c.name}> is not a sitemap element", c)
            elif ns not in self._st.unknown_ns:
                self._st.unknown_ns.add(ns)
                self.emit(
                    "ext-unknown-namespace",
                    f'<{c.name}> from namespace "{ns}" that no schema covers',
                    c,
                )
        if images:
            check_images(images, self.emit, self._deprecated)
        if links and loc is not None:
            alts = check_hreflang(links, loc, self.emit)
            if alts:
                if "x-default" not in alts:
                    st = self._st
                    st.no_default += 1
                    if st.no_default_node is None:
                        st.no_default_node = links[0]
                self._keep_hreflang(loc, alts, entry.line)

    def _deprecated(self, what: str, node: Node) -> None:
        self._aggregate(what, node)

    def _keep_hreflang(self, loc: str, alts: dict[str, str], line: int) -> None:
        if self._hreflang_over:
            return
        if len(self._hreflang) >= MAX_HREFLANG_PAGES:
            self._hreflang_over = True
            self._hreflang.clear()
            return
        assert self._doc is not None
        canon = self._canon
        pairs = tuple(sorted((code, canon.setdefault(href, href)) for code, href in alts.items()))
        src = self._doc.source
        if not self._sources or self._sources[-1] != src:
            self._sources.append(src)
        self._hreflang[canon.setdefault(loc, loc)] = (
            hash(pairs),
            pairs,
            len(self._sources) - 1,
            line,
        )

    # --- the strict lane ------------------------------------------------------------
    def lane_for(self, doc: Doc) -> LaneFactory | None:
        """The walker asks this per document: how to build its strict lane from the root."""
        scope = self._scope(doc)
        if doc.url is not None and scope is None:
            return None  # a sitemap URL the scope rules cannot read: every entry as a node
        prefix = None if scope is None else scope.origin + scope.directory
        kinds = self._lane_kinds

        def factory(facts: XmlFacts) -> StrictLane | None:
            if facts.root_ns != SITEMAP_NS:
                return None
            kind = (lane_key(facts.namespaces), prefix)
            if kind not in kinds:
                # each kind of lane is a regex to compile: a set whose files bind
                # ever new prefixes (hostile) is read as nodes past this many
                if len(kinds) >= MAX_LANE_KINDS:
                    return None
                kinds.add(kind)
            return build_lane(facts.namespaces, prefix)

        return factory

    def _block_slow(self, b: Block) -> None:
        for node in block_nodes(b):
            self._url(node)

    @staticmethod
    def _node_at(b: Block, raw: str, at: int, name: str) -> Node:
        """A node standing for the element at ``raw[at]`` of a block (for a position)."""
        nl = raw.rfind("\n", 0, at)
        line = b.line + raw.count("\n", 0, at)
        col = at - nl if nl >= 0 else b.col + at
        return Node(SITEMAP_NS, name, {}, line, col)

    def _block(self, b: Block) -> None:
        """Clear a strict-lane block in bulk; entries that would draw a finding go one by one.

        The lane's pattern has already decided every rule of a single value; what
        is left needs the set (duplicates, the future, counts, hreflang codes and
        pairs).  Nothing is recorded before those checks have passed.  When one
        fails, the entries that failed are found in one pass and checked as nodes,
        the exact way, while the clean runs between them are recorded in bulk from
        the values already read: a million-URL set with a few hundred findings
        stays in the lane nearly everywhere.
        """
        st = self._st
        n = b.count
        raw = b.data.decode("utf-8")  # the parser made sure it is
        text = raw.replace("&amp;", "&") if "&" in raw else raw
        locs: list[str] = LOCS.findall(text)
        if len(locs) != n:  # cannot happen for a lane match; be exact anyway
            self._block_slow(b)
            return
        lms: list[str] = LASTMODS.findall(text) if "<lastmod>" in text else []
        pages, bad_pages = self._block_pages(b, text)
        hashes = list(map(hash, locs))
        if (
            st.entries + n <= limits.MAX_ENTRIES_PER_FILE
            and max(map(len, locs)) < limits.MAX_LOC_LENGTH
            and not (lms and max(lms) >= self._safe_day)  # maybe in the future: ask the rule
            and not bad_pages
            and len(set(hashes)) == n
            and st.hashes.isdisjoint(hashes)
            and self._set_seen.add_new(hashes)
        ):
            self._record(b, raw, text, locs, hashes, lms, pages)
            return
        bad = self._bad_entries(text, locs, hashes, lms, bad_pages)
        if len(bad) * 4 > n:  # mostly broken: nodes all the way
            self._block_slow(b)
            return
        self._split(b, raw, locs, hashes, pages, bad)

    def _bad_entries(
        self, text: str, locs: list[str], hashes: list[int], lms: list[str], bad_pages: set[int]
    ) -> set[int]:
        """The entries of a block that would draw a finding, found with set operations
        where they can be; duplicates of other files are left to :meth:`_split`."""
        st = self._st
        n = len(locs)
        bad = set(bad_pages)
        bad.update(range(max(0, limits.MAX_ENTRIES_PER_FILE - st.entries), n))
        if max(map(len, locs)) >= limits.MAX_LOC_LENGTH:
            bad.update(i for i, loc in enumerate(locs) if len(loc) >= limits.MAX_LOC_LENGTH)
        safe = self._safe_day
        if lms and max(lms) >= safe:
            aligned = [m for _, m in LOC_LASTMOD.findall(text)]
            bad.update(i for i, m in enumerate(aligned) if m >= safe)
        if len(set(hashes)) != n:
            here: set[int] = set()
            for i, h in enumerate(hashes):
                if h in here:
                    bad.add(i)
                here.add(h)
        again = st.hashes.intersection(hashes)
        if again:
            bad.update(i for i, h in enumerate(hashes) if h in again)
        return bad

    def _split(
        self,
        b: Block,
        raw: str,
        locs: list[str],
        hashes: list[int],
        pages: list[_Page],
        bad: set[int],
    ) -> None:
        """Record the clean runs of a block in bulk and check its bad entries as nodes."""
        n = b.count
        # the first run keeps the blanks before entry 0
        cuts = [0, *_entry_starts(raw, n)[1:], len(raw)]
        line, col, last = b.line, b.col, 0
        i = 0
        while i < n:
            j = i + 1
            if i not in bad:
                while j < n and j not in bad:
                    j += 1
            lo, hi = cuts[i], cuts[j]
            nl = raw.rfind("\n", last, lo)
            if nl >= 0:
                line += raw.count("\n", last, lo)
                col = lo - nl
            else:
                col += lo - last
            last = lo
            # str offsets count characters: the bytes are cut from the text
            sub = Block(raw[lo:hi].encode(), line, col, j - i, b.lane, b.deprecated)
            if i in bad:
                self._block_slow(sub)
            elif self._set_seen.add_new(hashes[i:j]):
                sub_raw = raw[lo:hi]
                sub_text = sub_raw.replace("&amp;", "&") if "&" in sub_raw else sub_raw
                lms = LASTMODS.findall(sub_text) if "<lastmod>" in sub_text else []
                sub_pages = [(loc, alts, k - i) for loc, alts, k in pages if i <= k < j]
                self._record(sub, sub_raw, sub_text, locs[i:j], hashes[i:j], lms, sub_pages)
            else:  # a loc another file of the set has: those entries as nodes, the rest again
                contains = self._set_seen.contains_hash
                again = {k for k in range(j - i) if contains(hashes[i + k])}
                self._split(
                    sub,
                    raw[lo:hi],
                    locs[i:j],
                    hashes[i:j],
                    [(loc, alts, k - i) for loc, alts, k in pages if i <= k < j],
                    again,
                )
            i = j

    def _record(
        self,
        b: Block,
        raw: str,
        text: str,
        locs: list[str],
        hashes: list[int],
        lms: list[str],
        pages: list[_Page],
    ) -> None:
        """Record what the set-level rules need of a clean block (its hashes are in the set)."""
        st = self._st
        n = b.count
        st.entries += n
        st.hashes.update(hashes)
        # one entry per line (the usual layout): then entry k is on line line0 + k
        first, last = raw.find("<url>"), raw.rfind("<url>")
        line0 = b.line + raw.count("\n", 0, first)
        one_per_line = raw.count("\n", first, last) == raw.count("\n<url>", first) == n - 1
        st.blocks.append((len(st.order) // 8, line0, one_per_line))
        st.order += array("q", hashes).tobytes()
        # the distinct origins in file order (the first one met is the one others mix with)
        origins = [locs[0]] if b.lane.prefix is not None else dict.fromkeys(ORIGINS.findall(text))
        for origin in origins:
            cut = origin.find("/", 8)
            if (origin[:cut] if cut > 0 else origin) not in self._origin_raw:
                at = raw.find("<loc>" + origin)
                if at < 0:  # the origin itself held an &amp;: any entry will do
                    at = raw.find("<loc>")
                entry = self._node_at(b, raw, raw.rfind("<url>", 0, at), "url")
                self._origin(raw[at + 5 : raw.find("<", at + 5)].replace("&amp;", "&"), entry)
        if lms:
            self._bulk_lastmods(b, raw, lms)
        image = b.lane.image
        if image is not None and b.deprecated:
            self._bulk_deprecated(b, raw, image)
        hints = text.count("<changefreq>") + text.count("<priority>")
        if hints:
            st.hints += hints
            if st.hint_node is None:
                at = min(i for i in (raw.find("<changefreq>"), raw.find("<priority>")) if i >= 0)
                st.hint_node = self._node_at(b, raw, at, "hint")
        if pages:
            starts = _entry_starts(raw, n)
            line, last = b.line, 0
            for loc, alts, k in pages:
                if one_per_line:
                    line = line0 + k
                else:  # pages come in file order: count on from the last one
                    line += raw.count("\n", last, starts[k])
                    last = starts[k]
                if "x-default" not in alts:
                    st.no_default += 1
                    if st.no_default_node is None:
                        at = raw.find(b.lane.link_tag, starts[k])
                        st.no_default_node = self._node_at(b, raw, at, "link")
                self._keep_hreflang(loc, alts, line)

    def _bulk_deprecated(self, b: Block, raw: str, image: str) -> None:
        """image-deprecated: count the block's captions, geo_locations and titles."""
        found = []
        for kid in IMAGE_DEPRECATED_KEPT:
            tag = f"<{image}:{kid.decode()}>"
            at = raw.find(tag)
            if at >= 0:
                found.append((at, f"image:{kid.decode()}", raw.count(tag)))
        agg = self._st.aggregated
        for at, what, count in sorted(found):  # first met, first listed: as entry by entry
            got = agg.get(what)
            node = got[1] if got else self._node_at(b, raw, at, what)
            agg[what] = ((got[0] if got else 0) + count, node)

    def _bulk_lastmods(self, b: Block, raw: str, lms: list[str]) -> None:
        self._lastmod_total += len(lms)
        if self._lastmod_first is None:
            assert self._doc is not None
            node = self._node_at(b, raw, raw.find("<lastmod>"), "lastmod")
            self._lastmod_first = (self._doc.source, node.line)
        tracked = self._lastmods
        counts = Counter(lms)
        for value in tracked.keys() & counts.keys():
            tracked[value] += counts[value]
        if len(tracked) < UNIFORM_TRACK:
            for value, c in counts.items():
                if value not in tracked:
                    tracked[value] = c
                    if len(tracked) >= UNIFORM_TRACK:
                        break

    def _block_pages(self, b: Block, text: str) -> tuple[list[_Page], set[int]]:
        """The hreflang alternates of a block's pages, and the entries where one is wrong.

        Only what the per-entry rules would pass is returned as a page; an entry with
        a bad code, a code given two URLs or no link to itself is returned as bad.
        """
        link = b.lane.links
        pages: list[_Page] = []
        bad: set[int] = set()
        if link is None or b.lane.link_tag not in text:
            return pages, bad
        known = self._hreflang_codes
        k = -1
        loc = ""
        alts: dict[str, str] = {}
        for found, code, href in link.findall(text):
            if found:
                if alts and k not in bad:
                    if loc in alts.values():
                        pages.append((loc, alts, k))
                    else:
                        bad.add(k)
                alts = {}
                k += 1
                loc = found
                continue
            ok = known.get(code)
            if ok is None:
                ok = known[code] = hreflang_problem(code) is None
            if not ok or alts.setdefault(code.lower(), href) != href:
                bad.add(k)
        if alts and k not in bad:
            if loc in alts.values():
                pages.append((loc, alts, k))
            else:
                bad.add(k)
        return pages, bad

    def _stray(self, node: Node, parent: str, expected: str) -> None:
        core = self._doc.core_ns if self._doc else SITEMAP_NS
        self._st.entries -= 1
        if node.ns == core:
            self.emit(
                "element-unknown",
                f"<{node.name}> is not allowed in <{parent}> (only <{expected}>)",
                node,
            )
        elif node.ns not in self._st.unknown_ns:
            self._st.unknown_ns.add(node.ns)
            self.emit(
                "ext-unknown-namespace",
                f'<{node.name}> from namespace "{node.ns}" in <{parent}>',
                node,
            )

    def _sitemap(self, entry: Node) -> None:
        if not self._entry_start(entry, "sitemap", "sitemapindex", limits.MAX_SITEMAPS_PER_INDEX):
            return
        st = self._st
        got, ext = self._children_order(entry, INDEX_ORDER, "sitemap")
        loc_node = got.get("loc")
        if loc_node is not None:
            self._index_loc(loc_node, entry)
        lm = got.get("lastmod")
        if lm is not None:
            bad = lastmod_problem(lm.text.strip())
            if bad is not None:
                self.emit(*bad, lm)
        for c in ext:
            if c.ns not in st.unknown_ns:
                st.unknown_ns.add(c.ns)
                self.emit(
                    "ext-unknown-namespace", f'<{c.name}> from namespace "{c.ns}" in <sitemap>', c
                )

    def _index_loc(self, node: Node, entry: Node) -> None:
        raw = node.text
        loc = raw.strip()
        if loc != raw:
            self.emit(
                "loc-whitespace", f'loc "{loc[:200]}" has leading or trailing whitespace', node, loc
            )
        if not loc:
            self.emit("loc-not-absolute", "loc is empty", node)
            return
        if len(loc) >= limits.MAX_LOC_LENGTH:
            self.emit("loc-too-long", f"loc is {len(loc):,} characters", node)
        relative = not_absolute(loc)
        if relative is not None:
            self.emit(*relative, node, loc[:200])
            return
        raw_chars = not_escaped(loc)
        if raw_chars is not None:
            self.emit(*raw_chars, node, loc)
        st = self._st
        if st.scope is not None:
            code = st.scope.check(loc)
            if code is not None:
                self.emit(
                    code,
                    f'"{loc[:200]}" is outside the index\'s '
                    + ("origin" if code == "loc-other-host" else "directory"),
                    node,
                    loc,
                )
        first = st.seen.get(loc)
        if first is not None:
            self.emit(
                "loc-duplicate",
                f'"{loc[:200]}" is listed again (first at line {first})',
                entry,
                loc,
            )
        else:
            st.seen[loc] = entry.line

    def _text_line(self, node: Node) -> None:
        st = self._st
        text = node.text
        if "\ufffd" in text:
            self.emit("encoding-not-utf8", "line is not valid UTF-8", node)
        loc = text_line_url(text)  # what the reader takes: only those lines are entries
        if loc is None or not _ABS.match(loc):
            shown = text.strip()
            self.emit(
                "text-line-invalid", f'"{shown[:100]}" is not one absolute URL', node, shown[:200]
            )
            return
        st.entries += 1
        if st.entries == limits.MAX_ENTRIES_PER_FILE + 1:
            self.emit("too-many-entries", f"more than {limits.MAX_ENTRIES_PER_FILE:,} URLs", node)
        if loc != text:
            self.emit("loc-whitespace", f'"{loc[:200]}" has surrounding whitespace', node, loc)
        self._check_url(loc, node, node)

    def _feed_item(self, node: Node) -> None:
        self._st.entries += 1
        link = feed_link(node)
        if link is None or not _ABS.match(link):
            self.emit("feed-item-no-link", f"<{node.name}> has no usable link", node)
            return
        self._check_url(link, node, node)

    # --- end of a file ----------------------------------------------------------------
    def _end_doc(self, doc: Doc, st: _DocState) -> None:
        f = doc.facts
        kind = doc.kind
        if f.leading_bytes:
            self._emit_at(
                doc,
                "xml-leading-content",
                f"{f.leading_bytes} bytes before the XML declaration ({f.leading_text[:30]!r})",
                1,
                1,
            )
        enc = (f.declared_encoding or "").lower().replace("_", "-")
        if enc and enc not in ("utf-8", "utf8"):
            self._emit_at(
                doc,
                "encoding-not-utf8",
                f'declared encoding "{f.declared_encoding}" is not UTF-8',
                1,
                1,
            )
        if kind in ("urlset", "sitemapindex") and f.root_ns != SITEMAP_NS:
            got = f'"{f.root_ns}"' if f.root_ns else "none"
            self._emit_at(
                doc,
                "namespace-wrong",
                f'root namespace is {got}, not "{SITEMAP_NS}"',
                f.root_line,
                f.root_col,
            )
        size = f.byte_size
        if size > limits.MAX_BYTES_PER_FILE:
            self._emit_at(
                doc,
                "file-too-large",
                f"{size:,} bytes uncompressed, over {limits.MAX_BYTES_PER_FILE:,}",
            )
        elif size > limits.LEGACY_MAX_BYTES_PER_FILE:
            self._emit_at(
                doc,
                "file-over-10mb",
                f"{size:,} bytes uncompressed, over the old "
                f"{limits.LEGACY_MAX_BYTES_PER_FILE:,} limit some engines keep",
            )
        if kind in ("urlset", "sitemapindex") and f.root_attrs:
            bad = _foreign_attrs(f.root_attrs)
            if bad:
                self._emit_at(
                    doc,
                    "attribute-unknown",
                    f'<{kind}> has attribute "{bad[0]}", which the sitemap schema does not allow',
                    f.root_line,
                    f.root_col,
                )
        if f.stray is not None and kind in ("urlset", "sitemapindex") and not doc.stopped:
            self._emit_at(
                doc,
                "content-stray",
                f"text inside <{kind}> between entries, where only elements are allowed",
                *f.stray,
            )
        if doc.stopped:
            self.report.skipped[f"rules after the stop in {doc.source}"] = (
                "reading stopped early (see the finding above)"
            )
        if kind == "urlset" and st.entries == 0 and f.root_name is not None and not doc.stopped:
            self._emit_at(doc, "urlset-empty", "urlset has no <url>", f.root_line, f.root_col)
        if st.hints and st.hint_node is not None:
            n = st.hint_node
            self._emit_at(
                doc,
                "hint-ignored",
                f"{st.hints:,} changefreq/priority values; Google ignores both",
                n.line,
                n.col,
            )
        if st.no_default and st.no_default_node is not None:
            n = st.no_default_node
            self._emit_at(
                doc,
                "hreflang-no-default",
                f"{st.no_default:,} page(s) with hreflang alternates have no x-default",
                n.line,
                n.col,
            )
        for what, (count, node) in st.aggregated.items():
            code = (
                "image-deprecated" if what.startswith("image:")
                else "video-deprecated" if what.startswith("video:")
                else "news-legacy"
            )  # fmt: skip
            self._emit_at(
                doc, code, f"{what} ({count:,}×) has no effect any more", node.line, node.col
            )
        self.report.entries += st.entries if kind != "sitemapindex" else 0
        if kind in ("urlset", "sitemapindex"):
            self.report.roots[doc.source] = kind
        parent = doc.parent
        if parent is not None:
            if kind == "sitemapindex":
                self._emit_at(
                    parent,
                    "index-nested",
                    f'"{doc.source}" is itself a sitemap index (indexes may not nest)',
                    doc.parent_line,
                    None,
                    doc.url,
                )
            if doc.errors:
                self._emit_at(
                    parent,
                    "index-child-invalid",
                    f'listed sitemap "{doc.source}" has {doc.errors:,} error(s)',
                    doc.parent_line,
                    None,
                    doc.url,
                )

    # --- end of the set ---------------------------------------------------------------
    def finish(self) -> None:
        rep = self.report
        rep.findings.extend(self._listing.more())
        total = self._lastmod_total
        if total >= UNIFORM_MIN and self._lastmods:
            value, count = self._lastmods.most_common(1)[0]
            if count >= UNIFORM_SHARE * total and self._lastmod_first is not None:
                src, line = self._lastmod_first
                rep.findings.append(
                    Finding(
                        "lastmod-uniform",
                        severity("lastmod-uniform"),
                        f'{count:,} of {total:,} lastmod values are "{value}": stamped at build '
                        "time, not when pages changed",
                        src,
                        line,
                    )
                )
        if self._hreflang_over:
            rep.skipped["hreflang-not-reciprocal"] = (
                f"more than {MAX_HREFLANG_PAGES:,} pages carry hreflang alternates"
            )
        else:
            self._reciprocity()
        if self._scope_unknown:
            rep.skipped["loc-other-host, loc-outside-directory"] = (
                "the sitemap's own URL is unknown for a local file (give --sitemap-url)"
            )

    def _reciprocity(self) -> None:
        pages = self._hreflang

        def lookup(href: str) -> tuple[tuple[str, str], ...] | None:
            other = pages.get(href)
            return None if other is None else other[1]

        unchecked: str | None = None
        count = 0
        for page, (_, alts, src_i, line) in pages.items():
            problem, other_host = reciprocity(page, alts, lookup)
            if other_host is not None:
                count += 1
                unchecked = unchecked or other_host
            if problem is None:
                continue
            code, msg = problem
            src = self._sources[src_i]
            self.report.findings.append(Finding(code, severity(code), msg, src, line, None, page))
        if unchecked is not None:
            self.report.skipped["hreflang-not-reciprocal (alternates on other hosts)"] = (
                f"{count:,} page(s) list alternates on hosts this set does not hold "
                f'(e.g. "{unchecked[:200]}"): those hosts\' own sitemaps must list them back'
            )


CHECKS: Final = (
    "xml (well-formed, no DOCTYPE, UTF-8, declaration)",
    "file (root, namespace, counts, bytes, gzip)",
    "url/loc (children, order, absolute, length, escaping, duplicates, origins)",
    "lastmod/changefreq/priority",
    "index (nesting, children fetched, cycles)",
    "image, video, news, hreflang extensions",
    "text sitemaps, RSS/Atom feeds, robots.txt Sitemap lines",
)


async def avalidate(
    sources: list[str],
    *,
    session: aiohttp.ClientSession | None = None,
    sitemap_url: str | None = None,
    now: datetime | None = None,
    limits: ReadLimits | None = None,
    strict_lane: bool = True,
) -> ValidationReport:
    """Validate each SOURCE (and everything it leads to); see :func:`validate`."""
    report = ValidationReport()
    report.checked.extend(CHECKS)
    moment = now or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if sitemap_url is not None:
        Scope.of(sitemap_url)  # raises InputError for a bad --sitemap-url
    for source in sources:
        validator = Validator(report, moment)
        walker = Walker(
            session=session,
            limits=limits,
            sitemap_url=sitemap_url,
            strict=validator.lane_for if strict_lane else None,
        )
        events: AsyncIterator[Event] = walker.walk([source])
        async for ev in events:
            validator.handle(ev)
        validator.finish()
    return report


def validate(
    sources: list[str],
    *,
    sitemap_url: str | None = None,
    now: datetime | None = None,
    limits: ReadLimits | None = None,
    strict_lane: bool = True,
) -> ValidationReport:
    """Check every rule of RULES.md decidable from ``sources`` (files, ``-`` or URLs).

    ``sitemap_url`` is the URL a local file is served at (scope rules); ``now``
    is the moment ``lastmod-future`` and ``news-stale`` are judged against.
    ``strict_lane=False`` checks every entry as nodes, the slow way (the findings
    are the same: the tests hold the two paths to that).
    """
    return asyncio.run(
        avalidate(sources, sitemap_url=sitemap_url, now=now, limits=limits, strict_lane=strict_lane)
    )
