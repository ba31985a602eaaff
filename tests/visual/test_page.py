"""The HTML page: structure, CSP, safe JSON, noscript fallback, sizes, atomic publish."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.errors import PublishError
from sitemapkit.model import PageRecord
from sitemapkit.visual.page import (
    NOSCRIPT_CAP,
    publish_visual_map,
    render_html,
    write_visual_map,
)
from sitemapkit.visual.payload import MAX_TITLE, script_safe_json
from sitemapkit.visual.tree import SiteTree

from .shop import IMG_TITLE, SCRIPT_TITLE, shop_records

SCRIPT_RE = re.compile(r"<script([^>]*)>(.*?)</script>", re.S)


@pytest.fixture(scope="module")
def shop_html() -> str:
    return render_html(SiteTree.from_records(shop_records(catalog=200)), title="Shop <map> & co")


def scripts(page: str) -> list[tuple[str, str]]:
    return SCRIPT_RE.findall(page)


def data_of(page: str) -> dict[str, object]:
    (body,) = [b for attrs, b in scripts(page) if 'type="application/json"' in attrs]
    return json.loads(body)  # type: ignore[no-any-return]


def test_exactly_two_scripts_data_then_code(shop_html: str) -> None:
    found = scripts(shop_html)
    assert len(found) == 2
    assert found[0][0] == ' id="sitemap-data" type="application/json"'
    assert found[1][0] == ""


def test_csp_allows_only_the_shipped_script_and_style(shop_html: str) -> None:
    m = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', shop_html)
    assert m is not None
    csp = m.group(1)
    assert csp.startswith("default-src 'none'; ")
    assert "unsafe-inline" not in csp
    assert "unsafe-eval" not in csp
    code = scripts(shop_html)[1][1]
    digest = base64.b64encode(hashlib.sha256(code.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in csp
    style = re.search(r'<style id="app-style">(.*?)</style>', shop_html, re.S)
    assert style is not None
    sdigest = base64.b64encode(hashlib.sha256(style.group(1).encode()).digest()).decode()
    assert f"style-src 'sha256-{sdigest}'" in csp
    assert "img-src data: blob:" in csp


def test_nothing_is_loaded_from_anywhere(shop_html: str) -> None:
    without_noscript = re.sub(r"<noscript>.*?</noscript>", "", shop_html, flags=re.S)
    assert not re.search(r"""\s(src|href)=["']?(https?:)?//""", without_noscript)
    assert '<link rel="stylesheet"' not in shop_html
    assert re.search(r"<script[^>]*\ssrc=", shop_html) is None


def test_title_is_escaped_in_head_and_header(shop_html: str) -> None:
    assert "<title>Shop &lt;map&gt; &amp; co</title>" in shop_html
    assert "<h1>Shop &lt;map&gt; &amp; co</h1>" in shop_html


def test_hostile_titles_cannot_leave_the_data_block(shop_html: str) -> None:
    body = scripts(shop_html)[0][1]
    for bad in ("<", ">", "&", "\u2028", "\u2029"):
        assert bad not in body
    titles = data_of(shop_html)["t"]
    assert SCRIPT_TITLE in titles  # type: ignore[operator]
    assert IMG_TITLE in titles  # type: ignore[operator]
    # and nothing else in the page carries them raw
    assert SCRIPT_TITLE not in shop_html
    assert IMG_TITLE not in shop_html


def test_script_safe_json_round_trips_every_nasty_character() -> None:
    value = {"t": "</script><!-- \u2028\u2029 & <b> \x00 \ud800 é", "n": [1, -1]}
    text = script_safe_json(value)
    assert "</" not in text
    assert json.loads(text) == value


def test_noscript_lists_pages_escaped(shop_html: str) -> None:
    ns = re.search(r"<noscript>(.*?)</noscript>", shop_html, re.S)
    assert ns is not None
    html = ns.group(1)
    assert "&lt;/script&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;" in html
    assert '<a href="https://shop.example/about/" rel="noopener noreferrer">About</a>' in html
    assert html.count("<ul>") == html.count("</ul>")
    assert html.count("<li>") == html.count("</li>")


def test_noscript_is_capped_for_huge_sites() -> None:
    recs = [PageRecord(f"https://x.example/p{i}") for i in range(NOSCRIPT_CAP + 500)]
    page = render_html(SiteTree.from_records(recs), max_children=100_000)
    ns = re.search(r"<noscript>(.*?)</noscript>", page, re.S)
    assert ns is not None
    assert ns.group(1).count("<li>") == NOSCRIPT_CAP
    assert "the list stops at 2,000 entries" in ns.group(1)


def test_noscript_folds_big_branches_like_the_map() -> None:
    recs = [PageRecord(f"https://x.example/big/p{i}") for i in range(500)]
    recs += [PageRecord(f"https://x.example/small/p{i}") for i in range(3)]
    page = render_html(SiteTree.from_records(recs), max_children=50)
    ns = re.search(r"<noscript>(.*?)</noscript>", page, re.S)
    assert ns is not None
    body = ns.group(1)
    # host, big, 50 pages, "+450 more", small, its 3 pages
    assert body.count("<li>") == 1 + 1 + 50 + 1 + 1 + 3
    assert "<li>&hellip; and 450 more</li>" in body
    assert "https://x.example/small/p2" in body
    assert "stops at" not in body


def test_options_choose_what_the_page_shows_first() -> None:
    tree = SiteTree.from_records(shop_records(catalog=3))
    page = render_html(tree, view="depth", layout="radial", color="status", max_children=7)
    assert '<option value="depth" selected>' in page
    assert '<option value="radial" selected>' in page
    assert '<option value="status" selected>' in page
    assert data_of(page)["max"] == 7
    with pytest.raises(ValueError, match="unknown"):
        render_html(tree, layout="spiral")


def test_depth_view_is_offered_only_for_crawls() -> None:
    tree = SiteTree.from_records([PageRecord("https://x.example/a")])
    page = render_html(tree, view="depth")
    assert "by crawl depth" not in page
    assert "q" not in data_of(page)


def test_write_is_atomic_and_leaves_no_temp_files(tmp_path: Path) -> None:
    out = tmp_path / "map.html"
    assert write_visual_map(shop_records(catalog=3), out, title="T") == out
    assert [p.name for p in tmp_path.iterdir()] == ["map.html"]
    assert out.read_text("utf-8").startswith("<!DOCTYPE html>")


def test_write_into_a_missing_folder_is_a_publish_error(tmp_path: Path) -> None:
    with pytest.raises(PublishError, match="cannot write the visual map"):
        write_visual_map(shop_records(catalog=3), tmp_path / "nope" / "map.html")


def test_default_title_names_the_host(tmp_path: Path) -> None:
    out = write_visual_map([PageRecord("https://x.example/a")], tmp_path / "m.html")
    assert "<title>Site map of x.example</title>" in out.read_text("utf-8")


def test_empty_source_is_refused_when_asked(tmp_path: Path) -> None:
    assert publish_visual_map([], tmp_path / "m.html", refuse_empty=True) is None
    assert not (tmp_path / "m.html").exists()


def test_lone_surrogates_from_broken_encodings_do_not_crash(tmp_path: Path) -> None:
    out = write_visual_map(
        [PageRecord("https://x.example/a", title="bad \udcff byte")], tmp_path / "m.html"
    )
    assert "bad ? byte" in out.read_text("utf-8")


def big_site(n: int) -> list[PageRecord]:
    """A realistic big site: sections, subsections, long titles, crawl fields filled."""
    recs = [PageRecord("https://www.big-retailer.example/", status=200, depth=0, title="Home")]
    for i in range(n - 1):
        sec = f"section-{i % 20}"
        sub = f"category-{(i // 20) % 50}"
        url = f"https://www.big-retailer.example/{sec}/{sub}/product-name-number-{i}"
        recs.append(
            PageRecord(
                url,
                status=200 if i % 17 else 404,
                depth=1 + i % 5,
                title=f"Product name number {i} – Big Retailer, free delivery",
                indexable=bool(i % 17),
                reason=None if i % 17 else "http-404",
                inlinks=i % 40,
                outlinks=30 + i % 20,
                lastmod="2026-10-01T12:00:00+00:00",
                lastmod_source="http-last-modified",
                content_type="text/html; charset=utf-8",
            )
        )
    return recs


def test_size_for_10000_pages_is_under_3_mb(tmp_path: Path) -> None:
    out = write_visual_map(big_site(10_000), tmp_path / "m.html")
    size = out.stat().st_size
    assert size < 3 * 1024 * 1024, size


@pytest.mark.slow
def test_size_for_100000_pages_is_under_25_mb(tmp_path: Path) -> None:
    out = write_visual_map(big_site(100_000), tmp_path / "m.html")
    size = out.stat().st_size
    assert size < 25 * 1024 * 1024, size


@given(
    title=st.text(max_size=40),
    path=st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=20),
)
@settings(max_examples=60, deadline=None)
def test_no_title_or_url_can_open_or_close_an_element(title: str, path: str) -> None:
    recs = [PageRecord(f"https://x.example/{path}", title=title), PageRecord("https://x.example/")]
    page = render_html(SiteTree.from_records(recs), title=title)
    assert page.count("</script>") == 2
    assert page.count("<script") == 2
    assert page.count("</noscript>") == 1
    assert page.count("</title>") == 1
    data = data_of(page)
    assert title.strip() == "" or " ".join(title.split()) in data["t"]  # type: ignore[operator]


def test_huge_titles_are_capped() -> None:
    page = render_html(SiteTree.from_records([PageRecord("https://x.example/", title="A" * 10**6)]))
    (title,) = data_of(page)["t"]  # type: ignore[misc]
    assert len(title) == MAX_TITLE
    assert title.endswith("\u2026")
    assert len(page) < 200_000
