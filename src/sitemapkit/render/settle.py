"""When is a rendered page done?  When its network and its DOM have both gone quiet.

Playwright's ``networkidle`` waits a fixed 500 ms after the last request, on
every page; most application shells are finished well before that.  Here the
page is done when it has loaded, no request it made is still open, and the DOM
has not changed for :data:`QUIET_MS` -- measured in the page by a
``MutationObserver``, so a page that is still building its navigation keeps
itself awake and a page that is finished is let go at once.  A page that never
gets there (an endless script, endless polling) is cut by the caller's timeout.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from playwright.async_api import Page, Request

__all__ = ["QUIET_MS", "NetworkTracker", "settle"]

#: Milliseconds without a DOM change (and without a request) that count as "settled".
QUIET_MS: Final = 80

# Resolves once the document has gone ``q`` ms without a mutation.
_DOM_QUIET_JS: Final = """(q) => new Promise((resolve) => {
  let timer = 0;
  const done = () => { observer.disconnect(); resolve(true); };
  const observer = new MutationObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(done, q);
  });
  observer.observe(document, {
    subtree: true, childList: true, attributes: true, characterData: true,
  });
  timer = setTimeout(done, q);
})"""


class NetworkTracker:
    """Counts a page's open requests from Playwright's events."""

    def __init__(self, page: Page) -> None:
        self._open: set[int] = set()
        self._last = time.monotonic()
        self.idle = asyncio.Event()
        self.idle.set()
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def reset(self) -> None:
        """Forget the requests of the page before (a reused tab starts a new page)."""
        self._open.clear()
        self._last = time.monotonic()
        self.idle.set()

    def _started(self, request: Request) -> None:
        self._open.add(id(request))
        self._last = time.monotonic()
        self.idle.clear()

    def _ended(self, request: Request) -> None:
        self._open.discard(id(request))
        self._last = time.monotonic()
        if not self._open:
            self.idle.set()

    def quiet_for(self) -> float:
        """Seconds since the last request started or ended (0 while one is open)."""
        return 0.0 if self._open else time.monotonic() - self._last


async def settle(page: Page, tracker: NetworkTracker, *, quiet_ms: int = QUIET_MS) -> None:
    """Return once the network and the DOM of ``page`` are quiet (the caller bounds the wait)."""
    quiet = quiet_ms / 1000
    while True:
        await tracker.idle.wait()
        result: Any = await page.evaluate(_DOM_QUIET_JS, quiet_ms)
        if result and tracker.idle.is_set() and tracker.quiet_for() >= quiet:
            return
        if tracker.idle.is_set():
            await asyncio.sleep(max(0.0, quiet - tracker.quiet_for()))
