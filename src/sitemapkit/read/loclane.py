"""The loc lane of ``sitemapkit urls``: only each entry's loc is wanted.

Why: whole runs of entries that are well-formed XML by construction (plain, or
with the usual image and hreflang children when the root binds their prefixes)
come out as one :class:`~sitemapkit.read.xmlnodes.LocRun` from one regex and one
``findall``; expat reads only their line ends, blank.  Any other ``<url>`` whose
first child is a plain ``<loc>`` gives its loc while expat checks the whole entry
with no Python handlers set; everything else becomes nodes as usual.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from sitemapkit.limits import MAX_TEXT_CHARS
from sitemapkit.read.entries import PLAIN_WEB_START
from sitemapkit.read.lanes import XML_CHARS, extension_prefixes
from sitemapkit.read.xmlbuild import NodeBuilder
from sitemapkit.read.xmlcore import _BLANK_GAP, _MAX_HOLD, _TEXT, _WS
from sitemapkit.read.xmlnodes import LocRun, ParseProblem, Plain

_LOC_HEAD = re.compile(rb"<url>" + _WS + rb"<loc>" + _TEXT + rb"</loc>")
#: a run of plain entries (loc [lastmod] [changefreq] [priority]) that is well-formed XML
#: by construction: no markup, no reference but ``&amp;``, no character XML forbids (nor
#: U+FFFE/U+FFFF, the only ones of 0xEF-led bytes); locs with no CR (expat would fold it),
#: no blank at either end and not empty, so each is its own final value
_T_CHARS: Final = rb"(?:" + XML_CHARS + rb"|&amp;)*+"
_T_LOC: Final = (
    # only plainly absolute web URLs (entries.PLAIN_WEB_START) come out as runs
    rb"(?=" + PLAIN_WEB_START.encode() + rb"[/?#<])"
    rb"(?![ \t\n<])(?:[^<&\]\x00-\x08\x0b\x0c\x0e-\x1f\r\xef]++|\xef(?!\xbf[\xbe\xbf])|&amp;)*+"
    rb"(?<![ \t\n])"
)
_WSP: Final = rb"[ \t\r\n]*+"
#: an attribute value with nothing expat would refuse or change but ``&amp;``
_T_ATTR: Final = rb'"(?:[^<&"\x00-\x1f\xef]++|\xef(?!\xbf[\xbe\xbf])|&amp;)*+"'


@lru_cache(maxsize=64)
def _loc_run(namespaces: tuple[tuple[str, str], ...]) -> re.Pattern[bytes]:
    """The loc lane's run of entries for a urlset declaring these namespaces at its root.

    Plain entries, and the usual image and hreflang children when the root binds
    their namespaces to a prefix: every run it matches is well-formed XML by
    construction, so expat reads only its line ends.
    """
    image, xhtml = extension_prefixes(namespaces)
    ext: list[bytes] = []
    if image is not None:
        i = image.encode()
        kids = b"|".join(
            b"<" + i + b":" + k + b">" + _T_CHARS + b"</" + i + b":" + k + b">"
            for k in (b"caption", b"title", b"geo_location", b"license")
        )
        ext.append(
            b"<" + i + b":image>" + _WSP + b"<" + i + b":loc>" + _T_CHARS + b"</" + i + b":loc>"
            + _WSP + b"(?:(?:" + kids + b")" + _WSP + b")*+</" + i + b":image>"
        )  # fmt: skip
    if xhtml is not None:
        ext.append(
            b"<" + xhtml.encode() + b":link[ \t\r\n]++rel=" + _T_ATTR
            + b"[ \t\r\n]++hreflang=" + _T_ATTR + b"[ \t\r\n]++href=" + _T_ATTR + _WSP + b"/>"
        )  # fmt: skip
    tail = b"(?:(?:" + b"|".join(ext) + b")" + _WSP + b")*+" if ext else b""
    return re.compile(
        rb"(?:" + _WSP + rb"<url>" + _WSP + rb"<loc>" + _T_LOC + rb"</loc>" + _WSP
        + rb"(?:<lastmod>" + _T_CHARS + rb"</lastmod>" + _WSP + rb")?"
        + rb"(?:<changefreq>" + _T_CHARS + rb"</changefreq>" + _WSP + rb")?"
        + rb"(?:<priority>" + _T_CHARS + rb"</priority>" + _WSP + rb")?"
        + tail + rb"</url>)*+"
    )  # fmt: skip


_LOC_HEADS = re.compile(r"<loc>([^<]*)</loc>")


class LocLane(NodeBuilder):
    """:meth:`_locs_feed`: the locs of a urlset, in runs where it can."""

    # One inlined scan loop over the buffer, on purpose: a helper call per entry costs
    # as much as the work (the lane-equals-nodes tests hold it to the slow path).
    def _locs_feed(self, data: bytes, final: bool, start: int = 0) -> None:  # noqa: C901, PLR0912, PLR0915
        """The lean lane when only locs are wanted (``sitemapkit urls``): any ``<url>``
        whose first child is a plain ``<loc>`` gives its loc, and the whole entry goes to
        expat with no Python handlers set, so it is still checked but no node is built."""
        buf = self._pend + data if self._pend else data
        pos = start
        p = self._p
        parse = self._parse
        blank_gap = _BLANK_GAP.fullmatch
        find = buf.find
        count = buf.count
        cnt, line = self._cnt, self._line
        offset = self._line_offset
        run = -1  # start of the raw run expat will read without handlers
        pending: list[tuple[int, Plain]] = []  # its entries, kept until expat agrees

        def flush(upto: int) -> None:
            if run < 0:
                return
            p.StartElementHandler = p.EndElementHandler = p.CharacterDataHandler = None
            try:
                parse(buf[run:upto])
            except ParseProblem:
                bad = p.ErrorByteIndex + self._skew  # as a stream offset
                good = [t for at, t in pending if at <= bad]
                self.out.extend(good)
                self.facts.entries += len(good)
                raise
            self._outside()
            self.out.extend(t for _, t in pending)
            self.facts.entries += len(pending)
            pending.clear()

        hold = -1
        loc_run = _loc_run(tuple(self.facts.namespaces.items())).match
        no_run = -1  # a loc run tried and not taken ends here; entry by entry until then
        misses = 0  # entries in a row where no run began
        # Markers are searched once (when an entry first needs them) and moved forward,
        # not searched again per entry; -2: not searched yet.
        bang = quest = -2
        nxt = -2  # the next "<url>" after the current one, once known
        while True:
            u = -1 if nxt == -1 else nxt if nxt >= pos else find(b"<url>", pos)
            if u < 0:
                break
            e = find(b"</url>", u)
            if e < 0:
                hold = u
                break
            if u > pos and blank_gap(buf, pos, u) is None:
                flush(pos)
                run = -1
                gap = buf[pos:u]
                parse(gap)
                pos = u
                if self._depth != 1 or b"<!" in gap or b"<?" in gap:
                    self._fast = False
                    parse(buf[u:], final)
                    self._pend = b""
                    return
            if u >= no_run:
                # Whole runs of plain entries at once: one regex, one findall, no node.
                rm = loc_run(buf, pos)
                r_end = rm.end() if rm is not None else pos
                if r_end > pos:
                    misses = 0
                    flush(pos)
                    run = -1
                    if self._take_locs(buf, pos, r_end):
                        pos = r_end
                        continue
                    no_run = r_end  # not after all (bad UTF-8): entry by entry
                else:
                    misses += 1
                    if misses >= 8:  # entries with images and the like: stop trying here
                        no_run = len(buf)
            m = _LOC_HEAD.match(buf, u)
            if bang == -2 or 0 <= bang < u:
                bang = find(b"<!", u)
            if quest == -2 or 0 <= quest < u:
                quest = find(b"<?", u)
            nxt = find(b"<url>", u + 5)
            loc = None
            if m is not None and not (0 <= bang < e or 0 <= quest < e or 0 <= nxt < e):
                try:
                    loc = m[1].decode()
                except UnicodeDecodeError:
                    loc = None
            if loc is None:  # not plain: expat builds its node as usual
                flush(pos)
                run = -1
                raw = buf[pos : e + 6]
                if b"<!" in raw or b"<?" in raw:  # a comment may hide "</url>": expat decides
                    self._fast = False
                    parse(buf[pos:], final)
                    self._pend = b""
                    return
                parse(raw)
                pos = e + 6
                if self._depth != 1:  # the entry did not close where it seemed to
                    self._fast = False
                    parse(buf[pos:], final)
                    self._pend = b""
                    return
                continue
            if run < 0:
                run = pos
            line += count(b"\n", cnt, u)
            cnt = u
            pending.append((self._abs + e + 6, (True, loc, None, None, None, line + offset)))
            pos = e + 6
        flush(pos)
        end = len(buf)
        if not final and hold >= 0 and end - hold < _MAX_HOLD:
            end = hold
        self._end_chunk(buf, pos, end, line, cnt, final)

    def _take_locs(self, buf: bytes, start: int, end: int) -> bool:
        """Hand out the locs of the entries in ``buf[start:end]`` (a :func:`_loc_run` match).

        The run is well-formed by construction, so expat reads only its line ends,
        blank; False (nothing done) when the bytes are not UTF-8.
        """
        chunk = buf[start:end]
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError:
            return False
        values = text.replace("&amp;", "&") if "&" in text else text
        locs: list[str] = _LOC_HEADS.findall(values)
        if max(map(len, locs), default=0) >= MAX_TEXT_CHARS:  # left out, named with its line
            return False
        self._parse_blanked(chunk, text)
        self.out.append(LocRun(locs))
        self.facts.entries += len(locs)
        return True
