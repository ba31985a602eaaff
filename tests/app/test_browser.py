"""The app end to end in real headless Chromium (Debian's), driven by Playwright.

Nothing is mocked: ``sitemapkit serve`` runs as a child process on a free port
with a temporary workspace, the bundled demo site is served on 127.0.0.1, the
crawl is started from the New crawl form and runs as the server's child, and
the zip the browser downloads is checked with ``sitemapkit validate``.
"""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from headless import chromium, playwright
from sitemapkit.app.launch import served_app
from sitemapkit.demo.server import serve_demo

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The demo's hostile title (demo/site/blog/2026/xss-title.html), as a user must see it.
XSS_TITLE = '</script><script>alert(1)</script> & "quotes" | Journal'
#: A crawl of the demo takes seconds; a loaded 2-core machine gets room.
WAIT_MS = 90_000


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    profile = tmp_path_factory.mktemp("chromium-profile")
    with playwright() as driver, chromium(driver, profile, accept_downloads=True) as ctx:
        yield ctx


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    with serve_demo() as base:
        yield base


@dataclass
class App:
    url: str
    workspace: Path
    page: Any
    problems: list[str] = field(default_factory=list)


def _console(app: App, message: Any) -> None:
    """Console errors are problems, except Chromium's own line for a failed response
    (that one is recorded with its URL by the response listener)."""
    if message.type == "error" and not message.text.startswith("Failed to load resource"):
        app.problems.append(f"console: {message.text}")


@pytest.fixture
def app(browser: Any, tmp_path: Path) -> Iterator[App]:
    """A fresh server and workspace, one tab on it; the tab's script errors, console
    errors (CSP violations land there) and dialogs (an ``alert`` that ran) are collected."""
    workspace = tmp_path / "ws"
    with served_app(workspace) as url:
        page = browser.new_page()
        opened = App(url, workspace, page)
        page.on("pageerror", lambda e: opened.problems.append(f"pageerror: {e}"))
        page.on("console", lambda m: _console(opened, m))
        page.on(
            "response",
            lambda r: opened.problems.append(f"{r.status} {r.url}") if r.status >= 400 else None,
        )
        page.on("dialog", lambda d: (opened.problems.append(f"dialog: {d.message}"), d.dismiss()))
        page.goto(url)
        page.wait_for_selector("html[data-ready='1']")
        try:
            yield opened
        finally:
            page.close()


def start_crawl(app: App, address: str, **numbers: str) -> str:
    """Fill the New crawl form as a user does; the site id from the Progress view's address.

    Rendering is set to never: these tests are about the app, and the default (auto)
    renders the demo's lamp finder, whose live page is cut only at the render timeout."""
    page = app.page
    page.get_by_role("link", name="New crawl").first.click()
    page.get_by_label("Address").fill(address)
    page.get_by_label("Render with Chromium").select_option("never")
    for label, value in numbers.items():
        page.get_by_label(label).fill(value)
    page.get_by_role("button", name="Start crawl").click()
    page.wait_for_url(re.compile(r"#/site/[^/]+/progress$"))
    return page.url.split("#/site/", 1)[1].split("/", 1)[0]


def wait_idle(page: Any) -> None:
    page.wait_for_function(
        "() => /finished|stopped|saved|failed/.test("
        "document.querySelector('.job-message').textContent)",
        timeout=WAIT_MS,
    )


def test_crawl_explore_audit_download(app: App, demo: str, tmp_path: Path) -> None:
    page = app.page
    site = start_crawl(app, demo)
    assert site.startswith("127.0.0.1-")
    # progress arrives over server-sent events: the numbers and the growing tree fill in
    page.wait_for_function(
        "() => +document.querySelector('main').getAttribute('data-fetched') > 0", timeout=WAIT_MS
    )
    wait_idle(page)
    assert "crawl finished" in page.locator(".job-message").text_content()
    fetched = int(page.locator("[data-stat=fetched] .n").text_content().replace(",", ""))
    assert fetched > 100
    page.wait_for_function(
        "() => +document.querySelector('.growing').getAttribute('data-pages') > 0"
    )
    assert page.locator(".growing .name", has_text="products/").count() == 1
    assert page.get_by_role("button", name="Stop").is_hidden()

    # Map: the visualize page in a frame; find a page by its title
    page.keyboard.press("4")
    page.wait_for_url(re.compile(r"/map$"))
    frame = page.frame_locator("iframe.map-frame")
    frame.locator("html[data-ready='1']").wait_for(timeout=WAIT_MS)
    frame.locator("#search").fill("desk lamps")
    frame.locator("#search").press("Enter")
    found = frame.locator("#results button", has_text="Desk lamps | Northwind Lamps")
    found.first.wait_for()
    assert "/products/desk-lamps/" in frame.locator("#details").text_content()

    # Pages: the hostile title is text, nothing ran
    page.get_by_role("link", name="Pages", exact=True).click()
    page.locator(".vt[data-ready='1']").wait_for()
    page.get_by_label("Search URL or title").fill("quotes")
    row = page.locator(".vt-body .vt-row:not([hidden])")
    page.wait_for_function("() => document.querySelector('.count').textContent.startsWith('1 of')")
    assert row.count() == 1
    assert row.locator(".vt-cell.title").text_content() == XSS_TITLE
    assert page.locator("main script").count() == 0
    row.click()
    page.locator(".page-detail dl").wait_for()
    assert page.locator(".page-detail .title").text_content() == XSS_TITLE

    # Audit: run it from the app, then look at one code's evidence
    page.get_by_role("link", name="Audit", exact=True).click()
    page.get_by_role("button", name="Run audit").click()
    page.locator("table.codes button[data-code]").first.wait_for(timeout=WAIT_MS)
    code = page.locator("table.codes button[data-code]").first
    name = code.get_attribute("data-code")
    code.click()
    page.locator(".findings tbody tr").first.wait_for()
    assert page.locator(".findings h2").text_content() == name

    # Sitemaps: the zip the browser downloads holds a set that validates
    page.get_by_role("link", name="Sitemaps", exact=True).click()
    page.get_by_text("Sitemap: " + demo).wait_for()
    with page.expect_download() as download:
        page.get_by_role("link", name="Download zip").click()
    archive = tmp_path / "set.zip"
    download.value.save_as(archive)
    out = tmp_path / "set"
    with zipfile.ZipFile(archive) as zf:
        zf.extractall(out)
    maps = sorted(p for p in out.iterdir() if p.suffix == ".xml")
    assert maps
    checked = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "validate", "--sitemap-url", demo, *map(str, maps)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert app.problems == []


def test_stop_then_resume_from_the_buttons(app: App, demo: str) -> None:
    page = app.page
    start_crawl(app, demo, **{"Rate (requests/s)": "10"})
    page.wait_for_function(
        "() => +document.querySelector('main').getAttribute('data-fetched') >= 3", timeout=WAIT_MS
    )
    page.get_by_role("button", name="Stop").click()
    resume = page.get_by_role("button", name="Resume")
    resume.wait_for(timeout=WAIT_MS)
    stopped_at = int(page.locator("[data-stat=fetched] .n").text_content().replace(",", ""))
    resume.click()
    page.wait_for_function(
        "() => /resume finished/.test(document.querySelector('.job-message').textContent)",
        timeout=WAIT_MS,
    )
    after = int(page.locator("[data-stat=fetched] .n").text_content().replace(",", ""))
    assert after > stopped_at
    assert app.problems == []


def test_sites_list_and_keyboard(app: App, demo: str) -> None:
    page = app.page
    page.get_by_text("No site crawled in this workspace yet.").wait_for()
    start_crawl(app, demo, **{"Max pages": "20"})
    wait_idle(page)
    page.keyboard.press("1")
    link = page.locator("a.site-link")
    link.wait_for()
    row = page.locator("table.sites tbody tr")
    assert row.locator("td").nth(3).text_content().strip() != "\u2013"
    page.keyboard.press("5")
    page.wait_for_url(re.compile(r"/pages$"))
    page.locator(".vt[data-ready='1']").wait_for()
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.type") == "search"
    assert app.problems == []
