"""The validator's strict lane fed from the stream: runs of clean entries as blocks.

Why: see :mod:`sitemapkit.read.lanes`.  A run of strict entries is well-formed by
construction (fixed tags, checked UTF-8, no markup and only predefined references
in the texts), so expat is given only its line ends, blank, to keep every later
position exact; anything else between runs (other entries, comments) goes to expat
and becomes nodes as usual.
"""

from __future__ import annotations

from sitemapkit.read.lanes import Block
from sitemapkit.read.xmlbuild import NodeBuilder
from sitemapkit.read.xmlcore import _AFTER_NAME, _BLANK_GAP, _CONTINUATION, _MAX_HOLD


class StrictFeed(NodeBuilder):
    """:meth:`_strict_feed`: :class:`~sitemapkit.read.lanes.Block` runs, the rest as nodes."""

    # One inlined scan loop over the buffer, on purpose: a helper call per entry costs
    # as much as the work (the lane-equals-nodes tests hold it to the slow path).
    def _strict_feed(self, data: bytes, final: bool, start: int = 0) -> None:  # noqa: C901, PLR0912, PLR0915
        buf = self._pend + data if self._pend else data
        lane = self._lane
        assert lane is not None
        if buf.count(b"\r") != buf.count(b"\r\n"):  # lone CRs end lines for expat only
            self._leave_lane(buf[start:], final)
            return
        run = lane.run.match
        parse = self._parse
        find = buf.find
        blank_gap = _BLANK_GAP.match
        out = self.out
        facts = self.facts
        size = len(buf)
        pos = start
        offset = self._line_offset
        while True:
            m = run(buf, pos)
            assert m is not None  # (?:...)*+ matches, if only the empty string
            e = m.end()
            if e > pos:
                line, col = self._count_to(buf, pos)
                chunk = buf[pos:e]
                if chunk.isascii():
                    text: bytes | str = chunk
                else:  # image captions may be any UTF-8; expat is not asked
                    try:
                        text = chunk.decode("utf-8")
                    except UnicodeDecodeError:  # expat names the bad bytes
                        self._leave_lane(buf[pos:], final)
                        return
                n = chunk.count(b"<url>")
                out.append(Block(chunk, line + offset, col, n, lane, m.lastindex is not None))
                facts.entries += n
                self._parse_blanked(chunk, text)
                pos = e
            g = blank_gap(buf, pos)
            at = g.end() if g is not None else pos
            if at >= size or (size - at < 16 and not final):
                break  # nothing, or too little to tell what comes: wait for more
            if buf.startswith(b"<!--", at):
                close = find(b"-->", at + 4)
                if close < 0:
                    break
                parse(buf[pos : close + 3])
                pos = close + 3
                continue
            if buf.startswith(b"<url", at) and buf[at + 4 : at + 5] in _AFTER_NAME:
                close = find(b"</url>", at)
                if close < 0:
                    break
                piece = buf[pos : close + 6]
                if b"<!" in piece or b"<?" in piece:  # a comment or CDATA may hide "</url>"
                    self._leave_lane(buf[pos:], final)
                    return
                parse(piece)
                pos = close + 6
                if self._depth != 1:  # the entry did not close where it seemed to
                    self._leave_lane(buf[pos:], final)
                    return
                continue
            # the end of the urlset, or something no entry looks like: expat from here on
            self._leave_lane(buf[pos:], final)
            return
        end = size
        if not final and size - pos < _MAX_HOLD:
            end = pos
        elif not final:
            self._leave_lane(buf[pos:], final)
            return
        if end > pos:
            parse(buf[pos:end])
        self._count_to(buf, end)
        self._cnt = 0
        self._pend = buf[end:]
        self._abs += end
        if final:
            parse(b"", True)

    def _count_to(self, buf: bytes, upto: int) -> tuple[int, int]:
        """Move the line count on to ``buf[upto]``; return its line and expat's column there.

        expat counts a column per character, so UTF-8 continuation bytes are left out.
        """
        cnt = self._cnt
        nl = buf.rfind(b"\n", cnt, upto)
        if nl >= 0:
            self._line += buf.count(b"\n", cnt, upto)
            self._lstart = self._abs + nl + 1
            seg = buf[nl + 1 : upto]
            self._lfix = 0
        else:
            seg = buf[cnt:upto]
        if not seg.isascii():
            self._lfix += len(seg) - len(seg.translate(None, _CONTINUATION))
        self._cnt = upto
        return self._line, self._abs + upto - self._lstart + 1 - self._lfix

    def _leave_lane(self, rest: bytes, final: bool) -> None:
        self._fast = False
        self._lane = None
        self._pend = b""
        self._parse(rest, final)
