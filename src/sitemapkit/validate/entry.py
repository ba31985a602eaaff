"""Per-entry rules: a ``<url>``, a ``<sitemap>``, a text line or a feed item, checked as nodes.

Every value rule is asked of :mod:`sitemapkit.rulebook`; this module walks the children,
their order and the extensions, and records what the set rules need.
"""

from __future__ import annotations

from sitemapkit import dates, limits
from sitemapkit.limits import IMAGE_NS, MOBILE_NS, NEWS_NS, SITEMAP_NS, VIDEO_NS, XHTML_NS
from sitemapkit.read.entries import is_sitemap_entry, text_line_url
from sitemapkit.read.kinds import Kind
from sitemapkit.read.reader import feed_link
from sitemapkit.read.xmlstream import Node
from sitemapkit.rulebook.hints import (
    UNIFORM_TRACK,
    changefreq_problem,
    lastmod_problem,
    priority_problem,
)
from sitemapkit.rulebook.loc import is_absolute, loc_problems, not_absolute, not_escaped
from sitemapkit.validate.extensions import (
    check_hreflang,
    check_images,
    check_news,
    check_video,
)
from sitemapkit.validate.sets import SetRules
from sitemapkit.validate.state import (
    INDEX_ORDER,
    KNOWN_EXT_NS,
    URL_ORDER,
    foreign_attrs,
)


class EntryRules(SetRules):
    """The exact, node-by-node path every entry can take."""

    def _stripped_loc(self, node: Node) -> str | None:
        """A ``<loc>``'s text without surrounding whitespace (reported), or None when empty."""
        raw = node.text
        loc = raw.strip()
        if loc != raw:
            self.emit(
                "loc-whitespace", f'loc "{loc[:200]}" has leading or trailing whitespace', node, loc
            )
        if not loc:
            self.emit("loc-not-absolute", "loc is empty", node)
            return None
        return loc

    def _loc(self, node: Node, entry: Node) -> str | None:
        loc = self._stripped_loc(node)
        return None if loc is None else self._check_url(loc, node, entry)

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

    def _attrs(self, entry: Node) -> None:
        """Sitemap elements carry no attributes (xsi:* aside); report the first per element."""
        core = entry.ns
        if entry.attrs:
            self._attr_finding(entry)
        for node in entry.children:
            if node.attrs and node.ns == core:
                self._attr_finding(node)

    def _attr_finding(self, node: Node) -> None:
        bad = foreign_attrs(node.attrs)
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
                self._news(c, news_seen)
                news_seen = True
            elif ns == XHTML_NS and c.name == "link":
                links.append(c)
            elif ns == MOBILE_NS and c.name == "mobile":
                continue
            else:
                self._other_child(c)
        if images:
            check_images(images, self.emit, self._deprecated)
        if links and loc is not None:
            self._alternates(links, loc, entry)

    def _news(self, c: Node, again: bool) -> None:
        self._st.news += 1
        if again:
            self.emit("news-required", "two news:news in one url", c)
        if self._st.news == limits.MAX_NEWS_PER_FILE + 1:
            self.emit(
                "news-too-many",
                f"more than {limits.MAX_NEWS_PER_FILE:,} news:news in one file",
                c,
            )
        check_news(c, self.now, self.emit, self._deprecated)

    def _other_child(self, c: Node) -> None:
        """A child of ``<url>`` that is none of the extensions' top-level elements."""
        ns = c.ns
        if ns in KNOWN_EXT_NS:
            self.emit(
                "ext-schema", f"<{c.name}> is not a top-level element of its extension ({ns})", c
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

    def _alternates(self, links: list[Node], loc: str, entry: Node) -> None:
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
        loc = self._stripped_loc(node)
        if loc is None:
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
        if loc is None:
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
        if link is None or not is_absolute(link):
            self.emit("feed-item-no-link", f"<{node.name}> has no usable link", node)
            return
        self._check_url(link, node, node)
