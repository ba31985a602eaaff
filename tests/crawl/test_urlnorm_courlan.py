"""adbar/courlan's normalisation cases (``tests/unit_tests.py``: ``normalize_url``,
``test_qelems``), in our words: what the crawler makes of each URL.

``normalize`` is asked as the engine asks (the site's query order kept); courlan sorts
query parameters, which is our ``dedup_key``'s job (the last rows).  Where we
deliberately differ, the row is ``xfail`` with the reason.
"""

from __future__ import annotations

import pytest

from sitemapkit.crawl.urlnorm import QueryPolicy, dedup_key, normalize

KEEP = QueryPolicy(order="keep")

_DOUBLE_SLASH = "'//' in a path is kept: RFC 3986 makes /a//b another path than /a/b"
_UNICODE_HOST = "hosts are written in their ASCII (IDNA) form, which sitemaps and HTTP need"
_TRACKERS = (
    "only well-known tracking parameters are dropped (utm_*, gclid, fbclid, ...): one that "
    "merely looks like tracking (clickid, *_affiliate) may select content"
)
_FRAGMENT = "a fragment is never part of a page's URL: it is not sent to the server"

CASES = [
    ("HTTPS://WWW.DWDS.DE/", "https://www.dwds.de/", None),
    ("http://test.net/foo.html#bar", "http://test.net/foo.html", None),
    ("http://test.net/foo.html#:~:text=night-,vision", "http://test.net/foo.html", None),
    ("http://www.example.org:80/test.html", "http://www.example.org/test.html", None),
    ("http://www.example.org:80?p=123", "http://www.example.org/?p=123", None),
    ("https://hanxiao.io//404.html", "https://hanxiao.io/404.html", _DOUBLE_SLASH),
    ("http://[::1]:80/", "http://[::1]/", None),
    ("https://[::1]:443/", "https://[::1]/", None),
    ("http://[::1]:8080/", "http://[::1]:8080/", None),
    ("http://xn--Mnchen-3ya.de", "http://münchen.de", _UNICODE_HOST),
    ("http://xn--Mnchen-3ya.de", "http://xn--mnchen-3ya.de/", None),
    ("http://Mnchen-3ya.de", "http://mnchen-3ya.de/", None),
    (
        "https://www.deutschlandfunknova.de/beitrag/nord--und-s%C3%BCdgaza-israels",
        "https://www.deutschlandfunknova.de/beitrag/nord--und-s%C3%BCdgaza-israels",
        None,
    ),
    (
        "https://taz.de/Zukunft-des-49-Euro-Tickets/!5968518/",
        "https://taz.de/Zukunft-des-49-Euro-Tickets/!5968518/",
        None,
    ),
    ("http://test.org/?s_cid=123&clickid=1", "http://test.org/", _TRACKERS),
    ("http://test.org/?this_affiliate=0", "http://test.org/", _TRACKERS),
    ("http://test.org/?utm_source=rss&utm_medium=rss", "http://test.org/", None),
    ("http://test.org/?utm_source=rss&#038;utm_medium=rss", "http://test.org/", None),
    ("http://test.org/#partnerid=123", "http://test.org/", None),
    ("http://test.org/#page2", "http://test.org/#page2", _FRAGMENT),
    ("http://test.net/foo.html?utm_source=twitter", "http://test.net/foo.html", None),
    ("http://test.net/foo.html?testid=1", "http://test.net/foo.html?testid=1", None),
    ("http://test.org/?gclid=1&fbclid=2&a=1", "http://test.org/?a=1", None),
]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param(
            u, e, marks=[pytest.mark.xfail(strict=True, reason=r)] if r else [], id=f"{u} -> {e}"
        )
        for u, e, r in CASES
    ],
)
def test_courlan_normalize(url: str, expected: str) -> None:
    assert normalize(url, policy=KEEP) == expected


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "http://test.net/foo.html?testid=1&post=abc&page=2",
            "http://test.net/foo.html?page=2&post=abc&testid=1",
        ),
        (
            "http://test.net/foo.html?page=2&itemid=10&lang=en",
            "http://test.net/foo.html?itemid=10&lang=en&page=2",
        ),
    ],
)
def test_courlan_sorted_queries_are_the_dedup_key(url: str, expected: str) -> None:
    """courlan sorts parameters; we keep the site's order in the URL and sort in the key
    that decides whether two URLs are one page."""
    assert dedup_key(url) == expected
    assert normalize(url, policy=KEEP) == url


@pytest.mark.parametrize("url", ["AAA", "1234", "ftps://example.org/", "http://xn--München.de"])
def test_courlan_rejected_urls(url: str) -> None:
    """courlan's ``check_url`` refuses these; so does our normaliser."""
    assert normalize(url) is None
