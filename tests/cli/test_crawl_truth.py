"""The crawl's output is true and complete (issue 10 item 4, issue 16 item 13).

On a real site on 127.0.0.1: the sitemap lists URLs as the site spells them
(never the sorted dedup key), a page with a broken hreflang set is listed
without its alternates and the decision is visible in the summary, ``--why``
and the inventory; the summary counts what the file holds; a page with more
links than the cap says so; long example URLs are shortened.
"""

from __future__ import annotations

import contextlib
import csv
import io
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from aiohttp import web

from crawl.fixture_site import serve_handler
from sitemapkit.cli import main
from sitemapkit.crawl.extract import MAX_LINKS_PER_PAGE

SPELLED = "/list.html?lt=%3Ctag%3E&gt=1"
SORTED = "/list.html?gt=1&lt=%3Ctag%3E"
LONG = "/trap/" + "x" * 3000
#: Facet variants past the trap guard's cap (64), parameters in the site's (unsorted) order.
FACETS = [f"/shop?z={i}&a=1" for i in range(70)]


def page(title: str, body: str = "", head: str = "") -> web.Response:
    return web.Response(
        text=f"<!doctype html><html><head><title>{title}</title>{head}</head>"
        f"<body>{body}</body></html>",
        content_type="text/html",
    )


class TruthSite:
    def __init__(self) -> None:
        self.hits: Counter[str] = Counter()
        self.base = ""

    def alternates(self, *pairs: tuple[str, str]) -> str:
        return "".join(
            f'<link rel="alternate" hreflang="{lang}" href="{self.base}{path}">'
            for lang, path in pairs
        )

    async def handle(self, request: web.Request) -> web.Response:
        self.hits[request.path_qs] += 1
        path = request.path
        if path == "/robots.txt":
            return web.Response(text="User-agent: *\nAllow: /\n")
        if path == "/":
            links = "".join(
                f'<a href="{h}">x</a>'
                for h in (SPELLED, "/other", "/en", "/de", "/fr", "/many", LONG, *FACETS)
            )
            return page("Home", links)
        if path == "/other":  # the same list, parameters in the other order
            return page("Other", f'<a href="{SORTED}">same list</a>')
        if path in ("/list.html", "/shop"):
            return page(path)
        if path in ("/en", "/de"):
            return page(path, head=self.alternates(("en", "/en"), ("de", "/de")))
        if path == "/fr":  # names en and de, never itself: the set is broken for this page
            return page("fr", head=self.alternates(("en", "/en"), ("de", "/de")))
        if path == "/many":
            links = "".join(
                f'<a rel="nofollow" href="/n/{i}">{i}</a>' for i in range(MAX_LINKS_PER_PAGE + 50)
            )
            return page("Many links", links)
        return web.Response(status=404, text="no")


@dataclass
class Crawled:
    site: TruthSite
    out: Path
    stdout: str

    def inventory(self) -> dict[str, dict[str, str]]:
        with (self.out / "inventory.csv").open(encoding="utf-8", newline="") as fh:
            return {row["url"]: row for row in csv.DictReader(fh)}

    def why(self, url: str, capsys: pytest.CaptureFixture[str]) -> str:
        capsys.readouterr()
        assert main(["crawl", "--db", str(self.out / "crawl.sqlite"), "--why", url]) == 0
        return capsys.readouterr().out


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Crawled]:
    """One crawl of the site, shared by the tests (each reads a different part of it)."""
    site = TruthSite()

    out = tmp_path_factory.mktemp("truth") / "out"
    with serve_handler(site.handle) as port:
        site.base = f"http://127.0.0.1:{port}"
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            assert main(["crawl", site.base + "/", "-o", str(out), "--no-map"]) == 0
        yield Crawled(site, out, stdout.getvalue())


def locs(sitemap: Path) -> list[str]:
    return re.findall(r"<loc>([^<]*)</loc>", sitemap.read_text(encoding="utf-8"))


def test_the_sitemap_lists_the_sites_spelling_and_dedups_by_the_sorted_key(
    crawled: Crawled, capsys: pytest.CaptureFixture[str]
) -> None:
    base = crawled.site.base
    listed = locs(crawled.out / "sitemap.xml")
    # The XML escapes "&" as "&amp;"; the URL itself is the site's, not the sorted key.
    assert base + SPELLED.replace("&", "&amp;") in listed
    assert not any("gt=1&amp;lt" in loc for loc in listed)
    assert crawled.site.hits[SPELLED] == 1
    assert crawled.site.hits[SORTED] == 0  # the other spelling is the same page: not fetched
    urls = crawled.inventory()
    assert base + SPELLED in urls
    assert base + SORTED not in urls
    for asked in (SPELLED, SORTED):  # --why finds the page under either spelling
        assert crawled.why(asked, capsys).startswith(base + SPELLED + "\n")


def test_a_broken_hreflang_set_drops_the_alternates_never_the_page(
    crawled: Crawled, capsys: pytest.CaptureFixture[str]
) -> None:
    sitemap = crawled.out / "sitemap.xml"
    listed = locs(sitemap)
    fr = crawled.site.base + "/fr"
    assert fr in listed
    # The summary counts what the file holds.
    stdout = crawled.stdout
    assert f"; {len(listed)} pages in the sitemap" in stdout
    assert "sitemap:    " + str(sitemap) + f" ({len(listed)} URLs)" in stdout
    assert "noted on pages (--why URL says more): hreflang-no-self 1, links-capped 1" in stdout
    assert f"  hreflang-no-self, e.g. {fr}" in stdout
    # /fr is written without alternates; /en and /de keep theirs.
    text = sitemap.read_text(encoding="utf-8")
    assert text.split(f"<loc>{fr}</loc>", 1)[1].split("</url>", 1)[0] == ""
    assert text.count('hreflang="de"') == 2
    row = crawled.inventory()[fr]
    assert row["indexable"] == "yes"
    assert row["notes"].startswith("hreflang-no-self: ")
    assert "  note:       hreflang-no-self: " in crawled.why("/fr", capsys)
    # What the crawl wrote passes the validator.
    assert main(["validate", str(sitemap)]) == 0


def test_a_page_past_the_link_cap_says_so(
    crawled: Crawled, capsys: pytest.CaptureFixture[str]
) -> None:
    many = crawled.site.base + "/many"
    assert f"  links-capped, e.g. {many}" in crawled.stdout
    assert (
        f"  note:       links-capped: the page has more than {MAX_LINKS_PER_PAGE:,} links; "
        f"the first {MAX_LINKS_PER_PAGE:,} were read, 50 more link elements were not\n"
    ) in crawled.why("/many", capsys)
    row = crawled.inventory()[many]
    assert row["notes"].startswith("links-capped: ")
    assert row["outlinks"] == str(MAX_LINKS_PER_PAGE)


def test_long_example_urls_are_shortened_in_the_summary(crawled: Crawled) -> None:
    lines = crawled.stdout.splitlines()
    line = next(ln for ln in lines if ln.startswith("  trap-url-length, e.g. "))
    assert len(line) < 150
    assert f"[{len(crawled.site.base + LONG):,} chars]" in line
    assert max(len(ln) for ln in lines) < 400


def test_trap_examples_are_spelled_as_the_site_spells_them(crawled: Crawled) -> None:
    line = next(ln for ln in crawled.stdout.splitlines() if ln.startswith("  trap-pattern, e.g. "))
    assert f"{crawled.site.base}/shop?z=64&a=1" in line
    assert "?a=1&z=" not in line
