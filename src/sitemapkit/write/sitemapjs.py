"""sitemap.js's item spelling, read as our JSON Lines entry.

People moving from ekalinin/sitemap.js have JSON Lines in its shape (``{"url": ...,
"img": ..., "video": ..., "links": [{"lang", "url"}], "news": {"publication": {...}}}``,
what ``sitemap --json`` reads).  :func:`from_sitemapjs` turns one such object into
the shape :func:`sitemapkit.write.jsonmodel.entry_from_json` checks, so it goes through
the same rules and the same unknown-key check: a sitemap.js field this module does not
name is still refused.

The fields Google retired in 2022, which sitemap.js still writes (video ``category``,
``gallery_loc``, ``price``, ``id``, ``player_loc`` ``autoplay`` / ``allow_embed``;
news ``access``, ``genres``, ``keywords``, ``stock_tickers``), and ``expires``,
``androidLink``, ``ampLink``, ``fullPrecisionPriority``, are accepted and left out:
:data:`RETIRED` names them, and the caller is told which it left out.
"""

from __future__ import annotations

from contextlib import suppress
from typing import Any, Final

#: sitemap.js fields read and not written, per object; see the module docstring.
RETIRED: Final = {
    "entry": ("expires", "androidLink", "ampLink", "fullPrecisionPriority", "lastmodrealtime"),
    "video": (
        "category", "gallery_loc", "gallery_loc:title", "price", "price:resolution",
        "price:currency", "price:type", "id", "player_loc:autoplay", "player_loc:allow_embed",
    ),
    "news": ("access", "genres", "keywords", "stock_tickers"),
}  # fmt: skip


def looks_like_sitemapjs(obj: dict[str, Any]) -> bool:
    """Is ``obj`` a sitemap.js item (``url``, no ``loc``)?"""
    return "url" in obj and "loc" not in obj


def from_sitemapjs(obj: dict[str, Any], left_out: list[str]) -> dict[str, Any]:
    """``obj`` in our entry shape; the retired fields it had are appended to ``left_out``."""
    out = {k: v for k, v in obj.items() if k not in RETIRED["entry"]}
    left_out.extend(k for k in obj if k in RETIRED["entry"])
    out["loc"] = out.pop("url")
    if "lastmodISO" in out:
        out.setdefault("lastmod", out.pop("lastmodISO"))
        out.pop("lastmodISO", None)
    if "img" in out:
        out["images"] = [_image(i) for i in _as_list(out.pop("img"))]
    if "video" in out:
        out["videos"] = [_video(v, left_out) for v in _as_list(out.pop("video"))]
    if "links" in out:
        out["alternates"] = [_link(link) for link in _as_list(out.pop("links"))]
    if isinstance(out.get("news"), dict):
        out["news"] = _news(out["news"], left_out)
    return out


def _as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else [] if value is None else [value]


def _image(value: object) -> object:
    if isinstance(value, str):
        return {"loc": value}
    if not isinstance(value, dict):
        return value  # refused, with its reason, by entry_from_json
    image = dict(value)
    if "url" in image:
        image["loc"] = image.pop("url")
    if "geoLocation" in image:
        image["geo_location"] = image.pop("geoLocation")
    return image


def _link(value: object) -> object:
    if not isinstance(value, dict):
        return value
    link = dict(value)
    lang = link.pop("lang", None)
    link.setdefault("hreflang", lang)
    if "url" in link:
        link["href"] = link.pop("url")
    return link


def _video(value: object, left_out: list[str]) -> object:
    if not isinstance(value, dict):
        return value
    video = {k: v for k, v in value.items() if k not in RETIRED["video"]}
    left_out.extend(f"video.{k}" for k in value if k in RETIRED["video"])
    if "tag" in video:
        tags = video.pop("tag")
        video["tags"] = [tags] if isinstance(tags, str) else tags
    if isinstance(video.get("view_count"), str) and video["view_count"].isdigit():
        video["view_count"] = int(video["view_count"])
    if isinstance(video.get("rating"), str):
        with suppress(ValueError):  # else refused, with its reason, by entry_from_json
            video["rating"] = float(video["rating"])
    for name, attribute, target in (
        ("restriction", "restriction:relationship", "countries"),
        ("platform", "platform:relationship", "platforms"),
    ):
        relationship = video.pop(attribute, None)
        if name in video and not isinstance(video[name], dict):
            video[name] = {"relationship": relationship, target: video[name]}
    if "uploader:info" in video:
        video["uploader_info"] = video.pop("uploader:info")
    return video


def _news(value: dict[str, Any], left_out: list[str]) -> dict[str, Any]:
    news = {k: v for k, v in value.items() if k not in RETIRED["news"]}
    left_out.extend(f"news.{k}" for k in value if k in RETIRED["news"])
    publication = news.pop("publication", None)
    if isinstance(publication, dict):
        news.setdefault("name", publication.get("name"))
        news.setdefault("language", publication.get("language"))
    return news
