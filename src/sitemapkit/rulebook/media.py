"""Rules of the image, video and news values inside one ``<url>``.

Each function takes the text as written (or read) and returns ``(code, message)`` or
``None``; limits come from :mod:`sitemapkit.limits` ([GIMG], [GVID], [GNEWS]).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from sitemapkit import dates, limits
from sitemapkit.rulebook import Problem
from sitemapkit.rulebook.langcodes import ISO3166_1
from sitemapkit.rulebook.loc import is_absolute

_NEWS_LANG: Final = re.compile(r"zh-cn|zh-tw|[a-z]{2,3}")
PLATFORMS: Final = frozenset({"web", "mobile", "tv"})
RELATIONSHIPS: Final = frozenset({"allow", "deny"})
YES_NO: Final = frozenset({"yes", "no", "Yes", "No", "YES", "NO"})


def image_loc_problem(text: str) -> Problem | None:
    """``image-loc-invalid`` unless ``text`` is an absolute URL."""
    if is_absolute(text):
        return None
    return "image-loc-invalid", f'image:loc "{text[:200]}" is not an absolute URL'


def images_count_problem(count: int) -> Problem | None:
    """``image-too-many`` past 1,000 images in one url."""
    if count <= limits.MAX_IMAGES_PER_URL:
        return None
    return "image-too-many", f"{count:,} images in one url, over {limits.MAX_IMAGES_PER_URL:,}"


def news_language_problem(text: str) -> Problem | None:
    """``news-language`` unless ``text`` is zh-cn, zh-tw or 2-3 lowercase letters."""
    if _NEWS_LANG.fullmatch(text):
        return None
    return (
        "news-language",
        f'news:language "{text[:20]}" is not zh-cn, zh-tw or 2–3 lowercase letters',
    )


def w3c_date_problem(text: str, field: str) -> Problem | None:
    """``ext-schema`` when an extension's date field is not a W3C date a sitemap takes."""
    code = dates.classify(text)
    if code is None and text.isascii():
        return None
    return "ext-schema", f'{field} "{text[:40]}" is not a valid W3C date ({code or "digits"})'


def _int_in(text: str, lo: int, hi: int | None) -> bool:
    if not (text.isascii() and text.isdigit()):
        return False
    v = int(text)
    return lo <= v and (hi is None or v <= hi)


def text_length_problem(field: str, text: str, most: int) -> Problem | None:
    """``video-limits`` when a video text field is longer than ``most`` characters."""
    if len(text) <= most:
        return None
    return "video-limits", f"video:{field} is {len(text):,} characters, over {most:,}"


def duration_problem(text: str) -> Problem | None:
    """``video-limits`` unless ``text`` is a whole number of seconds from 1 to 28,800."""
    if _int_in(text, limits.MIN_VIDEO_DURATION, limits.MAX_VIDEO_DURATION):
        return None
    return "video-limits", f'video:duration "{text[:40]}" is not 1–28,800 seconds'


def rating_problem(text: str) -> Problem | None:
    """``video-limits`` unless ``text`` is a number from 0.0 to 5.0."""
    try:
        ok = text.isascii() and 0.0 <= float(text) <= 5.0
    except ValueError:
        ok = False
    return None if ok else ("video-limits", f'video:rating "{text[:40]}" is not 0.0–5.0')


def view_count_problem(text: str) -> Problem | None:
    """``video-limits`` unless ``text`` is a whole number of at least 0."""
    if _int_in(text, 0, None):
        return None
    return "video-limits", f'video:view_count "{text[:40]}" is not a whole number ≥ 0'


def tags_problem(count: int) -> Problem | None:
    """``video-limits`` past 32 tags."""
    if count <= limits.MAX_VIDEO_TAGS:
        return None
    return "video-limits", f"{count} video:tag, over {limits.MAX_VIDEO_TAGS}"


def yes_no_problem(field: str, text: str) -> Problem | None:
    """``video-values`` unless ``text`` is yes or no."""
    if text in YES_NO:
        return None
    return "video-values", f'video:{field} "{text[:40]}" is not yes or no'


def relationship_problem(field: str, value: str | None) -> Problem | None:
    """``video-values`` unless a restriction's or platform's relationship is allow or deny."""
    if value in RELATIONSHIPS:
        return None
    return "video-values", f'video:{field} relationship "{value or ""}" is not allow or deny'


def restriction_problem(countries: Sequence[str]) -> Problem | None:
    """``video-values`` unless every item is an ISO 3166 country code."""
    bad = [c for c in countries if c not in ISO3166_1]
    if not bad:
        return None
    return "video-values", f'video:restriction "{" ".join(bad)[:60]}" is not ISO 3166 country codes'


def platform_problem(platforms: Sequence[str]) -> Problem | None:
    """``video-values`` unless every item is web, mobile or tv."""
    bad = [p for p in platforms if p not in PLATFORMS]
    if not bad:
        return None
    return "video-values", f'video:platform "{" ".join(bad)[:60]}" is not web, mobile or tv'


def same_as_page_problem(field: str, value: str, page: str | None) -> Problem | None:
    """``video-same-as-page`` when a video's content or player URL is the page itself."""
    if page is None or value != page:
        return None
    return "video-same-as-page", f'video:{field} "{value[:200]}" is the page itself'
