"""The values the XML layer hands out: entry nodes, loc runs, lean tuples, file facts.

Why a module of their own: the parser, its lanes, the walker, the reader and the
validator all pass these around; keeping them apart from the parsing code lets
each of those import the values without the machinery.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sitemapkit.read.kinds import Kind
from sitemapkit.read.lanes import Block, StrictLane

#: A plain entry from the lean lane: (is url, loc, lastmod, changefreq, priority, line).
Plain = tuple[bool, str, str | None, str | None, str | None, int]


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
