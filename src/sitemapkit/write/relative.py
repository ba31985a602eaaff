"""A build input's relative URLs, resolved against ``--base-url``.

Why: a site's route list is often paths (``/about``), and sitemap.js resolves each URL of
an item (the page, its images, videos and alternates) against its ``hostname`` option.
With a base URL we do the same, by the URL standard's rules (``/about`` against
``https://example.com/blog/`` is ``https://example.com/about``; ``about`` is
``https://example.com/blog/about``); without one a path stays what it is, and the loc
rule names it.  Only references with no scheme are resolved: ``javascript:x`` or
``ftp://h/`` stay as written, and the loc rule refuses them.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Final
from urllib.parse import urljoin

from sitemapkit.model import Alternate, Image, UrlEntry, Video

#: the start of an absolute URL: a scheme and its colon (RFC 3986 section 3.1)
_SCHEME: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_WEB: Final = ("http://", "https://")


def is_relative(url: str) -> bool:
    """True when ``url`` has no scheme: a path, a query or a scheme-relative ``//host``."""
    return not url.startswith(_WEB) and _SCHEME.match(url) is None


def _join(url: str, base: str) -> str:
    return urljoin(base, url) if is_relative(url) else url


def _image(image: Image, base: str) -> Image:
    loc, lic = _join(image.loc, base), image.license and _join(image.license, base)
    if loc == image.loc and lic == image.license:
        return image
    return dataclasses.replace(image, loc=loc, license=lic)


def _video(video: Video, base: str) -> Video:
    thumb = _join(video.thumbnail_loc, base)
    content = video.content_loc and _join(video.content_loc, base)
    player = video.player_loc and _join(video.player_loc, base)
    if (thumb, content, player) == (video.thumbnail_loc, video.content_loc, video.player_loc):
        return video
    return dataclasses.replace(video, thumbnail_loc=thumb, content_loc=content, player_loc=player)


def _alternate(alt: Alternate, base: str) -> Alternate:
    href = _join(alt.href, base)
    return alt if href == alt.href else Alternate(alt.hreflang, href)


def absolute_entry(entry: UrlEntry, base: str) -> UrlEntry:
    """``entry`` with every relative URL it holds resolved against ``base`` (itself when
    none is relative, so the common entry costs one check)."""
    if not entry.images and not entry.videos and not entry.alternates:
        if isinstance(entry.loc, str) and is_relative(entry.loc):
            return dataclasses.replace(entry, loc=urljoin(base, entry.loc))
        return entry
    loc = _join(entry.loc, base) if isinstance(entry.loc, str) else entry.loc
    images = tuple(_image(i, base) for i in entry.images)
    videos = tuple(_video(v, base) for v in entry.videos)
    alternates = tuple(_alternate(a, base) for a in entry.alternates)
    return dataclasses.replace(entry, loc=loc, images=images, videos=videos, alternates=alternates)
