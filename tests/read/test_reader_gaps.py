"""Reader gaps found by other projects' test suites (issue 10 item 5) and by hostile probes
(issue 16 items 12, 13, 14): each case failed on the code before the fix."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from sitemapkit.cli import main
from sitemapkit.limits import MAX_LISTED_FINDINGS, MAX_TEXT_CHARS
from sitemapkit.model import Finding
from sitemapkit.read.reader import iter_locs, iter_sourced
from sitemapkit.validate.validator import validate

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'


def _write(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(text, encoding="utf-8")
    else:
        path.write_bytes(text)
    return str(path)


def _urls(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["urls", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _read(path: str) -> tuple[list[str], list[Finding]]:
    log: list[Finding] = []
    locs = [e.entry.loc for e in iter_sourced(path, log=log)]
    return locs, log


ATOM03 = """<?xml version="1.0" encoding="utf-8"?>
<feed version="0.3" xmlns="http://purl.org/atom/ns#">
  <title>Example</title>
  <entry>
    <title>First</title>
    <link rel="alternate" type="text/html" href="http://example.org/2005/one"/>
    <modified>2005-07-31T12:29:29Z</modified>
  </entry>
  <entry>
    <link rel="alternate" type="text/html" href="http://example.org/2005/two"/>
    <issued>2005-07-30T10:00:00Z</issued>
  </entry>
</feed>
"""


def test_atom_03_feed_is_read(tmp_path: Path) -> None:
    path = _write(tmp_path, "atom03.xml", ATOM03)
    log: list[Finding] = []
    entries = [e.entry for e in iter_sourced(path, log=log)]
    assert [e.loc for e in entries] == [
        "http://example.org/2005/one",
        "http://example.org/2005/two",
    ]
    assert [e.lastmod for e in entries] == ["2005-07-31T12:29:29Z", "2005-07-30T10:00:00Z"]
    assert not [f for f in log if f.severity.value == "error"]
    rep = validate([path])
    assert rep.entries == 2
    assert rep.errors == 0


def test_feed_in_unknown_namespace_is_root_unknown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(
        tmp_path,
        "feed.xml",
        '<feed xmlns="http://example.com/not-atom"><entry>'
        '<link href="http://example.org/a"/></entry></feed>',
    )
    locs, log = _read(path)
    assert locs == []
    assert [f.code for f in log] == ["root-unknown"]
    assert 'namespace "http://example.com/not-atom"' in log[0].message
    assert [f.code for f in validate([path]).findings] == ["root-unknown"]
    code, out, err = _urls(capsys, path)
    assert (code, out) == (1, "")
    assert "error root-unknown" in err


def test_non_http_locs_are_noted_and_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "".join(
        f"<url><loc>{loc}</loc></url>\n"
        for loc in ("https://e.com/a", "javascript:alert(1)", "file:///etc/passwd", "/rel")
    )
    path = _write(tmp_path, "s.xml", f"{HEAD}<urlset {NS}>\n{body}</urlset>\n")
    for args in ([path], ["--format", "jsonl", path]):
        code, out, err = _urls(capsys, *args)
        assert code == 1
        assert "javascript:" not in out
        assert "file:" not in out
        assert "/rel" not in out
        assert "https://e.com/a" in out
        lines = err.splitlines()
        assert len(lines) == 3
        assert all("loc-not-absolute" in line for line in lines)
        assert f"{path}:4: error loc-not-absolute" in lines[0]


def test_text_file_findings_are_capped_like_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    n = MAX_LISTED_FINDINGS + 2_500
    path = _write(tmp_path, "urls.txt", "https://e.com/a\n" + "not a url\n" * n)
    code, out, err = _urls(capsys, path)
    assert (code, out) == (1, "https://e.com/a\n")
    lines = err.splitlines()
    assert len(lines) == MAX_LISTED_FINDINGS + 1
    assert lines[-1].endswith(
        f"and 2,500 more text-line-invalid findings in this file "
        f"(only the first {MAX_LISTED_FINDINGS:,} are listed)"
    )
    rep = validate([path])
    listed = [f for f in rep.findings if f.code == "text-line-invalid"]
    assert len(listed) == MAX_LISTED_FINDINGS + 1
    assert listed[-1].message == lines[-1].split("text-line-invalid: ", 1)[1]


def test_validate_counts_only_url_lines_as_entries(tmp_path: Path) -> None:
    path = _write(tmp_path, "urls.txt", "https://e.com/a\nnot a url\nftp://e.com/b\n\n")
    rep = validate([path])
    assert rep.entries == 1
    assert rep.entries == len(_read(path)[0])


def test_wrong_namespace_url_is_no_entry_for_reader_nor_validator(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "s.xml",
        f'{HEAD}<urlset {NS}>\n<url xmlns=""><loc>https://e.com/a</loc></url>\n</urlset>\n',
    )
    rep = validate([path])
    assert "urlset-empty" in {f.code for f in rep.findings}
    assert rep.entries == 0
    assert _read(path)[0] == []
    assert [loc for b in iter_locs(path) for loc in b] == []


def test_nested_gzip_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    inner = gzip.compress(
        f"{HEAD}<urlset {NS}><url><loc>https://e.com/a</loc></url></urlset>".encode()
    )
    path = _write(tmp_path, "s.xml.gz", gzip.compress(inner))
    code, out, err = _urls(capsys, path)
    assert (code, out) == (1, "")
    assert "error gzip-invalid: is gzip inside gzip (compressed twice)" in err
    assert [f.code for f in validate([path]).findings] == ["gzip-invalid"]


def test_over_long_loc_is_said_not_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long = "https://e.com/" + "a" * MAX_TEXT_CHARS
    body = f"<url><loc>https://e.com/ok</loc></url>\n<url><loc>{long}</loc></url>\n"
    path = _write(tmp_path, "s.xml", f"{HEAD}<urlset {NS}>\n{body}</urlset>\n")
    for args in ([path], ["--format", "csv", path]):
        code, out, err = _urls(capsys, *args)
        assert code == 1
        assert "https://e.com/ok" in out
        assert "aaaa" not in out
        assert f"{path}:4: error loc-too-long: loc of 65,536 characters or more left out" in err
    text = _write(tmp_path, "s.txt", f"https://e.com/ok\n{long}\n")
    code, out, err = _urls(capsys, text)
    assert (code, out) == (1, "https://e.com/ok\n")
    assert f"{text}:2: error loc-too-long" in err


def test_control_characters_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evil = "https://e.com/\x1b]0;pwned\x07\x1b[2J\x9b31m\x00x"
    path = _write(tmp_path, "urls.txt", f"https://e.com/a\n{evil}\n\x1b[31mred line\n")
    code, out, err = _urls(capsys, path)
    for text in (out, err):
        assert not any(ch in text for ch in "\x1b\x07\x9b\x00")
    assert "https://e.com/\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\x00x" in out
    assert "\\x1b[31mred line" in err
    code = main(["validate", path])
    out, err = capsys.readouterr()
    assert code == 1
    assert "\\x1b[31mred line" in out
    assert not any(ch in out + err for ch in "\x1b\x07\x9b\x00")


def test_json_output_escapes_what_terminals_act_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """json.dumps(ensure_ascii=False) escapes C0 but leaves DEL, C1 (CSI \\x9b) and bidi
    controls raw; the JSON printed escapes them too and still reads back the same."""
    import json

    evil = "https://e.com/a\x9b2J\u202e\x7f"
    path = _write(tmp_path, "urls.txt", f"{evil}\nnot a url \x9d\n")
    main(["urls", "--format", "jsonl", path])
    out, _ = capsys.readouterr()
    assert not any(ch in out for ch in "\x9b\u202e\x7f")
    assert json.loads(out)["loc"] == evil
    for fmt in ("json", "sarif"):
        main(["validate", "--format", fmt, path])
        out, _ = capsys.readouterr()
        assert not any(ch in out for ch in "\x9b\x9d\u202e\x7f")
        assert "\\u009d" in out
        json.loads(out)


def _urls_in_each_format(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> list[tuple[int, str, str]]:
    """``(exit code, stdout, stderr)`` of ``sitemapkit urls`` on ``path``, text then JSON Lines."""
    runs = []
    for fmt in ("text", "jsonl"):
        code = main(["urls", "--format", fmt, str(path)])
        out, err = capsys.readouterr()
        runs.append((code, out, err))
    return runs


@pytest.mark.parametrize("lane", ["plain", "extended"])
def test_a_url_without_a_usable_loc_is_said_not_dropped_silently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lane: str
) -> None:
    """``urls`` lists exactly what ``validate`` counts, and says what it leaves out: an
    empty ``<loc>`` and a ``<url>`` with none were dropped without a word, exit 0."""
    ext = "" if lane == "plain" else "<changefreq>daily</changefreq><foo:x xmlns:foo='urn:x'/>"
    body = (
        '<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        f"<url><loc>https://example.com/a</loc>{ext}</url>\n"
        f"<url><loc>  </loc>{ext}</url>\n"
        f"<url><lastmod>2024-01-01</lastmod>{ext}</url>\n"
        f"<url><loc>https://example.com/b</loc>{ext}</url>\n</urlset>\n"
    )
    path = tmp_path / "s.xml"
    path.write_text(body)
    for code, out, err in _urls_in_each_format(path, capsys):
        assert code == 1
        assert out.count("https://example.com/") == 2
        assert f"{path}:4: error loc-not-absolute: loc is empty; left out" in err
        assert f"{path}:5: error loc-missing: <url> has no <loc>; left out" in err


BAD_HOSTS = (
    "http://a..b/",
    "http://.example.com/x",
    "http://example.com:99999/",
    "http://exa%41mple.com/",
)


@pytest.mark.parametrize("lane", ["plain", "extended"])
def test_a_loc_validate_calls_no_url_is_not_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lane: str
) -> None:
    """One rule for "an absolute http(s) URL" (rulebook.loc.is_absolute, the host rule of
    urls.valid_host): ``urls`` listed ``http://a..b/`` while ``validate`` called it
    loc-not-absolute.  Both the loc lane's runs and the per-entry paths are asked."""
    ext = "" if lane == "plain" else "<foo:x xmlns:foo='urn:x'/>"
    good = [f"https://example.com/{i}" for i in range(3)] + ["HTTP://Example.COM./x", "http://h:/"]
    locs = [good[0], *BAD_HOSTS, *good[1:]]
    body = '<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    body += "".join(f"<url><loc>{loc}</loc>{ext}</url>\n" for loc in locs) + "</urlset>\n"
    path = tmp_path / "s.xml"
    path.write_text(body)
    for code, out, err in _urls_in_each_format(path, capsys):
        assert code == 1
        assert [line for line in out.splitlines() if "://" in line] == [
            line for line in out.splitlines() if any(g in line for g in good)
        ]
        assert sum(g in out for g in good) == len(good)
        for bad in BAD_HOSTS:
            assert f'loc-not-absolute: "{bad}" is not an absolute http(s) URL; left out' in err
    report = validate([str(path)])
    flagged = {f.url for f in report.findings if f.code == "loc-not-absolute"}
    assert flagged == set(BAD_HOSTS)


def test_a_text_line_validate_calls_no_url_is_not_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A text sitemap's line is judged by the loc rule too: ``urls`` listed
    ``http://a..b/`` from a .txt while ``validate`` called the line text-line-invalid."""
    good = ["https://example.com/1", "HTTP://Example.COM./x", "http://[::1]/v6"]
    path = _write(tmp_path, "urls.txt", "\n".join([good[0], *BAD_HOSTS, *good[1:]]) + "\n")
    for code, out, err in _urls_in_each_format(Path(path), capsys):
        assert code == 1
        assert sum(g in out for g in good) == len(good)
        assert not any(bad in out for bad in BAD_HOSTS)
        for bad in BAD_HOSTS:
            assert f'text-line-invalid: "{bad}" is not one absolute URL' in err
    report = validate([path])
    assert report.entries == len(good) == len(_read(path)[0])
    assert {f.url for f in report.findings if f.code == "text-line-invalid"} == set(BAD_HOSTS)
