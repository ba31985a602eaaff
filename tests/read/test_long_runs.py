"""Issue 16 item 11 (reader side): a huge line, a gzip of one long line and a huge attribute
are refused as soon as the cap is passed, in flat memory (tracemalloc peak, not wall time).

Before the fix a text line was joined chunk by chunk to its growing tail (quadratic time,
memory the size of the line) and expat rescanned an unfinished tag on every feed.
"""

from __future__ import annotations

import gzip
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from sitemapkit.cli import main
from sitemapkit.limits import MAX_RUN_BYTES
from sitemapkit.model import Finding
from sitemapkit.read.reader import iter_sourced
from sitemapkit.validate.validator import validate

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
#: several times the cap, so "memory the size of the line" and "flat" are far apart
SIZE = 24 * MAX_RUN_BYTES
#: what reading may hold at once: chunks, one held line under the cap, parser buffers
FLAT = 6 * MAX_RUN_BYTES


def _peak(fn: Callable[[], object]) -> tuple[object, int]:
    tracemalloc.start()
    try:
        got = fn()
        return got, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _read(path: str) -> tuple[list[str], list[Finding]]:
    log: list[Finding] = []
    return [e.entry.loc for e in iter_sourced(path, log=log)], log


def _long_text(tmp_path: Path, gz: bool) -> str:
    body = b"https://e.com/a\nhttps://e.com/" + b"x" * SIZE + b"\nhttps://e.com/b\n"
    path = tmp_path / ("long.txt.gz" if gz else "long.txt")
    path.write_bytes(gzip.compress(body, 1) if gz else body)
    return str(path)


@pytest.mark.parametrize("gz", [False, True], ids=["text", "gzip"])
def test_long_text_line_is_skipped_in_flat_memory(tmp_path: Path, gz: bool) -> None:
    path = _long_text(tmp_path, gz)
    (locs, log), peak = _peak(lambda: _read(path))
    assert locs == ["https://e.com/a", "https://e.com/b"]  # nothing after the line is lost
    assert [(f.code, f.line) for f in log if f.code.startswith("limit")] == [("limit-run-bytes", 2)]
    assert peak < FLAT, f"peak {peak:,} bytes for a {SIZE:,}-byte line"
    rep = validate([path])
    assert [(f.code, f.line) for f in rep.findings if f.severity.value == "error"] == [
        ("limit-run-bytes", 2)
    ]
    assert rep.entries == 2


def test_long_text_line_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _long_text(tmp_path, False)
    assert main(["urls", path]) == 1
    out, err = capsys.readouterr()
    assert out == "https://e.com/a\nhttps://e.com/b\n"
    assert f"{path}:2:1: error limit-run-bytes: line longer than {MAX_RUN_BYTES:,} bytes" in err


def test_huge_attribute_stops_at_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "attr.xml"
    with path.open("wb") as fh:
        fh.write(f'<urlset {NS}>\n<url><loc>https://e.com/a</loc></url>\n<url a="'.encode())
        for _ in range(SIZE // MAX_RUN_BYTES):
            fh.write(b"v" * MAX_RUN_BYTES)
        fh.write(b'"><loc>https://e.com/b</loc></url></urlset>\n')
    (locs, log), peak = _peak(lambda: _read(str(path)))
    assert locs == ["https://e.com/a"]
    assert [(f.code, f.line) for f in log if f.severity.value == "error"] == [
        ("limit-run-bytes", 3)
    ]
    assert peak < FLAT, f"peak {peak:,} bytes for a {SIZE:,}-byte attribute"
    assert "limit-run-bytes" in {f.code for f in validate([str(path)]).findings}


def test_long_text_inside_xml_is_not_a_tag(tmp_path: Path) -> None:
    """Text is reported piece by piece by expat: a long loc is no tag and stays linear;
    it is left out by the loc rule (see test_reader_gaps), not stopped here."""
    path = tmp_path / "loc.xml"
    long = "https://e.com/" + "x" * (2 * MAX_RUN_BYTES)
    path.write_text(
        f"<urlset {NS}><url><loc>{long}</loc></url><url><loc>https://e.com/b</loc></url></urlset>",
        encoding="utf-8",
    )
    locs, log = _read(str(path))
    assert locs == ["https://e.com/b"]
    assert [f.code for f in log if f.severity.value == "error"] == ["loc-too-long"]


@pytest.mark.parametrize(
    ("opening", "filler", "closing"),
    [
        ('<url a="', b">" * 1024, '"><loc>https://e.com/b</loc></url>'),
        ("<!-- ", b"> <a> " * 170, " -->"),
        ("<url><loc><![CDATA[", b"]> " * 340, "]]></loc></url>"),
    ],
    ids=["attribute-of-gt", "comment-of-gt", "cdata"],
)
def test_markup_that_hides_gt_is_still_capped(
    tmp_path: Path, opening: str, filler: bytes, closing: str
) -> None:
    """A ``>`` inside an attribute value, a comment or CDATA does not end the markup."""
    path = tmp_path / "hidden.xml"
    with path.open("wb") as fh:
        fh.write(f"<urlset {NS}>\n<url><loc>https://e.com/a</loc></url>\n{opening}".encode())
        for _ in range(SIZE // len(filler)):
            fh.write(filler)
        fh.write(f"{closing}</urlset>\n".encode())
    (locs, log), peak = _peak(lambda: _read(str(path)))
    assert locs == ["https://e.com/a"]
    assert [(f.code, f.line) for f in log if f.severity.value == "error"] == [
        ("limit-run-bytes", 3)
    ]
    assert peak < FLAT, f"peak {peak:,} bytes"


def test_open_markup_across_pieces() -> None:
    from sitemapkit.read.markup import OpenMarkup

    def sizes(*pieces: bytes) -> list[int]:
        open_ = OpenMarkup()
        return [open_.feed(p) for p in pieces]

    pieces = (b'<a x="1>2">text', b'more<b y="', b">>>>", b'">ok<!-- > ', b"x>", b"--", b">z")
    assert sizes(*pieces) == [0, 6, 10, 7, 9, 11, 0]
    assert sizes(b"<![CDATA[ > ]] ", b"]]", b">tail<?pi x", b"?", b">") == [15, 17, 6, 7, 0]
    assert sizes(b"<url><loc>https://e.com/</loc></url>\n" * 100) == [0]
