"""Ground truth for a crawl of the demo site: what belongs in the sitemap, and why not.

A correct crawl of the demo server from its home page, with the default options
(robots.txt obeyed, nofollow not followed, default :class:`~sitemapkit.crawl.traps.TrapLimits`,
default :class:`~sitemapkit.crawl.urlnorm.QueryPolicy`), produces exactly
:func:`sitemap_urls` as the sitemap, and records each URL of :func:`excluded` with
that reason.  Paths here are percent-encoded, as they appear in a sitemap; join them
to the server's base URL with :func:`absolute`.

The reason vocabulary (shared with the crawl engine and the inventory):

=========================  =================================================================
reason                     meaning
=========================  =================================================================
``blocked-by-robots``      robots.txt disallows the URL for our user agent; never fetched
``noindex``                ``<meta name=robots|googlebot>`` or ``X-Robots-Tag`` says noindex
``canonicalised-to``       the page names another URL as canonical (HTML or ``Link`` header)
``redirect``               a 3xx answer, or a meta refresh to another URL; the target counts
``redirect-loop``          following the redirects comes back to a URL already visited
``redirect-chain``         more than ten redirects (``limits.MAX_REDIRECTS``)
``http-404``               answered 404 (likewise ``http-410`` ... : ``http-<status>``)
``http-500``               answered 500 (after the engine's retries, if any)
``not-html``               answered 200 with a type other than HTML (a PDF here)
``out-of-scope``           another host or scheme than the start URL; never fetched
``nofollow-only``          linked only by ``rel=nofollow`` links or from ``nofollow`` pages;
                           never fetched (unless nofollow links are followed on request)
``trap-pattern``           too many URLs of one shape (calendar, facets, pattern limit)
``trap-repeated-segment``  a path segment repeated three times (``/a/a/a/``)
``trap-depth``             deeper than the depth limit (not reached with the defaults)
``trap-url-length``        URL of 2,048 characters or more (not on this site)
``too-large``              the body was cut at the crawler's size cap (not on this site:
                           the 2 MB changelog must fit under the default cap)
``redirect-invalid``       a 3xx without a usable ``Location`` (not on this site)
``timeout``,               no HTTP answer at all (not on this site; the slow page answers
``connection-error``       after 1.5 s and must be in the sitemap)
=========================  =================================================================

Spaces whose exact membership depends on fetch order (which facet combinations are
counted before the facet limit is reached; whether intermediate redirect hops get
their own row) are in :data:`MAY_APPEAR`: if such a URL is in the inventory its
reason must be one of those listed, and it is never in the sitemap.

A meta refresh counts as a redirect (Google treats an instant refresh as one).
"""

from __future__ import annotations

import re
from typing import Final

from sitemapkit.crawl.traps import TrapLimits

__all__ = [
    "ALTERNATES",
    "AUDIT",
    "AUDIT_LISTED_HEALTHY",
    "EXCLUDED",
    "EXTERNAL",
    "IMAGES",
    "LASTMOD",
    "MAY_APPEAR",
    "NEVER_FETCHED",
    "NORMALISED_AWAY",
    "REASONS",
    "RENDERED_EXCLUDED",
    "RENDERED_SITEMAP_PATHS",
    "RENDER_TIMEOUT_PATHS",
    "SITEMAP_ONLY",
    "SITEMAP_PATHS",
    "TITLES",
    "absolute",
    "audit_findings",
    "calendar_paths",
    "excluded",
    "may_appear_reasons",
    "sitemap_paths",
    "sitemap_urls",
]

REASONS: Final = frozenset(
    {
        "blocked-by-robots",
        "noindex",
        "canonicalised-to",
        "redirect",
        "redirect-loop",
        "redirect-chain",
        "http-404",
        "http-500",
        "not-html",
        "out-of-scope",
        "nofollow-only",
        "trap-pattern",
        "trap-repeated-segment",
        "trap-depth",
        "trap-url-length",
        "too-large",
        "redirect-invalid",
        "timeout",
        "connection-error",
    }
)

#: The calendar starts here and links "next month" forever.
CALENDAR_START: Final = (2026, 11)


def calendar_paths(limit: int | None = None) -> tuple[list[str], str]:
    """The calendar months admitted under ``limit`` and the first one stopped."""
    count = TrapLimits().max_calendar_urls if limit is None else limit
    year, month = CALENDAR_START
    paths: list[str] = []
    for _ in range(count + 1):
        paths.append(f"/events/{year}/{month}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return paths[:-1], paths[-1]


_CALENDAR_IN, _CALENDAR_STOPPED = calendar_paths()

#: Every page that belongs in the sitemap (indexable HTML, 200, self-canonical, allowed).
SITEMAP_PATHS: Final = frozenset(
    {
        "/",
        "/about/",
        "/%C3%BCber-uns/",
        "/caf%C3%A9/",
        "/caf%C3%A9/menu.html",
        "/contact.html",
        "/privacy.html",
        "/terms.html",
        "/partners.html",
        "/downloads.html",
        "/slow.html",
        "/products/",
        "/products/desk-lamps/",
        "/products/desk-lamps/aurora.html",
        "/products/desk-lamps/orbit.html",
        "/products/floor-lamps/",
        "/products/floor-lamps/beacon.html",
        "/products/floor-lamps/tower.html",
        "/products/all/",
        "/products/lamps-and-more/",
        "/blog/",
        "/blog/2026/launching-aurora.html",
        "/blog/2026/lighting-tips.html",
        "/blog/2026/xss-title.html",
        "/blog/2025/year-in-review.html",
        "/blog/2025/broken-utf8.html",
        "/de/preise.html",
        "/docs/",
        "/docs/guide/install.html",
        "/docs/guide/configure.html",
        "/docs/guide/faq.html",
        "/docs/api/",
        "/docs/api/v1.html",
        "/docs/changelog.html",
        "/docs/changelog-archive.html",
        "/events/",
        "/private/press-kit.html",
        "/app/",  # the lamp finder's shell: an HTML page like any other
        *_CALENDAR_IN,
    }
)

# The lamp finder (``/app/``) builds its pages' links with a script, so a crawl finds
# what follows only when it renders (``--render auto``, the default, or ``always``; its
# shell is an application shell, so ``auto`` renders it).  No other page of the demo
# looks built by scripts: ``auto`` renders the lamp finder and nothing else.  Without
# rendering installed, ``/app/`` is in the sitemap alone, recorded ``render-unavailable``.
#: Pages that are also in the sitemap of a rendering crawl.
RENDERED_SITEMAP_PATHS: Final = frozenset(
    {"/app/desk.html", "/app/desk-oak.html", "/app/floor.html", "/app/live.html"}
)
#: Pages a rendering crawl finds and excludes: the canonical is set by script.
RENDERED_EXCLUDED: Final[dict[str, str]] = {"/app/compare.html": "canonicalised-to"}
#: The page that never settles (it polls for stock forever): recorded as ``render-timeout``.
RENDER_TIMEOUT_PATHS: Final = frozenset({"/app/live.html"})

#: Found and excluded, with the one correct reason.  ``http(s)://`` keys are absolute.
EXCLUDED: Final[dict[str, str]] = {
    "/login.html": "nofollow-only",
    "/partners/acme.html": "nofollow-only",
    "/private/": "blocked-by-robots",
    "/private/salaries.html": "blocked-by-robots",
    "/blog/drafts/new-lamp.html": "blocked-by-robots",
    "/blog/2026/lighting-tips.html?print=1": "blocked-by-robots",
    "/blog/2025/internal-notes.html": "noindex",
    "/thank-you.html": "noindex",
    "/docs/print-guide.html": "noindex",
    "/products/desk-lamps/aurora-blue.html": "canonicalised-to",
    "/products/floor-lamps/beacon-print.html": "canonicalised-to",
    "/products/lamps-and-more/lamps-and-more/": "canonicalised-to",
    "/products/lamps-and-more/lamps-and-more/lamps-and-more/": "trap-repeated-segment",
    "/old-about": "redirect",
    "/promo": "redirect",
    "/go/partner": "redirect",
    "/docs/old-faq.html": "redirect",
    "/loop-a": "redirect-loop",
    "/chain/1": "redirect-chain",
    "/products/discontinued.html": "http-404",
    "/status/broken": "http-500",
    "/docs/catalogue.pdf": "not-html",
    _CALENDAR_STOPPED: "trap-pattern",
    "https://www.example.org/lighting-standards": "out-of-scope",
    "https://partner.example/": "out-of-scope",
}

#: URLs whose presence depends on fetch order or engine detail → the reasons allowed.
MAY_APPEAR: Final[dict[str, frozenset[str]]] = {
    "/old-about-2": frozenset({"redirect"}),
    "/loop-b": frozenset({"redirect", "redirect-loop"}),
    **{f"/chain/{i}": frozenset({"redirect", "redirect-chain"}) for i in range(2, 13)},
}
#: Patterns (matched against the path and query) for generated spaces.
MAY_APPEAR_PATTERNS: Final[tuple[tuple[re.Pattern[str], frozenset[str]], ...]] = (
    # Faceted filters: each is canonicalised to /products/all/ if fetched; once 64
    # multi-parameter combinations were counted, the rest are trap-pattern.  There
    # are 107 reachable multi-parameter combinations, so trap-pattern always occurs.
    (re.compile(r"/products/all/\?.+"), frozenset({"canonicalised-to", "trap-pattern"})),
)

#: Spellings on the site that normalise to a page above and must not get their own row.
NORMALISED_AWAY: Final = (
    "/products/?PHPSESSID=8f2a1c9d0e",
    "/blog/;jsessionid=A1B2C3D4E5",
    "/about/?utm_source=newsletter&utm_medium=email",
    "/blog/2026/launching-aurora.html#comments",
    "/docs/guide/faq.html#wiring",
)

#: In the site's own sitemap.xml only: found with ``--seed-from-sitemaps``, not by links.
SITEMAP_ONLY: Final = frozenset({"/landing/spring-sale.html"})

#: Absolute out-of-scope URLs the site links to (never fetched).
EXTERNAL: Final = frozenset(k for k in EXCLUDED if k.startswith("https://"))

#: Paths a polite crawler never requests (robots-blocked, nofollow-only).
NEVER_FETCHED: Final = frozenset(
    {
        path
        for path, reason in EXCLUDED.items()
        if reason in ("blocked-by-robots", "nofollow-only") and path.startswith("/")
    }
)

#: ``lastmod`` and its source for each sitemap page that has one; all others have none.
LASTMOD: Final[dict[str, tuple[str, str]]] = {
    "/about/": ("2026-09-14T09:30:00+02:00", "article:modified_time"),
    "/caf%C3%A9/": ("2026-10-02", "og:updated_time"),
    "/products/desk-lamps/orbit.html": ("2026-07-21T16:05:00Z", "og:updated_time"),
    "/blog/2026/launching-aurora.html": ("2026-03-09T12:15:00Z", "json-ld"),
    "/blog/2026/lighting-tips.html": ("2026-05-03T18:45:00+01:00", "article:modified_time"),
    "/terms.html": ("2026-03-03T08:00:00Z", "last-modified"),
    "/blog/2025/year-in-review.html": ("2025-12-29T17:00:00Z", "last-modified"),
}

#: hreflang alternates (``xhtml:link``) per sitemap page, as (hreflang, path).
_ABOUT_ALTERNATES: Final = (("en", "/about/"), ("de", "/%C3%BCber-uns/"), ("x-default", "/about/"))
ALTERNATES: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "/about/": _ABOUT_ALTERNATES,
    "/%C3%BCber-uns/": _ABOUT_ALTERNATES,
}

#: Images (``image:loc``) per sitemap page, in page order.
IMAGES: Final[dict[str, tuple[str, ...]]] = {
    "/": ("/img/hero.svg",),
    "/products/desk-lamps/": ("/img/aurora.svg", "/img/orbit.svg"),
    "/products/desk-lamps/aurora.html": (
        "/img/aurora.svg",
        "/img/aurora-detail.svg",
        "/img/aurora-night.svg",
    ),
    "/products/desk-lamps/orbit.html": ("/img/orbit.svg",),
    "/products/floor-lamps/beacon.html": ("/img/beacon.svg",),
    "/products/floor-lamps/tower.html": ("/img/tower.svg",),
    "/blog/2026/launching-aurora.html": ("/img/aurora.svg",),
    "/private/press-kit.html": ("/img/hero.svg",),
}

#: Titles worth checking exactly: markup kept as text, non-ASCII decoded right.
TITLES: Final[dict[str, str]] = {
    "/": "Northwind Lamps | Handmade lamps from Leeds",
    "/blog/2026/xss-title.html": '</script><script>alert(1)</script> & "quotes" | Journal',
    "/de/preise.html": "Preise für Lampen - Größen und Farben",
    "/caf%C3%A9/": "Café Northwind | Northwind Lamps",
    "/%C3%BCber-uns/": "Über uns | Northwind Lamps",
}


#: ``sitemapkit audit`` of the demo site: the faults planted in its published sitemaps
#: (``sitemap.xml``, ``sitemap-docs.xml``), robots.txt and ``sitemap.txt``: each audit
#: code -> where it must point (a finding's URL, else its sitemap), exactly.
#: ``sitemap-missing`` cannot be planted on a site that has sitemaps: tests/audit has it.
AUDIT: Final[dict[str, frozenset[str]]] = {
    "sitemap-not-in-robots": frozenset({"/sitemap.txt"}),
    "robots-sitemap-broken": frozenset({"/relative-sitemap.xml"}),
    "listed-redirect": frozenset({"/old-about"}),
    "listed-error": frozenset({"/products/discontinued.html"}),
    "listed-noindex": frozenset({"/thank-you.html"}),
    "listed-canonicalised": frozenset({"/products/desk-lamps/aurora-blue.html"}),
    "listed-blocked": frozenset({"/private/salaries.html"}),
    "listed-not-html": frozenset({"/docs/catalogue.pdf"}),
    "listed-out-of-scope": frozenset({"https://partner.example/"}),
    "listed-orphan": frozenset(SITEMAP_ONLY),
    "listed-duplicate": frozenset({"/products/"}),
    "lastmod-ahead": frozenset({"/caf%C3%A9/"}),
    "lastmod-behind": frozenset({"/blog/2026/lighting-tips.html"}),
    "lastmod-uniform": frozenset({"/sitemap-docs.xml"}),
    "hreflang-target-broken": frozenset({"/promo"}),
}

#: Listed in the published sitemaps and healthy: every other sitemap page of a crawl is
#: ``missing-indexable``.
AUDIT_LISTED_HEALTHY: Final = frozenset(
    {
        "/",
        "/about/",
        "/products/",
        "/blog/",
        "/caf%C3%A9/",
        "/blog/2026/lighting-tips.html",
        "/de/preise.html",
        "/docs/",
        "/docs/guide/install.html",
        "/docs/guide/configure.html",
        "/docs/guide/faq.html",
        "/docs/api/",
        "/docs/api/v1.html",
        "/docs/changelog.html",
        "/docs/changelog-archive.html",
        "/contact.html",
        "/privacy.html",
    }
)


def audit_findings(base: str, rendered: bool = False) -> dict[str, set[str]]:
    """Each audit code -> the exact URLs (or sitemaps) an audit of the demo names."""
    found = {code: {absolute(base, p) for p in paths} for code, paths in AUDIT.items()}
    found["missing-indexable"] = {
        absolute(base, p) for p in sitemap_paths(rendered) - AUDIT_LISTED_HEALTHY
    }
    found["listed-unverified"] = set()
    found["sitemap-missing"] = set()
    return found


def absolute(base: str, path: str) -> str:
    """``path`` (or an absolute URL) on the server at ``base``."""
    if path.startswith(("http://", "https://")):
        return path
    return base.rstrip("/") + path


def sitemap_paths(rendered: bool = False) -> frozenset[str]:
    """The sitemap's paths, with the lamp finder's pages when the crawl ``rendered``."""
    return SITEMAP_PATHS | RENDERED_SITEMAP_PATHS if rendered else SITEMAP_PATHS


def sitemap_urls(base: str, rendered: bool = False) -> set[str]:
    """The exact URL set of the sitemap of a default crawl from ``base``."""
    return {absolute(base, p) for p in sitemap_paths(rendered)}


def excluded(base: str, rendered: bool = False) -> dict[str, str]:
    """Each URL that must be in the inventory with its reason."""
    found = {**EXCLUDED, **RENDERED_EXCLUDED} if rendered else EXCLUDED
    return {absolute(base, p): reason for p, reason in found.items()}


def may_appear_reasons(base: str, url: str) -> frozenset[str] | None:
    """The reasons allowed for an order-dependent ``url``, or ``None`` if it is not one."""
    prefix = base.rstrip("/")
    if not url.startswith(prefix + "/"):
        return None
    path = url[len(prefix) :]
    if path in MAY_APPEAR:
        return MAY_APPEAR[path]
    for pattern, reasons in MAY_APPEAR_PATTERNS:
        if pattern.fullmatch(path):
            return reasons
    return None
