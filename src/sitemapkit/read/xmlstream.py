"""The hardened streaming XML layer every sitemap reader and rule stands on.

Why expat fed in chunks and not a tree: a 50 MB file or an index of a million
URLs must never sit in memory whole, and expat gives exact positions for free.
Each top-level entry (``url``, ``sitemap``, RSS ``item``, Atom ``entry``) is
handed out as a small :class:`Node` tree once its end tag is seen, then
forgotten.  Three lanes spare that work where it is not needed:

* the reader's *lean* lane hands plain entries out as :data:`Plain` tuples
  (``_fast_feed``); expat reads every byte, the plain entries blanked;
* ``sitemapkit urls`` wants only locs: whole runs of entries that are
  well-formed by construction (plain, or with the usual image and hreflang
  children) come out as one :class:`LocRun` from one regex and one findall
  (``_locs_feed``);
* the validator's *strict* lane hands out :class:`~sitemapkit.read.lanes.Block`
  runs of entries that break no single-value rule (``_strict_feed``).

Whatever a lane does not take is parsed into nodes as usual, and tests hold
every lane to what the node path reads.

Hostile input is expected: a DOCTYPE or entity declaration stops the parse
(``xml-doctype``) before expat can expand or fetch anything; elements nested
deeper than :data:`MAX_XML_DEPTH` and texts longer than :data:`MAX_TEXT_CHARS`
are capped so one entry cannot eat the memory.  Bytes come already
decompressed (see :mod:`sitemapkit.read.source`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final
from xml.parsers import expat

from sitemapkit.limits import MAX_RUN_BYTES, MAX_TEXT_CHARS
from sitemapkit.read.entries import all_plain
from sitemapkit.read.kinds import ENTRY_NAMES, Kind, kind_of_root, root_unknown_message
from sitemapkit.read.lanes import XML_CHARS, Block, StrictLane, extension_prefixes

#: Elements deeper than this stop the parse (a nesting bomb); real sitemaps need ~5.
MAX_XML_DEPTH: Final = 64
#: How far into a file we look for an XML declaration hidden behind leading junk.
LEADING_SCAN_BYTES: Final = 4_096

_SEP: Final = "\x01"
_UTF8_BOM: Final = b"\xef\xbb\xbf"
_DECL_ENCODING = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")

#: A plain entry from the lean lane: (is url, loc, lastmod, changefreq, priority, line).
Plain = tuple[bool, str, str | None, str | None, str | None, int]
#: text with no markup, no reference and no character XML forbids (U+FFFE and U+FFFF are
#: the only ones whose UTF-8 starts 0xEF BF BE/BF; bad UTF-8 is caught by decoding), and
#: no CR, which expat folds into the line end that follows
_TEXT = rb"((?:[^<&\]\x00-\x08\x0b\x0c\x0e-\x1f\r\xef]++|\xef(?!\xbf[\xbe\xbf]))*+)"
_WS = rb"[ \t\r\n]*"
_PLAIN = re.compile(
    rb"<(url|sitemap)>" + _WS
    + rb"<loc>" + _TEXT + rb"</loc>" + _WS
    + rb"(?:<lastmod>" + _TEXT + rb"</lastmod>" + _WS + rb")?"
    + rb"(?:<changefreq>" + _TEXT + rb"</changefreq>" + _WS + rb")?"
    + rb"(?:<priority>" + _TEXT + rb"</priority>" + _WS + rb")?"
    + rb"</\1>"
)  # fmt: skip
_BLANK_GAP = re.compile(_WS)
_VERSION = re.compile(r"1\.[0-9]+")
_LOC_HEAD = re.compile(rb"<url>" + _WS + rb"<loc>" + _TEXT + rb"</loc>")
#: a run of plain entries (loc [lastmod] [changefreq] [priority]) that is well-formed XML
#: by construction: no markup, no reference but ``&amp;``, no character XML forbids (nor
#: U+FFFE/U+FFFF, the only ones of 0xEF-led bytes); locs with no CR (expat would fold it),
#: no blank at either end and not empty, so each is its own final value
_T_CHARS: Final = rb"(?:" + XML_CHARS + rb"|&amp;)*+"
_T_LOC: Final = (
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
_FIRST_ELEMENT = re.compile(rb"<[A-Za-z_][^>]*>")
#: every byte but line ends becomes a space: the same shape for expat, nothing to parse
_BLANK: Final = bytes(b if b in (10, 13) else 32 for b in range(256))
_CONTINUATION: Final = bytes(range(0x80, 0xC0))
_AFTER_NAME: Final = (b">", b" ", b"\t", b"\n", b"\r", b"/")
#: bytes held back at a chunk's end, waiting for the rest of a plain entry
_MAX_HOLD: Final = 1 << 20


def _root_start(data: bytes) -> re.Match[bytes] | None:
    """The root's start tag, past the comments and processing instructions before it.

    Generators often put a comment (``<!-- generator=... -->``) or a stylesheet
    PI before the root; a DOCTYPE or anything unclosed gives None (expat decides).
    """
    pos = 0
    while True:
        m = _FIRST_ELEMENT.search(data, pos)
        if m is None:
            return None
        mark = data.find(b"<!", pos, m.start())
        quest = data.find(b"<?", pos, m.start())
        if mark < 0 and quest < 0:
            return m
        if quest >= 0 and (mark < 0 or quest < mark):
            end = data.find(b"?>", quest + 2)
            if end < 0:
                return None
            pos = end + 2
        elif data.startswith(b"<!--", mark):
            end = data.find(b"-->", mark + 4)
            if end < 0:
                return None
            pos = end + 3
        else:
            return None


_NOT_EOL = re.compile(r"[^\r\n]+")


def _blanked(text: bytes | str) -> bytes:
    """What expat reads for a strict run: its line ends, and a blank per character."""
    if isinstance(text, bytes):
        if b"\r" in text:
            return text.translate(_BLANK)
        k = text.count(b"\n")
        return b"\n" * k + b" " * (len(text) - text.rfind(b"\n") - 1)
    if "\r" in text:
        return _NOT_EOL.sub(lambda m: " " * len(m[0]), text).encode()
    k = text.count("\n")
    return b"\n" * k + b" " * (len(text) - text.rfind("\n") - 1)


class Node:
    """One element of an entry: namespace, local name, attributes, text, position."""

    __slots__ = ("attrs", "children", "col", "line", "name", "ns", "text", "truncated")

    def __init__(self, ns: str, name: str, attrs: dict[str, str], line: int, col: int) -> None:
        self.ns = ns
        self.name = name
        self.attrs = attrs
        self.line = line
        self.col = col
        self.text = ""
        self.children: list[Node] = []
        self.truncated = False

    def child(self, ns: str, name: str) -> Node | None:
        for c in self.children:
            if c.name == name and c.ns == ns:
                return c
        return None

    def find(self, ns: str, name: str) -> list[Node]:
        return [c for c in self.children if c.name == name and c.ns == ns]

    def __repr__(self) -> str:  # pragma: no cover - debugging aid
        return f"<Node {{{self.ns}}}{self.name} @{self.line}:{self.col} {self.text[:30]!r}>"


class LocRun:
    """The locs of a run of entries, in order (``sitemapkit urls``: only locs are wanted)."""

    __slots__ = ("locs",)

    def __init__(self, locs: list[str]) -> None:
        self.locs = locs


#: What a parser hands out: nodes, lean-lane tuples or loc runs, or strict-lane blocks.
Item = Node | Plain | LocRun | Block
#: Given the root's facts, the strict lane for this document (or None: nodes only).
LaneFactory = Callable[["XmlFacts"], StrictLane | None]


class ParseProblem(Exception):  # noqa: N818 - a value carried out of expat, not a bug
    """Parsing of one file stopped: ``code`` is the RULES.md (or limit) code."""

    def __init__(self, code: str, message: str, line: int | None, col: int | None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.col = col


@dataclass(slots=True)
class XmlFacts:
    """File-level facts the validator needs after (or while) the entries stream by."""

    root_ns: str | None = None
    root_name: str | None = None
    #: what the root makes the document (:func:`~sitemapkit.read.kinds.kind_of_root`)
    kind: Kind | None = None
    root_line: int = 1
    root_col: int = 1
    has_declaration: bool = False
    declared_encoding: str | None = None
    bom: bool = False
    #: bytes (and their text) skipped before the XML declaration
    leading_bytes: int = 0
    leading_text: str = ""
    byte_size: int = 0
    entries: int = 0
    namespaces: dict[str, str] = field(default_factory=dict)
    truncated_texts: int = 0
    root_attrs: dict[str, str] = field(default_factory=dict)
    #: (line, column) of the first text between entries, where only elements may be
    stray: tuple[int, int] | None = None


class XmlStreamParser:
    """Push parser: :meth:`feed` bytes, then take finished entries from :attr:`out`.

    It never builds more than the entry being read; the root element and any
    text between entries are recorded only as facts.
    """

    def __init__(
        self, *, lean: bool = False, locs_only: bool = False, strict: LaneFactory | None = None
    ) -> None:
        self.facts = XmlFacts()
        self._fed = 0  # bytes expat has accepted so far
        self._run = 0  # bytes of the tag still open at the end of the data (see _check_run)
        self._skew = 0  # stream bytes minus bytes expat saw (runs blanked per character)
        self._tail = b""  # the last of them, to name bad bytes split across chunks
        #: locs_only: the caller wants only each url's loc (``sitemapkit urls``), so the
        #: rest of an entry is checked by expat but never turned into nodes
        self.locs_only = locs_only
        self._abs = 0  # stream offset of the pending buffer's first byte
        self.out: list[Item] = []
        #: lean: plain entries come out as :data:`Plain` tuples (the reader's fast lane)
        self.lean = lean
        #: strict: runs of provably clean entries come out as :class:`Block` (validator)
        self._strict = strict
        self._lane: StrictLane | None = None
        self._lstart = 0  # stream offset where the current line starts (strict lane)
        self._lfix = 0  # UTF-8 continuation bytes between that start and _cnt
        self._fast = False
        self._pend = b""
        self._cnt = 0  # position in the pending buffer up to which lines are counted
        self._line = 1  # line number at that position
        self._entry_tag = b"<url>"
        self._head = b""
        self._started = False
        self._line_offset = 0
        self._depth = 0
        self._entry_name: str | None = None
        self._stack: list[Node] = []
        self._names: dict[str, tuple[str, str]] = {}
        p = expat.ParserCreate(namespace_separator=_SEP)
        p.buffer_text = True
        p.buffer_size = 65_536
        p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        p.StartDoctypeDeclHandler = self._doctype
        p.EntityDeclHandler = self._entity
        p.ExternalEntityRefHandler = self._external
        p.XmlDeclHandler = self._xmldecl
        p.StartNamespaceDeclHandler = self._nsdecl
        p.StartElementHandler = self._start_root
        self._p = p

    # --- feeding -------------------------------------------------------------------
    def feed(self, data: bytes, final: bool = False) -> None:
        """Parse ``data``; raise :class:`ParseProblem` when the file cannot go on."""
        self.facts.byte_size += len(data)
        self._check_run(data)
        if not self._started:
            self._head += data
            if len(self._head) < LEADING_SCAN_BYTES and not final:
                return
            data = self._strip_head(self._head)
            self._head = b""
            self._started = True
            if self.lean or self._strict is not None:
                self._first(data, final)
                return
        if self._fast:
            if self._lane is not None:
                self._strict_feed(data, final)
            elif self.locs_only and self._entry_tag == b"<url>":
                self._locs_feed(data, final)
            else:
                self._fast_feed(data, final)
        else:
            self._parse(data, final)

    def _check_run(self, data: bytes) -> None:
        """Stop as soon as one tag (``<`` with no ``>`` yet: a start tag with its attributes,
        a comment, a PI) passes :data:`~sitemapkit.limits.MAX_RUN_BYTES`.  expat scans an
        unfinished token again on every feed, so a 60 MB attribute took a minute; text is
        reported piece by piece and needs no cap here."""
        cap = MAX_RUN_BYTES
        if len(data) > cap:  # a tag inside the piece could pass the cap: look piece by piece
            for at in range(0, len(data), cap):
                self._check_run(data[at : at + cap])
            return
        lt, gt = data.rfind(b"<"), data.rfind(b">")
        if lt > gt:
            self._run = len(data) - lt
        elif gt >= 0:
            self._run = 0
        elif self._run:
            self._run += len(data)
        if self._run > cap:
            raise ParseProblem(
                "limit-run-bytes",
                f"a tag longer than {cap:,} bytes (attributes or comment; limit max-run-bytes)",
                self._p.CurrentLineNumber + self._line_offset,
                None,
            )

    def _parse(self, data: bytes, final: bool = False) -> None:
        try:
            self._p.Parse(data, final)
        except expat.ExpatError as exc:
            raise self._expat_problem(exc, data) from None
        except LookupError:  # an encoding name Python does not know
            raise ParseProblem(
                "encoding-not-utf8",
                f'declared encoding "{self.facts.declared_encoding}" is unknown (use UTF-8)',
                1 + self._line_offset,
                1,
            ) from None
        self._fed += len(data)
        self._tail = (self._tail + data)[-8:]

    # --- the lean lane -----------------------------------------------------------------
    # Why: a Python callback per element and a Node per child cap the reader near
    # 150k URLs/s.  Plain entries (``<url><loc>…</loc>[<lastmod>…]…</url>``, no
    # attributes, entities or markup in the text) are cut out by one regex and handed
    # on as tuples.  expat still reads the same stream with those entries turned into
    # blanks of the same shape, so well-formedness is still checked by expat, the other
    # entries become nodes as usual, and every position stays exact.
    def _first(self, data: bytes, final: bool) -> None:
        enc = (self.facts.declared_encoding or "utf-8").lower().replace("_", "-")
        m = _root_start(data)
        if m is None or enc not in ("utf-8", "utf8", "us-ascii", "ascii"):
            self._parse(data, final)
            return
        self._parse(data[: m.end()])
        if self._depth != 1 or self.facts.kind not in ("urlset", "sitemapindex"):
            self._parse(data[m.end() :], final)
            return
        if self._strict is not None:
            lane = self._strict(self.facts) if self.facts.kind == "urlset" else None
            if lane is None:
                self._parse(data[m.end() :], final)
                return
            self._lane = lane
            self._fast = True
            self._pend = data
            self._strict_feed(b"", final, start=m.end())
            return
        self._fast = True
        self._entry_tag = b"<url>" if self.facts.kind == "urlset" else b"<sitemap>"
        self._pend = data
        if self.locs_only and self._entry_tag == b"<url>":
            self._locs_feed(b"", final, start=m.end())
        else:
            self._fast_feed(b"", final, start=m.end())

    def _locs_feed(self, data: bytes, final: bool, start: int = 0) -> None:
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
        if end > pos:
            parse(buf[pos:end])
        line += count(b"\n", cnt, end)
        self._line, self._cnt = line, 0
        self._pend = buf[end:]
        self._abs += end
        if final:
            parse(b"", True)

    def _parse_blanked(self, raw: bytes, text: bytes | str) -> None:
        """Give expat the blanks of a run the lanes took (``text``: ``raw``, decoded when not
        ASCII); expat counts a column per character, so blanks are one per character and
        ``_skew`` keeps how many fewer bytes expat has seen than the stream holds."""
        blank = _blanked(text)
        self._skew += len(raw) - len(blank)
        self._parse(blank)

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
        if not all_plain(locs):  # a loc the reader leaves out is named with its line
            return False
        self._parse_blanked(chunk, text)
        self.out.append(LocRun(locs))
        self.facts.entries += len(locs)
        return True

    def _fast_feed(self, data: bytes, final: bool, start: int = 0) -> None:
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
        if end > pos:
            parse(buf[pos:end])
        line += count(b"\n", cnt, end)
        self._line, self._cnt = line, 0
        self._pend = buf[end:]
        self._abs += end
        if final:
            parse(b"", True)

    # --- the strict lane (validator) --------------------------------------------------
    # Why: see :mod:`sitemapkit.read.lanes`.  A run of strict entries is well-formed by
    # construction (fixed tags, checked UTF-8, no markup and only predefined references
    # in the texts), so expat is given only its line ends, blank, to keep every later
    # position exact; anything else between runs (other entries, comments) goes to expat
    # and becomes nodes as usual.
    def _strict_feed(self, data: bytes, final: bool, start: int = 0) -> None:
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

    def close(self) -> None:
        self.feed(b"", final=True)

    def _strip_head(self, head: bytes) -> bytes:
        facts = self.facts
        if head.startswith(_UTF8_BOM):
            facts.bom = True
            head = head[3:]
        stripped = head.lstrip()
        skip = len(head) - len(stripped)
        if not stripped.startswith(b"<?xml"):
            pos = stripped.find(b"<?xml", 0, LEADING_SCAN_BYTES)
            skip = skip + pos if pos > 0 else skip
        if skip:
            junk = head[:skip]
            facts.leading_bytes = skip
            facts.leading_text = junk[:80].decode("utf-8", "replace")
            self._line_offset = junk.count(b"\n")
            head = head[skip:]
        facts.has_declaration = head.startswith(b"<?xml")
        if facts.has_declaration:
            m = _DECL_ENCODING.match(head)
            facts.declared_encoding = m[1].decode("ascii") if m else None
        elif head.startswith((b"\xff\xfe", b"\xfe\xff")):
            facts.declared_encoding = "UTF-16"
        return head

    def _pos(self) -> tuple[int, int]:
        p = self._p
        return p.CurrentLineNumber + self._line_offset, p.CurrentColumnNumber + 1

    def _expat_problem(self, exc: expat.ExpatError, data: bytes) -> ParseProblem:
        line = (exc.lineno or 1) + self._line_offset
        col = (exc.offset or 0) + 1
        reason = expat.errors.messages[exc.code] if exc.code else str(exc)
        if exc.code == expat.errors.codes[expat.errors.XML_ERROR_INVALID_TOKEN] and (
            self.facts.declared_encoding is None
            or self.facts.declared_encoding.lower().replace("_", "-") in ("utf-8", "utf8")
        ):
            # Look at the bytes where expat stopped (they may start in the previous chunk).
            window = self._tail + data
            rel = self._p.ErrorByteIndex - (self._fed - len(self._tail))
            seq = window[rel : rel + 4] if 0 <= rel < len(window) else b""
            if seq and seq[0] >= 0x80:
                try:
                    seq.decode("utf-8")
                except UnicodeDecodeError as ude:
                    if ude.start == 0 and ude.reason != "unexpected end of data":
                        return ParseProblem(
                            "encoding-not-utf8",
                            f"bytes {seq[: ude.end]!r} are not valid UTF-8",
                            line,
                            col,
                        )
        return ParseProblem("xml-malformed", f"not well-formed XML: {reason}", line, col)

    # --- refusals --------------------------------------------------------------------
    def _doctype(self, name: str, *_: object) -> None:
        line, col = self._pos()
        raise ParseProblem(
            "xml-doctype",
            f"DOCTYPE {name!r} refused (DTDs and entities are never read)",
            line,
            col,
        )

    def _entity(self, name: str, *_: object) -> None:
        line, col = self._pos()
        raise ParseProblem("xml-doctype", f"entity declaration {name!r} refused", line, col)

    def _external(self, *_: object) -> int:
        line, col = self._pos()
        raise ParseProblem("xml-doctype", "external entity reference refused", line, col)

    def _xmldecl(self, version: str | None, encoding: str | None, standalone: int) -> None:
        if version is not None and not _VERSION.fullmatch(version):
            raise ParseProblem(
                "xml-malformed", f'XML declaration version "{version}" is not 1.x', 1, 1
            )
        if encoding:
            self.facts.declared_encoding = encoding

    def _nsdecl(self, prefix: str | None, uri: str) -> None:
        if self._depth == 0:
            self.facts.namespaces[prefix or ""] = uri

    # --- elements --------------------------------------------------------------------
    def _split(self, tag: str) -> tuple[str, str]:
        got = self._names.get(tag)
        if got is None:
            ns, _, name = tag.rpartition(_SEP)
            got = self._names[tag] = (ns, name)
        return got

    def _start_root(self, tag: str, attrs: dict[str, str]) -> None:
        ns, name = self._split(tag)
        facts = self.facts
        facts.root_ns, facts.root_name = ns, name
        facts.root_attrs = attrs
        facts.root_line, facts.root_col = self._pos()
        self._depth = 1
        kind = facts.kind = kind_of_root(name, ns)
        if kind is None:
            raise ParseProblem(
                "root-unknown", root_unknown_message(name, ns), facts.root_line, facts.root_col
            )
        self._entry_name = ENTRY_NAMES[kind]
        self._outside()

    # Two handler sets, swapped per entry: outside entries only depth is kept; inside,
    # nodes are built.  Swapping costs less than testing the state on every callback.
    def _outside(self) -> None:
        p = self._p
        p.StartElementHandler = self._start_out
        p.EndElementHandler = self._end_out
        p.CharacterDataHandler = self._chars_out

    def _chars_out(self, data: str) -> None:
        if self.facts.stray is None and not data.isspace():
            self.facts.stray = self._pos()

    def _start_out(self, tag: str, attrs: dict[str, str]) -> None:
        depth = self._depth = self._depth + 1
        if depth > MAX_XML_DEPTH:
            self._too_deep()
        got = self._names.get(tag) or self._split(tag)
        entry = self._entry_name
        if (entry is None and depth == 2) or got[1] == entry:
            p = self._p
            node = Node(
                got[0],
                got[1],
                attrs,
                p.CurrentLineNumber + self._line_offset,
                p.CurrentColumnNumber + 1,
            )
            self._stack = [node]
            p.StartElementHandler = self._start_in
            p.EndElementHandler = self._end_in
            p.CharacterDataHandler = self._chars

    def _end_out(self, tag: str) -> None:
        self._depth -= 1

    def _too_deep(self) -> None:
        line, col = self._pos()
        raise ParseProblem(
            "limit-xml-depth",
            f"elements nested deeper than {MAX_XML_DEPTH} levels (limit max-xml-depth)",
            line,
            col,
        )

    def _start_in(self, tag: str, attrs: dict[str, str]) -> None:
        stack = self._stack
        if len(stack) + self._depth > MAX_XML_DEPTH:
            self._too_deep()
        got = self._names.get(tag) or self._split(tag)
        p = self._p
        node = Node(
            got[0],
            got[1],
            attrs,
            p.CurrentLineNumber + self._line_offset,
            p.CurrentColumnNumber + 1,
        )
        stack[-1].children.append(node)
        stack.append(node)

    def _end_in(self, tag: str) -> None:
        stack = self._stack
        node = stack.pop()
        if not stack:
            self.out.append(node)
            self.facts.entries += 1
            self._depth -= 1
            self._outside()

    def _chars(self, data: str) -> None:
        node = self._stack[-1]
        if node.text:
            if node.truncated:
                return
            data = node.text + data
        if len(data) > MAX_TEXT_CHARS:
            data = data[:MAX_TEXT_CHARS]
            if not node.truncated:
                node.truncated = True
                self.facts.truncated_texts += 1
        node.text = data


def block_nodes(block: Block) -> list[Node]:
    """The entries of a strict-lane block as nodes, with the positions they have in the file.

    Why parse again: a block the validator cannot clear in bulk (a duplicate, a
    date in the future ...) is checked by the same per-entry rules as any other
    entry, and those read nodes.  The block is parsed inside a copy of the root
    start tag, shifted so that expat's lines and columns are the file's.
    """
    sub = XmlStreamParser()
    sub._started = True
    sub._line_offset = block.line - 2
    sub._parse(block.lane.root + b"\n" + b" " * (block.col - 1) + block.data)
    return [n for n in sub.out if isinstance(n, Node)]
