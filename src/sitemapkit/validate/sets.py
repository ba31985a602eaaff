"""Set-level rules: duplicates across files, mixed origins, uniform lastmod, hreflang reciprocity.

Why apart: these need every file of the set; they gather as entries pass and judge
in :meth:`SetRules.finish`.
"""

from __future__ import annotations

from bisect import bisect_right

from sitemapkit.model import Finding
from sitemapkit.read.xmlstream import Node
from sitemapkit.rulebook.codes import severity
from sitemapkit.rulebook.hints import uniform_lastmod
from sitemapkit.rulebook.hreflang import reciprocity
from sitemapkit.validate.state import MAX_HREFLANG_PAGES, DocState, ValidatorBase


class SetRules(ValidatorBase):
    """Rules over the whole set (everything reached from one SOURCE)."""

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

    @staticmethod
    def _bulk_line(st: DocState, h: int) -> int | None:
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

    def finish(self) -> None:
        rep = self.report
        rep.findings.extend(self._listing.more())
        uniform = uniform_lastmod(self._lastmods, self._lastmod_total)
        if uniform is not None and self._lastmod_first is not None:
            (value, count), total = uniform, self._lastmod_total
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
