"""What the crawler needs to know about one HTML page, read with a real parser.

:func:`extract_page` turns a fetched body and its headers into :class:`PageFacts`:
links (with ``nofollow`` and where they came from), the canonical URL, hreflang
alternates, the robots directives of the page *and* of its headers, meta refresh,
an honest ``lastmod`` with the place it was read from, images, title and first h1.

Why it is built this way:

- **Decoding first.** Lexbor assumes UTF-8; a latin-1 page parsed as UTF-8 loses its
  accents and its non-ASCII links.  The order is the HTML standard's: BOM, HTTP
  ``charset``, ``<meta charset>``/``http-equiv`` in the first 1,024 bytes, else UTF-8;
  undecodable bytes become U+FFFD, never an exception.
- **One parse, one selector pass.**  All elements of interest are fetched with a single
  selector list in document order, so cost stays linear in page size (measured 0.7 ms
  for a 90 KiB article with 130 links; the parse is 0.16 ms of it, the rest is URL
  normalisation).  Link and image counts are capped, and links past the cap are not
  even resolved, so a hostile page cannot make the frontier (or the CPU) explode.
- **Text stays text.**  Titles keep ``</script><script>`` as characters; escaping is the
  job of whoever writes them out (the XML writer, the visual page).
- **lastmod is never invented.**  Only the page's own modification metadata or the
  ``Last-Modified`` header count, and only W3C-valid, timezone-aware values that are
  not in the future; a ``Last-Modified`` equal to the response time (dynamic sites
  stamp every answer) is refused.  The source is recorded next to the value.
"""

from __future__ import annotations

import codecs
import json
import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from functools import lru_cache, partial
from typing import Any, Final, NamedTuple

from selectolax.lexbor import LexborHTMLParser, LexborNode

from sitemapkit import dates
from sitemapkit.crawl.encoding import decode_body, sniff_codec
from sitemapkit.crawl.significance import NON_CONTENT_TAGS, content_fingerprint, visible_utf8
from sitemapkit.crawl.urlnorm import (
    QueryPolicy,
    link_resolver,
    normalize,
    query_in_encoding,
    resolve,
)
from sitemapkit.errors import InputError
from sitemapkit.limits import MAX_IMAGES_PER_URL, MAX_JSONLD_BYTES
from sitemapkit.model import Alternate

__all__ = [
    "FOLLOW_KINDS",
    "MAX_LINKS_PER_PAGE",
    "MAX_TITLE_LENGTH",
    "STAMPED_SLACK",
    "Link",
    "PageFacts",
    "decode_body",
    "extract_page",
    "is_html_content_type",
    "parse_link_header",
    "robots_directives",
]

#: Links kept per page; link elements left unexamined are counted in ``PageFacts.links_dropped``.
MAX_LINKS_PER_PAGE: Final = 20_000
#: Characters kept of a title or h1 (Google shows about 60; 512 keeps every real one).
MAX_TITLE_LENGTH: Final = 512
#: A ``Last-Modified`` this close to the response time is the server's clock, not an edit.
STAMPED_SLACK: Final = timedelta(minutes=2)
#: Link kinds the crawler follows by default; ``frame`` (iframe/frame src) is recorded only.
FOLLOW_KINDS: Final = frozenset({"a", "area", "meta-refresh"})

# Bots whose robots directives we obey: the generic ones and Google's (the main
# consumer of a sitemap).  Directives aimed at another named bot are ignored.
_OUR_BOTS: Final = frozenset({"robots", "googlebot"})
_ROBOTS_KEYWORDS: Final = frozenset(
    {
        "all",
        "noindex",
        "nofollow",
        "none",
        "index",
        "follow",
        "noarchive",
        "nosnippet",
        "notranslate",
        "noimageindex",
        "indexifembedded",
        "unavailable_after",
        "max-snippet",
        "max-image-preview",
        "max-video-preview",
        "noodp",
        "noydir",
        "nocache",
    }
)
#: Every element the page's facts are read from, and the code elements the fingerprint's
#: text leaves out (``script`` is both: a JSON-LD block is read, then stripped).  One
#: selector, one walk of the tree; no tag appears twice (Lexbor returns an element once
#: per selector it matches).
_SELECTOR: Final = (
    "title, base[href], link[href], meta, a[href], area[href], img, iframe[src], "
    "frame[src], h1, " + ", ".join(NON_CONTENT_TAGS)
)
_CODE_TAGS: Final = frozenset(NON_CONTENT_TAGS)
_WS = re.compile(r"\s+")
#: Characters of HTML parsed as one tree (see :func:`html_segments`).
PARSE_SEGMENT_CHARS: Final = 1 << 20
_BLOCK_END = re.compile(r"</(?:tr|li|div|p|dd|dt|td|tbody|table|ul|ol|section|article)\s*>", re.I)
_RAW_TEXT = re.compile(
    r"<(script|style|template|textarea|!--)|</(script|style|template|textarea)\s*>|-->", re.I
)
#: ``_RAW_TEXT``'s markers as lower-case literals, ``(text, opener, closer)``; a closer
#: also needs ``_CLOSER_END`` after it.
_RAW_TEXT_MARKS: Final = (
    *((f"<{tag}", tag, None) for tag in ("script", "style", "template", "textarea", "!--")),
    *((f"</{tag}", None, tag) for tag in ("script", "style", "template", "textarea")),
    ("-->", None, None),
)
_CLOSER_END = re.compile(r"\s*>")
#: Characters ``re.IGNORECASE`` takes for an ASCII letter of those markers that
#: ``str.lower`` does not turn into it, or turns into two characters (a test checks
#: every code point): where one is, the case-blind pattern finds the markers.
_CASE_ODD: Final = ("\u0130", "\u0131", "\u017f")
_BOT_NAME = re.compile(r"[a-z0-9_.-]+")
_ASCII_WS: Final = "\t\n\f\r "
_REFRESH_TIME = re.compile(r"[\t\n\f\r ]*([0-9]*)[0-9.]*")
_REFRESH_SEPARATOR = re.compile(r"[\t\n\f\r ]*[;,]?[\t\n\f\r ]*")
_REFRESH_URL_KEY = re.compile(r"url[\t\n\f\r ]*=[\t\n\f\r ]*", re.IGNORECASE)
_LINK_HEADER_PART = re.compile(r"<([^>]*)>((?:\s*;\s*[^;,<]+)*)")
_LINK_PARAM = re.compile(r"""\s*;\s*([A-Za-z*-]+)\s*=\s*(?:"([^"]*)"|([^;,\s]*))""")
_DEFAULT_POLICY: Final = QueryPolicy()
_LASTMOD_META: Final = {
    "article:modified_time": "article:modified_time",
    "og:updated_time": "og:updated_time",
}


class Link(NamedTuple):
    """One outgoing link, absolute and normalised.

    ``kind`` says where it was found: ``a``, ``area``, ``meta-refresh`` or ``frame``
    (``<iframe src>``/``<frame src>``; recorded, not followed by default, see
    :data:`FOLLOW_KINDS`).  ``nofollow`` is the link's own ``rel``; a page-wide
    ``nofollow`` lives in :attr:`PageFacts.nofollow`.  A URL linked several times
    appears once, ``nofollow`` only if every occurrence was.

    A named tuple, not a frozen dataclass: a page makes one per link (hundreds on an
    API reference page), and ``--workers`` pickles them; a tuple is made and pickled
    at a fraction of the cost.
    """

    url: str
    nofollow: bool = False
    kind: str = "a"


@dataclass(frozen=True, slots=True)
class PageFacts:
    """Everything the crawler decides with, for one fetched HTML page.

    ``url`` is the normalised page URL; every other URL is absolute and normalised
    with the same :class:`~sitemapkit.crawl.urlnorm.QueryPolicy`.  ``canonical_source``
    is ``"http-link"`` (``Link`` header, which wins) or ``"link-rel"``; several
    different ``<link rel=canonical>`` cancel out (``None``), as for Google.
    ``lastmod_source`` is ``"article:modified_time"``, ``"og:updated_time"``,
    ``"itemprop:dateModified"``, ``"json-ld"`` or ``"last-modified"``.  ``meta_refresh``
    is the target of a ``<meta http-equiv=refresh>`` (or ``Refresh`` header) to
    another URL.  ``encoding`` is the codec the body was decoded with.
    """

    url: str
    title: str | None = None
    h1: str | None = None
    base_url: str | None = None
    links: tuple[Link, ...] = ()
    links_dropped: int = 0
    canonical: str | None = None
    canonical_source: str | None = None
    alternates: tuple[Alternate, ...] = ()
    noindex: bool = False
    nofollow: bool = False
    meta_refresh: str | None = None
    lastmod: str | None = None
    lastmod_source: str | None = None
    images: tuple[str, ...] = ()
    encoding: str = "utf-8"
    #: :func:`~sitemapkit.crawl.significance.content_fingerprint` of the page.
    fingerprint: str | None = None

    def __reduce__(self) -> tuple[Callable[[list[Any]], PageFacts], tuple[list[Any]]]:
        # By value, positional; the links as plain tuples, made Links again by
        # _facts_from: a named tuple pickles through a Python-level __getnewargs__ per
        # link, 10x the cost of a tuple (50 against 5 us a JDK page to pickle, in the
        # parse process; the crawl's loads 24 against 20 us).
        values = [getattr(self, name) for name in _FACT_FIELDS]
        values[_LINKS_AT] = [tuple(link) for link in self.links]
        return (_facts_from, (values,))

    def follow_links(
        self, *, include_nofollow: bool = False, kinds: frozenset[str] = FOLLOW_KINDS
    ) -> Iterator[Link]:
        """The links a crawler should queue: respects page and link ``nofollow`` unless asked."""
        if self.nofollow and not include_nofollow:
            return
        for link in self.links:
            if link.kind in kinds and (include_nofollow or not link.nofollow):
                yield link

    @property
    def self_canonical(self) -> bool:
        """True when the page has no canonical or names itself."""
        return self.canonical is None or self.canonical == self.url


_FACT_FIELDS: Final = tuple(f.name for f in fields(PageFacts))
_LINKS_AT: Final = _FACT_FIELDS.index("links")
#: ``Link`` from a plain ``(url, nofollow, kind)`` tuple, made in C (no Python frame a link).
_MAKE_LINK: Final = partial(tuple.__new__, Link)


def _facts_from(values: list[Any]) -> PageFacts:
    """Unpickle :class:`PageFacts` (see :meth:`PageFacts.__reduce__`)."""
    values[_LINKS_AT] = tuple(map(_MAKE_LINK, values[_LINKS_AT]))
    return PageFacts(*values)


# --- headers -----------------------------------------------------------------------


def _header_values(headers: Mapping[str, str], name: str) -> list[str]:
    """All values of header ``name`` (any case), also the repeated ones of a multidict."""
    getall = getattr(headers, "getall", None)
    if getall is not None:
        try:
            return [str(v) for v in getall(name, [])]
        except (KeyError, TypeError):
            pass
    lname = name.lower()
    return [str(v) for k, v in headers.items() if k.lower() == lname]


def is_html_content_type(value: str | None) -> bool:
    """True for ``text/html`` and ``application/xhtml+xml`` (and a missing type)."""
    if not value:
        return True
    mime = value.split(";", 1)[0].strip().lower()
    return mime in ("text/html", "application/xhtml+xml")


def parse_link_header(value: str) -> list[tuple[str, dict[str, str]]]:
    """RFC 8288 ``Link`` header → ``[(target, {param: value})]``; junk parts are skipped."""
    out: list[tuple[str, dict[str, str]]] = []
    for m in _LINK_HEADER_PART.finditer(value):
        params: dict[str, str] = {}
        for pm in _LINK_PARAM.finditer(m.group(2)):
            key = pm.group(1).lower()
            if key not in params:
                params[key] = pm.group(2) if pm.group(2) is not None else pm.group(3)
        out.append((m.group(1).strip(), params))
    return out


def robots_directives(values: Iterable[str], *, header: bool) -> tuple[bool, bool]:
    """``(noindex, nofollow)`` from meta robots contents or ``X-Robots-Tag`` values.

    In headers a ``bot:`` prefix scopes the directives after it (Google's form
    ``X-Robots-Tag: googlebot: noindex, nofollow``); only the generic and Google's
    apply to us.  ``none`` means both.  ``unavailable_after`` and the preview limits
    are not about indexing in a sitemap and are ignored.
    """
    noindex = nofollow = False
    for value in values:
        applies = True
        for raw in value.split(","):
            token = raw.strip().lower()
            if not token:
                continue
            if header and ":" in token:
                prefix, rest = token.split(":", 1)
                prefix = prefix.strip()
                if prefix not in _ROBOTS_KEYWORDS and _BOT_NAME.fullmatch(prefix):
                    applies = prefix in _OUR_BOTS
                    token = rest.strip()
                    if not token:
                        continue
            if not applies:
                continue
            word = token.split(":", 1)[0].strip()
            if word in ("noindex", "none"):
                noindex = True
            if word in ("nofollow", "none"):
                nofollow = True
    return noindex, nofollow


# --- dates -------------------------------------------------------------------------


def _w3c(value: str | None, now: datetime) -> str | None:
    """``value`` as a sitemap lastmod, or ``None`` if it is not a usable W3C datetime."""
    if not value:
        return None
    text = value.strip()
    if len(text) > 64:
        return None
    try:
        if dates.classify(text) is None:
            out = dates.format_lastmod(text)
        else:
            parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
            if parsed.tzinfo is None:
                return None
            out = dates.format_lastmod(parsed)
    except (ValueError, InputError, OverflowError):
        return None
    moment = dates.parse(out)
    if moment is None or moment > now + timedelta(days=1):
        return None
    return out


# Pure functions of a header's text, asked for every page: a static site serves one
# Last-Modified for many files, and a Date that moves once a second.
@lru_cache(maxsize=256)
def _parse_http_date(value: str) -> datetime | None:
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).replace(microsecond=0)


def _http_date(value: str, now: datetime, served: str | None) -> str | None:
    """A ``Last-Modified`` value as lastmod, unless it is only the time of the response.

    Many dynamic sites stamp every response with ``Last-Modified: <now>``; taking
    that would be taking the crawl time.  A value within :data:`STAMPED_SLACK` of
    the response's ``Date`` (or of ``now`` when there is no ``Date``) is refused.
    """
    parsed = _parse_http_date(value)
    if parsed is None or parsed > now + timedelta(days=1) or parsed.year < 1995:
        return None
    reference = (_parse_http_date(served) if served else None) or now
    if abs(reference - parsed) <= STAMPED_SLACK:
        return None
    return _lastmod_of(value, parsed)


@lru_cache(maxsize=256)
def _lastmod_of(_value: str, moment: datetime) -> str:
    """``moment`` (what header text ``_value`` says) as a lastmod, cached by the text."""
    return dates.format_lastmod(moment)


def _json_ld_modified(text: str) -> str | None:
    """The first ``dateModified`` string in a JSON-LD block (breadth first), else ``None``."""
    if len(text) > MAX_JSONLD_BYTES:
        return None
    try:
        data: Any = json.loads(text)
    except (ValueError, RecursionError):
        return None
    queue: deque[Any] = deque([data])
    seen = 0
    while queue and seen < 10_000:
        item = queue.popleft()
        seen += 1
        if isinstance(item, dict):
            value = item.get("dateModified")
            if isinstance(value, str):
                return value
            queue.extend(v for v in item.values() if isinstance(v, dict | list))
        elif isinstance(item, list):
            queue.extend(v for v in item if isinstance(v, dict | list))
    return None


# --- the page ----------------------------------------------------------------------


@dataclass(slots=True)
class _Found:
    """What the element pass gathered, over every segment of the page."""

    title: str | None = None
    h1: str | None = None
    base_href: str | None = None
    meta_refresh: str | None = None
    canonicals: list[str] = field(default_factory=list)
    alternates: dict[tuple[str, str], Alternate] = field(default_factory=dict)
    meta_robots: list[str] = field(default_factory=list)
    lastmod_meta: dict[str, str] = field(default_factory=dict)
    jsonld: list[str] = field(default_factory=list)
    #: ``(href, nofollow, kind)`` of every link element, in document order.
    links: list[tuple[str, bool, str]] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    #: The code elements of the current segment (script, style ...), stripped before
    #: its visible text is read.
    code: list[LexborNode] = field(default_factory=list)


def html_segments(text: str, size: int = PARSE_SEGMENT_CHARS) -> Iterator[str]:
    """``text`` in pieces of about ``size`` characters, each cut after a closing block tag.

    Why: the parser's tree costs about 12 bytes per byte of HTML (a 6 MB page, the JDK's
    ``class-use/String.html``, took 72 MB), so a huge page is parsed a piece at a time,
    one tree alive at once, and every link of it is still read.  A piece ends right after
    a ``</tr>``, ``</li>``, ``</div>``... that is not inside a script, style, comment,
    template or textarea; a page without such a place is parsed whole.  Pages up to
    ``size`` are one piece: the same parse as ever.
    """
    start = 0
    plain = len(text) > size and _folds_plainly(text)
    while len(text) - start > size:
        cut = _safe_cut(text, start, start + size, plain)
        if cut is None:
            break
        yield text[start:cut]
        start = cut
    yield text[start:]


def _parse_input(body: bytes, content_type: str | None) -> tuple[Iterable[str | bytes], str]:
    """What the parser reads (the body's own bytes when they are the UTF-8 of its text),
    and the page's encoding (:func:`decode_body`'s).

    The parser works on UTF-8 and encodes a ``str`` back to it (about 4% of a crawl's
    instructions); a UTF-8 body that decodes without a replacement character, and has no
    BOM, is exactly that encoding already, and an ASCII one is not even decoded (22 us a
    JDK page).  Anything else, and huge pages (segments are cut in the text), go through
    the text as before.
    """
    if len(body) <= PARSE_SEGMENT_CHARS and body.isascii():
        encoding = sniff_codec(body, content_type)[0]
        if encoding == "utf-8":
            return (body,), encoding
    text, encoding = decode_body(body, content_type)
    if (
        encoding == "utf-8"
        and len(text) <= PARSE_SEGMENT_CHARS
        and "\ufffd" not in text
        and not body.startswith(codecs.BOM_UTF8)
    ):
        return (body,), encoding
    return html_segments(text), encoding


def _safe_cut(text: str, start: int, at: int, plain: bool | None = None) -> int | None:
    """The end of the first closing block tag after ``at`` outside raw text, or None.

    Whether a script, style, comment, template or textarea is open is followed from
    ``start`` once, through every candidate in turn (not scanned again per candidate:
    that made a 6 MB page cost 64 scans of its first megabyte).  The markers are found
    with ``str.find`` in the lower-cased text between candidates: the case-blind pattern
    tried at every ``<`` cost 0.36 s over the JDK docs' 16 huge pages (35 MB), the finds
    0.23 s for the whole cut.  ``plain``: ``text`` holds no character that case-folds
    oddly (:func:`_folds_plainly`, asked when not given); one that does takes the pattern.
    """
    if not (_folds_plainly(text) if plain is None else plain):
        return _safe_cut_by_pattern(text, start, at)
    open_kind: str | None = None
    done = start
    for tries, m in enumerate(_BLOCK_END.finditer(text, at)):
        if tries >= 64:
            return None
        end = m.end()
        # No marker can run across ``end``: the characters before it close a block tag.
        open_kind = _follow_markers(text[done:end].lower(), open_kind)
        done = end
        if open_kind is None:
            return end
    return None


def _folds_plainly(text: str) -> bool:
    """``str.lower`` keeps ``text``'s length and makes the letters the case-blind pattern
    takes for the markers' (no character of ``_CASE_ODD`` in it)."""
    return not any(odd in text for odd in _CASE_ODD)


def _follow_markers(low: str, open_kind: str | None) -> str | None:
    """The raw-text element open at the end of ``low`` (a lower-cased stretch of the page),
    following its markers as ``_RAW_TEXT.finditer`` finds them (leftmost, none overlapping)."""
    found: list[tuple[int, int]] = []
    for index, (mark, _opener, _closer) in enumerate(_RAW_TEXT_MARKS):
        at = low.find(mark)
        while at >= 0:
            found.append((at, index))
            at = low.find(mark, at + 1)
    found.sort()
    done = 0
    for at, index in found:
        if at < done:
            continue
        mark, opener, closer = _RAW_TEXT_MARKS[index]
        end = at + len(mark)
        if closer is not None:
            tail = _CLOSER_END.match(low, end)
            if tail is None:
                continue
            end = tail.end()
        done = end
        if open_kind is None:
            open_kind = opener
        elif closer == open_kind or (open_kind == "!--" and mark == "-->"):
            open_kind = None
    return open_kind


def _safe_cut_by_pattern(text: str, start: int, at: int) -> int | None:
    """:func:`_safe_cut` with the case-blind pattern (a text with an odd case fold)."""
    markers = _RAW_TEXT.finditer(text, start)
    marker = next(markers, None)
    open_kind: str | None = None
    for tries, m in enumerate(_BLOCK_END.finditer(text, at)):
        if tries >= 64:
            return None
        end = m.end()
        while marker is not None and marker.end() <= end:
            open_kind = _raw_text_state(open_kind, marker)
            marker = next(markers, None)
        if open_kind is None:
            return end
    return None


def _raw_text_state(open_kind: str | None, marker: re.Match[str]) -> str | None:
    """The raw-text element open after ``marker`` (None: none), given the one before."""
    opener, closer = marker.group(1), marker.group(2)
    if open_kind is None:
        return None if opener is None else opener.lower()
    if (closer or "").lower() == open_kind or (open_kind == "!--" and marker.group(0) == "-->"):
        return None
    return open_kind


def _text(node: Any) -> str | None:
    raw = node.text(deep=True)
    if not raw:
        return None
    text = _WS.sub(" ", raw[: MAX_TITLE_LENGTH * 8]).strip()
    if not text:
        return None
    return text[:MAX_TITLE_LENGTH]


def _rel_tokens(value: str | None) -> set[str]:
    return set(value.lower().split()) if value else set()


def _refresh_target(content: str | None) -> str | None:
    """The URL a refresh goes to, read by the HTML standard's declarative refresh steps.

    None when it is not a refresh or only reloads the page.  The time is ASCII digits
    (``٥`` is not a time) and is required (``url=/x`` alone is not a refresh); after it
    comes whitespace, ``;`` or ``,``; then an optional ``url=``; a quoted URL ends at
    its closing quote (``'/next'junk`` goes to ``/next``).
    """
    if not content:
        return None
    time = _REFRESH_TIME.match(content)
    assert time is not None  # every part of the pattern may be empty
    pos = time.end()
    if not time.group(1) and not content.startswith(".", time.start(1)):
        return None
    if pos < len(content) and content[pos] not in ";," + _ASCII_WS:
        return None
    separator = _REFRESH_SEPARATOR.match(content, pos)
    assert separator is not None  # may be empty
    pos = separator.end()
    key = _REFRESH_URL_KEY.match(content, pos)
    if key is not None:
        pos = key.end()
    target = content[pos:]
    if target[:1] in ("'", '"'):
        target = target[1:].split(target[0], 1)[0]
    target = target.strip(_ASCII_WS)
    return target or None


def _collect(parser: LexborHTMLParser, found: _Found) -> None:
    """Gather the elements of interest of one parsed segment, in document order."""
    links = found.links
    for node in parser.css(_SELECTOR):
        tag = node.tag
        if tag in {"a", "area"}:
            attrs = node.attributes
            href = attrs.get("href")
            if href is not None:
                rel = attrs.get("rel")
                links.append((href, rel is not None and "nofollow" in _rel_tokens(rel), tag))
        elif tag in _CODE_TAGS:
            found.code.append(node)
            if tag == "script":
                _script(node, found)
        else:
            _element(node, tag, found)


def _script(node: LexborNode, found: _Found) -> None:
    if (node.attributes.get("type") or "").strip().lower() == "application/ld+json":
        content_text = node.text(deep=True)
        if content_text:
            found.jsonld.append(content_text)


def _element(node: LexborNode, tag: str | None, found: _Found) -> None:
    """One element of the head (or an image, a frame, the h1): what it says."""
    attrs = node.attributes
    if tag == "img":
        src = attrs.get("src")
        if not src or src.lstrip().lower().startswith("data:"):
            src = attrs.get("data-src") or src
        if src and len(found.images) < MAX_IMAGES_PER_URL * 4:
            found.images.append(src)
    elif tag == "meta":
        _meta(attrs, found, node)
    elif tag == "link":
        rel = _rel_tokens(attrs.get("rel"))
        href = attrs.get("href")
        if href is None:
            return
        if "canonical" in rel:
            found.canonicals.append(href)
        elif "alternate" in rel:
            lang = (attrs.get("hreflang") or "").strip()
            if lang:
                found.alternates.setdefault((lang.lower(), href), Alternate(lang, href))
    elif tag == "title":
        if found.title is None:
            found.title = _text(node)
    elif tag == "base":
        if found.base_href is None and not _in_noscript(node):
            found.base_href = attrs.get("href")
    elif tag == "h1":
        if found.h1 is None:
            found.h1 = _text(node)
    elif tag in ("iframe", "frame"):
        src = attrs.get("src")
        if src:
            found.links.append((src, False, "frame"))


def _in_noscript(node: LexborNode) -> bool:
    """Inside ``<noscript>``: what a browser running scripts (and Google's renderer) never
    parses as markup, so a ``<base>`` or a refresh there does not apply to the page."""
    parent = node.parent
    while parent is not None:
        if parent.tag == "noscript":
            return True
        parent = parent.parent
    return False


def _meta(attrs: dict[str, str | None], found: _Found, node: LexborNode) -> None:
    name = (attrs.get("name") or "").strip().lower()
    content = attrs.get("content")
    if name in _OUR_BOTS and content:
        found.meta_robots.append(content)
        return
    prop = (attrs.get("property") or name).strip().lower()
    if prop in _LASTMOD_META and content and prop not in found.lastmod_meta:
        found.lastmod_meta[prop] = content
        return
    if (attrs.get("itemprop") or "").strip() == "dateModified" and content:
        found.lastmod_meta.setdefault("itemprop:dateModified", content)
        return
    equiv = (attrs.get("http-equiv") or "").strip().lower()
    if equiv == "refresh" and found.meta_refresh is None and not _in_noscript(node):
        found.meta_refresh = _refresh_target(content)


def _in_encoding(
    resolve_href: Callable[[str], str | None], encoding: str
) -> Callable[[str], str | None]:
    """``resolve_href`` for the links of a page that is not UTF-8 (see query_in_encoding)."""

    def resolve_in(href: str) -> str | None:
        return resolve_href(href if href.isascii() else query_in_encoding(href, encoding))

    return resolve_in


def _add_links(
    links: dict[str, Link],
    raw_links: list[tuple[str, bool, str]],
    resolve_href: Callable[[str], str | None],
) -> int:
    """Resolve ``raw_links`` into ``links`` (nofollow only if every copy is); returns how
    many link elements were left unexamined.

    Each ``(href, nofollow, kind)`` is resolved once: a page repeats its links.  A page
    with more link elements than :data:`MAX_LINKS_PER_PAGE` stops when that many URLs are
    known, and what is left is not even resolved (a hostile page stays cheap).
    """
    capped = len(raw_links) > MAX_LINKS_PER_PAGE
    seen: set[tuple[str, bool, str]] = set()
    for index, raw_link in enumerate(raw_links if capped else dict.fromkeys(raw_links)):
        if capped:
            if len(links) >= MAX_LINKS_PER_PAGE:
                return len(raw_links) - index
            if raw_link in seen:
                continue
            seen.add(raw_link)
        absolute = resolve_href(raw_link[0])
        if absolute is None:
            continue
        known = links.get(absolute)
        if known is None:
            links[absolute] = _MAKE_LINK((absolute, raw_link[1], raw_link[2]))
        elif known[1] and not raw_link[1]:
            links[absolute] = _MAKE_LINK((absolute, False, known[2]))
    return 0


def extract_page(
    body: bytes,
    *,
    url: str,
    headers: Mapping[str, str],
    policy: QueryPolicy | None = None,
    now: datetime | None = None,
) -> PageFacts:
    """Read one HTML page.  ``url`` is the final (post-redirect) URL of the response.

    Never raises on what the page contains; a body that is not HTML at all simply
    yields no links.  ``policy`` is the crawl's query policy for the links it emits.
    """
    qp = policy if policy is not None else _DEFAULT_POLICY
    moment = now if now is not None else datetime.now(UTC)
    page_norm = normalize(url, policy=qp)
    page_url = page_norm or url
    content_type = next(iter(_header_values(headers, "content-type")), None)
    segments, encoding = _parse_input(body, content_type)
    found = _Found()
    texts: list[bytes] = []
    for segment in segments:
        parser = LexborHTMLParser(segment)
        _collect(parser, found)
        # Last: it strips the code elements from the tree.
        texts.append(visible_utf8(parser, found.code))
        found.code.clear()
        del parser  # one segment's tree at a time
    title, h1, base_href = found.title, found.h1, found.base_href
    html_canonicals, alternates, meta_robots = found.canonicals, found.alternates, found.meta_robots
    meta_refresh_raw, lastmod_meta, jsonld = found.meta_refresh, found.lastmod_meta, found.jsonld
    raw_links, raw_images = found.links, found.images

    # The document base: <base href> resolved against the URL (only http(s) counts).
    def res(href: str, base: str | None) -> str | None:
        # The base is normal (or absent), so links are joined without re-checking it.
        return resolve(href, base, policy=qp) if base else normalize(href, policy=qp)

    base_url = res(base_href, page_norm) if base_href else None
    # ``res(href, base_url or page_norm)``, remembering the site's links across pages.
    resolve_href = link_resolver(qp).for_base(base_url or page_norm)
    if not encoding.startswith("utf"):  # WHATWG: the query in the page's encoding
        resolve_href = _in_encoding(resolve_href, encoding)

    # Links: resolved, normalised, deduplicated (nofollow only if every copy is).
    links: dict[str, Link] = {}
    refresh_url = resolve_href(meta_refresh_raw) if meta_refresh_raw else None
    if refresh_url is None:
        for value in _header_values(headers, "refresh"):
            target = _refresh_target(value)
            if target:
                refresh_url = res(target, page_norm)
                break
    if refresh_url == page_url:
        refresh_url = None  # a page that reloads itself is not a redirect
    if refresh_url is not None:
        links[refresh_url] = Link(refresh_url, False, "meta-refresh")
    dropped = _add_links(links, raw_links, resolve_href)

    # Canonical: the header's wins; several different <link rel=canonical> cancel out.
    canonical: str | None = None
    canonical_source: str | None = None
    link_headers = _header_values(headers, "link")
    for value in link_headers:
        for target, params in parse_link_header(value):
            rels = _rel_tokens(params.get("rel"))
            if "canonical" in rels and canonical is None:
                canonical = res(target, page_norm)
                canonical_source = "http-link" if canonical else None
            elif "alternate" in rels and params.get("hreflang"):
                href_abs = res(target, page_norm)
                if href_abs:
                    lang = params["hreflang"].strip()
                    alternates.setdefault((lang.lower(), href_abs), Alternate(lang, href_abs))
    if canonical is None and html_canonicals:
        resolved = {resolve_href(h) for h in html_canonicals}
        resolved.discard(None)
        if len(resolved) == 1:
            canonical = resolved.pop()
            canonical_source = "link-rel"

    alts: list[Alternate] = []
    seen_alts: set[tuple[str, str]] = set()
    for alt in alternates.values():
        href_abs = resolve_href(alt.href)
        if href_abs is None:
            continue
        key = (alt.hreflang.lower(), href_abs)
        if key not in seen_alts:
            seen_alts.add(key)
            alts.append(Alternate(alt.hreflang, href_abs))

    # Robots: page meta and X-Robots-Tag headers both count.
    m_noindex, m_nofollow = robots_directives(meta_robots, header=False)
    h_noindex, h_nofollow = robots_directives(_header_values(headers, "x-robots-tag"), header=True)

    # lastmod: the page's own metadata first, the header last, never the crawl time.
    lastmod: str | None = None
    lastmod_source: str | None = None
    for source in ("article:modified_time", "og:updated_time", "itemprop:dateModified"):
        lastmod = _w3c(lastmod_meta.get(source), moment)
        if lastmod is not None:
            lastmod_source = source
            break
    if lastmod is None:
        for block in jsonld:
            lastmod = _w3c(_json_ld_modified(block), moment)
            if lastmod is not None:
                lastmod_source = "json-ld"
                break
    if lastmod is None:
        served = next(iter(_header_values(headers, "date")), None)
        for value in _header_values(headers, "last-modified"):
            lastmod = _http_date(value, moment, served)
            if lastmod is not None:
                lastmod_source = "last-modified"
                break

    images: dict[str, None] = {}
    for src in raw_images:
        absolute = resolve_href(src)
        if absolute is not None:
            images[absolute] = None
            if len(images) >= MAX_IMAGES_PER_URL:
                break

    noindex = m_noindex or h_noindex
    nofollow = m_nofollow or h_nofollow
    fingerprint = content_fingerprint(
        text=b" ".join(t for t in texts if t),
        title=title,
        canonical=canonical,
        noindex=noindex,
        nofollow=nofollow,
        links=links.values(),
        jsonld=jsonld,
    )
    return PageFacts(
        url=page_url,
        title=title,
        h1=h1,
        base_url=base_url,
        links=tuple(links.values()),
        links_dropped=dropped,
        canonical=canonical,
        canonical_source=canonical_source,
        alternates=tuple(alts),
        noindex=noindex,
        nofollow=nofollow,
        meta_refresh=refresh_url,
        lastmod=lastmod,
        lastmod_source=lastmod_source,
        images=tuple(images),
        encoding=encoding,
        fingerprint=fingerprint,
    )
