"""What ``sitemapkit urls`` prints, ``sitemapkit build`` reads back.

A user who filters a site's sitemaps (``urls URL --format jsonl | grep ... | build -``)
must not need a converter, and must not lose the videos, news, images or alternates
on the way: the JSON Lines ``urls`` prints are a ``build`` input, the ``sitemap`` field
(where a URL was read) included.  The CSV carries images and alternates; its videos
and news columns are only a count and a title, so a row with them is refused, naming
the line and JSON Lines, rather than rebuilt without them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

NS = (
    'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml"'
)
ALTERNATES = (
    '<xhtml:link rel="alternate" hreflang="en" href="https://example.com/a"/>'
    '<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/a"/>'
)
RICH = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset {NS}>
<url><loc>https://example.com/a</loc><lastmod>2024-05-01T10:00:00+02:00</lastmod>
<changefreq>daily</changefreq><priority>0.7</priority>
<image:image><image:loc>https://example.com/i.png</image:loc></image:image>
{ALTERNATES}
<video:video><video:thumbnail_loc>https://example.com/t.jpg</video:thumbnail_loc>
<video:title>Trailer</video:title><video:description>Two minutes</video:description>
<video:content_loc>https://example.com/v.mp4</video:content_loc>
<video:duration>120</video:duration>
<video:restriction relationship="allow">DE FR</video:restriction>
<video:tag>film</video:tag><video:live>no</video:live></video:video>
<news:news><news:publication><news:name>Post</news:name><news:language>en</news:language>
</news:publication><news:publication_date>2024-05-01</news:publication_date>
<news:title>Launch</news:title></news:news>
</url>
<url><loc>https://example.com/de/a</loc>{ALTERNATES}</url>
<url><loc>https://example.com/b</loc>
<image:image><image:loc>https://example.com/p.png</image:loc></image:image>
<image:image><image:loc>https://example.com/q.png</image:loc></image:image></url>
</urlset>
"""


def sitemapkit(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "sitemapkit", *args], input=stdin, capture_output=True, check=False
    )


def entries(jsonl: bytes) -> list[dict[str, object]]:
    """The printed entries without the file each was read from, by loc (the writer
    holds pages with alternates back until their set is known)."""
    out = []
    for line in jsonl.decode().splitlines():
        entry = json.loads(line)
        entry.pop("sitemap")
        out.append(entry)
    return sorted(out, key=lambda entry: str(entry["loc"]))


def test_urls_jsonl_piped_into_build_gives_the_same_entries(
    tmp_path: Path, xmllint_urlset: Callable[[Path], None]
) -> None:
    (tmp_path / "rich.xml").write_text(RICH)
    printed = sitemapkit("urls", str(tmp_path / "rich.xml"), "--format", "jsonl")
    assert printed.returncode == 0, printed.stderr
    built = sitemapkit(
        "build", "-", "-o", str(tmp_path / "out"), "--base-url", "https://example.com/",
        "--input-format", "jsonl", stdin=printed.stdout,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    xmllint_urlset(tmp_path / "out" / "sitemap.xml")
    again = sitemapkit("urls", str(tmp_path / "out" / "sitemap.xml"), "--format", "jsonl")
    assert entries(again.stdout) == entries(printed.stdout)
    video = entries(again.stdout)[0]["videos"]  # /a
    assert video == [
        {
            "thumbnail_loc": "https://example.com/t.jpg",
            "title": "Trailer",
            "description": "Two minutes",
            "content_loc": "https://example.com/v.mp4",
            "duration": 120,
            "tags": ["film"],
            "restriction": {"relationship": "allow", "countries": ["DE", "FR"]},
            "live": False,
        }
    ]


def test_urls_csv_rows_with_images_and_alternates_build_back(tmp_path: Path) -> None:
    (tmp_path / "rich.xml").write_text(RICH)
    printed = sitemapkit("urls", str(tmp_path / "rich.xml"), "--format", "csv")
    header, _with_video, *rest = printed.stdout.decode().splitlines()
    assert header.startswith("loc,lastmod,")
    (tmp_path / "plain.csv").write_text("\n".join([header, *rest]) + "\n")
    built = sitemapkit("build", str(tmp_path / "plain.csv"), "-o", str(tmp_path / "out"))
    # /de/a names /a as its "en" alternate, and /a is not in this set: refused, as any input.
    assert built.returncode == 1
    assert b"do not list them back" in built.stderr
    (tmp_path / "images.csv").write_text("\n".join([header, rest[-1]]) + "\n")
    built = sitemapkit("build", str(tmp_path / "images.csv"), "-o", str(tmp_path / "out"))
    assert built.returncode == 0, built.stderr
    again = sitemapkit("urls", str(tmp_path / "out" / "sitemap.xml"), "--format", "jsonl")
    assert entries(again.stdout) == [
        {"loc": "https://example.com/b", "images": ["https://example.com/p.png", "https://example.com/q.png"]}
    ]  # fmt: skip


def test_a_csv_row_with_videos_is_refused_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "rich.xml").write_text(RICH)
    printed = sitemapkit("urls", str(tmp_path / "rich.xml"), "--format", "csv")
    (tmp_path / "all.csv").write_bytes(printed.stdout)
    built = sitemapkit("build", str(tmp_path / "all.csv"), "-o", str(tmp_path / "out"))
    assert built.returncode == 1
    first = built.stderr.decode().splitlines()[0]
    assert first.startswith(f"{tmp_path / 'all.csv'}:2: videos and news cannot be rebuilt")
    assert "--format jsonl" in first
    assert not (tmp_path / "out" / "sitemap.xml").exists()


def test_a_broken_alternate_cell_names_its_line(tmp_path: Path) -> None:
    rows = "loc,alternates,sitemap\nhttps://example.com/a,en,x.xml\n"
    (tmp_path / "bad.csv").write_text(rows)
    built = sitemapkit("build", str(tmp_path / "bad.csv"), "-o", str(tmp_path / "out"))
    assert built.returncode == 1
    assert f'{tmp_path / "bad.csv"}:2: alternate "en" is not hreflang=href' in built.stderr.decode()


def test_an_unknown_json_field_is_still_refused(tmp_path: Path) -> None:
    line = b'{"loc": "https://example.com/a", "sitemap": "x.xml", "lastmodified": "2024"}\n'
    built = sitemapkit(
        "build", "-", "-o", str(tmp_path / "out"), "--input-format", "jsonl", stdin=line
    )
    assert built.returncode == 1
    assert b"unknown entry field(s): lastmodified" in built.stderr
