"""The map in real headless Chromium (Debian's), driven by Playwright, from file://.

One browser for the module; each test opens the page once.  Nothing is mocked:
the page is the file ``write_visual_map`` wrote, with the shop fixture's
hostile titles, deep page and 1,200-product catalog.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from headless import chromium, playwright
from sitemapkit.visual.page import write_visual_map
from sitemapkit.visual.tree import SiteTree

from .shop import DEEP_TITLE, DEEP_URL, HOME, IMG_TITLE, SCRIPT_TITLE, shop_records

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def pw() -> Iterator[Any]:
    with playwright() as driver:
        yield driver


@pytest.fixture(scope="module")
def browser(pw: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with chromium(pw, tmp_path_factory.mktemp("chromium-profile"), accept_downloads=True) as ctx:
        yield ctx


@pytest.fixture(scope="module")
def shop_tree() -> SiteTree:
    return SiteTree.from_records(shop_records())


@pytest.fixture(scope="module")
def shop_map(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("map") / "site-map.html"
    return write_visual_map(shop_records(), out, title="Example Shop")


@dataclass
class Opened:
    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def nodes(self) -> int:
        return int(self.page.locator("#map .node").count())


@pytest.fixture
def open_map(browser: Any, shop_map: Path) -> Iterator[Any]:
    opened: list[Opened] = []

    def _open(path: Path = shop_map) -> Opened:
        page = browser.new_page()
        page.set_default_timeout(10_000)
        o = Opened(page)
        page.on(
            "console",
            lambda m: (
                o.errors.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None
            ),
        )
        page.on("pageerror", lambda e: o.errors.append(f"pageerror: {e}"))
        page.on("request", lambda r: o.requests.append(r.url))
        page.goto(path.as_uri())
        page.wait_for_selector("html[data-ready='1']", timeout=15_000)
        opened.append(o)
        return o

    yield _open
    for o in opened:
        o.page.close()


def key_of(tree: SiteTree, url: str) -> str:
    (i,) = [n.index for n in tree.nodes if n.record is not None and n.record.url == url]
    return f"n{i}"


def folder_key(tree: SiteTree, segment: str) -> str:
    (i,) = [n.index for n in tree.nodes if n.segment == segment and n.parent == tree.root]
    return f"n{i}"


def test_loads_offline_with_no_console_errors_and_draws_nodes(
    open_map: Any, shop_map: Path
) -> None:
    o = open_map()
    assert o.errors == []
    assert o.requests == [shop_map.as_uri()]  # nothing else fetched: no CDN, no fonts
    assert o.nodes() > 5
    assert o.page.locator("#node-n0 .l1").text_content() == "Example Shop"
    assert "pages" in o.page.locator("#status").text_content()
    assert o.page.locator("#legend li").count() > 3


def test_hostile_titles_are_text_and_nothing_runs(open_map: Any, shop_tree: SiteTree) -> None:
    o = open_map()
    o.page.fill("#search", "team/")
    o.page.press("#search", "Enter")
    lead = key_of(shop_tree, f"{HOME}about/team/lead")
    designer = key_of(shop_tree, f"{HOME}about/team/designer")
    o.page.wait_for_selector(f"#node-{lead}")
    # the card shows the (truncated) title as text; hovering adds the full one as a tooltip
    assert o.page.locator(f"#node-{lead} .l1").text_content() == SCRIPT_TITLE[:29] + "\u2026"
    for key, title in ((lead, SCRIPT_TITLE), (designer, IMG_TITLE)):
        o.page.locator(f"#node-{key}").hover()
        assert o.page.locator(f"#node-{key} title").text_content().startswith(title)
    o.page.locator(f"#node-{designer}").click()
    assert o.page.locator("#details .title").text_content() == IMG_TITLE
    results = o.page.locator("#results").text_content()
    assert SCRIPT_TITLE[:30] in results
    assert o.page.evaluate("typeof window.__pwned") == "undefined"
    assert o.page.evaluate("document.querySelectorAll('img, iframe, object').length") == 0
    assert o.page.evaluate("document.scripts.length") == 2
    assert o.errors == []


def test_search_finds_and_reveals_a_deep_page(open_map: Any, shop_tree: SiteTree) -> None:
    o = open_map()
    deep = key_of(shop_tree, DEEP_URL)
    assert o.page.locator(f"#node-{deep}").count() == 0  # hidden five levels down
    o.page.fill("#search", "needle")
    o.page.press("#search", "Enter")
    node = o.page.locator(f"#node-{deep}")
    node.wait_for()
    assert "match" in node.get_attribute("class")
    assert "sel" in node.get_attribute("class")
    assert o.page.locator("#results .hint").text_content().startswith("1 match")
    assert o.page.locator("#details .title").text_content() == DEEP_TITLE
    link = o.page.locator("#details dd a").first
    assert link.get_attribute("href") == DEEP_URL
    assert link.get_attribute("rel") == "noopener noreferrer"
    # every ancestor is expanded and drawn
    for anc in ("help/", "help/guides/", "help/guides/setup/advanced/"):
        assert o.page.locator(f"#node-{key_of(shop_tree, HOME + anc)}").count() == 1


def test_expand_collapse_and_more_groups_change_the_node_count(
    open_map: Any, shop_tree: SiteTree
) -> None:
    o = open_map()
    start = o.nodes()
    catalog = folder_key(shop_tree, "catalog")
    knob = o.page.locator(f"#node-{catalog} [data-knob]")
    assert o.page.locator(f"#node-{catalog}").get_attribute("aria-expanded") == "false"
    knob.click()
    assert o.nodes() == start + 50 + 1  # 50 products and the "+1150 more" group
    more = o.page.locator(f"#node-m{catalog[1:]}")
    assert more.locator(".l1").text_content() == "+1,150 more"
    more.dispatch_event("click")  # off-screen below: a user would pan to it
    assert o.nodes() == start + 1200
    # the parent now sits midway down 1,200 children, off-screen: click it where it is
    o.page.locator(f"#node-{catalog} [data-knob]").dispatch_event("click")
    assert o.nodes() == start
    o.page.click("#collapse-all")
    assert o.nodes() == 1 + len(shop_tree.nodes[shop_tree.root].children)
    o.page.fill("#depth-n", "2")
    o.page.click("#expand-depth")
    assert o.nodes() > 40
    before = o.nodes()
    help_key = key_of(shop_tree, f"{HOME}help/guides/")
    o.page.locator(f"#node-{help_key}").dispatch_event("dblclick")
    assert o.nodes() > before  # double-click expands
    o.page.locator(f"#node-{help_key}").dispatch_event("dblclick")
    assert o.nodes() == before  # and collapses
    assert o.errors == []


def test_exports_svg_png_and_json(open_map: Any, tmp_path: Path) -> None:
    o = open_map()
    files = {}
    for kind in ("svg", "png", "json"):
        with o.page.expect_download(timeout=15_000) as info:
            o.page.click(f"#export-{kind}")
        dl = info.value
        target = tmp_path / dl.suggested_filename
        dl.save_as(target)
        files[kind] = target
    svg = files["svg"].read_text("utf-8")
    assert svg.startswith("<svg")
    assert len(re.findall(r'class="node[ "]', svg)) == o.nodes()
    assert "<style>" in svg
    png = files["png"].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(png) > 5_000
    tree = json.loads(files["json"].read_text("utf-8"))
    assert tree["pages"] == len(shop_records())
    assert tree["tree"]["url"] == HOME
    assert len(tree["tree"]["children"]) >= 6
    # the page rebuilt every page URL from path segments exactly as crawled
    urls, stack = set(), [tree["tree"]]
    while stack:
        node = stack.pop()
        if node["kind"] == "page" or node.get("status"):
            urls.add(node["url"])
        stack.extend(node.get("children", []))
    assert urls == {r.url for r in shop_records()}
    assert o.errors == []


def test_keyboard_moves_expands_and_shows_details(open_map: Any) -> None:
    o = open_map()
    page = o.page
    page.focus("#map")
    assert page.get_attribute("#map", "aria-activedescendant") == "node-n0"
    page.keyboard.press("ArrowDown")
    first_child = page.get_attribute("#map", "aria-activedescendant")
    assert first_child != "node-n0"
    assert "focus" in page.get_attribute(f"#{first_child}", "class")
    before = o.nodes()
    page.keyboard.press("ArrowRight")  # expands the collapsed section
    assert o.nodes() > before
    page.keyboard.press("ArrowRight")  # moves into it
    inside = page.get_attribute("#map", "aria-activedescendant")
    assert inside != first_child
    page.keyboard.press("Space")
    assert page.locator("#details .title").count() == 1
    page.keyboard.press("ArrowLeft")  # back to the parent
    assert page.get_attribute("#map", "aria-activedescendant") == first_child
    page.keyboard.press("Enter")  # collapse it again
    assert o.nodes() == before
    assert o.errors == []


def test_layouts_views_and_legend_counts(open_map: Any, shop_tree: SiteTree) -> None:
    o = open_map()
    page = o.page
    for layout in ("vertical", "radial", "horizontal"):
        page.select_option("#layout", layout)
        assert o.nodes() > 5
    page.select_option("#view", "depth")
    assert o.nodes() > 5
    assert page.locator("#node-n0").count() == 1  # the home page is the depth root
    generated = page.evaluate(
        "JSON.parse(document.getElementById('sitemap-data').textContent).generated"
    )
    now = datetime.fromisoformat(generated)
    products = key_of(shop_tree, f"{HOME}products/")
    page.locator(f"#node-{products}").dispatch_event("click")

    def counts(selector: str) -> dict[str, int]:
        return {
            li.get_attribute("data-key"): int(li.locator(".n").text_content().replace(",", ""))
            for li in page.locator(selector).all()
        }

    for mode in ("section", "indexability", "depth", "lastmod", "status"):
        page.select_option("#color", mode)
        assert counts("#legend li[data-key]") == shop_tree.color_counts(mode, now), mode
        # the details panel breaks the selected branch down the same way
        assert counts("#breakdown li[data-key]") == shop_tree.color_counts(
            mode, now, under=int(products[1:]), view="depth"
        ), mode
    page.locator("#legend li[data-key='4xx']").click()
    assert page.locator("#map .node:not(.dim)").count() < o.nodes()
    page.emulate_media(media="print")
    assert not page.locator(".toolbar").is_visible()
    assert not page.locator("aside").is_visible()
    assert page.locator("#map").is_visible()
    assert o.errors == []


def test_a_big_map_opens_with_only_the_top_drawn(open_map: Any, tmp_path: Path) -> None:
    from sitemapkit.model import PageRecord

    recs = [PageRecord(f"https://big.example/s{i % 10}/c{i % 100}/p{i}") for i in range(20_000)]
    recs += [PageRecord(f"https://shop.big.example/{i % 3}/x{i}?q={i}") for i in range(300)]
    recs.append(PageRecord("https://shop.big.example/"))
    out = write_visual_map(recs, tmp_path / "big.html")
    o = open_map(out)
    assert 5 < o.nodes() < 200
    # sections of a two-host site: the same in the page as in the model
    legend = {
        li.get_attribute("data-key"): int(li.locator(".n").text_content().replace(",", ""))
        for li in o.page.locator("#legend li[data-key]").all()
    }
    assert legend == SiteTree.from_records(recs).color_counts("section")
    assert legend["shop.big.example"] == 301  # the smaller host is one section
    assert legend["s0"] == 2000  # the main host keeps plain section names
    assert o.errors == []


def test_big_expanded_trees_draw_only_what_is_near_the_screen(
    open_map: Any, tmp_path: Path
) -> None:
    from sitemapkit.model import PageRecord

    recs = [PageRecord(f"https://wide.example/s{i % 3}/p{i}") for i in range(3000)]
    out = write_visual_map(recs, tmp_path / "wide.html", max_children=5000)
    o = open_map(out)
    page = o.page
    page.click("#expand-all")
    laid_out = int(page.get_attribute("#map", "data-nodes"))
    drawn = int(page.get_attribute("#map", "data-drawn"))
    assert laid_out == 1 + 3 + 3000
    assert 0 < drawn < 1000
    assert o.nodes() == drawn
    # walking to the last node pans there, and it is drawn on arrival
    page.focus("#map")
    page.keyboard.press("End")
    last = page.get_attribute("#map", "aria-activedescendant")
    assert page.locator(f"#{last}").count() == 1
    assert "focus" in page.get_attribute(f"#{last}", "class")
    # an export still holds the whole laid-out tree
    with page.expect_download(timeout=15_000) as info:
        page.click("#export-svg")
    target = tmp_path / "wide.svg"
    info.value.save_as(target)
    assert len(re.findall(r'class="node[ "]', target.read_text("utf-8"))) == laid_out
    assert o.nodes() < laid_out  # and the page went back to drawing only the near part
    assert o.errors == []


def test_without_javascript_the_plain_list_shows(
    pw: Any, shop_map: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    profile = tmp_path_factory.mktemp("chromium-nojs")
    with chromium(pw, profile, java_script_enabled=False) as ctx:
        page = ctx.new_page()
        page.goto(shop_map.as_uri())
        about = page.get_by_role("link", name="About", exact=True)
        assert about.get_attribute("href") == f"{HOME}about/"
        assert about.get_attribute("rel") == "noopener noreferrer"
        assert page.get_by_text(SCRIPT_TITLE, exact=True).count() == 1  # text, not markup
        listed = re.search(r"<noscript>(.*?)</noscript>", shop_map.read_text("utf-8"), re.S)
        assert listed is not None
        assert page.locator("li").count() == listed.group(1).count("<li>")
        assert page.get_by_text("\u2026 and 1,150 more", exact=True).count() == 1
        assert page.locator("svg .node").count() == 0


def test_a_deflated_map_works_like_a_plain_one(open_map: Any, tmp_path: Path) -> None:
    """Big maps carry their data deflated in base64: same map, same search, nothing fetched."""
    from sitemapkit.visual.page import render_html

    tree = SiteTree.from_records(shop_records())
    out = tmp_path / "packed.html"
    out.write_text(render_html(tree, title="Example Shop", pack_over=0), "utf-8")
    assert 'data-encoding="deflate"' in out.read_text("utf-8")
    o = open_map(out)
    assert o.errors == []
    assert o.requests == [out.as_uri()]
    assert o.page.locator("#node-n0 .l1").text_content() == "Example Shop"
    o.page.fill("#search", "needle")
    o.page.press("#search", "Enter")
    o.page.locator(f"#node-{key_of(tree, DEEP_URL)}").wait_for()
    assert o.page.locator("#details .title").text_content() == DEEP_TITLE


def test_a_huge_folder_opens_step_by_step_and_search_pins_the_way(
    open_map: Any, tmp_path: Path
) -> None:
    """5,000 pages in one folder: "+N more" opens 2,000 at a time, and a search reveals
    the last page without laying out the thousands before it."""
    tree = SiteTree.from_urls((f"https://flat.example/p{i}", None) for i in range(5000))
    o = open_map(write_visual_map(tree, tmp_path / "flat.html"))
    page = o.page

    def laid_out() -> int:
        return int(page.get_attribute("#map", "data-nodes"))

    assert laid_out() == 1 + 50 + 1
    more = page.locator("#node-m0")
    assert more.locator(".l1").text_content() == "+4,950 more"
    assert more.locator(".l2").text_content() == "click for the next 2,000"
    more.dispatch_event("click")
    assert laid_out() == 1 + 2050 + 1
    page.fill("#search", "p4999")
    page.press("#search", "Enter")
    last = f"#node-{key_of(tree, 'https://flat.example/p4999')}"
    page.locator(last).wait_for()
    assert "sel" in page.get_attribute(last, "class")
    # the found page, pinned beside the group (not the 2,949 pages before it)
    assert laid_out() == 1 + 2050 + 1 + 1
    assert o.errors == []
