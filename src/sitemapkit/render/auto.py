"""``--render auto``: render where rendering finds something, and learn where that is.

``auto`` is the crawl's default, so a server-rendered site must not pay for it: a
page is looked at with two cheap tests on its raw bytes, and no browser starts
unless one of them fires.  After crawlee's adaptive crawler, which renders a
sample and compares, but without rendering pages nothing points at:

- **The page looks like an application shell.**  It runs scripts (a
  ``<script>`` that is code, not JSON-LD or a template) and its raw HTML has
  an empty mount point (``<div id="root"></div>``, ``<app-root>``, ``#__next``
  ...) or almost no links and almost no text.  Such a page is always rendered:
  its raw HTML cannot be trusted to hold its links.  A page whose raw HTML
  names another page as canonical, or refreshes to one, is not a shell: it is
  a stand-in for a page the crawl reads anyway (javadoc's script redirects).
- **Its inline scripts write markup** (``innerHTML``, ``appendChild``,
  ``document.write``, jQuery's ``.html(``/``.append(`` ...) and **its section has
  shown that this matters.**  A section is the host and the first path segment
  (``/shop/``, ``/app/``).  The first :data:`SAMPLE` such pages of a section are
  rendered; as soon as one of them shows a link its raw HTML lacked, every such
  page of that section is rendered.  When all of the sample showed nothing new,
  the section is left to plain HTTP (shells excepted).  Pages of a section
  that arrive while its sample is still rendering wait for the verdict instead
  of being rendered blindly.  Pages whose scripts write nothing (an analytics
  snippet, javadoc's ``loadScripts``) are never sampled: which pages are
  rendered does not depend on the order pages arrive in.

What ``auto`` cannot see: links built by a *script file* on a page that is not a
shell (a menu from ``/static/nav.js``); ``--render always`` renders those.
The cost is bounded by (sections x sample) renders on a site whose scripts write
markup; a section's verdict is kept as data (:meth:`SectionSampler.verdicts`) so
the crawl can say why a page was or was not rendered.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser

from sitemapkit.crawl.extract import PageFacts, decode_body

__all__ = [
    "MOUNT_IDS",
    "SAMPLE",
    "RawSignals",
    "SectionSampler",
    "looks_like_app_shell",
    "raw_signals",
    "section_of",
]

#: Pages rendered in each section before deciding it does not need rendering.
SAMPLE: Final = 3
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


def section_of(url: str) -> str:
    """``host/first-segment/`` of ``url`` (the home page and root files: ``host/``)."""
    parts = urlsplit(url)
    path = parts.path.lstrip("/")
    first, slash, _rest = path.partition("/")
    return f"{parts.netloc}/{first}/" if slash else f"{parts.netloc}/"


@dataclass(slots=True)
class _Section:
    asked: int = 0
    empty: int = 0
    verdict: bool | None = None
    #: Set when a sample comes back (a verdict, or room for another sample).
    changed: asyncio.Event = field(default_factory=asyncio.Event)


class SectionSampler:
    """Per-section memory of whether rendering found links the raw HTML lacked."""

    def __init__(self, sample: int = SAMPLE) -> None:
        if sample < 1:
            raise ValueError("sample must be at least 1")
        self.sample = sample
        self._sections: dict[str, _Section] = {}

    async def wants(self, url: str) -> str | None:
        """Why ``url`` should be rendered (``section-sample``, ``section-needs-js``) or None.

        Waits while the section's sample is out; every ``section-sample`` answer
        must be followed by :meth:`learn` or :meth:`forget` for that URL.
        """
        section = self._sections.setdefault(section_of(url), _Section())
        while section.verdict is None:
            if section.asked < self.sample:
                section.asked += 1
                return "section-sample"
            section.changed.clear()
            await section.changed.wait()
        return "section-needs-js" if section.verdict else None

    def learn(self, url: str, found_new: bool) -> None:
        """Record what rendering ``url`` showed: links its raw HTML lacked, or none."""
        section = self._sections.setdefault(section_of(url), _Section())
        if found_new:
            section.verdict = True
        elif section.verdict is None:
            section.empty += 1
            if section.empty >= self.sample:
                section.verdict = False
        section.changed.set()

    def forget(self, url: str) -> None:
        """A sample of ``url``'s section did not come back: let another page take its place."""
        section = self._sections.setdefault(section_of(url), _Section())
        section.asked = max(0, section.asked - 1)
        section.changed.set()

    def verdicts(self) -> dict[str, bool | None]:
        """Each section seen and its verdict (``None``: still sampling)."""
        return {name: s.verdict for name, s in self._sections.items()}
