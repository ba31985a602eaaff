"""Reading: every format and tolerance, local and over a real aiohttp server on 127.0.0.1."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest

from sitemapdata.reader_http import SiteServer
from sitemapkit.model import Finding, UrlEntry
from sitemapkit.read.discover import discover_sitemaps
from sitemapkit.read.reader import aiter_entries, aiter_sourced, iter_entries, iter_sourced
from sitemapkit.read.robots import parse_robots_sitemaps
from sitemapkit.validate.validator import avalidate

FIX = Path(__file__).parent.parent / "sitemapdata" / "fixtures"
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def urlset(*locs: str, ns: str = NS) -> str:
    body = "".join(f"<url><loc>{loc}</loc></url>\n" for loc in locs)
    return f"{HEAD}<urlset {ns}>\n{body}</urlset>\n"


def index(*locs: str) -> str:
    body = "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    return f"{HEAD}<sitemapindex {NS}>\n{body}</sitemapindex>\n"


@pytest.fixture
def site() -> Iterator[SiteServer]:
    server = SiteServer().start()
    yield server
    server.stop()


def test_reads_every_extension_verbatim() -> None:
    (video,) = [e for e in iter_entries(str(FIX / "good" / "video.xml")) if e.videos]
    v = video.videos[0]
    assert (v.title, v.duration, v.rating, v.family_friendly) == ("T", 60, 4.5, True)
    assert v.restriction is not None
    assert v.restriction.countries == ("GB", "US")
    assert v.uploader_info == "https://example.com/u"
    news = [e.news for e in iter_entries(str(FIX / "good" / "news.xml"))]
    assert news[0] is not None
    assert news[0].publication_language == "zh-cn"
    alts = next(iter(iter_entries(str(FIX / "good" / "hreflang.xml")))).alternates
    assert [a.hreflang for a in alts] == ["en-GB", "de", "zh-Hant-TW", "x-default"]
    imgs = next(iter(iter_entries(str(FIX / "good" / "image.xml")))).images
    assert imgs[0].loc == "https://example.com/i.jpg"


def test_bad_dates_are_kept_as_text() -> None:
    (e,) = [e for e in iter_entries(str(FIX / "bad" / "lastmod-invalid.xml")) if e.lastmod]
    assert e.lastmod == "2024-13-01"


def test_sourced_entries_carry_file_and_line() -> None:
    items = list(iter_sourced(str(FIX / "good" / "urlset.xml")))
    assert [(i.line, i.sitemap.endswith("urlset.xml")) for i in items] == [
        (3, True),
        (4, True),
        (5, True),
    ]


@pytest.mark.parametrize(
    ("text", "note"),
    [
        (urlset("https://e.com/a", ns=""), "tolerated-namespace"),
        (
            urlset("https://e.com/a", ns='xmlns="https://www.sitemaps.org/schemas/sitemap/0.9"'),
            "tolerated-namespace",
        ),
        (
            urlset("https://e.com/a", ns='xmlns="http://www.google.com/schemas/sitemap/0.84"'),
            "tolerated-namespace",
        ),
        ("\ufeff" + urlset("https://e.com/a"), "tolerated-bom"),
        ("\n  \n" + urlset("https://e.com/a"), "tolerated-leading-content"),
        ("PHP Warning: x in y\n" + urlset("https://e.com/a"), "tolerated-leading-content"),
        ("https://e.com/a\n", "tolerated-text"),
        (
            '<rss version="2.0"><channel><item><link>https://e.com/a</link></item></channel></rss>',
            "tolerated-feed",
        ),
        (
            '<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="alternate" '
            'href="https://e.com/a"/></entry></feed>',
            "tolerated-feed",
        ),
    ],
)
def test_tolerances_are_read_and_noted(tmp_path: Path, text: str, note: str) -> None:
    path = tmp_path / "in.xml"
    path.write_text(text, encoding="utf-8")
    log: list[Finding] = []
    assert [e.loc for e in iter_entries(str(path), log=log)] == ["https://e.com/a"]
    assert note in [f.code for f in log]


def test_gzip_by_magic_whatever_the_name(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml"  # no .gz in the name
    path.write_bytes(gzip.compress(urlset("https://e.com/a", "https://e.com/b").encode()))
    log: list[Finding] = []
    assert [e.loc for e in iter_entries(str(path), log=log)] == [
        "https://e.com/a",
        "https://e.com/b",
    ]
    assert "tolerated-gzip" in [f.code for f in log]


def test_multi_member_gzip(tmp_path: Path) -> None:
    text = urlset("https://e.com/a").encode()
    path = tmp_path / "multi.xml.gz"
    path.write_bytes(gzip.compress(text[:50]) + gzip.compress(text[50:]))
    assert [e.loc for e in iter_entries(str(path))] == ["https://e.com/a"]


def test_local_index_reads_sibling_files() -> None:
    locs = [e.loc for e in iter_entries(str(FIX / "good" / "index.xml"))]
    assert locs == [
        "https://example.com/a",
        "https://example.com/b",
        "https://example.com/c",
        "https://example.com/img-a",
        "https://example.com/img-b",
    ]


def test_limits_are_keyword_caps(tmp_path: Path) -> None:
    path = tmp_path / "s.xml"
    path.write_text(urlset(*[f"https://e.com/{i}" for i in range(1000)]))
    log: list[Finding] = []
    assert list(iter_entries(str(path), log=log, max_decompressed_bytes=5000))
    assert "limit-decompressed-bytes" in [f.code for f in log]


def test_robots_parsing() -> None:
    got = parse_robots_sitemaps(
        b"\xef\xbb\xbfUser-agent: *\nSITEMAP: https://e.com/a.xml # main\nsitemap:/b.xml\n"
        b"Sitemap: https://e.com/\xff.xml\nSite-map: ftp://e.com/c.xml\n"
        b"Sitemap: https://e.com/a.xml\n",
        "https://e.com/robots.txt",
    )
    assert got.urls == ("https://e.com/a.xml", "https://e.com/b.xml")
    assert [(f.code, f.line) for f in got.findings] == [
        ("robots-sitemap-relative", 3),
        ("encoding-not-utf8", 4),
        ("robots-sitemap-relative", 5),
    ]
    assert got.invalid == ("/b.xml", "https://e.com/\ufffd.xml", "ftp://e.com/c.xml")


def test_reader_and_crawler_read_the_same_robots_sitemaps() -> None:
    """One Sitemap: parser: the crawler's policy lists what the reader reads (normalised)."""
    from sitemapkit.crawl.robots import RobotsPolicy

    body = b"Sitemap: /rel.xml\nSitemap: https://e.com/a.xml\nSitemap: https://e.com/\xff.xml\n"
    url = "https://e.com/robots.txt"
    assert RobotsPolicy.parse(body, url=url).sitemaps == parse_robots_sitemaps(body, url).urls


# --- network -----------------------------------------------------------------------------
def test_home_url_discovers_robots_sitemaps(site: SiteServer) -> None:
    site.body("/robots.txt", f"User-agent: *\nSitemap: {site.url('/sm.xml')}\n")
    site.body("/sm.xml", urlset(site.url("/a")))
    items = list(iter_sourced(site.url("/")))
    assert [(i.entry.loc, i.sitemap) for i in items] == [(site.url("/a"), site.url("/sm.xml"))]


def test_home_url_falls_back_to_well_known_paths(site: SiteServer) -> None:
    site.body("/sitemap_index.xml", index(site.url("/part.xml")))
    site.body("/part.xml", urlset(site.url("/p")))
    assert [e.loc for e in iter_entries(site.url("/"))] == [site.url("/p")]
    assert "/robots.txt" in site.hits
    assert "/sitemap.xml" in site.hits


def test_robots_url_source(site: SiteServer) -> None:
    site.body("/robots.txt", "Sitemap: /rel.xml\n")
    site.body("/rel.xml", "https://e.com/x\n")
    log: list[Finding] = []
    assert [e.loc for e in iter_entries(site.url("/robots.txt"), log=log)] == ["https://e.com/x"]
    assert "robots-sitemap-relative" in [f.code for f in log]


@pytest.mark.parametrize("encoding_header", [True, False])
def test_gzip_with_and_without_content_encoding(site: SiteServer, encoding_header: bool) -> None:
    data = gzip.compress(urlset(site.url("/a")).encode())
    headers = (
        {"Content-Encoding": "gzip"} if encoding_header else {"Content-Type": "application/x-gzip"}
    )
    site.body("/sitemap.xml.gz", data, headers=headers)
    assert [e.loc for e in iter_entries(site.url("/sitemap.xml.gz"))] == [site.url("/a")]


def test_double_gzip_served_with_content_encoding(site: SiteServer) -> None:
    data = gzip.compress(gzip.compress(urlset(site.url("/a")).encode()))
    site.body("/s.xml.gz", data, headers={"Content-Encoding": "gzip"})
    assert [e.loc for e in iter_entries(site.url("/s.xml.gz"))] == [site.url("/a")]


def test_redirects_are_followed(site: SiteServer) -> None:
    site.redirect("/old.xml", "/new.xml")
    site.body("/new.xml", urlset(site.url("/a")))
    assert [e.loc for e in iter_entries(site.url("/old.xml"))] == [site.url("/a")]


def test_redirect_loop_is_a_clear_failure(site: SiteServer) -> None:
    site.redirect("/loop.xml", "/loop.xml")
    log: list[Finding] = []
    assert list(iter_entries(site.url("/loop.xml"), log=log)) == []
    assert [f.code for f in log] == ["fetch-failed"]
    assert "redirects" in log[0].message


async def test_async_api_uses_the_given_session(site: SiteServer) -> None:
    site.body("/robots.txt", f"Sitemap: {site.url('/index.xml')}\n")
    site.body("/index.xml", index(site.url("/a.xml"), site.url("/gone.xml")))
    site.body("/a.xml", urlset(site.url("/1"), site.url("/2")))
    async with aiohttp.ClientSession() as session:
        assert await discover_sitemaps(site.url("/"), session=session) == [site.url("/index.xml")]
        log: list[Finding] = []
        got = [e async for e in aiter_entries(site.url("/"), session=session, log=log)]
        assert got == [UrlEntry(site.url("/1")), UrlEntry(site.url("/2"))]
        missing = [f for f in log if f.code == "index-child-missing"]
        assert [(f.source, f.line, f.url) for f in missing] == [
            (site.url("/index.xml"), 4, site.url("/gone.xml"))
        ]
        assert "HTTP 404" in missing[0].message
        sourced = [s async for s in aiter_sourced(site.url("/index.xml"), session=session)]
        assert {s.sitemap for s in sourced} == {site.url("/a.xml")}
        assert not session.closed


async def test_validate_over_http_with_scope(site: SiteServer) -> None:
    site.body(
        "/blog/sitemap.xml",
        urlset(site.url("/blog/a"), site.url("/shop/b"), "https://other.example/c"),
    )
    async with aiohttp.ClientSession() as session:
        rep = await avalidate([site.url("/blog/sitemap.xml")], session=session)
    assert [(f.code, f.line) for f in rep.findings] == [
        ("loc-outside-directory", 4),
        ("loc-other-host", 5),
    ]
    assert "loc-other-host, loc-outside-directory" not in rep.skipped


def test_reader_sends_the_crawlers_user_agent(site: SiteServer) -> None:
    """One User-Agent: the reader's requests carry the crawler's default."""
    from aiohttp import web

    from sitemapkit.crawl.config import DEFAULT_USER_AGENT

    seen: list[str] = []

    def record(request: web.Request) -> web.Response:
        seen.append(request.headers.get("User-Agent", ""))
        return web.Response(text=urlset(site.url("/a")))

    site.routes["/sm.xml"] = record
    assert [e.loc for e in iter_entries(site.url("/sm.xml"))] == [site.url("/a")]
    assert seen == [DEFAULT_USER_AGENT]
