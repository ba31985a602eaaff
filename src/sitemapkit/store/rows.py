"""The rows a crawl store hands its other readers: runs, ``--why``, the audit, IndexNow, a fleet.

Why a module apart from :mod:`sitemapkit.store.base`: a crawl makes none of these, and a
frozen dataclass costs about half a millisecond to build at import (its methods are
compiled from source), so ``crawl`` no longer builds these eight on every start
(issue 13).  The stores construct them where they read them; the protocols in
:mod:`~sitemapkit.store.base` name them in annotations only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sitemapkit.model import PageRecord
    from sitemapkit.store.base import UrlState


@dataclass(frozen=True, slots=True)
class RunRow:
    """One run of a crawl over the same store (``sitemapkit crawl`` again on a finished crawl)."""

    id: int
    started_at: float
    ended_at: float | None
    #: ``running``, ``finished``, ``stopped:REASON`` or ``interrupted``.
    state: str
    #: Pages asked for, of them answered ``304``, pages whose content changed in this run,
    #: body bytes downloaded (``None``: a run before these were recorded).
    pages: int | None = None
    not_modified: int | None = None
    changed: int | None = None
    bytes: int | None = None
    #: Whether the store recorded what changed per URL in this run (``False``: a run made
    #: before change records; only the last such run's end state is known, see
    #: :class:`~sitemapkit.store.base.UrlFacts`).
    tracked: bool = True
    #: Sessions (processes) of this run that wrote figures and never closed: killed, or
    #: still running.  Their figures count up to their last commit; what they fetched
    #: after it was not stored (its URLs went back to the queue and were fetched again).
    unended: int = 0


@dataclass(frozen=True, slots=True)
class IndexNowChange:
    """A URL a search engine has not yet been told about (``sitemapkit indexnow``).

    ``change`` is ``added`` (in the sitemap, never submitted or submitted as removed),
    ``changed`` (submitted at another ``version``) or ``removed`` (submitted while in
    the sitemap, no longer in it).  ``version`` is what it is submitted at: its content
    fingerprint, or its lastmod for a page without one (``None`` for a removed URL).
    """

    url_id: int
    url: str
    change: str
    version: str | None


@dataclass(frozen=True, slots=True)
class SubmissionRow:
    """One IndexNow request as the submission log keeps it, accepted or not."""

    at: float
    endpoint: str
    host: str
    urls: int
    #: The endpoint's HTTP status (``None``: no answer: a refused connection ...).
    status: int | None
    accepted: bool
    detail: str


@dataclass(frozen=True, slots=True)
class Explanation:
    """Everything the store knows about one URL (``--why``)."""

    record: PageRecord
    state: UrlState
    detail: str | None
    found_from: str | None
    found_how: str | None
    redirect_chain: tuple[tuple[str, int | None], ...]
    fetched_at: float | None


@dataclass(frozen=True, slots=True)
class ListedRow:
    """One URL a sitemap lists (``kind="loc"``) or names as an hreflang alternate.

    ``key`` is the URL as the crawl spells it (normalised with the crawl's query
    policy), so a listed URL and the crawled page meet on one indexed column.
    """

    key: str
    loc: str
    sitemap: str
    line: int | None
    lastmod: str | None = None
    kind: str = "loc"
    #: The listing entry's loc, for an alternate.
    parent: str | None = None


@dataclass(frozen=True, slots=True)
class ListedFacts:
    """A listed URL joined with what the crawl learnt of it (``state`` is None: never seen)."""

    listed: ListedRow
    url_id: int | None
    state: UrlState | None
    status: int | None
    reason: str | None
    detail: str | None
    content_type: str | None
    canonical: str | None
    redirect_to: str | None
    page_lastmod: str | None
    page_lastmod_source: str | None
    indexable: bool
    #: Distinct other pages linking to it with a followable ``a``/``area`` link.
    inlinks: int


@dataclass(frozen=True, slots=True)
class AuditRow:
    """One audit finding as stored: a stable ``code`` and its evidence."""

    code: str
    severity: str
    url: str | None
    sitemap: str | None
    line: int | None
    evidence: str
    #: How many findings this row counts for: 1, or the N of an "and N more" row.
    weight: int = 1


@dataclass(frozen=True, slots=True)
class HostRobots:
    """A host's robots.txt as the fleet fetched it once (``status`` None: unreachable)."""

    status: int | None
    body: bytes
    error: str | None
    fetched_at: float
