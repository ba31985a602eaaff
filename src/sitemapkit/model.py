"""The values that flow through sitemapkit: entries, extensions, findings, pages.

Frozen, slotted dataclasses: cheap to create by the million, safe to share
between the writer, the reader, the validator and the visual map.  The writer
checks and normalises them (see :mod:`sitemapkit.write.writer`); the reader
produces them as found on the web, so their text fields are kept verbatim.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import date, datetime

from sitemapkit.terminal import for_people

#: What a lastmod may be given as: a date, an aware datetime, or W3C text.
LastMod = date | datetime | str

#: The crawl's reason for a URL outside its scope (only linked, never fetched); the
#: visual map gathers hosts that only have such URLs into one "External links" group.
OUT_OF_SCOPE = "out-of-scope"


class ChangeFreq(enum.StrEnum):
    ALWAYS = "always"
    HOURLY = "hourly"
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"
    YEARLY = "yearly"
    NEVER = "never"


@dataclass(frozen=True, slots=True)
class Image:
    """``image:image``.  Only ``loc`` has effect since 2022; the rest are legacy."""

    loc: str
    caption: str | None = None
    geo_location: str | None = None
    title: str | None = None
    license: str | None = None


@dataclass(frozen=True, slots=True)
class VideoRestriction:
    """``video:restriction``: space-separated ISO 3166 country codes, allowed or denied."""

    relationship: str  # "allow" | "deny"
    countries: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class VideoPlatform:
    """``video:platform``: ``web``, ``mobile``, ``tv``; allowed or denied."""

    relationship: str  # "allow" | "deny"
    platforms: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Video:
    """``video:video`` with Google's current field set, written in schema order."""

    thumbnail_loc: str
    title: str
    description: str
    content_loc: str | None = None
    player_loc: str | None = None
    duration: int | None = None
    expiration_date: LastMod | None = None
    rating: float | None = None
    view_count: int | None = None
    publication_date: LastMod | None = None
    tags: tuple[str, ...] = ()
    family_friendly: bool | None = None
    restriction: VideoRestriction | None = None
    requires_subscription: bool | None = None
    uploader: str | None = None
    uploader_info: str | None = None
    platform: VideoPlatform | None = None
    live: bool | None = None


@dataclass(frozen=True, slots=True)
class News:
    """``news:news``: all five fields are required by Google."""

    publication_name: str
    publication_language: str
    publication_date: LastMod
    title: str


@dataclass(frozen=True, slots=True)
class Alternate:
    """``xhtml:link rel="alternate" hreflang=... href=...``."""

    hreflang: str
    href: str


@dataclass(frozen=True, slots=True)
class UrlEntry:
    """One ``<url>`` of a urlset.  ``changefreq``/``priority`` are written only when given."""

    loc: str
    lastmod: LastMod | None = None
    changefreq: ChangeFreq | str | None = None
    priority: float | str | None = None
    images: tuple[Image, ...] = ()
    videos: tuple[Video, ...] = ()
    news: News | None = None
    alternates: tuple[Alternate, ...] = ()


@dataclass(frozen=True, slots=True)
class SitemapRef:
    """One ``<sitemap>`` of a sitemap index."""

    loc: str
    lastmod: LastMod | None = None


class Severity(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule broken (or noted) by a sitemap: a RULES.md ``code`` and where.

    ``source`` is the file path or URL the finding is in; ``line``/``column``
    are 1-based positions in the uncompressed text when known.
    """

    code: str
    severity: Severity
    message: str
    source: str
    line: int | None = None
    column: int | None = None
    url: str | None = None
    #: For the one "and N more" finding of a capped (file, code) listing: the N findings it
    #: stands for and does not list, so that counts stay true (0 for an ordinary finding).
    omitted: int = 0

    def render(self) -> str:
        """``source:line:col: severity code: message`` — the one-line CLI form, with control
        characters escaped (:func:`sitemapkit.terminal.for_people`)."""
        where = self.source
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return for_people(f"{where}: {self.severity.value} {self.code}: {self.message}")


@dataclass(frozen=True, slots=True)
class PageRecord:
    """What is known of one URL of a site: the row the inventory and visual map share.

    Crawls fill every field; a sitemap or URL list gives only ``url`` (and
    ``lastmod``), and the rest stays ``None``.  ``reason`` says why a URL is not
    in the sitemap (``noindex``, ``canonicalised-to``, ``http-404`` ...).
    """

    url: str
    status: int | None = None
    depth: int | None = None
    title: str | None = None
    canonical: str | None = None
    indexable: bool | None = None
    reason: str | None = None
    inlinks: int = 0
    outlinks: int = 0
    lastmod: str | None = None
    lastmod_source: str | None = None
    content_type: str | None = None
    redirect_to: str | None = None
    extra: dict[str, str] = field(default_factory=dict)
