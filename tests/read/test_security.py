"""Hostile input: each attack ends in one clear finding, in bounded time and memory."""

from __future__ import annotations

import gzip
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web

from sitemapdata.reader_http import SiteServer
from sitemapkit.read.source import ReadLimits
from sitemapkit.validate.validator import validate

HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


@pytest.fixture
def site() -> Iterator[SiteServer]:
    server = SiteServer().start()
    yield server
    server.stop()


def _codes(rep) -> list[str]:
    return [f.code for f in rep.findings]


_CHILD = """
import sys
from pathlib import Path
from sitemapkit.cli import main
rc = main(sys.argv[1:])
hwm = [l for l in Path("/proc/self/status").read_text().splitlines() if l.startswith("VmHWM")]
print("VMHWM", hwm[0].split()[1] if hwm else 0)
sys.exit(rc)
"""


def _run_cli(*args: str) -> tuple[int, str, int]:
    """Run the CLI in a child; return (exit code, output, its peak RSS in KB).

    The peak is the child's own VmHWM: ru_maxrss of a forked child also counts
    the parent's pages at fork time, which says nothing about our reader.
    """
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, *args], capture_output=True, text=True, check=False
    )
    out = proc.stdout + proc.stderr
    peak = int(out.rsplit("VMHWM", 1)[1].split()[0])
    return proc.returncode, out, peak


def test_billion_laughs_is_refused(tmp_path: Path) -> None:
    refs = ["lol"] + [f"&l{i - 1};" * 10 for i in range(1, 10)]
    lol = "".join(f'<!ENTITY l{i} "{ref}">' for i, ref in enumerate(refs))
    path = tmp_path / "lol.xml"
    path.write_text(
        f"{HEAD}<!DOCTYPE urlset [{lol}]>\n<urlset {NS}><url><loc>&l9;</loc></url></urlset>"
    )
    rep = validate([str(path)])
    assert _codes(rep) == ["xml-doctype"]
    assert rep.findings[0].line == 2


def test_external_entity_is_never_fetched(tmp_path: Path, site: SiteServer) -> None:
    site.body("/secret.txt", "https://example.com/leaked")
    path = tmp_path / "xxe.xml"
    path.write_text(
        f'{HEAD}<!DOCTYPE urlset [<!ENTITY e SYSTEM "{site.url("/secret.txt")}">]>\n'
        f"<urlset {NS}><url><loc>&e;</loc></url></urlset>"
    )
    rep = validate([str(path)])
    assert _codes(rep) == ["xml-doctype"]
    assert site.hits == {}


def test_external_dtd_is_never_fetched(tmp_path: Path, site: SiteServer) -> None:
    site.body("/evil.dtd", '<!ENTITY e "x">')
    path = tmp_path / "dtd.xml"
    path.write_text(
        f'{HEAD}<!DOCTYPE urlset SYSTEM "{site.url("/evil.dtd")}">\n'
        f"<urlset {NS}><url><loc>https://example.com/</loc></url></urlset>"
    )
    rep = validate([str(path)])
    assert _codes(rep) == ["xml-doctype"]
    assert site.hits == {}


def test_undeclared_entity_is_malformed_not_expanded(tmp_path: Path) -> None:
    path = tmp_path / "ent.xml"
    path.write_text(f"{HEAD}<urlset {NS}>\n<url><loc>&nbsp;</loc></url></urlset>")
    rep = validate([str(path)])
    assert [(f.code, f.line) for f in rep.findings] == [("xml-malformed", 3)]


def _bomb(path: Path, megabytes: int) -> None:
    z = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    with path.open("wb") as fh:
        fh.write(z.compress(f"{HEAD}<urlset {NS}>".encode()))
        block = b" " * (1 << 20)
        for _ in range(megabytes):
            fh.write(z.compress(block))
        fh.write(z.compress(b"</urlset>"))
        fh.write(z.flush())


def test_gzip_bomb_stops_at_the_cap(tmp_path: Path) -> None:
    path = tmp_path / "bomb.xml.gz"
    _bomb(path, 64)
    assert path.stat().st_size < 200_000
    rep = validate([str(path)], limits=ReadLimits(max_decompressed_bytes=8 << 20))
    (f,) = [f for f in rep.findings if f.code == "limit-decompressed-bytes"]
    assert "max-decompressed-bytes" in f.message
    assert "8,388,608" in f.message


@pytest.mark.slow
def test_gzip_bomb_default_cap_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "bomb.xml.gz"
    _bomb(path, 300)  # 300 MB inflated, over the 200 MB default cap
    code, out, rss_kb = _run_cli("validate", str(path))
    assert code == 1
    assert "limit-decompressed-bytes" in out
    assert rss_kb < 150_000, f"peak RSS {rss_kb} KB"


def test_truncated_gzip(tmp_path: Path) -> None:
    data = gzip.compress(
        f"{HEAD}<urlset {NS}><url><loc>https://e.com/</loc></url></urlset>".encode()
    )
    path = tmp_path / "cut.xml.gz"
    path.write_bytes(data[: len(data) // 2])
    rep = validate([str(path)])
    assert "gzip-invalid" in _codes(rep)


def test_gzip_declaring_2gb_in_its_trailer(tmp_path: Path) -> None:
    data = bytearray(gzip.compress(f"{HEAD}<urlset {NS}></urlset>".encode()))
    data[-4:] = (2**31).to_bytes(4, "little")
    path = tmp_path / "liar.xml.gz"
    path.write_bytes(bytes(data))
    rep = validate([str(path)])
    assert "gzip-invalid" in _codes(rep)


def test_http_body_declaring_2gb_is_not_read(site: SiteServer) -> None:
    async def huge(_r: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Length": str(2 * 1024**3)})
        await resp.prepare(_r)
        await resp.write(HEAD.encode())
        return resp

    site.routes["/huge.xml"] = huge
    rep = validate([site.url("/huge.xml")])
    (f,) = rep.findings
    assert f.code == "limit-download-bytes"
    assert "2,147,483,648" in f.message


def test_http_body_over_the_download_cap(site: SiteServer) -> None:
    site.body("/big.xml", f"{HEAD}<urlset {NS}>" + " " * 300_000 + "</urlset>")
    rep = validate([site.url("/big.xml")], limits=ReadLimits(max_download_bytes=100_000))
    assert _codes(rep) == ["limit-download-bytes"]


def test_deep_nesting_is_capped(tmp_path: Path) -> None:
    path = tmp_path / "deep.xml"
    path.write_text(
        f"{HEAD}<urlset {NS}><url>" + "<a>" * 100_000 + "</a>" * 100_000 + "</url></urlset>"
    )
    rep = validate([str(path)])
    assert _codes(rep) == ["limit-xml-depth"]


def test_index_cycle_over_http(site: SiteServer) -> None:
    def index(target: str) -> str:
        return (
            f"{HEAD}<sitemapindex {NS}>\n<sitemap><loc>{site.url(target)}</loc></sitemap>\n"
            "</sitemapindex>"
        )

    site.body("/a.xml", index("/b.xml"))
    site.body("/b.xml", index("/a.xml"))
    rep = validate([site.url("/a.xml")])
    cycles = [f for f in rep.findings if f.code == "index-cycle"]
    assert len(cycles) == 1
    assert cycles[0].source == site.url("/b.xml")
    assert cycles[0].line == 3
    assert site.hits == {"/a.xml": 1, "/b.xml": 1}


def test_index_depth_cap(site: SiteServer) -> None:
    for i in range(8):
        site.body(
            f"/i{i}.xml",
            f"{HEAD}<sitemapindex {NS}>\n<sitemap><loc>"
            f"{site.url(f'/i{i + 1}.xml')}</loc></sitemap>\n</sitemapindex>",
        )
    rep = validate([site.url("/i0.xml")], limits=ReadLimits(max_index_depth=3))
    assert "limit-index-depth" in _codes(rep)
    assert "/i5.xml" not in site.hits


def test_sitemaps_followed_cap(site: SiteServer) -> None:
    kids = "".join(f"<sitemap><loc>{site.url(f'/s{i}.xml')}</loc></sitemap>\n" for i in range(5))
    site.body("/index.xml", f"{HEAD}<sitemapindex {NS}>\n{kids}</sitemapindex>")
    for i in range(5):
        site.body(
            f"/s{i}.xml", f"{HEAD}<urlset {NS}><url><loc>{site.url(f'/p{i}')}</loc></url></urlset>"
        )
    rep = validate([site.url("/index.xml")], limits=ReadLimits(max_sitemaps=2))
    assert _codes(rep).count("limit-sitemaps-followed") == 1
    assert sum(1 for p in site.hits if p.startswith("/s")) == 2


def test_timeout_is_a_named_limit(site: SiteServer) -> None:
    import asyncio

    async def slow(_r: web.Request) -> web.Response:
        await asyncio.sleep(1.5)
        return web.Response(text="late")

    site.routes["/slow.xml"] = slow
    rep = validate([site.url("/slow.xml")], limits=ReadLimits(timeout=0.3))
    assert _codes(rep) == ["limit-timeout"]
    assert rep.unreadable


def test_slow_drip_body_hits_the_timeout(site: SiteServer) -> None:
    import asyncio

    async def drip(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse()
        await resp.prepare(request)
        await resp.write(f"{HEAD}<urlset {NS}>".encode())
        try:
            for _ in range(30):
                await asyncio.sleep(0.1)
                await resp.write(b" ")
        except ConnectionError:
            pass
        return resp

    site.routes["/drip.xml"] = drip
    rep = validate([site.url("/drip.xml")], limits=ReadLimits(timeout=0.5))
    assert _codes(rep) == ["limit-timeout"]
