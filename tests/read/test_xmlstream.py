"""The lean lane (regex for plain entries) must read exactly what the node lane reads."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from sitemapkit.model import Finding
from sitemapkit.read import source
from sitemapkit.read.reader import SourcedEntry, _abatches, iter_locs
from sitemapkit.read.source import ReadLimits
from sitemapkit.read.xmlstream import XmlStreamParser

FIX = Path(__file__).parent.parent / "sitemapdata" / "fixtures"
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
IMG = 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
XH = (
    'xmlns:xhtml="http://www.w3.org/1999/xhtml" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"'
)


def read(path: Path, *, lean: bool) -> tuple[list[SourcedEntry], list[str]]:
    async def go() -> tuple[list[SourcedEntry], list[str]]:
        log: list[Finding] = []
        out: list[SourcedEntry] = []
        async for batch in _abatches(
            [str(path)], session=None, limits=ReadLimits(), sitemap_url=None, log=log, lean=lean
        ):
            out.extend(batch)
        return out, [f.render() for f in log]

    return asyncio.run(go())


TRICKY = {
    "mixed": f"{HEAD}<urlset {NS} {IMG}>\n"
    + "".join(
        f"<url><loc>https://e.com/{i}</loc><lastmod>2024-01-0{1 + i % 9}</lastmod></url>\n"
        if i % 3
        else f"<url>\n  <loc>https://e.com/{i}?a=1&amp;b=2</loc>\n  <image:image><image:loc>"
        f"https://e.com/{i}.jpg</image:loc></image:image>\n</url>\n"
        for i in range(3000)
    )
    + "</urlset>\n",
    "pretty": f"{HEAD}<urlset {NS}>\n"
    + "".join(
        f"  <url>\n    <loc>https://e.com/{i}</loc>\n    <changefreq>daily</changefreq>\n"
        f"    <priority>0.{i % 10}</priority>\n  </url>\n"
        for i in range(3000)
    )
    + "</urlset>\n",
    "comment-inside": f"{HEAD}<urlset {NS}>\n<url><loc>https://e.com/a</loc></url>\n"
    "<!-- <url><loc>https://e.com/hidden</loc></url> -->\n"
    "<url><loc>https://e.com/b</loc></url>\n</urlset>\n",
    "malformed-late": f"{HEAD}<urlset {NS}>\n"
    + "<url><loc>https://e.com/x</loc></url>\n" * 2000
    + "<url><loc>https://e.com/bad</loc></urx>\n"
    + "<url><loc>https://e.com/after</loc></url>\n" * 10
    + "</urlset>\n",
    "junk-after": f"{HEAD}<urlset {NS}>\n<url><loc>https://e.com/a</loc></url>\n</urlset>\n"
    "<url><loc>https://e.com/b</loc></url>\n",
    "bad-utf8": (f"{HEAD}<urlset {NS}>\n" + "<url><loc>https://e.com/a</loc></url>\n" * 100)
    .encode()
    .decode()
    + "<url><loc>https://e.com/\udcff</loc></url>\n</urlset>\n",
    "rich": f"{HEAD}<urlset {NS} {IMG}>\n"
    + "".join(
        f"<url><loc>https://e.com/{i}</loc><lastmod>2024-01-01</lastmod><image:image>"
        f"<image:loc>https://e.com/{i}.jpg</image:loc></image:image></url>\n"
        for i in range(3000)
    )
    + "<url><loc>https://e.com/c</loc><!-- </url> --></url>\n"
    + "<url><loc>https://e.com/bad</loc><image:image></url>\n"
    + "</urlset>\n",
    # Values the loc-run lane must leave to expat and the entry lane (or read the same).
    "odd-locs": f"{HEAD}<urlset {NS}>\n"
    + "".join(
        f"<url><loc>https://e.com/{i}</loc></url>\n"
        + f"<url><loc>{odd}</loc><lastmod>2024-01-01</lastmod></url>\n"
        for i, odd in enumerate(
            [
                "https://e.com/q?a=1&amp;b=2",
                " https://e.com/padded ",
                "",
                "   ",
                "https://e.com/cr\r\nlf",
                "https://e.com/tab\there",
                "https://e.com/\uffef-ok",
                "https://e.com/caf\u00e9",
                "https://e.com/[v6]",
                "https://e.com/&lt;x&gt;",
                "https://e.com/&#65;",
            ]
        )
    )
    + "<url ><loc>https://e.com/space-in-tag</loc></url>\n"
    + "<url><loc>https://e.com/last</loc><changefreq>daily</changefreq></url>\n</urlset>\n",
    "rich-ext": f"{HEAD}<urlset {NS} {IMG} {XH}>\n"
    + "".join(
        f"<url><loc>https://e.com/{i}</loc>"
        + (
            f"<image:image><image:loc>https://e.com/{i}.jpg</image:loc>"
            f"<image:caption>Lamp &amp; shade {i}</image:caption>"
            f"<image:title>{'&lt;b&gt;' if i % 7 == 0 else 'T'}</image:title></image:image>"
        )
        + f'<xhtml:link rel="alternate" hreflang="en" href="https://e.com/{i}?a=1&amp;b=2"/>'
        + (
            f'<xhtml:link href="https://e.com/de/{i}" rel="alternate" hreflang="de"/>'
            if i % 5 == 0
            else f'<xhtml:link rel="alternate" hreflang="de" href="https://e.com/de/{i}" />'
        )
        + ("<video:video/>" if i % 11 == 0 else "")
        + "</url>\n"
        for i in range(400)
    )
    + "</urlset>\n",
    # a loc run with non-ASCII text, then an error on the same line: expat counts columns
    # in characters, so the run's blanks must too
    "utf8-then-error": f"{HEAD}<urlset {NS}>\n"
    + "<url><loc>https://e.com/café-menü</loc></url>" * 20
    # entries no run takes, kept until expat has read them: found good before the error
    + "<url><loc>https://e.com/kept-1</loc><x>1</x></url>"
    + "<url><loc>https://e.com/kept-2</loc><x>2</x></url>"
    + "<url><loc>https://e.com/bad</loc><x></url>\n</urlset>\n",
    "not-a-character": f"{HEAD}<urlset {NS}>\n"
    + "<url><loc>https://e.com/a</loc></url>\n" * 50
    + "<url><loc>https://e.com/\ufffe</loc></url>\n</urlset>\n",
    "control-char": f"{HEAD}<urlset {NS}>\n"
    + "<url><loc>https://e.com/a</loc></url>\n" * 50
    + "<url><loc>https://e.com/\x01</loc></url>\n</urlset>\n",
    "cdata-end": f"{HEAD}<urlset {NS}>\n"
    + "<url><loc>https://e.com/a</loc></url>\n" * 50
    + "<url><loc>https://e.com/]]></loc></url>\n</urlset>\n",
    "index": f"{HEAD}<sitemapindex {NS}>\n<sitemap><loc>https://e.com/s.xml</loc>"
    "<lastmod>2024-01-01</lastmod></sitemap>\n</sitemapindex>\n",
}


@pytest.mark.parametrize("chunk", [7, 4096, 256 * 1024])
@pytest.mark.parametrize("name", sorted(TRICKY))
def test_lean_lane_reads_what_the_node_lane_reads(
    name: str, chunk: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s.xml"
    path.write_bytes(TRICKY[name].encode("utf-8", "surrogateescape"))
    monkeypatch.setattr(source, "CHUNK_BYTES", chunk)
    lean = read(path, lean=True)
    slow = read(path, lean=False)
    assert lean == slow
    log: list[Finding] = []
    locs = [loc for batch in iter_locs(str(path), log=log) for loc in batch]
    assert locs == [e.entry.loc for e in slow[0]]
    assert [f.render() for f in log] == slow[1]
    if name == "comment-inside":
        assert [e.entry.loc for e in lean[0]] == ["https://e.com/a", "https://e.com/b"]
    if name == "malformed-late":
        assert len(lean[0]) == 2000
        assert ":2003:" in lean[1][0]


@pytest.mark.parametrize(
    "path",
    sorted((FIX / "good").iterdir()) + sorted((FIX / "bad").iterdir()),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_lean_lane_on_the_corpus(path: Path) -> None:
    slow = read(path, lean=False)
    assert read(path, lean=True) == slow
    log: list[Finding] = []
    locs = [loc for batch in iter_locs(str(path), log=log) for loc in batch]
    assert locs == [e.entry.loc for e in slow[0]]
    assert [f.render() for f in log] == slow[1]


def test_plain_entries_become_tuples_with_lines() -> None:
    p = XmlStreamParser(lean=True)
    p.feed(f"{HEAD}<urlset {NS}>\n<url><loc>https://e.com/a</loc></url>\n</urlset>".encode())
    p.close()
    assert p.out == [(True, "https://e.com/a", None, None, None, 3)]
    assert p.facts.entries == 1
