"""Scrapy's link extractor and w3lib's ``get_base_url``/``get_meta_refresh`` cases, in our words.

Asked of :func:`sitemapkit.crawl.extract.extract_page`, the one reader of a page's links.
From scrapy/scrapy ``tests/test_linkextractors.py`` (its ``linkextractor.html`` sample,
rewritten here as :data:`SAMPLE`) and scrapy/w3lib ``tests/test_html.py``
(``TestGetBaseUrl``, ``TestGetMetaRefresh``).  Scrapy's options (allow/deny, restrict
XPath, process_value) have no counterpart: the crawl's scope rules decide what is
followed; what is ported is what a page links to.  Where we deliberately differ, the row
is a strict xfail naming the rule we follow (the HTML standard's parser and refresh
steps, RFC 3986 normalisation, sitemaps being http(s) only).
"""

from __future__ import annotations

import pytest

from sitemapkit.crawl.extract import Link, PageFacts, extract_page


def page(
    html: str | bytes, url: str = "http://example.com/index", content_type: str = "text/html"
) -> PageFacts:
    body = html.encode("utf-8") if isinstance(html, str) else html
    return extract_page(body, url=url, headers={"Content-Type": content_type})


def urls(facts: PageFacts) -> list[str]:
    return [link.url for link in facts.links]


SAMPLE = """<!DOCTYPE html>
<html><head>
  <base href='http://example.com' />
  <title>Sample page with links</title>
</head><body>
  <div id='wrapper'>
    <div id='subwrapper'>
      <area href='sample1.html' alt='sample1'/>
      <a href='sample2.html'>sample 2<img src='sample2.jpg' alt='sample2'/></a>
    </div>
    <a href='http://example.com/sample3.html' title='sample 3'>sample 3 text</a>
    <a href='sample3.html'>sample 3 repetition</a>
    <a href='sample3.html'>sample 3 repetition</a>
    <a href='sample3.html#foo'>sample 3 repetition with fragment</a>
    <a href='http://www.google.com/something'></a>
    <a href='http://example.com/innertag.html'><strong>inner</strong> tag</a>
    <a href='page 4.html'>href with whitespaces</a>
  </div>
</body></html>"""


def test_extract_all_links() -> None:
    facts = page(SAMPLE)
    assert facts.base_url == "http://example.com/"
    # Scrapy keeps "sample3.html#foo" apart; a fragment is not part of a page's URL (it is
    # never sent), so it is the same link as sample3.html here.
    assert facts.links == (
        Link("http://example.com/sample1.html", False, "area"),
        Link("http://example.com/sample2.html"),
        Link("http://example.com/sample3.html"),
        Link("http://www.google.com/something"),
        Link("http://example.com/innertag.html"),
        Link("http://example.com/page%204.html"),
    )
    assert facts.images == ("http://example.com/sample2.jpg",)


def test_nofollow() -> None:
    html = """<html><head><title>Page title</title></head><body>
    <div class='links'><p><a href="/about.html">About us</a></p></div>
    <div><p><a href="/follow.html">Follow this link</a></p></div>
    <div><p><a href="/nofollow.html" rel="nofollow">Dont follow this one</a></p></div>
    <div><p><a href="/nofollow2.html" rel="blah">Choose to follow or not</a></p></div>
    <div><p><a href="http://google.com/something" rel="external nofollow">External</a></p></div>
    </body></html>"""
    facts = page(html, "http://example.org/somepage/index.html")
    assert facts.links == (
        Link("http://example.org/about.html"),
        Link("http://example.org/follow.html"),
        Link("http://example.org/nofollow.html", True),
        Link("http://example.org/nofollow2.html"),
        Link("http://google.com/something", True),
    )
    assert [link.url for link in facts.follow_links()] == [
        "http://example.org/about.html",
        "http://example.org/follow.html",
        "http://example.org/nofollow2.html",
    ]


def test_xhtml_as_html_and_as_xml() -> None:
    xhtml = """<?xml version="1.0"?>
<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN"
    "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">
<html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
<head><title>XHTML document title</title></head>
<body>
  <div class='links'><p><a href="/about.html">About us</a></p></div>
  <div><p><a href="/nofollow.html" rel="nofollow">Dont follow this one</a></p></div>
  <div><p><a href="http://google.com/something" rel="external nofollow">External</a></p></div>
</body></html>"""
    expected = (
        Link("http://example.com/about.html"),
        Link("http://example.com/nofollow.html", True),
        Link("http://google.com/something", True),
    )
    for content_type in ("text/html", "application/xhtml+xml"):
        assert page(xhtml, "http://example.com/index.xhtml", content_type).links == expected


def test_entities_in_href_on_an_iso8859_15_page() -> None:
    # The path in UTF-8, the query in the page's encoding (the euro is A4 in ISO-8859-15).
    html = b'<html><body><p><a href="/&hearts;/you?c=&euro;">text</a></p></body></html>'
    facts = page(html, "http://example.org/somepage/index.html", "text/html; charset=iso8859-15")
    assert urls(facts) == ["http://example.org/%E2%99%A5/you?c=%A4"]


def test_area_on_a_page_with_undecodable_bytes() -> None:
    html = b'<html><body>\xbe\xa9<map><area href="http://example.org/foo" /></map></body></html>'
    for _ in range(3):
        facts = page(html, "http://example.org", "text/html; charset=utf-8")
        assert facts.links == (Link("http://example.org/foo", False, "area"),)


def test_a_query_only_link_keeps_the_escaped_slash_of_the_base() -> None:
    facts = page(
        '<html><body><div><a href="?page=2">BinB</a></body></html>', "http://known.fm/AC%2FDC/"
    )
    assert urls(facts) == ["http://known.fm/AC%2FDC/?page=2"]


def test_javascript_mailto_and_tel_links_are_not_pages() -> None:
    html = """<a href="javascript:goToPage('../other/page.html','photo'); return false">Text</a>
    <a href="mailto:info@example.org">mail</a><a href="tel:+441234">call</a>
    <a href="data:text/html,hi">data</a><a href="/about.html">About us</a>"""
    assert urls(page(html, "http://example.org/somepage/index.html")) == [
        "http://example.org/about.html"
    ]


def test_base_href_with_a_relative_link() -> None:
    html = """<html><head><title>Page title</title><base href="http://otherdomain.com/base/" />
    </head><body><p><a href="item/12.html">Item 12</a></p></body></html>"""
    facts = page(html, "http://example.org/somepage/index.html")
    assert urls(facts) == ["http://otherdomain.com/base/item/12.html"]


def test_broken_hrefs_are_skipped_and_the_rest_kept() -> None:
    html = """<a href="http://example.org/item1.html">Item 1</a>
    <a href="http://[example.org/item2.html">Item 2</a>
    <a href="http://example.org:non-port">Why would you do this?</a>
    <a href="http://example.org/item3.html">Item 3</a>
    <a href="">empty</a><a>no href</a>"""
    facts = page(html, "http://example.org/index.html")
    assert urls(facts) == [
        "http://example.org/item1.html",
        "http://example.org/item3.html",
        "http://example.org/index.html",
    ]


@pytest.mark.xfail(
    strict=True,
    reason="a sitemap lists http(s) pages only (sitemaps.org: the loc is a page URL); "
    "Scrapy keeps ftp: links",
)
def test_ftp_links() -> None:
    html = '<html><body><div><a href="ftp://www.external.com/">An Item</a></div></body></html>'
    assert urls(page(html, "http://www.example.com/index.html")) == ["ftp://www.external.com/"]


def test_whitespace_around_an_href_is_stripped() -> None:
    facts = page(
        '<a href="page.html   ">Link</a><a href=" \n page2.html\t">L</a>', "http://example.com/"
    )
    assert urls(facts) == ["http://example.com/page.html", "http://example.com/page2.html"]


def test_links_that_differ_only_in_query_order_stay_apart() -> None:
    """Scrapy's aggregation case: ``?a=1&b=2`` and ``?b=2&a=1`` are two links unless
    canonicalised; the crawl's query policy decides (its default sorts them into one)."""
    html = """<div><a href="/a">a1</a><a href="/b?a=1&b=2">b1</a></div>
    <div><a href="/a">a2</a><a href="/b?b=2&a=1">b2</a></div>"""
    assert urls(page(html, "https://example.com")) == [
        "https://example.com/a",
        "https://example.com/b?a=1&b=2",
    ]


# --- w3lib get_base_url -------------------------------------------------------------

_SCRIPTING_OFF = (
    "we parse as a browser with scripting off (Lexbor): a <base> in a <noscript> of the head "
    "is moved out of it by the HTML parser and applies; w3lib reads noscript as a script-"
    "running browser does"
)
_PERCENT_CASE = "percent-escapes are normalised to upper case (RFC 3986 6.2.2.1): %a3 is %A3"
BASE_ROOT = "https://example.org"

# (id, html, expected base URL or None, xfail reason)
BASES: list[tuple[str, str, str | None, str]] = [
    (
        "plain",
        "<html><head><title>Dummy</title><base href='http://example.org/something' /></head>"
        "<body>blahablsdfsal&amp;</body></html>",
        "http://example.org/something",
        "",
    ),
    (
        "many broken tags first",
        "<base " * 30000 + '<base href="http://example.org/found/">',
        "http://example.org/found/",
        "",
    ),
    ("in a comment", '<!-- <base href="http://example.com/"/> -->', None, ""),
    ("in an open comment", '<!-- <base href="http://example.com/"/>', None, ""),
    ("in a comment without >", '<!-- <base href="http://example.com/"/> --', None, ""),
    (
        "after a nested comment",
        '<!-- <!--  <base href="http://example.com/"/> -- -->  <base href="http://example_2.com/"/>',
        "http://example_2.com/",
        "",
    ),
    (
        "after two comments",
        '<!-- <base href="http://example.com/"/> --> <!-- <base href="http://example_2.com/"/> -->'
        ' <base href="http://example_3.com/"/>',
        "http://example_3.com/",
        "",
    ),
    (
        "in a script string",
        """<script>var t = "<base href='http://evil.example/'>";</script>""",
        None,
        "",
    ),
    (
        "in a noscript",
        '<noscript><base href="http://evil.example/"></noscript>',
        None,
        _SCRIPTING_OFF,
    ),
    (
        "after a script",
        '<script><base href="http://evil.example/"></script><base href="http://example.org/found/">',
        "http://example.org/found/",
        "",
    ),
    ("in an unclosed script", '<script><base href="http://evil.example/">', None, ""),
    (
        "in an unclosed noscript",
        '<noscript foo="bar"><base href="http://evil.example/">',
        None,
        _SCRIPTING_OFF,
    ),
    ("split by a comment", '<base h<!--c-->ref="http://example.com/">', None, ""),
    (
        "absolute path",
        "<head><base href='/absolutepath' /></head>",
        "https://example.org/absolutepath",
        "",
    ),
    (
        "no scheme",
        "<head><base href='//noscheme.com/path' /></head>",
        "https://noscheme.com/path",
        "",
    ),
    (
        "attributes before href",
        "<head><base id='my_base_tag' href='http://example.org/something' /></head>",
        "http://example.org/something",
        "",
    ),
    ("another tag name", "<head><basefoo href='http://example.org/something' /></head>", None, ""),
    (
        "non-ascii path",
        "<head><base href='http://example.org/snowman\u2368' /></head>",
        "http://example.org/snowman%E2%8D%A8",
        "",
    ),
    (
        "non-utf8 escape kept",
        "<head><base href='http://example.org/sterling%a3' /></head>",
        "http://example.org/sterling%a3",
        _PERCENT_CASE,
    ),
]


def _marks(reason: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.mark.parametrize(
    ("html", "expected"),
    [pytest.param(h, e, id=i, marks=_marks(r)) for i, h, e, r in BASES],
)
def test_get_base_url(html: str, expected: str | None) -> None:
    assert page(html, BASE_ROOT).base_url == expected


def test_a_base_in_a_latin1_page_has_its_path_in_utf8() -> None:
    html = "<head><base href='http://example.org/sterling\u00a3' /></head>".encode("latin-1")
    facts = page(html, BASE_ROOT, "text/html; charset=latin-1")
    assert facts.base_url == "http://example.org/sterling%C2%A3"


# --- w3lib get_meta_refresh -----------------------------------------------------------

_UNTERMINATED = (
    "HTML standard tokenizer: a tag still open at the end of the file is dropped (EOF in a "
    "tag), so browsers never refresh; w3lib's regex reads it"
)
ORG = "http://example.org"

# (id, html, page URL, expected target or None, xfail reason)
REFRESHES: list[tuple[str, str | bytes, str, str | None, str]] = [
    (
        "plain",
        '<html><head><title>Dummy</title><meta http-equiv="refresh" '
        'content="5;url=http://example.org/newpage" /></head><body>x</body></html>',
        ORG,
        "http://example.org/newpage",
        "",
    ),
    (
        "tag cut by </head>",
        '<meta http-equiv="refresh" content="5;url=newpage"</head>',
        ORG,
        "http://example.org/newpage",
        "",
    ),
    (
        "tag cut by the end",
        '<meta http-equiv="refresh" content="5;url=newpage"',
        ORG,
        "http://example.org/newpage",
        _UNTERMINATED,
    ),
    (
        "text of a script",
        '<script>var x = \'<meta http-equiv="refresh" content="0;url=http://evil.example/">\';'
        "</script >",
        "http://good.example/",
        None,
        "",
    ),
    (
        "many broken tags first",
        "<meta " * 80000 + '<meta http-equiv="refresh" content="3; url=http://example.org/next/">',
        ORG,
        "http://example.org/next/",
        "",
    ),
    ("time only", '<meta http-equiv="refresh" content="5" />', ORG, None, ""),
    (
        "url on the next line",
        '<meta http-equiv="refresh" content="5;\n   url=http://example.org/newpage" />',
        ORG,
        "http://example.org/newpage",
        "",
    ),
    (
        "upper case over lines",
        '<html><head>\n<META\nHTTP-EQUIV="Refresh"\nCONTENT="1; URL=http://example.org/newpage">',
        ORG,
        "http://example.org/newpage",
        "",
    ),
    (
        "entities",
        '<meta http-equiv="refresh" content="3; url=&#39;http://www.example.com/other&#39;">',
        ORG,
        "http://www.example.com/other",
        "",
    ),
    (
        "non-ascii digit",
        '<meta http-equiv="refresh" content="\u0665; url=http://example.org/x">',
        ORG,
        None,
        "",
    ),
    (
        "relative",
        '<meta http-equiv="refresh" content="3; url=other.html">',
        "http://example.com/page/this.html",
        "http://example.com/page/other.html",
        "",
    ),
    (
        "commented",
        '<!--<meta http-equiv="refresh" content="3; url=http://example.com/">-->',
        "http://example.com/x",
        None,
        "",
    ),
    (
        "after a comment",
        '<!-- commented --><meta http-equiv="refresh" content="3; url=http://example.com/">-->',
        "http://example.com/x",
        "http://example.com/",
        "",
    ),
    (
        "fraction only",
        '<meta http-equiv="refresh" content=".1;URL=index.html" />',
        "http://example.com",
        "http://example.com/index.html",
        "",
    ),
    (
        "fraction",
        '<meta http-equiv="refresh" content="3.1;URL=index.html" />',
        "http://example.com",
        "http://example.com/index.html",
        "",
    ),
    (
        "another tag name",
        '<metafoo http-equiv="refresh" content="5;url=http://example.org/newpage" />',
        ORG,
        None,
        "",
    ),
    (
        "url after a newline",
        '<meta http-equiv="refresh" content="0; URL=\nhttp://www.example.org/index.php" />',
        ORG,
        "http://www.example.org/index.php",
        "",
    ),
    (
        "in a noscript",
        '<html><head><noscript><meta http-equiv="refresh" '
        'content="0;url=http://example.org/javascript_required" /></noscript></head></html>',
        ORG,
        None,
        "",
    ),
    (
        "written by a script",
        '<html><head><script>if(!foobar()){ $(\'<meta http-equiv="refresh" '
        "content=\"0;url=http://example.org/foobar_required\" />').appendTo('body'); }</script>"
        "</head></html>",
        ORG,
        None,
        "",
    ),
    (
        "content first",
        '<html><head><meta content="0;url=dummy.html" http-equiv="refresh"></head></html>',
        "http://localhost:8000",
        "http://localhost:8000/dummy.html",
        "",
    ),
    (
        "other metas first",
        '<meta name="viewport" content="width=device-width"><meta charset="utf-8">'
        '<meta http-equiv="refresh" content="2; url=/next">',
        ORG,
        "http://example.org/next",
        "",
    ),
    # The HTML standard's steps beyond w3lib's suite.
    ("no time", '<meta http-equiv="refresh" content="url=/next">', ORG, None, ""),
    ("separator without time", '<meta http-equiv="refresh" content="; url=/next">', ORG, None, ""),
    ("junk after the time", '<meta http-equiv="refresh" content="5x; url=/next">', ORG, None, ""),
    (
        "quoted then junk",
        '<meta http-equiv="refresh" content="0; url=\'/next\'junk">',
        ORG,
        "http://example.org/next",
        "",
    ),
    (
        "no url= key",
        '<meta http-equiv="refresh" content="0, /next">',
        ORG,
        "http://example.org/next",
        "",
    ),
    (
        "space only",
        '<meta http-equiv="refresh" content="0 url=/next">',
        ORG,
        "http://example.org/next",
        "",
    ),
    ("empty url reloads", '<meta http-equiv="refresh" content="0; url=">', ORG, None, ""),
]


@pytest.mark.parametrize(
    ("html", "url", "expected"),
    [pytest.param(h, u, e, id=i, marks=_marks(r)) for i, h, u, e, r in REFRESHES],
)
def test_get_meta_refresh(html: str, url: str, expected: str | None) -> None:
    facts = page(html, url)
    assert facts.meta_refresh == expected
    refresh_links = [link.url for link in facts.links if link.kind == "meta-refresh"]
    assert refresh_links == ([expected] if expected else [])


def test_refresh_to_a_non_ascii_url() -> None:
    utf8 = b'<meta http-equiv="refresh" content="3; url=http://example.com/to\xc2\xa3">'
    assert page(utf8, "http://example.com").meta_refresh == "http://example.com/to%C2%A3"
    latin1 = b'<meta http-equiv="refresh" content="3; url=http://example.com/to\xa3?unit=\xb5">'
    facts = page(latin1, "http://example.com", "text/html; charset=latin1")
    # The path in UTF-8, the query in the page's encoding.
    assert facts.meta_refresh == "http://example.com/to%C2%A3?unit=%B5"
