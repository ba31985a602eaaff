"""Crawler-trap defence: limits that stop infinite URL spaces, each with a reason code.

A site can offer endless distinct URLs that are not endless pages: a calendar whose
"next month" link never ends, faceted filters whose combinations multiply, a relative
link that appends a segment on every hop (``/a/b/a/b/a/b``), session ids, ever-longer
query strings.  Each defence here is a limit with a reason code the inventory keeps,
plus example URLs so a user can see *what* was cut:

=========================  =====================================================
code                       when
=========================  =====================================================
``trap-url-length``        the URL has ``max_url_length`` characters or more
                           (a sitemap ``loc`` must be fewer than 2,048)
``trap-depth``             the link depth is beyond ``max_depth``
``trap-repeated-segment``  one path segment occurs ``max_segment_repeats`` times
``trap-pattern``           too many URLs of one shape: a calendar pattern
                           (``max_calendar_urls``), a path's multi-parameter
                           query combinations (``max_facet_variants``), or any
                           pattern (``max_pattern_urls``)
``redirect-loop``          a redirect chain comes back to a URL it visited
``redirect-chain``         a redirect chain longer than ``max_redirects``
=========================  =====================================================

A *pattern* is the URL with its variable parts replaced: digit runs become ``{n}``, a
four-digit year ``{year}``, ISO dates ``{date}``, UUIDs and long hex ids ``{id}``, and
the query becomes its sorted parameter names.  ``/calendar/2026/11`` and
``/calendar/2031/4`` share ``/calendar/{year}/{n}``, which is also recognised as a
calendar (a year followed by a month, or a date), so it gets the small calendar limit
while ``/product/{n}`` gets the large general one (100,000): a shop with 50,000 numbered
products is a site, a calendar with 50,000 months is a trap.

The counters are plain dicts with a cap on the number of keys (beyond it new
patterns are not counted, never an unbounded dict), and round-trip through
:meth:`TrapGuard.to_state` / :meth:`TrapGuard.from_state` so a resumed crawl keeps
them.  :meth:`TrapGuard.check` must be called once per *new* URL (after the seen-set
check): it counts what it admits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final
from urllib.parse import SplitResult, urlsplit

from sitemapkit.limits import MAX_LOC_LENGTH, MAX_REDIRECTS

__all__ = [
    "TRAP_CODES",
    "TrapGuard",
    "TrapLimits",
    "is_calendar_pattern",
    "pattern_key",
    "query_signature",
    "redirect_problem",
    "repeated_segment",
]

TRAP_CODES: Final = (
    "trap-url-length",
    "trap-depth",
    "trap-repeated-segment",
    "trap-pattern",
    "redirect-loop",
    "redirect-chain",
)
#: Example URLs kept per code and per trapped pattern.
MAX_EXAMPLES: Final = 5
_STATE_VERSION: Final = 1

_YEAR = re.compile(r"(?:19|20|21)\d\d")
_DATE = re.compile(r"(?:19|20|21)\d\d-(?:0?[1-9]|1[0-2])(?:-(?:0?[1-9]|[12]\d|3[01]))?")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_HEX_ID = re.compile(r"(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12,}", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
_HAS_DIGIT = re.compile(r"\d")
_CALENDAR_TAIL = re.compile(r"(?:\{year\}(?:/\{n\}){1,2}|\{date\})/?$")
_DATE_IN_TEXT = re.compile(r"(?:19|20|21)\d\d-(?:0?[1-9]|1[0-2])(?:-\d{1,2})?")


@dataclass(frozen=True, slots=True)
class TrapLimits:
    """The limits of a :class:`TrapGuard`; every one can be set by the crawl options."""

    max_depth: int = 50
    max_url_length: int = MAX_LOC_LENGTH
    max_segment_repeats: int = 3
    max_calendar_urls: int = 12
    max_facet_variants: int = 64
    #: High on purpose: 100,000 numbered products is a shop, not a trap (``--max-pages``
    #: bounds the rest).
    max_pattern_urls: int = 100_000
    max_redirects: int = MAX_REDIRECTS
    max_tracked_keys: int = 200_000


@lru_cache(maxsize=65536)
def _segment_shape(segment: str) -> str:
    if _HAS_DIGIT.search(segment) is None:
        return segment  # no digit: no number, date or id (the common case)
    if segment.isdigit():
        return "{year}" if _YEAR.fullmatch(segment) else "{n}"
    if _DATE.fullmatch(segment):
        return "{date}"
    if _UUID.fullmatch(segment) or _HEX_ID.fullmatch(segment):
        return "{id}"
    return _DIGITS.sub("{n}", segment)


def query_signature(query: str) -> str:
    """The sorted, de-duplicated parameter names of a query: ``b=2&a=1&a=3`` → ``a&b``."""
    if not query:
        return ""
    names = {pair.split("=", 1)[0] for pair in query.split("&") if pair}
    return "&".join(sorted(names))


def pattern_key(url: str) -> str:
    """The shape of ``url``: host, generalised path, sorted query names."""
    parts = urlsplit(url)
    return _pattern_key(parts.netloc.lower(), parts.path, query_signature(parts.query))


def counter_keys(url: str) -> tuple[str, str | None] | None:
    """The pattern and facet counters :meth:`TrapGuard.check` reads for ``url`` (None: none)."""
    try:
        return _counter_keys(urlsplit(url))
    except ValueError:
        return None


def _counter_keys(parts: SplitResult) -> tuple[str, str | None]:
    netloc = parts.netloc.lower()
    signature = query_signature(parts.query) if parts.query else ""
    facet = f"{netloc}{parts.path}" if "&" in signature else None
    return _pattern_key(netloc, parts.path, signature), facet


def _pattern_key(netloc: str, path: str, signature: str) -> str:
    shape = "/".join(_segment_shape(s) for s in path.split("/"))
    return f"{netloc}{shape}?{signature}" if signature else f"{netloc}{shape}"


def trap_keys(pattern: str, facet: str | None) -> list[tuple[str, str]]:
    """The ``(table, key)`` counters of a pattern (and of a path's facet combinations):
    the names a crawl store keeps them under (``trap_counts``)."""
    return [("pattern", pattern)] if facet is None else [("pattern", pattern), ("facet", facet)]


def is_calendar_pattern(key: str, query: str = "") -> bool:
    """True for a calendar shape: the path *ends* in ``{date}`` or ``{year}/{n}[/{n}]``.

    Only the end counts, so ``/news/2024/05/12345.html`` (an article filed by
    month) is not a calendar, while ``/calendar/2026/11`` and ``/blog/2015/03/`` are.
    Query values count too (``/events?month=2026-11``).
    """
    path = key.split("?", 1)[0]
    if _CALENDAR_TAIL.search(path):
        return True
    return bool(query) and _DATE_IN_TEXT.search(query) is not None


def repeated_segment(path: str, max_repeats: int = 3) -> str | None:
    """The first non-empty path segment that occurs ``max_repeats`` times, else ``None``."""
    counts: dict[str, int] = {}
    for segment in path.split("/"):
        if not segment:
            continue
        n = counts.get(segment, 0) + 1
        if n >= max_repeats:
            return segment
        counts[segment] = n
    return None


def redirect_problem(chain: Sequence[str], max_redirects: int = MAX_REDIRECTS) -> str | None:
    """``redirect-loop``, ``redirect-chain`` or ``None`` for a chain of URLs.

    ``chain`` is the requested URL followed by every ``Location`` visited, in order
    (so ``len(chain) - 1`` redirects).  A loop is any URL visited twice.
    """
    seen: set[str] = set()
    for url in chain:
        if url in seen:
            return "redirect-loop"
        seen.add(url)
    if len(chain) - 1 > max_redirects:
        return "redirect-chain"
    return None


class TrapGuard:
    """Stateful trap limits for one crawl; see the module docstring for the codes."""

    def __init__(self, limits: TrapLimits | None = None) -> None:
        self.limits = limits or TrapLimits()
        self._patterns: dict[str, int] = {}
        self._facets: dict[str, int] = {}
        self._examples: dict[str, list[str]] = {}
        self._trapped_patterns: dict[str, list[str]] = {}
        self._hits: dict[str, int] = {}
        self.untracked = 0
        #: The previous run's counts (patterns, facets): what a re-crawl judges against.
        self._before: tuple[dict[str, int], dict[str, int]] = ({}, {})
        #: Counts taken since :meth:`take_tally`, for the crawl's store.
        self._tally: list[tuple[str, str]] = []

    # --- decisions -----------------------------------------------------------------

    def check(self, url: str, depth: int, *, admitted_before: bool = False) -> str | None:
        """``None`` to admit ``url`` (found at link ``depth``), else the reason code.

        Admitted URLs are counted against their pattern; call once per new URL.
        ``admitted_before``: the previous run of this crawl admitted the URL (a re-crawl).
        Such a URL keeps its place whatever order this run meets the pattern's URLs in;
        the others are judged against the previous run's counts as well as this run's
        (:meth:`carry_over`), so a re-crawl of an unchanged site admits exactly the same
        URLs, where counting afresh admitted whichever URLs answered first.
        """
        limits = self.limits
        if len(url) >= limits.max_url_length:
            return self._hit("trap-url-length", url)
        if depth > limits.max_depth:
            return self._hit("trap-depth", url)
        try:
            parts = urlsplit(url)
        except ValueError:
            return None  # not a URL normalize() emits; nothing to count it against
        if repeated_segment(parts.path, limits.max_segment_repeats) is not None:
            return self._hit("trap-repeated-segment", url)

        key, facet_key = _counter_keys(parts)
        if admitted_before:
            self._admitted(key, facet_key)  # counted: the next run's carry-over
            return None
        calendar = is_calendar_pattern(key, parts.query)
        count, facets = self._seen(key, facet_key)
        cap = limits.max_calendar_urls if calendar else limits.max_pattern_urls
        if count >= cap:
            return self._hit("trap-pattern", url, key)
        if facet_key is not None and facets >= limits.max_facet_variants:
            return self._hit("trap-pattern", url, f"{facet_key}?{{facets}}")
        self._admitted(key, facet_key)
        return None

    @contextmanager
    def judging(self, urls: Sequence[str]) -> Iterator[None]:
        """:meth:`check` the new ``urls`` of one page inside this block.

        Here a no-op; a guard whose counters live elsewhere (a fleet's store) reads
        every counter the block will need at once instead of one read per URL.
        """
        yield

    def _seen(self, pattern: str, facet: str | None) -> tuple[int, int]:
        """URLs admitted so far of this pattern, and of this path's facet combinations.

        The counters are a hook: a fleet of workers keeps them in the shared store
        (:class:`sitemapkit.crawl.fleet.SharedTrapGuard`) so a limit holds for the crawl.
        """
        facets = 0 if facet is None else self._facets.get(facet, 0)
        return self._and_before(pattern, facet, self._patterns.get(pattern, 0), facets)

    def _and_before(
        self, pattern: str, facet: str | None, count: int, facets: int
    ) -> tuple[int, int]:
        """This run's counts, or the last run's where higher (:meth:`carry_over`)."""
        before, facets_before = self._before
        count = max(count, before.get(pattern, 0))
        if facet is None:
            return count, 0
        return count, max(facets, facets_before.get(facet, 0))

    def carry_over(self, counts: tuple[dict[str, int], dict[str, int]]) -> None:
        """Judge this run against the last run's counts (patterns, facets): a re-crawl.

        Why the previous run's counts and not a running total: a URL the site dropped
        must free its place in the run after, or a shop's pattern would fill up over
        the years with products long gone.
        """
        self._before = counts

    def restore_counts(self, counts: tuple[dict[str, int], dict[str, int]]) -> None:
        """Go on from the counts the crawl's store kept (a resume): those of the URLs
        committed, where the saved state may be up to a few seconds older."""
        self._patterns, self._facets = dict(counts[0]), dict(counts[1])

    def take_tally(self) -> list[tuple[str, str]]:
        """The ``(table, key)`` counts taken since the last call, for the store to keep."""
        tally, self._tally = self._tally, []
        return tally

    def _admitted(self, pattern: str, facet: str | None) -> None:
        """Count one admitted URL of ``pattern`` (and of ``facet``)."""
        keys = trap_keys(pattern, facet)
        if self._count(self._patterns, pattern):
            self._tally.append(keys[0])
        if facet is not None and self._count(self._facets, facet):
            self._tally.append(keys[1])

    def redirect(self, chain: Sequence[str]) -> str | None:
        """:func:`redirect_problem` with this guard's limit, recording examples."""
        code = redirect_problem(chain, self.limits.max_redirects)
        if code is not None and chain:
            self._hit(code, chain[0])
        return code

    def _count(self, table: dict[str, int], key: str) -> bool:
        """Count ``key``; False when the table is full and it went untracked."""
        if key in table:
            table[key] += 1
        elif len(table) < self.limits.max_tracked_keys:
            table[key] = 1
        else:
            self.untracked += 1
            return False
        return True

    def _hit(self, code: str, url: str, pattern: str | None = None) -> str:
        self._hits[code] = self._hits.get(code, 0) + 1
        examples = self._examples.setdefault(code, [])
        if len(examples) < MAX_EXAMPLES:
            examples.append(url)
        if pattern is not None:
            if pattern in self._trapped_patterns:
                urls = self._trapped_patterns[pattern]
                if len(urls) < MAX_EXAMPLES:
                    urls.append(url)
            elif len(self._trapped_patterns) < 1000:
                self._trapped_patterns[pattern] = [url]
        return code

    # --- reporting -----------------------------------------------------------------

    def hits(self) -> dict[str, int]:
        """How many URLs each code stopped."""
        return dict(self._hits)

    def examples(self) -> dict[str, list[str]]:
        """Up to five example URLs per code."""
        return {k: list(v) for k, v in self._examples.items()}

    def trapped_patterns(self) -> dict[str, list[str]]:
        """Each pattern that hit its limit, with example URLs that were stopped."""
        return {k: list(v) for k, v in self._trapped_patterns.items()}

    # --- persistence ---------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """A JSON-serialisable snapshot, for the crawl store (resume keeps the counts)."""
        return {
            "version": _STATE_VERSION,
            "patterns": dict(self._patterns),
            "facets": dict(self._facets),
            "examples": self.examples(),
            "trapped_patterns": self.trapped_patterns(),
            "hits": dict(self._hits),
            "untracked": self.untracked,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any], limits: TrapLimits | None = None) -> TrapGuard:
        """A guard continuing from :meth:`to_state` output (limits come from the options)."""
        guard = cls(limits)
        if state.get("version") != _STATE_VERSION:
            return guard
        guard._patterns = _counts(state.get("patterns"))
        guard._facets = _counts(state.get("facets"))
        guard._examples = {
            str(k): [str(u) for u in v][:MAX_EXAMPLES]
            for k, v in dict(state.get("examples", {})).items()
        }
        guard._trapped_patterns = {
            str(k): [str(u) for u in v][:MAX_EXAMPLES]
            for k, v in dict(state.get("trapped_patterns", {})).items()
        }
        guard._hits = {str(k): int(v) for k, v in dict(state.get("hits", {})).items()}
        guard.untracked = int(state.get("untracked", 0))
        return guard


def saved_counts(state: dict[str, Any]) -> tuple[dict[str, int], dict[str, int]]:
    """The counts (patterns, facets) of a :meth:`TrapGuard.to_state` snapshot."""
    if state.get("version") != _STATE_VERSION:
        return {}, {}
    return _counts(state.get("patterns")), _counts(state.get("facets"))


def _counts(table: object) -> dict[str, int]:
    """A counter table read back from JSON (a missing one is empty)."""
    if not isinstance(table, dict):
        return {}
    return {str(k): int(v) for k, v in table.items()}
