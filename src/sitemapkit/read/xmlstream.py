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

from sitemapkit.read.leanlane import LeanLane
from sitemapkit.read.loclane import LocLane
from sitemapkit.read.strictfeed import StrictFeed
from sitemapkit.read.xmlbuild import block_nodes
from sitemapkit.read.xmlcore import LEADING_SCAN_BYTES, MAX_XML_DEPTH, _root_start
from sitemapkit.read.xmlnodes import (
    Item,
    LaneFactory,
    LocRun,
    Node,
    ParseProblem,
    Plain,
    XmlFacts,
)

__all__ = [
    "MAX_XML_DEPTH",
    "Item",
    "LaneFactory",
    "LocRun",
    "Node",
    "ParseProblem",
    "Plain",
    "XmlFacts",
    "XmlStreamParser",
    "block_nodes",
]


class XmlStreamParser(LocLane, LeanLane, StrictFeed):
    """Push parser: :meth:`feed` bytes, then take finished entries from :attr:`out`.

    It never builds more than the entry being read; the root element and any
    text between entries are recorded only as facts.  The pieces: hardened expat
    (:mod:`~sitemapkit.read.xmlcore`), node building (:mod:`~sitemapkit.read.xmlbuild`),
    the loc lane (:mod:`~sitemapkit.read.loclane`), the lean lane
    (:mod:`~sitemapkit.read.leanlane`) and the strict lane (:mod:`~sitemapkit.read.strictfeed`).
    """

    def __init__(
        self, *, lean: bool = False, locs_only: bool = False, strict: LaneFactory | None = None
    ) -> None:
        super().__init__()
        #: locs_only: the caller wants only each url's loc (``sitemapkit urls``), so the
        #: rest of an entry is checked by expat but never turned into nodes
        self.locs_only = locs_only
        #: lean: plain entries come out as :data:`Plain` tuples (the reader's fast lane)
        self.lean = lean
        #: strict: runs of provably clean entries come out as :class:`Block` (validator)
        self._strict = strict

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

    # --- which lane, decided after the root start tag -------------------------------
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

    def close(self) -> None:
        self.feed(b"", final=True)
