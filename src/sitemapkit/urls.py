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

import ipaddress
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final
from urllib.parse import urlsplit

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
#: Characters of a host name's label once it is ASCII: letters, digits, ``-`` and ``_``
#: (DNS records and browsers take ``_``: ``my_shop.example.com`` is reached).  ``%``, other
#: sub-delims and spaces are refused: no resolver finds such a name, and the crawler never did.
_LABEL_CHARS: Final = "A-Za-z0-9_-"
#: Longest label (RFC 1035) and longest name without its final dot (RFC 1035, 253 written).
MAX_HOST_LABEL: Final = 63
MAX_HOST_NAME: Final = 253


def host_name_pattern(*, chars: str = _LABEL_CHARS, final_dot: bool, a_labels: bool) -> str:
    """The regex of a valid host *name*: the ONE definition, in the shapes its users need.

    Labels of 1 to :data:`MAX_HOST_LABEL` ``chars`` joined by single dots (no empty label:
    ``.example.com``, ``a..b``), at most :data:`MAX_HOST_NAME` characters before an optional
    final dot (``example.com.`` is a fully qualified name).  ``a_labels=False`` leaves out
    labels starting ``xn--``, whose punycode a pattern cannot check (:func:`valid_host` can).
    """
    # Possessive: a label never gives characters back (the strict lane's speed depends on it)
    label = rf"[{chars}]{{1,{MAX_HOST_LABEL}}}+"
    if not a_labels:
        label = r"(?![Xx][Nn]--)" + label
    # 254 characters ending in a label character: too long (a final dot may be the 254th)
    too_long = rf"(?![{chars}][.{chars}]{{{MAX_HOST_NAME - 1}}}[{chars}])"
    return too_long + label + rf"(?:\.{label})*+" + (r"\.?+" if final_dot else "")


#: Any valid ASCII host name, either case, final dot allowed (the loc rule's).
HOST_NAME: Final = host_name_pattern(final_dot=True, a_labels=True)
#: A lower-case ASCII host name without A-labels or a final dot: what the fast paths take
#: as it is, without IDNA (every one is :func:`valid_host`).
PLAIN_HOST: Final = host_name_pattern(chars="a-z0-9_-", final_dot=False, a_labels=False)
#: A port: empty (RFC 3986 and browsers take ``host:``) or a number up to 65535.
PORT: Final = r"(?:[0-9]{0,4}|[0-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
_HOST_NAME_RE: Final = re.compile(HOST_NAME)
_PORT_RE: Final = re.compile(PORT)

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
    ascii_host = host_to_ascii(host)
    if ascii_host is None:
        raise InputError(
            f'"{original}" has an invalid host "{host}" (empty or over-long label, a character '
            "no host name holds, or a name IDNA cannot convert)",
            rule="loc-not-absolute",
            value=original,
        )
    return ascii_host


def host_to_ascii(host: str) -> str | None:
    """``host`` as the writer and the crawler spell it, or ``None`` when it is no host.

    Lower case, one final dot dropped (``example.com.`` is ``example.com``), a Unicode
    name through IDNA (UTS 46, then IDNA 2003 for symbol names), then
    :func:`valid_host`; a name ending in a number is an IPv4 address
    (:func:`ipv4_host`) or no host, as for browsers.
    """
    host = host.lower()
    if host.endswith(".") and not host.endswith(".."):
        host = host[:-1]
    if not host.isascii():
        import idna  # a Unicode host: most sites have none, so most runs never load IDNA

        try:
            host = idna.encode(host, uts46=True).decode("ascii")
        except (idna.IDNAError, UnicodeError, ValueError):
            fallback = idna2003(host)
            if fallback is None:
                return None
            host = fallback
    if _ends_in_a_number(host):
        return ipv4_host(host)
    return host if valid_host(host) else None


_NUMBER_LABEL: Final = re.compile(r"[0-9]+|0[xX][0-9A-Fa-f]*")


def _ends_in_a_number(host: str) -> bool:
    """WHATWG's "ends in a number": the last label is digits or ``0x`` hex, so the host is
    an IPv4 address or nothing (``example.123`` names no site)."""
    last = host.rsplit(".", 2)
    label = last[-1] if last[-1] or len(last) == 1 else last[-2]
    return _NUMBER_LABEL.fullmatch(label) is not None


def ipv4_host(host: str) -> str | None:
    """The dotted-decimal address a numeric host names, read as browsers read it, or None.

    WHATWG's IPv4 parser: up to four parts, each decimal, ``0x`` hex or ``0``-led octal;
    the last part fills the bytes the others left (``192.0x00A80001`` is 192.168.0.1,
    ``0x7f.1`` is 127.0.0.1).  A part out of range or not a number fails the host.
    """
    parts = host.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    if len(parts) > 4 or "" in parts:
        return None
    numbers: list[int] = []
    for part in parts:
        if part[:2] in ("0x", "0X"):
            digits, base = part[2:], 16
        elif len(part) > 1 and part.startswith("0"):
            digits, base = part[1:], 8
        else:
            digits, base = part, 10
        try:
            numbers.append(int(digits, base) if digits else 0)
        except ValueError:
            return None
    last = numbers.pop()
    if any(n > 255 for n in numbers) or last >= 256 ** (4 - len(numbers)):
        return None
    value = last
    for index, number in enumerate(numbers):
        value += number * 256 ** (3 - index)
    return str(ipaddress.IPv4Address(value))


def valid_host(host: str) -> bool:
    """True for a host every part of sitemapkit takes: the one rule, everything calls it.

    ``host`` is ASCII (after IDNA; a non-ASCII name is no host yet): a name of
    :func:`host_name_pattern` whose ``xn--`` labels decode (IDNA 2008, or 2003 for the
    symbol names browsers still reach), or a bracketed IPv6 literal (no zone id: it
    names an interface of one machine, never a page).
    """
    if host.startswith("["):
        inner = host[1:-1]
        if not host.endswith("]") or "%" in inner or not inner:
            return False
        try:
            ipaddress.IPv6Address(inner)
        except ValueError:
            return False
        return True
    if _HOST_NAME_RE.fullmatch(host) is None:
        return False
    if "xn--" in host.lower():
        import idna  # an A-label to decode: rare, as above

        name = host.rstrip(".").lower()
        try:
            idna.decode(name)
        except (idna.IDNAError, UnicodeError, ValueError):
            return idna2003(name) is not None
    return True


def valid_port(text: str) -> bool:
    """True for the digits after a host's ``:`` that name a port: none, or 0 to 65535."""
    return _PORT_RE.fullmatch(text) is not None


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
    # An IPv6 literal keeps its brackets; a name becomes IDNA ASCII; both must be hosts.
    netloc = _host_to_ascii(f"[{host}]" if ":" in host else host, iri)
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
