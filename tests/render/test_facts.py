"""Rendered facts come from the crawler's own extractor and merge as Google would read them."""

from __future__ import annotations

from sitemapkit.crawl.extract import Link, extract_page
from sitemapkit.render.facts import merge_facts, rendered_facts, rendered_only

URL = "https://example.com/page"
RAW_HEADERS = {"Content-Type": "text/html; charset=iso-8859-1"}


def test_rendered_dom_is_read_as_utf8_with_the_response_headers() -> None:
    dom = "<html><head></head><body><a href='/caf\u00e9'>x</a></body></html>"
    headers = {"Content-Type": "text/html; charset=iso-8859-1", "X-Robots-Tag": "nofollow"}
    facts = rendered_facts(dom, url=URL, headers=headers)
    assert [link.url for link in facts.links] == ["https://example.com/caf%C3%A9"]
    assert facts.nofollow  # the header still counts
    assert facts.encoding == "utf-8"


def test_merge_keeps_raw_links_adds_rendered_ones_and_robots_add_up() -> None:
    raw = extract_page(
        b"<html><head><link rel=canonical href=/raw-canonical><title>Raw</title></head><body>"
        b"<a href=/gone>gone</a><a href=/both rel=nofollow>b</a></body></html>",
        url=URL,
        headers=RAW_HEADERS,
    )
    dom = (
        "<html><head><link rel=canonical href=/js-canonical><title>Rendered</title>"
        "<meta name=robots content=noindex></head><body>"
        "<a href=/both>b</a><a href=/new>n</a></body></html>"
    )
    rendered = rendered_facts(dom, url=URL, headers=RAW_HEADERS)
    merged = merge_facts(raw, rendered, ("https://example.com/moved",))
    assert merged.links == (
        Link("https://example.com/gone"),
        Link("https://example.com/both"),  # followed once any copy is followable
        Link("https://example.com/new"),
        Link("https://example.com/moved"),
    )
    assert rendered_only(raw, merged) == ("https://example.com/new", "https://example.com/moved")
    assert merged.canonical == "https://example.com/js-canonical"
    assert merged.title == "Rendered"
    assert merged.noindex  # a script's noindex counts


def test_a_header_canonical_is_not_overridden_by_script() -> None:
    headers = {"Content-Type": "text/html", "Link": '</by-header>; rel="canonical"'}
    raw = extract_page(b"<html><body></body></html>", url=URL, headers=headers)
    rendered = rendered_facts(
        "<html><head><link rel=canonical href=/by-script></head></html>", url=URL, headers=headers
    )
    assert merge_facts(raw, rendered).canonical == "https://example.com/by-header"
