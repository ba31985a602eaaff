"""The one definition of a change between two states of a URL.

Why these kinds: they are what a migration or release check asks (Oncrawl,
Sitebulb): did pages appear or vanish, did an answer change, did a page enter or
leave the index and why, did its title or canonical move, did its content change.
The content is judged by the fingerprint (:mod:`sitemapkit.crawl.significance`), so a
footer stamp, a CSRF token or an asset hash is not a change.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from sitemapkit.store.base import UrlFacts


class Kind(enum.StrEnum):
    """What changed; the order is the order of the report's groups."""

    ADDED = "added"
    REMOVED = "removed"
    STATUS = "status"
    INDEXABILITY = "indexability"
    TITLE = "title"
    CANONICAL = "canonical"
    CONTENT = "content"


#: The map's colour of a page (``visualize --diff``): every page has exactly one.
MapState = str
NEW, GONE, CHANGED, SAME = "new", "gone", "changed", "same"


@dataclass(frozen=True, slots=True)
class Change:
    """One change of one URL: ``before`` and ``after`` as shown to a reader."""

    url: str
    kind: Kind
    before: str
    after: str


def present(facts: UrlFacts | None) -> bool:
    """Seen by that run (not unknown yet, not gone)."""
    return facts is not None and not facts.gone


def _status(facts: UrlFacts) -> str:
    return "no answer" if facts.status is None else str(facts.status)


def _index(facts: UrlFacts) -> str:
    if facts.indexable:
        return "indexable"
    return "not indexable: " + (facts.reason or "no reason given")


def _short(fingerprint: str | None) -> str:
    return "" if fingerprint is None else fingerprint[:16]


def compare(url: str, before: UrlFacts | None, after: UrlFacts | None) -> list[Change]:
    """Every change of ``url`` from ``before`` to ``after`` (``None``: not seen then)."""
    if not present(before):
        return [] if not present(after) else [Change(url, Kind.ADDED, "", _state(after))]
    if not present(after):
        gone = "unlinked" if after is not None and after.gone else ""
        return [Change(url, Kind.REMOVED, _state(before), gone)]
    assert before is not None
    assert after is not None
    out: list[Change] = []
    if before.status != after.status:
        out.append(Change(url, Kind.STATUS, _status(before), _status(after)))
    if (before.indexable, before.reason) != (after.indexable, after.reason):
        out.append(Change(url, Kind.INDEXABILITY, _index(before), _index(after)))
    if before.title != after.title:
        out.append(Change(url, Kind.TITLE, before.title or "", after.title or ""))
    if before.canonical != after.canonical:
        out.append(Change(url, Kind.CANONICAL, before.canonical or "", after.canonical or ""))
    if (
        before.fingerprint is not None
        and after.fingerprint is not None
        and before.fingerprint != after.fingerprint
    ):
        out.append(Change(url, Kind.CONTENT, _short(before.fingerprint), _short(after.fingerprint)))
    return out


def _state(facts: UrlFacts | None) -> str:
    """A URL's state in a few words: its status and whether it is indexable."""
    if facts is None:
        return ""
    return f"{_status(facts)}, {_index(facts)}"


def map_state(changes: Iterable[Change]) -> MapState:
    """The map colour of a URL from its changes (no change: ``same``)."""
    kinds = {c.kind for c in changes}
    if Kind.ADDED in kinds:
        return NEW
    if Kind.REMOVED in kinds:
        return GONE
    return CHANGED if kinds else SAME


def merge_by_url(
    old: Iterator[UrlFacts], new: Iterator[UrlFacts]
) -> Iterator[tuple[str, UrlFacts | None, UrlFacts | None]]:
    """Pair two URL-sorted streams (two stores' last runs) by URL, in constant memory."""
    a, b = next(old, None), next(new, None)
    while a is not None or b is not None:
        if b is None or (a is not None and a.url < b.url):
            assert a is not None
            yield a.url, a, None
            a = next(old, None)
        elif a is None or b.url < a.url:
            yield b.url, None, b
            b = next(new, None)
        else:
            yield a.url, a, b
            a, b = next(old, None), next(new, None)


#: Runs a URL's history shows (``--why``); earlier ones are counted.
MAX_HISTORY = 20


def timeline(records: list[UrlFacts]) -> list[str]:
    """One line per change record of a URL: first seen, what changed, gone, back."""
    lines: list[str] = []
    previous: UrlFacts | None = None
    for facts in records:
        changes = compare(facts.url, previous, facts)
        kinds = [c.kind for c in changes]
        if previous is None:
            what = f"first seen ({_state(facts)})"
        elif Kind.ADDED in kinds:
            what = f"back ({_state(facts)})"
        elif Kind.REMOVED in kinds:
            what = "gone (no longer reached)"
        else:
            what = ", ".join(c.kind.value for c in changes) or "facts recorded again"
        lines.append(f"run {facts.run}: {what}")
        previous = facts
    if len(lines) > MAX_HISTORY:
        hidden = len(lines) - MAX_HISTORY
        plural = "s" if hidden != 1 else ""
        lines = [f"... {hidden:,} earlier change{plural}", *lines[-MAX_HISTORY:]]
    return lines
