"""Which requests a rendering page may make.

A page needs its document, its scripts and the data those scripts fetch to
build its links; it does not need pictures, video, fonts or anybody else's
servers.  Blocking those makes rendering several times cheaper and keeps the
crawl from touching hosts it was never asked to visit.  What is left goes to
the site itself and is asked of robots.txt first, like every fetch the crawler
makes.  Style sheets are blocked too unless a screenshot is wanted: no link
depends on them, but a thumbnail without them is a page nobody recognises.

Every refusal has a reason (``type:image``, ``third-party``, ``robots`` ...),
counted per page so a user and the tests can see what was kept out.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from sitemapkit.urls import origin_of

__all__ = ["BLOCKED_TYPES", "STYLE_TYPES", "RequestRules", "same_origin"]

#: Playwright resource types no link depends on.
BLOCKED_TYPES: Final = frozenset(
    {"image", "media", "font", "texttrack", "eventsource", "websocket", "manifest", "ping"}
)
#: Resource types kept only when a screenshot is taken.
STYLE_TYPES: Final = frozenset({"stylesheet"})


def same_origin(page_url: str) -> Callable[[str], bool]:
    """The default notion of "the site": the page's own scheme, host and port."""
    origin = origin_of(page_url)
    return lambda url: origin_of(url) == origin


@dataclass(frozen=True, slots=True)
class RequestRules:
    """The verdict on one request a rendering page makes.

    ``is_site`` says whether a URL belongs to the site being crawled (the
    crawl's scope); ``allowed`` is the crawl's robots.txt check, or ``None``
    when robots are not obeyed.  ``keep_styles`` lets style sheets through
    (for thumbnails), and same-site images too, so the first screen looks
    like the page.
    """

    is_site: Callable[[str], bool]
    allowed: Callable[[str], Awaitable[bool]] | None = None
    keep_styles: bool = False

    def refuse_now(self, url: str, resource_type: str) -> str | None:
        """The reason to block that needs no network (type, scheme, host), else ``None``."""
        if resource_type in STYLE_TYPES and not self.keep_styles:
            return f"type:{resource_type}"
        if resource_type in BLOCKED_TYPES and not (
            self.keep_styles and resource_type in ("image", "font")
        ):
            return f"type:{resource_type}"
        if not url.startswith(("http://", "https://")):
            return "scheme"
        if not self.is_site(url):
            return "third-party"
        return None

    async def refuse(self, url: str, resource_type: str) -> str | None:
        """Why ``url`` must not be fetched (``robots`` included), or ``None`` to let it go."""
        reason = self.refuse_now(url, resource_type)
        if reason is None and self.allowed is not None and not await self.allowed(url):
            return "robots"
        return reason
