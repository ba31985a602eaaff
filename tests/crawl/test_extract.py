"""extract_page on real-looking pages: links, canonical, hreflang, robots, lastmod, decoding."""

from __future__ import annotations

import codecs
import html
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.crawl import extract
from sitemapkit.crawl.extract import (
    MAX_LINKS_PER_PAGE,
    MAX_TITLE_LENGTH,
    Link,
    decode_body,
    extract_page,
    is_html_content_type,
    parse_link_header,
    robots_directives,
)
from sitemapkit.model import Alternate

FIXTURES = Path(__file__).parent / "fixtures"
NOW = datetime(2026, 11, 22, tzinfo=UTC)
HTML = {"Content-Type": "text/html; charset=utf-8"}


def page(markup: str | bytes, url: str = "https://example.com/dir/page.html", **headers: str):
    body = markup.encode() if isinstance(markup, str) else markup
    return extract_page(body, url=url, headers={**HTML, **headers}, now=NOW)


def test_wordpress_post() -> None:
    body = (FIXTURES / "wordpress_post.html").read_bytes()
    url = "https://lumen.example.co.uk/blog/choose-a-reading-lamp/"
    facts = extract_page(body, url=url, headers=HTML, now=NOW)
    assert facts.title == "How to Choose a Reading Lamp (2026 Guide) – Lumen & Co"
    assert facts.h1 == "How to Choose a Reading Lamp"  # &nbsp; collapsed like other spaces
    assert facts.canonical == url
    assert facts.self_canonical
    assert facts.canonical_source == "link-rel"
    assert facts.alternates == (
        Alternate("en-gb", url),
        Alternate("fr-fr", "https://lumen.example.co.uk/fr/blog/choisir-une-lampe/"),
        Alternate("x-default", url),
    )
    assert not facts.noindex
    assert not facts.nofollow
    assert (facts.lastmod, facts.lastmod_source) == (
        "2026-04-30T14:03:10+00:00",  # valid W3C text is kept as the site wrote it
        "article:modified_time",
    )
    urls = [link.url for link in facts.links]
    assert urls == [
        "https://lumen.example.co.uk/",
        "https://lumen.example.co.uk/shop/",
        "https://lumen.example.co.uk/blog/",
        "https://lumen.example.co.uk/about-us/",
        "https://lumen.example.co.uk/contact/",
        "https://lumen.example.co.uk/blog/colour-temperature-explained/",
        "https://lumen.example.co.uk/shop/reading-lamps/",
        "https://www.amazon.example/dp/B0000?tag=lumen-21",
        "https://spammy.example/",
        "https://lumen.example.co.uk/blog/dimmers-101/",
        "https://lumen.example.co.uk/privacy-policy/",
        "https://lumen.example.co.uk/wp-login.php",
        url,
    ]
    nofollow = {link.url for link in facts.links if link.nofollow}
    assert nofollow == {
        "https://www.amazon.example/dp/B0000?tag=lumen-21",
        "https://spammy.example/",
        "https://lumen.example.co.uk/wp-login.php",
    }
    followed = {link.url for link in facts.follow_links()}
    assert followed == set(urls) - nofollow
    assert facts.images == (
        "https://lumen.example.co.uk/wp-content/uploads/2026/02/reading-lamp-1024x683.jpg",
    )


def test_shop_product_page() -> None:
    body = (FIXTURES / "shop_product.html").read_bytes()
    url = "https://leuchtenhaus.example/products/stehlampe-kranich"
    facts = extract_page(body, url=url, headers={"content-type": "text/html"}, now=NOW)
    assert facts.title == "Stehlampe „Kranich“ – Messing | Leuchtenhaus"
    assert facts.noindex  # <meta name=googlebot content=noindex>
    assert not facts.nofollow
    assert facts.lastmod == "2026-06-01T08:00:00+02:00"
    assert facts.lastmod_source == "og:updated_time"
    by_url = {link.url: link for link in facts.links}
    assert "https://leuchtenhaus.example/not-a-link" not in by_url  # text inside <script>
    assert by_url["https://leuchtenhaus.example/pages/masse"].kind == "area"
    # one followed copy of a link is enough to follow it
    assert not by_url[
        "https://leuchtenhaus.example/products/stehlampe-kranich?variant=4411"
    ].nofollow
    frame = by_url["https://www.youtube-nocookie.example/embed/abc"]
    assert frame.kind == "frame"
    assert frame not in list(facts.follow_links())
    assert (
        "https://leuchtenhaus.example/collections/all?filter.v.price.gte=100&sort_by=price-ascending"
        in by_url
    )
    assert facts.images[:2] == (
        "https://leuchtenhaus.example/cdn/shop/files/kranich.jpg?v=1714",
        "https://leuchtenhaus.example/cdn/shop/files/kranich-detail.jpg?v=1714",
    )


def test_base_href_changes_resolution_but_not_the_page_url() -> None:
    facts = page(
        '<html><head><base href="/docs/v2/"><link rel=canonical href="intro.html"></head>'
        '<body><a href="intro.html">i</a><a href="../v1/old.html">o</a><img src="a.png"></body>',
        url="https://example.com/docs/",
    )
    assert facts.url == "https://example.com/docs/"
    assert facts.base_url == "https://example.com/docs/v2/"
    assert [link.url for link in facts.links] == [
        "https://example.com/docs/v2/intro.html",
        "https://example.com/docs/v1/old.html",
    ]
    assert facts.canonical == "https://example.com/docs/v2/intro.html"
    assert facts.images == ("https://example.com/docs/v2/a.png",)


def test_javascript_base_is_ignored() -> None:
    facts = page('<base href="javascript:alert(1)"><a href="x.html">x</a>')
    assert facts.base_url is None
    assert facts.links == (Link("https://example.com/dir/x.html"),)


def test_non_web_links_dropped() -> None:
    facts = page(
        '<a href="mailto:a@b.c">m</a><a href="javascript:void(0)">j</a><a href="tel:1">t</a>'
        '<a href="data:text/html,hi">d</a><a href="">self</a><a href="#x">frag</a><a>none</a>'
    )
    assert facts.links == (Link("https://example.com/dir/page.html"),)


def test_meta_refresh_forms() -> None:
    for content in ("0; url=/next", "0;URL='/next'", '5 ; url = "/next"', "0,url=/next"):
        facts = page(f'<meta http-equiv="Refresh" content="{html.escape(content)}">')
        assert facts.meta_refresh == "https://example.com/next", content
        assert facts.links[0] == Link("https://example.com/next", False, "meta-refresh")
    assert page('<meta http-equiv="refresh" content="30">').meta_refresh is None
    assert page('<meta http-equiv="refresh" content="0; url=page.html">').meta_refresh is None
    facts = extract_page(b"<p>x</p>", url="https://example.com/a", headers={"Refresh": "0; url=/b"})
    assert facts.meta_refresh == "https://example.com/b"


@pytest.mark.parametrize(
    ("meta", "header", "noindex", "nofollow"),
    [
        ("noindex", None, True, False),
        ("NOINDEX, NOFOLLOW", None, True, True),
        ("none", None, True, True),
        ("index, follow", None, False, False),
        ("max-snippet:-1, max-image-preview:large", None, False, False),
        (None, "noindex", True, False),
        (None, "googlebot: noindex", True, False),
        (None, "googlebot: noindex, nofollow", True, True),
        (None, "otherbot: noindex, nofollow", False, False),
        (None, "otherbot: noindex, googlebot: nofollow", False, True),
        (None, "none", True, True),
        (None, "unavailable_after: 25 Jun 2010 15:00:00 PST", False, False),
        (None, "unavailable_after: Friday, 25-Jun-10 15:00:00 PST, noindex", True, False),
        (None, "max-snippet: 20, nofollow", False, True),
    ],
)
def test_robots_directives(
    meta: str | None, header: str | None, noindex: bool, nofollow: bool
) -> None:
    markup = f'<meta name="robots" content="{meta}">' if meta else "<p>x</p>"
    headers = {"X-Robots-Tag": header} if header else {}
    facts = page(markup, **headers)
    assert (facts.noindex, facts.nofollow) == (noindex, nofollow)


def test_robots_meta_for_other_bots_ignored() -> None:
    facts = page(
        '<meta name="bingbot" content="noindex"><meta name="GoogleBot" content="nofollow">'
    )
    assert not facts.noindex
    assert facts.nofollow
    assert not list(facts.follow_links())


def test_repeated_x_robots_tag_headers_in_a_multidict() -> None:
    from multidict import CIMultiDict

    headers = CIMultiDict([("X-Robots-Tag", "max-snippet:10"), ("x-robots-tag", "noindex")])
    facts = extract_page(b"<p>x</p>", url="https://example.com/", headers=headers)
    assert facts.noindex
    assert robots_directives(["googlebot: none"], header=True) == (True, True)


def test_canonical_from_link_header_wins_and_conflicts_cancel() -> None:
    facts = page(
        '<link rel="canonical" href="/html-canonical">',
        Link='<https://example.com/header-canonical>; rel="canonical"',
    )
    assert facts.canonical == "https://example.com/header-canonical"
    assert facts.canonical_source == "http-link"
    conflicting = page('<link rel="canonical" href="/a"><link rel="canonical" href="/b">')
    assert conflicting.canonical is None
    same_twice = page('<link rel="canonical" href="/a"><link rel="CANONICAL" href="/a#x">')
    assert same_twice.canonical == "https://example.com/a"
    assert page('<link rel="canonical" href="mailto:x@y">').canonical is None


def test_link_header_parsing_and_hreflang_from_headers() -> None:
    value = (
        '<https://example.com/de/>; rel="alternate"; hreflang="de", '
        "<https://example.com/>; rel=alternate; hreflang=x-default, junk, <bad"
    )
    assert parse_link_header(value) == [
        ("https://example.com/de/", {"rel": "alternate", "hreflang": "de"}),
        ("https://example.com/", {"rel": "alternate", "hreflang": "x-default"}),
    ]
    facts = page("<p>x</p>", Link=value)
    assert facts.alternates == (
        Alternate("de", "https://example.com/de/"),
        Alternate("x-default", "https://example.com/"),
    )


@pytest.mark.parametrize(
    ("head", "headers", "expected"),
    [
        (
            '<meta property="article:modified_time" content="2026-01-02T03:04:05Z">',
            {},
            ("2026-01-02T03:04:05Z", "article:modified_time"),
        ),
        (
            '<meta property="article:modified_time" content="2026-01-02T03:04:05+0100">',
            {},
            ("2026-01-02T03:04:05+01:00", "article:modified_time"),
        ),
        ('<meta property="article:modified_time" content="2026-01-02T03:04:05">', {}, (None, None)),
        ('<meta property="article:modified_time" content="yesterday">', {}, (None, None)),
        ('<meta property="article:modified_time" content="2099-01-01">', {}, (None, None)),
        ('<meta property="og:updated_time" content="2026-02-30">', {}, (None, None)),
        (
            '<meta itemprop="dateModified" content="2025-12-24">',
            {},
            ("2025-12-24", "itemprop:dateModified"),
        ),
        (
            '<script type="application/ld+json">'
            '[{"a": {"b": {"dateModified": "2025-05-05"}}}]</script>',
            {},
            ("2025-05-05", "json-ld"),
        ),
        (
            '<script type="application/ld+json">{"dateModified": </script>'
            '<script type="application/ld+json">{"dateModified": 20250505}</script>',
            {"Last-Modified": "Wed, 21 Oct 2015 07:28:00 GMT"},
            ("2015-10-21T07:28:00Z", "last-modified"),
        ),
        ("", {"Last-Modified": "not a date"}, (None, None)),
        ("", {"Last-Modified": "Wed, 21 Oct 2099 07:28:00 GMT"}, (None, None)),
        ("", {}, (None, None)),
    ],
)
def test_lastmod_sources(
    head: str, headers: dict[str, str], expected: tuple[str | None, str | None]
) -> None:
    facts = page(f"<html><head>{head}</head><body>x</body></html>", **headers)
    assert (facts.lastmod, facts.lastmod_source) == expected


def test_last_modified_that_is_only_the_response_time_is_refused() -> None:
    """Dynamic sites stamp Last-Modified with the current time: that is the crawl time."""
    stamped = {
        "Date": "Sun, 22 Nov 2026 00:00:30 GMT",
        "Last-Modified": "Sun, 22 Nov 2026 00:00:30 GMT",
    }
    assert page("<p>x</p>", **stamped).lastmod is None
    no_date = page("<p>x</p>", **{"Last-Modified": "Sun, 22 Nov 2026 00:00:00 GMT"})
    assert no_date.lastmod is None  # equal to `now` of the crawl
    real = page(
        "<p>x</p>",
        **{
            "Date": "Sun, 22 Nov 2026 00:00:30 GMT",
            "Last-Modified": "Fri, 20 Nov 2026 10:00:00 GMT",
        },
    )
    assert (real.lastmod, real.lastmod_source) == ("2026-11-20T10:00:00Z", "last-modified")


def test_deeply_nested_json_ld_does_not_crash() -> None:
    deep = "[" * 50_000 + "]" * 50_000
    facts = page(f'<script type="application/ld+json">{deep}</script>')
    assert facts.lastmod is None


def test_title_is_text_collapsed_and_capped() -> None:
    facts = page("<title>  </script><script>alert(1)</script>\n\n &lt;b&gt;  </title>")
    assert facts.title == "</script><script>alert(1)</script> <b>"  # RCDATA: all text
    evil = page("<title>&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt;</title>")
    assert evil.title == "</title><script>alert(1)</script>"
    long = page("<title>" + "word " * 1000 + "</title>")
    assert long.title is not None
    assert len(long.title) == MAX_TITLE_LENGTH
    assert page("<title>   </title>").title is None


def test_decoding_order() -> None:
    latin = "<meta charset=iso-8859-1><title>Größe</title>".encode("latin-1")
    assert decode_body(latin)[0].endswith("<title>Größe</title>")
    assert decode_body(latin)[1] == "cp1252"
    equiv = (
        b'<meta http-equiv="Content-Type" content="text/html; charset=windows-1251">\xcf\xf0\xe8'
    )
    assert decode_body(equiv)[0].endswith("При")
    # the HTTP charset beats <meta>; a BOM beats both
    assert decode_body(latin, "text/html; charset=utf-8")[1] == "utf-8"
    assert decode_body(b"\xef\xbb\xbf<p>\xc3\xa9", "text/html; charset=latin-1") == (
        "<p>é",
        "utf-8",
    )
    utf16 = "\ufeff<p>é</p>".encode("utf-16-le")
    assert decode_body(utf16)[0] == "<p>é</p>"
    # unknown labels and meta utf-16 fall back to UTF-8
    assert decode_body(b"<meta charset=klingon>\xc3\xa9")[1] == "utf-8"
    assert decode_body(b"<meta charset=utf-16>\xc3\xa9")[1] == "utf-8"


def test_broken_utf8_does_not_crash_and_keeps_links() -> None:
    body = b"<title>Caf\xe9 \xff\xfe</title><a href='/caf\xe9/'>x</a><a href='/ok'>ok</a>"
    facts = extract_page(body, url="https://example.com/", headers=HTML)
    assert facts.title == "Caf\ufffd \ufffd\ufffd"
    assert "https://example.com/ok" in [link.url for link in facts.links]
    assert "https://example.com/caf%EF%BF%BD/" in [link.url for link in facts.links]


def test_latin1_page_links_become_utf8_escapes() -> None:
    body = "<meta charset='latin1'><a href='/über-uns/'>x</a>".encode("latin-1")
    facts = extract_page(body, url="https://example.com/", headers={"Content-Type": "text/html"})
    assert facts.links == (Link("https://example.com/%C3%BCber-uns/"),)


def test_link_cap_and_dedup_keep_huge_pages_bounded() -> None:
    links = "".join(f'<a href="/p/{i}">{i}</a>' for i in range(MAX_LINKS_PER_PAGE + 50))
    dupes = '<a href="/p/1">again</a>' * 1000
    facts = page(f"<body>{links}{dupes}</body>")
    assert len(facts.links) == MAX_LINKS_PER_PAGE
    assert facts.links_dropped == 50 + 1000  # link elements not examined once full


def test_not_html_bodies_yield_nothing() -> None:
    facts = extract_page(bytes(range(256)) * 100, url="https://example.com/x", headers={})
    assert facts.links == ()
    assert facts.title is None


def test_content_type_check() -> None:
    assert is_html_content_type("text/html; charset=utf-8")
    assert is_html_content_type("Application/XHTML+XML")
    assert is_html_content_type(None)
    assert not is_html_content_type("application/pdf")
    assert not is_html_content_type("text/plain")


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=3000))
def test_arbitrary_bytes_never_raise(body: bytes) -> None:
    facts = extract_page(body, url="https://example.com/", headers={"X-Robots-Tag": "noindex"})
    assert facts.noindex


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "<a href='",
                "'>",
                "<title>",
                "</title>",
                "<meta name=robots content='",
                "<base href='",
                "<link rel=canonical href='",
                "<script type=application/ld+json>",
                "</script>",
                "/x",
                "javascript:",
                "//",
                "é",
                "\x00",
                "<!--",
                "-->",
                "&amp;",
                "<img src='",
                "\\",
                "?a=1#f",
            ]
        ),
        max_size=40,
    ).map("".join)
)
def test_arbitrary_markup_never_raises(markup: str) -> None:
    facts = page(markup)
    for link in facts.links:
        assert link.url.startswith(("http://", "https://"))


# --- huge pages are parsed a segment at a time ---------------------------------------


def _huge_page(rows: int = 40_000) -> str:
    """~3 MB: a table of links, a script and a comment that hold closing block tags."""
    script = "<script>var s = '</div></tr>'; if (a<b) { x = '</li>'; }</script>"
    comment = "<!-- </tr></div> a comment with <a href='/not-a-link'>x</a> -->"
    body = "".join(
        f'<tr><td><a href="/p/{i}">page {i}</a> text {i}</td></tr>'
        + (script if i % 5000 == 10 else "")
        + (comment if i % 7000 == 20 else "")
        for i in range(rows)
    )
    return (
        '<!doctype html><html><head><title>Huge</title><link rel="canonical" href="/huge">'
        f"</head><body><h1>All pages</h1><table>{body}</table>"
        '<a href="/last" rel="nofollow">last</a></body></html>'
    )


def test_segments_cover_the_text_and_never_cut_raw_text() -> None:
    text = _huge_page()
    pieces = list(extract.html_segments(text, 100_000))
    assert "".join(pieces) == text
    assert len(pieces) > 20
    for piece in pieces[:-1]:
        assert re.search(r"</(tr|td|table|li|div|p)\s*>$", piece, re.I), piece[-40:]
        lower = piece.lower()
        assert lower.count("<script") == lower.count("</script")
        assert lower.count("<!--") == lower.count("-->")
    small = "<title>x</title><p>one</p>"
    assert list(extract.html_segments(small)) == [small]


def _safe_cut_rescanning(text: str, start: int, at: int) -> int | None:
    """The cut as first written: every candidate re-scanned the raw text from ``start``."""
    for tries, m in enumerate(extract._BLOCK_END.finditer(text, at)):
        if tries >= 64:
            return None
        open_kind: str | None = None
        for mark in extract._RAW_TEXT.finditer(text, start, m.end()):
            opener, closer = mark.group(1), mark.group(2)
            if open_kind is None:
                if opener is not None:
                    open_kind = opener.lower()
            elif (closer or "").lower() == open_kind or (
                open_kind == "!--" and mark.group(0) == "-->"
            ):
                open_kind = None
        if open_kind is None:
            return m.end()
    return None


_CUT_PIECES = [
    "<p>x",
    "</p>",
    "</div >",
    "</TR>",
    "<script>",
    "</script>",
    "</SCRIPT >",
    "<style",
    ">",
    "</style>",
    "<!--",
    "-->",
    "--",
    "<template>",
    "</template>",
    "<textarea>",
    "</textarea>",
    "</li>",
    " ",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_CUT_PIECES), max_size=40), st.integers(0, 60), st.integers(0, 60))
def test_safe_cut_equals_rescanning_every_candidate(pieces: list[str], start: int, at: int) -> None:
    """The raw-text state followed once through the candidates cuts where a fresh scan
    from the segment's start for every candidate cut (``class-use/String.html``: 5% of
    the JDK's parse time went to those scans)."""
    text = "".join(pieces)
    start = min(start, len(text))
    at = max(start, min(at, len(text)))
    assert extract._safe_cut(text, start, at) == _safe_cut_rescanning(text, start, at)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [*_CUT_PIECES, "<SCRIPT>", "</Script\n >", "<!-->", "--->", "ſ", "<ſcript>"]
        ),
        max_size=40,
    ),
    st.integers(0, 60),
    st.integers(0, 60),
)
def test_safe_cut_by_finds_equals_the_pattern(pieces: list[str], start: int, at: int) -> None:
    """The markers found with str.find in the lower-cased text are the pattern's."""
    text = "".join(pieces)
    start = min(start, len(text))
    at = max(start, min(at, len(text)))
    assert extract._safe_cut(text, start, at) == _safe_cut_rescanning(text, start, at)
    assert extract._safe_cut_by_pattern(text, start, at) == _safe_cut_rescanning(text, start, at)


def test_the_odd_case_folds_of_the_raw_text_markers_are_all_known() -> None:
    """Where no character of ``_CASE_ODD`` is, ``str.lower`` keeps every position and
    makes exactly the letters the case-blind pattern takes for the markers' letters."""
    import sys

    letters = set("".join(mark for mark, _o, _c in extract._RAW_TEXT_MARKS if mark[-1].isalpha()))
    letters = {c for c in letters if c.isalpha()}
    pattern = re.compile("[" + "".join(sorted(letters)) + "]", re.IGNORECASE)
    odd = set()
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        lower = char.lower()
        if len(lower) != 1 or (pattern.fullmatch(char) is not None) != (lower in letters):
            odd.add(char)
    assert odd == set(extract._CASE_ODD)


def test_a_huge_page_parsed_in_segments_gives_the_whole_parse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = _huge_page().encode()
    assert len(body) > 2 * extract.PARSE_SEGMENT_CHARS  # really segmented
    url = "http://example.test/huge"
    headers = {"Content-Type": "text/html"}
    segmented = extract_page(body, url=url, headers=headers)
    monkeypatch.setattr(extract, "html_segments", lambda text: iter([text]))
    whole = extract_page(body, url=url, headers=headers)
    assert segmented.links == whole.links
    assert len(segmented.links) == 20_000  # the link cap still holds, and says so
    assert segmented.links_dropped == whole.links_dropped == 40_001 - 20_000
    assert (segmented.title, segmented.h1, segmented.canonical) == ("Huge", "All pages", url)
    assert segmented.fingerprint == whole.fingerprint


def test_page_facts_pickle_by_value() -> None:
    """``--workers`` sends facts between processes: they come back equal."""
    import pickle

    body = (
        b'<title>T</title><link rel="canonical" href="/c"><link rel="alternate" hreflang="de" '
        b'href="/de"><a href="/a" rel="nofollow">a</a><a href="/b">b</a><img src="/i.png">'
    )
    facts = extract_page(body, url="http://example.test/p", headers={"Content-Type": "text/html"})
    assert len(facts.links) == 2
    assert facts.alternates
    back = pickle.loads(pickle.dumps(facts, pickle.HIGHEST_PROTOCOL))
    assert back == facts
    assert pickle.loads(pickle.dumps(facts.links[0])) == facts.links[0]
    # The links cross as plain tuples (cheap to pickle) and come back as Links.
    assert [type(link) for link in back.links] == [Link, Link]
    assert back.links[0].url == "http://example.test/a"
    assert back.links[0].nofollow
    assert b"Link" not in pickle.dumps(facts, pickle.HIGHEST_PROTOCOL)


@pytest.mark.parametrize(
    "body",
    [
        "<title>Café – ünïcode</title><p>Grüße</p><a href='/é'>e</a>".encode(),
        b"<title>bad \xff utf-8</title><a href='/x'>x</a>",
        codecs.BOM_UTF8 + "<title>bom</title><p>é</p>".encode(),
        "<title>latin</title><p>é</p>".encode("latin-1"),
        "<title>replacement \ufffd itself</title>".encode(),
        b"<title>plain ASCII, never decoded</title><a href='/x'>x</a>",
        b"<meta charset=utf-16><title>ASCII said to be UTF-16</title>",
    ],
)
def test_parsing_the_bytes_gives_what_parsing_the_text_gives(
    body: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clean UTF-8 body is parsed from its bytes; the facts equal the text's parse."""
    url, headers = "http://example.test/p", {"Content-Type": "text/html"}
    direct = extract_page(body, url=url, headers=headers)

    def through_the_text(body: bytes, content_type: str | None) -> tuple[object, str]:
        text, encoding = extract.decode_body(body, content_type)
        return extract.html_segments(text), encoding

    monkeypatch.setattr(extract, "_parse_input", through_the_text)
    assert extract_page(body, url=url, headers=headers) == direct
