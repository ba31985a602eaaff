"""The only code in sitemapkit that turns values into sitemap XML text.

Every value passes through here, so escaping cannot be forgotten somewhere
else.  Escaping uses chains of :meth:`str.replace` guarded by ``in`` tests: on
CPython that is several times faster than :meth:`str.translate` with
multi-character targets, and most values (URLs, dates) need no change at all.

Checks that need the protocol's limits (video title length, news language,
hreflang codes ...) live here too, because they decide what may be rendered:
the writer must never produce a file that breaks an ``error`` rule of
RULES.md.  Each check raises :class:`~sitemapkit.errors.InputError` with the
rule code, and never after part of an entry was emitted.

Rendered lines are ``str``; the caller encodes them in batches (UTF-8).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sitemapkit import limits
from sitemapkit.dates import format_lastmod
from sitemapkit.errors import InputError
from sitemapkit.model import Alternate, Image, LastMod, News, UrlEntry, Video
from sitemapkit.urls import iri_to_uri

XML_DECLARATION: Final = '<?xml version="1.0" encoding="UTF-8"?>\n'

#: Extension bit flags: which namespaces a rendered ``<url>`` needs.
NS_IMAGE: Final = 1
NS_VIDEO: Final = 2
NS_NEWS: Final = 4
NS_XHTML: Final = 8

_NS_DECLS: Final = (
    (NS_IMAGE, f' xmlns:image="{limits.IMAGE_NS}"'),
    (NS_VIDEO, f' xmlns:video="{limits.VIDEO_NS}"'),
    (NS_NEWS, f' xmlns:news="{limits.NEWS_NS}"'),
    (NS_XHTML, f' xmlns:xhtml="{limits.XHTML_NS}"'),
)

#: Characters XML 1.0 forbids (C0 controls but tab/LF/CR, lone surrogates, U+FFFE/U+FFFF).
_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

#: An http(s) URL that :func:`iri_to_uri` would return unchanged (lower-case ASCII host,
#: only RFC 3986 path/query characters, no ``%``): the common case, checked without a call.
PLAIN_URI: Final = re.compile(
    r"https?://[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?/[A-Za-z0-9\-._~!$&'()*+,;=:@/?]*"
).fullmatch

#: With ``pos`` after a known-clean prefix: ``None`` when the rest needs no escaping.
NOT_PLAIN_PATH: Final = re.compile(r"[^A-Za-z0-9\-._~!$&'()*+,;=:@/?]").search


def NOT_PLAIN_URI(url: str, pos: int = 0) -> object:  # noqa: N802 - used like the pattern above
    """``None`` when ``url`` is a plain URI (see :data:`PLAIN_URI`), else a truthy value."""
    return None if PLAIN_URI(url, pos) is not None else True


_LANG = re.compile(r"zh-cn|zh-tw|[a-z]{2,3}")
_HREFLANG = re.compile(r"x-default|[a-z]{2}(?:-[a-z]{4})?(?:-(?:[a-z]{2}|\d{3}))?", re.IGNORECASE)
_COUNTRIES = re.compile(r"[A-Z]{2}")
_PLATFORMS: Final = frozenset({"web", "mobile", "tv"})
_RELATIONSHIPS: Final = frozenset({"allow", "deny"})


def escape(text: str) -> str:
    """Escape ``& < > " '`` (and CR) so ``text`` reads back the same from content or attribute.

    Only text fields pass here; attributes hold URIs or checked codes, which
    have no tab or newline for attribute-value normalisation to change.
    """
    if "&" in text:
        text = text.replace("&", "&amp;")
    if "<" in text:
        text = text.replace("<", "&lt;")
    if ">" in text:
        text = text.replace(">", "&gt;")
    if '"' in text:
        text = text.replace('"', "&quot;")
    if "'" in text:
        text = text.replace("'", "&apos;")
    if "\r" in text:  # a parser would turn a raw CR into LF: keep it as a reference
        text = text.replace("\r", "&#13;")
    return text


def escape_uri(uri: str) -> str:
    """Escape a URI from :func:`clean_url`: only ``&`` and ``'`` can still occur in it."""
    if "&" in uri:
        uri = uri.replace("&", "&amp;")
    if "'" in uri:
        uri = uri.replace("'", "&apos;")
    return uri


def drop_forbidden(text: str) -> tuple[str, int]:
    """``text`` without the characters XML 1.0 forbids, and how many were dropped."""
    if _FORBIDDEN.search(text) is None:
        return text, 0
    return _FORBIDDEN.subn("", text)


def clean_url(url: str, field: str = "loc") -> tuple[str, int]:
    """An absolute, escaped http(s) URI for ``url`` and the forbidden characters dropped.

    Raises :class:`InputError` (``loc-not-absolute``, ``loc-too-long``).  The
    length limit is checked on the URI actually written, which is what a
    search engine sees.
    """
    if not isinstance(url, str):
        raise InputError(f"{field} {url!r} is not a string", rule="loc-not-absolute", value=url)
    if PLAIN_URI(url) is not None:
        uri, dropped = url, 0
    else:
        text, dropped = drop_forbidden(url)
        uri = iri_to_uri(text)
        if _FORBIDDEN.search(uri) is not None:  # a control character in the host
            raise InputError(
                f'{field} "{url}" has a control character in its host',
                rule="loc-not-absolute",
                value=url,
            )
    if len(uri) >= limits.MAX_LOC_LENGTH:
        raise InputError(
            f"{field} is {len(uri)} characters once escaped; "
            f"it must be fewer than {limits.MAX_LOC_LENGTH}",
            rule="loc-too-long",
            value=url,
        )
    return uri, dropped


def lastmod_text(value: LastMod, field: str = "lastmod") -> str:
    """The written form of a date field (see :func:`sitemapkit.dates.format_lastmod`)."""
    text = format_lastmod(value, field)
    if not text.isascii():  # ``\\d`` matches other scripts' digits; the schema does not
        raise InputError(f'{field} "{value}" is not a valid W3C date', rule="lastmod-invalid")
    return text


def _number(value: float | str, low: float, high: float, field: str, rule: str) -> str:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not low <= number <= high:
        raise InputError(
            f"{field} {value!r} is not a number from {low:g} to {high:g}", rule=rule, value=value
        )
    text = f"{number:.4f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def priority_text(value: float | str) -> str:
    """``priority`` as a decimal from 0.0 to 1.0 (at most 4 decimals)."""
    return _number(value, 0.0, 1.0, "priority", "priority-invalid")


def changefreq_text(value: str) -> str:
    text = str(value)
    if text not in limits.CHANGEFREQ_VALUES:
        raise InputError(
            f'changefreq "{value}" is not one of always, hourly, daily, weekly, monthly, '
            "yearly, never",
            rule="changefreq-invalid",
            value=value,
        )
    return text


def _yes_no(value: bool) -> str:
    return "yes" if value else "no"


@dataclass(slots=True)
class Rendered:
    """One rendered ``<url>``: its text, the namespaces it needs, and what it counts."""

    text: str
    namespaces: int = 0
    dropped: int = 0
    news: int = 0
    lastmod: str | None = None


class _Text:
    """Collects dropped-character counts while cleaning and escaping several values."""

    __slots__ = ("dropped",)

    def __init__(self) -> None:
        self.dropped = 0

    def text(self, value: str) -> str:
        cleaned, n = drop_forbidden(str(value))
        self.dropped += n
        return escape(cleaned)

    def url(self, value: str, field: str) -> str:
        uri, n = clean_url(value, field)
        self.dropped += n
        return escape_uri(uri)


def url_line(uri: str, lastmod: str | None) -> str:
    """The common ``<url>``: ``loc`` (a :func:`clean_url` result) and an optional lastmod."""
    if "&" in uri or "'" in uri:
        uri = escape_uri(uri)
    if lastmod is None:
        return f"<url><loc>{uri}</loc></url>\n"
    return f"<url><loc>{uri}</loc><lastmod>{lastmod}</lastmod></url>\n"


def render_url(entry: UrlEntry, uri: str, lastmod: str | None = None) -> Rendered:
    """Render any entry whose ``loc`` is already the clean ``uri``.

    ``lastmod`` is the written form when the caller already has it.  Children
    are in schema order: ``loc, lastmod, changefreq, priority``, then images,
    videos, news, alternates.
    """
    t = _Text()
    parts = [f"<url><loc>{escape_uri(uri)}</loc>"]
    if lastmod is None and entry.lastmod is not None:
        lastmod = lastmod_text(entry.lastmod)
    if lastmod is not None:
        parts.append(f"<lastmod>{lastmod}</lastmod>")
    if entry.changefreq is not None:
        parts.append(f"<changefreq>{changefreq_text(entry.changefreq)}</changefreq>")
    if entry.priority is not None:
        parts.append(f"<priority>{priority_text(entry.priority)}</priority>")
    namespaces = 0
    if entry.images:
        if len(entry.images) > limits.MAX_IMAGES_PER_URL:
            raise InputError(
                f"{len(entry.images)} images in one url; at most {limits.MAX_IMAGES_PER_URL}",
                rule="image-too-many",
            )
        namespaces |= NS_IMAGE
        parts.extend(_image(image, t) for image in entry.images)
    if entry.videos:
        namespaces |= NS_VIDEO
        parts.extend(_video(video, uri, t) for video in entry.videos)
    news = 0
    if entry.news is not None:
        namespaces |= NS_NEWS
        parts.append(_news(entry.news, t))
        news = 1
    if entry.alternates:
        namespaces |= NS_XHTML
        parts.append(_alternates(entry.alternates, uri, t))
    parts.append("</url>\n")
    return Rendered("".join(parts), namespaces, t.dropped, news, lastmod)


def _image(image: Image, t: _Text) -> str:
    if not isinstance(image, Image):
        raise InputError(f"{image!r} is not an Image", rule="image-loc-invalid")
    try:
        loc = t.url(image.loc, "image:loc")
    except InputError as exc:
        raise InputError(str(exc), rule="image-loc-invalid", value=image.loc) from exc
    out = [f"<image:image><image:loc>{loc}</image:loc>"]
    # Legacy children (no effect since 2022) are kept when given: the schema allows them.
    if image.caption is not None:
        out.append(f"<image:caption>{t.text(image.caption)}</image:caption>")
    if image.geo_location is not None:
        out.append(f"<image:geo_location>{t.text(image.geo_location)}</image:geo_location>")
    if image.title is not None:
        out.append(f"<image:title>{t.text(image.title)}</image:title>")
    if image.license is not None:
        out.append(f"<image:license>{t.url(image.license, 'image:license')}</image:license>")
    out.append("</image:image>")
    return "".join(out)


def _required_text(value: str | None, field: str, rule: str, limit: int | None = None) -> str:
    if value is None or not drop_forbidden(str(value))[0].strip():
        raise InputError(f"{field} is required", rule=rule)
    if limit is not None and len(value) > limit:
        raise InputError(
            f"{field} is {len(value)} characters; at most {limit}", rule="video-limits", value=value
        )
    return value


def _video(video: Video, page: str, t: _Text) -> str:
    if not isinstance(video, Video):
        raise InputError(f"{video!r} is not a Video", rule="video-required")
    title = _required_text(video.title, "video:title", "video-required", limits.MAX_VIDEO_TITLE)
    description = _required_text(
        video.description, "video:description", "video-required", limits.MAX_VIDEO_DESCRIPTION
    )
    if video.thumbnail_loc is None:
        raise InputError("video:thumbnail_loc is required", rule="video-required")
    if video.content_loc is None and video.player_loc is None:
        raise InputError(
            "a video needs video:content_loc or video:player_loc", rule="video-required"
        )
    out = [
        "<video:video>",
        f"<video:thumbnail_loc>{t.url(video.thumbnail_loc, 'video:thumbnail_loc')}"
        "</video:thumbnail_loc>",
        f"<video:title>{t.text(title)}</video:title>",
        f"<video:description>{t.text(description)}</video:description>",
    ]
    for field, value in (("content_loc", video.content_loc), ("player_loc", video.player_loc)):
        if value is None:
            continue
        uri, n = clean_url(value, f"video:{field}")
        if uri == page:
            raise InputError(
                f"video:{field} is the page's own URL", rule="video-same-as-page", value=value
            )
        t.dropped += n
        out.append(f"<video:{field}>{escape_uri(uri)}</video:{field}>")
    if video.duration is not None:
        d = video.duration
        if (
            isinstance(d, bool)
            or not isinstance(d, int)
            or not limits.MIN_VIDEO_DURATION <= d <= limits.MAX_VIDEO_DURATION
        ):
            raise InputError(
                f"video:duration {d!r} is not a whole number of seconds from "
                f"{limits.MIN_VIDEO_DURATION} to {limits.MAX_VIDEO_DURATION}",
                rule="video-limits",
                value=d,
            )
        out.append(f"<video:duration>{d}</video:duration>")
    if video.expiration_date is not None:
        text = lastmod_text(video.expiration_date, "video:expiration_date")
        out.append(f"<video:expiration_date>{text}</video:expiration_date>")
    if video.rating is not None:
        rating = _number(video.rating, 0.0, 5.0, "video:rating", "video-limits")
        out.append(f"<video:rating>{rating}</video:rating>")
    if video.view_count is not None:
        v = video.view_count
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise InputError(
                f"video:view_count {v!r} is not a whole number >= 0", rule="video-limits", value=v
            )
        out.append(f"<video:view_count>{v}</video:view_count>")
    if video.publication_date is not None:
        text = lastmod_text(video.publication_date, "video:publication_date")
        out.append(f"<video:publication_date>{text}</video:publication_date>")
    if len(video.tags) > limits.MAX_VIDEO_TAGS:
        raise InputError(
            f"{len(video.tags)} video:tag values; at most {limits.MAX_VIDEO_TAGS}",
            rule="video-limits",
        )
    out.extend(f"<video:tag>{t.text(tag)}</video:tag>" for tag in video.tags)
    if video.family_friendly is not None:
        out.append(
            f"<video:family_friendly>{_yes_no(video.family_friendly)}</video:family_friendly>"
        )
    if video.restriction is not None:
        r = video.restriction
        if r.relationship not in _RELATIONSHIPS or not all(
            _COUNTRIES.fullmatch(c) for c in r.countries
        ):
            raise InputError(
                f"video:restriction needs relationship allow|deny and ISO 3166 codes, "
                f"got {r.relationship!r} {' '.join(r.countries)!r}",
                rule="video-values",
            )
        out.append(
            f'<video:restriction relationship="{r.relationship}">'
            f"{' '.join(r.countries)}</video:restriction>"
        )
    if video.requires_subscription is not None:
        out.append(
            "<video:requires_subscription>"
            f"{_yes_no(video.requires_subscription)}</video:requires_subscription>"
        )
    if video.uploader is not None:
        uploader = _required_text(video.uploader, "video:uploader", "video-limits")
        if len(uploader) > limits.MAX_VIDEO_UPLOADER:
            raise InputError(
                f"video:uploader is {len(uploader)} characters; at most "
                f"{limits.MAX_VIDEO_UPLOADER}",
                rule="video-limits",
            )
        info = ""
        if video.uploader_info is not None:
            info = f' info="{t.url(video.uploader_info, "video:uploader/@info")}"'
        out.append(f"<video:uploader{info}>{t.text(uploader)}</video:uploader>")
    if video.platform is not None:
        p = video.platform
        if p.relationship not in _RELATIONSHIPS or not set(p.platforms) <= _PLATFORMS:
            raise InputError(
                f"video:platform needs relationship allow|deny and web/mobile/tv, "
                f"got {p.relationship!r} {' '.join(p.platforms)!r}",
                rule="video-values",
            )
        out.append(
            f'<video:platform relationship="{p.relationship}">'
            f"{' '.join(p.platforms)}</video:platform>"
        )
    if video.live is not None:
        out.append(f"<video:live>{_yes_no(video.live)}</video:live>")
    out.append("</video:video>")
    return "".join(out)


def _news(news: News, t: _Text) -> str:
    if not isinstance(news, News):
        raise InputError(f"{news!r} is not a News", rule="news-required")
    name = _required_text(news.publication_name, "news:name", "news-required")
    title = _required_text(news.title, "news:title", "news-required")
    language = news.publication_language
    if not isinstance(language, str) or _LANG.fullmatch(language) is None:
        raise InputError(
            f'news:language "{language}" is not zh-cn, zh-tw or 2-3 lowercase letters',
            rule="news-language",
            value=language,
        )
    if news.publication_date is None:
        raise InputError("news:publication_date is required", rule="news-required")
    published = lastmod_text(news.publication_date, "news:publication_date")
    return (
        "<news:news><news:publication>"
        f"<news:name>{t.text(name)}</news:name>"
        f"<news:language>{language}</news:language>"
        "</news:publication>"
        f"<news:publication_date>{published}</news:publication_date>"
        f"<news:title>{t.text(title)}</news:title>"
        "</news:news>"
    )


def _alternates(alternates: tuple[Alternate, ...], page: str, t: _Text) -> str:
    seen: dict[str, str] = {}
    out = []
    has_self = False
    for alt in alternates:
        if not isinstance(alt, Alternate):
            raise InputError(f"{alt!r} is not an Alternate", rule="hreflang-malformed")
        code = alt.hreflang
        if not isinstance(code, str) or _HREFLANG.fullmatch(code) is None:
            raise InputError(
                f'hreflang "{code}" is not x-default or a language[-Script][-REGION] code',
                rule="hreflang-code",
                value=code,
            )
        try:
            href, n = clean_url(alt.href, "xhtml:link/@href")
        except InputError as exc:
            raise InputError(str(exc), rule="hreflang-malformed", value=alt.href) from exc
        key = code.lower()
        if seen.get(key, href) != href:
            raise InputError(
                f'hreflang "{code}" points at two URLs: {seen[key]} and {href}',
                rule="hreflang-conflict",
                value=code,
            )
        if key in seen:
            continue  # the same pair twice: written once
        seen[key] = href
        has_self = has_self or href == page
        t.dropped += n
        out.append(f'<xhtml:link rel="alternate" hreflang="{code}" href="{escape_uri(href)}"/>')
    if not has_self:
        raise InputError(
            f"the alternates of {page} do not include the page itself", rule="hreflang-no-self"
        )
    return "".join(out)


def urlset_head(namespaces: int) -> str:
    """Declaration and ``<urlset>`` start tag declaring only the extensions used."""
    decls = "".join(decl for flag, decl in _NS_DECLS if namespaces & flag)
    return f'{XML_DECLARATION}<urlset xmlns="{limits.SITEMAP_NS}"{decls}>\n'


URLSET_TAIL: Final = "</urlset>\n"
INDEX_HEAD: Final = f'{XML_DECLARATION}<sitemapindex xmlns="{limits.SITEMAP_NS}">\n'
INDEX_TAIL: Final = "</sitemapindex>\n"


def sitemap_entry(loc: str, lastmod: str | None = None) -> str:
    """One ``<sitemap>`` of an index; ``loc`` must already be a clean absolute URI."""
    if lastmod is None:
        return f"<sitemap><loc>{escape_uri(loc)}</loc></sitemap>\n"
    return f"<sitemap><loc>{escape_uri(loc)}</loc><lastmod>{lastmod}</lastmod></sitemap>\n"


def text_line(uri: str) -> str:
    """One line of a text sitemap: the bare URI (no XML escaping applies)."""
    return uri + "\n"


def lastmod_key(text: str) -> float:
    """A sortable instant for a written date field (dates count as midnight UTC)."""
    if len(text) == 10:
        return datetime.fromisoformat(text + "T00:00:00+00:00").timestamp()
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
