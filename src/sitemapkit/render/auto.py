"""``--render auto``: render where rendering finds something, and learn where that is.

Two signals, after crawlee's adaptive crawler, which renders a sample and
compares:

- **The page looks like an application shell.**  Its raw HTML has an empty
  mount point (``<div id="root"></div>``, ``<app-root>``, ``#__next`` ...) or
  scripts with almost no links and almost no text.  Such a page is always
  rendered: its raw HTML cannot be trusted to hold its links.
- **The section has shown it needs rendering.**  A section is the host and the
  first path segment (``/shop/``, ``/app/``).  The first :data:`SAMPLE` pages
  of a section are rendered; as soon as one of them shows a link its raw HTML
  lacked, every page of that section is rendered.  When all of the sample
  showed nothing new, the section is left to plain HTTP (shells excepted).
  Pages of a section that arrive while its sample is still rendering wait for
  the verdict instead of being rendered blindly: a crawl hands a section's
  pages to many workers at once, and without the wait every one of them would
  be "still sampling".

The cost is bounded by (sections x sample) renders on a server-rendered site;
a section's verdict is kept as data (:meth:`SectionSampler.verdicts`) so the
crawl can say why a page was or was not rendered.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser

from sitemapkit.crawl.extract import PageFacts, decode_body

__all__ = ["MOUNT_IDS", "SAMPLE", "SectionSampler", "looks_like_app_shell", "section_of"]

#: Pages rendered in each section before deciding it does not need rendering.
SAMPLE: Final = 3
#: ``id`` values frameworks mount their application on.
MOUNT_IDS: Final = frozenset(
    {"root", "app", "__next", "__nuxt", "___gatsby", "svelte", "q-app", "main-app", "application"}
)
#: A page with fewer followable links and less text than this, and a script, is a shell.
SHELL_MAX_LINKS: Final = 2
SHELL_MAX_TEXT: Final = 200
_WS: Final = re.compile(r"\s+")


def _empty(node: Any) -> bool:
    """No element inside and no text but white space: nothing was rendered on the server."""
    return next(node.iter(include_text=False), None) is None and not (node.text() or "").strip()


def looks_like_app_shell(body: bytes, facts: PageFacts, content_type: str | None = None) -> bool:
    """True when the raw HTML is the frame of a client-side application, not the page."""
    text, _encoding = decode_body(body, content_type)
    tree = LexborHTMLParser(text)
    for node in tree.css("[id], app-root, [ng-app], [data-reactroot]"):
        attrs = node.attributes
        mount = (
            (attrs.get("id") or "").strip().lower() in MOUNT_IDS
            or node.tag == "app-root"
            or "ng-app" in attrs
            or "data-reactroot" in attrs
        )
        if mount and _empty(node):
            return True
    if not tree.css_first("script"):
        return False
    followable = sum(1 for _ in facts.follow_links())
    if followable > SHELL_MAX_LINKS:
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
