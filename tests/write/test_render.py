"""XML rendering: escaping, forbidden characters, URL cleanup, and a Hypothesis round-trip.

The documented normalisation a value goes through (what the round-trip
compares against): characters XML 1.0 forbids are dropped; a URL becomes
``iri_to_uri`` of the result (IDNA host, percent-encoded UTF-8, no fragment,
surrounding whitespace stripped); a datetime keeps its instant and offset;
text fields come back exactly, ``& < > " '`` and CR included.
"""

from __future__ import annotations

import string
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sitemapdata.xmlread import SM, read_xml
from sitemapkit import limits
from sitemapkit.errors import InputError
from sitemapkit.model import Image, UrlEntry, Video
from sitemapkit.urls import iri_to_uri, is_escaped_uri
from sitemapkit.write import render
from sitemapkit.write.writer import WriterOptions, write_sitemaps

IMG = "{%s}" % limits.IMAGE_NS  # noqa: UP031
VID = "{%s}" % limits.VIDEO_NS  # noqa: UP031


def test_escape_all_five_and_cr() -> None:
    assert render.escape("a&b<c>d\"e'f\rg") == "a&amp;b&lt;c&gt;d&quot;e&apos;f&#13;g"
    assert render.escape("plain") == "plain"
    assert render.escape("&amp;") == "&amp;amp;"


def test_drop_forbidden_counts() -> None:
    assert render.drop_forbidden("a\x00b\x1fc\td\ne\rf\ufffeg\uffff") == ("abc\td\ne\rfg", 4)
    assert render.drop_forbidden("\ud800x") == ("x", 1)
    assert render.drop_forbidden("ok é 😀") == ("ok é 😀", 0)


def test_clean_url() -> None:
    assert render.clean_url("https://example.com/a b") == ("https://example.com/a%20b", 0)
    assert render.clean_url("https://Bücher.example/ü?q=ä#frag") == (
        "https://xn--bcher-kva.example/%C3%BC?q=%C3%A4",
        0,
    )
    assert render.clean_url("https://example.com/%41%zz") == ("https://example.com/%41%25zz", 0)
    assert render.clean_url("https://example.com/a\x01b") == ("https://example.com/ab", 1)
    for bad in ("example.com/x", "ftp://example.com/", "https:///x", "javascript:alert(1)"):
        with pytest.raises(InputError) as info:
            render.clean_url(bad)
        assert info.value.rule == "loc-not-absolute"


def test_priority_and_changefreq() -> None:
    assert render.priority_text(0.5) == "0.5"
    assert render.priority_text("1") == "1.0"
    assert render.priority_text(0) == "0.0"
    assert render.priority_text(0.85) == "0.85"
    for bad in (1.1, -0.1, "high", float("nan"), True):
        with pytest.raises(InputError) as info:
            render.priority_text(bad)
        assert info.value.rule == "priority-invalid"
    assert render.changefreq_text("never") == "never"
    with pytest.raises(InputError):
        render.changefreq_text("Daily")


def test_head_declares_only_used_namespaces() -> None:
    assert "xmlns:" not in render.urlset_head(0)
    head = render.urlset_head(render.NS_VIDEO | render.NS_XHTML)
    assert 'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"' in head
    assert 'xmlns:xhtml="http://www.w3.org/1999/xhtml"' in head
    assert "xmlns:image" not in head
    assert head.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<urlset ')


def test_digits_of_other_scripts_are_not_a_date() -> None:
    with pytest.raises(InputError):
        render.lastmod_text("２０２４-01-01")


# --- Hypothesis round-trip ------------------------------------------------------------

HOSTS = ["example.com", "EXAMPLE.com", "bücher.example", "例え.jp", "xn--bcher-kva.example"]
TOKENS = [*"&<>\"'\r\n\t\x00\x01\x0b\ufffe\ud800%#?/ ", "]]>", "&amp;", "%41", "%zz"]
nasty = st.lists(st.one_of(st.characters(codec="utf-8"), st.sampled_from(TOKENS)), max_size=40).map(
    "".join
)
fixed_offsets = st.integers(-14 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
aware = st.datetimes(
    min_value=datetime(1000, 1, 1), max_value=datetime(9998, 12, 31), timezones=fixed_offsets
)


@st.composite
def entries(draw: st.DrawFn) -> UrlEntry:
    host = draw(st.sampled_from(HOSTS))
    path = draw(st.one_of(nasty, st.text(string.ascii_letters, min_size=1500, max_size=2100)))
    loc = f"https://{host}/{path}"
    lastmod = draw(st.one_of(st.none(), aware))
    images = tuple(
        Image(f"https://{host}/{p}.png", caption=c)
        for p, c in draw(st.lists(st.tuples(nasty, nasty), max_size=2))
    )
    videos: tuple[Video, ...] = ()
    if draw(st.booleans()):
        title = draw(
            nasty.filter(lambda t: 0 < len(t) <= 100 and render.drop_forbidden(t)[0].strip())
        )
        description = draw(nasty.filter(lambda t: render.drop_forbidden(t)[0].strip() != ""))
        tags = tuple(draw(st.lists(nasty, max_size=3)))
        videos = (
            Video(
                f"https://{host}/t.jpg",
                title,
                description,
                player_loc=f"https://{host}/player?id={draw(nasty)}",
                tags=tags,
                uploader=draw(st.one_of(st.none(), nasty.filter(lambda t: t.strip() != ""))),
            ),
        )
    return UrlEntry(loc, lastmod=lastmod, images=images, videos=videos)


def _expected_url(url: str) -> str:
    return iri_to_uri(render.drop_forbidden(url)[0])


def _usable(entry: UrlEntry) -> bool:
    try:
        render.render_url(entry, render.clean_url(entry.loc)[0])
    except InputError:
        return False
    return True


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.lists(entries(), min_size=1, max_size=8))
def test_round_trip(tmp_path_factory: pytest.TempPathFactory, items: list[UrlEntry]) -> None:
    items = [e for e in items if _usable(e)]
    assume(items)
    out = tmp_path_factory.mktemp("rt")
    result = write_sitemaps(items, out, WriterOptions(fsync=False))
    # first wins: the entries we expect back
    expected: dict[str, UrlEntry] = {}
    for entry in items:
        expected.setdefault(_expected_url(entry.loc), entry)
    assert result.urls == len(expected)
    root = read_xml(result.root)
    urls = root.findall(f"{SM}url")
    assert len(urls) == len(expected)
    for el, (uri, entry) in zip(urls, expected.items(), strict=True):
        loc = el.findtext(f"{SM}loc")
        assert loc == uri
        assert loc.isascii()
        assert is_escaped_uri(loc)
        assert len(loc) < 2048
        raw_path = render.drop_forbidden(entry.loc)[0].strip()
        if not any(c in raw_path[8:] for c in "%#?\t\r\n\\"):
            assert unquote(urlsplit(loc).path) == urlsplit(raw_path).path
        lastmod = el.findtext(f"{SM}lastmod")
        if entry.lastmod is None:
            assert lastmod is None
        else:
            assert isinstance(entry.lastmod, datetime)
            back = datetime.fromisoformat(lastmod.replace("Z", "+00:00"))
            assert back == entry.lastmod
            assert back.utcoffset() == entry.lastmod.utcoffset()
        images = el.findall(f"{IMG}image")
        assert [i.findtext(f"{IMG}loc") for i in images] == [
            _expected_url(i.loc) for i in entry.images
        ]
        assert [i.findtext(f"{IMG}caption") or "" for i in images] == [
            render.drop_forbidden(i.caption or "")[0] for i in entry.images
        ]
        for video_el, video in zip(el.findall(f"{VID}video"), entry.videos, strict=True):
            assert video_el.findtext(f"{VID}title") == render.drop_forbidden(video.title)[0]
            assert (
                video_el.findtext(f"{VID}description")
                == render.drop_forbidden(video.description)[0]
            )
            assert [t.text or "" for t in video_el.findall(f"{VID}tag")] == [
                render.drop_forbidden(t)[0] for t in video.tags
            ]
            if video.uploader is not None:
                assert (
                    video_el.findtext(f"{VID}uploader") == render.drop_forbidden(video.uploader)[0]
                )


def test_nasty_values_pass_the_schema(tmp_path: Path, xmllint_urlset: object) -> None:
    entry = UrlEntry(
        'https://例え.jp/パス?q=<a>&b="c"#frag',
        images=(Image("https://例え.jp/i.png", caption="]]> & <!-- --> \x00 \r\n"),),
        videos=(
            Video(
                "https://例え.jp/t.jpg",
                "<script>alert('x')</script>",
                "&amp; &#0; \ufffe",
                player_loc="https://例え.jp/p?a=1&b=2",
            ),
        ),
    )
    result = write_sitemaps([entry], tmp_path, WriterOptions())
    assert callable(xmllint_urlset)
    xmllint_urlset(result.root)
    assert result.dropped_chars == 2
