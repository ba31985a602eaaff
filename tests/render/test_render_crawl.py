"""``--render`` in the crawl: links only scripts make are crawled, and each page says how.

Real crawls (the engine, its store, its politeness) of the JavaScript test site
on 127.0.0.1, with real Chromium.  One browser launch per rendering crawl.
"""

from __future__ import annotations

import asyncio
import csv
import io
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapkit.cli import main
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.engine import Crawler, CrawlResult
from sitemapkit.model import PageRecord
from sitemapkit.render.auto import SAMPLE
from sitemapkit.store.sqlite import SqliteStore

from .app_site import SECTION_PAGES, AppSite, serve_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site() -> Iterator[AppSite]:
    with serve_app() as served:
        yield served


def crawl(
    site: AppSite, db: Path, render: str, start: str = "/"
) -> tuple[CrawlResult, dict[str, PageRecord]]:
    store = SqliteStore(db)
    try:
        config = CrawlConfig(site.base + start, render=render, render_timeout=5.0)
        result = asyncio.run(Crawler(config, store).run())
        records = {r.url.removeprefix(site.base): r for r in store.page_records()}
        return result, records
    finally:
        store.close()


# The crawl lists URLs as the site spells them (the sorted query is only the dedup key).
RENDERED_ONLY = {"/app/one", "/app/two", "/app/three?b=2&a=1", "/app/area"}


def test_never_sees_only_the_shell(site: AppSite, tmp_path: Path) -> None:
    result, records = crawl(site, tmp_path / "never.sqlite", "never")
    assert result.start_ok
    assert set(records) == {"/"}
    assert "render" not in records["/"].extra


def test_always_crawls_what_scripts_link_to(site: AppSite, tmp_path: Path) -> None:
    result, records = crawl(site, tmp_path / "always.sqlite", "always")
    assert result.start_ok
    assert set(records) == {"/", "/app/home", *RENDERED_ONLY}
    home = records["/"]
    assert home.extra["render"] == "rendered"
    assert home.extra["render_why"] == "always"
    assert set(home.extra["rendered_links"].split()) == {
        site.base + p for p in RENDERED_ONLY
    }  # the canonical is not a link: it is recorded as the canonical
    # the canonical the script set decides, as in the raw HTML it would
    assert home.reason == "canonicalised-to"
    assert home.canonical == site.base + "/app/home"
    for path in RENDERED_ONLY:
        assert records[path].indexable, path
        assert records[path].extra["render"] == "rendered"
        assert records[path].extra["found_from"] == site.base + "/"
        assert records[path].extra["rendered_links"] == ""


def test_auto_renders_the_shell_and_not_the_plain_pages(site: AppSite, tmp_path: Path) -> None:
    result, records = crawl(site, tmp_path / "auto.sqlite", "auto")
    assert result.start_ok
    assert set(records) == {"/", "/app/home", *RENDERED_ONLY}  # the same URLs as always
    assert records["/"].extra["render_why"] == "app-shell"
    # /app/ pages are server-rendered without scripts: not rendered, not even sampled
    assert [path for path, r in records.items() if "render" in r.extra] == ["/"]


def test_auto_samples_sections_whose_scripts_write_markup(site: AppSite, tmp_path: Path) -> None:
    """/more/ needs rendering (its links are written by script); /quiet/'s writes none."""
    result, records = crawl(site, tmp_path / "mixed.sqlite", "auto", start="/mixed")
    assert result.start_ok
    more = {f"/more/{i}" for i in range(SECTION_PAGES)}
    quiet = {f"/quiet/{i}" for i in range(SECTION_PAGES)}
    assert set(records) == {"/mixed", *more, *quiet}  # every /more/ page: found by rendering
    assert "render" not in records["/mixed"].extra  # its script writes nothing
    for path in more:  # the first sample found a link: the section is rendered throughout
        assert records[path].extra["render"] == "rendered", path
        assert records[path].extra["render_why"] in {"section-sample", "section-needs-js"}
    assert records["/more/0"].extra["render_why"] == "section-sample"
    assert records["/more/5"].extra["render_why"] == "section-needs-js"
    sampled = [p for p in quiet if "render" in records[p].extra]
    assert len(sampled) == SAMPLE  # three samples found nothing new; the rest left to HTTP
    assert {records[p].extra["render_why"] for p in sampled} == {"section-sample"}


def test_cli_render_always_publishes_and_why_and_inventory_tell(
    site: AppSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    code = main(
        ["crawl", site.base + "/", "-o", str(out), "--render", "always", "--render-timeout", "5"]
    )
    assert code == 0
    stdout = capsys.readouterr().out
    assert "rendered 6 pages: rendered 6" in stdout
    sitemap = (out / "sitemap.xml").read_text()
    for path in RENDERED_ONLY:
        assert f"<loc>{site.base}{path.replace('&', '&amp;')}</loc>" in sitemap, path
    rows = {r["url"]: r for r in csv.DictReader(io.StringIO((out / "inventory.csv").read_text()))}
    assert rows[site.base + "/"]["render"] == "rendered"
    assert rows[site.base + "/app/one"]["render"] == "rendered"
    assert set(rows[site.base + "/"]["rendered_links"].split()) == {
        site.base + p for p in RENDERED_ONLY
    }
    assert main(["crawl", "--why", "/", "--db", str(out / "crawl.sqlite")]) == 0
    why = capsys.readouterr().out
    assert "  rendered:   rendered (always)\n" in why
    assert "  links only after rendering: 4\n" in why
    assert f"    {site.base}/app/area\n" in why


def test_cli_without_playwright_is_one_line_and_makes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = (
        "import sys; sys.modules['playwright'] = None; sys.modules['playwright.async_api'] = None\n"
        "from sitemapkit.cli import main\n"
        f"sys.exit(main(['crawl', 'http://127.0.0.1:9/', '-o', {str(out)!r}, '--render=auto']))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert proc.stderr == (
        "sitemapkit: error: rendering needs the Playwright package, which is not installed: "
        "pip install 'sitemapkit[render]'\n"
    )
    assert not out.exists()
