"""Rules of one URL value: absolute http(s), fully escaped, shorter than 2,048 characters.

The character classes themselves live in :mod:`sitemapkit.urls`; this module says which
RULES.md code a URL breaks and how to word it.
"""

from __future__ import annotations

import re
from typing import Final

from sitemapkit import limits
from sitemapkit.rulebook import Problem
from sitemapkit.urls import HOST_NAME, PORT, host_to_ascii, is_escaped_uri, valid_host

#: scheme, optional userinfo, a host and an optional port, then the end of the authority.
#: The host is a valid ASCII name (:data:`sitemapkit.urls.HOST_NAME`), a bracketed IPv6
#: shape, or a name holding non-ASCII (an IRI's host: ``loc-not-escaped`` names that);
#: :func:`is_absolute` checks what a pattern cannot (IPv6, punycode, IDNA).
ABSOLUTE: Final = re.compile(
    r"https?://(?:[^/?#\s@]*@)?"
    rf"(?P<host>\[[0-9A-Fa-f:.]+\]|{HOST_NAME}|[^/?#\s:@\[\]]*[^\x00-\x7f][^/?#\s:@\[\]]*)"
    rf"(?::{PORT})?(?=[/?#]|$)",
    re.IGNORECASE,
)
_HTTP_SCHEME: Final = re.compile(r"https?:", re.IGNORECASE)


def is_absolute(url: str) -> bool:
    """True when ``url`` starts with an http(s) scheme and a well-formed authority.

    The host is judged by :func:`sitemapkit.urls.valid_host`, the rule the crawler and
    the writer call too; an IRI's Unicode host is judged by its IDNA form.
    """
    m = ABSOLUTE.match(url)
    if m is None:
        return False
    host = m.group("host")
    if not host.isascii():
        return host_to_ascii(host) is not None
    if host[0] == "[" or "xn--" in host.lower():
        return valid_host(host)
    return True  # the pattern is the whole rule of a name without A-labels


def bad_http_uri(value: str) -> bool:
    """True for an http(s) URL the schemas' anyURI rejects (bad authority or port)."""
    return _HTTP_SCHEME.match(value) is not None and not is_absolute(value)


def too_long(loc: str) -> Problem | None:
    """``loc-too-long`` when ``loc`` has 2,048 characters or more."""
    if len(loc) < limits.MAX_LOC_LENGTH:
        return None
    return (
        "loc-too-long",
        f'loc "{loc[:80]}…" is {len(loc):,} characters '
        f"(must be fewer than {limits.MAX_LOC_LENGTH:,})",
    )


def not_absolute(loc: str) -> Problem | None:
    """``loc-not-absolute`` unless ``loc`` is an absolute http(s) URL."""
    if is_absolute(loc):
        return None
    return "loc-not-absolute", f'"{loc[:200]}" is not an absolute http(s) URL'


def not_escaped(loc: str) -> Problem | None:
    """``loc-not-escaped`` when ``loc`` holds a character that must be escaped or a bad ``%``."""
    if is_escaped_uri(loc):
        return None
    return (
        "loc-not-escaped",
        f'"{loc[:200]}" is not fully escaped (space, raw non-ASCII, <>"{{}}|\\^` or a bad %XX)',
    )


def loc_problems(loc: str) -> list[Problem]:
    """Every rule of one (stripped, non-empty) loc it breaks, in the validator's order.

    An URL that is not absolute is not asked whether it is escaped.
    """
    found: list[Problem] = []
    long = too_long(loc)
    if long is not None:
        found.append(long)
    relative = not_absolute(loc)
    if relative is not None:
        found.append(relative)
        return found
    raw = not_escaped(loc)
    if raw is not None:
        found.append(raw)
    return found


def loc_problem(loc: str) -> Problem | None:
    """The first rule ``loc`` breaks (see :func:`loc_problems`), or ``None``."""
    found = loc_problems(loc)
    return found[0] if found else None
