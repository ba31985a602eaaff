"""The rule book: value checks return (code, message) and the set rules of hreflang."""

from __future__ import annotations

import pytest

from sitemapkit.rulebook import hints, loc, media
from sitemapkit.rulebook.hreflang import Pairs, code_problem, reciprocity, set_failures
from sitemapkit.urls import is_escaped_uri

BASE = "https://example.com/"


@pytest.mark.parametrize(
    ("value", "code"),
    [
        (f"{BASE}a", None),
        ("/relative", "loc-not-absolute"),
        ("ftp://example.com/x", "loc-not-absolute"),
        (f"{BASE}a b", "loc-not-escaped"),
        (f"{BASE}ü", "loc-not-escaped"),
        (f"{BASE}100%", "loc-not-escaped"),
        (f"{BASE}{'a' * 2048}", "loc-too-long"),
    ],
)
def test_loc(value: str, code: str | None) -> None:
    problem = loc.loc_problem(value)
    assert (problem[0] if problem else None) == code
    if problem is not None:
        assert value[:40] in problem[1]


def test_escaped_is_one_character_class() -> None:
    assert is_escaped_uri(f"{BASE}a?b=%C3%BC&c=[1]#x")
    assert not is_escaped_uri(f"{BASE}a%zz")
    assert not is_escaped_uri(f"{BASE}a|b")


@pytest.mark.parametrize(
    ("check", "value", "code"),
    [
        (hints.lastmod_problem, "2024-01-01", None),
        (hints.lastmod_problem, "2024-13-01", "lastmod-invalid"),
        (hints.lastmod_problem, "2024-01", "lastmod-imprecise"),
        (hints.lastmod_problem, "2024-01-01T10:00:00", "lastmod-no-timezone"),
        (hints.lastmod_problem, "２０２４-01-01", "lastmod-invalid"),
        (hints.changefreq_problem, "weekly", None),
        (hints.changefreq_problem, "sometimes", "changefreq-invalid"),
        (hints.priority_problem, "0.5", None),
        (hints.priority_problem, "1.5", "priority-invalid"),
        (media.news_language_problem, "zh-cn", None),
        (media.news_language_problem, "English", "news-language"),
        (media.duration_problem, "600", None),
        (media.duration_problem, "0", "video-limits"),
        (media.rating_problem, "5.1", "video-limits"),
        (media.view_count_problem, "-1", "video-limits"),
        (media.image_loc_problem, "a.png", "image-loc-invalid"),
        (code_problem, "en-GB", None),
        (code_problem, "en-UK", "hreflang-code"),
        (code_problem, "zz", "hreflang-code"),
        (code_problem, "x-default", None),
    ],
)
def test_value_checks(check: object, value: str, code: str | None) -> None:
    problem = check(value)  # type: ignore[operator]
    assert (problem[0] if problem else None) == code


def _pairs(*links: tuple[str, str]) -> Pairs:
    return tuple(sorted(links))


def test_reciprocity_of_a_set() -> None:
    both = _pairs(("en", f"{BASE}en"), ("de", f"{BASE}de"))
    pages = {f"{BASE}en": both, f"{BASE}de": both}
    assert reciprocity(f"{BASE}en", both, pages.get) == (None, None)
    lone = {f"{BASE}en": both}
    problem, unchecked = reciprocity(f"{BASE}en", both, lone.get)
    assert problem is not None
    assert problem[0] == "hreflang-not-reciprocal"
    assert unchecked is None


def test_an_alternate_on_another_host_is_not_checked_not_an_error() -> None:
    pairs = _pairs(("en", f"{BASE}en"), ("ja", "https://example.jp/ja"))
    problem, unchecked = reciprocity(f"{BASE}en", pairs, {f"{BASE}en": pairs}.get)
    assert problem is None
    assert unchecked == "https://example.jp/ja"


def test_set_failures_spread_to_pages_that_list_a_failed_one() -> None:
    # b lists c and a, a does not list c: a and b list different sets, both fail; c lists
    # only itself and stands
    ab = _pairs(("en", f"{BASE}a"), ("de", f"{BASE}b"))
    pages = {
        f"{BASE}a": ab,
        f"{BASE}b": _pairs(("en", f"{BASE}a"), ("de", f"{BASE}b"), ("fr", f"{BASE}c")),
        f"{BASE}c": _pairs(("fr", f"{BASE}c")),
    }
    failed = set_failures(pages)
    assert set(failed) == {f"{BASE}a", f"{BASE}b"}
    # a page whose peer only fails in the first round fails in the second
    de = _pairs(("en", f"{BASE}d"), ("de", f"{BASE}e"))
    chain = {f"{BASE}d": de, f"{BASE}e": de, f"{BASE}x": _pairs(("x", f"{BASE}x"))}
    assert set_failures(chain) == {}


def test_every_code_says_what_it_means() -> None:
    from sitemapkit.audit.codes import meaning as audit_meaning
    from sitemapkit.rulebook.codes import ALL_CODES, MEANINGS, meaning

    assert set(MEANINGS) == set(ALL_CODES)
    for code in ALL_CODES:
        assert meaning(code) not in ("", code), code
        assert audit_meaning(code) == meaning(code)
    assert meaning("http-404") == "the sitemap answered HTTP 404"
    assert "RULES.md" not in audit_meaning("lastmod-uniform")
