"""``--render auto`` is the default: a server-rendered site pays nothing for it, and a
missing browser is a note (the default) or an error (asked for), never a lost page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crawl.fixture_site import serve_site
from headless import run_cli_without_playwright as run_cli
from sitemapkit.cli.crawl import _resumed_config
from sitemapkit.crawl.config import DEFAULT_RENDER, CrawlConfig
from sitemapkit.crawl.engine import Crawler, sitemap_entries
from sitemapkit.demo import expected as ex
from sitemapkit.demo.server import serve_demo, start_demo_server
from sitemapkit.render import Renderer, RenderSettings, RenderUnavailableError
from sitemapkit.render.renderer import UNAVAILABLE
from sitemapkit.render.report import render_lines
from sitemapkit.store.sqlite import SqliteStore


@pytest.mark.browser
async def test_auto_starts_no_browser_on_a_server_rendered_site(tmp_path: Path) -> None:
    """The trap fixture site (javascript: links, traps, redirects): nothing looks scripted."""
    store = SqliteStore(tmp_path / "crawl.sqlite")
    try:
        with serve_site() as site:
            renderer = Renderer(RenderSettings(mode="auto"))  # Playwright and Chromium are here
            crawler = Crawler(CrawlConfig(site.base, render="auto"), store, renderer=renderer)
            result = await crawler.run()
        records = list(store.page_records())
    finally:
        store.close()
    assert len(records) > 20
    assert result.rendered == {}
    assert renderer.pool.launches == 0
    assert not [r.url for r in records if "render" in r.extra]


async def test_without_rendering_the_default_crawl_goes_on_and_records_what_needed_it(
    tmp_path: Path,
) -> None:
    """Chromium missing, the mode not asked for: the demo's shell is ``render-unavailable``."""
    runner, base = await start_demo_server()
    store = SqliteStore(tmp_path / "demo.sqlite")
    settings = RenderSettings(mode="auto", optional=True, executable=str(tmp_path / "chromium"))
    try:
        renderer = Renderer(settings)  # no error: the default is allowed to go without
        crawler = Crawler(CrawlConfig(base, render="auto"), store, renderer=renderer)
        result = await crawler.run()
        locs = {e.loc for e in sitemap_entries(store)}
        records = {r.url: r for r in store.page_records()}
    finally:
        store.close()
        await runner.cleanup()
    assert locs == ex.sitemap_urls(base)  # the unrendered answer, nothing lost
    shell = records[ex.absolute(base, "/app/")]
    assert (shell.extra["render"], shell.extra["render_why"]) == (UNAVAILABLE, "app-shell")
    assert [r.url for r in records.values() if "render" in r.extra] == [shell.url]
    assert result.rendered == {UNAVAILABLE: 1}
    assert result.render_missing is not None
    assert render_lines(result.rendered, result.render_missing) == [
        f"not rendered: 1 page looks built by scripts, but rendering needs Chromium at "
        f"{tmp_path / 'chromium'}, which is missing: apt-get install chromium "
        "(or run `make system-deps`)"
    ]
    assert renderer.pool.launches == 0


def test_cli_default_without_the_extra_is_one_line_and_asked_for_is_an_error(
    tmp_path: Path,
) -> None:
    with serve_demo() as base:
        out = tmp_path / "out"
        done = run_cli("crawl", base, "-o", str(out))
        asked = run_cli("crawl", base, "-o", str(tmp_path / "asked"), "--render", "auto")
        never = run_cli("crawl", base, "-o", str(tmp_path / "never"), "--render", "never")
    assert done.returncode == 0, done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    assert [line for line in lines if "sitemapkit[render]" in line] == [
        "not rendered: 1 page looks built by scripts, but rendering needs the Playwright "
        "package, which is not installed: pip install 'sitemapkit[render]'"
    ]
    store = SqliteStore(out / "crawl.sqlite")
    try:
        stored = json.loads(store.get_meta("config") or "{}")
    finally:
        store.close()
    assert (stored["render"], stored["render_optional"]) == (DEFAULT_RENDER, True)
    why = run_cli("crawl", "--db", str(out / "crawl.sqlite"), "--why", "/app/")
    assert "  rendered:   render-unavailable (app-shell)" in why.stdout.splitlines()
    inventory = (out / "inventory.csv").read_text(encoding="utf-8")
    assert "render-unavailable" in inventory
    # asked for explicitly: the clear error, before anything is made
    assert asked.returncode == 1
    assert asked.stderr.strip() == (
        "sitemapkit: error: rendering needs the Playwright package, which is not installed: "
        "pip install 'sitemapkit[render]'"
    )
    assert not (tmp_path / "asked").exists()
    # --render never: nothing is looked at, nothing said
    assert never.returncode == 0, never.stderr
    assert "render" not in never.stdout


def test_a_crawl_stored_before_the_default_resumes_as_it_was_configured(tmp_path: Path) -> None:
    """Its config has no ``render_optional``: ``never`` stays never, ``auto`` stays asked for."""
    for mode in ("never", "auto"):
        old = json.loads(CrawlConfig("http://127.0.0.1:9/", render=mode).to_json())
        del old["render_optional"]
        store = SqliteStore(tmp_path / f"{mode}.sqlite")
        try:
            store.set_meta("config", json.dumps(old))
            config = _resumed_config(store, tmp_path / f"{mode}.sqlite", None, None, None)
        finally:
            store.close()
        assert (config.render, config.render_optional) == (mode, False)


@pytest.mark.parametrize("mode", ["auto", "always"])
def test_an_asked_for_mode_without_chromium_is_an_error(mode: str, tmp_path: Path) -> None:
    settings = RenderSettings(mode=mode, executable=str(tmp_path / "none"))
    with pytest.raises(RenderUnavailableError, match="needs Chromium at"):
        Renderer(settings)
