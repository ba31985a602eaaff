"""crawler-commons' URL normaliser cases, in our words: ``BasicURLNormalizerTest``.

From crawler-commons/crawler-commons ``src/test/resources/normalizer/weirdToNormalizedUrls.csv``
and ``invalidUrls.csv`` (the rows that Nutch's suite, ported in test_urlnorm_suites.py,
does not already hold).  crawler-commons sorts the query; our ``normalize`` keeps the
site's order and ``dedup_key`` is the sorted form, so sorted rows are asked of
``dedup_key``.  Where we deliberately differ the row is a strict xfail with the reason.
"""

from __future__ import annotations

import pytest

from sitemapkit.crawl.urlnorm import QueryPolicy, dedup_key, normalize

KEEP = QueryPolicy(order="keep")
_SLASHES = (
    "'//' in a path is kept: RFC 3986 makes /a//b another path than /a/b (see test_urlnorm_suites)"
)
_ESCAPED_HOST = (
    "a host holding escapes is refused (the one host rule, sitemapkit.urls.valid_host); "
    "crawler-commons decodes them first"
)
_EMPTY_VALUE = "a query keeps 'b=' as written: a server may tell 'b=' from 'b'"
_EMPTY_NAME = "a parameter with an empty name is kept: it is the site's query, not ours to edit"
_NOT_WEB = "only http(s) URLs with a host are page addresses (sitemaps.org)"

# (url, what crawler-commons makes of it, xfail reason)
ROWS: list[tuple[str, str | None, str]] = [
    ("https://www.example.com/search/%2a/", "https://www.example.com/search/%2A/", ""),
    ("https://www.example.com/topic/9%2f11/", "https://www.example.com/topic/9%2F11/", ""),
    ("http://x.com/s?m=10&q=a%26b", "http://x.com/s?m=10&q=a%26b", ""),
    ("http://\u00eaxample.com", "http://xn--xample-hva.com/", ""),
    ("https://\u043d\u044d\u0431.\u0440\u0444/", "https://xn--90ax2c.xn--p1ai/", ""),
    (
        "https://www.0251-sachverst%c3%a4ndiger.de/",
        "https://www.xn--0251-sachverstndiger-ozb.de/",
        _ESCAPED_HOST,
    ),
    ("https://example%2Ecom/", "https://example.com/", _ESCAPED_HOST),
    ("http://foo.com/ ", "http://foo.com/", ""),
    ("http://foo.com/aa/bb//foo.html", "http://foo.com/aa/bb/foo.html", _SLASHES),
    ("http://foo.com////aa////bb//foo.html", "http://foo.com/aa/bb/foo.html", _SLASHES),
    ("http://foo.com/..", "http://foo.com/", ""),
    ("http:///////", None, ""),
    ("http://example.com?", "http://example.com/", ""),
    ("http://example.com?a=1", "http://example.com/?a=1", ""),
    ("http://example.com/?", "http://example.com/", ""),
    (
        "https://www.last.fm/music/Prefuse+73/_/90%+of+My+Mind+Is+With+You",
        "https://www.last.fm/music/Prefuse+73/_/90%25+of+My+Mind+Is+With+You",
        "",
    ),
    ("http://foo.com/{{stuff}} ", "http://foo.com/%7B%7Bstuff%7D%7D", ""),
    *[
        (
            f"http://www.example.com/a/c/../b/search?q=foobar{ch}",
            f"http://www.example.com/a/b/search?q=foobar{esc}",
            "",
        )
        for ch, esc in (
            ('"', "%22"),
            ("%", "%25"),
            ("<", "%3C"),
            (">", "%3E"),
            ("^", "%5E"),
            ("`", "%60"),
            ("|", "%7C"),
        )
    ],
    ("http://www.example.com/p%zz%77%v", "http://www.example.com/p%25zzw%25v", ""),
    ("http://www.example.com/search?q=foobar%2", "http://www.example.com/search?q=foobar%252", ""),
    ("http://www.example.com/search?q=foobar%25", "http://www.example.com/search?q=foobar%25", ""),
    (
        "http://www.example.com/search?q=foobar%252",
        "http://www.example.com/search?q=foobar%252",
        "",
    ),
    (
        "foo.com/index.html",
        "http://foo.com/index.html",
        "a URL without a scheme is no address: no page names its scheme for it",
    ),
    ("ftp://foo.com/index.html", "ftp://foo.com/index.html", _NOT_WEB),
    ("file:/path/index.html", "file:/path/index.html", _NOT_WEB),
    ("https://www.example.org./", "https://www.example.org/", ""),
    ("https://foo.com/search?q=tl;dr", "https://foo.com/search?q=tl;dr", ""),
    ("http://foo.com/index?a=1&b", "http://foo.com/index?a=1&b", ""),
    ("http://foo.com/index?a=1&b=", "http://foo.com/index?a=1&b", _EMPTY_VALUE),
    ("http://foo.com/index?a=1&b#c", "http://foo.com/index?a=1&b", ""),
    (
        "https://foo.com/?one/valid_query/without_%2F_params",
        "https://foo.com/?one/valid_query/without_%2F_params",
        "",
    ),
    (
        "http://foo.com/asdf/page.php?article%2F1234",
        "http://foo.com/asdf/page.php?article%2F1234",
        "",
    ),
    (
        "https://www.example.com/path/file-with-a-*.html",
        "https://www.example.com/path/file-with-a-*.html",
        "",
    ),
    ("https://www.example.com/path/foo-$", "https://www.example.com/path/foo-$", ""),
    # invalidUrls.csv: no URL, and no exception
    ("https://example%2Xcom/", None, ""),
    ("https://abc%FEdef.org/", None, ""),
]

# Rows whose crawler-commons form sorts the query: our dedup key is that form.
SORTED: list[tuple[str, str, str]] = [
    ("http://example.com/?b=1&a=1", "http://example.com/?a=1&b=1", ""),
    ("http://foo.com/foo.html?b=1&a=1", "http://foo.com/foo.html?a=1&b=1", ""),
    ("http://foo.com/index?b=2&a=1#c", "http://foo.com/index?a=1&b=2", ""),
    ("http://foo.com/index?b&a=1", "http://foo.com/index?a=1&b", ""),
    ("http://foo.com/index?b=&a=1", "http://foo.com/index?a=1&b", _EMPTY_VALUE),
    ("http://foo.com/index?b=1&a=1&", "http://foo.com/index?a=1&b=1", ""),
    ("http://foo.com/index?&b=1&a=1", "http://foo.com/index?a=1&b=1", ""),
    ("http://foo.com/index?&=1&a=1", "http://foo.com/index?a=1", _EMPTY_NAME),
    ("http://foo.com/index?=1&b=1&a=1", "http://foo.com/index?a=1&b=1", _EMPTY_NAME),
    ("https://example.org/p%2d1/p%2d2/?b=2&a=1", "https://example.org/p-1/p-2/?a=1&b=2", ""),
    (
        "https://example.com/path/query.php?hello=world&foo=bar",
        "https://example.com/path/query.php?foo=bar&hello=world",
        "",
    ),
]


def _marks(reason: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


@pytest.mark.parametrize(
    ("url", "expected"),
    [pytest.param(u, e, id=u, marks=_marks(r)) for u, e, r in ROWS],
)
def test_basic_url_normalizer(url: str, expected: str | None) -> None:
    assert normalize(url, policy=KEEP) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [pytest.param(u, e, id=u, marks=_marks(r)) for u, e, r in SORTED],
)
def test_basic_url_normalizer_sorted_query(url: str, expected: str) -> None:
    assert dedup_key(url, policy=KEEP) == expected
