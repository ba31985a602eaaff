"""ultimate-sitemap-parser's helper tests, in our words: which locs are web URLs, and dates.

From GateNLP/ultimate-sitemap-parser ``tests/test_helpers.py`` (``is_http_url``,
``parse_sitemap_publication_date``).  Its tree tests are in the peer corpus
(tests/read/test_peer_corpus.py).  "A web URL" here is the rule book's loc rule: no
``loc-not-absolute`` (a URL with raw non-ASCII is a web URL that also draws
``loc-not-escaped``).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from sitemapkit import dates
from sitemapkit.rulebook.loc import loc_problems


def is_web_url(loc: str) -> bool:
    return "loc-not-absolute" not in [p[0] for p in loc_problems(loc)]


@pytest.mark.parametrize(
    ("loc", "expected"),
    [
        ("", False),
        ("abc", False),
        ("/abc", False),
        ("//abc", False),
        ("///abc", False),
        ("gopher://gopher.floodgap.com/0/v2/vstat", False),
        ("ftp://ftp.freebsd.org/pub/FreeBSD/", False),
        ("http://cyber.law.harvard.edu/about", True),
        ("https://github.com/berkmancenter/mediacloud", True),
        ("https://username:password@domain.com:12345/path?query=string#fragment", True),
        ("http://localhost:9998/feed", True),
        ("http://127.0.0.1:12345/456789", True),
        ("http://127.00000000.0.1:8899/tweet_url?id=47", True),
        ("http://testing-gce-286b4005-b1ae-4b1a-a0d8-faf85e39ca92:37873/gv/tests.rss", True),
        ("http:/www.theinquirer.net/inquirer/news/2322928/net-neutrality", False),
        ("http://www.example.com/\u0161iaur\u0117.html", True),
        ("http://www.\u0161iaur\u0117.lt/\u0161iaur\u0117.html", True),
        ("http://www.xn--iaur-yva35b.lt/\u0161iaur\u0117.html", True),
        ("http://.xn--iaur-yva35b.lt", False),
    ],
)
def test_is_http_url(loc: str, expected: bool) -> None:
    assert is_web_url(loc) is expected


_ONE_HOUR = timezone(timedelta(hours=1))


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("1997-07-16", datetime(1997, 7, 16, tzinfo=UTC)),
        pytest.param(
            "1997-07-16T19:20+01:00",
            datetime(1997, 7, 16, 19, 20, tzinfo=_ONE_HOUR),
            marks=pytest.mark.xfail(
                strict=True,
                reason="a time without seconds is lastmod-imprecise (RULES.md: the sitemap XSD's "
                "xsd:dateTime needs seconds), so it is no date we rely on",
            ),
        ),
        ("1997-07-16T19:20:30+01:00", datetime(1997, 7, 16, 19, 20, 30, tzinfo=_ONE_HOUR)),
        (
            "1997-07-16T19:20:30.45+01:00",
            datetime(1997, 7, 16, 19, 20, 30, 450000, tzinfo=_ONE_HOUR),
        ),
        ("2018-01-12T21:57:27Z", datetime(2018, 1, 12, 21, 57, 27, tzinfo=UTC)),
    ],
)
def test_parse_sitemap_publication_date(text: str, moment: datetime) -> None:
    assert dates.parse(text) == moment
