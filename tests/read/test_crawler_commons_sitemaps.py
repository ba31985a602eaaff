"""crawler-commons' sitemap parser suite, in our words, asked of ``sitemapkit urls`` over HTTP.

From crawler-commons/crawler-commons ``src/test/java/crawlercommons/sitemaps/
SiteMapParserTest.java`` and the files it reads (``sitemaps/*.xml``, ``*.gz``,
``rss/*.rss``), rewritten here.  Each row: the path served, its body and headers, the
URLs printed (paths on the local server; an index with ``--no-follow``), the exit status
and a rule code that stderr names.  crawler-commons' "strict" mode drops a URL outside
the sitemap's folder and its lenient mode keeps it; ``urls`` keeps it and names the rule
(``validate`` is the strict lane).  Where we deliberately differ, the row is a strict xfail
naming the rule we follow.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from read.test_reader_edge_suites import serving
from sitemapdata.reader_http import SiteServer
from sitemapkit.cli import cli

H = "{host}"
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'
XML = {"Content-Type": "text/xml"}
TEXT = {"Content-Type": "text/plain"}
CATALOG = [
    ("/", "2005-01-01", "monthly", "0.8"),
    ("/catalog?desc=vacation_hawaii&amp;item=12", None, "weekly", None),
    ("/catalog?desc=vacation_new_zealand&amp;item=73", "2004-12-23", "weekly", None),
    (
        "/catalog?desc=vacation_newfoundland&amp;item=74",
        "2004-12-23T18:00:15&#43;00:00",
        None,
        "0.3",
    ),
    ("/catalog?desc=vacation_usa&amp;item=83", "2004-11-23", None, None),
]
CATALOG_PATHS = [path.replace("&amp;", "&") for path, *_ in CATALOG]


def catalog(prefix: str = "") -> str:
    """crawler-commons' five-URL sitemap (lastmod with a character reference, optional tags)."""
    rows = []
    for path, lastmod, freq, priority in CATALOG:
        row = f" <url>\n  <loc>{H}{path}</loc>\n"
        row += f"  <lastmod>{lastmod}</lastmod>\n" if lastmod else ""
        row += f"  <changefreq>{freq}</changefreq>\n" if freq else ""
        row += f"  <priority>{priority}</priority>\n" if priority else ""
        rows.append(row + " </url>\n")
    return f"{prefix}{DECL}<urlset {NS}>\n{''.join(rows)}</urlset>"


def gz(text: str) -> bytes:
    return b"gz:" + text.encode()


CATALOG_TEXT = "\n".join(f"{H}{p}" for p in CATALOG_PATHS)

# (path, body, headers, listed paths, exit status, a code stderr names, xfail reason)
Case = tuple[str, "str | bytes", dict[str, str], list[str], int, str, str]
CASES: list[Case] = [
    (
        "/index.xml",
        f"{DECL}<sitemapindex {NS}>\n"
        f"<sitemap><loc>{H}/sitemap1.xml.gz</loc>"
        "<lastmod><![CDATA[2004-10-01T18:23:17+00:00]]></lastmod></sitemap>\n"
        f"<sitemap><loc>{H}/sitemap2.xml.gz</loc><lastmod>2005-01-01</lastmod></sitemap>\n"
        f"<sitemap><loc>{H}/dynsitemap?date=now&amp;all=true</loc>"
        "<lastmod>2004-10-01T18:23:17&#43;00:00</lastmod></sitemap>\n"
        f"<sitemap><loc>{H}/dynsitemap<![CDATA[?date=lastyear&all=false]]></loc></sitemap>\n"
        "</sitemapindex>",
        XML,
        [
            "/sitemap1.xml.gz",
            "/sitemap2.xml.gz",
            "/dynsitemap?date=now&all=true",
            "/dynsitemap?date=lastyear&all=false",
        ],
        0,
        "",
        "",
    ),
    (
        "/xxe.xml",
        f'{DECL}<!DOCTYPE urlset [\n  <!ENTITY test SYSTEM "file:///etc/passwd">\n]>\n'
        f"<urlset {NS}><url><loc>{H}/visit-here</loc></url><url><loc>&test;</loc></url></urlset>",
        XML,
        [],
        1,
        "xml-doctype",
        "",
    ),
    (
        "/xinclude.xml",
        f'{DECL}<urlset {NS} xmlns:xi="http://www.w3.org/2001/XInclude">'
        f"<url><loc>{H}/visit-here</loc><lastmod>2019-06-19</lastmod></url>"
        '<url><loc><xi:include href="file:///etc/passwd" parse="text"/></loc>'
        "<lastmod>2019-06-19</lastmod></url></urlset>",
        XML,
        ["/visit-here"],
        1,  # the include is never resolved: its loc is empty, said on stderr
        "loc-not-absolute",
        "",
    ),
    (
        "/sitemap.ns.xml",
        '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
        '<sit:urlset xmlns:sit="http://www.sitemaps.org/schemas/sitemap/0.9" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n'
        f"<sit:url><sit:loc>{H}/1</sit:loc><sit:changefreq>daily</sit:changefreq></sit:url>\n"
        f"<sit:url><sit:loc>{H}/2</sit:loc><sit:changefreq>daily</sit:changefreq></sit:url>\n"
        "</sit:urlset>",
        {},
        ["/1", "/2"],
        0,
        "",
        "",
    ),
    (
        "/sitemap.badns.xml",
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.google.com/schemas/sitemap/0.9">\n'
        f"<url><loc>{H}/1</loc><changefreq>daily</changefreq></url>\n"
        f"<url><loc>\n\t\t\t{H}/2\n\t\t</loc><changefreq>\n\t\t\tdaily\n\t\t</changefreq></url>\n"
        "</urlset>",
        {},
        ["/1", "/2"],
        0,
        "",
        "",
    ),
    (
        "/sitemap.txt",
        f"{H}/catalog?item=1\n{H}/catalog?item=11",
        TEXT,
        ["/catalog?item=1", "/catalog?item=11"],
        0,
        "",
        "",
    ),
    (
        "/text-as.xml",
        f"{H}/catalog?item=1\n{H}/catalog?item=11",
        TEXT,
        ["/catalog?item=1", "/catalog?item=11"],
        0,
        "",
        "",
    ),
    (
        "/text-bogus-type.xml",
        f"{H}/catalog?item=1\n{H}/catalog?item=11",
        {"Content-Type": "application/bogus"},
        ["/catalog?item=1", "/catalog?item=11"],
        0,
        "",
        "",
    ),
    (
        "/text-filtered.txt",
        f"www.example.com/catalog?item=1\n{H}/catalog?item=11#anchor",
        TEXT,
        ["/catalog?item=11#anchor"],
        1,
        "text-line-invalid",
        "",
    ),
    ("/catalog.xml", catalog(), XML, CATALOG_PATHS, 0, "", ""),
    ("/catalog-bom.xml", catalog("\ufeff\n \t\r\n"), XML, CATALOG_PATHS, 0, "", ""),
    *[
        (
            f"/catalog-{kind.replace('/', '-')}.nonXmlExt",
            catalog(),
            {"Content-Type": kind},
            CATALOG_PATHS,
            0,
            "",
            "",
        )
        for kind in (
            "text/xml",
            "application/x-xml",
            "application/xml",
            "application/atom+xml",
            "application/rss+xml",
        )
    ],
    (
        "/broken.xml",
        f"{DECL}<urlset {NS}><url><!-- This file is not a valid XML file --></url>"
        f"<url><loc> {H}/something.html</loc></url><!-- missing opening url tag --></url></urlset>",
        XML,
        ["/something.html"],
        1,
        "xml-malformed",
        "",
    ),
    (
        "/index-bare-text.xml",
        f"{DECL}<sitemapindex {NS}>\n"
        + "".join(
            f"<sitemap>\n{H}/sitemap.jss?portalCode={code}&amp;lang=en\n</sitemap>\n"
            for code in (10260, 2, 10080)
        )
        + "</sitemapindex>",
        XML,
        [f"/sitemap.jss?portalCode={code}&lang=en" for code in (10260, 2, 10080)],
        1,
        "loc-missing",
        "sitemaps.org: a <sitemap> names its file in <loc>; text written directly in <sitemap> is "
        "no location (crawler-commons reads it, we report loc-missing)",
    ),
    (
        "/index-two-locs.xml",
        f"{DECL}<sitemapindex>\n <sitemap>\n  <loc>{H}/sitemap1.xml</loc>\n"
        "  <lastmod>2004-10-01T18:23:17+00:00</lastmod>\n"
        f"  <loc>{H}/sitemap2.xml</loc>\n  <loc>{H}/sitemap3.xml</loc>\n"
        "  <lastmod>2005-11-02T19:24:18+00:00</lastmod>\n </sitemap>\n</sitemapindex>",
        XML,
        ["/sitemap1.xml", "/sitemap2.xml", "/sitemap3.xml"],
        0,
        "",
        "a <sitemap> names one file (sitemaps.org: one <loc>); the first is read and validate "
        "reports the others (loc-missing); crawler-commons closes the element at each <loc>",
    ),
    (
        "/index-unicode-space.xml",
        f"{DECL}<sitemapindex>\n <sitemap>\n  <loc>\n   <![CDATA[ {H}/sitemap1.xml ]]>\n  </loc>\n"
        f" </sitemap>\n <sitemap>\n  <loc>\n   <![CDATA[\u00a0{H}/sitemap2.xml ]]> \u2000\n"
        "  </loc>\n </sitemap>\n</sitemapindex>",
        XML,
        ["/sitemap1.xml", "/sitemap2.xml"],
        0,
        "",
        "",
    ),
    (
        "/sitemap.xml.gz",
        gz(catalog()),
        {"Content-Type": "application/gzip"},
        CATALOG_PATHS,
        0,
        "",
        "",
    ),
    (
        "/sitemap.txt.gz",
        gz(CATALOG_TEXT),
        {"Content-Type": "application/gzip"},
        CATALOG_PATHS,
        0,
        "",
        "",
    ),
    *[
        (f"/gz-{i}", gz(catalog()), {"Content-Type": kind}, CATALOG_PATHS, 0, "", "")
        for i, kind in enumerate(
            (
                "application/gzip",
                "application/x-gzip",
                "application/x-gunzip",
                "application/gzipped",
                "application/gzip-compressed",
                "gzip/document",
            )
        )
    ],
    (
        "/bogus",
        "this is a bogus sitemap",
        {"Content-Type": "application/octet-stream"},
        [],
        1,
        "text-line-invalid",
        "",
    ),
    (
        "/subsection/sitemap.xml",
        f"{DECL}<urlset {NS}><url><loc>{H}/</loc></url></urlset>",
        XML,
        ["/"],
        0,
        "",
        "",
    ),
    (
        "/atom.xml",
        '<?xml version="1.0" encoding="utf-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
        f'<title>Example Feed</title><link href="{H}/feed/" rel="self" /><link href="{H}/" />\n'
        "<updated>2003-12-13T18:30:02Z</updated>\n<entry><title>Robots Run Amok</title>"
        f'<link href="{H}/2003/12/13/atom03" />'
        f'<link rel="alternate" type="text/html" href="{H}/2003/12/13/atom03.html"/>'
        f'<link rel="edit" href="{H}/2003/12/13/atom03/edit"/>'
        "<updated>2003-12-13T18:30:02Z</updated><summary>Some text.</summary></entry>\n</feed>",
        {},
        ["/2003/12/13/atom03"],
        0,
        "",
        "",
    ),
    (
        "/feed.rss",
        '\n<!-- extended from the RSS example -->\n\n<rss version="2.0"><channel>'
        f"<title>RSS Title</title><link>{H}/main.html</link>"
        "<pubDate>Sun, 06 Sep 2009 16:20:00 +0000</pubDate>"
        f"<item><title>Example entry</title><link>{H}/blog/post/1</link>"
        '<guid isPermaLink="false">7bd204c6-1655-4c27-aeee-53f933c5395f</guid>'
        "<pubDate>Sun, 06 Sep 2009 16:20:00 +0000</pubDate></item>"
        f'<item><title>guid</title><guid isPermaLink="false">{H}/guid.html</guid></item>'
        f"<item><title>entity</title><link>{H}/foo?q=a&amp;l=en</link></item>"
        f"<item><title>CDATA</title><link>{H}/foo<![CDATA[?q=a&l=fr]]></link></item>"
        "</channel></rss>",
        {},
        ["/blog/post/1", "/guid.html", "/foo?q=a&l=en", "/foo?q=a&l=fr"],
        0,
        "",
        'RSS 2.0: a <guid isPermaLink="false"> is an identifier, not the item\'s address; '
        "crawler-commons takes it as a link when it looks like a URL",
    ),
    (
        "/rss10.xml",
        '<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
        'xmlns="http://purl.org/rss/1.0/"><channel rdf:about="http://www.xml.com/xml/news.rss">'
        f"<title>XML.com</title><link>{H}/pub</link><description>example.com</description>"
        f'<image rdf:resource="{H}/universal/images/xml_tiny.gif" />'
        f'<items><rdf:Seq><rdf:li resource="{H}/pub/2000/08/09/xslt/xslt.html" />'
        f'<rdf:li resource="{H}/pub/2000/08/09/rdfdb/index.html" /></rdf:Seq></items></channel>'
        f'<image rdf:about="{H}/universal/images/xml_tiny.gif"><title>XML.com</title>'
        f"<link>http://www.xml.com</link><url>{H}/universal/images/xml_tiny.gif</url></image>"
        f'<item rdf:about="{H}/pub/2000/08/09/xslt/xslt.html"><title>Processing Inclusions</title>'
        f"<link>{H}/pub/2000/08/09/xslt/xslt.html</link><description>d</description> </item>"
        " </rdf:RDF>",
        XML,
        ["/pub/2000/08/09/xslt/xslt.html"],
        0,
        "",
        "",
    ),
    (
        "/pubdates.rss",
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" '
        'xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>Main channel</title>'
        f"<pubDate>Thu, 05 Jan 2017 12:34:50 GMT</pubDate><link>{H}/rss.xml</link>"
        + "".join(
            f"<item><title><![CDATA[News {n}]]></title><link>{H}/article_{n}</link>{date}</item>"
            for n, date in enumerate(
                (
                    "<pubDate>Thu, 05 Jan 2017 13:34:51 +0100</pubDate>",
                    "<pubDate>Thu, 05 Jan 17 13:34:52 +0100</pubDate>",
                    "<pubDate>05 Jan 2017 13:34:53 +0100</pubDate>",
                    "<pubDate>05 Jan 17 13:34:54 +0100</pubDate>",
                    "<pubDate>05 Jan 17 13:34:55</pubDate>",
                    "<pubDate></pubDate>",
                    "",
                ),
                start=1,
            )
        )
        + "</channel></rss>",
        XML,
        [f"/article_{n}" for n in range(1, 8)],
        0,
        "",
        "",
    ),
    (
        "/partial.xml",
        f"{DECL}<urlset {NS}><url><loc>{H}/</lo",
        XML,
        [],
        1,
        "xml-malformed",
        "",
    ),
    (
        "/loc-url.xml",
        f"{DECL}<urlset {NS}><url><loc><url><![CDATA[{H}/EXPERIENCED-DISPATCHER/2333221]]></url>"
        "</loc><lastmod>2015-04-28</lastmod><changefreq>daily</changefreq></url></urlset>",
        XML,
        [],
        1,  # the loc's own text is empty: left out and said on stderr
        "loc-not-absolute",
        "",
    ),
    (
        "/partial-index.xml",
        f"{DECL}<sitemapindex {NS}><sitemap><loc>{H}/sitemap1.xml.gz</loc><las",
        XML,
        ["/sitemap1.xml.gz"],
        1,
        "xml-malformed",
        "an entry is read when its element closes: the last <sitemap> of a cut file may have "
        "lost its lastmod, so it is not listed; the error names where the file ends",
    ),
]


@pytest.fixture(scope="module")
def server() -> Iterator[SiteServer]:
    with serving(CASES) as srv:
        yield srv


def _marks(reason: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(strict=True, reason=reason)] if reason else []


def read(server: SiteServer, path: str) -> tuple[list[dict[str, object]], int, str]:
    args = ["urls", "--format", "jsonl", "--no-follow", server.url(path)]
    result = CliRunner().invoke(cli, args)
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    return rows, result.exit_code, result.stderr


@pytest.mark.parametrize(
    ("path", "listed", "status", "code"),
    [pytest.param(c[0], c[3], c[4], c[5], id=c[0].lstrip("/"), marks=_marks(c[6])) for c in CASES],
)
def test_site_map_parser(
    server: SiteServer, path: str, listed: list[str], status: int, code: str
) -> None:
    rows, exit_code, stderr = read(server, path)
    host = server.url("")
    assert [str(row["loc"]).replace(host, "") for row in rows] == listed, stderr
    assert exit_code == status, stderr
    if code:
        assert f" {code}:" in stderr, stderr


def test_the_rss_feed_without_its_guid_link(server: SiteServer) -> None:
    rows, status, _ = read(server, "/feed.rss")
    host = server.url("")
    assert [str(r["loc"]).replace(host, "") for r in rows] == [
        "/blog/post/1",
        "/foo?q=a&l=en",
        "/foo?q=a&l=fr",
    ]
    assert (status, rows[0]["lastmod"]) == (0, "2009-09-06T16:20:00+00:00")


@pytest.mark.parametrize(
    ("path", "lastmods"),
    [
        pytest.param(
            "/index.xml",
            ["2004-10-01T18:23:17+00:00", "2005-01-01", "2004-10-01T18:23:17+00:00", None],
            id="index: CDATA and a character reference",
        ),
        pytest.param(
            "/catalog.xml",
            ["2005-01-01", None, "2004-12-23", "2004-12-23T18:00:15+00:00", "2004-11-23"],
            id="urlset",
        ),
        pytest.param("/atom.xml", ["2003-12-13T18:30:02Z"], id="atom updated"),
        pytest.param(
            "/pubdates.rss",
            [
                "2017-01-05T13:34:51+01:00",
                "2017-01-05T13:34:52+01:00",  # a two-digit year
                "2017-01-05T13:34:53+01:00",  # no weekday
                "2017-01-05T13:34:54+01:00",
                # No zone: no RFC 822 date.  crawler-commons gives none; we keep it as
                # written (validate names it) rather than invent a zone-less W3C time.
                "05 Jan 17 13:34:55",
                None,
                None,
            ],
            id="rss pubDate forms",
        ),
    ],
)
def test_lastmod_values(server: SiteServer, path: str, lastmods: list[str | None]) -> None:
    rows, _, stderr = read(server, path)
    assert [row.get("lastmod") for row in rows] == lastmods, stderr


def test_the_catalog_hints(server: SiteServer) -> None:
    rows, _, _ = read(server, "/catalog.xml")
    assert [(r.get("changefreq"), r.get("priority")) for r in rows] == [
        (freq, priority) for _, _, freq, priority in CATALOG
    ]


@pytest.mark.parametrize(
    ("path", "code", "message"),
    [
        ("/xinclude.xml", "loc-not-absolute", "loc is empty"),
        ("/loc-url.xml", "loc-not-absolute", "loc is empty"),
        ("/sitemap.badns.xml", "namespace-wrong", "www.google.com/schemas/sitemap/0.9"),
        ("/index-two-locs.xml", "loc-missing", "more than one <loc>"),
        ("/subsection/sitemap.xml", "loc-outside-directory", "outside the sitemap's directory"),
    ],
)
def test_what_the_strict_lane_names(server: SiteServer, path: str, code: str, message: str) -> None:
    """crawler-commons' strict mode drops these; ``urls`` lists what it can and
    ``validate`` names the rule."""
    result = CliRunner().invoke(cli, ["validate", "--format", "json", server.url(path)])
    findings = json.loads(result.stdout)["findings"]
    assert any(f["code"] == code and message in f["message"] for f in findings), findings
