"""Property: the validator finds no error in anything the writer published.

Arbitrary entries (odd URLs and dates, images, videos, news, hreflang alternates with
good and bad codes, reciprocal or not, on this host and others) are written with
``skip_invalid`` and the published set is validated.  The writer may refuse an entry or
leave annotations out; it may never publish what the validator rejects.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit.errors import EmptySetError
from sitemapkit.model import (
    Alternate,
    Image,
    News,
    Severity,
    UrlEntry,
    Video,
    VideoPlatform,
    VideoRestriction,
)
from sitemapkit.validate.validator import validate
from sitemapkit.write.writer import WriterOptions, write_sitemaps

BASE = "https://example.com/"
NOW = datetime(2024, 6, 1, tzinfo=UTC)

_paths = st.sampled_from(["a", "b", "c", "de/", "fr/x", "ü", "a b", "%zz", "x?y=1&z=2", "é/ü"])
_hosts = st.sampled_from(
    [BASE, "https://example.jp/", "http://example.com/", "HTTPS://Example.com/"]
)
_urls = st.one_of(
    st.builds(lambda h, p: h + p, _hosts, _paths),
    st.sampled_from(["/relative", "ftp://example.com/x", "javascript:x", "", "https://", BASE]),
    st.text(max_size=20),
)
_dates = st.one_of(
    st.sampled_from(
        [
            "2024-01-01",
            "2024-13-01",
            "2024-01",
            "2024-01-01T10:00:00",
            "2024-01-01T10:00:00Z",
            "2024-02-29",
            "2023-02-29",
            "2024-05-31T23:59:59+02:00",
            "yesterday",
            "２０２４-01-01",
            "2030-01-01",
        ]
    ),
    st.datetimes(timezones=st.just(UTC)),
    st.dates(),
)
_text = st.text(max_size=12)
_codes = st.sampled_from(
    [
        "en",
        "de",
        "en-GB",
        "en-UK",
        "zz",
        "x-default",
        "de-AT",
        "gb",
        "en_US",
        "zh-Hant-TW",
        "es-419",
        "",
    ]
)
_alternate = st.builds(Alternate, _codes, _urls)
_image = st.builds(Image, _urls, caption=st.none() | _text, title=st.none() | _text)
_video = st.builds(
    Video,
    thumbnail_loc=_urls,
    title=_text,
    description=_text,
    content_loc=st.none() | _urls,
    player_loc=st.none() | _urls,
    duration=st.none() | st.integers(-5, 30_000),
    rating=st.none() | st.floats(-1, 6, allow_nan=False),
    view_count=st.none() | st.integers(-2, 10),
    publication_date=st.none() | _dates,
    tags=st.lists(_text, max_size=3).map(tuple),
    restriction=st.none()
    | st.builds(
        VideoRestriction,
        st.sampled_from(["allow", "deny", "maybe"]),
        st.lists(st.sampled_from(["US", "GB", "UK", "xx"]), max_size=2).map(tuple),
    ),
    platform=st.none()
    | st.builds(
        VideoPlatform,
        st.sampled_from(["allow", "nope"]),
        st.lists(st.sampled_from(["web", "tv", "car"]), max_size=2).map(tuple),
    ),
    uploader=st.none() | _text,
)
_news = st.builds(News, _text, st.sampled_from(["en", "zh-cn", "English", "EN", ""]), _dates, _text)
_entry = st.builds(
    UrlEntry,
    _urls,
    lastmod=st.none() | _dates,
    changefreq=st.none() | st.sampled_from(["daily", "sometimes", "never"]),
    priority=st.none() | st.sampled_from([0.5, 1, 1.5, "0.3", "x"]),
    images=st.lists(_image, max_size=2).map(tuple),
    videos=st.lists(_video, max_size=1).map(tuple),
    news=st.none() | _news,
    alternates=st.lists(_alternate, max_size=4).map(tuple),
)


def _peers(entries: list[UrlEntry]) -> list[UrlEntry]:
    """Give some pages' alternates entries that list the same set: reciprocal clusters."""
    out = list(entries)
    for e in entries[:3]:
        out.extend(UrlEntry(a.href, alternates=e.alternates) for a in e.alternates)
    return out


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(st.lists(_entry, max_size=8).map(_peers))
def test_the_validator_finds_no_error_in_what_the_writer_published(
    entries: list[UrlEntry],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        options = WriterOptions(base_url=BASE, skip_invalid=True, fsync=False)
        try:
            result = write_sitemaps(entries, Path(tmp), options)
        except EmptySetError:  # every loc refused (or none): nothing is published at all
            assert not list(Path(tmp).iterdir())
            return
        report = validate([str(result.root)], sitemap_url=f"{BASE}sitemap.xml", now=NOW)
        errors = [f for f in report.findings if f.severity is Severity.ERROR]
        assert errors == [], (errors, result.root.read_text())
        # a page is never dropped for its annotations: only unusable locs are refused
        assert set(result.skipped) <= {"loc-not-absolute", "loc-too-long", "loc-other-host",
                                       "loc-outside-directory", "loc-missing"}  # fmt: skip
