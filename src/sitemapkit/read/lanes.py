"""The validator's strict lane: runs of ``<url>`` entries that provably break no entry rule.

Why: building a :class:`~sitemapkit.read.xmlstream.Node` per element and
running every rule per entry in Python costs ~10 µs a URL; xmllint checks a
million in under two seconds.  Most real entries have one of a few simple
shapes (``loc`` [``lastmod``] [``changefreq``] [``priority``], then
``image:image``/``image:loc`` and ``xhtml:link`` alternates), so one regex
with possessive quantifiers (no backtracking, ~350 MB/s) matches whole runs
of them.  The pattern is a *subset* of what every entry rule accepts: a
matched run is well-formed XML, in the sitemap namespace, in order, with
absolute, escaped, in-scope locs and valid, precise, zoned dates.  What the
pattern cannot decide (duplicates, dates in the future, counts, hreflang
codes and reciprocity) the validator checks per :class:`Block` in bulk, and
any block that would draw a finding is parsed again into nodes
(:func:`sitemapkit.read.xmlstream.block_nodes`) and checked the slow, exact
way: the lane changes the speed, never the findings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final
from xml.sax.saxutils import quoteattr

from sitemapkit.limits import (
    CHANGEFREQ_VALUES,
    IMAGE_NS,
    MAX_IMAGES_PER_URL,
    SITEMAP_NS,
    XHTML_NS,
)
from sitemapkit.urls import ESCAPED_EXTRA, PLAIN_CLASS, PORT, host_name_pattern

_W: Final = rb"[ \t\r\n]*+"
_S: Final = rb"[ \t\r\n]++"
#: what :func:`sitemapkit.urls.is_escaped_uri` accepts, built from the same classes, as raw
#: XML text (``&`` as ``&amp;``, ``%`` only as ``%XX``; ``<``, ``>``, ``"``, whitespace never)
_URL_CHARS: Final = (
    b"(?:["
    + (PLAIN_CLASS.replace("&", "") + ESCAPED_EXTRA.replace("%", "")).encode()
    + rb"]++|%[0-9A-Fa-f]{2}|&amp;)*+"
)
#: a subset of ``rulebook.loc.is_absolute``: lowercase scheme, no userinfo, a host name
#: of the one host rule (``urls.host_name_pattern``) without A-labels, whose punycode a
#: pattern cannot check; no IPv6 literal (its shape is no proof): those take the slow path
_ABS_URL: Final = (
    b"https?://"
    + host_name_pattern(final_dot=True, a_labels=False).encode()
    + b"(?::"
    + PORT.encode()
    + rb")?(?:[/?#]"
    + _URL_CHARS
    + rb")?"
)
_MONTH_DAY: Final = (
    rb"(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])"
    rb"|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)"
)
_LEAP_DAY: Final = (
    rb"(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29"
)
#: what ``dates.classify`` calls fine: a real date, or a full time with seconds and a zone
DATE: Final = (
    rb"(?!0000)(?:[0-9]{4}-" + _MONTH_DAY + rb"|" + _LEAP_DAY + rb")"
    rb"(?:T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]++)?"
    rb"(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9]))?"
)
#: characters of text that expat takes as they are: no markup, no reference, nothing XML
#: forbids (U+FFFE and U+FFFF are the only ones whose UTF-8 starts 0xEF BF BE/BF; bad
#: UTF-8 is caught by decoding), no ``]`` (``]]>``); alternatives to repeat possessively
XML_CHARS: Final = rb"[^<&\]\x00-\x08\x0b\x0c\x0e-\x1f\xef]++|\xef(?!\xbf[\xbe\xbf])"
#: free text (image captions and titles): those characters and the five predefined
#: references, and nothing else
_TEXT: Final = rb"(?:" + XML_CHARS + rb"|&(?:amp|lt|gt|quot|apos);)*+"
#: the deprecated image children the lane takes, in the schema's order
IMAGE_DEPRECATED_KEPT: Final = (b"caption", b"geo_location", b"title")
#: the seven values of :data:`sitemapkit.limits.CHANGEFREQ_VALUES`, which the rule book checks
_CHANGEFREQ: Final = b"(?:" + b"|".join(sorted(v.encode() for v in CHANGEFREQ_VALUES)) + b")"
_PRIORITY: Final = rb"(?:0(?:\.[0-9]*+)?|1(?:\.0*+)?|\.[0-9]++)"
_HREFLANG: Final = rb"[A-Za-z0-9-]{1,40}+"
_PREFIX: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")

#: the values the validator reads out of a lane block (after ``&amp;`` -> ``&``)
LOCS: Final = re.compile(r"<loc>([^<]*)</loc>")
LASTMODS: Final = re.compile(r"<lastmod>([^<]*)</lastmod>")
#: each entry's loc with its lastmod ("" when it has none), aligned
LOC_LASTMOD: Final = re.compile(r"<loc>([^<]*)</loc>[ \t\r\n]*(?:<lastmod>([^<]*)</lastmod>)?")
#: the raw origin of each loc, for the mixed-origins rule when the scope is unknown
ORIGINS: Final = re.compile(r"<loc>(https?://[^/?#<]*)")


@dataclass(frozen=True, slots=True)
class StrictLane:
    """The compiled lane of one document (its scope and extension prefixes)."""

    #: ``(?:ws entry)*+``: matches the longest run of strict entries at a position
    run: re.Pattern[bytes]
    #: the root start tag (with every namespace it declares), to parse a block again
    root: bytes
    #: each loc, and each alternate as (hreflang, href), in file order (None: no xhtml)
    links: re.Pattern[str] | None
    link_tag: str
    #: the image prefix, to count deprecated image children (None: no images here)
    image: str | None
    #: origin + directory every loc starts with, when the sitemap's own URL is known
    prefix: str | None


@dataclass(slots=True)
class Block:
    """A run of strict entries: the raw bytes and where they start in the file."""

    data: bytes
    line: int
    col: int
    count: int
    lane: StrictLane
    #: it may hold deprecated image children (False: it surely holds none)
    deprecated: bool = True


def extension_prefixes(namespaces: Iterable[tuple[str, str]]) -> tuple[str | None, str | None]:
    """The prefixes a root binds to the image and the xhtml namespaces (the first of each),
    which the regex lanes spell out in their patterns."""
    by_ns: dict[str, str] = {}
    for p, uri in namespaces:
        if p and _PREFIX.fullmatch(p):
            by_ns.setdefault(uri, p)
    return by_ns.get(IMAGE_NS), by_ns.get(XHTML_NS)


def lane_key(namespaces: dict[str, str]) -> tuple[str | None, str | None] | None:
    """The image and xhtml prefixes a root binds (what the lane's pattern depends on),
    or None when the default namespace is not the sitemap's (no lane)."""
    if namespaces.get("") != SITEMAP_NS:
        return None
    return extension_prefixes(namespaces.items())


def build_lane(namespaces: dict[str, str], prefix: str | None) -> StrictLane | None:
    """The lane for a urlset with these root namespace declarations, or None.

    ``prefix`` is the scope's origin + directory (``None`` when the sitemap's URL
    is unknown and any absolute URL is in scope).
    """
    key = lane_key(namespaces)
    if key is None:
        return None
    compiled = _compile(*key, prefix)
    if compiled is None:
        return None
    decls = " ".join(
        f"xmlns{':' + p if p else ''}={quoteattr(uri)}" for p, uri in namespaces.items()
    )
    image, xhtml = key
    return StrictLane(
        run=compiled[0],
        root=f"<urlset {decls}>".encode(),
        links=compiled[1],
        link_tag=f"<{xhtml}:link" if xhtml is not None else "\x00",
        image=image,
        prefix=prefix,
    )


@lru_cache(maxsize=32)
def _compile(
    image: str | None, xhtml: str | None, prefix: str | None
) -> tuple[re.Pattern[bytes], re.Pattern[str] | None] | None:
    """The run pattern and the link pattern (~1.5 ms to compile, so kept)."""
    if prefix is None:
        loc = _ABS_URL
    else:
        raw = prefix.encode("utf-8")
        # the prefix must itself be a strict URL, or a loc starting with it may not be one
        if not prefix.endswith("/") or re.fullmatch(_ABS_URL, raw) is None:
            return None
        loc = re.escape(raw) + _URL_CHARS
    links: re.Pattern[str] | None = None
    link = img = b""
    if xhtml is not None:
        x = xhtml.encode()
        link = (
            b"(?:<" + x + b":link" + _S + b'rel="alternate"' + _S + b'hreflang="' + _HREFLANG
            + b'"' + _S + b'href="' + _ABS_URL + b'"' + _W + b"/>" + _W + b")*+"
        )  # fmt: skip
        links = re.compile(
            r"<loc>([^<]*)</loc>|<" + re.escape(xhtml) + r':link[ \t\r\n]+rel="alternate"'
            r'[ \t\r\n]+hreflang="([^"]*)"[ \t\r\n]+href="([^"]*)"'
        )
    if image is not None:
        i = image.encode()
        # at most MAX_IMAGES_PER_URL per entry, so image-too-many cannot hide in a block;
        # caption, geo_location and title (no effect since 2022, still common) in schema
        # order, at most once each, counted in bulk for image-deprecated (an empty group
        # in each: a match whose lastindex is set has met one of them)
        old = b"".join(
            b"(?:<" + i + b":" + k + b">()" + _TEXT + b"</" + i + b":" + k + b">" + _W + b")?"
            for k in IMAGE_DEPRECATED_KEPT
        )
        img = (
            b"(?:<" + i + b":image>" + _W + b"<" + i + b":loc>" + _ABS_URL + b"</" + i
            + b":loc>" + _W + old + b"</" + i + b":image>" + _W + link + b")"
            + b"{0,%d}+" % MAX_IMAGES_PER_URL
        )  # fmt: skip
    entry = (
        b"<url>" + _W + b"<loc>" + loc + b"</loc>" + _W
        + b"(?:<lastmod>" + DATE + b"</lastmod>" + _W + b")?"
        + b"(?:<changefreq>" + _CHANGEFREQ + b"</changefreq>" + _W + b")?"
        + b"(?:<priority>" + _PRIORITY + b"</priority>" + _W + b")?"
        + link + img + b"</url>"
    )  # fmt: skip
    return re.compile(b"(?:" + _W + entry + b")*+"), links
