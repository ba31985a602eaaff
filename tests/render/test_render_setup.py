"""Rendering asked for without its pieces: one clear line naming the missing one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sitemapkit.errors import InputError
from sitemapkit.render import Renderer, RenderSettings, RenderUnavailableError
from sitemapkit.render.browser import check_available


def test_missing_browser_is_one_clear_line(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-chromium")
    with pytest.raises(RenderUnavailableError, match=r"needs Chromium at .*no-chromium"):
        check_available(missing)
    with pytest.raises(RenderUnavailableError):
        Renderer(RenderSettings(mode="auto", executable=missing))
    Renderer(RenderSettings(mode="never", executable=missing))  # never rendering needs nothing


def test_missing_playwright_is_one_clear_line() -> None:
    code = (
        "import sys; sys.modules['playwright'] = None; sys.modules['playwright.async_api'] = None\n"
        "from sitemapkit.render import Renderer, RenderSettings, RenderUnavailableError\n"
        "try:\n    Renderer(RenderSettings(mode='always'))\n"
        "except RenderUnavailableError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        "rendering needs the Playwright package, which is not installed: "
        "pip install 'sitemapkit[render]'"
    )


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (RenderSettings(mode="often"), '--render "often" is not one of never, auto, always'),
        (RenderSettings(timeout=0), "--render-timeout 0 must be more than 0 seconds"),
        (RenderSettings(concurrency=0), "--render-concurrency 0 must be at least 1"),
    ],
)
def test_bad_settings_are_usage_errors(settings: RenderSettings, message: str) -> None:
    with pytest.raises(InputError) as info:
        settings.validate()
    assert str(info.value) == message
