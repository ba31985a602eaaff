"""Edge cases other readers' suites test, asked of ``sitemapkit urls`` over a real server.

From ultimate-sitemap-parser's ``tests/tree`` (BOM, trailing junk, HTML served as a
sitemap, gzip with a wrong Content-Type, relative index children), trafilatura's
``tests/sitemaps_tests.py`` (``is_plausible_sitemap``: empty bodies, "ABC", HTML, a cut
gzip, text with a header line) and crawlee/advertools (RSS ``guid``, Atom links, Latin-1,
UTF-16, prefixed namespaces, entity references in a loc).  Each row: the path served,
its body and headers, the URLs listed (paths on the local server) and the exit status.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from click.testing import CliRunner

from sitemapdata.reader_http import SiteServer
from sitemapkit.cli import cli

H = "{host}"
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def urlset(*paths: str, decl: str = '<?xml version="1.0" encoding="UTF-8"?>') -> str:
    return (
        decl
        + f"\n<urlset {NS}>"
        + "".join(f"<url><loc>{H}{p}</loc></url>" for p in paths)
        + "</urlset>"
    )


def gz(text: str) -> bytes:
    return b"gz:" + text.encode()


XML = {"Content-Type": "application/xml"}
TEXT = {"Content-Type": "text/plain"}

# (path, body, headers, listed paths, exit status, a code the stderr names)
CASES: list[tuple[str, str | bytes, dict[str, str], list[str], int, str]] = [
    (
        "/trailing-junk.xml",
        urlset("/a", "/b") + "\n<!-- 0.1s -->garbage",
        XML,
        ["/a", "/b"],
        1,
        "xml-malformed",
    ),
    ("/trailing-space.xml", urlset("/a") + "\n\n  \n", XML, ["/a"], 0, ""),
    ("/bom-and-space.xml", "\ufeff\n  " + urlset("/a"), XML, ["/a"], 0, ""),
    ("/junk-before-decl.xml", "\n\n  garbage?" + urlset("/a"), XML, ["/a"], 0, ""),
    (
        "/html-doctype.xml",
        "<!DOCTYPE html><html><body><a href='/a'>a</a></body></html>",
        XML,
        [],
        1,
        "xml-doctype",
    ),
    (
        "/html-page.xml",
        "<html><body>Not found</body></html>",
        {"Content-Type": "text/html"},
        [],
        1,
        "root-unknown",
    ),
    ("/abc.xml", "ABC", XML, [], 1, "text-line-invalid"),
    ("/empty.xml", "", XML, [], 1, "xml-malformed"),
    ("/cut.xml.gz", b"\x1f\x8bABC", {"Content-Type": "application/x-gzip"}, [], 1, "gzip-invalid"),
    ("/gz-as-html.xml.gz", gz(urlset("/a")), {"Content-Type": "text/html"}, ["/a"], 0, ""),
    (
        "/gz-as-octets.xml.gz",
        gz(urlset("/a")),
        {"Content-Type": "application/octet-stream"},
        ["/a"],
        0,
        "",
    ),
    ("/gz-no-suffix", gz(urlset("/a")), XML, ["/a"], 0, ""),
    ("/text-with-header.txt", f"Tralala\n{H}/1\n{H}/2", TEXT, ["/1", "/2"], 1, "text-line-invalid"),
    ("/text-bom-crlf.txt", f"\ufeff{H}/a\r\n{H}/b\r\n\r\n", TEXT, ["/a", "/b"], 0, ""),
    (
        "/latin1.xml",
        "latin1:" + urlset("/caf\xe9", decl='<?xml version="1.0" encoding="ISO-8859-1"?>'),
        XML,
        ["/caf\xe9"],
        0,
        "",
    ),
    (
        "/utf16.xml",
        "utf16:" + urlset("/a", decl='<?xml version="1.0" encoding="UTF-16"?>'),
        XML,
        ["/a"],
        0,
        "",
    ),
    (
        "/prefixed.xml",
        f'<?xml version="1.0"?><sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<sm:url><sm:loc>{H}/a</sm:loc></sm:url></sm:urlset>",
        XML,
        ["/a"],
        0,
        "",
    ),
    (
        "/loc-space.xml",
        urlset("/a").replace(f"<loc>{H}/a", f"<loc>\n\t {H}/a \n"),
        XML,
        ["/a"],
        0,
        "",
    ),
    (
        "/entities.xml",
        urlset("/a?x=1&amp;y=&#50;&#x33;"),
        XML,
        ["/a?x=1&y=23"],
        0,
        "",
    ),
    (
        "/rss.xml",
        f'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><item><link>{H}/a</link>'
        f'</item><item><guid isPermaLink="true">{H}/g</guid></item></channel></rss>',
        XML,
        ["/a", "/g"],
        0,
        "",
    ),
    (
        "/atom.xml",
        '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom">'
        f'<entry><link href="{H}/a"/></entry><entry><link rel="alternate" href="{H}/b"/>'
        f'<link rel="enclosure" href="{H}/c.mp3"/></entry></feed>',
        XML,
        ["/a", "/b"],
        0,
        "",
    ),
    (
        "/index-relative.xml",
        f'<?xml version="1.0"?><sitemapindex {NS}><sitemap><loc>/child.xml</loc></sitemap>'
        f"<sitemap><loc>javascript:alert(1)</loc></sitemap><sitemap><loc>{H}/child.xml</loc></sitemap>"
        "</sitemapindex>",
        XML,
        ["/c"],
        1,
        "loc-not-absolute",
    ),
]


def _body(body: str | bytes, host: str) -> bytes:
    if isinstance(body, bytes):
        if body.startswith(b"gz:"):
            return gzip.compress(body[3:].decode().format(host=host).encode())
        return body
    if body.startswith("latin1:"):
        return body[7:].format(host=host).encode("latin-1")
    if body.startswith("utf16:"):
        return body[6:].format(host=host).encode("utf-16")
    return body.format(host=host).encode()


@contextmanager
def serving(cases: Iterable[tuple[Any, ...]]) -> Iterator[SiteServer]:
    """A server on 127.0.0.1 answering each case's path with its body (see :func:`_body`)
    and headers: a case is ``(path, body, headers, ...)``."""
    srv = SiteServer().start()
    try:
        for path, body, headers, *_ in cases:
            srv.body(path, _body(body, srv.url("")), headers=headers)
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def server() -> Iterator[SiteServer]:
    with serving(CASES) as srv:
        srv.body("/child.xml", urlset("/c").format(host=srv.url("")).encode(), headers=XML)
        yield srv


@pytest.mark.parametrize(
    ("path", "listed", "status", "code"),
    [pytest.param(c[0], c[3], c[4], c[5], id=c[0].lstrip("/")) for c in CASES],
)
def test_reader_edge_case(
    server: SiteServer, path: str, listed: list[str], status: int, code: str
) -> None:
    result = CliRunner().invoke(cli, ["urls", "--format", "jsonl", server.url(path)])
    host = server.url("")
    got = [json.loads(line)["loc"].replace(host, "") for line in result.stdout.splitlines()]
    assert got == listed, result.stderr
    assert result.exit_code == status, result.stderr
    if code:
        assert f"error {code}:" in result.stderr


def test_an_index_child_that_is_no_url_is_named_not_dropped(server: SiteServer) -> None:
    """An index whose ``<loc>`` is relative (``/child.xml``) or ``javascript:`` used to be
    skipped by ``urls`` without a word and exit 0, while ``validate`` called the same
    child ``loc-not-absolute``: now ``urls`` names each one on stderr and exits 1, and
    ``validate`` still reports each exactly once."""
    result = CliRunner().invoke(cli, ["urls", server.url("/index-relative.xml")])
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if "loc-not-absolute" in line]
    assert len(lines) == 2
    assert '"/child.xml" is not an http(s) URL; not fetched' in lines[0]
    checked = CliRunner().invoke(
        cli, ["validate", "--format", "json", server.url("/index-relative.xml")]
    )
    findings = json.loads(checked.stdout)["findings"]
    assert [f["code"] for f in findings].count("loc-not-absolute") == 2
    assert not any("other hosts" in k for k in json.loads(checked.stdout).get("skipped", {}))
