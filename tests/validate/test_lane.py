"""The validator's strict lane changes the speed, never the findings.

Every test here validates the same files twice, with the lane and with every
entry built as nodes (``strict_lane=False``), and wants the same findings:
code, severity, message, source, line and column.  Hypothesis mixes entries
the lane clears in bulk with every kind of entry that must fall back (bad
values, duplicates, dates in the future, comments, other extensions), in
several layouts and read in chunks small enough to split entries anywhere.
"""

from __future__ import annotations

import re
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitemapkit import dates
from sitemapkit.model import Finding
from sitemapkit.read import source
from sitemapkit.read.lanes import DATE, Block, build_lane
from sitemapkit.read.xmlstream import Node, XmlStreamParser, block_nodes
from sitemapkit.validate.state import MAX_LANE_KINDS
from sitemapkit.validate.validator import validate

NOW = datetime(2024, 6, 1, tzinfo=UTC)
BASE = "https://example.com/shop/"
SM = "http://www.sitemaps.org/schemas/sitemap/0.9"
NS = (
    f'xmlns="{SM}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"'
)

# --- building blocks ---------------------------------------------------------------------
LOCS = st.sampled_from(
    [
        BASE + "a",
        BASE + "b.html",
        BASE + "c?x=1&amp;y=2",
        BASE + "d%20e",
        BASE + "caf%C3%A9",
        BASE + "p/[1]",
        BASE + "x" * 2100,  # too long
        BASE + "bad%zz",
        BASE + "sp ace",
        BASE + "café",
        "https://example.com/other/dir",  # outside the directory
        "https://EXAMPLE.com/shop/upper",
        "http://example.com/shop/http",  # another origin
        "https://www.example.com/shop/www",
        "/shop/relative",
        "",
        " " + BASE + "padded ",
        "HTTPS://example.com/shop/caps",
    ]
) | st.integers(0, 40).map(lambda i: f"{BASE}item-{i}")
LASTMODS = st.sampled_from(
    [
        "2024-01-31",
        "2024-02-29",
        "2023-02-29",
        "2024-04-31",
        "2024-13-01",
        "2024-05-20T10:11:12Z",
        "2024-05-20T10:11:12.5+02:00",
        "2024-05-20T10:11:12",
        "2024-05-20T10:11Z",
        "2024-05",
        "2024-05-31T23:59:59-23:59",
        "2024-06-01",
        "2024-06-02T12:00:00+00:00",
        "2031-01-01",
        "0000-01-01",
        " 2024-01-02 ",
        "yesterday",
        "2024-05-20T24:00:00Z",
    ]
)
FREQS = st.sampled_from(["daily", "weekly", "Daily", "sometimes", " never "])
PRIOS = st.sampled_from(["0.5", "1.0", "1", "0", ".3", "0.", "1.5", "00.5", "high", "+0.4"])
IMAGES = st.sampled_from(
    [
        "https://cdn.example.com/i.jpg",
        "https://cdn.example.com/i.jpg?w=1&amp;h=2",
        "/relative.jpg",
        "ftp://x/y.jpg",
    ]
)
IMAGE_KIDS = st.sampled_from(
    [
        "<image:caption>Lamp &amp; shade, brass</image:caption>",
        "<image:caption>Lampe für den Flur – 40 cm</image:caption>",
        "<image:title>&lt;b&gt;Sale&lt;/b&gt;</image:title>",
        "<image:title>&#65;</image:title>",
        "<image:geo_location>Köln, Germany</image:geo_location>",
        "<image:license>https://example.com/licence</image:license>",
        "<image:license>nope://x y</image:license>",
        "<image:caption>bad \udcff byte</image:caption>",
        "<image:caption>\U0001f4a1 bulb</image:caption>",
    ]
)
CODES = st.sampled_from(["en", "de", "en-GB", "x-default", "EN", "en_GB", "gb", "zz-QQ", "fr"])


@st.composite
def entries(draw: st.DrawFn) -> str:
    loc = draw(LOCS)
    parts = [f"<loc>{loc}</loc>"]
    if draw(st.booleans()):
        parts.append(f"<lastmod>{draw(LASTMODS)}</lastmod>")
    if draw(st.integers(0, 4)) == 0:
        parts.append(f"<changefreq>{draw(FREQS)}</changefreq>")
    if draw(st.integers(0, 4)) == 0:
        parts.append(f"<priority>{draw(PRIOS)}</priority>")
    for _ in range(draw(st.integers(0, 2))):
        kids = "".join(draw(st.lists(IMAGE_KIDS, max_size=2)))
        parts.append(f"<image:image><image:loc>{draw(IMAGES)}</image:loc>{kids}</image:image>")
    if draw(st.integers(0, 2)) == 0:
        group = draw(st.lists(LOCS, min_size=0, max_size=2))
        alts = [loc, *group]
        codes = draw(st.lists(CODES, min_size=len(alts), max_size=len(alts)))
        for code, href in zip(codes, alts, strict=True):
            parts.append(f'<xhtml:link rel="alternate" hreflang="{code}" href="{href}"/>')
    odd = draw(st.integers(0, 12))
    if odd == 0:
        parts.insert(0, "<priority>0.5</priority>")  # out of order
    elif odd == 1:
        parts.append(
            "<video:video><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc>"
            "</video:video>"
        )
    elif odd == 2:
        parts.append("<mystery>1</mystery>")
    open_tag = '<url id="1">' if odd == 3 else "<url>"
    return open_tag + "".join(parts) + "</url>"


LAYOUTS = ["line", "pretty", "flat", "crlf", "cr"]


PROLOGS = [
    "",
    "<!-- generator: test <urlset> -->\n",
    '<?xml-stylesheet type="text/xsl" href="/sitemap.xsl"?>\n',
]


def render(items: list[str], layout: str, comment_at: int | None, prolog: str = "") -> str:
    out = []
    for i, e in enumerate(items):
        if comment_at == i:
            out.append("<!-- generated -->")
        if layout == "pretty":
            e = e.replace("><", ">\n    <").replace("    </url>", "</url>")
        out.append(e)
    sep = {"line": "\n", "pretty": "\n  ", "flat": "", "crlf": "\r\n", "cr": "\r"}[layout]
    body = sep.join(out)
    nl = {"crlf": "\r\n", "cr": "\r"}.get(layout, "\n")
    head = f'<?xml version="1.0" encoding="UTF-8"?>{nl}{prolog}'
    return f"{head}<urlset {NS}>{nl}{body}{nl}</urlset>{nl}"


def key(f: Finding) -> tuple[object, ...]:
    message = f.message
    if f.code == "loc-duplicate":  # the first line is named only when it is cheap to know
        message = re.sub(r"\((first at line \d+|first listed earlier in this file)\)", "", message)
    return (f.code, f.severity, message, f.source, f.line, f.column, f.url)


def same_findings(paths: list[Path], sitemap_url: str | None) -> None:
    fast = validate([str(p) for p in paths], sitemap_url=sitemap_url, now=NOW)
    slow = validate([str(p) for p in paths], sitemap_url=sitemap_url, now=NOW, strict_lane=False)
    assert [key(f) for f in fast.findings] == [key(f) for f in slow.findings]
    assert fast.entries == slow.entries
    assert fast.skipped == slow.skipped


def lane_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


@lane_settings(150)
@given(
    items=st.lists(entries(), min_size=1, max_size=40),
    layout=st.sampled_from(LAYOUTS),
    comment=st.none() | st.integers(0, 40),
    chunk=st.sampled_from([64, 333, 4096, 256 * 1024]),
    scoped=st.booleans(),
    prolog=st.sampled_from(PROLOGS),
)
def test_lane_finds_what_nodes_find(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    items: list[str],
    layout: str,
    comment: int | None,
    chunk: int,
    scoped: bool,
    prolog: str,
) -> None:
    monkeypatch.setattr(source, "CHUNK_BYTES", chunk)
    path = tmp_path / "sitemap.xml"
    path.write_bytes(render(items, layout, comment, prolog).encode("utf-8", "surrogateescape"))
    same_findings([path], BASE + "sitemap.xml" if scoped else None)


@lane_settings(40)
@given(
    first=st.lists(entries(), min_size=1, max_size=25),
    second=st.lists(entries(), min_size=1, max_size=25),
    layout=st.sampled_from(LAYOUTS),
)
def test_lane_across_an_index(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    first: list[str],
    second: list[str],
    layout: str,
) -> None:
    """Duplicates, hreflang pairs and origins across the files of one set."""
    monkeypatch.setattr(source, "CHUNK_BYTES", 200)
    (tmp_path / "a.xml").write_bytes(render(first, layout, None).encode("utf-8", "surrogateescape"))
    (tmp_path / "b.xml").write_bytes(
        render(second, layout, None).encode("utf-8", "surrogateescape")
    )
    (tmp_path / "index.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SM}">\n'
        f"<sitemap><loc>{BASE}a.xml</loc></sitemap>\n"
        f"<sitemap><loc>{BASE}b.xml</loc></sitemap>\n</sitemapindex>\n"
    )
    same_findings([tmp_path / "index.xml"], BASE + "index.xml")


def test_a_large_clean_file_goes_through_the_lane(tmp_path: Path) -> None:
    """The lane is really taken (blocks, not nodes), and a late duplicate is still found."""
    lines = [f"<url><loc>{BASE}p/{i}</loc><lastmod>2024-01-02</lastmod></url>" for i in range(3000)]
    lines.append(f"<url><loc>{BASE}p/17</loc></url>")
    text = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}">\n'
    text += "\n".join(lines) + "\n</urlset>\n"
    parser = XmlStreamParser(strict=lambda facts: build_lane(facts.namespaces, BASE))
    parser.feed(text.encode(), final=True)
    blocks = [b for b in parser.out if isinstance(b, Block)]
    assert sum(b.count for b in blocks) == 3001
    path = tmp_path / "big.xml"
    path.write_text(text)
    report = validate([str(path)], sitemap_url=BASE + "big.xml", now=NOW)
    dups = [f for f in report.findings if f.code == "loc-duplicate"]
    assert [(f.line, f.message) for f in dups] == [
        (3003, f'"{BASE}p/17" is listed again (first at line 20)')
    ]
    same_findings([path], BASE + "big.xml")


@pytest.mark.parametrize("prolog", PROLOGS)
def test_the_lane_starts_after_a_prolog(prolog: str) -> None:
    """A generator comment or a stylesheet PI before the root keeps the lane."""
    rows = [f"<url><loc>{BASE}{i}</loc></url>" for i in range(10)]
    parser = XmlStreamParser(strict=lambda facts: build_lane(facts.namespaces, BASE))
    parser.feed(render(rows, "line", None, prolog).encode(), final=True)
    assert sum(b.count for b in parser.out if isinstance(b, Block)) == 10


def test_block_nodes_have_the_file_positions() -> None:
    text = (
        f'<?xml version="1.0"?>\n<urlset xmlns="{SM}">  <url><loc>{BASE}a</loc></url>\n'
        f"  <url>\n    <loc>{BASE}b</loc>\n  </url></urlset>"
    ).encode()
    parser = XmlStreamParser(strict=lambda facts: build_lane(facts.namespaces, BASE))
    parser.feed(text, final=True)
    (block,) = [b for b in parser.out if isinstance(b, Block)]
    plain = XmlStreamParser()
    plain.feed(text, final=True)

    def where(nodes: list[Node]) -> list[tuple[int, int]]:
        return [(n.line, n.col) for e in nodes for n in (e, *e.children)]

    expected = where([n for n in plain.out if isinstance(n, Node)])
    assert where(block_nodes(block)) == expected == [(2, 63), (2, 68), (3, 3), (4, 5)]


def test_lane_dates_are_exactly_the_fine_ones() -> None:
    """Every YYYY-MM-DD the lane takes, classify calls fine, and the other way round."""
    date_re = re.compile(DATE.decode())
    for year in (1, 1900, 2000, 2023, 2024, 2100, 2400, 9999):
        for month in range(0, 14):
            for day in range(0, 33):
                text = f"{year:04d}-{month:02d}-{day:02d}"
                assert (date_re.fullmatch(text) is not None) == (dates.classify(text) is None), text
    assert date_re.fullmatch("0000-01-01") is None


@given(st.text(alphabet="0123456789-T:Z+.", min_size=4, max_size=32))
def test_lane_dates_never_take_what_classify_rejects(text: str) -> None:
    if re.fullmatch(DATE.decode(), text):
        assert dates.classify(text) is None


def test_lane_times_match_classify() -> None:
    date_re = re.compile(DATE.decode())
    day = date(2024, 3, 5)
    samples = [
        f"{day}T{h:02d}:{m:02d}:{s:02d}{frac}{tz}"
        for h in (0, 23, 24)
        for m in (0, 59, 60)
        for s in (0, 59, 60)
        for frac in ("", ".5", ".123456")
        for tz in ("Z", "+00:00", "-23:59", "+24:00", "+05:60", "")
    ]
    for text in samples:
        assert (date_re.fullmatch(text) is not None) == (dates.classify(text) is None), text


def test_future_dates_in_a_block_are_found(tmp_path: Path) -> None:
    soon = (NOW + timedelta(days=3)).date().isoformat()
    text = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}">\n'
        + "\n".join(
            f"<url><loc>{BASE}{i}</loc><lastmod>{soon if i == 5 else '2024-01-01'}</lastmod></url>"
            for i in range(50)
        )
        + "\n</urlset>\n"
    )
    path = tmp_path / "f.xml"
    path.write_text(text)
    report = validate([str(path)], sitemap_url=BASE + "f.xml", now=NOW)
    assert [(f.code, f.line) for f in report.findings if f.code == "lastmod-future"] == [
        ("lastmod-future", 8)
    ]
    same_findings([path], BASE + "f.xml")


def test_lane_counts_entries_past_the_limit(tmp_path: Path) -> None:
    """too-many-entries is named at the 50,001st entry, inside what would be a block."""
    body = "\n".join(f"<url><loc>{BASE}{i}</loc></url>" for i in range(50_003))
    path = tmp_path / "many.xml"
    path.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}">\n{body}\n</urlset>'
    )
    report = validate([str(path)], sitemap_url=BASE + "many.xml", now=NOW)
    assert [(f.code, f.line) for f in report.findings if f.code == "too-many-entries"] == [
        ("too-many-entries", 50_003)
    ]
    same_findings([path], BASE + "many.xml")


def test_lane_keeps_uniform_lastmods_and_first_positions(tmp_path: Path) -> None:
    """Set-level notes that name a first position: uniform lastmod, hints, no x-default."""
    rows = [
        f"<url><loc>{BASE}{i}</loc><lastmod>2024-01-01</lastmod><priority>0.5</priority>"
        f'<xhtml:link rel="alternate" hreflang="en" href="{BASE}{i}"/></url>'
        for i in range(400)
    ]
    path = tmp_path / "u.xml"
    path.write_text(render(rows, "pretty", None))
    report = validate([str(path)], sitemap_url=BASE + "u.xml", now=NOW)
    codes = {f.code for f in report.findings}
    assert {"lastmod-uniform", "hint-ignored", "hreflang-no-default"} <= codes
    same_findings([path], BASE + "u.xml")


@pytest.mark.parametrize("layout", ["line", "pretty"])
def test_a_few_findings_in_a_large_block(tmp_path: Path, layout: str) -> None:
    """Duplicates and future dates among thousands of clean entries: the same findings
    (halved blocks keep their positions), and in-file duplicates name the first line."""
    soon = (NOW + timedelta(days=30)).date().isoformat()
    rows = []
    for i in range(3000):
        loc = f"{BASE}p/{i % 2900}"  # the last hundred repeat earlier ones
        lastmod = soon if i % 701 == 0 else "2024-01-02"
        rows.append(f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod></url>")
    path = tmp_path / "some.xml"
    path.write_text(render(rows, layout, None))
    report = validate([str(path)], sitemap_url=BASE + "some.xml", now=NOW)
    dups = [f for f in report.findings if f.code == "loc-duplicate"]
    assert len(dups) == 100
    assert len([f for f in report.findings if f.code == "lastmod-future"]) == 5
    if layout == "line":
        assert dups[0].line == 2903
        assert dups[0].message.endswith("(first at line 3)")
    same_findings([path], BASE + "some.xml")


def test_findings_across_files_in_large_blocks(tmp_path: Path) -> None:
    """A second file repeating some locs of the first, among dates in the future: the
    clean runs between are still recorded in bulk, the rest found as nodes find them."""
    soon = (NOW + timedelta(days=30)).date().isoformat()

    def rows(start: int) -> list[str]:
        out = []
        for i in range(start, start + 3000):
            loc = f"{BASE}p/{i - 2990 if i % 97 == 0 and i >= 3000 else i}"
            lastmod = soon if i % 1009 == 0 else "2024-01-02"
            out.append(f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod></url>")
        return out

    (tmp_path / "a.xml").write_text(render(rows(0), "line", None))
    (tmp_path / "b.xml").write_text(render(rows(3000), "line", None))
    (tmp_path / "index.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SM}">\n'
        f"<sitemap><loc>{BASE}a.xml</loc></sitemap>\n"
        f"<sitemap><loc>{BASE}b.xml</loc></sitemap>\n</sitemapindex>\n"
    )
    report = validate([str(tmp_path / "index.xml")], sitemap_url=BASE + "index.xml", now=NOW)
    codes = [f.code for f in report.findings]
    assert codes.count("loc-duplicate") == 31
    assert codes.count("lastmod-future") == 6
    same_findings([tmp_path / "index.xml"], BASE + "index.xml")


def test_blocks_say_whether_they_may_hold_deprecated_image_children() -> None:
    def blocks(kid: str) -> list[Block]:
        rows = [
            f"<url><loc>{BASE}{i}</loc><image:image><image:loc>https://cdn.example.com/{i}.jpg"
            f"</image:loc>{kid if i == 7 else ''}</image:image></url>"
            for i in range(20)
        ]
        parser = XmlStreamParser(strict=lambda facts: build_lane(facts.namespaces, BASE))
        parser.feed(render(rows, "line", None).encode(), final=True)
        return [b for b in parser.out if isinstance(b, Block)]

    assert [b.deprecated for b in blocks("")] == [False]
    assert [b.deprecated for b in blocks("<image:title>Brass</image:title>")] == [True]


def test_a_set_binding_ever_new_prefixes_stops_building_lanes(tmp_path: Path) -> None:
    """Each kind of lane is a regex to compile: past MAX_LANE_KINDS the files are read as
    nodes (hostile sets cannot make the validator compile thousands), same findings."""
    names = []
    for k in range(MAX_LANE_KINDS + 6):
        name = f"s{k}.xml"
        names.append(name)
        (tmp_path / name).write_text(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{SM}" '
            f'xmlns:i{k}="http://www.google.com/schemas/sitemap-image/1.1">\n'
            f"<url><loc>{BASE}{k}</loc><i{k}:image><i{k}:loc>https://cdn.example.com/{k}.jpg"
            f"</i{k}:loc></i{k}:image></url>\n<url><loc>{BASE}0</loc></url>\n</urlset>\n"
        )
    (tmp_path / "index.xml").write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{SM}">\n'
        + "".join(f"<sitemap><loc>{BASE}{n}</loc></sitemap>\n" for n in names)
        + "</sitemapindex>\n"
    )
    report = validate([str(tmp_path / "index.xml")], sitemap_url=BASE + "index.xml", now=NOW)
    assert report.entries == 2 * len(names)
    assert sum(f.code == "loc-duplicate" for f in report.findings) == len(names)
    same_findings([tmp_path / "index.xml"], BASE + "index.xml")


def test_bulk_line_ends_when_the_hash_is_only_found_across_slots() -> None:
    """``-1 % 8 == 7``: the old loop searched again from the start for ever.

    Run in a child process with a timeout, so the old code fails instead of hanging.
    """
    code = (
        "from array import array\n"
        "from sitemapkit.validate.state import DocState\n"
        "from sitemapkit.validate.validator import Validator\n"
        "st = DocState()\n"
        "h = 0x0102030405060708\n"
        "needle = h.to_bytes(8, 'little', signed=True)\n"
        "st.order = bytearray(b'\\0\\0\\0' + needle + b'\\0\\0\\0\\0\\0')  # only unaligned\n"
        "st.blocks.append((0, 1, True))\n"
        "print(Validator._bulk_line(st, h))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=20, check=True
    )
    assert done.stdout.strip() == "None"
