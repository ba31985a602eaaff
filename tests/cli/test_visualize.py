"""``sitemapkit visualize`` end to end: a real crawl database, real sitemaps, URL lists."""

from __future__ import annotations

import gc
import gzip
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from crawl.fixture_site import FixtureSite
from sitemapkit.cli import main
from sitemapkit.visual.sources import detect, iter_records
from sitemapkit.visual.tree import SiteTree


def data_of(path: Path) -> dict[str, object]:
    m = re.search(r'type="application/json">(.*?)</script>', path.read_text("utf-8"), re.S)
    assert m is not None
    return json.loads(m.group(1))  # type: ignore[no-any-return]


@pytest.fixture
def crawled(site: FixtureSite, tmp_path: Path) -> Path:
    out = tmp_path / "crawl"
    assert main(["crawl", site.base + "/", "-o", str(out), "--concurrency", "4"]) == 0
    return out


def test_visualize_a_crawl_database(
    crawled: Path, site: FixtureSite, capsys: pytest.CaptureFixture[str]
) -> None:
    db = crawled / "crawl.sqlite"
    out = crawled / "map.html"
    capsys.readouterr()
    assert detect(str(db)) == "crawl"
    code = main(["visualize", str(db), "-o", str(out), "--view", "depth", "--color", "status"])
    assert code == 0
    line = capsys.readouterr().out.strip()
    assert re.fullmatch(
        rf"wrote {re.escape(str(out))}: \d+ pages, 1 host \+ 1 only linked, \d+ KB, "
        r"from a crawl in \d+\.\d s",
        line,
    ), line
    data = data_of(out)
    with sqlite3.connect(db) as conn:
        seen = conn.execute("SELECT COUNT(*) FROM urls").fetchone()[0]
    assert data["pages"] == seen
    assert "q" in data  # depth tree offered
    strings = data["S"]
    assert "noindex" in strings  # type: ignore[operator]
    assert "http-404" in strings  # type: ignore[operator]
    html = out.read_text("utf-8")
    assert '<option value="depth" selected>' in html
    assert f"<title>Site map of {site.base.split('://')[1]}</title>" in html
    # the depth tree uses the crawl's own "found from" links: none hangs in a group
    kinds = data["k"]
    assert not any(k & 7 == 4 for k in kinds)  # type: ignore[attr-defined]


def test_visualize_a_sitemap_file_and_its_gzip(
    crawled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sitemap = crawled / "sitemap.xml"
    gz = crawled / "sitemap.xml.gz"
    gz.write_bytes(gzip.compress(sitemap.read_bytes()))
    locs = re.findall(r"<loc>([^<]+)</loc>", sitemap.read_text("utf-8"))
    for source in (sitemap, gz):
        out = crawled / f"{source.name}.html"
        assert main(["visualize", str(source), "-o", str(out), "--layout", "radial"]) == 0
        assert "from a sitemap" in capsys.readouterr().out
        data = data_of(out)
        assert data["pages"] == len(locs)
        assert "q" not in data
        assert any(lm for lm in data["l"])  # type: ignore[attr-defined]


def test_visualize_a_sitemap_url_that_fails_is_unreadable_input(
    site: FixtureSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.html"
    assert main(["visualize", site.base + "/no-such-sitemap.xml", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no-such-sitemap.xml" in err
    assert "no URLs to draw" in err
    assert not out.exists()


def test_visualize_a_url_list_with_bad_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "urls.txt"
    src.write_text(
        "\ufeff# my pages\nhttps://x.example/\n\nhttps://x.example/a/b\nftp://x.example/f\n"
        "not a url\nhttps://x.example/a/b\n",
        encoding="utf-8",
    )
    out = tmp_path / "m.html"
    assert main(["visualize", str(src), "-o", str(out), "--title", "Mine", "--view", "depth"]) == 1
    captured = capsys.readouterr()
    assert "has no crawl depths; the map opens by URL path" in captured.err
    assert f"{src}:5: not an absolute http(s) URL: 'ftp://x.example/f'" in captured.err
    assert f"{src}:6: not an absolute http(s) URL: 'not a url'" in captured.err
    assert "2 pages, 1 host" in captured.out
    assert "2 bad lines skipped, 1 duplicate merged" in captured.out
    assert data_of(out)["title"] == "Mine"
    assert gc.isenabled()  # paused for the build only


def test_visualize_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "urls.txt"
    src.write_text("https://x.example/\n")
    assert main(["visualize", str(tmp_path / "missing.txt")]) == 2
    assert "missing.txt: cannot read" in capsys.readouterr().err
    assert main(["visualize", str(src), "--layout", "spiral"]) == 2
    assert main(["visualize", str(src), "--max-children", "0"]) == 2
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    assert main(["visualize", str(empty), "-o", str(tmp_path / "e.html")]) == 1
    assert not (tmp_path / "e.html").exists()
    assert main(["visualize", str(src), "-o", str(tmp_path / "no" / "dir.html")]) == 1


def test_an_sqlite_file_that_is_not_a_crawl_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "other.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t(x)")
    conn.close()
    assert main(["visualize", str(db), "-o", str(tmp_path / "m.html")]) == 2
    assert "not a sitemapkit crawl database" in capsys.readouterr().err


def test_detect_by_content_not_name(tmp_path: Path) -> None:
    xml = tmp_path / "list.txt"
    xml.write_bytes(b"\xef\xbb\xbf  <?xml version='1.0'?><urlset/>")
    gz = tmp_path / "a.txt"
    gz.write_bytes(gzip.compress(b"<urlset/>"))
    text = tmp_path / "b.xml"
    text.write_text("https://x.example/\n")
    assert detect(str(xml)) == "sitemap"
    assert detect(str(gz)) == "sitemap"
    assert detect(str(text)) == "list"
    assert detect("https://x.example/sitemap.xml") == "sitemap"
    assert detect("-") == "list"


def test_stdin_to_stdout(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "sitemapkit", "visualize", "-", "-o", "-"],
        input=b"https://x.example/a\nhttps://x.example/b/c\n",
        capture_output=True,
        check=False,
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(b"<!DOCTYPE html>")
    assert proc.stderr.decode().startswith("wrote <stdout>: 2 pages, 1 host,")
    assert list(tmp_path.iterdir()) == []


def test_depth_tree_uses_the_crawls_found_from_links(crawled: Path) -> None:
    db = crawled / "crawl.sqlite"
    with sqlite3.connect(db) as conn:
        found = dict(
            conn.execute("SELECT u.url, f.url FROM urls u JOIN urls f ON f.id = u.found_from")
        )
    conn.close()
    assert len(found) > 20
    tree = SiteTree.from_records(iter_records(str(db)))
    checked = 0
    for node in tree.nodes:
        rec = node.record
        if rec is None or rec.url not in found or node.depth_parent < 0:
            continue
        parent = tree.nodes[node.depth_parent].record
        assert parent is not None
        assert parent.url == found[rec.url], rec.url
        checked += 1
    assert checked == len(found)
