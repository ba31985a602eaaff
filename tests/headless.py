"""Debian's Chromium under Playwright for the browser tests: one start-up, one set of flags.

Why one helper: the app, map, diff and audit-page tests each started the browser
with a copy of the same lines (and the map tests with their own copy of the flags,
drifting from the renderer's).  The flags are the package's own
(:data:`sitemapkit.render.browser.CHROMIUM_ARGS`): the browser the tests drive is
started the way the renderer starts it for users.
"""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sitemapkit.render.browser import CHROMIUM, CHROMIUM_ARGS

#: A process whose Playwright import fails, as without the ``[render]`` extra.
NO_PLAYWRIGHT = (
    "import sys; sys.modules['playwright'] = None; sys.modules['playwright.async_api'] = None; "
    "from sitemapkit.cli import main; sys.exit(main(sys.argv[1:]))"
)

#: The window the browser tests lay pages out in.
VIEWPORT = {"width": 1280, "height": 800}


@contextlib.contextmanager
def playwright() -> Iterator[Any]:
    """Playwright's sync API; a missing Chromium fails the test (it is a system dependency)."""
    if not Path(CHROMIUM).exists():
        pytest.fail("Debian chromium is missing: run `make system-deps`")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as driver:
        yield driver


@contextlib.contextmanager
def chromium(driver: Any, profile: Path, **options: Any) -> Iterator[Any]:
    """A headless browser context on a fresh ``profile``, closed afterwards.

    ``options`` go to Playwright's ``launch_persistent_context`` over the defaults
    (the :data:`VIEWPORT`); e.g. ``accept_downloads=True``, ``java_script_enabled=False``.
    """
    ctx = driver.chromium.launch_persistent_context(
        str(profile),
        executable_path=CHROMIUM,
        args=list(CHROMIUM_ARGS),
        headless=True,
        **{"viewport": VIEWPORT, **options},
    )
    try:
        yield ctx
    finally:
        ctx.close()


def run_cli_without_playwright(*args: str) -> subprocess.CompletedProcess[str]:
    """``sitemapkit ARGS`` in a process of its own that cannot import Playwright (shared by
    the crawl's and the audit's tests of what a missing ``[render]`` extra does)."""
    return subprocess.run(
        [sys.executable, "-c", NO_PLAYWRIGHT, *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
