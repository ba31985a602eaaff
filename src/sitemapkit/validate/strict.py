"""The strict lane's bulk checks: runs of provably clean ``<url>`` entries, cleared with set
operations.

The lane's pattern (:mod:`sitemapkit.read.lanes`) has decided every single-value rule; what is
left needs the set (duplicates, the future, counts, hreflang pairs).  Any entry that would draw a
finding is checked as nodes by :class:`~sitemapkit.validate.entry.EntryRules`: a test holds both
paths to the same findings.
"""

from __future__ import annotations

from array import array
from collections import Counter
from itertools import accumulate, repeat
from operator import add

from sitemapkit import limits
from sitemapkit.limits import SITEMAP_NS
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
from sitemapkit.read.walk import Doc
from sitemapkit.read.xmlstream import LaneFactory, Node, XmlFacts, block_nodes
from sitemapkit.rulebook.hints import UNIFORM_TRACK
from sitemapkit.rulebook.langcodes import hreflang_problem
from sitemapkit.validate.entry import EntryRules
from sitemapkit.validate.state import MAX_LANE_KINDS


def _entry_starts(raw: str, n: int) -> list[int]:
    """Where each of the ``n`` entries of a strict-lane block starts (C-speed iterators)."""
    pieces = raw.split("<url>")  # one more than the entries: "<url>" is nowhere else
    return list(accumulate(map(add, map(len, pieces[1:n]), repeat(5)), initial=len(pieces[0])))


#: a page of a strict-lane block with alternates: (loc, hreflang -> href, entry index)
_Page = tuple[str, dict[str, str], int]


class StrictRules(EntryRules):
    """Strict-lane blocks: bulk where provably clean, nodes elsewhere."""

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
            self._bulk_pages(b, raw, pages, line0 if one_per_line else None)

    def _bulk_pages(self, b: Block, raw: str, pages: list[_Page], line0: int | None) -> None:
        """Keep the alternates of a clean block's pages (``line0``: one entry per line)."""
        st = self._st
        starts = _entry_starts(raw, b.count)
        line, last = b.line, 0
        for loc, alts, k in pages:
            if line0 is not None:
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
