"""The hardened expat setup every lane and the node builder stand on.

Why: a DOCTYPE or entity declaration stops the parse (``xml-doctype``) before expat
can expand or fetch anything, a tag over :data:`~sitemapkit.limits.MAX_RUN_BYTES`
stops it before expat's rescans go quadratic, and bad bytes are named
(``encoding-not-utf8``) rather than reported as generic malformation.  The class
here also keeps the bookkeeping that maps stream offsets to expat's lines and
columns when a lane hands expat blanks instead of the bytes it took.
"""

from __future__ import annotations

import re
from typing import Final
from xml.parsers import expat

from sitemapkit.limits import MAX_RUN_BYTES
from sitemapkit.read.lanes import StrictLane
from sitemapkit.read.markup import OpenMarkup
from sitemapkit.read.xmlnodes import Item, ParseProblem, XmlFacts

#: Elements deeper than this stop the parse (a nesting bomb); real sitemaps need ~5.
MAX_XML_DEPTH: Final = 64
#: How far into a file we look for an XML declaration hidden behind leading junk.
LEADING_SCAN_BYTES: Final = 4_096

SEP: Final = "\x01"
_UTF8_BOM: Final = b"\xef\xbb\xbf"
#: expat's "no element found": the document ended before its root element
_NO_ELEMENTS: Final = expat.errors.codes[expat.errors.XML_ERROR_NO_ELEMENTS]
_DECL_ENCODING = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")

#: text with no markup, no reference and no character XML forbids (U+FFFE and U+FFFF are
#: the only ones whose UTF-8 starts 0xEF BF BE/BF; bad UTF-8 is caught by decoding), and
#: no CR, which expat folds into the line end that follows
_TEXT = rb"((?:[^<&\]\x00-\x08\x0b\x0c\x0e-\x1f\r\xef]++|\xef(?!\xbf[\xbe\xbf]))*+)"
_WS = rb"[ \t\r\n]*"
_BLANK_GAP = re.compile(_WS)
_VERSION = re.compile(r"1\.[0-9]+")
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


class ExpatCore:
    """An expat parser that refuses DTDs and entities, and the stream positions around it."""

    def __init__(self) -> None:
        self.facts = XmlFacts()
        self.out: list[Item] = []
        self._fed = 0  # bytes expat has accepted so far
        self._open = OpenMarkup()  # the markup open at the end of the data (see _check_run)
        self._skew = 0  # stream bytes minus bytes expat saw (runs blanked per character)
        self._tail = b""  # the last of them, to name bad bytes split across chunks
        self._abs = 0  # stream offset of the pending buffer's first byte
        self._lane: StrictLane | None = None
        self._lstart = 0  # stream offset where the current line starts (strict lane)
        self._lfix = 0  # UTF-8 continuation bytes between that start and _cnt
        self._fast = False  # a lane reads the stream (else expat alone)
        self._pend = b""  # bytes a lane holds back for the rest of an entry
        self._cnt = 0  # position in the pending buffer up to which lines are counted
        self._line = 1  # line number at that position
        self._entry_tag = b"<url>"
        self._head = b""
        self._started = False
        self._line_offset = 0
        self._depth = 0
        p = expat.ParserCreate(namespace_separator=SEP)
        p.buffer_text = True
        p.buffer_size = 65_536
        p.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        p.StartDoctypeDeclHandler = self._doctype
        p.EntityDeclHandler = self._entity
        p.ExternalEntityRefHandler = self._external
        p.XmlDeclHandler = self._xmldecl
        p.StartNamespaceDeclHandler = self._nsdecl
        self._p = p

    def _check_run(self, data: bytes) -> None:
        """Stop as soon as one tag, comment, CDATA section or PI still open passes
        :data:`~sitemapkit.limits.MAX_RUN_BYTES` (see :mod:`sitemapkit.read.markup`)."""
        cap = MAX_RUN_BYTES
        if len(data) > cap:  # markup inside the piece could pass the cap: piece by piece
            for at in range(0, len(data), cap):
                self._check_run(data[at : at + cap])
            return
        if self._open.feed(data) > cap:
            raise ParseProblem(
                "limit-run-bytes",
                f"a tag, comment or CDATA section longer than {cap:,} bytes (limit max-run-bytes)",
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

    def _end_chunk(self, buf: bytes, pos: int, end: int, line: int, cnt: int, final: bool) -> None:
        """End a lane's chunk: expat reads ``buf[pos:end]``, the rest is held for the next
        feed, and the line count (``line`` at ``buf[cnt]``) moves on to ``end``."""
        if end > pos:
            self._parse(buf[pos:end])
        self._line, self._cnt = line + buf.count(b"\n", cnt, end), 0
        self._pend = buf[end:]
        self._abs += end
        if final:
            self._parse(b"", True)

    def _parse_blanked(self, raw: bytes, text: bytes | str) -> None:
        """Give expat the blanks of a run the lanes took (``text``: ``raw``, decoded when not
        ASCII); expat counts a column per character, so blanks are one per character and
        ``_skew`` keeps how many fewer bytes expat has seen than the stream holds."""
        blank = _blanked(text)
        self._skew += len(raw) - len(blank)
        self._parse(blank)

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
        """The finding for expat's error: its line and column, and words a user reads."""
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
        if exc.code == _NO_ELEMENTS and self._fed == 0 and not data.strip():
            # an empty file (a 0-byte upload, an empty .gz) says so, not "no element found"
            what = "the file is empty (nothing but whitespace, if anything)"
            return ParseProblem("xml-malformed", f"not well-formed XML: {what}", line, col)
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
