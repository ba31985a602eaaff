"""The hardened streaming XML layer every sitemap reader and rule stands on.

Why expat fed in chunks and not a tree: a 50 MB file or an index of a million
URLs must never sit in memory whole, and expat gives exact positions for free.
Each top-level entry (``url``, ``sitemap``, RSS ``item``, Atom ``entry``) is
handed out as a small :class:`Node` tree once its end tag is seen, then
forgotten.

Hostile input is expected: a DOCTYPE or entity declaration stops the parse
(``xml-doctype``) before expat can expand or fetch anything; elements nested
deeper than :data:`MAX_XML_DEPTH` and texts longer than :data:`MAX_TEXT_CHARS`
are capped so one entry cannot eat the memory.  Bytes come already
decompressed (see :mod:`sitemapkit.sitemap.source`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final
from xml.parsers import expat

#: Elements deeper than this stop the parse (a nesting bomb); real sitemaps need ~5.
MAX_XML_DEPTH: Final = 64
#: One element's text is kept up to this many characters; the rest is dropped (and noted).
MAX_TEXT_CHARS: Final = 65_536
#: How far into a file we look for an XML declaration hidden behind leading junk.
LEADING_SCAN_BYTES: Final = 4_096

_SEP: Final = "\x01"
_UTF8_BOM: Final = b"\xef\xbb\xbf"
_DECL_ENCODING = re.compile(rb"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")

#: root local name -> the local name of its entries (None: every child of the root).
ENTRY_NAMES: Final[dict[str, str | None]] = {
    "urlset": None,
    "sitemapindex": None,
    "rss": "item",
    "RDF": "item",
    "feed": "entry",
}


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


class XmlStreamParser:
    """Push parser: :meth:`feed` bytes, then take finished entries from :attr:`out`.

    It never builds more than the entry being read; the root element and any
    text between entries are recorded only as facts.
    """

    def __init__(self) -> None:
        self.facts = XmlFacts()
        self.out: list[Node] = []
        self._head = b""
        self._started = False
        self._line_offset = 0
        self._depth = 0
        self._entry_name: str | None = None
        self._entry_depth = 0  # depth of the entry element, 0 when outside entries
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
        p.EndElementHandler = self._end
        p.CharacterDataHandler = self._chars
        self._p = p

    # --- feeding -------------------------------------------------------------------
    def feed(self, data: bytes, final: bool = False) -> None:
        """Parse ``data``; raise :class:`ParseProblem` when the file cannot go on."""
        self.facts.byte_size += len(data)
        if not self._started:
            self._head += data
            if len(self._head) < LEADING_SCAN_BYTES and not final:
                return
            data = self._strip_head(self._head)
            self._head = b""
            self._started = True
        try:
            self._p.Parse(data, final)
        except expat.ExpatError as exc:
            raise self._expat_problem(exc, data) from None

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
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as ude:
                if ude.start < len(data) - 4:
                    return ParseProblem(
                        "encoding-not-utf8",
                        f"bytes {data[ude.start : ude.start + 4]!r} are not valid UTF-8",
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
        facts.root_line, facts.root_col = self._pos()
        self._depth = 1
        if name not in ENTRY_NAMES:
            raise ParseProblem(
                "root-unknown",
                f"root element <{name}> is neither urlset nor sitemapindex",
                facts.root_line,
                facts.root_col,
            )
        self._entry_name = ENTRY_NAMES[name]
        self._p.StartElementHandler = self._start

    def _start(self, tag: str, attrs: dict[str, str]) -> None:
        self._depth += 1
        depth = self._depth
        if depth > MAX_XML_DEPTH:
            line, col = self._pos()
            raise ParseProblem(
                "limit-xml-depth",
                f"elements nested deeper than {MAX_XML_DEPTH} levels (limit max-xml-depth)",
                line,
                col,
            )
        stack = self._stack
        if stack:
            ns, name = self._split(tag)
            p = self._p
            node = Node(
                ns, name, attrs, p.CurrentLineNumber + self._line_offset, p.CurrentColumnNumber + 1
            )
            stack[-1].children.append(node)
            stack.append(node)
            return
        ns, name = self._split(tag)
        if self._entry_name is None:
            if depth != 2:  # pragma: no cover - entries are every child of the root
                return
        elif name != self._entry_name:
            return
        p = self._p
        node = Node(
            ns, name, attrs, p.CurrentLineNumber + self._line_offset, p.CurrentColumnNumber + 1
        )
        stack.append(node)
        self._entry_depth = depth

    def _end(self, tag: str) -> None:
        stack = self._stack
        if stack:
            node = stack.pop()
            if not stack:
                self.out.append(node)
                self.facts.entries += 1
                self._entry_depth = 0
        self._depth -= 1

    def _chars(self, data: str) -> None:
        stack = self._stack
        if stack:
            node = stack[-1]
            if node.truncated:
                return
            text = node.text + data if node.text else data
            if len(text) > MAX_TEXT_CHARS:
                text = text[:MAX_TEXT_CHARS]
                node.truncated = True
                self.facts.truncated_texts += 1
            node.text = text
