"""The rendered DOM read with the crawler's own extractor, and merged with the raw read.

There is one set of rules for what a link, a canonical or a robots meta is:
:func:`sitemapkit.crawl.extract.extract_page`.  The rendered DOM is serialised
by the browser and handed to it as a UTF-8 page with the response's own
headers (``X-Robots-Tag`` and ``Link`` keep counting), so nothing here
re-implements a rule.

Merging follows what Google does with a rendered page: links are the union
(a link in the raw HTML that a script removed is still a link a crawler saw),
robots directives add up -- a ``noindex`` in the raw HTML stands, and one a
script adds counts too -- and the canonical, title and alternates are the
rendered ones where rendering produced them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from multidict import CIMultiDict

from sitemapkit.crawl.extract import Link, PageFacts, extract_page
from sitemapkit.crawl.urlnorm import QueryPolicy
from sitemapkit.limits import MAX_IMAGES_PER_URL

__all__ = ["merge_facts", "rendered_facts", "rendered_only"]


def rendered_facts(
    html: str, *, url: str, headers: Mapping[str, str], policy: QueryPolicy | None = None
) -> PageFacts:
    """:class:`PageFacts` of a rendered DOM (``html`` as the browser serialised it)."""
    hdrs: CIMultiDict[str] = CIMultiDict()
    for key, value in headers.items():
        if key.lower() != "content-type":
            hdrs.add(key, value)
    hdrs["Content-Type"] = "text/html; charset=utf-8"
    return extract_page(html.encode("utf-8", "replace"), url=url, headers=hdrs, policy=policy)


def rendered_only(raw: PageFacts, rendered: PageFacts) -> tuple[str, ...]:
    """URLs the rendered page links to that the raw HTML does not (in document order)."""
    known = {link.url for link in raw.links}
    return tuple(link.url for link in rendered.links if link.url not in known)


def merge_facts(
    raw: PageFacts, rendered: PageFacts, extra_links: tuple[str, ...] = ()
) -> PageFacts:
    """The facts the crawl decides with after rendering (see the module docstring).

    ``extra_links`` are URLs a script tried to navigate the page to; they are
    links the page makes, added as ``a`` links unless already present.
    """
    links: dict[str, Link] = {link.url: link for link in raw.links}
    for link in rendered.links:
        known = links.get(link.url)
        if known is None or (known.nofollow and not link.nofollow):
            links[link.url] = link if known is None else known._replace(nofollow=False)
    for url in extra_links:
        links.setdefault(url, Link(url))
    canonical, source = raw.canonical, raw.canonical_source
    if raw.canonical_source != "http-link" and rendered.canonical is not None:
        canonical, source = rendered.canonical, rendered.canonical_source
    images = dict.fromkeys(raw.images)
    images.update(dict.fromkeys(rendered.images))
    return replace(
        raw,
        title=rendered.title or raw.title,
        h1=rendered.h1 or raw.h1,
        links=tuple(links.values()),
        links_dropped=max(raw.links_dropped, rendered.links_dropped),
        canonical=canonical,
        canonical_source=source,
        alternates=rendered.alternates or raw.alternates,
        noindex=raw.noindex or rendered.noindex,
        nofollow=raw.nofollow or rendered.nofollow,
        lastmod=raw.lastmod or rendered.lastmod,
        lastmod_source=raw.lastmod_source if raw.lastmod else rendered.lastmod_source,
        images=tuple(images)[:MAX_IMAGES_PER_URL],
    )
