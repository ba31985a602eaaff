"""Hostile bytes never crash the reader or the validator: they become findings."""

from __future__ import annotations

import asyncio
import gzip
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit.model import Finding, Severity
from sitemapkit.read.reader import SourcedEntry, _abatches, iter_locs, iter_sourced
from sitemapkit.read.source import ReadLimits
from sitemapkit.validate.validator import validate

FIX = Path(__file__).parent.parent / "sitemapdata" / "fixtures"
SEEDS = [
    (FIX / "good" / name).read_bytes()
    for name in ("urlset.xml", "hreflang.xml", "video.xml", "news.xml", "index.xml", "rss.xml")
]
PIECES = [
    b"<",
    b">",
    b"&",
    b"&amp;",
    b"<!--",
    b"-->",
    b"<![CDATA[",
    b"]]>",
    b"</url>",
    b"<url>",
    b"<loc>",
    b"\xff",
    b"\x00",
    b"\n",
    b"<!DOCTYPE x>",
    b"\xef\xbb\xbf",
    b" ",
]


def node_lane(path: Path) -> list[SourcedEntry]:
    async def go() -> list[SourcedEntry]:
        out: list[SourcedEntry] = []
        async for batch in _abatches(
            [str(path)],
            session=None,
            limits=ReadLimits(),
            sitemap_url=None,
            log=None,
            follow=False,
            lean=False,
        ):
            out.extend(batch)
        return out

    return asyncio.run(go())


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["insert", "delete", "cut"]))
        if op == "insert":
            data[at:at] = draw(st.sampled_from(PIECES))
        elif op == "delete":
            del data[at : at + draw(st.integers(1, 20))]
        else:
            del data[at:]
    out = bytes(data)
    return gzip.compress(out) if draw(st.booleans()) else out


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=mutated())
def test_mutations_never_crash(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "fuzz.xml"
    path.write_bytes(data)
    rep = validate([str(path)], limits=ReadLimits(max_sitemaps=0))  # never leave the box
    assert all(f.code for f in rep.findings)
    log: list[Finding] = []
    sourced = [s.entry.loc for s in iter_sourced(str(path), log=log, follow=False)]
    locs = [loc for batch in iter_locs(str(path), follow=False) for loc in batch]
    assert locs == sourced
    reference = [s.entry.loc for s in node_lane(path)]  # no regex lane at all
    assert sourced == reference


NAME_PIECES = [
    b"x",
    b"loc",
    b"url",
    b"lastmod",
    b"image:",
    b"video:",
    b"news:",
    b"priority",
    b"changefreq",
    b"1",
    b"-",
    b"T",
    b":",
    b"Z",
    b"+",
    b' a="b"',
]


@st.composite
def text_mutated(draw: st.DrawFn) -> bytes:
    """Well-formed-ish mutations: edits inside names, values and attributes."""
    data = bytearray(draw(st.sampled_from(SEEDS[:4])))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        if draw(st.booleans()):
            data[at:at] = draw(st.sampled_from(NAME_PIECES))
        else:
            del data[at : at + draw(st.integers(1, 4))]
    return bytes(data)


@settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=text_mutated())
def test_never_laxer_than_the_schema(data: bytes, tmp_path: Path, xsd_dir: Path) -> None:
    path = tmp_path / "m.xml"
    path.write_bytes(data)
    proc = subprocess.run(
        ["xmllint", "--noout", "--nonet", "--schema", str(xsd_dir / "all.xsd"), str(path)],
        capture_output=True,
        check=False,
    )
    if proc.returncode == 0:
        return
    rep = validate(
        [str(path)],
        sitemap_url="https://example.com/",
        now=datetime(2024, 6, 1, tzinfo=UTC),
        limits=ReadLimits(max_sitemaps=0),
    )
    lenient = {"urlset-empty", "ext-unknown-namespace"}
    assert any(f.severity is Severity.ERROR or f.code in lenient for f in rep.findings), (
        proc.stderr.decode()
    )
