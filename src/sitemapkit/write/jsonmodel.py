"""The JSON Lines form of a sitemap entry: the whole model, extensions included.

:func:`entry_from_json` refuses unknown keys, because a typo (``lastmodified``)
would otherwise drop data silently; :func:`entry_to_json` writes what it reads.
sitemap.js's spelling of an item (``{"url", "img", "video", "links"}``) is read too
(:mod:`sitemapkit.write.sitemapjs`), and so is what ``sitemapkit urls --format jsonl``
prints (images as bare locs, alternates as ``{hreflang: href}``, the ``sitemap`` a URL was
read from): a site's sitemaps can be read, filtered and written again with no converter.
The CSV cell of alternates that ``urls --format csv`` prints and ``build`` reads is spelled
here too (:func:`alternates_cell`), beside the JSON one.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, Final

from sitemapkit.errors import InputError
from sitemapkit.model import (
    Alternate,
    Image,
    News,
    UrlEntry,
    Video,
    VideoPlatform,
    VideoRestriction,
)
from sitemapkit.write.sitemapjs import from_sitemapjs, looks_like_sitemapjs


def _str(obj: dict[str, Any], key: str, required: bool = False) -> str | None:
    value = obj.get(key)
    if value is None:
        if required:
            raise InputError(f'"{key}" is required', rule="jsonl-invalid")
        return None
    if not isinstance(value, str):
        raise InputError(
            f'"{key}" must be a string, not {type(value).__name__}', rule="jsonl-invalid"
        )
    return value


def _req(obj: dict[str, Any], key: str) -> str:
    value = _str(obj, key, required=True)
    assert value is not None
    return value


def _int(obj: dict[str, Any], key: str) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f'"{key}" must be a whole number', rule="jsonl-invalid")
    return value


def _bool(obj: dict[str, Any], key: str) -> bool | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("yes", "no"):
        return value.lower() == "yes"
    raise InputError(f'"{key}" must be true/false or "yes"/"no"', rule="jsonl-invalid")


def _object(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{what} must be a JSON object", rule="jsonl-invalid")
    return value


def _list(obj: dict[str, Any], key: str) -> list[Any]:
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f'"{key}" must be a JSON array', rule="jsonl-invalid")
    return value


def _only(obj: dict[str, Any], allowed: Iterable[str], what: str) -> None:
    unknown = sorted(set(obj) - set(allowed))
    if unknown:
        raise InputError(f"unknown {what} field(s): {', '.join(unknown)}", rule="jsonl-invalid")


def _words(value: object, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InputError(f'"{key}" must be a string or an array of strings', rule="jsonl-invalid")


_ENTRY_KEYS: Final = (
    "loc", "lastmod", "changefreq", "priority", "images", "videos", "news", "alternates",
)  # fmt: skip
#: Where ``sitemapkit urls`` read an entry: printed with it, not part of it.
_PROVENANCE_KEYS: Final = ("sitemap",)
_VIDEO_KEYS: Final = tuple(Video.__dataclass_fields__)
_IMAGE_KEYS: Final = tuple(Image.__dataclass_fields__)


def entry_from_json(value: object, left_out: list[str] | None = None) -> UrlEntry:
    """A :class:`UrlEntry` from a decoded JSON Lines value; unknown keys are errors.

    A sitemap.js item is read in its own spelling; the fields Google retired that it
    carried are not written, and their names are appended to ``left_out``.
    """
    if isinstance(value, str):
        return UrlEntry(value)
    obj = _object(value, "a line")
    if looks_like_sitemapjs(obj):
        obj = from_sitemapjs(obj, [] if left_out is None else left_out)
    _only(obj, _ENTRY_KEYS + _PROVENANCE_KEYS, "entry")
    priority = obj.get("priority")
    if priority is not None and (
        isinstance(priority, bool) or not isinstance(priority, (int, float, str))
    ):
        raise InputError('"priority" must be a number', rule="priority-invalid")
    images = []
    for item in _list(obj, "images"):
        if isinstance(item, str):  # ``urls``' spelling: the image's loc
            images.append(Image(item))
            continue
        image = _object(item, "an image")
        _only(image, _IMAGE_KEYS, "image")
        images.append(
            Image(
                _req(image, "loc"),
                caption=_str(image, "caption"),
                geo_location=_str(image, "geo_location"),
                title=_str(image, "title"),
                license=_str(image, "license"),
            )
        )
    videos = [_video(_object(item, "a video")) for item in _list(obj, "videos")]
    news = None
    if obj.get("news") is not None:
        n = _object(obj["news"], '"news"')
        _only(
            n,
            (
                "publication_name",
                "publication_language",
                "publication_date",
                "title",
                "name",
                "language",
            ),
            "news",
        )
        news = News(
            publication_name=_str(n, "publication_name") or _req(n, "name"),
            publication_language=_str(n, "publication_language") or _req(n, "language"),
            publication_date=_req(n, "publication_date"),
            title=_req(n, "title"),
        )
    alternates = []
    spelled = obj.get("alternates")
    if isinstance(spelled, dict):  # ``urls``' spelling: {hreflang: href}
        items: list[Any] = [{"hreflang": k, "href": v} for k, v in spelled.items()]
    else:
        items = _list(obj, "alternates")
    for item in items:
        alt = _object(item, "an alternate")
        _only(alt, ("hreflang", "href"), "alternate")
        alternates.append(Alternate(_req(alt, "hreflang"), _req(alt, "href")))
    return UrlEntry(
        _req(obj, "loc"),
        lastmod=_str(obj, "lastmod"),
        changefreq=_str(obj, "changefreq"),
        priority=priority,
        images=tuple(images),
        videos=tuple(videos),
        news=news,
        alternates=tuple(alternates),
    )


def _video(v: dict[str, Any]) -> Video:
    _only(v, _VIDEO_KEYS, "video")
    restriction = platform = None
    if v.get("restriction") is not None:
        r = _object(v["restriction"], '"restriction"')
        _only(r, ("relationship", "countries"), "restriction")
        restriction = VideoRestriction(
            _req(r, "relationship"), _words(r.get("countries"), "countries")
        )
    if v.get("platform") is not None:
        p = _object(v["platform"], '"platform"')
        _only(p, ("relationship", "platforms"), "platform")
        platform = VideoPlatform(_req(p, "relationship"), _words(p.get("platforms"), "platforms"))
    rating = v.get("rating")
    if rating is not None and (isinstance(rating, bool) or not isinstance(rating, (int, float))):
        raise InputError('"rating" must be a number', rule="video-limits")
    return Video(
        thumbnail_loc=_req(v, "thumbnail_loc"),
        title=_req(v, "title"),
        description=_req(v, "description"),
        content_loc=_str(v, "content_loc"),
        player_loc=_str(v, "player_loc"),
        duration=_int(v, "duration"),
        expiration_date=_str(v, "expiration_date"),
        rating=None if rating is None else float(rating),
        view_count=_int(v, "view_count"),
        publication_date=_str(v, "publication_date"),
        tags=_words(v.get("tags"), "tags") if not isinstance(v.get("tags"), str) else (v["tags"],),
        family_friendly=_bool(v, "family_friendly"),
        restriction=restriction,
        requires_subscription=_bool(v, "requires_subscription"),
        uploader=_str(v, "uploader"),
        uploader_info=_str(v, "uploader_info"),
        platform=platform,
        live=_bool(v, "live"),
    )


def entry_to_json(entry: UrlEntry) -> str:
    """The JSON Lines form of ``entry`` (what :func:`entry_from_json` reads back)."""
    return json.dumps(plain(entry), ensure_ascii=False)


def plain(value: object) -> object:
    """``value`` (an entry or a part of one) as JSON-ready values, ``None`` and ``()`` left out."""
    from dataclasses import fields, is_dataclass
    from datetime import date

    if is_dataclass(value) and not isinstance(value, type):
        out: dict[str, object] = {}
        for f in fields(value):
            v = getattr(value, f.name)
            if v is None or v == ():
                continue
            out[f.name] = plain(v)
        return out
    if isinstance(value, tuple):
        return [plain(v) for v in value]
    if isinstance(value, date):
        return value.isoformat()
    return value


def alternates_cell(alternates: Iterable[Alternate]) -> str:
    """Alternates as one CSV cell (``hreflang=href`` separated by spaces): what
    ``sitemapkit urls --format csv`` prints and :func:`alternates_from_cell` reads."""
    return " ".join(f"{a.hreflang}={a.href}" for a in alternates)


def alternates_from_cell(cell: str) -> tuple[Alternate, ...]:
    """The alternates of a cell :func:`alternates_cell` spells; a pair without ``=`` is an error."""
    alternates = []
    for pair in cell.split():
        hreflang, sep, href = pair.partition("=")
        if not sep:
            raise InputError(f'alternate "{pair}" is not hreflang=href', rule="csv-invalid")
        alternates.append(Alternate(hreflang, href))
    return tuple(alternates)
