"""sitemap.js's writer tests, asked of ``sitemapkit build``, in our words.

From ekalinin/sitemap.js ``tests/sitemap-item-stream.test.ts`` (the "full options" item),
``tests/sitemap-utils.test.ts`` (``validateSMIOptions``: what must be refused),
``tests/sitemap-xml.test.ts`` (escaping) and ``tests/cli.test.ts`` (JSON Lines in its
spelling).  Each input goes through the real command, JSON Lines in sitemap.js's own
spelling (``url``, ``img``, ``video``, ``links``, ``news.publication``); what is written
is checked by xmllint against ``../shared/xsd`` and read back with ``sitemapkit urls``,
so escaping is judged by what a parser gets, not by one spelling of it.

Deliberate differences are ``xfail`` rows with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli

BASE = "https://example.com/"
TEXT = "Example text&><'\"&><'\""  # sitemap.js's generator: every character XML escapes
URL = "https://example.com/path?some=value&another#!fragment"
URL_WRITTEN = "https://example.com/path?some=value&another"  # the fragment is not sent
DATE = "2011-06-27T00:00:00.000Z"


def build(tmp_path: Path, items: list[Any], *args: str) -> tuple[int, str, str, Path]:
    source = tmp_path / "items.jsonl"
    source.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        cli, ["build", str(source), "-o", str(out), "--base-url", BASE, *args]
    )
    return result.exit_code, result.stdout, result.stderr, out


def read_back(path: Path) -> list[dict[str, Any]]:
    result = CliRunner().invoke(cli, ["urls", "--format", "jsonl", str(path)])
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.splitlines()]


NS = {
    "s": "http://www.sitemaps.org/schemas/sitemap/0.9",
    "image": "http://www.google.com/schemas/sitemap-image/1.1",
    "video": "http://www.google.com/schemas/sitemap-video/1.1",
    "news": "http://www.google.com/schemas/sitemap-news/0.9",
}


def texts(path: Path, tag: str) -> list[str | None]:
    """Every ``tag`` (``image:title``) as an independent parser (ElementTree) reads it."""
    return [e.text for e in ElementTree.parse(path).getroot().iterfind(f".//{tag}", NS)]


FULL = {
    "url": URL,
    "lastmod": "2019-01-01",
    "changefreq": "weekly",
    "priority": 0.9942,
    "fullPrecisionPriority": True,
    "expires": "2019-01-01",
    "androidLink": "android-app://com.company.test/page-1/",
    "ampLink": "http://ampproject.org/article.amp.html",
    "img": [
        {"url": URL, "caption": TEXT, "geoLocation": TEXT, "title": TEXT, "license": URL},
        "https://example.com/second.png",
    ],
    "video": [
        {
            "tag": [TEXT, TEXT],
            "thumbnail_loc": URL,
            "title": TEXT,
            "description": TEXT,
            "player_loc:autoplay": "ap=1&><'\"",
            "player_loc": "https://example.com/player?a=1&b=2",
            "duration": 1208,
            "publication_date": DATE,
            "requires_subscription": "YES",
            "id": URL,
        },
        {
            "tag": TEXT,
            "thumbnail_loc": URL,
            "title": TEXT,
            "description": TEXT,
            "content_loc": "https://example.com/video.mp4?x=1&y=2",
            "duration": 3070,
            "expiration_date": DATE,
            "rating": 2.5,
            "view_count": "1000",
            "publication_date": DATE,
            "category": TEXT,
            "family_friendly": "no",
            "restriction:relationship": "deny",
            "restriction": "IE GB US CA",
            "gallery_loc:title": TEXT,
            "gallery_loc": URL,
            "price:resolution": "HD",
            "price:currency": "USD",
            "price:type": "rent",
            "price": "1.99",
            "requires_subscription": "no",
            "uploader": TEXT,
            "uploader:info": URL,
            "platform:relationship": "allow",
            "platform": "tv",
            "live": "no",
        },
    ],
    "links": [{"lang": "en", "url": URL}, {"lang": "ja", "url": "https://example.com/ja/"}],
    "news": {
        "publication": {"name": TEXT, "language": "en"},
        "publication_date": DATE,
        "title": TEXT,
        "access": "Registration",
        "genres": "Blog",
        "keywords": TEXT,
        "stock_tickers": "NASDAQ:A, NASDAQ:B",
    },
}
JA = {"url": "https://example.com/ja/", "links": FULL["links"]}


def test_full_options_item(tmp_path: Path, xmllint_urlset: Callable[[Path], None]) -> None:
    """sitemap.js's "full options" item: every field Google still reads is written, escaped,
    in schema order, and passes the XSDs; each value reads back exactly as given."""
    code, out, err, folder = build(tmp_path, [FULL, JA])
    assert code == 0, err
    xml = (folder / "sitemap.xml").read_text(encoding="utf-8")
    xmllint_urlset(folder / "sitemap.xml")
    assert f"<loc>{URL_WRITTEN.replace('&', '&amp;')}</loc>" in xml
    assert "<lastmod>2019-01-01</lastmod><changefreq>weekly</changefreq>" in xml
    assert "<priority>0.9942</priority>" in xml  # sitemap.js's fullPrecisionPriority
    escaped = "Example text&amp;&gt;&lt;&apos;&quot;&amp;&gt;&lt;&apos;&quot;"
    for tag in ("image:caption", "image:title", "video:title", "video:tag", "news:name"):
        assert f"<{tag}>{escaped}</{tag}>" in xml, tag
    assert '<video:restriction relationship="deny">IE GB US CA</video:restriction>' in xml
    assert '<video:platform relationship="allow">tv</video:platform>' in xml
    assert '<video:uploader info="https://example.com/path?some=value&amp;another">' in xml
    assert "<video:requires_subscription>yes</video:requires_subscription>" in xml
    assert xml.count("<video:tag>") == 3
    assert '<xhtml:link rel="alternate" hreflang="ja" href="https://example.com/ja/"/>' in xml
    for retired in ("price", "category", "gallery_loc", "expires", "amphtml", "news:access"):
        assert retired not in xml, retired
    assert "sitemap.js fields Google no longer reads were left out: " in out
    for field in ("news.access (1)", "video.price (1)", "ampLink (1)"):
        assert field in out

    assert [p["loc"] for p in read_back(folder / "sitemap.xml")] == [URL_WRITTEN, JA["url"]]
    path = folder / "sitemap.xml"
    assert texts(path, "image:caption") == texts(path, "image:geo_location") == [TEXT]
    assert texts(path, "video:title") == texts(path, "video:description") == [TEXT, TEXT]
    assert texts(path, "video:tag") == [TEXT, TEXT, TEXT]
    assert texts(path, "video:view_count") == ["1000"]
    assert texts(path, "news:title") == texts(path, "news:name") == [TEXT]


def test_their_cli_json_lines(tmp_path: Path, xmllint_urlset: Callable[[Path], None]) -> None:
    """``sitemap --json`` input (cli-urls.json.txt's shape): it used to be refused line by
    line ("unknown entry field(s): url, video") and nothing was written."""
    item = {
        "url": "https://example.com/episode/one",
        "changefreq": "weekly",
        "video": [
            {
                "title": "2018:E6 - Source",
                "description": "We play a game with a good friend of ours.",
                "player_loc": "https://example.com/embed/one",
                "player_loc:allow_embed": "yes",
                "thumbnail_loc": "https://img.example.com/thumb3.jpg",
                "duration": 1208,
                "publication_date": "2018-04-27T17:00:00.000Z",
                "requires_subscription": False,
            }
        ],
    }
    code, out, err, folder = build(tmp_path, [item, {"url": "https://example.com/two"}])
    assert code == 0, err
    xmllint_urlset(folder / "sitemap.xml")
    assert [p["loc"] for p in read_back(folder / "sitemap.xml")] == [
        "https://example.com/episode/one",
        "https://example.com/two",
    ]
    assert "video.player_loc:allow_embed (1)" in out


VIDEO = {
    "title": "2008:E2 - Burnout Paradise: Millionaire's Club",
    "description": "Jack gives us a walkthrough on getting the Millionaire's Club Achievement.",
    "player_loc": "https://example.com/embed/burnout",
    "thumbnail_loc": "https://img.example.com/ep298.jpg",
    "publication_date": "2008-07-29T14:58:04.000Z",
    "tag": [],
}


def _video(**fields: Any) -> dict[str, Any]:
    video = {**VIDEO, **fields}
    return {
        "url": "https://example.com/ep",
        "video": [{k: v for k, v in video.items() if v is not None}],
    }


# (id, item, the rule that refuses it: the page's, or the annotation's with --skip-invalid)
REFUSED: list[tuple[str, dict[str, Any], str]] = [
    ("changefreq allllways", {"url": BASE, "changefreq": "allllways"}, "changefreq-invalid"),
    ("priority 1.1", {"url": BASE, "priority": 1.1}, "priority-invalid"),
    ("no url", {"lastmod": "2019-01-01"}, "jsonl-invalid"),
    ("video duration -1", _video(duration=-1), "video-limits"),
    ("video duration over 8 hours", _video(duration=28801), "video-limits"),
    ("video description over 2,048", _video(description="Lorem ipsum " * 200), "video-limits"),
    ("video title over 100", _video(title="Burnout Paradise " * 7), "video-limits"),
    ("video rating out of bounds", _video(rating=5.1), "video-limits"),
    ("video negative view count", _video(view_count=-1), "video-limits"),
    ("video over 32 tags", _video(tag=[f"tag {i}" for i in range(33)]), "video-limits"),
    (
        "video restriction without allow or deny",
        _video(restriction="IE GB US CA", **{"restriction:relationship": "father"}),
        "video-values",
    ),
    (
        "video invalid restriction",
        _video(restriction="IE GB US CA XYZ", **{"restriction:relationship": "deny"}),
        "video-values",
    ),
    (
        "video platform relationship",
        _video(platform="tv", **{"platform:relationship": "mother"}),
        "video-values",
    ),
    ("video family friendly 'foo'", _video(family_friendly="foo"), "jsonl-invalid"),
    ("video without thumbnail", _video(thumbnail_loc=None), "jsonl-invalid"),
    ("video without title", _video(title=None), "jsonl-invalid"),
    (
        "news without publication",
        {"url": BASE, "news": {"publication_date": DATE, "title": "T"}},
        "jsonl-invalid",
    ),
    (
        "news without a language",
        {
            "url": BASE,
            "news": {"publication": {"name": "P"}, "publication_date": DATE, "title": "T"},
        },
        "jsonl-invalid",
    ),
    (
        "news without a title",
        {
            "url": BASE,
            "news": {"publication": {"name": "P", "language": "en"}, "publication_date": DATE},
        },
        "jsonl-invalid",
    ),
    (
        "news without a date",
        {"url": BASE, "news": {"publication": {"name": "P", "language": "en"}, "title": "T"}},
        "jsonl-invalid",
    ),
]


@pytest.mark.parametrize(("item", "rule"), [pytest.param(i, r, id=n) for n, i, r in REFUSED])
def test_what_sitemapjs_refuses_is_refused(tmp_path: Path, item: dict[str, Any], rule: str) -> None:
    code, _out, err, folder = build(tmp_path, [item])
    assert code == 1
    assert "nothing was written" in err
    assert not (folder / "sitemap.xml").exists()
    # with a good page beside it: a set of nothing but refused entries is not written at
    # all (an empty <urlset> fails the XSD), and says which rule refused them
    kept = {"url": f"{BASE}kept"}
    code, out, err, _ = build(tmp_path, [item, kept], "--skip-invalid", "--format", "json")
    assert code == 0, err
    summary = json.loads(out)
    assert rule in summary["skipped"] or rule in summary["annotations_dropped"], summary
    if rule in summary["skipped"]:
        before = (tmp_path / "out" / "sitemap.xml").read_bytes()
        code, _out, err, folder = build(tmp_path, [item], "--skip-invalid")
        assert code == 1
        assert f"every entry was skipped: {rule}: 1" in err
        assert (folder / "sitemap.xml").read_bytes() == before  # the set there is kept


@pytest.mark.parametrize(
    ("item", "written"),
    [
        pytest.param(
            _video(duration=600, rating=4.5, view_count=12345),
            ("<video:duration>600<", "<video:rating>4.5<", "<video:view_count>12345<"),
            id="numeric video fields",
        ),
        pytest.param(_video(tag=None), ("<video:video>",), id="video without tags"),
        pytest.param(
            {"url": BASE, "priority": 0.789456, "fullPrecisionPriority": True},
            ("<priority>0.789456</priority>",),
            marks=pytest.mark.xfail(
                strict=True, reason="priority is written with at most 4 decimals (0.7895)"
            ),
            id="priority in full",
        ),
        pytest.param(
            {"url": BASE, "lastmod": DATE},
            (f"<lastmod>{DATE}</lastmod>",),
            id="lastmod with milliseconds",
        ),
        pytest.param(
            {"url": BASE, "lastmodISO": "2019-01-01T10:00:00+02:00"},
            ("<lastmod>2019-01-01T10:00:00+02:00</lastmod>",),
            id="lastmodISO",
        ),
        pytest.param(
            {"url": BASE, "img": "https://example.com/a.png"},
            ("<image:loc>https://example.com/a.png</image:loc>",),
            id="img as a string",
        ),
        pytest.param(
            {"url": BASE, "img": {"url": "https://example.com/a.png"}},
            ("<image:loc>https://example.com/a.png</image:loc>",),
            id="img as an object",
        ),
        pytest.param(
            {"url": BASE, "video": {**VIDEO, "tag": "one"}},
            ("<video:tag>one</video:tag>",),
            id="one video, tag a string",
        ),
        pytest.param(
            {"url": BASE, "priority": 0.789456, "fullPrecisionPriority": False},
            ("<priority>0.8</priority>",),
            marks=pytest.mark.xfail(
                strict=True,
                reason="a value is written as given, never rounded: 0.789456 is a valid priority",
            ),
            id="priority rounded to one digit",
        ),
        pytest.param(
            {"url": BASE, "lastmod": "2019-01-01"},
            ("<lastmod>2019-01-01T00:00:00.000Z</lastmod>",),
            marks=pytest.mark.xfail(
                strict=True,
                reason="lastmod keeps the precision it was given: a date is not midnight UTC",
            ),
            id="lastmod date turned into a time",
        ),
    ],
)
def test_what_sitemapjs_writes(
    tmp_path: Path,
    xmllint_urlset: Callable[[Path], None],
    item: dict[str, Any],
    written: tuple[str, ...],
) -> None:
    code, _out, err, folder = build(tmp_path, [item])
    assert code == 0, err
    xml = (folder / "sitemap.xml").read_text(encoding="utf-8")
    xmllint_urlset(folder / "sitemap.xml")
    for fragment in written:
        assert fragment in xml


def test_a_path_is_resolved_against_the_hostname(
    tmp_path: Path, xmllint_urlset: Callable[[Path], None]
) -> None:
    """utils.ts ``normalizeURL``: the item's URL, its images and links resolved against
    ``hostname`` (here ``--base-url``); an absolute URL is kept."""
    item = {
        "url": "/about",
        "img": ["/a.png", {"url": "img/b.png"}],
        "links": [{"lang": "en", "url": "/about"}, {"lang": "fr", "url": "/fr/about"}],
        "video": [
            {"thumbnail_loc": "/t.jpg", "title": "t", "description": "d", "content_loc": "v.mp4"}
        ],
    }
    other = {"url": "/fr/about", "links": item["links"]}
    code, _out, err, folder = build(tmp_path, [item, other, {"url": BASE + "abs?x=1"}])
    assert code == 0, err
    xmllint_urlset(folder / "sitemap.xml")
    # (pages with alternates are placed once their reciprocity is known: last)
    assert sorted(map(str, texts(folder / "sitemap.xml", "s:loc"))) == [
        BASE + "about",
        BASE + "abs?x=1",
        BASE + "fr/about",
    ]
    assert texts(folder / "sitemap.xml", "image:loc") == [BASE + "a.png", BASE + "img/b.png"]
    assert texts(folder / "sitemap.xml", "video:thumbnail_loc") == [BASE + "t.jpg"]
    assert texts(folder / "sitemap.xml", "video:content_loc") == [BASE + "v.mp4"]
    xml = (folder / "sitemap.xml").read_text(encoding="utf-8")
    assert f'hreflang="fr" href="{BASE}fr/about"' in xml


def test_a_path_without_a_base_url_is_named(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("https://example.com/a\n/about\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["build", str(source), "-o", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert f'{source}:2: "/about" is a relative URL: give --base-url' in result.stderr
    assert not (tmp_path / "out" / "sitemap.xml").exists()


def test_a_resolved_path_keeps_the_folder_rule(tmp_path: Path) -> None:
    """``/about`` against a base in ``/blog/`` is outside the folder the sitemap may list."""
    code, _out, err, _folder = build(
        tmp_path, [{"url": "post"}, {"url": "/about"}], "--base-url", BASE + "blog/"
    )
    assert code == 1
    assert "loc-outside-directory" in err or "outside" in err


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("a & b", "a &amp; b"),
        ("a < b", "a &lt; b"),
        ("a > b", "a &gt; b"),
        ("<script>alert('x')</script>", "&lt;script&gt;alert(&apos;x&apos;)&lt;/script&gt;"),
        ("]]><![CDATA[", "]]&gt;&lt;![CDATA["),
        ("a\x00b\x0bc\ufffed", "abcd"),
    ],
)
def test_text_is_escaped_and_invalid_characters_dropped(
    tmp_path: Path, text: str, escaped: str
) -> None:
    """sitemap-xml.test.ts: ``& < >`` escaped in text (we escape quotes too, which XML allows);
    characters XML 1.0 forbids are removed, and the value reads back without them."""
    code, _out, err, folder = build(
        tmp_path, [{"url": BASE, "img": {"url": BASE + "a.png", "title": text}}]
    )
    assert code == 0, err
    xml = (folder / "sitemap.xml").read_text(encoding="utf-8")
    assert f"<image:title>{escaped}</image:title>" in xml
    assert texts(folder / "sitemap.xml", "image:title") == [
        text.replace("\x00", "").replace("\x0b", "").replace("\ufffe", "")
    ]


def test_xsl_stylesheet_line_in_every_file(
    tmp_path: Path,
    xmllint_urlset: Callable[[Path], None],
    xmllint_index: Callable[[Path], None],
) -> None:
    """sitemap.js's ``xslUrl``: ``build --xsl URL`` puts an ``<?xml-stylesheet?>`` line
    after the declaration of every XML file, the index too, escaped; the byte limit counts
    it, so a part written with it holds fewer URLs and never passes ``--max-bytes``."""
    xsl = "https://example.com/sitemap.xsl?a=1&b=2"
    items = [{"url": f"https://example.com/p/{i}"} for i in range(40)]
    code, _out, err, folder = build(tmp_path, items, "--xsl", xsl, "--max-bytes", "1024")
    assert code == 0, err
    files = sorted(folder.glob("*.xml"))
    line = '<?xml-stylesheet type="text/xsl" href="https://example.com/sitemap.xsl?a=1&amp;b=2"?>'
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert text.splitlines()[1] == line, path
        assert len(text.encode()) <= 1024, path
        (xmllint_index if path.name == "sitemap.xml" else xmllint_urlset)(path)
    assert len(read_back(folder / "sitemap.xml")) == 40
    plain = tmp_path / "plain"
    plain.mkdir()
    _code, _out, _err, without = build(plain, items, "--max-bytes", "1024")
    first = (folder / "sitemap-1.xml").read_text(encoding="utf-8")
    assert first.count("<url>") < (without / "sitemap-1.xml").read_text().count("<url>")
    assert len(first.encode()) > 1024 - 2 * len(line)  # filled, not cut short


def test_xsl_with_a_control_character_is_a_usage_error(tmp_path: Path) -> None:
    code, _out, err, _folder = build(tmp_path, [{"url": BASE}], "--xsl", "a\x01b")
    assert code == 2
    assert "xsl" in err
