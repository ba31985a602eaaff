"""The content fingerprint: a hash of what makes a page significant, and only that.

A re-crawl must tell a page whose content changed from one whose bytes changed
for nothing: a CSRF token, a nonce, a new asset hash after a build, a footer
saying when the page was generated.  Hashing the body would move ``lastmod`` on
every rebuild, which is what makes search engines stop trusting it.  So the
fingerprint hashes exactly these, each normalised:

* the **visible text** of the body (whitespace collapsed), without ``script``,
  ``style``, ``noscript``, ``template`` and ``svg`` elements: scripts and styles are
  code, not content, and carry nonces, inline state and bundle names;
* the **title**, the **canonical** URL and the **robots directives** (noindex,
  nofollow): a change of any of them changes what a search engine does with the page;
* the **links** the page makes (URL, kind, nofollow), with session-id parameters
  (``jsessionid``, ``phpsessid``, ``sid``, ``sessionid`` ...) removed: a session id
  differs per visitor, the link target does not;
* the **structured data** (JSON-LD), parsed and written back with sorted keys, without
  its ``dateModified``: the stated date is judged against the content, not part of it.

Left out, and why: attributes (nonces, CSRF tokens in hidden inputs or meta tags,
``integrity`` hashes), ``<link>``/``<script src>``/``<img src>`` asset URLs (cache-busting
names such as ``app.3f9a1c.js`` change on every build), and date-time stamps that follow
"generated", "rendered", "built", "cached" or "served" in the visible text (a page
rendered at a new moment is not new content).  A date in the text otherwise (an event's
date, "updated 2024-05-01" in an article) is content and counts.
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from sitemapkit.limits import MAX_JSONLD_BYTES

#: Elements whose text is code, not content.
NON_CONTENT_TAGS = ("script", "style", "noscript", "template", "svg")
#: Query or matrix parameters that carry a visitor's session, not a page (lower case).
SESSION_PARAMS = frozenset(
    {"jsessionid", "phpsessid", "sid", "sessionid", "session_id", "sessid", "aspsessionid", "cfid"}
)
_STAMP = re.compile(
    r"\b(?:generated|rendered|built|cached|served|compiled)(?:\s+(?:at|on|in))?\s*:?\s*"
    r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|\b(?:generated|rendered|built|cached|served|compiled)(?:\s+(?:at|on|in))?\s*:?\s*"
    r"\d{1,2}:\d{2}(?::\d{2})?",
    re.IGNORECASE,
)
#: The words a stamp starts with, lower case: a text holding none of them has no stamp.
_STAMP_WORDS = (b"generated", b"rendered", b"built", b"cached", b"served", b"compiled")
#: Characters ``re.IGNORECASE`` matches to an ASCII letter of those words that ``str.lower``
#: does not turn into that letter (checked over every code point by a test).
_FOLD_ODD = ("\u0130", "\u0131", "\u017f")
_FOLD_ODD_UTF8 = tuple(odd.encode() for odd in _FOLD_ODD)
#: How the fingerprint (and so the visible text) is encoded.
_UTF8 = ("utf-8", "surrogatepass")
#: Bytes of ASCII word characters (lower case): a stamp word right after one has no ``\b``.
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")
#: What may follow a stamp word in a stamp, in lower-cased UTF-8: ``_STAMP``'s tail with
#: every non-ASCII byte taken for a possible Unicode space or digit (so it matches more).
_ANY_SPACE = rb"[\s\x1c-\x1f\x80-\xff]*"
_STAMP_TAIL = re.compile(
    _ANY_SPACE + rb"(?:(?:at|on|in)" + _ANY_SPACE + rb")?:?" + _ANY_SPACE + rb"[0-9\x80-\xff]"
)
_SPACE = re.compile(r"\s+")
_MATRIX_SESSION = re.compile(r";(?:jsessionid|sid|phpsessid)=[^?#/]*", re.IGNORECASE)
#: JSON-LD keys that state a date about the page rather than its content.
_DATE_KEYS = frozenset({"dateModified"})
#: A part's length as the fingerprint writes it before the part.
_LENGTH = struct.Struct(">Q").pack


def visible_text(parser: LexborHTMLParser, code: Sequence[LexborNode] | None = None) -> str:
    """The body's visible text, whitespace collapsed (``parser`` loses its code elements)."""
    return visible_utf8(parser, code).decode("utf-8", "surrogatepass")


def visible_utf8(parser: LexborHTMLParser, code: Sequence[LexborNode] | None = None) -> bytes:
    """:func:`visible_text` in UTF-8, as the fingerprint hashes it.

    ``code``: every element of :data:`NON_CONTENT_TAGS` in the tree, when the caller's own
    walk found them (the extractor's selector pass does): they are taken out one by one
    instead of one more walk of the tree per tag.

    Why it reads the way it does: the text is first read without the text nodes that are
    only ASCII white space (a javadoc page's indentation: 7% of its text), which changes
    nothing once it is collapsed.  Stamps are looked for in the collapsed text's UTF-8
    (which the fingerprint needs anyway); only a text that may hold one is read again
    whole and its stamps dropped first, because a stamp's ``[T ]`` takes exactly one space.
    """
    if code is None:
        parser.strip_tags(list(NON_CONTENT_TAGS))
    else:
        for node in code:
            node.decompose(recursive=False)  # what strip_tags does to each
    root = parser.body if parser.body is not None else parser.root
    if root is None:
        return b""
    # str.split() splits on what ``\s`` matches: the same as ``_SPACE.sub(" ", t).strip()``.
    data = " ".join(root.text(separator=" ", skip_empty=True).split()).encode(*_UTF8)
    if may_hold_stamp(data):
        data = " ".join(drop_stamps(root.text(separator=" ")).split()).encode(*_UTF8)
    return data


def may_hold_stamp(data: bytes) -> bool:
    """False when a text certainly holds no generation stamp (:data:`_STAMP`).

    ``data`` is the text in UTF-8, whitespace collapsed or not (a stamp keeps matching when
    its spaces are collapsed).  Most pages hold a stamp word ("All rights reserved",
    "built-in", "generated columns") and no stamp, so a word only counts with no ASCII
    letter, digit or ``_`` right before it (``\\b``) and, after it, what a stamp goes on
    with (spaces, "at", ":", a digit), any non-ASCII character taken for a possible Unicode
    space or digit.  Read lower-cased: only ASCII letters change and no byte of a
    non-ASCII character is ASCII; the characters that case-fold oddly answer True.
    """
    if (b"\xc4" in data or b"\xc5" in data) and any(odd in data for odd in _FOLD_ODD_UTF8):
        return True
    folded = data.lower()
    for word in _STAMP_WORDS:
        at = folded.find(word)
        while at >= 0:
            end = at + len(word)
            if (at == 0 or folded[at - 1] not in _WORD_BYTES) and _STAMP_TAIL.match(folded, end):
                return True
            at = folded.find(word, end)
    return False


def drop_stamps(text: str) -> str:
    """``text`` with each generation stamp replaced by a space (``_STAMP.sub(" ", text)``).

    Why not just that: the case-blind alternation is tried at every character and was
    a third of a whole crawl's CPU.  The stamp words are found with ``bytes.find`` in the
    text's ASCII bytes, lower-cased (a word of ASCII letters can only match ASCII letters,
    save the three odd case folds), and the pattern is only tried where a word starts; a
    text with a character that case-folds oddly takes the plain substitution.
    """
    if any(odd in text for odd in _FOLD_ODD):
        return _STAMP.sub(" ", text)
    # One byte per character (non-ASCII ones become "?"), ASCII letters lower-cased: the
    # same positions as ``text``, at a fraction of ``str.lower()``'s cost on non-Latin-1 text.
    folded = text.encode("ascii", "replace").lower()
    starts: list[int] = []
    for word in _STAMP_WORDS:
        at = folded.find(word)
        while at >= 0:
            starts.append(at)
            at = folded.find(word, at + 1)
    if not starts:
        return text
    parts: list[str] = []
    done = 0
    for at in sorted(starts):
        if at < done:
            continue
        hit = _STAMP.match(text, at)  # ``\b`` still sees the character before ``at``
        if hit is not None:
            parts += (text[done:at], " ")
            done = hit.end()
    if not parts:
        return text
    parts.append(text[done:])
    return "".join(parts)


def without_session(url: str) -> str:
    """``url`` without session-id parameters (query or ``;jsessionid=`` matrix form)."""
    url = _MATRIX_SESSION.sub("", url)
    head, sep, query = url.partition("?")
    if not sep:
        return url
    query, hash_sep, fragment = query.partition("#")
    kept = [p for p in query.split("&") if p.split("=", 1)[0].lower() not in SESSION_PARAMS]
    out = head + ("?" + "&".join(kept) if kept else "")
    return out + (hash_sep + fragment if hash_sep else "")


def _drop_dates(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_dates(v) for k, v in value.items() if k not in _DATE_KEYS}
    if isinstance(value, list):
        return [_drop_dates(v) for v in value]
    return value


def structured_data(blocks: Iterable[str]) -> list[str]:
    """Each JSON-LD block in one canonical spelling (a broken block: its text, trimmed)."""
    out: list[str] = []
    for block in blocks:
        spelled = _SPACE.sub(" ", block).strip()
        if len(block) > MAX_JSONLD_BYTES:  # hostile size: hashed as text, never parsed
            out.append(spelled)
            continue
        try:
            out.append(json.dumps(_drop_dates(json.loads(block)), sort_keys=True))
        except (ValueError, RecursionError):  # broken, or nested deeper than Python recurses
            out.append(spelled)
    return out


def content_fingerprint(
    *,
    text: str | bytes,
    title: str | None,
    canonical: str | None,
    noindex: bool,
    nofollow: bool,
    links: Iterable[tuple[str, bool, str]],
    jsonld: Iterable[str],
) -> str:
    """The hex fingerprint of a page's significant parts (see the module docstring).

    ``links`` are ``(url, nofollow, kind)`` in page order (the page's
    :class:`~sitemapkit.crawl.extract.Link` values); ``text`` may come as its UTF-8.
    """
    # Each part is its UTF-8 length (8 bytes, big-endian) and its bytes, hashed as one
    # string: the same digest as one update per piece, with a Python call less per link.
    chunks: list[bytes] = []

    def part(value: str) -> None:
        data = value.encode("utf-8", "surrogatepass")
        chunks.extend((_LENGTH(len(data)), data))

    part(title or "")
    part(canonical or "")
    part(f"noindex={noindex:d} nofollow={nofollow:d}")
    if isinstance(text, str):
        part(text)
    else:
        chunks.extend((_LENGTH(len(text)), text))
    prefixes: dict[str, tuple[str, str]] = {}
    pieces: list[bytes] = []
    for url, link_nofollow, kind in links:
        if ";" in url or "?" in url:  # else there is no session id to take out
            url = without_session(url)
        prefix = prefixes.get(kind)
        if prefix is None:
            prefix = prefixes[kind] = (f"{kind} 0 ", f"{kind} 1 ")
        pieces.append((prefix[link_nofollow] + url).encode("utf-8", "surrogatepass"))
    # Each piece after its length, interleaved in C.
    chunks.extend(chain.from_iterable(zip(map(_LENGTH, map(len, pieces)), pieces, strict=True)))
    for block in structured_data(jsonld):
        part(block)
    return hashlib.blake2b(b"".join(chunks), digest_size=16).hexdigest()
