"""ultimate-sitemap-parser's helper tests (``tests/test_helpers.py``), in our words.

Beyond the 67 whole-site cases of shared/corpus/peers: usp's ``is_http_url`` (which loc
values are web addresses) against our ``loc-not-absolute`` / ``loc-not-escaped`` rules, and
its ``parse_sitemap_publication_date`` against :func:`sitemapkit.dates.parse`.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from sitemapkit import dates
from sitemapkit.rulebook.loc import loc_problems

NOT_HTTP = [
    "",
    "abc",
    "/abc",
    "//abc",
    "///abc",
    "gopher://gopher.floodgap.com/0/v2/vstat",
    "ftp://ftp.freebsd.org/pub/FreeBSD/",
    # usp: a mistake its fix_common_url_mistakes() would mend; a loc is taken as written
    "http:/www.theinquirer.net/inquirer/news/2322928/net-neutrality-rules-lie-in-tatters",
]
HTTP = [
    "http://cyber.law.harvard.edu/about",
    "https://github.com/berkmancenter/mediacloud",
    "https://username:password@domain.com:12345/path?query=string#fragment",
    "http://localhost:9998/feed",
    "http://127.0.0.1:12345/456789",
    "http://127.0.00000000.1:8899/tweet_url?id=47",
    "http://testing-gce-286b4005-b1ae-4b1a-a0d8-faf85e39ca92:37873/gv/tests.rss",
]
#: usp calls these URLs; a sitemap must hold them escaped (sitemaps.org: RFC 3986 URLs)
UNESCAPED = [
    "http://www.example.com/šiaurė.html",
    "http://www.šiaurė.lt/šiaurė.html",
    "http://www.xn--iaur-yva35b.lt/šiaurė.html",
]


@pytest.mark.parametrize("url", NOT_HTTP)
def test_not_an_http_url(url: str) -> None:
    assert [code for code, _ in loc_problems(url)] == ["loc-not-absolute"]


@pytest.mark.parametrize("url", HTTP)
def test_an_http_url(url: str) -> None:
    assert loc_problems(url) == []


@pytest.mark.parametrize("url", UNESCAPED)
def test_raw_non_ascii_is_an_url_but_not_a_loc(url: str) -> None:
    assert [code for code, _ in loc_problems(url)] == ["loc-not-escaped"]


def test_a_host_with_an_empty_label_is_no_url() -> None:
    assert [code for code, _ in loc_problems("http://.xn--iaur-yva35b.lt")] == ["loc-not-absolute"]


PLUS_ONE = timezone(timedelta(hours=1))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1997-07-16", datetime(1997, 7, 16, tzinfo=UTC)),
        ("1997-07-16T19:20:30+01:00", datetime(1997, 7, 16, 19, 20, 30, tzinfo=PLUS_ONE)),
        (
            "1997-07-16T19:20:30.45+01:00",
            datetime(1997, 7, 16, 19, 20, 30, 450000, tzinfo=PLUS_ONE),
        ),
        ("2018-01-12T21:57:27Z", datetime(2018, 1, 12, 21, 57, 27, tzinfo=UTC)),
    ],
)
def test_publication_dates(text: str, expected: datetime) -> None:
    assert dates.parse(text) == expected


def test_a_time_without_seconds_is_w3c_but_not_a_lastmod() -> None:
    """usp reads "1997-07-16T19:20+01:00"; the sitemap schema's xsd:dateTime needs the
    seconds, so our rule book calls it ``lastmod-imprecise`` (RULES.md) and ``parse``,
    which dates only what the rule book accepts, gives None."""
    assert dates.classify("1997-07-16T19:20+01:00") == "lastmod-imprecise"
    assert dates.parse("1997-07-16T19:20+01:00") is None
