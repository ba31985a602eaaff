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
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit

from sitemapkit.crawl.scripted import MOUNT_IDS, RawSignals, looks_like_app_shell, raw_signals

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
