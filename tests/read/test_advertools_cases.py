"""advertools' sitemap tests (``tests/test_sitemaps.py``), in our words.

advertools reads its own ``tests/sitemap.xml`` (the sitemaps.org example with an
``xhtml:link``) into 5 rows, and ``tests/sitemap-index.xml`` (that file plus a child that
does not exist) into its rows and an error row.  Here the same files, served by a real
server on 127.0.0.1: ``sitemapkit urls`` gives the 5 URLs (``&amp;`` read as ``&``) from
the file and through the index, says which child failed and exits 1; ``validate`` finds
the ``xhtml:link`` without ``hreflang`` at its line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitemapdata.reader_http import SiteServer
from sitemapkit.cli import main

SITEMAP = """<?xml version="1.0" encoding="UTF-8"?>

<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">

   <url>

      <loc>http://www.example.com/</loc>

      <lastmod>2005-01-01</lastmod>

      <changefreq>monthly</changefreq>

      <priority>0.8</priority>

   </url>

   <url>

      <loc>http://www.example.com/catalog?item=12&amp;desc=vacation_hawaii</loc>

      <changefreq>weekly</changefreq>

   </url>

   <url>

      <loc>http://www.example.com/catalog?item=73&amp;desc=vacation_new_zealand</loc>

      <lastmod>2004-12-23</lastmod>

      <changefreq>weekly</changefreq>

   </url>

   <url>

      <loc>http://www.example.com/catalog?item=74&amp;desc=vacation_newfoundland</loc>

      <lastmod>2004-12-23T18:00:15+00:00</lastmod>

      <priority>0.3</priority>

   </url>

   <url>

      <loc>http://www.example.com/catalog?item=83&amp;desc=vacation_usa</loc>

      <lastmod>2004-11-23</lastmod>
          <xhtml:link
               rel="alternate"
               href="http://www.example.com/sample/page.html"/>


   </url>

</urlset>"""
LOCS = [
    "http://www.example.com/",
    "http://www.example.com/catalog?item=12&desc=vacation_hawaii",
    "http://www.example.com/catalog?item=73&desc=vacation_new_zealand",
    "http://www.example.com/catalog?item=74&desc=vacation_newfoundland",
    "http://www.example.com/catalog?item=83&desc=vacation_usa",
]


def index(base: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>

<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">

   <sitemap>

      <loc>{base}/tests/sitemap.xml</loc>

      <lastmod>2004-10-01T18:23:17+00:00</lastmod>

   </sitemap>


   <sitemap>

      <loc>{base}/no-file-here.xml</loc>

      <lastmod>2005-01-01</lastmod>

   </sitemap>

</sitemapindex>
"""


@pytest.fixture
def server() -> Iterator[SiteServer]:
    site = SiteServer().start()
    site.body("/tests/sitemap.xml", SITEMAP, headers={"Content-Type": "application/xml"})
    site.body("/tests/sitemap-index.xml", index(site.url("").rstrip("/")))
    yield site
    site.stop()


def urls(source: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str], str]:
    capsys.readouterr()
    code = main(["urls", source, "--format", "jsonl"])
    said = capsys.readouterr()
    return code, [json.loads(line)["loc"] for line in said.out.splitlines()], said.err


def test_regular_sitemap_gives_its_five_urls(
    server: SiteServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, locs, _ = urls(server.url("/tests/sitemap.xml"), capsys)
    assert (code, locs) == (0, LOCS)


def test_index_with_a_missing_child_gives_the_urls_and_names_the_child(
    server: SiteServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, locs, err = urls(server.url("/tests/sitemap-index.xml"), capsys)
    assert locs == LOCS
    assert code == 1
    assert server.url("/no-file-here.xml") in err
    assert "404" in err


def test_validate_finds_the_alternate_without_hreflang(
    server: SiteServer, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["validate", server.url("/tests/sitemap.xml")]) == 1
    out = capsys.readouterr().out
    assert ":51:11: error hreflang-malformed: xhtml:link lacks hreflang" in out


def test_a_file_uri_is_the_local_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """advertools reads ``file:///.../regular_sitemap.xml`` (its offline tests); ``urls``
    and ``validate`` refused a ``file:`` URI as "no such file" (exit 2)."""
    path = tmp_path / "my sitemap.xml"
    path.write_text(SITEMAP, encoding="utf-8")
    assert main(["urls", path.as_uri()]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5
    assert main(["validate", "--format", "json", path.as_uri()]) == 1  # the hreflang-less link
    assert json.loads(capsys.readouterr().out)["findings"]
