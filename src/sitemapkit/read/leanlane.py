"""The reader's lean lane: plain entries handed out as tuples, not nodes.

Why: a Python callback per element and a Node per child cap the reader near
150k URLs/s.  Plain entries (``<url><loc>…</loc>[<lastmod>…]…</url>``, no
attributes, entities or markup in the text) are cut out by one regex and handed
on as :data:`~sitemapkit.read.xmlnodes.Plain` tuples.  expat still reads the same
stream with those entries turned into blanks of the same shape, so well-formedness
is still checked by expat, the other entries become nodes as usual, and every
position stays exact.
"""

from __future__ import annotations

import re

from sitemapkit.read.xmlbuild import NodeBuilder
from sitemapkit.read.xmlcore import _BLANK_GAP, _MAX_HOLD, _TEXT, _WS
from sitemapkit.read.xmlnodes import ParseProblem, Plain

_PLAIN = re.compile(
    rb"<(url|sitemap)>" + _WS
    + rb"<loc>" + _TEXT + rb"</loc>" + _WS
    + rb"(?:<lastmod>" + _TEXT + rb"</lastmod>" + _WS + rb")?"
    + rb"(?:<changefreq>" + _TEXT + rb"</changefreq>" + _WS + rb")?"
    + rb"(?:<priority>" + _TEXT + rb"</priority>" + _WS + rb")?"
    + rb"</\1>"
)  # fmt: skip


class LeanLane(NodeBuilder):
    """:meth:`_fast_feed`: plain entries as tuples, the rest as nodes."""

    # One inlined scan loop over the buffer, on purpose: a helper call per entry costs
    # as much as the work (the lane-equals-nodes tests hold it to the slow path).
    def _fast_feed(self, data: bytes, final: bool, start: int = 0) -> None:  # noqa: PLR0915
        buf = self._pend + data if self._pend else data
        pos = start
        run = -1  # start of plain entries (and blanks between) not yet given to expat
        p = self._p
        parse = self._parse
        blank_gap = _BLANK_GAP.fullmatch
        count = buf.count
        cnt, line = self._cnt, self._line
        offset = self._line_offset
        pending: list[tuple[int, Plain]] = []  # entries of the run, kept until expat agrees

        def flush(upto: int) -> None:
            # expat reads the run blanked; only then are its entries known to be sound
            if run < 0:
                return
            try:
                seg = buf[run:upto]
                self._parse_blanked(
                    seg, seg if seg.isascii() else seg.decode("utf-8", "surrogateescape")
                )
            except ParseProblem:
                bad = p.ErrorByteIndex + self._skew  # as a stream offset
                good = [t for at, t in pending if at <= bad]
                self.out.extend(good)
                self.facts.entries += len(good)
                raise
            self.out.extend(t for _, t in pending)
            self.facts.entries += len(pending)
            pending.clear()

        for m in _PLAIN.finditer(buf, pos):
            s = m.start()
            if s > pos and blank_gap(buf, pos, s) is None:
                flush(pos)
                run = -1
                gap = buf[pos:s]
                parse(gap)
                pos = s
                if self._depth != 1 or b"<!" in gap or b"<?" in gap:
                    self._fast = False  # comments, CDATA or PIs: expat takes it from here
                    parse(buf[s:], final)
                    self._pend = b""
                    return
            g_loc, g_mod, g_freq, g_prio = m.group(2, 3, 4, 5)
            try:
                loc = g_loc.decode()
                lastmod = None if g_mod is None else g_mod.decode()
                changefreq = None if g_freq is None else g_freq.decode()
                priority = None if g_prio is None else g_prio.decode()
            except UnicodeDecodeError:  # expat names the bad bytes
                flush(pos)
                run = -1
                parse(buf[pos : m.end()])
                pos = m.end()
                continue
            if run < 0:
                run = pos
            line += count(b"\n", cnt, s)
            cnt = s
            entry = (m[1] == b"url", loc or "", lastmod, changefreq, priority, line + offset)
            pending.append((self._abs + m.end(), entry))
            pos = m.end()
        flush(pos)
        end = len(buf)
        if not final:
            hold = buf.rfind(self._entry_tag, pos)
            if hold >= 0 and end - hold < _MAX_HOLD:
                end = hold
        self._end_chunk(buf, pos, end, line, cnt, final)
