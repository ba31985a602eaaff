"""Rules for the extensions inside one ``url``: image, video, news, hreflang links.

Why separate from :mod:`sitemapkit.validate.validator`: these rules read only the
subtree of one entry, so they are plain functions of a node and an ``emit``
callback; the file- and set-level bookkeeping stays in the validator.
Schema orders come from the published XSDs; the limits from Google's docs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Final
from urllib.parse import urlsplit

from sitemapkit import dates, limits
from sitemapkit.read.xmlstream import Node
from sitemapkit.rulebook.langcodes import ISO3166_1, hreflang_problem

#: emit(code, message, node, url)
Emit = Callable[[str, str, Node, "str | None"], None]

IMAGE_ORDER: Final = ("loc", "caption", "geo_location", "title", "license")
IMAGE_DEPRECATED: Final = frozenset({"caption", "geo_location", "title", "license"})
VIDEO_ORDER: Final = (
    "thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration",
    "expiration_date", "rating", "content_segment_loc", "view_count", "publication_date",
    "tag", "category", "family_friendly", "restriction", "gallery_loc", "price",
    "requires_subscription", "uploader", "tvshow", "platform", "live", "id",
)  # fmt: skip
VIDEO_REPEATABLE: Final = frozenset({"content_segment_loc", "tag", "price", "id"})
VIDEO_DEPRECATED: Final = frozenset({"category", "gallery_loc", "price", "tvshow"})
VIDEO_YESNO: Final = frozenset({"family_friendly", "requires_subscription", "live"})
NEWS_ORDER: Final = (
    "publication", "access", "genres", "publication_date", "title", "keywords", "stock_tickers",
)  # fmt: skip
NEWS_LEGACY: Final = frozenset({"access", "genres", "keywords", "stock_tickers"})
#: scheme, optional userinfo, a host (or [IPv6]) and an optional numeric port, then the end
#: of the authority: what the XSDs' anyURI accepts for an absolute http(s) URL and more.
ABSOLUTE = re.compile(
    r"https?://(?:[^/?#\s@]*@)?(?:\[[0-9A-Fa-f:.]+\]|[^/?#\s:@\[\]]+)(?::[0-9]+)?(?=[/?#]|$)",
    re.IGNORECASE,
)
_ABS = ABSOLUTE
#: attributes the extension schemas allow, per element (xsi:* are always allowed)
EXT_ATTRS: Final[dict[str, frozenset[str]]] = {
    "player_loc": frozenset({"allow_embed", "autoplay"}),
    "restriction": frozenset({"relationship"}),
    "platform": frozenset({"relationship"}),
    "uploader": frozenset({"info"}),
    "price": frozenset({"currency", "type", "resolution"}),
    "content_segment_loc": frozenset({"duration"}),
    "gallery_loc": frozenset({"title"}),
    "id": frozenset({"type"}),
}
_XSI = "http://www.w3.org/2001/XMLSchema-instance\x01"
_NONE: Final = frozenset[str]()


def _check_attrs(node: Node, emit: Emit, what: str) -> None:
    allowed = EXT_ATTRS.get(node.name, _NONE) if what.startswith("video") else _NONE
    for a in node.attrs:
        if a not in allowed and not a.startswith(_XSI):
            emit(
                "ext-schema",
                f'attribute "{a.rpartition(chr(1))[2]}" is not allowed on <{node.name}> in {what}',
                node,
                None,
            )
            return


_NEWS_LANG = re.compile(r"zh-cn|zh-tw|[a-z]{2,3}")
_PLATFORMS = frozenset({"web", "mobile", "tv"})


_HTTP_SCHEME = re.compile(r"https?:", re.IGNORECASE)


def bad_http_uri(value: str) -> bool:
    """True for an http(s) URL the schemas' anyURI rejects (bad authority or port)."""
    return _HTTP_SCHEME.match(value) is not None and ABSOLUTE.match(value) is None


def is_absolute(url: str) -> bool:
    return _ABS.match(url) is not None


_RANKS: dict[tuple[str, ...], dict[str, int]] = {}
#: [GVID] names a repeat of these a limit (video-limits), not a schema slip
VIDEO_ONCE: Final = frozenset({"restriction", "platform", "uploader"})


def _order(
    node: Node, order: tuple[str, ...], repeatable: frozenset[str], emit: Emit, what: str
) -> dict[str, list[Node]]:
    """Check children against a schema sequence; return them grouped by name."""
    rank = _RANKS.get(order)
    if rank is None:
        rank = _RANKS[order] = {name: i for i, name in enumerate(order)}
    seen: dict[str, list[Node]] = {}
    last = -1
    if node.attrs:
        _check_attrs(node, emit, what)
    if node.text and not node.text.isspace() and what != "video:platform":
        emit(
            "ext-schema",
            f'text "{node.text.strip()[:40]}" inside {what}, where only elements are allowed',
            node,
            None,
        )
    for c in node.children:
        if c.ns != node.ns:
            emit("ext-schema", f"<{c.name}> from another namespace inside {what}", c, None)
            continue
        if c.attrs:
            _check_attrs(c, emit, what)
        r = rank.get(c.name)
        if r is None:
            emit("ext-schema", f"<{c.name}> is not an element of {what}", c, None)
            continue
        if r < last:
            emit("ext-schema", f"<{c.name}> is out of order in {what} (schema sequence)", c, None)
        elif c.name in seen and c.name not in repeatable:
            if what == "video:video" and c.name in VIDEO_ONCE:
                emit("video-limits", f"video:{c.name} given more than once", c, None)
            else:
                emit("ext-schema", f"<{c.name}> repeated in {what}", c, None)
        last = max(last, r)
        seen.setdefault(c.name, []).append(c)
    return seen


def check_images(images: list[Node], emit: Emit, deprecated: Callable[[str, Node], None]) -> None:
    if len(images) > limits.MAX_IMAGES_PER_URL:
        emit(
            "image-too-many",
            f"{len(images):,} images in one url, over {limits.MAX_IMAGES_PER_URL:,}",
            images[limits.MAX_IMAGES_PER_URL],
            None,
        )
    for img in images:
        kids = _order(img, IMAGE_ORDER, frozenset(), emit, "image:image")
        locs = kids.get("loc")
        if not locs:
            emit("image-loc-invalid", "image:image has no image:loc", img, None)
        else:
            text = locs[0].text.strip()
            if not is_absolute(text):
                emit(
                    "image-loc-invalid",
                    f'image:loc "{text[:200]}" is not an absolute URL',
                    locs[0],
                    text,
                )
        lic = kids.get("license")
        if lic and bad_http_uri(lic[0].text.strip()):
            emit(
                "ext-schema",
                f'image:license "{lic[0].text.strip()[:200]}" is not a valid URL',
                lic[0],
                None,
            )
        for name in kids:
            if name in IMAGE_DEPRECATED:
                deprecated(f"image:{name}", kids[name][0])


def _int_in(text: str, lo: int, hi: int | None) -> bool:
    if not text.isdigit():
        return False
    v = int(text)
    return lo <= v and (hi is None or v <= hi)


def check_video(
    video: Node, page: str | None, emit: Emit, deprecated: Callable[[str, Node], None]
) -> None:
    kids = _order(video, VIDEO_ORDER, VIDEO_REPEATABLE, emit, "video:video")

    def text(name: str) -> str | None:
        got = kids.get(name)
        return got[0].text.strip() if got else None

    for req in ("thumbnail_loc", "title", "description"):
        if not text(req):
            emit("video-required", f"video:video has no video:{req}", video, None)
    if "content_loc" not in kids and "player_loc" not in kids:
        emit(
            "video-required",
            "video:video has neither video:content_loc nor video:player_loc",
            video,
            None,
        )
    for name in ("thumbnail_loc", "content_loc", "player_loc"):
        value = text(name)
        if value and not is_absolute(value):
            emit(
                "ext-schema",
                f'video:{name} "{value[:200]}" is not an absolute URL',
                kids[name][0],
                value,
            )
        if name != "thumbnail_loc" and value and page and value == page:
            emit(
                "video-same-as-page",
                f'video:{name} "{value[:200]}" is the page itself',
                kids[name][0],
                value,
            )
    title = text("title")
    if title and len(title) > limits.MAX_VIDEO_TITLE:
        emit(
            "video-limits",
            f"video:title is {len(title)} characters, over {limits.MAX_VIDEO_TITLE}",
            kids["title"][0],
            None,
        )
    desc = text("description")
    if desc and len(desc) > limits.MAX_VIDEO_DESCRIPTION:
        emit(
            "video-limits",
            f"video:description is {len(desc)} characters, over {limits.MAX_VIDEO_DESCRIPTION:,}",
            kids["description"][0],
            None,
        )
    duration = text("duration")
    if duration is not None and not _int_in(
        duration, limits.MIN_VIDEO_DURATION, limits.MAX_VIDEO_DURATION
    ):
        emit(
            "video-limits",
            f'video:duration "{duration}" is not 1–28,800 seconds',
            kids["duration"][0],
            None,
        )
    rating = text("rating")
    if rating is not None:
        try:
            ok = 0.0 <= float(rating) <= 5.0
        except ValueError:
            ok = False
        if not ok:
            emit("video-limits", f'video:rating "{rating}" is not 0.0–5.0', kids["rating"][0], None)
    views = text("view_count")
    if views is not None and not _int_in(views, 0, None):
        emit(
            "video-limits",
            f'video:view_count "{views}" is not a whole number ≥ 0',
            kids["view_count"][0],
            None,
        )
    tags = kids.get("tag", [])
    if len(tags) > limits.MAX_VIDEO_TAGS:
        emit(
            "video-limits",
            f"{len(tags)} video:tag, over {limits.MAX_VIDEO_TAGS}",
            tags[limits.MAX_VIDEO_TAGS],
            None,
        )
    uploader = kids.get("uploader")
    if uploader:
        up = uploader[0]
        if len(up.text.strip()) > limits.MAX_VIDEO_UPLOADER:
            emit(
                "video-limits",
                f"video:uploader is {len(up.text.strip())} characters, over "
                f"{limits.MAX_VIDEO_UPLOADER}",
                up,
                None,
            )
        info = up.attrs.get("info")
        if info and bad_http_uri(info.strip()):
            emit("ext-schema", f'video:uploader info "{info[:200]}" is not a valid URL', up, info)
        if info and page and urlsplit(info).hostname != urlsplit(page).hostname:
            emit(
                "video-uploader-domain",
                f'video:uploader info "{info[:200]}" is on another host than the page',
                up,
                info,
            )
    for name in ("expiration_date", "publication_date"):
        value = text(name)
        if value is not None and dates.classify(value) is not None:
            emit(
                "ext-schema",
                f'video:{name} "{value[:40]}" is not a W3C date ({dates.classify(value)})',
                kids[name][0],
                None,
            )
    for name in VIDEO_YESNO:
        value = text(name)
        if value is not None and value not in ("yes", "no", "Yes", "No", "YES", "NO"):
            emit(
                "video-values", f'video:{name} "{value[:40]}" is not yes or no', kids[name][0], None
            )
    for name in ("restriction", "platform"):
        for el in kids.get(name, []):
            rel = el.attrs.get("relationship")
            if rel not in ("allow", "deny"):
                emit(
                    "video-values",
                    f'video:{name} relationship "{rel or ""}" is not allow or deny',
                    el,
                    None,
                )
            items = el.text.split()
            if name == "restriction":
                bad = [c for c in items if c not in ISO3166_1]
                what = "ISO 3166 country codes"
            else:
                bad = [p for p in items if p not in _PLATFORMS]
                what = "web, mobile or tv"
            if bad:
                emit("video-values", f'video:{name} "{" ".join(bad)[:60]}" is not {what}', el, None)
    player = kids.get("player_loc")
    if player:
        for attr in ("allow_embed", "autoplay"):
            if attr in player[0].attrs:
                deprecated(f"video:player_loc/@{attr}", player[0])
    for name in kids:
        if name in VIDEO_DEPRECATED:
            deprecated(f"video:{name}", kids[name][0])


def check_news(news: Node, now: datetime, emit: Emit, legacy: Callable[[str, Node], None]) -> None:
    kids = _order(news, NEWS_ORDER, frozenset(), emit, "news:news")
    pub = kids.get("publication")
    if not pub:
        emit("news-required", "news:news has no news:publication", news, None)
    else:
        p = pub[0]
        pub_kids = _order(p, ("name", "language"), frozenset(), emit, "news:publication")
        name = pub_kids["name"][0] if "name" in pub_kids else None
        lang = pub_kids["language"][0] if "language" in pub_kids else None
        if name is None or not name.text.strip():
            emit("news-required", "news:publication has no news:name", p, None)
        if lang is None or not lang.text.strip():
            emit("news-required", "news:publication has no news:language", p, None)
        elif not _NEWS_LANG.fullmatch(lang.text.strip()):
            emit(
                "news-language",
                f'news:language "{lang.text.strip()[:20]}" is not zh-cn, '
                "zh-tw or 2–3 lowercase letters",
                lang,
                None,
            )
    date_nodes = kids.get("publication_date")
    if not date_nodes or not date_nodes[0].text.strip():
        emit("news-required", "news:news has no news:publication_date", news, None)
    else:
        d = date_nodes[0].text.strip()
        code = dates.classify(d)
        if code is not None:
            emit(
                "ext-schema",
                f'news:publication_date "{d[:40]}" is not a valid W3C date ({code})',
                date_nodes[0],
                None,
            )
        else:
            when = dates.parse(d)
            if when is not None and when < now - timedelta(days=2):
                emit(
                    "news-stale",
                    f'news:publication_date "{d}" is older than two days',
                    date_nodes[0],
                    None,
                )
    title = kids.get("title")
    if not title or not title[0].text.strip():
        emit("news-required", "news:news has no news:title", news, None)
    for child_name in kids:
        if child_name in NEWS_LEGACY:
            legacy(f"news:{child_name}", kids[child_name][0])


def check_hreflang(links: list[Node], page: str, emit: Emit) -> dict[str, str]:
    """Check the alternates of one page; return ``hreflang -> href`` of the valid ones."""
    alts: dict[str, str] = {}
    hrefs: set[str] = set()
    for link in links:
        a = link.attrs
        rel = a.get("rel")
        code = a.get("hreflang")
        href = (a.get("href") or "").strip()
        if rel != "alternate" or not code or not href or not is_absolute(href):
            missing = (
                'rel="alternate"' if rel != "alternate"
                else "hreflang" if not code
                else f'an absolute href (got "{href[:100]}")'
            )  # fmt: skip
            emit("hreflang-malformed", f"xhtml:link lacks {missing}", link, href or None)
            continue
        hrefs.add(href)
        why = hreflang_problem(code)
        if why is not None:
            emit("hreflang-code", f'hreflang "{code}": {why}', link, href)
            continue
        key = code.lower()
        if key in alts and alts[key] != href:
            emit(
                "hreflang-conflict",
                f'hreflang "{code}" points at both "{alts[key]}" and "{href}"',
                link,
                href,
            )
            continue
        alts[key] = href
    if hrefs and page not in hrefs:
        emit(
            "hreflang-no-self",
            f'the page "{page[:200]}" is not among its own alternates',
            links[0],
            page,
        )
    return alts
