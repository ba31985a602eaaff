"""Every README command on odd inputs: one clear line, the documented exit status.

Found by running the commands on what users meet (issue: "hunt through every README
command with odd inputs"); each test failed before its fix.
"""

from __future__ import annotations

import gzip
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp import web

from crawl.fixture_site import serve_handler
from sitemapkit.cli import main

SM = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _site(sitemaps: int, served: int) -> web.RequestHandler:
    """robots.txt names ``sitemaps`` sitemaps; the first ``served`` of them exist."""

    async def handle(request: web.Request) -> web.Response:
        base = f"http://{request.host}"
        if request.path == "/robots.txt":
            lines = "".join(f"Sitemap: {base}/s{i}.xml\n" for i in range(sitemaps))
            return web.Response(text=f"User-agent: *\n{lines}")
        for i in range(served):
            if request.path == f"/s{i}.xml":
                body = f'<urlset xmlns="{SM}"><url><loc>{base}/p{i}</loc></url></urlset>'
                return web.Response(text=body, content_type="application/xml")
        raise web.HTTPNotFound

    return handle


@pytest.mark.parametrize("command", ["urls", "validate"])
def test_one_missing_sitemap_of_a_site_is_an_error_not_an_unreadable_source(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """robots.txt names three sitemaps and one is a 404: the site (SOURCE) was read and
    two sitemaps listed; the missing one is an error (exit 1), as for an index's child.
    Before, any 404 made the whole run "SOURCE unreadable" (exit 2, for usage errors)."""
    with serve_handler(_site(3, 2)) as port:
        home = f"http://127.0.0.1:{port}/"
        code = main([command, home])
        out, err = capsys.readouterr()
        assert code == 1, (out, err)
        said = err if command == "urls" else out  # validate's report is its output
        assert f"{home}s2.xml: error http-404" in said
        if command == "urls":
            assert out.split() == [f"{home}p0", f"{home}p1"]
        # the SOURCE itself unreadable is still exit 2
        assert main([command, f"{home}s9.xml"]) == 2
        capsys.readouterr()


def test_stdout_closed_by_its_reader_ends_quietly_with_141(tmp_path: Path) -> None:
    """``sitemapkit urls big.xml | head -1``: the reader closes the pipe after one line.
    Before, click turned the broken pipe into a bare exit 1 ("errors found"); now the
    command stops quietly with 141 (128 + SIGPIPE, as a shell reports ``seq | head``),
    no traceback and no "Exception ignored" at exit."""
    urls = tmp_path / "urls.txt"
    urls.write_text("".join(f"https://example.com/page-{i}\n" for i in range(20_000)))
    assert main(["build", str(urls), "-o", str(tmp_path / "out")]) == 0
    # 700 KB of output: far more than a pipe holds, so the write after the close must fail
    proc = subprocess.Popen(
        [sys.executable, "-m", "sitemapkit", "urls", str(tmp_path / "out" / "sitemap.xml")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None
    assert proc.stderr is not None
    assert proc.stdout.readline() == b"https://example.com/page-0\n"
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    assert proc.wait() == 141
    assert err == b""


def test_the_hint_commands_survive_a_folder_with_a_space(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``crawl -o "my site"`` printed ``try: sitemapkit crawl --db my site/crawl.sqlite``:
    pasted into a shell, that is two arguments.  The hint is quoted for the shell now."""

    async def handle(request: web.Request) -> web.Response:
        return web.Response(text="<html><title>t</title></html>", content_type="text/html")

    out = tmp_path / "my site é"
    with serve_handler(handle) as port:
        start = f"http://127.0.0.1:{port}/"
        assert main(["crawl", start, "-o", str(out), "--render", "never"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("crawl db:"))
    hint = line.split("(try: ", 1)[1].removesuffix(")")
    words = shlex.split(hint)
    assert words[words.index("--db") + 1] == str(out / "crawl.sqlite")


@pytest.mark.parametrize("command", ["build", "crawl", "write"])
def test_a_sitemap_set_is_not_written_to_stdout(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``-o -`` created a folder named ``-`` (``-`` is stdout everywhere else): a usage
    error now, before anything is read or fetched."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "urls.txt").write_text("https://example.com/\n")
    given = {"build": ["urls.txt"], "crawl": ["http://127.0.0.1:9/"], "write": ["--db", "x"]}
    assert main([command, *given[command], "-o", "-"]) == 2
    assert "'-' is standard output, which cannot hold a sitemap set" in capsys.readouterr().err
    assert not (tmp_path / "-").exists()


@pytest.mark.parametrize(
    "start", ["http://example.com:99999/", "http://.example.com/", "http://a..b/"]
)
def test_a_start_url_with_a_bad_host_or_port_is_a_usage_error(
    start: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``crawl http://example.com:99999/`` ended in a ValueError traceback (the scope
    rule asked urlsplit for the port); the start URL is checked by the one host rule."""
    assert main(["crawl", start, "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert f'start URL "{start}" has no valid host or port' in err
    assert "Traceback" not in err


@pytest.mark.parametrize("content", [b"", b"  \r\n ", gzip.compress(b"")])
def test_an_empty_file_says_it_is_empty(
    content: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A 0-byte sitemap (or an empty gzip) read "no element found", expat's words for a
    truncated document; it now says the file is empty.  Still xml-malformed, exit 1."""
    path = tmp_path / ("sitemap.xml.gz" if content.startswith(b"\x1f\x8b") else "sitemap.xml")
    path.write_bytes(content)
    assert main(["urls", str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith(f"sitemapkit: {path}:")
    assert err[0].endswith("error xml-malformed: not well-formed XML: the file is empty "
                           "(nothing but whitespace, if anything)")  # fmt: skip
    assert main(["validate", str(path)]) == 1
    assert "the file is empty" in capsys.readouterr().out
