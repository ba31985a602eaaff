"""IRI → URI conversion and the scope rules a sitemap's URLs must meet.

Sitemaps must carry fully escaped URIs ([SM]); users hand us IRIs with
Unicode hosts and paths.  :func:`iri_to_uri` is the one conversion: IDNA
host, UTF-8 percent-encoding of everything outside RFC 3986's allowed set,
never double-encoding an existing valid ``%XX`` (an invalid ``%`` becomes
``%25``).  The fragment is dropped: it never names a different document.

Crawl-time normalisation (query handling, dedup keys) lives in
:mod:`sitemapkit.crawl`; this module holds only what every part agrees on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final
from urllib.parse import urlsplit

import idna

from sitemapkit.errors import InputError

#: The URL character classes, as regex class bodies: the ONE place they are spelled.
#: The writer, the validator, the strict lane and the crawler's normaliser build their
#: patterns from these, so "is this URL escaped" has one answer everywhere.
#: RFC 3986 characters that may stand unescaped in a path or query (unreserved,
#: sub-delims, ``:``, ``@``, ``/``, ``?``); ``&`` is among them.
PLAIN_CLASS: Final = r"A-Za-z0-9\-._~!$&'()*+,;=:@/?"
#: What an escaped URI may hold beyond :data:`PLAIN_CLASS`: ``%`` (of a ``%XX``), the
#: fragment's ``#`` and an IPv6 host's brackets.
ESCAPED_EXTRA: Final = r"%#\[\]"
#: A ``%`` that does not start a valid ``%XX``.
BAD_ESCAPE_PATTERN: Final = r"%(?![0-9A-Fa-f]{2})"
#: A lower-case ASCII host name (what the fast paths take without IDNA).
PLAIN_HOST: Final = r"[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?"

_SAFE = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?"
)
_HEX = frozenset("0123456789abcdefABCDEF")
_PLAIN_URI = re.compile(rf"https?://{PLAIN_HOST}/[{PLAIN_CLASS}]*")
#: An http(s) URL that :func:`iri_to_uri` returns unchanged (lower-case ASCII host, only
#: :data:`PLAIN_CLASS` characters, no ``%``): the common case, checked without a call.
PLAIN_URI: Final = _PLAIN_URI.fullmatch
#: With ``pos`` after a known-clean prefix: ``None`` when the rest is plain.
NOT_PLAIN_PATH: Final = re.compile(rf"[^{PLAIN_CLASS}]").search
#: ``None`` when the text needs no escaping at all, else the first offending character.
_ESCAPED = re.compile(rf"[{PLAIN_CLASS}{ESCAPED_EXTRA}]*")
_BAD_ESCAPE = re.compile(BAD_ESCAPE_PATTERN)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _quote(part: str) -> str:
    out: list[str] = []
    n = len(part)
    i = 0
    while i < n:
        ch = part[i]
        if ch in _SAFE:
            out.append(ch)
        elif ch == "%" and i + 2 < n and part[i + 1] in _HEX and part[i + 2] in _HEX:
            out.append(part[i : i + 3].upper())
            i += 3
            continue
        else:
            out.extend(f"%{b:02X}" for b in ch.encode("utf-8", "surrogatepass"))
        i += 1
    return "".join(out)


def _host_to_ascii(host: str, original: str) -> str:
    host = host.rstrip(".").lower() if host.endswith(".") and host != "." else host.lower()
    if host.isascii():
        if not host or any(c in host for c in ' <>"{}|\\^`%/'):
            raise InputError(
                f'"{original}" has an invalid host "{host}"',
                rule="loc-not-absolute",
                value=original,
            )
        return host
    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError as exc:
        fallback = idna2003(host)
        if fallback is not None:
            return fallback
        raise InputError(
            f'"{original}" has a host that is not a valid IDN: {exc}',
            rule="loc-not-absolute",
            value=original,
        ) from exc


def idna2003(host: str) -> str | None:
    """``host`` through IDNA 2003 (Python's ``idna`` codec), or ``None``.

    IDNA 2008 refuses symbols and emoji (``➡.ws``, ``i❤️.ws``), but browsers' UTS 46
    mapping (and w3lib, and Scrapy) still reach those registered names: the writer and the
    crawler take them too, through this one fallback.
    """
    try:
        if host.isascii():  # an A-label ("xn--hgi") must decode to be one
            host.encode("ascii").decode("idna")
            return host
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return None


@lru_cache(maxsize=65536)
def iri_to_uri(iri: str) -> str:
    """Return ``iri`` as an absolute, fully escaped http(s) URI, or raise :class:`InputError`."""
    text = iri.strip()
    if _PLAIN_URI.fullmatch(text):
        return text
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise InputError(
            f'"{iri}" is not a valid URL: {exc}', rule="loc-not-absolute", value=iri
        ) from exc
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise InputError(
            f'"{iri}" is not an absolute http(s) URL', rule="loc-not-absolute", value=iri
        )
    host = parts.hostname
    # An IPv6 literal keeps its brackets; a name becomes IDNA ASCII.
    netloc = f"[{host.lower()}]" if ":" in host else _host_to_ascii(host, iri)
    if parts.username is not None or parts.password is not None:
        userinfo = _quote(parts.username or "")
        if parts.password is not None:
            userinfo += ":" + _quote(parts.password)
        netloc = f"{userinfo}@{netloc}"
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc += f":{port}"
    path = _quote(parts.path) or "/"
    uri = f"{scheme}://{netloc}{path}"
    if parts.query or text.split("#", 1)[0].endswith("?"):
        uri += "?" + _quote(parts.query)
    return uri


def has_bad_escape(text: str) -> bool:
    """True when ``text`` holds a ``%`` that does not start a valid ``%XX``."""
    return "%" in text and _BAD_ESCAPE.search(text) is not None


def is_escaped_uri(text: str) -> bool:
    """True when ``text`` needs no escaping at all (what RULES.md ``loc-not-escaped`` asks).

    One C-speed match: the validator asks this for every URL it reads.
    """
    return _ESCAPED.fullmatch(text) is not None and not has_bad_escape(text)


def not_plain_uri(url: str, pos: int = 0) -> object:
    """``None`` when ``url`` is a plain URI (see :data:`PLAIN_URI`), else a truthy value.

    Shaped like :data:`NOT_PLAIN_PATH` so the writer's hot loop calls either.
    """
    return None if _PLAIN_URI.fullmatch(url, pos) is not None else True


@dataclass(frozen=True, slots=True)
class Scope:
    """Where a sitemap may point: its origin and directory ([SM] "sitemap location")."""

    scheme: str
    host: str
    port: int
    directory: str

    @classmethod
    def of(cls, url: str) -> Scope:
        """The scope of a sitemap served at ``url`` (or of a base URL ending in ``/``)."""
        uri = iri_to_uri(url)
        parts = urlsplit(uri)
        scheme = parts.scheme
        port = parts.port or _DEFAULT_PORTS[scheme]
        path = parts.path or "/"
        directory = path[: path.rindex("/") + 1]
        return cls(scheme, parts.hostname or "", port, directory)

    def check(self, url: str) -> str | None:
        """``None`` when ``url`` is in scope, else the RULES.md code it breaks."""
        try:
            parts = urlsplit(url)
            port = parts.port or _DEFAULT_PORTS.get(parts.scheme.lower(), 0)
        except ValueError:
            return "loc-other-host"
        if (
            parts.scheme.lower() != self.scheme
            or (parts.hostname or "").lower() != self.host
            or port != self.port
        ):
            return "loc-other-host"
        path = parts.path or "/"
        if not path.startswith(self.directory):
            return "loc-outside-directory"
        return None

    @property
    def origin(self) -> str:
        default = _DEFAULT_PORTS.get(self.scheme)
        port = "" if self.port == default else f":{self.port}"
        return f"{self.scheme}://{self.host}{port}"


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a normalised URL (plain string work: called per fetch)."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        parts = urlsplit(url)
        return f"{parts.scheme}://{parts.netloc}"
    end = len(rest)
    for ch in "/?#":
        i = rest.find(ch)
        if 0 <= i < end:
            end = i
    return f"{scheme}://{rest[:end]}"
