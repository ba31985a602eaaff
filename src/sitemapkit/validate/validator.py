"""The validator: every RULES.md rule decidable from the files, as :class:`Finding` values.

Why it consumes the walker's events instead of a parsed tree: a 50 MB file or
a million-URL index is checked in one streaming pass with flat memory.  This
module only dispatches; each kind of rule lives in its own module, each
asking :mod:`sitemapkit.rulebook` about values:

- :mod:`.entry`: per entry (children, order, loc, dates, hints, extensions);
- :mod:`.files`: per file (declaration, encoding, root, namespace, bytes);
- :mod:`.sets`: over the whole set, everything reached from one SOURCE
  (duplicates through :class:`~sitemapkit.fingerprints.SeenUrls`, ~6 bytes a
  URL; mixed origins, uniform lastmod, hreflang reciprocity);
- :mod:`.strict`: the strict lane.  Most entries of a large urlset come as
  blocks (:mod:`sitemapkit.read.lanes`) whose single-value rules a regex has
  already decided, checked in bulk with set operations; any entry that would
  draw a finding is checked as nodes by :mod:`.entry`.  A test holds both
  paths to the same findings;
- :mod:`.state` holds what they share, :mod:`.report` what a run returns.

Nothing is called valid when it was not checked: :class:`ValidationReport`
lists the checks that were skipped, and why.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import TYPE_CHECKING, cast

from sitemapkit.model import Finding
from sitemapkit.read.lanes import (
    Block,
)
from sitemapkit.read.source import ReadLimits
from sitemapkit.read.walk import Doc, Event, Walker, is_unreadable
from sitemapkit.read.xmlstream import Node
from sitemapkit.rulebook.codes import severity
from sitemapkit.urls import Scope
from sitemapkit.validate.files import FileRules
from sitemapkit.validate.report import CHECKS, ValidationReport
from sitemapkit.validate.state import (
    DocState,
)
from sitemapkit.validate.strict import StrictRules

if TYPE_CHECKING:
    import aiohttp

__all__ = ["CHECKS", "ValidationReport", "Validator", "avalidate", "validate"]


class Validator(FileRules, StrictRules):
    """Consumes walker events and turns them into findings (one instance per SOURCE set)."""

    #: the SOURCE the user named: only its own failure makes the run unreadable (exit 2)
    source: str = ""

    def handle(self, ev: Event) -> None:
        """One walker event: entries to check, a file's start or end, a reader finding."""
        doc = ev.doc
        if ev.kind == "nodes":
            self._doc = doc
            st = self._docs.get(id(doc))
            self._st = st if st is not None else self._begin(doc)
            self._entries(doc.kind, ev.nodes)
        elif ev.kind == "start":
            self.report.sitemaps.append(doc.source)
        elif ev.kind == "end":
            self._doc = doc
            st = self._docs.pop(id(doc), None) or self._begin(doc, keep=False)
            self._st = st
            self._end_doc(doc, st)
        elif ev.kind in ("finding", "unreadable") and ev.finding is not None:
            f = ev.finding
            self.add(
                doc, Finding(f.code, severity(f.code), f.message, f.source, f.line, f.column, f.url)
            )
            own = doc.parent is None and f.source == self.source
            if own and (ev.kind == "unreadable" or is_unreadable(f)):
                self.report.unreadable = True
        elif ev.kind == "skipped" and ev.finding is not None:
            # the child's loc-other-host / loc-not-absolute is reported by the entry rules
            if ev.finding.code != "loc-other-host":
                return
            # say it was not read
            what = f"index children on other hosts ({doc.source})"
            self.report.skipped[what] = "not fetched (--allow-other-hosts to follow)"

    def _entries(self, kind: str | None, items: object) -> None:
        """Dispatch a batch of entries by the document's kind."""
        if kind == "urlset":
            for item in cast(list[Node | Block], items):  # never lean: no tuples
                if isinstance(item, Block):
                    self._block(item)
                else:
                    self._url(item)
            return
        check = {
            "sitemapindex": self._sitemap,
            "text": self._text_line,
            "rss": self._feed_item,
            "atom": self._feed_item,
        }.get(kind or "")
        if check is not None:
            for node in cast(list[Node], items):  # blocks come only in a urlset
                check(node)

    def _begin(self, doc: Doc, keep: bool = True) -> DocState:
        st = DocState()
        st.scope = self._scope(doc)
        if st.scope is not None:
            st.prefix = st.scope.origin + st.scope.directory
        if st.scope is None:
            self._scope_unknown = True
        if keep:
            self._docs[id(doc)] = st
        return st


async def avalidate(
    sources: list[str],
    *,
    session: aiohttp.ClientSession | None = None,
    sitemap_url: str | None = None,
    now: datetime | None = None,
    limits: ReadLimits | None = None,
    strict_lane: bool = True,
) -> ValidationReport:
    """Validate each SOURCE (and everything it leads to); see :func:`validate`."""
    report = ValidationReport()
    report.checked.extend(CHECKS)
    moment = now or datetime.now(UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    if sitemap_url is not None:
        Scope.of(sitemap_url)  # raises InputError for a bad --sitemap-url
    for source in sources:
        validator = Validator(report, moment)
        validator.source = source
        walker = Walker(
            session=session,
            limits=limits,
            sitemap_url=sitemap_url,
            strict=validator.lane_for if strict_lane else None,
        )
        events: AsyncIterator[Event] = walker.walk([source])
        async for ev in events:
            validator.handle(ev)
        validator.finish()
    return report


def validate(
    sources: list[str],
    *,
    sitemap_url: str | None = None,
    now: datetime | None = None,
    limits: ReadLimits | None = None,
    strict_lane: bool = True,
) -> ValidationReport:
    """Check every rule of RULES.md decidable from ``sources`` (files, ``-`` or URLs).

    ``sitemap_url`` is the URL a local file is served at (scope rules); ``now``
    is the moment ``lastmod-future`` and ``news-stale`` are judged against.
    ``strict_lane=False`` checks every entry as nodes, the slow way (the findings
    are the same: the tests hold the two paths to that).
    """
    return asyncio.run(
        avalidate(sources, sitemap_url=sitemap_url, now=now, limits=limits, strict_lane=strict_lane)
    )
