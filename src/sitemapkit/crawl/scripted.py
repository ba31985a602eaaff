"""Does a fetched page look built by scripts?  The crawl's cheap test before any browser.

``--render auto`` is the crawl's default, so every HTML page passes here, and a
server-rendered site must pay nothing more: two tests on the raw bytes (see
:mod:`sitemapkit.render.auto` for what ``auto`` does with them).  This module is
part of ``crawl/`` so that a crawl whose pages all say no never imports
:mod:`sitemapkit.render` (nor Playwright).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from selectolax.lexbor import LexborHTMLParser

from sitemapkit.crawl.extract import PageFacts, decode_body

__all__ = [
    "MOUNT_IDS",
    "RawSignals",
    "looks_like_app_shell",
    "looks_scripted",
    "raw_signals",
]

#: ``id`` values frameworks mount their application on.
MOUNT_IDS: Final = frozenset(
    {"root", "app", "__next", "__nuxt", "___gatsby", "svelte", "q-app", "main-app", "application"}
)
#: A page with fewer followable links and less text than this, and a script, is a shell.
SHELL_MAX_LINKS: Final = 2
SHELL_MAX_TEXT: Final = 200
#: ``<script type=...>`` values that are code (no type at all is code too); JSON-LD,
#: ``application/json`` and templates are data a browser does not run.
SCRIPT_TYPES: Final = frozenset(
    {
        "text/javascript",
        "application/javascript",
        "application/x-javascript",
        "text/ecmascript",
        "application/ecmascript",
        "module",
    }
)
_WS: Final = re.compile(r"\s+")
_SCRIPT: Final = re.compile(rb"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
_TYPE: Final = re.compile(rb"""\btype\s*=\s*["']?\s*([^"'\s>;]*)""", re.IGNORECASE)
_SRC: Final = re.compile(rb"\bsrc\s*=", re.IGNORECASE)
#: DOM calls that put elements (and so, possibly, links) into the page.
_WRITES_MARKUP: Final = re.compile(
    rb"innerHTML|outerHTML|insertAdjacentHTML|document\.write|appendChild|insertBefore"
    rb"|replaceChildren|\.append\(|\.prepend\(|\.html\(|\.after\(|\.before\("
)
#: Where a mount point may be, on a page with links (a page with few is parsed anyway).
#: Case-sensitive, with the literal prefix ``id=`` (frameworks write it in lower case):
#: an ``IGNORECASE`` alternation took 11 ms on a 229 KB javadoc page, more than its parse.
#: Angular's ``<app-root>`` is found by the parse of a page with few links, where its
#: shells are; ``ng-app`` and ``data-reactroot`` are not mount points to look for
#: (AngularJS puts the first on ``<html>``, React 15 wrote the second on filled roots).
_MOUNT_ID: Final = re.compile(
    rb"id=[\"']?(?:" + b"|".join(re.escape(m.encode()) for m in sorted(MOUNT_IDS)) + rb")[\"'\s/>]"
)


@dataclass(frozen=True, slots=True)
class RawSignals:
    """What a page's raw bytes say about its scripts (:func:`raw_signals`)."""

    #: It has a ``<script>`` a browser runs (inline or ``src``).
    scripts: bool = False
    #: One of its inline scripts writes markup into the page.
    writes_markup: bool = False


def raw_signals(body: bytes) -> RawSignals:
    """The page's scripts, read from its bytes with one regular expression, no parse.

    Every page of an ``auto`` crawl passes here, so it must cost next to nothing
    next to the extractor's parse: about 50 us for a javadoc page (1 ms to parse).
    """
    scripts = False
    for match in _SCRIPT.finditer(body):
        attrs = match.group(1)
        if not _is_code(attrs):
            continue  # JSON-LD, a template: data, not code
        scripts = True
        if _SRC.search(attrs) is None and _WRITES_MARKUP.search(match.group(2)):
            return RawSignals(scripts=True, writes_markup=True)
    return RawSignals(scripts=scripts)


def _is_code(attrs: bytes) -> bool:
    """A ``<script>`` with these attributes runs (no ``type``, or a JavaScript one)."""
    kind = _TYPE.search(attrs)
    if kind is None or not kind.group(1):
        return True
    return kind.group(1).decode("latin-1").lower() in SCRIPT_TYPES


def _empty(node: Any) -> bool:
    """No element inside and no text but white space: nothing was rendered on the server."""
    return next(node.iter(include_text=False), None) is None and not (node.text() or "").strip()


def _stands_in(facts: PageFacts) -> bool:
    """The raw HTML hands the page over to another URL (canonical elsewhere, a refresh)."""
    return facts.meta_refresh is not None or (
        facts.canonical is not None and facts.canonical != facts.url
    )


def looks_like_app_shell(
    body: bytes,
    facts: PageFacts,
    content_type: str | None = None,
    signals: RawSignals | None = None,
) -> bool:
    """True when the raw HTML is the frame of a client-side application, not the page.

    Ordered cheapest first: most pages are settled by their scripts, their link
    count and one regular expression, and only a possible shell is parsed again.
    """
    signals = signals if signals is not None else raw_signals(body)
    if not signals.scripts or _stands_in(facts):
        return False
    few_links = sum(1 for _ in facts.follow_links()) <= SHELL_MAX_LINKS
    mount_hint = few_links or _MOUNT_ID.search(body) is not None
    if not mount_hint:
        return False
    text, _encoding = decode_body(body, content_type)
    tree = LexborHTMLParser(text)
    if mount_hint:
        for node in tree.css("[id], app-root"):
            mount = node.tag == "app-root" or (
                (node.attributes.get("id") or "").strip().lower() in MOUNT_IDS
            )
            if mount and _empty(node):
                return True
    if not few_links:
        return False
    body_node = tree.body
    if body_node is None:
        return True
    for junk in body_node.css("script, style, noscript, template"):
        junk.decompose()
    visible = _WS.sub(" ", body_node.text(deep=True) or "").strip()
    return len(visible) < SHELL_MAX_TEXT


def looks_scripted(body: bytes, facts: PageFacts, content_type: str | None = None) -> bool:
    """Whether ``auto`` would consider rendering this page (a shell, or scripts writing
    markup); a raw ``noindex`` page never is."""
    if facts.noindex:
        return False
    signals = raw_signals(body)
    return signals.writes_markup or looks_like_app_shell(body, facts, content_type, signals)
