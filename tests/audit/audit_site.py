"""A small real site on 127.0.0.1 with one planted fault per audit code.

:data:`EXPECTED` is the exact set of URL paths each code must name (paths are
joined to the server's base URL by :func:`expected_urls`).  Variants of the
site (no sitemap at all, a sitemap robots.txt does not name, a robots.txt that
names an HTML page as its sitemap) are switched by :class:`AuditSite` flags.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from aiohttp import web

from crawl.fixture_site import html, links, serve_handler

OTHER_HOST = "http://other.example/page"
PAGE_DATE = "2026-01-01T00:00:00+00:00"
_DATED = f'<meta property="article:modified_time" content="{PAGE_DATE}">'

#: code -> paths (or absolute URLs) it must name, exactly.
EXPECTED: dict[str, set[str]] = {
    "listed-redirect": {"/old"},
    "listed-error": {"/gone"},
    "listed-noindex": {"/noidx"},
    "listed-canonicalised": {"/canon"},
    "listed-blocked": {"/blocked/x"},
    "listed-not-html": {"/doc.pdf"},
    "listed-out-of-scope": {OTHER_HOST, "/elsewhere/outside"},
    "listed-orphan": {"/orphan"},
    "listed-duplicate": {"/b"},
    "missing-indexable": {"/c", "/de"},
    "lastmod-ahead": {"/lm-ahead"},
    "lastmod-behind": {"/lm-behind"},
    "hreflang-target-broken": {"/de-old"},
}


def _urlset(base: str) -> str:
    def url(path: str, extra: str = "") -> str:
        loc = path if path.startswith("http") else base + path
        return f"<url><loc>{loc}</loc>{extra}</url>"

    alts = (
        f'<xhtml:link rel="alternate" hreflang="en" href="{base}/en"/>'
        f'<xhtml:link rel="alternate" hreflang="de" href="{base}/de-old"/>'
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
        + "\n".join(
            [
                url("/"),
                url("/a"),
                url("/b"),
                url("/b?utm_source=news"),
                url("/old"),
                url("/gone"),
                url("/noidx"),
                url("/canon"),
                url("/blocked/x"),
                url("/doc.pdf"),
                url(OTHER_HOST),
                url("/orphan"),
                url("/lm-ahead", "<lastmod>2026-01-10</lastmod>"),
                url("/lm-behind", "<lastmod>2025-06-01</lastmod>"),
                url("/en", alts),
            ]
        )
        + "\n</urlset>\n"
    )


def _shop_urlset(base: str) -> str:
    """A sitemap in /shop/ that lists a page outside its folder."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"<url><loc>{base}/shop/lamp</loc></url>\n"
        f"<url><loc>{base}/elsewhere/outside</loc></url>\n"
        "</urlset>\n"
    )


@dataclass
class AuditSite:
    """The site; flags pick the sitemap variant."""

    #: robots.txt names /sitemap.xml.
    robots_names_sitemap: bool = True
    #: /sitemap.xml exists.
    has_sitemap: bool = True
    #: robots.txt also names /html-sitemap.xml, an HTML page.
    robots_names_html: bool = False
    #: robots.txt is padded to 50 MB after its rules (a hostile or broken server).
    huge_robots: bool = False
    base: str = ""
    hits: Counter[str] = field(default_factory=Counter)

    def robots(self) -> str:
        lines = ["User-agent: *", "Disallow: /blocked/", ""]
        if self.robots_names_sitemap:
            lines.append(f"Sitemap: {self.base}/sitemap.xml")
            lines.append(f"Sitemap: {self.base}/shop/sitemap.xml")
        if self.robots_names_html:
            lines.append(f"Sitemap: {self.base}/html-sitemap.xml")
        return "\n".join(lines) + "\n"

    def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        self.hits[path] += 1
        home = links("/a", "/b", "/c", "/old", "/gone", "/noidx", "/canon", "/blocked/x")
        home += links("/doc.pdf", "/lm-ahead", "/lm-behind", "/en", "/de", "/shop/lamp")
        home += links("/elsewhere/outside")
        pages = {
            "/": html("Home", home),
            "/a": html("A", links("/")),
            "/b": html("B", links("/")),
            "/c": html("C", links("/")),
            "/noidx": html("No index", head='<meta name="robots" content="noindex">'),
            "/canon": html("Canon", head='<link rel="canonical" href="/a">'),
            "/orphan": html("Orphan", links("/", "/orphan-child")),
            "/orphan-child": html("Only an orphan links here"),
            "/lm-ahead": html("Ahead", head=_DATED),
            "/lm-behind": html("Behind", head=_DATED),
            "/en": html("English", links("/de")),
            "/de": html("Deutsch", links("/en")),
            "/elsewhere/outside": html("Outside", links("/")),
            "/shop/lamp": html("Lamp", links("/")),
            "/html-sitemap.xml": html("Not a sitemap"),
        }
        if path == "/robots.txt":
            body = self.robots().encode()
            if self.huge_robots:
                body += b"# padding\n" * (50 * 1024 * 1024 // 10)
            return web.Response(body=body, content_type="text/plain")
        if path == "/sitemap.xml" and self.has_sitemap:
            return web.Response(text=_urlset(self.base), content_type="application/xml")
        if path == "/shop/sitemap.xml" and self.has_sitemap:
            return web.Response(text=_shop_urlset(self.base), content_type="application/xml")
        if path == "/old":
            return web.Response(status=301, headers={"Location": "/a"})
        if path == "/de-old":
            return web.Response(status=301, headers={"Location": "/de"})
        if path == "/doc.pdf":
            return web.Response(body=b"%PDF-1.4 demo", content_type="application/pdf")
        if path in pages:
            return web.Response(text=pages[path], content_type="text/html")
        return web.Response(status=404, text=html("Not found"), content_type="text/html")


@contextmanager
def serve_audit_site(site: AuditSite | None = None) -> Iterator[AuditSite]:
    site = site or AuditSite()

    async def handler(request: web.Request) -> web.StreamResponse:
        return site.handle(request)

    with serve_handler(handler) as port:
        site.base = f"http://127.0.0.1:{port}"
        yield site


def expected_urls(base: str) -> dict[str, set[str]]:
    return {
        code: {p if p.startswith("http") else base + p for p in paths}
        for code, paths in EXPECTED.items()
    }
