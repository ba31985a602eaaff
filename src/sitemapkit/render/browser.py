"""The browser: one Debian Chromium driven by Playwright, a few page slots, restarts.

Why it is built this way:

- **Optional.**  Playwright is the ``[render]`` extra; it is imported here, on
  first use, and a missing package or browser is one :class:`RenderUnavailableError`
  line naming the missing piece and how to get it.
- **Bounded memory.**  At most ``concurrency`` tabs (a context with one page)
  exist at once, and the browser process is replaced after ``restart_every``
  pages: Chromium's processes grow over a long crawl, and a fresh process is
  the only reliable way to give that memory back.  A restart waits for the
  pages in flight; pages asking meanwhile wait for the new browser.
- **Tabs are reused.**  A new context and page per rendered page means a new
  renderer process each time, which costs more CPU than many pages' scripts;
  a tab goes back to the pool after a page and the next page of the site
  navigates it (the site's cookies stay, as in a user's browser).  A tab whose
  page failed or never settled is closed instead: its renderer may be stuck.
  A tab is also closed after :data:`TAB_PAGES` pages: its renderer process grows
  with every page it shows (105 MB to 260 MB over 100 pages of the benchmark's
  application) and only a new one starts small again.
- **Self-healing.**  A browser that crashed or was killed is relaunched by the
  next page that asks for a slot; the page that was in it fails on its own.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Protocol

from sitemapkit.errors import SitemapkitError
from sitemapkit.render.settle import NetworkTracker

if TYPE_CHECKING:
    from playwright.async_api import Browser, BrowserContext, Dialog, Page, Playwright, Route

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "HEADLESS_SHELL",
    "RESTART_EVERY",
    "TAB_PAGES",
    "BrowserPool",
    "RenderUnavailableError",
    "check_available",
    "default_executable",
    "playwright_error",
    "unavailable",
]

#: Debian's Chromium (``scripts/system-deps.sh`` installs it); no bundled browser download.
CHROMIUM: Final = "/usr/bin/chromium"
#: Debian's build of the same Chromium as the old headless shell (package
#: ``chromium-headless-shell``): no browser UI, so no UI renderer processes.  A crawl of
#: ``bench/render_memory.py``'s site peaks at about half the memory of ``chromium``
#: (Playwright itself drives this build for headless runs); used whenever it is installed.
HEADLESS_SHELL: Final = "/usr/bin/chromium-headless-shell"
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
    # a reused tab must not keep the pages it left alive (back/forward cache)
    "--disable-features=BackForwardCache,Translate,MediaRouter,OptimizationHints",
)
#: Pages rendered by one browser process before it is replaced.
RESTART_EVERY: Final = 200
#: Pages one tab (its context and renderer process) shows before it is replaced: 10 kept a
#: 200-page crawl at 826 MB peak, 25 at 895 MB, 50 at 983 MB, never at 1,052 MB, at the
#: same speed (``bench/render_memory.py``).
TAB_PAGES = 10
#: Seconds we wait for a context (or the browser) to close before giving up on it.
CLOSE_TIMEOUT: Final = 5.0
# Clicks on ``<a download>`` (real or scripted) start no download: Chromium fetches such
# files outside request interception, so they are stopped before they start.
_NO_DOWNLOADS_JS: Final = """document.addEventListener('click', (event) => {
  const target = event.target;
  if (target && target.closest && target.closest('a[download]')) event.preventDefault();
}, true);"""


#: Context options every tab has, whatever else it is given: no downloads, no workers.
SAFE_CONTEXT: Final[dict[str, Any]] = {"accept_downloads": False, "service_workers": "block"}


class Job(Protocol):
    """What a tab hands its events to while it renders one page (``render.page``)."""

    async def route(self, route: Route) -> None: ...
    async def dialog(self, dialog: Dialog) -> None: ...
    async def popup(self, popup: Page) -> None: ...


class Tab:
    """One reusable context and page; its events go to the job it is doing, if any."""

    def __init__(self, ctx: BrowserContext, page: Page, generation: int) -> None:
        self.ctx = ctx
        self.page = page
        self.generation = generation
        self.tracker = NetworkTracker(page)
        self.job: Job | None = None
        #: Pages this tab has shown.
        self.pages = 0
        #: Set by a job that left the page in a state not worth reusing.
        self.broken = False

    @classmethod
    async def open(cls, browser: Browser, generation: int, options: dict[str, Any]) -> Tab:
        ctx = await browser.new_context(**options)
        try:
            await ctx.add_init_script(_NO_DOWNLOADS_JS)
            page = await ctx.new_page()
        except BaseException:
            with contextlib.suppress(Exception):
                await ctx.close()
            raise
        tab = cls(ctx, page, generation)
        await ctx.route("**/*", tab._route)
        ctx.on("page", tab._popup)
        page.on("dialog", tab._dialog)
        return tab

    async def _route(self, route: Route) -> None:
        if self.job is not None:
            await self.job.route(route)
        else:  # a request of a page that is already done
            with contextlib.suppress(Exception):
                await route.abort("blockedbyclient")

    async def _dialog(self, dialog: Dialog) -> None:
        if self.job is not None:
            await self.job.dialog(dialog)
        else:
            with contextlib.suppress(Exception):
                await dialog.dismiss()

    async def _popup(self, popup: Page) -> None:
        if popup is self.page:
            return
        if self.job is not None:
            await self.job.popup(popup)
        else:
            with contextlib.suppress(Exception):
                await popup.close()

    async def close(self) -> bool:
        """Close the tab's context; False when it would not close (a sick browser)."""
        self.job = None
        try:
            async with asyncio.timeout(CLOSE_TIMEOUT):
                await self.ctx.close()
        except (playwright_error(), TimeoutError):
            return False
        return True


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


def default_executable() -> str:
    """The headless shell when it is installed (half the memory), else Debian's Chromium."""
    return HEADLESS_SHELL if Path(HEADLESS_SHELL).is_file() else CHROMIUM


def unavailable(executable: str | None = None) -> str | None:
    """Why rendering cannot run here (the message of :func:`check_available`), or ``None``."""
    try:
        check_available(executable)
    except RenderUnavailableError as exc:
        return str(exc)
    return None


def check_available(executable: str | None = None) -> None:
    """Raise :class:`RenderUnavailableError` unless Playwright and the browser are both here."""
    _async_playwright()
    executable = executable or default_executable()
    if not Path(executable).is_file():
        package = "chromium-headless-shell" if executable == HEADLESS_SHELL else "chromium"
        raise RenderUnavailableError(
            f"rendering needs Chromium at {executable}, which is missing: "
            f"apt-get install {package} (or run `make system-deps`)"
        )


class BrowserPool:
    """One browser process handing out at most ``concurrency`` fresh contexts at a time."""

    def __init__(
        self,
        *,
        executable: str | None = None,
        concurrency: int = 2,
        restart_every: int = RESTART_EVERY,
        context_options: dict[str, Any] | None = None,
        tab_pages: int | None = None,
    ) -> None:
        if concurrency < 1 or restart_every < 1:
            raise ValueError("concurrency and restart_every must be at least 1")
        self.executable = executable or default_executable()
        self.concurrency = concurrency
        self.restart_every = restart_every
        self.tab_pages = tab_pages or TAB_PAGES
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
        self._options = {**SAFE_CONTEXT, **(context_options or {})}
        self._idle: list[Tab] = []
        self._generation = 0
        #: Tabs opened so far (a reused tab is not counted again).
        self.tabs_opened = 0

    async def _launch(self) -> None:
        if self._pw is None:
            check_available(self.executable)
            self._pw_manager = _async_playwright()()
            self._pw = await self._pw_manager.start()
        assert self._pw is not None
        old, self._browser = self._browser, None
        self._idle.clear()  # their contexts go with the old browser
        self._generation += 1
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
    async def tab(self) -> AsyncIterator[Tab]:
        """A tab in one of the slots: an idle one of this browser, or a new one."""
        browser = await self._enter()
        try:
            tab = self._idle.pop() if self._idle else None
            if tab is None:
                tab = await Tab.open(browser, self._generation, self._options)
                self.tabs_opened += 1
        except BaseException:
            await self._leave()
            raise
        try:
            yield tab
        finally:
            tab.job = None
            tab.pages += 1
            try:
                if (
                    tab.broken
                    or tab.pages >= self.tab_pages
                    or tab.generation != self._generation
                    or not browser.is_connected()
                ):
                    if not await tab.close():
                        self._served = self.restart_every  # replace the sick browser next time
                else:
                    self._idle.append(tab)
            finally:
                await self._leave()

    async def close(self) -> None:
        """Close the browser and Playwright; safe to call twice."""
        browser, self._browser = self._browser, None
        self._idle.clear()
        if browser is not None:
            with contextlib.suppress(Exception):
                async with asyncio.timeout(CLOSE_TIMEOUT):
                    await browser.close()
        manager, self._pw_manager, self._pw = self._pw_manager, None, None
        if manager is not None:
            with contextlib.suppress(Exception):
                await manager.stop()
