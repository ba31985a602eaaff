"""The browser: one Debian Chromium driven by Playwright, a few page slots, restarts.

Why it is built this way:

- **Optional.**  Playwright is the ``[render]`` extra; it is imported here, on
  first use, and a missing package or browser is one :class:`RenderUnavailableError`
  line naming the missing piece and how to get it.
- **Bounded memory.**  At most ``concurrency`` browser contexts exist at once
  (one per page being rendered, so cookies and storage never leak between
  pages), and the browser process is replaced after ``restart_every`` pages:
  Chromium's renderer and GPU processes grow over a long crawl, and a fresh
  process is the only reliable way to give that memory back.  A restart waits
  for the pages in flight; pages asking meanwhile wait for the new browser.
- **Self-healing.**  A browser that crashed or was killed is relaunched by the
  next page that asks for a slot; the page that was in it fails on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from sitemapkit.errors import SitemapkitError

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Playwright

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "RESTART_EVERY",
    "BrowserPool",
    "RenderUnavailableError",
    "check_available",
    "playwright_error",
]

#: Debian's Chromium (``scripts/system-deps.sh`` installs it); no bundled browser download.
CHROMIUM: Final = "/usr/bin/chromium"
#: Flags for a quiet headless browser in a container: no sandbox (we run as root in CI),
#: no GPU, no /dev/shm (small in containers), no background traffic of its own.
CHROMIUM_ARGS: Final = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-extensions",
    "--disable-sync",
    "--no-first-run",
    "--mute-audio",
)
#: Pages rendered by one browser process before it is replaced.
RESTART_EVERY: Final = 200
#: Seconds we wait for a context (or the browser) to close before giving up on it.
CLOSE_TIMEOUT: Final = 5.0


class RenderUnavailableError(SitemapkitError):
    """Rendering was asked for but a piece is missing (Playwright or Chromium)."""


def _async_playwright() -> Any:
    try:
        from playwright.async_api import async_playwright
    except ImportError as exc:
        raise RenderUnavailableError(
            "rendering needs the Playwright package, which is not installed: "
            "pip install 'sitemapkit[render]'"
        ) from exc
    return async_playwright


def playwright_error() -> type[Exception]:
    """Playwright's own error class (a closed page, a crashed browser), imported late."""
    from playwright.async_api import Error

    return Error


def check_available(executable: str = CHROMIUM) -> None:
    """Raise :class:`RenderUnavailableError` unless Playwright and the browser are both here."""
    _async_playwright()
    if not Path(executable).is_file():
        raise RenderUnavailableError(
            f"rendering needs Chromium at {executable}, which is missing: "
            "apt-get install chromium (or run `make system-deps`)"
        )


class BrowserPool:
    """One browser process handing out at most ``concurrency`` fresh contexts at a time."""

    def __init__(
        self,
        *,
        executable: str = CHROMIUM,
        concurrency: int = 2,
        restart_every: int = RESTART_EVERY,
    ) -> None:
        if concurrency < 1 or restart_every < 1:
            raise ValueError("concurrency and restart_every must be at least 1")
        self.executable = executable
        self.concurrency = concurrency
        self.restart_every = restart_every
        #: Browser processes started so far (the first one included).
        self.launches = 0
        #: Most contexts that were open at the same moment.
        self.peak_active = 0
        self._pw_manager: Any = None
        self._pw: Playwright | None = None
        self._browser: Browser | None = None
        self._cond = asyncio.Condition()
        self._active = 0
        self._served = 0
        self._restarting = False

    async def _launch(self) -> None:
        if self._pw is None:
            check_available(self.executable)
            self._pw_manager = _async_playwright()()
            self._pw = await self._pw_manager.start()
        assert self._pw is not None
        old, self._browser = self._browser, None
        if old is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await old.close()
        self._browser = await self._pw.chromium.launch(
            executable_path=self.executable, args=list(CHROMIUM_ARGS), headless=True
        )
        self.launches += 1
        self._served = 0

    def _needs_launch(self) -> bool:
        browser = self._browser
        return browser is None or not browser.is_connected() or self._served >= self.restart_every

    async def _enter(self) -> Browser:
        async with self._cond:
            await self._cond.wait_for(
                lambda: (
                    not self._restarting
                    and self._active < self.concurrency
                    and (self._active == 0 or not self._needs_launch())
                )
            )
            relaunch = self._needs_launch()
            self._restarting = relaunch
            self._active += 1
            self._served += 1
            self.peak_active = max(self.peak_active, self._active)
        if relaunch:
            try:
                await self._launch()
                self._served = 1
            finally:
                async with self._cond:
                    self._restarting = False
                    if self._browser is None:
                        self._active -= 1
                    self._cond.notify_all()
        assert self._browser is not None
        return self._browser

    async def _leave(self) -> None:
        async with self._cond:
            self._active -= 1
            self._cond.notify_all()

    @asynccontextmanager
    async def context(self, **options: Any) -> AsyncIterator[BrowserContext]:
        """A fresh browser context in one of the slots, closed (bounded) on the way out."""
        browser = await self._enter()
        try:
            ctx = await browser.new_context(**options)
        except BaseException:
            await self._leave()
            raise
        try:
            yield ctx
        finally:
            try:
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await ctx.close()
            except (playwright_error(), TimeoutError):
                # A context that will not close is a sick browser: replace it next time.
                self._served = self.restart_every
            finally:
                await self._leave()

    async def close(self) -> None:
        """Close the browser and Playwright; safe to call twice."""
        browser, self._browser = self._browser, None
        if browser is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await browser.close()
        manager, self._pw_manager, self._pw = self._pw_manager, None, None
        if manager is not None:
            with contextlib.suppress(Exception):
                await manager.stop()
