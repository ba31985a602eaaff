"""crawlee's sitemap tests (``@crawlee/utils`` ``test/sitemap.test.ts``), in our words.

crawlee mocks one site with nock; here the same responses are served by a real aiohttp
server on 127.0.0.1 (a second host name, ``localhost``, stands for crawlee's cross-host
server) and read with the real ``sitemapkit urls`` command.  Each row is what crawlee's
``Sitemap.load`` (or ``discoverValidSitemaps``) finds; where we deliberately differ the
row is ``xfail`` with the reason.
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from sitemapdata.reader_http import SiteServer
from sitemapkit.cli import cli

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
DECL = '<?xml version="1.0" encoding="UTF-8"?>'
HOST = "{host}"  # replaced by the server's http://127.0.0.1:PORT
OTHER = "{other}"  # http://localhost:PORT: another host


def urlset(*bodies: str) -> str:
    return "\n".join([DECL, f"<urlset {NS}>", *bodies, "</urlset>"])


CHILD = urlset(
    f"<url><loc>{HOST}/</loc><lastmod>2005-02-03</lastmod><changefreq>monthly</changefreq>"
    "<priority>0.8</priority></url>",
    f"<url><loc>{HOST}/catalog?item=12&amp;desc=vacation_hawaii</loc>"
    "<changefreq>weekly</changefreq></url>",
    f"<url><loc>{HOST}/catalog?item=73&amp;desc=vacation_new_zealand</loc>"
    "<lastmod>2004-12-23</lastmod><changefreq>weekly</changefreq></url>",
    f"<url><loc>{HOST}/catalog?item=74&amp;desc=vacation_newfoundland</loc>"
    "<lastmod>2004-12-23T18:00:15+00:00</lastmod><priority>0.3</priority></url>",
    f"<url><loc>{HOST}/catalog?item=83&amp;desc=vacation_usa</loc><lastmod>2004-11-23</lastmod></url>",
)
CHILD_URLS = [
    "/",
    "/catalog?item=12&desc=vacation_hawaii",
    "/catalog?item=73&desc=vacation_new_zealand",
    "/catalog?item=74&desc=vacation_newfoundland",
    "/catalog?item=83&desc=vacation_usa",
]
TWO = urlset(
    f"<url><loc>{HOST}/catalog?item=80&amp;desc=vacation_turkey</loc><lastmod>2004-11-23</lastmod></url>",
    f"<url><loc>{HOST}/catalog?item=81&amp;desc=vacation_maledives</loc><lastmod>2004-11-23</lastmod></url>",
)
TWO_URLS = ["/catalog?item=80&desc=vacation_turkey", "/catalog?item=81&desc=vacation_maledives"]
TXT = f"{HOST}/catalog?item=78&desc=vacation_crete\n{HOST}/catalog?item=79&desc=vacation_somalia"
TXT_URLS = ["/catalog?item=78&desc=vacation_crete", "/catalog?item=79&desc=vacation_somalia"]
PARENT = "\n".join(
    [
        DECL,
        f"<sitemapindex {NS}>",
        f"<sitemap><loc>{HOST}/sitemap_child.xml</loc><lastmod>2004-12-23</lastmod></sitemap>",
        f"<sitemap><loc>{HOST}/sitemap_child_2.xml?from=94937939985&amp;to=1318570721404</loc>"
        "<lastmod>2004-12-23</lastmod></sitemap>",
        "</sitemapindex>",
    ]
)
PRETTY_PARENT = "\n".join(
    [
        DECL,
        f"<sitemapindex {NS}>",
        f"<sitemap><loc>\n    {HOST}/sitemap_child.xml\n  </loc>"
        "<lastmod>\n    2004-12-23\n  </lastmod></sitemap>",
        "</sitemapindex>",
    ]
)
PRETTY = urlset(
    f"<url><loc>\n      {HOST}/catalog?item=80&amp;desc=vacation_turkey\n    </loc>"
    "<lastmod>\n      2005-02-03\n    </lastmod><changefreq>\n\n      monthly\n    </changefreq>"
    "<priority>\n      0.8\n    </priority></url>"
)
HTML = (
    '<HTML><HEAD><meta http-equiv="content-type" content="text/html;charset=utf-8">\n'
    "<TITLE>301 Moved</TITLE></HEAD><BODY>\n<H1>301 Moved</H1>\nThe document has moved\n"
    '<A HREF="https://ads.google.com/home/">here</A>.\n</BODY></HTML>'
)
CDATA = urlset(f"<url><loc><![CDATA[{HOST}/catalog]]></loc></url>")
NO_LOC = urlset(
    f"<url><loc>{HOST}/a</loc><lastmod>not-a-date</lastmod></url>",
    "<url><lastmod>2020-01-01</lastmod><priority>0.5</priority></url>",
    f"<url><loc>{HOST}/c</loc></url>",
)
CROSS_URLS = urlset(
    f"<url><loc>{HOST}/local-page</loc></url>", f"<url><loc>{OTHER}/cross-page</loc></url>"
)
CROSS_INDEX = "\n".join(
    [
        DECL,
        f"<sitemapindex {NS}>",
        f"<sitemap><loc>{OTHER}/child.xml</loc></sitemap>",
        "</sitemapindex>",
    ]
)
BAD_SCHEMES = urlset(
    f"<url><loc>{HOST}/ok</loc></url>",
    "<url><loc>mailto:foo@bar.com</loc></url>",
    "<url><loc>javascript:alert(1)</loc></url>",
    "<url><loc>ftp://example.com/file.txt</loc></url>",
)

#: path -> (body, headers); bodies as text get {host} and {other} filled in.
ROUTES: dict[str, tuple[str | bytes, dict[str, str]]] = {
    "/sitemap_child.xml": (CHILD, {}),
    "/sitemap_child_2.xml?from=94937939985&to=1318570721404": (CHILD, {}),
    "/sitemap_child.xml.gz": ("gzip:" + CHILD, {}),
    "/invalid_sitemap_child.xml.gz": (b"", {}),  # filled below: a cut gzip stream
    "/non_gzipped_sitemap.xml.gz": (TWO, {}),
    "/sneakily_gzipped_sitemap.xml": ("gzip:" + CHILD, {}),
    "/sitemap_parent.xml": (PARENT, {}),
    "/sitemap_parent_pretty.xml": (PRETTY_PARENT, {}),
    "/not_actual_xml.xml": (HTML, {"Content-Type": "text/html"}),
    "/sitemap_cdata.xml": (CDATA, {}),
    "/sitemap_pretty.xml": (PRETTY, {}),
    "/sitemap.xml": (TWO, {}),
    "/sitemap.txt": (TXT, {"Content-Type": "text/plain"}),
    "/no_loc.xml": (NO_LOC, {}),
    "/cross_host_urls.xml": (CROSS_URLS, {}),
    "/cross_host_index.xml": (CROSS_INDEX, {}),
    "/bad_schemes.xml": (BAD_SCHEMES, {}),
    "/child.xml": (urlset(f"<url><loc>{OTHER}/child-page</loc></url>"), {}),
}


@pytest.fixture(scope="module")
def server() -> Iterator[SiteServer]:
    srv = SiteServer().start()
    host, other = srv.url(""), f"http://localhost:{srv.port}"
    try:
        for path, (body, headers) in ROUTES.items():
            data: bytes
            if isinstance(body, bytes):
                data = gzip.compress(CHILD.format(host=host, other=other).encode())[:60]
            elif body.startswith("gzip:"):
                data = gzip.compress(body[5:].format(host=host, other=other).encode())
            else:
                data = body.format(host=host, other=other).encode()
            srv.body(path, data, headers=headers or None)
        yield srv
    finally:
        srv.stop()


def urls(server: SiteServer, start: str, *args: str) -> tuple[int, list[str], str]:
    source = start if start.startswith("http") else server.url(start)
    result = CliRunner().invoke(cli, ["urls", "--format", "jsonl", *args, source])
    entries = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    host = server.url("")
    return result.exit_code, [e["loc"].replace(host, "") for e in entries], result.stderr


_CROSS = (
    "a URL on another host in a sitemap is listed as the sitemap says (`validate` calls it "
    "loc-other-host); crawlee's crawler drops it under its same-hostname enqueue strategy"
)

# (id, start, args, the URLs crawlee finds, exit status, xfail reason)
CASES: list[tuple[str, str, tuple[str, ...], list[str], int, str | None]] = [
    ("extracts urls from sitemaps", "/sitemap_child.xml", (), CHILD_URLS, 0, None),
    ("extracts urls from gzipped sitemaps", "/sitemap_child.xml.gz", (), CHILD_URLS, 0, None),
    ("incorrect gzip is malformed", "/invalid_sitemap_child.xml.gz", (), [], 1, None),
    ("follows links in sitemap indexes", "/sitemap_parent.xml", (), CHILD_URLS * 2, 0, None),
    ("pretty-printed nested sitemaps", "/sitemap_parent_pretty.xml", (), CHILD_URLS, 0, None),
    ("does not break on invalid xml (HTML)", "/not_actual_xml.xml", (), [], 1, None),
    ("CDATA in loc", "/sitemap_cdata.xml", (), ["/catalog"], 0, None),
    (
        "autodetects sitemaps from the home page",
        "/",
        (),
        TWO_URLS + TXT_URLS,
        0,
        "the well-known paths are a guess, read only when robots.txt names none, and the first "
        "that answers is read (sites often serve one set at several); crawlee reads each",
    ),
    ("autodetects the first well-known sitemap", "/", (), TWO_URLS, 0, None),
    (
        "autodetects sitemaps from any page",
        "/arbitrary_url?search=xyz",
        (),
        TWO_URLS + TXT_URLS,
        0,
        "a URL other than the home page or robots.txt is the sitemap it names (here a 404, "
        "reported); crawlee's tryCommonNames() guesses from any URL of the site",
    ),
    ("sitemap.txt", "/sitemap.txt", (), TXT_URLS, 0, None),
    (
        "pretty-printed XML",
        "/sitemap_pretty.xml",
        (),
        ["/catalog?item=80&desc=vacation_turkey"],
        0,
        None,
    ),
    ("gzip by name, plain XML inside", "/non_gzipped_sitemap.xml.gz", (), TWO_URLS, 0, None),
    ("gzip inside, plain name", "/sneakily_gzipped_sitemap.xml", (), CHILD_URLS, 0, None),
    # Listed: the two with a loc; the one without is said on stderr (loc-missing), exit 1.
    ("a url without loc leaks nothing", "/no_loc.xml", (), ["/a", "/c"], 1, None),
    (
        "cross-host entries dropped by default",
        "/cross_host_urls.xml",
        (),
        ["/local-page"],
        0,
        _CROSS,
    ),
    (
        "cross-host entries kept when asked",
        "/cross_host_urls.xml",
        ("--allow-other-hosts",),
        ["/local-page", "{other}/cross-page"],
        0,
        None,
    ),
    ("cross-host nested sitemap not fetched", "/cross_host_index.xml", (), [], 1, None),
    (
        "cross-host nested sitemap followed when asked",
        "/cross_host_index.xml",
        ("--allow-other-hosts",),
        ["{other}/child-page"],
        0,
        None,
    ),
    ("non-http(s) schemes dropped", "/bad_schemes.xml", (), ["/ok"], 1, None),
]


def _params() -> Iterator[object]:
    for name, start, args, want, code, reason in CASES:
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        yield pytest.param(start, args, want, code, marks=marks, id=name)


@pytest.mark.parametrize(("start", "args", "want", "code"), list(_params()))
def test_crawlee_sitemap_case(
    server: SiteServer, start: str, args: tuple[str, ...], want: list[str], code: int
) -> None:
    got_code, got, err = urls(server, start, *args)
    other = f"http://localhost:{server.port}"
    assert got == [w.format(other=other) for w in want], err
    assert got_code == code, err


def test_metadata_of_a_pretty_printed_entry(server: SiteServer) -> None:
    """crawlee: 'extracts metadata from pretty-printed XML' (whitespace around values)."""
    result = CliRunner().invoke(
        cli, ["urls", "--format", "jsonl", server.url("/sitemap_pretty.xml")]
    )
    (entry,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert (entry["lastmod"], entry["changefreq"], float(entry["priority"])) == (
        "2005-02-03",
        "monthly",
        0.8,
    )


def test_metadata_of_entries(server: SiteServer) -> None:
    """crawlee: 'extracts metadata from sitemaps'; and an invalid lastmod is not passed on
    as a date ('drops invalid lastmod'): ``urls`` keeps the text but says it is no date."""
    result = CliRunner().invoke(
        cli, ["urls", "--format", "jsonl", server.url("/sitemap_child.xml")]
    )
    first = json.loads(result.stdout.splitlines()[0])
    assert (first["lastmod"], first["changefreq"], float(first["priority"])) == (
        "2005-02-03",
        "monthly",
        0.8,
    )
    bad = CliRunner().invoke(cli, ["validate", "--format", "json", server.url("/no_loc.xml")])
    codes = {f["code"] for f in json.loads(bad.stdout)["findings"]}
    assert "lastmod-invalid" in codes


def test_gzip_fixture_is_really_cut() -> None:
    """The malformed gzip row above serves a gzip stream cut short, as crawlee's does."""
    cut = gzip.compress(CHILD.encode())[:60]
    with pytest.raises(EOFError):
        gzip.decompress(cut)
    assert base64.b64encode(cut)
