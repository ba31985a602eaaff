"""A crawl's map shows the site: hosts it only linked go into one "External links" group.

The JDK docs case (issue 15): 10,200 pages on one host and 64 other hosts that
were only linked drew 65 top-level branches.  Here a real crawl of a site on
127.0.0.1 whose pages link to 64 other hosts is mapped, and the map is opened
in Debian's Chromium.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from crawl.fixture_site import serve
from sitemapkit.cli import main
from sitemapkit.model import OUT_OF_SCOPE, PageRecord
from sitemapkit.visual.sources import read_tree
from sitemapkit.visual.tree import EXTERNAL_LABEL, Kind, SiteTree

from .test_browser import browser, open_map, pw, shop_map  # noqa: F401 (fixtures)

EXTERNAL_HOSTS = 64
SECTIONS = ("api", "guide", "specs")


def _page(title: str, hrefs: list[str]) -> web.Response:
    body = "".join(f'<a href="{h}">{h}</a> ' for h in hrefs)
    return web.Response(
        text=f"<!doctype html><title>{title}</title><h1>{title}</h1>{body}",
        content_type="text/html",
    )


def docs_app() -> web.Application:
    """A docs site: three sections of five pages; every page links to some of 64 hosts."""

    async def handle(request: web.Request) -> web.Response:
        path = request.path
        if path == "/":
            return _page("Docs", [f"/{s}/" for s in SECTIONS])
        parts = [p for p in path.split("/") if p]
        if len(parts) == 1 and parts[0] in SECTIONS:
            return _page(parts[0], [f"/{parts[0]}/p{i}.html" for i in range(5)])
        if len(parts) == 2 and parts[0] in SECTIONS:
            n = SECTIONS.index(parts[0]) * 5 + int(parts[1][1:].split(".")[0])
            out = [f"https://ext{(n * 5 + k) % EXTERNAL_HOSTS}.example/ref/{n}" for k in range(5)]
            return _page(path, ["/", *out])
        raise web.HTTPNotFound()

    app = web.Application()
    app.router.add_get("/{tail:.*}", handle)
    return app


@pytest.fixture(scope="module")
def crawl_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs-crawl")
    with serve(docs_app) as port:
        assert main(["crawl", f"http://127.0.0.1:{port}/", "-o", str(out), "--no-map"]) == 0
    return out / "crawl.sqlite"


def _external_group(tree: SiteTree) -> int:
    groups = [i for i, k in enumerate(tree.kinds) if k & 7 == Kind.EXTERNAL]
    assert len(groups) == 1
    return groups[0]


def test_a_crawl_with_64_linked_hosts_maps_the_site_with_one_external_group(
    crawl_db: Path,
) -> None:
    tree = read_tree(str(crawl_db))
    root = tree.nodes[tree.root]
    assert root.kind is Kind.HOST  # the site's host is the root, not "all hosts"
    assert root.segment.startswith("http://127.0.0.1:")
    group = _external_group(tree)
    assert tree.external == group
    assert tree.children(tree.root)[-1] == group  # after the site's sections, however big
    hosts = [tree.nodes[h] for h in tree.children(group)]
    assert len(hosts) == EXTERNAL_HOSTS == tree.external_hosts
    assert all(h.kind is Kind.HOST and h.segment.endswith(".example") for h in hosts)
    assert tree.nodes[group].label == EXTERNAL_LABEL
    assert tree.section_of(tree.children(hosts[0].index)[0]) == EXTERNAL_LABEL
    sections = {tree.nodes[c].segment for c in tree.children(tree.root)} - {EXTERNAL_LABEL}
    assert sections == set(SECTIONS)
    # every URL the crawl saw is still on the map
    assert tree.page_total == 1 + 3 + 15 + tree.page_count(group) == tree.counts[tree.root]
    assert tree.page_count(group) == 15 * 5


def test_visualize_says_how_many_hosts_were_only_linked(
    crawl_db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "map.html"
    assert main(["visualize", str(crawl_db), "-o", str(out)]) == 0
    line = capsys.readouterr().out
    assert f"1 host + {EXTERNAL_HOSTS} only linked" in line
    text = out.read_text("utf-8")
    assert f"1 host + {EXTERNAL_HOSTS} only linked" in text
    assert "<title>Site map of 127.0.0.1:" in text
    data = json.loads(re.search(r'type="application/json">(.*?)</script>', text, re.S)[1])  # type: ignore[index]
    assert sum(1 for k in data["k"] if k & 7 == Kind.EXTERNAL) == 1


def test_a_host_with_pages_in_scope_stays_with_the_site() -> None:
    """Only hosts with nothing but out-of-scope URLs are grouped (a --scope prefix keeps
    the host's other paths on the site); without a crawl's reasons nothing is grouped."""
    records = [
        PageRecord(url="https://docs.example/java/", depth=0, indexable=True),
        PageRecord(url="https://docs.example/java/a", depth=1, indexable=True),
        PageRecord(url="https://docs.example/blog/", depth=2, reason=OUT_OF_SCOPE),
        PageRecord(url="https://cdn.example/x.js", depth=2, reason="not-html"),
        PageRecord(url="https://other.example/", depth=2, reason=OUT_OF_SCOPE),
    ]
    tree = SiteTree.from_records(records)
    assert tree.nodes[tree.root].kind is Kind.SITE  # docs and cdn: the site has two hosts
    tops = [tree.nodes[c] for c in tree.children(tree.root)]
    assert [t.kind for t in tops] == [Kind.HOST, Kind.HOST, Kind.EXTERNAL]
    assert {t.segment for t in tops[:2]} == {"https://docs.example", "https://cdn.example"}
    assert [tree.nodes[c].segment for c in tree.children(tops[2].index)] == [
        "https://other.example"
    ]
    listed = SiteTree.from_urls([(r.url, None) for r in records])
    assert listed.external == -1
    assert listed.nodes[listed.root].kind is Kind.SITE
    assert len(listed.children(listed.root)) == 3
    only_outside = SiteTree.from_records([records[4]])  # nothing in scope: no group
    assert only_outside.external == -1


@pytest.mark.browser
def test_the_map_opens_on_the_site_with_the_external_group_closed(
    crawl_db: Path,
    tmp_path: Path,
    open_map: Any,  # noqa: F811
) -> None:
    out = tmp_path / "map.html"
    assert main(["visualize", str(crawl_db), "-o", str(out)]) == 0
    tree = read_tree(str(crawl_db))
    o = open_map(out)
    page = o.page
    group = page.locator(f"#node-n{tree.external}")
    assert group.get_attribute("aria-expanded") == "false"
    assert group.locator(".l1").text_content() == EXTERNAL_LABEL
    assert group.locator(".l3").text_content() == f"{EXTERNAL_HOSTS} hosts \u00b7 75 URLs"
    labels = page.locator("#map .node").evaluate_all("els => els.map(e => e.ariaLabel)")
    assert not [x for x in labels if ".example" in x]  # no external host drawn beside the site
    page.click("#expand-all")
    assert group.get_attribute("aria-expanded") == "false"  # expand-all opens the site
    page.click("#fit")
    scale = float(re.search(r"scale\(([\d.]+)\)", page.get_attribute("#viewport", "transform"))[1])  # type: ignore[index]
    drawn = int(page.get_attribute("#map", "data-nodes") or 0)
    assert drawn == tree.counts[tree.root] - tree.page_count(tree.external) + 1
    assert scale > 0.3  # the site's 20 pages fit at a readable size
    group.locator("[data-knob]").click()
    assert page.locator("#map .node").count() == drawn + 50 + 1  # 50 hosts and "+14 more"
    group.click()
    assert "hosts outside the crawl" in page.locator("#details").text_content()
    assert o.errors == []
