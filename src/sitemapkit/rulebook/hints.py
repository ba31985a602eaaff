"""Rules of the values beside a loc: lastmod (any W3C date field), changefreq, priority."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from sitemapkit import dates, limits
from sitemapkit.rulebook import Problem

_WHY: Final = {
    "lastmod-invalid": "is not a valid date",
    "lastmod-imprecise": "is not precise enough (YYYY-MM-DD or a full time with seconds)",
    "lastmod-no-timezone": "has a time without a timezone (or a date with an offset)",
}
#: xsd:decimal's lexical form (ASCII digits only, a sign allowed: "-0.0" is 0).
_PRIORITY: Final = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")

#: lastmod-uniform fires when this share of (at least UNIFORM_MIN) values is one value.
UNIFORM_SHARE: Final = 0.95

UNIFORM_MIN: Final = 10

#: distinct lastmod values tracked before the set is surely not uniform
UNIFORM_TRACK: Final = 1_000


def lastmod_problem(text: str) -> Problem | None:
    """The lastmod code ``text`` (stripped) breaks: invalid, imprecise or without a zone."""
    code = dates.classify(text)
    if code is None:
        return None
    return code, f'"{text[:60]}" {_WHY[code]}'


def changefreq_problem(text: str) -> Problem | None:
    """``changefreq-invalid`` unless ``text`` is one of the seven values."""
    if text in limits.CHANGEFREQ_VALUES:
        return None
    return (
        "changefreq-invalid",
        f'changefreq "{text[:40]}" is not one of always, hourly, daily, weekly, monthly, '
        "yearly, never",
    )


def priority_problem(text: str) -> Problem | None:
    """``priority-invalid`` unless ``text`` is a decimal from 0.0 to 1.0."""
    if _PRIORITY.fullmatch(text) and 0.0 <= float(text) <= 1.0:
        return None
    return "priority-invalid", f'priority "{text[:40]}" is not a number from 0.0 to 1.0'


def uniform_lastmod(counts: Mapping[str, int], total: int) -> tuple[str, int] | None:
    """The value and count that make ``total`` lastmods uniform (``lastmod-uniform``), or None.

    ``counts`` holds how often each value was seen (at most :data:`UNIFORM_TRACK` kinds
    are needed: past that the set cannot be uniform).  When (nearly) every page carries
    one date, the date is a build or deploy stamp, not when pages changed: the validator
    warns about it, and the crawler leaves such a date out rather than write it.
    """
    if total < UNIFORM_MIN or not counts:
        return None
    value, count = max(counts.items(), key=lambda item: item[1])
    return (value, count) if count >= UNIFORM_SHARE * total else None
