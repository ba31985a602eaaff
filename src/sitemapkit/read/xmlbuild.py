"""Entries as small node trees: the expat handlers that build them, one entry at a time.

Why two handler sets swapped per entry: outside entries only the depth is kept,
inside them a :class:`~sitemapkit.read.xmlnodes.Node` per element is built; swapping
costs less than testing the state on every callback.  The root decides the
document's kind (:func:`~sitemapkit.read.kinds.kind_of_root`); a root no kind
names stops the parse with ``root-unknown``.
"""

from __future__ import annotations

from sitemapkit.limits import MAX_TEXT_CHARS
from sitemapkit.read.kinds import ENTRY_NAMES, kind_of_root, root_unknown_message
from sitemapkit.read.lanes import Block
from sitemapkit.read.xmlcore import MAX_XML_DEPTH, SEP, ExpatCore
from sitemapkit.read.xmlnodes import Node, ParseProblem


class NodeBuilder(ExpatCore):
    """Hands out each finished entry of the root as a :class:`Node` in :attr:`out`."""

    def __init__(self) -> None:
        super().__init__()
        self._entry_name: str | None = None
        self._stack: list[Node] = []
        self._names: dict[str, tuple[str, str]] = {}
        self._p.StartElementHandler = self._start_root

    # --- elements --------------------------------------------------------------------
    def _split(self, tag: str) -> tuple[str, str]:
        got = self._names.get(tag)
        if got is None:
            ns, _, name = tag.rpartition(SEP)
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
    sub = NodeBuilder()
    sub._started = True
    sub._line_offset = block.line - 2
    sub._parse(block.lane.root + b"\n" + b" " * (block.col - 1) + block.data)
    return [n for n in sub.out if isinstance(n, Node)]
