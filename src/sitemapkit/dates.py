"""W3C datetime checks for ``lastmod`` (and the other date fields).

The writer emits only ``YYYY-MM-DD`` or ``YYYY-MM-DDThh:mm:ss[.f+](Z|±hh:mm)``
(RULES.md); everything else is an input error with the rule that says why.
The validator uses :func:`classify` to name the rule a found value breaks.  Digits
are ASCII digits (``re.ASCII``): a bare ``\\d`` also takes other scripts' digits, which
neither the schema nor ``datetime.fromisoformat`` reads (``parse`` raised on them).
Parsing is cached because real sets repeat the same few values many times.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

from sitemapkit.errors import InputError

_FULL = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})"
    r"(?:T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2})))?",
    re.ASCII,
)
_W3C_ANY = re.compile(
    r"\d{4}(?:-\d{2}(?:-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?)?)?)?",
    re.ASCII,
)
_DATE_WITH_OFFSET = re.compile(r"\d{4}-\d{2}-\d{2}(?:Z|[+-]\d{2}:\d{2})", re.ASCII)
_TIME_NO_TZ = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?", re.ASCII)
_IMPRECISE = re.compile(
    r"\d{4}(?:-\d{2})?|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?:Z|[+-]\d{2}:\d{2})", re.ASCII
)


def _valid_parts(m: re.Match[str]) -> bool:
    y, mo, d = int(m[1]), int(m[2]), int(m[3])
    try:
        date(y, mo, d)
    except ValueError:
        return False
    if m[4] is None:
        return True
    hh, mm, ss = int(m[4]), int(m[5]), int(m[6])
    if hh > 23 or mm > 59 or ss > 59:
        return False
    return m[9] is None or (int(m[9]) <= 23 and int(m[10]) <= 59)


@lru_cache(maxsize=4096)
def classify(text: str) -> str | None:
    """Return the RULES.md code a lastmod text breaks, or ``None`` when it is fine.

    Codes: ``lastmod-invalid`` (not W3C or impossible), ``lastmod-imprecise``
    (``YYYY``, ``YYYY-MM``, time without seconds), ``lastmod-no-timezone``
    (time without zone, or a date carrying an offset).
    """
    m = _FULL.fullmatch(text)
    if m is not None:
        return None if _valid_parts(m) else "lastmod-invalid"
    if _DATE_WITH_OFFSET.fullmatch(text):
        return "lastmod-no-timezone"
    if _TIME_NO_TZ.fullmatch(text):
        return "lastmod-no-timezone"
    if _IMPRECISE.fullmatch(text):
        return "lastmod-imprecise"
    return "lastmod-invalid"


def parse(text: str) -> datetime | None:
    """An aware datetime for a text :func:`classify` accepts (dates as midnight UTC)."""
    if classify(text) is not None:
        return None
    if len(text) == 10:
        return datetime.fromisoformat(text).replace(tzinfo=UTC)
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


_MESSAGES = {
    "lastmod-invalid": "is not a valid W3C date",
    "lastmod-imprecise": "is not precise enough (use YYYY-MM-DD or a full time with seconds)",
    "lastmod-no-timezone": "has a time without a timezone, or a date with an offset",
}


def _format_datetime(value: datetime, field: str) -> str:
    offset = value.utcoffset()
    if offset is None:
        raise InputError(
            f'{field} "{value.isoformat()}" has no timezone',
            rule="lastmod-no-timezone",
            value=value,
        )
    if offset % timedelta(minutes=1):
        raise InputError(
            f'{field} "{value.isoformat()}" has an offset with seconds',
            rule="lastmod-invalid",
            value=value,
        )
    text = value.isoformat(timespec="microseconds" if value.microsecond else "seconds")
    if offset == timedelta(0):
        text = text[: text.rindex("+")] + "Z" if "+" in text[19:] else text
    return text


@lru_cache(maxsize=4096)
def _format_text(text: str, field: str) -> str:
    stripped = text.strip()
    code = classify(stripped)
    if code is not None:
        raise InputError(f'{field} "{text}" {_MESSAGES[code]}', rule=code, value=text)
    return stripped


def format_lastmod(value: date | datetime | str, field: str = "lastmod") -> str:
    """The one form a date field is written in; raise :class:`InputError` if it has none."""
    if isinstance(value, str):
        return _format_text(value, field)
    if isinstance(value, datetime):
        return _format_datetime(value, field)
    if isinstance(value, date):
        return value.isoformat()
    raise InputError(f"{field} {value!r} is not a date, datetime or string", value=value)


def is_w3c(text: str) -> bool:
    """True when ``text`` is any W3C-datetime shape (even one we do not write)."""
    return _W3C_ANY.fullmatch(text) is not None
