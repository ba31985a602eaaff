"""The only code in sitemapkit that turns values into sitemap XML text.

Every value passes through here, so escaping cannot be forgotten somewhere
else.  Escaping uses chains of :meth:`str.replace` guarded by ``in`` tests: on
CPython that is several times faster than :meth:`str.translate` with
multi-character targets, and most values (URLs, dates) need no change at all.

What may be rendered is decided by the rule book (:mod:`sitemapkit.rulebook`),
asked about the very text that is about to be written, the same functions the
validator asks about the text it reads: the writer must never produce a file
that breaks an ``error`` rule of RULES.md.  A broken value raises
:class:`~sitemapkit.errors.InputError` with the rule code, never after part of
an entry was emitted; with ``lenient`` a broken *annotation* (lastmod, hints,
an image, a video, the news, an alternate) is left out and reported instead,
and the page is still written.

Rendered lines are ``str``; the caller encodes them in batches (UTF-8).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from sitemapkit import limits
from sitemapkit.dates import format_lastmod
from sitemapkit.errors import InputError
from sitemapkit.model import Alternate, Image, LastMod, News, UrlEntry, Video
from sitemapkit.rulebook import Problem, media
from sitemapkit.rulebook.hints import changefreq_problem, lastmod_problem, priority_problem
from sitemapkit.rulebook.hreflang import code_problem, conflict_problem, no_self_problem
from sitemapkit.rulebook.loc import loc_problem
from sitemapkit.urls import PLAIN_URI, iri_to_uri

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

#: A URL's written alternates: ``(hreflang as given, clean href)`` in input order.
Links = list[tuple[str, str]]


def _raise(problem: Problem | None, value: object = None) -> None:
    """Turn a rule book answer into the writer's error."""
    if problem is not None:
        raise InputError(problem[1], rule=problem[0], value=value)


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
    _raise(loc_problem(uri), url)  # what the validator will ask of it
    return uri, dropped


def lastmod_text(value: LastMod, field: str = "lastmod") -> str:
    """The written form of a date field (see :func:`sitemapkit.dates.format_lastmod`)."""
    text = format_lastmod(value, field)
    problem = lastmod_problem(text)
    if problem is not None:
        raise InputError(f"{field} {problem[1]}", rule=problem[0], value=value)
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


def _checked(text: str, check: Callable[[str], Problem | None]) -> str:
    _raise(check(text), text)
    return text


def priority_text(value: float | str) -> str:
    """``priority`` as a decimal from 0.0 to 1.0 (at most 4 decimals)."""
    return _checked(_number(value, 0.0, 1.0, "priority", "priority-invalid"), priority_problem)


def changefreq_text(value: str) -> str:
    return _checked(str(value), changefreq_problem)


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
    #: annotations left out (``lenient``), as the rule each broke
    left_out: list[Problem] = field(default_factory=list)


class _Text:
    """Collects dropped-character counts and left-out annotations while rendering one entry.

    ``lenient``: an annotation that breaks a rule is left out and recorded in
    :attr:`left_out` instead of failing the whole entry.
    """

    __slots__ = ("dropped", "left_out", "lenient")

    def __init__(self, lenient: bool = False) -> None:
        self.dropped = 0
        self.lenient = lenient
        self.left_out: list[Problem] = []

    def text(self, value: str) -> str:
        cleaned, n = drop_forbidden(str(value))
        self.dropped += n
        return escape(cleaned)

    def url(self, value: str, field: str) -> str:
        uri, n = clean_url(value, field)
        self.dropped += n
        return escape_uri(uri)

    def annotation(self, render: Callable[[], str]) -> str | None:
        """``render()``, or ``None`` when lenient and it broke a rule (then recorded)."""
        if not self.lenient:
            return render()
        dropped = self.dropped
        try:
            return render()
        except InputError as exc:
            self.dropped = dropped  # characters of a value that is not written
            self.left_out.append((exc.rule or "entry-invalid", str(exc)))
            return None


def url_line(uri: str, lastmod: str | None) -> str:
    """The common ``<url>``: ``loc`` (a :func:`clean_url` result) and an optional lastmod."""
    if "&" in uri or "'" in uri:
        uri = escape_uri(uri)
    if lastmod is None:
        return f"<url><loc>{uri}</loc></url>\n"
    return f"<url><loc>{uri}</loc><lastmod>{lastmod}</lastmod></url>\n"


def render_url(
    entry: UrlEntry,
    uri: str,
    lastmod: str | None = None,
    *,
    lenient: bool = False,
    links: Links | None = None,
) -> Rendered:
    """Render any entry whose ``loc`` is already the clean ``uri``.

    ``lastmod`` is the written form when the caller already has it.  ``links``
    are alternates the caller has already checked (see :func:`check_alternates`);
    without them the entry's own are checked here.  Children are in schema
    order: ``loc, lastmod, changefreq, priority``, then images, videos, news,
    alternates.
    """
    t = _Text(lenient)
    parts = [f"<url><loc>{escape_uri(uri)}</loc>"]
    value = entry.lastmod
    if lastmod is None and value is not None:
        lastmod = t.annotation(lambda: lastmod_text(value))
    if lastmod is not None:
        parts.append(f"<lastmod>{lastmod}</lastmod>")
    freq, prio = entry.changefreq, entry.priority
    if freq is not None and (text := t.annotation(lambda: changefreq_text(freq))) is not None:
        parts.append(f"<changefreq>{text}</changefreq>")
    if prio is not None and (text := t.annotation(lambda: priority_text(prio))) is not None:
        parts.append(f"<priority>{text}</priority>")
    namespaces = 0
    kept = [text for text in _images(entry.images, t) if text is not None]
    if kept:
        namespaces |= NS_IMAGE
        parts.extend(kept)
    kept = [t.annotation(lambda v=v: _video(v, uri, t)) for v in entry.videos]  # type: ignore[misc]
    if any(text is not None for text in kept):
        namespaces |= NS_VIDEO
        parts.extend(text for text in kept if text is not None)
    news = 0
    item = entry.news
    if item is not None and (text := t.annotation(lambda: _news(item, t))) is not None:
        namespaces |= NS_NEWS
        parts.append(text)
        news = 1
    if links is None and entry.alternates:
        links, problems = check_alternates(entry.alternates, uri, lenient)
        t.left_out.extend(problems)
    if links:
        namespaces |= NS_XHTML
        parts.extend(
            f'<xhtml:link rel="alternate" hreflang="{code}" href="{escape_uri(href)}"/>'
            for code, href in links
        )
    parts.append("</url>\n")
    return Rendered("".join(parts), namespaces, t.dropped, news, lastmod, t.left_out)


def _images(images: tuple[Image, ...], t: _Text) -> list[str | None]:
    if len(images) > limits.MAX_IMAGES_PER_URL:
        problem = media.images_count_problem(len(images))
        assert problem is not None
        if not t.lenient:
            _raise(problem)
        t.left_out.append(problem)
        images = images[: limits.MAX_IMAGES_PER_URL]
    return [t.annotation(lambda i=image: _image(i, t)) for image in images]  # type: ignore[misc]


def _image(image: Image, t: _Text) -> str:
    if not isinstance(image, Image):
        raise InputError(f"{image!r} is not an Image", rule="image-loc-invalid")
    try:
        loc = t.url(image.loc, "image:loc")
    except InputError as exc:
        raise InputError(str(exc), rule="image-loc-invalid", value=image.loc) from exc
    _raise(media.image_loc_problem(loc), image.loc)
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
    if limit is not None:
        # the validator measures the text it reads back: stripped, forbidden characters gone
        written = drop_forbidden(str(value))[0].strip()
        _raise(media.text_length_problem(field.removeprefix("video:"), written, limit), value)
        _raise(media.text_length_problem(field.removeprefix("video:"), str(value), limit), value)
    return value


def _whole(value: object, field: str, check: Callable[[str], Problem | None]) -> str:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{field} {value!r} is not a whole number", rule="video-limits")
    return _checked(str(value), check)


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
    for name, value in (("content_loc", video.content_loc), ("player_loc", video.player_loc)):
        if value is None:
            continue
        uri, n = clean_url(value, f"video:{name}")
        _raise(media.same_as_page_problem(name, uri, page), value)
        t.dropped += n
        out.append(f"<video:{name}>{escape_uri(uri)}</video:{name}>")
    out.extend(_video_values(video))
    _raise(media.tags_problem(len(video.tags)))
    out.extend(f"<video:tag>{t.text(tag)}</video:tag>" for tag in video.tags)
    if video.family_friendly is not None:
        out.append(
            f"<video:family_friendly>{_yes_no(video.family_friendly)}</video:family_friendly>"
        )
    if video.restriction is not None:
        r = video.restriction
        _raise(media.relationship_problem("restriction", r.relationship))
        _raise(media.restriction_problem(r.countries))
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
        uploader = _required_text(
            video.uploader, "video:uploader", "video-limits", limits.MAX_VIDEO_UPLOADER
        )
        info = ""
        if video.uploader_info is not None:
            info = f' info="{t.url(video.uploader_info, "video:uploader/@info")}"'
        out.append(f"<video:uploader{info}>{t.text(uploader)}</video:uploader>")
    if video.platform is not None:
        p = video.platform
        _raise(media.relationship_problem("platform", p.relationship))
        _raise(media.platform_problem(p.platforms))
        out.append(
            f'<video:platform relationship="{p.relationship}">'
            f"{' '.join(p.platforms)}</video:platform>"
        )
    if video.live is not None:
        out.append(f"<video:live>{_yes_no(video.live)}</video:live>")
    out.append("</video:video>")
    return "".join(out)


def _video_values(video: Video) -> list[str]:
    """duration, expiration_date, rating, view_count, publication_date: schema order."""
    out = []
    if video.duration is not None:
        d = _whole(video.duration, "video:duration", media.duration_problem)
        out.append(f"<video:duration>{d}</video:duration>")
    if video.expiration_date is not None:
        text = lastmod_text(video.expiration_date, "video:expiration_date")
        out.append(f"<video:expiration_date>{text}</video:expiration_date>")
    if video.rating is not None:
        rating = _number(video.rating, 0.0, 5.0, "video:rating", "video-limits")
        out.append(f"<video:rating>{_checked(rating, media.rating_problem)}</video:rating>")
    if video.view_count is not None:
        v = _whole(video.view_count, "video:view_count", media.view_count_problem)
        out.append(f"<video:view_count>{v}</video:view_count>")
    if video.publication_date is not None:
        text = lastmod_text(video.publication_date, "video:publication_date")
        out.append(f"<video:publication_date>{text}</video:publication_date>")
    return out


def _news(news: News, t: _Text) -> str:
    if not isinstance(news, News):
        raise InputError(f"{news!r} is not a News", rule="news-required")
    name = _required_text(news.publication_name, "news:name", "news-required")
    title = _required_text(news.title, "news:title", "news-required")
    language = news.publication_language
    if not isinstance(language, str):
        raise InputError(f"news:language {language!r} is not text", rule="news-language")
    _raise(media.news_language_problem(language), language)
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


def _link(alt: object) -> tuple[str, str]:
    """One alternate's code and clean href, or :class:`InputError` with the rule it breaks."""
    if not isinstance(alt, Alternate):
        raise InputError(f"{alt!r} is not an Alternate", rule="hreflang-malformed")
    code = alt.hreflang
    if not isinstance(code, str) or not code:
        raise InputError(f"hreflang {code!r} is not a code", rule="hreflang-code", value=code)
    _raise(code_problem(code), code)
    try:
        href, _ = clean_url(alt.href, "xhtml:link/@href")
    except InputError as exc:
        raise InputError(str(exc), rule="hreflang-malformed", value=alt.href) from exc
    return code, href


def check_alternates(
    alternates: tuple[Alternate, ...], page: str, lenient: bool = False
) -> tuple[Links, list[Problem]]:
    """The alternates of ``page`` that may be written, and the problems of the rest.

    The per-page rules of the rule book: each code (ISO lists), each href
    (absolute, escaped), one URL per code (the first wins), and the page among
    its own alternates.  Strict: the first problem raises :class:`InputError`.
    Lenient: broken links are left out; when the page itself is then missing,
    all of them are.  The set's reciprocity is the writer's to check (it needs
    every page).
    """
    links: Links = []
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for alt in alternates:
        try:
            code, href = _link(alt)
            key = code.lower()
            _raise(conflict_problem(code, seen.setdefault(key, href), href), code)
        except InputError as exc:
            if not lenient:
                raise
            problems.append((exc.rule or "hreflang-malformed", str(exc)))
            continue
        if (key, href) in ((c.lower(), h) for c, h in links):
            continue  # the same pair twice: written once
        links.append((code, href))
    missing = no_self_problem(page, {href for _, href in links}) if links else None
    if missing is not None:
        if not lenient:
            _raise(missing)
        problems.append(missing)
        links = []
    return links, problems


def pairs_of(links: Links) -> tuple[tuple[str, str], ...]:
    """``links`` as the rule book compares alternate sets (:data:`rulebook.hreflang.Pairs`)."""
    return tuple(sorted({(code.lower(), href) for code, href in links}))


def stylesheet(xsl: str | None) -> str:
    """The ``<?xml-stylesheet?>`` line that makes browsers show a file through ``xsl``
    (sitemap.js's ``xslUrl``), or nothing; it comes right after the declaration."""
    return "" if xsl is None else f'<?xml-stylesheet type="text/xsl" href="{escape(xsl)}"?>\n'


def urlset_head(namespaces: int, xsl: str | None = None) -> str:
    """Declaration and ``<urlset>`` start tag declaring only the extensions used."""
    decls = "".join(decl for flag, decl in _NS_DECLS if namespaces & flag)
    return f'{XML_DECLARATION}{stylesheet(xsl)}<urlset xmlns="{limits.SITEMAP_NS}"{decls}>\n'


def index_head(xsl: str | None = None) -> str:
    """Declaration and ``<sitemapindex>`` start tag."""
    return f'{XML_DECLARATION}{stylesheet(xsl)}<sitemapindex xmlns="{limits.SITEMAP_NS}">\n'


URLSET_TAIL: Final = "</urlset>\n"
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
