"""One page, from the body the crawler already fetched to its rendered DOM.

- **No second download.**  The crawler has the page's body; the browser is
  handed it (``route.fulfill``) instead of asking the server again, so a
  rendered page costs the server only the scripts and data it loads.
- **Nothing leaves the page.**  Dialogs are dismissed, popups closed,
  downloads refused, and a script that navigates the page away is answered
  ``204 No Content`` (stay here); its target is kept, as a link the page
  makes.  Sub-frames are not loaded: their sources are already links of
  kind ``frame`` in the raw HTML.
- **Bounded.**  The whole render is cut at ``timeout`` seconds and reported
  as ``render-timeout``; what the DOM held by then is kept when the page can
  still be read (an endless script may leave it unreadable: then nothing is).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from sitemapkit.render.blocking import RequestRules
from sitemapkit.render.browser import BrowserPool, playwright_error
from sitemapkit.render.settle import settle

if TYPE_CHECKING:
    from playwright.async_api import Dialog, Page, Route

__all__ = [
    "GRACE",
    "THUMB_QUALITY",
    "THUMB_SCALE",
    "THUMB_TYPE",
    "VIEWPORT",
    "PageShot",
    "context_options",
    "render_page",
]

#: The first screen a thumbnail shows, in CSS pixels.
VIEWPORT: Final = {"width": 1280, "height": 800}
#: Device pixels per CSS pixel for thumbnails: 1280x800 becomes a 256x160 picture.
THUMB_SCALE: Final = 0.2
#: JPEG quality of a thumbnail (about 6-12 KB for a typical first screen).
THUMB_QUALITY: Final = 60
#: The media type of a thumbnail (what the map's data URL says).
THUMB_TYPE: Final = "image/jpeg"
#: Seconds allowed, after a timeout, to read what the DOM holds.
GRACE: Final = 1.0
# Response headers the browser must not see again: the body is already decoded.
_DROP_HEADERS: Final = frozenset(
    {"content-encoding", "content-length", "transfer-encoding", "connection", "keep-alive"}
)


@dataclass(slots=True)
class PageShot:
    """What rendering one page gave.

    ``status`` is ``rendered``, ``render-timeout`` (cut at the timeout; ``html``
    is what the DOM held then, if it could still be read) or ``render-failed``
    (``detail`` says why).  ``blocked`` counts refused requests by reason;
    ``navigations`` are the URLs scripts tried to send the page to.
    """

    status: str
    html: str | None = None
    detail: str | None = None
    blocked: Counter[str] = field(default_factory=Counter)
    dialogs: int = 0
    popups: int = 0
    navigations: list[str] = field(default_factory=list)
    thumbnail: bytes | None = None


def _fulfil_headers(headers: Mapping[str, str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in headers.items():
        low = key.lower()
        if low not in _DROP_HEADERS:
            out[low] = f"{out[low]}, {value}" if low in out else value
    out.setdefault("content-type", "text/html")
    return out


class _Session:
    """The handlers of one page: routing, dialogs, popups."""

    def __init__(self, url: str, body: bytes, headers: Mapping[str, str], rules: RequestRules):
        self.url = url
        self.body = body
        self.headers = _fulfil_headers(headers)
        self.rules = rules
        self.shot = PageShot(status="rendered")
        self.page: Page | None = None
        self._served = False

    async def route(self, route: Route) -> None:
        request = route.request
        with contextlib.suppress(Exception):  # the page may be gone already
            if request.is_navigation_request():
                frame = request.frame
                main = frame.parent_frame is None and frame.page is self.page
                await self._navigation(route, main)
                return
            reason = await self.rules.refuse(request.url, request.resource_type)
            if reason is None:
                await route.continue_()
            else:
                self.shot.blocked[reason] += 1
                await route.abort("blockedbyclient")

    async def _navigation(self, route: Route, main: bool) -> None:
        if main and not self._served:
            self._served = True
            await route.fulfill(status=200, headers=self.headers, body=self.body)
            return
        if main:
            # "204 No Content" to a navigation means "stay where you are": the document
            # and its DOM survive (an aborted navigation would commit an error page).
            self.shot.navigations.append(route.request.url)
            await route.fulfill(status=204, body=b"")
            return
        self.shot.blocked["frame"] += 1  # a sub-frame, or a popup's page
        await route.abort("blockedbyclient")

    async def dialog(self, dialog: Dialog) -> None:
        self.shot.dialogs += 1
        with contextlib.suppress(Exception):
            await dialog.dismiss()

    async def popup(self, popup: Page) -> None:
        if popup is self.page:
            return
        self.shot.popups += 1
        with contextlib.suppress(Exception):
            await popup.close()


async def _snapshot(page: Page, shot: PageShot, thumbnail: bool) -> None:
    shot.html = await page.content()
    if thumbnail:
        shot.thumbnail = await page.screenshot(type="jpeg", quality=THUMB_QUALITY)


def context_options(thumbnails: bool) -> dict[str, Any]:
    """The options of every tab: a first screen, thumbnail-sized when thumbnails are taken."""
    return {"viewport": VIEWPORT, "device_scale_factor": THUMB_SCALE if thumbnails else 1}


async def render_page(
    pool: BrowserPool,
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    rules: RequestRules,
    *,
    timeout: float,
    thumbnail: bool = False,
) -> PageShot:
    """Render ``url`` (whose fetched ``body`` and ``headers`` are given) in one pool tab."""
    session = _Session(url, body, headers, rules)
    shot = session.shot
    try:
        async with pool.tab() as tab:
            page = session.page = tab.page
            tab.tracker.reset()
            tab.job = session
            try:
                async with asyncio.timeout(timeout):
                    await page.goto(url, wait_until="load", timeout=(timeout + GRACE) * 1000)
                    await settle(page, tab.tracker)
                    await _snapshot(page, shot, thumbnail)
            except TimeoutError:
                tab.broken = True  # its renderer may be stuck in a script: not reused
                shot.status = "render-timeout"
                shot.detail = f"not settled after {timeout:g} s"
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(GRACE):
                        await _snapshot(page, shot, thumbnail)
            except BaseException:
                tab.broken = True
                raise
    except (playwright_error(), TimeoutError) as exc:  # a crashed browser: this page fails
        if shot.status == "rendered":
            shot.status = "render-failed"
            shot.detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    return shot
