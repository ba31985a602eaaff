"""crawler-commons' sitemap extension tests, in our words: video, image, hreflang, news, mobile.

From crawler-commons/crawler-commons ``SiteMapParserExtensionTest.java`` and its files in
``src/test/resources/sitemaps/extension/`` (rewritten here, shortened).  Each case is a
sitemap file read with ``sitemapkit urls --format jsonl``; the records must carry what the
peer's test checks, in our model's fields.  The tags Google dropped from its sitemap
extensions (video ``gallery_loc``, ``price``, ``category``, ``tvshow``; news ``keywords``,
``genres``, ``stock_tickers``, ``access``; image ``caption``, ``title``, ``geo_location``,
``license``; the mobile sitemap) are not read: the records hold none of them, which is
asserted too.  Text values are kept as written (crawler-commons folds the line break in a
description; a value is not ours to change).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from sitemapkit.cli import cli

URLSET = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
VIDEO_NS = ' xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"'


def records(tmp_path: Path, text: str) -> list[dict[str, Any]]:
    path = tmp_path / "sitemap.xml"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["urls", "--format", "jsonl", str(path)])
    assert result.exit_code == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    for row in rows:
        row.pop("sitemap", None)
    return rows


VIDEOS = (
    URLSET
    + VIDEO_NS
    + """>
  <url><loc>http://www.example.com/videos/steaks.html</loc>
    <video:video>
      <video:thumbnail_loc>http://www.example.com/thumbs/123.jpg</video:thumbnail_loc>
      <video:title>Grilling steaks for summer</video:title>
      <video:description>How to get steaks done every
        time</video:description>
      <video:content_loc>http://www.example.com/video123.flv</video:content_loc>
      <video:player_loc allow_embed="yes" autoplay="ap=1">
        http://www.example.com/videoplayer.swf?video=123</video:player_loc>
      <video:duration>600</video:duration>
      <video:expiration_date>2009-11-05T19:20:30+08:00</video:expiration_date>
      <video:rating>4.2</video:rating>
      <video:view_count>12345</video:view_count>
      <video:publication_date>2007-11-05T19:20:30+08:00</video:publication_date>
      <video:tag>sample_tag1</video:tag><video:tag>sample_tag2</video:tag>
      <video:family_friendly>yes</video:family_friendly>
      <video:restriction relationship="allow">IE GB US CA</video:restriction>
      <video:gallery_loc title="Cooking Videos">http://cooking.example.com</video:gallery_loc>
      <video:price currency="EUR">1.99</video:price>
      <video:requires_subscription>yes</video:requires_subscription>
      <video:uploader
          info="http://www.example.com/users/griller">GrillyMcGrillerson
      </video:uploader>
      <video:live>no</video:live>
    </video:video>
  </url>
  <url><loc>http://www.example.com/videos/steaks-2.html</loc>
    <video:video>
      <video:thumbnail_loc>http://www.example.com/thumbs/123-2.jpg</video:thumbnail_loc>
      <video:title>Episode 2</video:title><video:description>d</video:description>
      <video:content_loc>http://www.example.com/video123-2.flv</video:content_loc>
      <video:price currency="EUR">1,99</video:price>
    </video:video>
  </url>
  <url><loc>http://www.example.com/videos/steaks-3.html</loc>
    <video:video>
      <video:thumbnail_loc>http://www.example.com/thumbs/123-3.jpg</video:thumbnail_loc>
      <video:title>Episode 3</video:title><video:description>d</video:description>
      <video:content_loc>http://www.example.com/video123-3.flv</video:content_loc>
      <video:price type="rent"></video:price>
    </video:video>
  </url>
</urlset>"""
)


def test_videos(tmp_path: Path) -> None:
    first, second, third = records(tmp_path, VIDEOS)
    assert first["videos"] == [
        {
            "thumbnail_loc": "http://www.example.com/thumbs/123.jpg",
            "title": "Grilling steaks for summer",
            "description": "How to get steaks done every\n        time",
            "content_loc": "http://www.example.com/video123.flv",
            "player_loc": "http://www.example.com/videoplayer.swf?video=123",
            "duration": 600,
            "expiration_date": "2009-11-05T19:20:30+08:00",
            "rating": 4.2,
            "view_count": 12345,
            "publication_date": "2007-11-05T19:20:30+08:00",
            "tags": ["sample_tag1", "sample_tag2"],
            "family_friendly": True,
            "restriction": {"relationship": "allow", "countries": ["IE", "GB", "US", "CA"]},
            "requires_subscription": True,
            "uploader": "GrillyMcGrillerson",
            "uploader_info": "http://www.example.com/users/griller",
            "live": False,
        }
    ]
    # A price in a locale's format, or none at all, is no reason to lose the video.
    assert [v["content_loc"] for v in second["videos"] + third["videos"]] == [
        "http://www.example.com/video123-2.flv",
        "http://www.example.com/video123-3.flv",
    ]
    assert not any("price" in v or "gallery_loc" in v for v in first["videos"] + second["videos"])


def test_a_tv_show_video(tmp_path: Path) -> None:
    text = (
        URLSET
        + VIDEO_NS
        + """>
  <url><loc>https://example.org/my-tv-show/23/13/</loc>
    <video:video>
      <video:thumbnail_loc>https://example.org/my-tv-show.jpg</video:thumbnail_loc>
      <video:title>My TV Show! - Thu, Jun 05, 2025</video:title>
      <video:description>Dummy description</video:description>
      <video:content_loc>https://example.org/video/video/23-13.mp4</video:content_loc>
      <video:player_loc>https://example.org/video/embed/23-13</video:player_loc>
      <video:duration>2459</video:duration>
      <video:expiration_date>2025-06-13T09:00:00+00:00</video:expiration_date>
      <video:publication_date>2025-06-06T09:00:00+00:00</video:publication_date>
      <video:tag>talkshow</video:tag><video:tag>interview</video:tag>
      <video:category>My TV Show!</video:category>
      <video:requires_subscription>yes</video:requires_subscription>
      <video:content_segment_loc duration="1287">https://example.org/v/23-13-1.mp4</video:content_segment_loc>
      <video:tvshow><video:show_title>My TV Show!</video:show_title>
        <video:video_type>full</video:video_type><video:season_number>23</video:season_number>
      </video:tvshow>
    </video:video>
  </url>
</urlset>"""
    )
    (row,) = records(tmp_path, text)
    (video,) = row["videos"]
    assert (video["duration"], video["tags"], video["requires_subscription"]) == (
        2459,
        ["talkshow", "interview"],
        True,
    )
    assert video["player_loc"] == "https://example.org/video/embed/23-13"
    assert not {"category", "tvshow", "content_segment_loc"} & set(video)


def test_images(tmp_path: Path) -> None:
    text = (
        URLSET
        + """ xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url><loc>http://www.example.com/images/landing.html</loc>
    <image:image><image:loc>http://example.com/image.jpg</image:loc></image:image>
    <image:image>
      <image:loc>http://example.com/photo.jpg</image:loc>
      <image:caption>This is the caption.</image:caption>
      <image:geo_location>Limerick, Ireland</image:geo_location>
      <image:title>Example photo shot in Limerick, Ireland</image:title>
      <image:license>https://creativecommons.org/licenses/by/4.0/legalcode</image:license>
    </image:image>
  </url>
</urlset>"""
    )
    assert records(tmp_path, text) == [
        {
            "loc": "http://www.example.com/images/landing.html",
            "images": ["http://example.com/image.jpg", "http://example.com/photo.jpg"],
        }
    ]


def test_hreflang_links(tmp_path: Path) -> None:
    links = "".join(
        f'<xhtml:link rel="alternate" hreflang="{lang}" href="http://www.example.com/{path}/"/>'
        for lang, path in (("de", "deutsch"), ("de-ch", "schweiz-deutsch"), ("en", "english"))
    )
    pages = ("english", "deutsch", "schweiz-deutsch")
    text = (
        URLSET
        + ' xmlns:xhtml="http://www.w3.org/1999/xhtml">'
        + "".join(f"<url><loc>http://www.example.com/{p}/</loc>{links}</url>" for p in pages)
        + "</urlset>"
    )
    alternates = {
        "de": "http://www.example.com/deutsch/",
        "de-ch": "http://www.example.com/schweiz-deutsch/",
        "en": "http://www.example.com/english/",
    }
    assert records(tmp_path, text) == [
        {"loc": f"http://www.example.com/{p}/", "alternates": alternates} for p in pages
    ]


NEWS = (
    URLSET
    + """ xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
  <url><loc>http://www.example.org/business/article55.html</loc>
    <news:news>
      <news:publication><news:name>The Example Times</news:name>
        <news:language>en</news:language></news:publication>
      <news:genres>PressRelease, Blog</news:genres>
      <news:publication_date>2008-12-23</news:publication_date>
      <news:title>Companies A, B in Merger Talks</news:title>
      <news:keywords>business, merger, acquisition, A, B</news:keywords>
      <news:stock_tickers>NASDAQ:A, NASDAQ:B</news:stock_tickers>
      <news:access>Subscription</news:access>
    </news:news>
  </url>
  <url><loc>http://www.example.org/empty_news_name.html</loc>
    <news:news>
      <news:publication><news:name></news:name><news:language>en</news:language></news:publication>
      <news:publication_date>2025-05-27</news:publication_date>
      <news:title>Test empty news attributes</news:title>
    </news:news>
  </url>
</urlset>"""
)


def test_news(tmp_path: Path) -> None:
    assert [row["news"] for row in records(tmp_path, NEWS)] == [
        {
            "title": "Companies A, B in Merger Talks",
            "publication_date": "2008-12-23",
            "name": "The Example Times",
            "language": "en",
        },
        # An empty publication name is kept as written (crawler-commons: not valid);
        # validate names the rule.
        {
            "title": "Test empty news attributes",
            "publication_date": "2025-05-27",
            "name": "",
            "language": "en",
        },
    ]


def test_an_empty_news_name_is_reported_by_validate(tmp_path: Path) -> None:
    path = tmp_path / "news.xml"
    path.write_text(NEWS, encoding="utf-8")
    result = CliRunner().invoke(cli, ["validate", "--format", "json", str(path)])
    findings = json.loads(result.stdout)["findings"]
    assert any("news" in f["code"] and f["line"] == 17 for f in findings), findings


@pytest.mark.parametrize("mobile", ["<mobile:mobile/>", "<mobile:mobile></mobile:mobile>", ""])
def test_the_mobile_tag_is_read_past(tmp_path: Path, mobile: str) -> None:
    text = (
        URLSET
        + ' xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0">'
        + f"<url><loc>http://www.example.com/m/</loc>{mobile}</url></urlset>"
    )
    assert records(tmp_path, text) == [{"loc": "http://www.example.com/m/"}]
