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
