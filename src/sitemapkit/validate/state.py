"""The validator's shared ground: constants, a file's state, and the base every rule part builds on.

Why a base class: the rule parts (:mod:`.sets`, :mod:`.entry`, :mod:`.strict`, :mod:`.files`)
each hold one idea, yet all read and write one run's state; the base declares that state once.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Final

from sitemapkit import limits
from sitemapkit.errors import InputError
from sitemapkit.fingerprints import SeenUrls
from sitemapkit.limits import IMAGE_NS, MOBILE_NS, NEWS_NS, VIDEO_NS, XHTML_NS
from sitemapkit.listing import Listing
from sitemapkit.model import Finding, Severity
from sitemapkit.read.walk import Doc
from sitemapkit.read.xmlstream import Node
from sitemapkit.rulebook.codes import severity
from sitemapkit.urls import Scope
from sitemapkit.validate.report import ValidationReport

#: Core children of a url, in schema order.
URL_ORDER: Final = {"loc": 0, "lastmod": 1, "changefreq": 2, "priority": 3}

INDEX_ORDER: Final = {"loc": 0, "lastmod": 1}

KNOWN_EXT_NS: Final = frozenset({IMAGE_NS, VIDEO_NS, NEWS_NS, XHTML_NS, MOBILE_NS})


#: distinct strict lanes (scope and extension prefixes) built per set; nodes after that
MAX_LANE_KINDS: Final = 64

#: pages with hreflang alternates kept for the reciprocity check before it is skipped
MAX_HREFLANG_PAGES: Final = limits.MAX_HREFLANG_PAGES

FUTURE_SLACK: Final = timedelta(days=1)

#: attributes of this namespace (xsi:schemaLocation ...) are allowed anywhere
XSI_PREFIX: Final = "http://www.w3.org/2001/XMLSchema-instance\x01"


def foreign_attrs(attrs: dict[str, str]) -> list[str]:
    return [a.rpartition("\x01")[2] for a in attrs if not a.startswith(XSI_PREFIX)]


@dataclass(slots=True)
class DocState:
    #: index files: loc -> line of its first entry
    seen: dict[str, int] = field(default_factory=dict)
    #: url and text files: hash(loc) of every entry, and the line of those read as nodes
    hashes: set[int] = field(default_factory=set)
    lines: dict[int, int] = field(default_factory=dict)
    #: hashes of the entries cleared in bulk (strict lane), in file order, and per block
    #: (index of its first entry there, that entry's line, one entry per line?)
    order: bytearray = field(default_factory=bytearray)
    blocks: list[tuple[int, int, bool]] = field(default_factory=list)
    entries: int = 0
    news: int = 0
    hints: int = 0
    hint_node: Node | None = None
    aggregated: dict[str, tuple[int, Node]] = field(default_factory=dict)
    unknown_ns: set[str] = field(default_factory=set)
    no_default: int = 0
    no_default_node: Node | None = None
    scope: Scope | None = None
    #: origin + directory: a loc starting with it is in scope without parsing it
    prefix: str = "\x00"


class ValidatorBase:
    """What every part of the validator shares: the report, the set's and the
    current file's state, and how a finding is emitted."""

    def __init__(self, report: ValidationReport, now: datetime) -> None:
        self.report = report
        self.now = now
        self._future_cut = now + FUTURE_SLACK
        self._safe_day = (now - FUTURE_SLACK).date().isoformat()
        self._docs: dict[int, DocState] = {}
        self._set_seen = SeenUrls()
        self._origins: dict[tuple[str, str], tuple[str, int | None]] = {}
        self._origin_reported = False
        self._listing = Listing()
        self._origin_raw: set[str] = set()
        self._lastmods: Counter[str] = Counter()
        self._lastmod_total = 0
        self._lastmod_first: tuple[str, int | None] | None = None
        #: page -> (hash of its alternate set, its (code, href) pairs, source index, line);
        #: hrefs are shared through _canon so each URL string is held once
        self._hreflang: dict[str, tuple[int, tuple[tuple[str, str], ...], int, int]] = {}
        self._canon: dict[str, str] = {}
        self._sources: list[str] = []
        self._hreflang_over = False
        self._future_cache: dict[str, bool] = {}
        self._scope_unknown = False
        self._doc: Doc | None = None
        self._st = DocState()
        self._lane_kinds: set[tuple[object, str | None]] = set()
        self._hreflang_codes: dict[str, bool] = {}

    def add(self, doc: Doc | None, f: Finding) -> None:
        if f.severity is Severity.ERROR and doc is not None:
            doc.errors += 1
        if not self._listing.take(f):  # a million broken URLs must not fill the memory
            return
        self.report.findings.append(f)

    def emit(self, code: str, msg: str, node: Node | None, url: str | None = None) -> None:
        doc = self._doc
        assert doc is not None
        line = node.line if node is not None else None
        col = node.col if node is not None else None
        self.add(doc, Finding(code, severity(code), msg, doc.source, line, col, url))

    def _emit_at(
        self,
        doc: Doc,
        code: str,
        msg: str,
        line: int | None = None,
        col: int | None = None,
        url: str | None = None,
    ) -> None:
        self.add(doc, Finding(code, severity(code), msg, doc.source, line, col, url))

    def _aggregate(self, what: str, node: Node) -> None:
        agg = self._st.aggregated
        got = agg.get(what)
        agg[what] = (got[0] + 1, got[1]) if got else (1, node)

    @staticmethod
    def _scope(doc: Doc) -> Scope | None:
        if doc.url is None:
            return None
        try:
            return Scope.of(doc.url)
        except InputError:
            return None
