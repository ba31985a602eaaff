"""Input readers: text, CSV, JSON Lines; format detection; honest line numbers."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from sitemapkit.errors import InputError
from sitemapkit.model import (
    Alternate,
    Image,
    News,
    UrlEntry,
    Video,
    VideoPlatform,
    VideoRestriction,
)
from sitemapkit.write.inputs import detect_format, open_input, read_entries
from sitemapkit.write.jsonmodel import entry_from_json, entry_to_json


def parse(data: bytes, name: str = "-", fmt: str | None = None) -> list[tuple[int, object]]:
    return list(read_entries(io.BytesIO(data), name, fmt))


def test_text_lines_comments_blanks_and_numbers() -> None:
    data = b"\xef\xbb\xbf# urls\n\nhttps://a.example/\n  https://a.example/b  \n"
    data += b"https://a.example/x y\n"
    out = parse(data)
    assert out[:2] == [(3, UrlEntry("https://a.example/")), (4, UrlEntry("https://a.example/b"))]
    number, error = out[2]
    assert number == 5
    assert isinstance(error, InputError)
    assert error.rule == "text-line-invalid"


def test_text_bad_utf8_is_a_line_error() -> None:
    out = parse(b"https://a.example/\nhttps://a.example/\xff\n")
    assert out[1][0] == 2
    assert isinstance(out[1][1], InputError)


def test_csv_with_header_and_quotes() -> None:
    data = (
        b"# exported\nloc,lastmod,changefreq,priority\n"
        b'https://a.example/,2024-01-01,daily,0.5\n"https://a.example/q?a=1,2",,,\n'
        b"\nhttps://a.example/z,2024-01-02\n"
    )
    out = parse(data, "x.csv")
    assert out[0] == (3, UrlEntry("https://a.example/", "2024-01-01", "daily", "0.5"))
    assert out[1] == (4, UrlEntry("https://a.example/q?a=1,2"))
    number, error = out[2]
    assert number == 6
    assert isinstance(error, InputError)
    assert "2 fields" in str(error)


def test_csv_url_alias_and_unknown_columns() -> None:
    assert parse(b"URL\nhttps://a.example/\n", "x.csv") == [(2, UrlEntry("https://a.example/"))]
    with pytest.raises(InputError, match="unknown: last_modified"):
        parse(b"loc,last_modified\nhttps://a.example/,2024\n", "x.csv")
    with pytest.raises(InputError, match="loc required"):
        parse(b"lastmod\n2024-01-01\n", "x.csv")


def test_jsonl_full_model_round_trip() -> None:
    entry = UrlEntry(
        "https://a.example/v",
        lastmod="2024-01-01",
        changefreq="daily",
        priority=0.5,
        images=(Image("https://a.example/i.png", caption="c"),),
        videos=(
            Video(
                "https://a.example/t.jpg",
                "T",
                "D",
                content_loc="https://a.example/v.mp4",
                duration=5,
                rating=4.5,
                tags=("a", "b"),
                family_friendly=True,
                restriction=VideoRestriction("allow", ("US", "GB")),
                platform=VideoPlatform("deny", ("tv",)),
                live=False,
            ),
        ),
        news=News("Times", "en", "2024-01-01", "Title"),
        alternates=(Alternate("en", "https://a.example/v"),),
    )
    line = entry_to_json(entry)
    assert entry_from_json(json.loads(line)) == entry
    out = parse((line + "\n\n" + '"https://a.example/s"\n{"loc": 5}\nnot json\n').encode())
    assert out[0] == (1, entry)
    assert out[1] == (3, UrlEntry("https://a.example/s"))
    assert [n for n, e in out[2:] if isinstance(e, InputError)] == [4, 5]


def test_jsonl_unknown_fields_are_errors() -> None:
    with pytest.raises(InputError, match="unknown entry field"):
        entry_from_json({"loc": "https://a.example/", "lastmodified": "2024"})
    with pytest.raises(InputError, match="unknown video field"):
        entry_from_json({"loc": "https://a.example/", "videos": [{"thumbnail": "x"}]})


def test_format_detection() -> None:
    assert detect_format("a.csv", b"") == "csv"
    assert detect_format("a.jsonl", b"") == "jsonl"
    assert detect_format("-", b'{"loc": "x"}') == "jsonl"
    assert detect_format("-", b"loc,lastmod") == "csv"
    assert detect_format("-", b"https://a.example/,x") == "txt"
    assert detect_format("urls", b"https://a.example/") == "txt"
    # detection on an unseekable stream keeps every line
    out = parse(b"\n# c\nloc,lastmod\nhttps://a.example/,2024-01-01\n")
    assert out == [(4, UrlEntry("https://a.example/", "2024-01-01"))]


def test_explicit_format_and_unknown_format() -> None:
    assert parse(b"loc\n", fmt="txt") == [(1, UrlEntry("loc"))]
    with pytest.raises(InputError):
        parse(b"", fmt="xml")


def test_open_input_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot open"):
        open_input(str(tmp_path / "missing.txt"))


def test_a_stray_csv_quote_is_an_error_at_its_line_and_loses_nothing() -> None:
    rows = [f"https://a.example/{i},2024-01-01" for i in range(1000)]
    rows[10] = '"https://a.example/10,2024-01-01'  # a quote opens a field and never closes
    rows[20] = 'https://a.example/20,"2024-01-01"x'  # text after a closing quote
    out = parse(("loc,lastmod\n" + "\n".join(rows) + "\n").encode(), "x.csv")
    errors = [(n, e) for n, e in out if isinstance(e, InputError)]
    assert [n for n, _ in errors] == [12, 22]
    assert (
        str(errors[0][1])
        == 'a quoted field does not end on its line (a stray "?); a row is one line'
    )
    assert errors[0][1].rule == "csv-invalid"
    good = [e for _, e in out if isinstance(e, UrlEntry)]
    assert len(good) == 998
    assert good[-1] == UrlEntry("https://a.example/999", "2024-01-01")


def test_a_quoted_field_over_a_line_break_is_an_error() -> None:
    data = b'loc,lastmod\n"https://a.example/a\nb",2024-01-01\nhttps://a.example/c,\n'
    out = parse(data, "x.csv")
    assert [n for n, e in out if isinstance(e, InputError)] == [2]
    # the rest of the broken row is a row of its own (the writer refuses its loc)
    assert out[1:] == [(3, UrlEntry('b"', "2024-01-01")), (4, UrlEntry("https://a.example/c"))]


@pytest.mark.parametrize("fmt", ["txt", "csv", "jsonl"])
def test_a_line_over_the_cap_is_refused_and_the_next_lines_are_read(
    fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sitemapkit.write import lines

    monkeypatch.setattr(lines, "BLOCK", 64)  # the long line spans many reads
    head = {"txt": b"", "csv": b"loc\n", "jsonl": b""}[fmt]
    first = 2 if fmt == "csv" else 1
    long = b"https://a.example/" + b"x" * 5000
    after = b'"https://a.example/after"' if fmt == "jsonl" else b"https://a.example/after"
    data = head + long + b"\n" + after + b"\n"
    stream = io.BytesIO(data)
    source = open_source_for_test(stream, fmt, cap=1000)
    assert source == [
        (first, "line longer than 1,000 bytes; skipped up to its end"),
        (first + 1, UrlEntry("https://a.example/after")),
    ]


def open_source_for_test(stream: io.BytesIO, fmt: str, cap: int) -> list[tuple[int, object]]:
    from sitemapkit.write import inputs
    from sitemapkit.write.lines import Lines

    out: list[tuple[int, object]] = []
    cls = {"txt": inputs.TextSource, "csv": inputs.CsvSource, "jsonl": inputs.JsonlSource}[fmt]
    source = cls(Lines(stream, cap=cap), "x", lambda n, e: out.append((n, str(e))))
    for item in source:
        out.append((source.line, inputs.as_entry(item)))
    return out


def test_text_fast_and_slow_blocks_agree_on_entries_errors_and_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every kind of line, read in blocks so small that each block takes one path or the other."""
    from sitemapkit.write import lines

    kinds = [
        b"https://a.example/p",
        b"",
        b"# comment",
        b"  https://a.example/trim  ",
        b"https://a.example/x y",
        b"https://a.example/\xff",
        b"https://a.example/crlf\r",
        b"https://a.example/caf\xc3\xa9",
        b"https://a.example/tab\t",
        b"https://a.example/\x1cfs",
    ]
    rng = __import__("random").Random(7)
    data = b"\n".join(rng.choice(kinds) + str(i).encode() for i in range(3000)) + b"\n"
    expected = parse(data, fmt="txt")  # one block: the reference
    for block in (7, 64, 500, 4096):
        monkeypatch.setattr(lines, "BLOCK", block)
        got = parse(data, fmt="txt")
        assert [(n, type(e), str(e)) for n, e in got] == [
            (n, type(e), str(e)) for n, e in expected
        ], block
    assert len({type(e) for _, e in expected}) == 2


def test_jsonl_short_objects_read_as_the_model_reads_them() -> None:
    lines = [
        {"loc": "https://a.example/1"},
        {"loc": "https://a.example/2", "lastmod": "2024-01-01"},
        {"loc": "https://a.example/3", "lastmod": None},
        {"loc": 5},
        {"href": "https://a.example/4"},  # a typo: refused ({"url"} is sitemap.js's spelling)
        {"loc": "https://a.example/5", "priority": 0.5},
    ]
    data = "\n".join(json.dumps(x) for x in lines).encode() + b"\n"
    got = parse(data, fmt="jsonl")
    assert got[:3] == [
        (1, UrlEntry("https://a.example/1")),
        (2, UrlEntry("https://a.example/2", "2024-01-01")),
        (3, UrlEntry("https://a.example/3")),
    ]
    assert [(n, type(e)) for n, e in got[3:]] == [(4, InputError), (5, InputError), (6, UrlEntry)]
    assert got[5][1] == UrlEntry("https://a.example/5", priority=0.5)
