"""A static documentation site as Debian ships it, crawled as users run it.

``dpkg-deb -x`` gives every file of a package the package's build time, so nginx answers
every page with one ``Last-Modified``: 5 of the 7 documentation packages crawled by
bench/realsites_bench.py had one date on 95-100% of their pages, and the sitemap we wrote
for them failed our own validator (``lastmod-uniform``).  Here the same shape, with real
pages (tests/cli/fixtures/debian_docs/): a folder of Sphinx pages with one file time,
served with aiohttp's static files (``Last-Modified`` from the file time, as nginx does),
plus a rustdoc meta-refresh redirect page.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from crawl.fixture_site import serve
from sitemapkit.cli import main

FIXTURES = Path(__file__).parent / "fixtures" / "debian_docs"
BUILD_TIME = 1_673_685_526  # 2023-01-14T08:38:46Z, rust-doc's file time
UPSTREAM_TIME = 1_660_896_595  # 2022-08-19T08:09:55Z, libstdc++'s upstream files
PAGES = 12


def unpack(root: Path, *, other_times: int = 0, pages: int = PAGES, upstream: int = 0) -> None:
    """A package's html/ folder: Sphinx pages, a redirect, one file time.

    ``other_times`` files get a time each of their own; ``upstream`` pages get one other
    time (files a package took from an upstream build).
    """
    sphinx = (FIXTURES / "django-install.html").read_text(encoding="utf-8")
    (root / "intro").mkdir(parents=True)
    for i in range(pages):
        # Each page its own title, so no two are the same document.
        text = sphinx.replace("Quick install guide", f"Quick install guide, part {i}")
        (root / "intro" / f"page{i}.html").write_text(text, encoding="utf-8")
    target = root / "core" / "cell" / "struct.LazyCell.html"
    target.parent.mkdir(parents=True)
    target.write_text(sphinx.replace("Quick install guide", "LazyCell"), encoding="utf-8")
    (root / "core" / "cell" / "lazy").mkdir()
    shutil.copy(FIXTURES / "rustdoc-redirect.html", root / "core/cell/lazy/struct.LazyCell.html")
    links = "".join(f'<li><a href="intro/page{i}.html">{i}</a></li>' for i in range(pages))
    links += '<li><a href="core/cell/lazy/struct.LazyCell.html">LazyCell</a></li>'
    (root / "index.html").write_text(
        f"<!doctype html><html><head><title>Docs</title></head><body><ul>{links}</ul></body>"
        "</html>",
        encoding="utf-8",
    )
    for n, path in enumerate(sorted(p for p in root.rglob("*.html"))):
        when = BUILD_TIME + (86_400 * n if n < other_times else 0)
        os.utime(path, (when, when))
    for i in range(upstream):
        os.utime(root / "intro" / f"page{i}.html", (UPSTREAM_TIME, UPSTREAM_TIME))


@contextlib.contextmanager
def served(root: Path) -> Iterator[str]:
    async def robots(_: web.Request) -> web.Response:
        return web.Response(text="User-agent: *\nDisallow: /bench-private/\n")

    def app() -> web.Application:
        application = web.Application()
        application.router.add_get("/robots.txt", robots)
        application.router.add_static("/", root)
        return application

    with serve(app) as port:
        yield f"http://127.0.0.1:{port}"


def crawl(base: str, out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """What ``sitemapkit crawl`` says (the notes are on stderr)."""
    capsys.readouterr()
    assert main(["crawl", base + "/index.html", "-o", str(out), "--no-map"]) == 0
    said = capsys.readouterr()
    return said.out + said.err


def test_one_build_time_on_every_page_is_not_written_as_lastmod(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unpack(tmp_path / "html")
    with served(tmp_path / "html") as base:
        said = crawl(base, tmp_path / "out", capsys)
    xml = (tmp_path / "out" / "sitemap.xml").read_text(encoding="utf-8")
    locs = re.findall(r"<loc>([^<]*)</loc>", xml)
    assert len(locs) == PAGES + 2  # the index, the pages, the redirect's target
    assert f"{base}/core/cell/lazy/struct.LazyCell.html" not in locs  # a redirect
    assert f"{base}/core/cell/struct.LazyCell.html" in locs
    assert "<lastmod>" not in xml
    assert (
        f"lastmod left out of {PAGES + 2} of {PAGES + 2} dated pages: they all said "
        '"2023-01-14T08:38:46Z", a build or deploy stamp' in said
    )
    capsys.readouterr()
    assert main(["validate", str(tmp_path / "out" / "sitemap.xml")]) == 0
    assert "lastmod-uniform" not in capsys.readouterr().out


def test_pages_with_their_own_dates_keep_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """3 of 15 files with other times: no build stamp, every date is written."""
    unpack(tmp_path / "html", other_times=3)
    with served(tmp_path / "html") as base:
        said = crawl(base, tmp_path / "out", capsys)
    xml = (tmp_path / "out" / "sitemap.xml").read_text(encoding="utf-8")
    assert xml.count("<lastmod>") == PAGES + 2
    assert "lastmod left out" not in said


def test_two_builds_in_one_package_are_both_stamps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """libstdc++-12-doc: 3,651 pages of the Debian build's time, the other 102 of the
    upstream build's: with the first stamp left out, the rest were one date again, and the
    validator warned about our sitemap once more.  Here 190 and 10 pages."""
    unpack(tmp_path / "html", pages=198, upstream=10)
    with served(tmp_path / "html") as base:
        said = crawl(base, tmp_path / "out", capsys)
    xml = (tmp_path / "out" / "sitemap.xml").read_text(encoding="utf-8")
    assert xml.count("<loc>") == 200
    assert "<lastmod>" not in xml
    assert (
        'lastmod left out of 200 of 200 dated pages: they all said "2023-01-14T08:38:46Z" or '
        '"2022-08-19T08:09:55Z", build or deploy stamps' in said
    )
