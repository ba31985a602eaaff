"""``sitemapkit build``: exit codes, FILE:LINE messages, stdin, summary, JSON output."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner

from sitemapkit.cli import cli

BASE = "https://example.com/"


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["build", *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_build_text_list(tmp_path: Path, xmllint_urlset: Callable[[Path], None]) -> None:
    src = tmp_path / "urls.txt"
    src.write_text(f"# my pages\n{BASE}\n\n{BASE}about\n{BASE}about\n{BASE}ü\n")
    code, out, err = run(str(src), "-o", str(tmp_path / "out"), "--base-url", BASE)
    assert code == 0, err
    assert "3 URLs" in out
    assert "duplicates: 1" in out
    assert out.rstrip().endswith("Sitemap: https://example.com/sitemap.xml")
    xmllint_urlset(tmp_path / "out" / "sitemap.xml")


def test_bad_lines_stop_before_publishing(tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "sitemap.xml").write_text("previous")
    src = tmp_path / "in.csv"
    lines = ["loc,lastmod", f"{BASE}a,2024-01-01", f"{BASE}b,2024-02-30", "https://other.example/,"]
    lines += [f"{BASE}c{i},yesterday" for i in range(25)]
    src.write_text("\n".join(lines) + "\n")
    code, out, err = run(str(src), "-o", str(out_dir), "--base-url", BASE)
    assert code == 1
    assert out == ""
    messages = err.splitlines()
    assert messages[0] == f'{src}:3: lastmod "2024-02-30" is not a valid W3C date'
    assert messages[1].startswith(f"{src}:4: https://other.example/ is outside")
    assert sum(1 for m in messages if m.startswith(f"{src}:")) == 20
    assert "... and 7 more bad lines" in err
    assert "27 bad line(s); nothing was written" in err
    assert (out_dir / "sitemap.xml").read_text() == "previous"
    assert sorted(p.name for p in out_dir.iterdir()) == ["sitemap.xml"]


def test_skip_invalid_writes_the_rest_and_reports(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text(f"{BASE}a\nnot a url\nftp://x.example/\n{BASE}b\n")
    code, out, err = run(str(src), "-o", str(tmp_path / "o"), "--base-url", BASE, "--skip-invalid")
    assert code == 0, err
    assert "2 URLs" in out
    assert "skipped: 2 (loc-not-absolute: 1, text-line-invalid: 1)" in out
    assert f"{src}:2:" in out
    assert f"{src}:3:" in out


def test_stdin_jsonl_and_json_summary(tmp_path: Path) -> None:
    stdin = "\n".join(
        json.dumps(e)
        for e in [
            {"loc": f"{BASE}a", "lastmod": "2024-01-01", "images": [{"loc": f"{BASE}i.png"}]},
            {"loc": f"{BASE}b", "alternates": [{"hreflang": "en", "href": f"{BASE}b"}]},
            {"loc": f"{BASE}c"},
        ]
    )
    code, out, err = run(
        "-", "-o", str(tmp_path / "o"), "--base-url", BASE, "--max-urls", "2", "--format", "json",
        stdin=stdin,
    )  # fmt: skip
    assert code == 0, err
    summary = json.loads(out)
    assert summary["urls"] == 3
    assert summary["is_index"] is True
    assert summary["robots_line"] == "Sitemap: https://example.com/sitemap.xml"
    assert [Path(f).name for f in summary["files"]] == [
        "sitemap-1.xml",
        "sitemap-2.xml",
        "sitemap.xml",
    ]


def test_stdin_line_numbers_in_errors(tmp_path: Path) -> None:
    code, _, err = run("-", "-o", str(tmp_path / "o"), stdin=f"{BASE}a\n{BASE}b\t{BASE}c\n")
    assert code == 1
    assert err.startswith("<stdin>:2: one URL per line")


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text(f"{BASE}a\n{BASE}b\n{BASE}c\n")
    code, _, err = run(str(src), "-o", str(tmp_path / "o"), "--max-urls", "2")
    assert code == 2
    assert "--base-url" in err
    assert not (tmp_path / "o" / "sitemap.xml").exists()
    assert run(str(src), "-o", str(tmp_path / "o"), "--max-urls", "50001")[0] == 2
    assert run(str(src))[0] == 2
    assert run(str(tmp_path / "missing.txt"), "-o", str(tmp_path / "o"))[0] == 2
    bad_csv = tmp_path / "bad.csv"
    bad_csv.write_text("loc,when\nhttps://example.com/,x\n")
    code, _, err = run(str(bad_csv), "-o", str(tmp_path / "o"))
    assert code == 2
    assert "unknown: when" in err


def test_gzip_and_text_outputs(tmp_path: Path) -> None:
    src = tmp_path / "in.txt"
    src.write_text(f"{BASE}a\n{BASE}b\n")
    code, out, _ = run(str(src), "-o", str(tmp_path / "gz"), "--base-url", BASE, "--gzip")
    assert code == 0
    assert "Sitemap: https://example.com/sitemap.xml.gz" in out
    code, out, _ = run(str(src), "-o", str(tmp_path / "txt"), "--text")
    assert code == 0
    assert (tmp_path / "txt" / "sitemap.txt").read_text() == f"{BASE}a\n{BASE}b\n"
    assert "give --base-url" in out


def test_console_script_reads_stdin(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "build", "-", "-o", str(tmp_path / "o")],
        input=f"{BASE}x\n".encode(),
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "o" / "sitemap.xml").read_text().count("<url>") == 1


def test_progress_bar_runs_on_a_large_file(tmp_path: Path) -> None:
    from sitemapkit.cli.build import _Progress

    src = tmp_path / "big.txt"
    src.write_bytes(b"".join(f"{BASE}p/{i}\n".encode() for i in range(60_000)))
    with src.open("rb") as stream:
        progress = _Progress(stream, enabled=True)
        assert progress._bar is not None
        for _ in stream:
            progress.tick()
        progress.close()
    with src.open("rb") as stream:
        assert _Progress(stream, enabled=False)._bar is None


def test_bad_lines_in_a_bulk_run_are_reported_at_their_lines(tmp_path: Path) -> None:
    """Out-of-scope, unescaped and too-long URLs among 100,000 good ones: each at its line."""
    lines = [f"{BASE}p/{i}" for i in range(100_000)]
    lines[5] = "https://other.example/x"
    lines[70_000] = f"{BASE}caf\u00e9"  # not plain: cleaned, and written
    lines[90_000] = f"{BASE}{'x' * 3000}"
    lines[99_999] = f"{BASE}p/1"  # a duplicate
    src = tmp_path / "urls.txt"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run(str(src), "-o", str(tmp_path / "o"), "--base-url", BASE)
    assert code == 1
    assert [m.split(": ")[0] for m in err.splitlines()[:2]] == [f"{src}:6", f"{src}:90001"]
    code, out, err = run(
        str(src),
        "-o",
        str(tmp_path / "o"),
        "--base-url",
        BASE,
        "--skip-invalid",
        "--format",
        "json",
    )
    assert code == 0, err
    summary = json.loads(out)
    assert summary["urls"] == 100_000 - 3
    assert summary["duplicates"] == 1
    assert summary["skipped"] == {"loc-other-host": 1, "loc-too-long": 1}


def test_bulk_and_entry_by_entry_write_the_same_files(tmp_path: Path) -> None:
    """The same list through the bulk path and with bulk refused by one odd line at the end."""
    urls = [f"{BASE}p/{i % 70_000}?a=1&b='{i}'" for i in range(120_000)]
    plain = tmp_path / "plain.txt"
    plain.write_text("\n".join(urls) + "\n")
    mixed = tmp_path / "mixed.txt"
    mixed.write_text("\n".join(urls) + "\n# a comment sends the last block line by line\n")
    for src, out in ((plain, "a"), (mixed, "b")):
        code, _, err = run(
            str(src), "-o", str(tmp_path / out), "--base-url", BASE, "--max-urls", "40000"
        )
        assert code == 0, err
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "b").iterdir())
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_a_stray_csv_quote_loses_no_row(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    rows = [f"{BASE}r{i},2024-01-01" for i in range(1000)]
    rows[0] = f'"{BASE}r0,2024-01-01'
    src.write_text("loc,lastmod\n" + "\n".join(rows) + "\n")
    code, out, err = run(str(src), "-o", str(tmp_path / "o"), "--base-url", BASE, "--skip-invalid")
    assert code == 0, err
    assert "999 URLs" in out
    assert "skipped: 1 (csv-invalid: 1)" in out
    assert f"{src}:2: a quoted field does not end on its line" in out


HUGE_LINE_CHILD = r"""
import resource, subprocess, sys
size = int(sys.argv[1])
args = [sys.executable, "-m", "sitemapkit", "build", "-", "-o", sys.argv[2],
        "--base-url", "https://example.com/", "--skip-invalid", "--input-format", "txt"]
proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
proc.stdin.write(b"https://example.com/before\n")
chunk = b"x" * (1 << 20)
for _ in range(size >> 20):
    proc.stdin.write(chunk)
proc.stdin.write(b"\nhttps://example.com/after\n")
proc.stdin.close()
out = proc.stdout.read()
proc.wait()
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
print(proc.returncode, peak)
sys.stdout.buffer.write(out)
"""


def test_a_256_mb_line_is_refused_in_flat_memory_and_nothing_after_it_is_lost(
    tmp_path: Path,
) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", HUGE_LINE_CHILD, str(256 << 20), str(tmp_path / "o")],
        capture_output=True,
        check=True,
    )
    first, _, summary = proc.stdout.decode().partition("\n")
    code, peak_mb = map(int, first.split())
    assert code == 0, proc.stderr
    assert peak_mb < 80  # the line alone is 256 MB
    assert "2 URLs" in summary
    assert "skipped: 1 (line-too-long: 1)" in summary
    assert "<stdin>:2: line longer than 4,194,304 bytes" in summary


def test_batched_path_names_the_line_of_each_dropped_annotation(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    rows = [{"loc": f"{BASE}p{i}", "lastmod": "2024-01-01"} for i in range(5000)]
    rows[4000] = {"loc": f"{BASE}bad", "lastmod": "2024-13-01"}
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    code, out, err = run(str(src), "-o", str(tmp_path / "o"), "--base-url", BASE, "--skip-invalid")
    assert code == 0, err
    assert "5,000 URLs" in out
    assert f"lastmod-invalid: {src}:4001: {BASE}bad: lastmod" in out


def test_an_input_without_urls_writes_nothing_and_says_so(tmp_path: Path) -> None:
    """An empty file, a comment-only list, a CSV header alone: no URL to list.  An empty
    ``<urlset>`` fails the sitemaps.org XSD, so nothing is published: exit 1, one line."""
    for name, text in (("empty.txt", ""), ("comments.txt", "# none yet\n\n"), ("h.csv", "loc\n")):
        src = tmp_path / name
        src.write_text(text)
        out_dir = tmp_path / f"out-{name}"
        code, out, err = run(str(src), "-o", str(out_dir))
        assert code == 1, (name, out, err)
        assert out == ""
        lines = err.splitlines()
        assert len(lines) == 1
        assert lines[0].startswith("sitemapkit build: nothing written to ")
        assert "urlset-empty" in lines[0]
        assert not list(out_dir.glob("sitemap*"))


def test_a_gzip_compressed_input_is_read_as_its_text(tmp_path: Path) -> None:
    """``build urls.txt.gz`` reported every line "not UTF-8": the input is now known by its
    gzip magic bytes (file or stdin, whatever its name) and read decompressed; one that
    does not decompress is one line and exit 2, nothing written."""
    import gzip

    text = "".join(f"{BASE}p{i}\n" for i in range(2_000))
    (tmp_path / "urls.txt").write_text(text)
    packed = gzip.compress(text.encode())
    (tmp_path / "urls.txt.gz").write_bytes(packed)
    (tmp_path / "urls.data").write_bytes(packed)
    assert run(str(tmp_path / "urls.txt"), "-o", str(tmp_path / "plain"))[0] == 0
    expected = (tmp_path / "plain" / "sitemap.xml").read_bytes()
    for name in ("urls.txt.gz", "urls.data"):
        code, _, err = run(str(tmp_path / name), "-o", str(tmp_path / f"o-{name}"))
        assert code == 0, err
        assert (tmp_path / f"o-{name}" / "sitemap.xml").read_bytes() == expected
    (tmp_path / "cut.txt.gz").write_bytes(packed[: len(packed) // 2])
    code, _, err = run(str(tmp_path / "cut.txt.gz"), "-o", str(tmp_path / "o-cut"))
    assert code == 2
    assert err.strip().splitlines() == [
        f"sitemapkit build: {tmp_path / 'cut.txt.gz'}: does not decompress as gzip "
        "(Compressed file ended before the end-of-stream marker was reached)"
    ]
    assert not (tmp_path / "o-cut" / "sitemap.xml").exists()


def test_gzip_on_stdin(tmp_path: Path) -> None:
    import gzip

    proc = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "build", "-", "-o", str(tmp_path / "o")],
        input=gzip.compress(f"{BASE}a\n{BASE}b\n".encode()),
        capture_output=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert b"2 URLs" in proc.stdout
