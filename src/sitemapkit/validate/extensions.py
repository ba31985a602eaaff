"""Rules for the extensions inside one ``url``: image, video, news, hreflang links.

Why separate from :mod:`sitemapkit.validate.validator`: these rules read only the
subtree of one entry, so they are plain functions of a node and an ``emit``
callback; the file- and set-level bookkeeping stays in the validator.
Schema orders come from the published XSDs; the limits from Google's docs.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Final
from urllib.parse import urlsplit

from sitemapkit import dates, limits
from sitemapkit.read.xmlstream import Node
from sitemapkit.rulebook import Problem, media
from sitemapkit.rulebook.hreflang import code_problem, conflict_problem, no_self_problem
from sitemapkit.rulebook.loc import bad_http_uri, is_absolute

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


def _emit(emit: Emit, problem: Problem | None, node: Node, url: str | None = None) -> None:
    if problem is not None:
        emit(problem[0], problem[1], node, url)


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
        _emit(emit, media.images_count_problem(len(images)), images[limits.MAX_IMAGES_PER_URL])
    for img in images:
        kids = _order(img, IMAGE_ORDER, frozenset(), emit, "image:image")
        locs = kids.get("loc")
        if not locs:
            emit("image-loc-invalid", "image:image has no image:loc", img, None)
        else:
            text = locs[0].text.strip()
            _emit(emit, media.image_loc_problem(text), locs[0], text)
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
    _video_locs(kids, page, emit)
    _video_values(kids, emit)
    _video_uploader(kids, page, emit)
    for name in ("restriction", "platform"):
        for el in kids.get(name, []):
            _emit(emit, media.relationship_problem(name, el.attrs.get("relationship")), el)
            items = el.text.split()
            if name == "restriction":
                _emit(emit, media.restriction_problem(items), el)
            else:
                _emit(emit, media.platform_problem(items), el)
    player = kids.get("player_loc")
    if player:
        for attr in ("allow_embed", "autoplay"):
            if attr in player[0].attrs:
                deprecated(f"video:player_loc/@{attr}", player[0])
    for name in kids:
        if name in VIDEO_DEPRECATED:
            deprecated(f"video:{name}", kids[name][0])


def _video_locs(kids: dict[str, list[Node]], page: str | None, emit: Emit) -> None:
    for name in ("thumbnail_loc", "content_loc", "player_loc"):
        got = kids.get(name)
        value = got[0].text.strip() if got else None
        if not got or not value:
            continue
        if not is_absolute(value):
            emit(
                "ext-schema", f'video:{name} "{value[:200]}" is not an absolute URL', got[0], value
            )
        if name != "thumbnail_loc":
            _emit(emit, media.same_as_page_problem(name, value, page), got[0], value)


def _video_values(kids: dict[str, list[Node]], emit: Emit) -> None:
    """The single-value rules of a video, each asked of the rule book."""
    checks: tuple[tuple[str, Callable[[str], Problem | None]], ...] = (
        ("title", lambda v: media.text_length_problem("title", v, limits.MAX_VIDEO_TITLE)),
        (
            "description",
            lambda v: media.text_length_problem("description", v, limits.MAX_VIDEO_DESCRIPTION),
        ),
        ("duration", media.duration_problem),
        ("rating", media.rating_problem),
        ("view_count", media.view_count_problem),
        ("expiration_date", lambda v: media.w3c_date_problem(v, "video:expiration_date")),
        ("publication_date", lambda v: media.w3c_date_problem(v, "video:publication_date")),
        *((name, lambda v, n=name: media.yes_no_problem(n, v)) for name in sorted(VIDEO_YESNO)),
    )
    for name, check in checks:
        got = kids.get(name)
        if got:
            value = got[0].text.strip()
            if value or name not in ("title", "description"):
                _emit(emit, check(value), got[0])
    tags = kids.get("tag", [])
    if len(tags) > limits.MAX_VIDEO_TAGS:
        _emit(emit, media.tags_problem(len(tags)), tags[limits.MAX_VIDEO_TAGS])


def _video_uploader(kids: dict[str, list[Node]], page: str | None, emit: Emit) -> None:
    uploader = kids.get("uploader")
    if not uploader:
        return
    up = uploader[0]
    _emit(
        emit, media.text_length_problem("uploader", up.text.strip(), limits.MAX_VIDEO_UPLOADER), up
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


def _publication(p: Node, emit: Emit) -> None:
    pub_kids = _order(p, ("name", "language"), frozenset(), emit, "news:publication")
    name = pub_kids["name"][0] if "name" in pub_kids else None
    lang = pub_kids["language"][0] if "language" in pub_kids else None
    if name is None or not name.text.strip():
        emit("news-required", "news:publication has no news:name", p, None)
    if lang is None or not lang.text.strip():
        emit("news-required", "news:publication has no news:language", p, None)
    else:
        _emit(emit, media.news_language_problem(lang.text.strip()), lang)


def check_news(news: Node, now: datetime, emit: Emit, legacy: Callable[[str, Node], None]) -> None:
    kids = _order(news, NEWS_ORDER, frozenset(), emit, "news:news")
    pub = kids.get("publication")
    if not pub:
        emit("news-required", "news:news has no news:publication", news, None)
    else:
        _publication(pub[0], emit)
    date_nodes = kids.get("publication_date")
    if not date_nodes or not date_nodes[0].text.strip():
        emit("news-required", "news:news has no news:publication_date", news, None)
    else:
        d = date_nodes[0].text.strip()
        bad_date = media.w3c_date_problem(d, "news:publication_date")
        if bad_date is not None:
            _emit(emit, bad_date, date_nodes[0])
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
        bad_code = code_problem(code)
        if bad_code is not None:
            _emit(emit, bad_code, link, href)
            continue
        key = code.lower()
        conflict = conflict_problem(code, alts.setdefault(key, href), href)
        if conflict is not None:
            _emit(emit, conflict, link, href)
    _emit(emit, no_self_problem(page, hrefs), links[0], page)
    return alts
