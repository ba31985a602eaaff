"""The streaming set writer: exact limits, index, gzip, text, scope, dedup, atomic publish."""

from __future__ import annotations

import asyncio
import gzip
import itertools
import random
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from sitemapdata.xmlread import SM, locs, no_temporaries, read_xml
from sitemapkit import limits
from sitemapkit.errors import EmptySetError, EntryError, InputError, LimitError
from sitemapkit.fingerprints import MIN_BITS
from sitemapkit.model import Alternate, Image, News, UrlEntry, Video
from sitemapkit.validate.validator import validate
from sitemapkit.write import render
from sitemapkit.write.writer import (
    EntryLike,
    SitemapSetWriter,
    WriterOptions,
    write_sitemaps,
    write_sitemaps_async,
)

BASE = "https://example.com/"
CheckSet = Callable[[list[Path]], None]

HEAD = len(render.urlset_head(0).encode())
TAIL = len(render.URLSET_TAIL.encode())
PLAIN_LINE = len("<url><loc></loc></url>\n")


def urls(n: int, start: int = 0) -> list[UrlEntry]:
    return [UrlEntry(f"{BASE}p/{i}") for i in range(start, start + n)]


def entries_of_exact_size(count: int, total: int) -> list[UrlEntry]:
    """``count`` plain entries whose file (head+body+tail) is exactly ``total`` bytes."""
    body = total - HEAD - TAIL
    q, r = divmod(body, count)
    out = []
    for i in range(count):
        line = q + (1 if i < r else 0)
        stem = f"{BASE}{i:06d}/"
        pad = line - PLAIN_LINE - len(stem)
        assert pad >= 0
        assert len(stem) + pad < limits.MAX_LOC_LENGTH
        out.append(UrlEntry(stem + "a" * pad))
    return out


def test_one_file_with_lastmods_is_schema_valid(tmp_path: Path, check_set: CheckSet) -> None:
    entries = [
        UrlEntry(f"{BASE}a", lastmod="2024-01-02"),
        UrlEntry(f"{BASE}b", lastmod=date(2024, 1, 3)),
        UrlEntry(f"{BASE}c", lastmod=datetime(2024, 1, 4, 10, 30, tzinfo=UTC)),
        UrlEntry(f"{BASE}d?x=1&y='2'", lastmod="2024-01-05T10:00:00.5+02:00"),
        UrlEntry(f"{BASE}e", changefreq="daily", priority="0.80"),
    ]
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE))
    assert result.files == [tmp_path / "sitemap.xml"]
    assert not result.is_index
    assert result.urls == 5
    assert result.bytes == (tmp_path / "sitemap.xml").stat().st_size
    assert result.robots_line == "Sitemap: https://example.com/sitemap.xml"
    check_set(result.files)
    root = read_xml(result.root)
    assert [el.text for el in root.iter(f"{SM}lastmod")] == [
        "2024-01-02",
        "2024-01-03",
        "2024-01-04T10:30:00Z",
        "2024-01-05T10:00:00.5+02:00",
    ]
    assert locs(result.root)[3] == "https://example.com/d?x=1&y='2'"
    assert [el.text for el in root.iter(f"{SM}priority")] == ["0.8"]
    assert [el.text for el in root.iter(f"{SM}changefreq")] == ["daily"]
    assert no_temporaries(tmp_path)


def test_namespaces_only_for_extensions_used_per_part(tmp_path: Path, check_set: CheckSet) -> None:
    entries = [
        UrlEntry(f"{BASE}a"),
        UrlEntry(f"{BASE}b", images=(Image(f"{BASE}b.png"),)),
        UrlEntry(f"{BASE}c"),
    ]
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE, max_urls=2))
    part1, part2 = (
        (tmp_path / "sitemap-1.xml").read_text(),
        (tmp_path / "sitemap-2.xml").read_text(),
    )
    assert 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"' in part1
    assert "xmlns:image" not in part2
    assert "xmlns:video" not in part1
    check_set(result.files)


def test_every_extension_validates(tmp_path: Path, check_set: CheckSet) -> None:
    page = f"{BASE}watch/ü"
    entry = UrlEntry(
        page,
        lastmod="2024-02-29T23:59:59Z",
        changefreq="weekly",
        priority=1,
        images=(
            Image(f"{BASE}a.png"),
            Image(f"{BASE}b.png", caption="A <b> & 'c'", title="T", geo_location="X", license=BASE),
        ),
        videos=(
            Video(
                thumbnail_loc=f"{BASE}t.jpg",
                title="Grilling & <steaks>",
                description='"Alkis" \x07cooks',
                content_loc=f"{BASE}v.mp4",
                player_loc=f"{BASE}player?v=1&x=2",
                duration=600,
                expiration_date="2030-01-01",
                rating=4.2,
                view_count=12345,
                publication_date=datetime(2024, 1, 1, 8, tzinfo=UTC),
                tags=("steak", "meat"),
                family_friendly=True,
                requires_subscription=False,
                uploader="GrillyMcGrillerson",
                uploader_info=f"{BASE}users/grilly",
                live=False,
            ),
        ),
        news=News("The Example Times", "en", "2024-01-01T10:00:00+01:00", "Breaking & new"),
        alternates=(
            Alternate("en", page),
            Alternate("de-DE", f"{BASE}de/"),
            Alternate("x-default", BASE),
        ),
    )
    # the alternates list each other back: the writer checks reciprocity over the set
    peers = [UrlEntry(href, alternates=entry.alternates) for href in (f"{BASE}de/", BASE)]
    result = write_sitemaps(
        [entry, UrlEntry(f"{BASE}plain"), *peers], tmp_path, WriterOptions(base_url=BASE)
    )
    check_set(result.files)
    assert result.dropped_chars == 1
    root = read_xml(result.root)
    ns = {"v": limits.VIDEO_NS, "i": limits.IMAGE_NS, "n": limits.NEWS_NS, "x": limits.XHTML_NS}
    assert root.findtext(".//v:title", namespaces=ns) == "Grilling & <steaks>"
    assert root.findtext(".//v:description", namespaces=ns) == '"Alkis" cooks'
    assert root.findtext(".//i:caption", namespaces=ns) == "A <b> & 'c'"
    assert root.findtext(".//n:title", namespaces=ns) == "Breaking & new"
    links = root.findall(f"./{{{limits.SITEMAP_NS}}}url/x:link", namespaces=ns)[:3]
    assert [link.get("hreflang") for link in links] == ["en", "de-DE", "x-default"]
    assert links[0].get("href") == "https://example.com/watch/%C3%BC"
    video = root.find(".//v:video", namespaces=ns)
    assert video is not None
    order = [child.tag.split("}")[1] for child in video]
    assert order == [
        "thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration",
        "expiration_date", "rating", "view_count", "publication_date", "tag", "tag",
        "family_friendly", "requires_subscription", "uploader", "live",
    ]  # fmt: skip


def test_exactly_50000_entries_fit_and_one_more_splits(tmp_path: Path, check_set: CheckSet) -> None:
    one = tmp_path / "one"
    result = write_sitemaps(urls(50_000), one, WriterOptions(base_url=BASE, fsync=False))
    assert result.files == [one / "sitemap.xml"]
    assert len(locs(result.root)) == 50_000
    check_set(result.files)

    two = tmp_path / "two"
    result = write_sitemaps(urls(50_001), two, WriterOptions(base_url=BASE, fsync=False))
    assert result.is_index
    assert [p.name for p in result.files] == ["sitemap-1.xml", "sitemap-2.xml", "sitemap.xml"]
    assert len(locs(two / "sitemap-1.xml")) == 50_000
    assert locs(two / "sitemap-2.xml") == [f"{BASE}p/50000"]
    assert locs(two / "sitemap.xml") == [f"{BASE}sitemap-1.xml", f"{BASE}sitemap-2.xml"]
    check_set(result.files)


def test_exactly_the_byte_limit_fits(tmp_path: Path, check_set: CheckSet) -> None:
    entries = entries_of_exact_size(50_000, limits.MAX_BYTES_PER_FILE)
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE, fsync=False))
    assert result.files == [tmp_path / "sitemap.xml"]
    assert result.root.stat().st_size == 52_428_800
    assert result.bytes == 52_428_800
    check_set(result.files)


def test_one_byte_over_the_limit_splits(tmp_path: Path) -> None:
    entries = entries_of_exact_size(50_000, limits.MAX_BYTES_PER_FILE)
    entries[-1] = UrlEntry(entries[-1].loc + "b")
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE, fsync=False))
    assert result.is_index
    first, second = tmp_path / "sitemap-1.xml", tmp_path / "sitemap-2.xml"
    assert first.stat().st_size == 52_428_800 - (len(entries[-1].loc) - 1 + PLAIN_LINE)
    assert len(locs(second)) == 1
    assert first.stat().st_size <= limits.MAX_BYTES_PER_FILE


def test_lower_byte_limit_is_exact_including_namespace_growth(tmp_path: Path) -> None:
    """A part is filled greedily: the next part's first entry would not have fit."""
    rng = random.Random(7)
    entries = []
    for i in range(400):
        kind = rng.random()
        loc = f"{BASE}{i}/" + "x" * rng.randrange(0, 300)
        if kind < 0.2:
            entries.append(UrlEntry(loc, images=(Image(f"{BASE}{i}.png"),)))
        elif kind < 0.3:
            entries.append(UrlEntry(loc, alternates=(Alternate("en", loc),)))
        else:
            entries.append(UrlEntry(loc, lastmod="2024-01-01"))
    max_bytes = 5_000
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE, max_bytes=max_bytes))
    parts = result.files[:-1]
    assert len(parts) > 10
    for prev, nxt in itertools.pairwise(parts):
        data = prev.read_bytes()
        assert len(data) <= max_bytes
        first_line = nxt.read_bytes().split(b"\n")[2] + b"\n"
        ns = 0
        for flag, prefix in ((render.NS_IMAGE, b"<image:"), (render.NS_XHTML, b"<xhtml:")):
            if prefix in data or prefix in first_line:
                ns |= flag
        body = len(data) - len(render.urlset_head(_ns_of(data)).encode()) - TAIL
        assert len(render.urlset_head(ns).encode()) + body + len(first_line) + TAIL > max_bytes
    assert sum(len(locs(p)) for p in parts) == 400


def _ns_of(data: bytes) -> int:
    ns = 0
    if b"xmlns:image" in data:
        ns |= render.NS_IMAGE
    if b"xmlns:xhtml" in data:
        ns |= render.NS_XHTML
    return ns


def test_1000_news_fit_and_one_more_splits(tmp_path: Path, check_set: CheckSet) -> None:
    def news(n: int) -> list[UrlEntry]:
        return [
            UrlEntry(f"{BASE}n/{i}", news=News("Times", "en", "2024-01-01", f"Story {i}"))
            for i in range(n)
        ]

    result = write_sitemaps(news(1000), tmp_path / "a", WriterOptions(base_url=BASE))
    assert not result.is_index
    check_set(result.files)
    result = write_sitemaps(
        [*news(1001), UrlEntry(f"{BASE}plain")], tmp_path / "b", WriterOptions(base_url=BASE)
    )
    assert [len(locs(p)) for p in result.files[:-1]] == [1000, 2]
    check_set(result.files)


def test_loc_length_limit_is_2048_characters(tmp_path: Path) -> None:
    ok = BASE + "a" * (2047 - len(BASE))
    too_long = ok + "a"
    assert len(ok) == 2047
    result = write_sitemaps([UrlEntry(ok)], tmp_path, WriterOptions(base_url=BASE))
    assert locs(result.root) == [ok]
    with pytest.raises(EntryError) as info:
        write_sitemaps([UrlEntry(too_long)], tmp_path / "x", WriterOptions(base_url=BASE))
    assert info.value.rule == "loc-too-long"
    # the limit applies to the escaped URI: 1,000 "é" become 6,000 characters
    with pytest.raises(EntryError) as info:
        write_sitemaps([UrlEntry(BASE + "é" * 400)], tmp_path / "y", WriterOptions())
    assert info.value.rule == "loc-too-long"


def test_dedup_exact_through_table_growth(tmp_path: Path) -> None:
    """The duplicate check while its table grows under the writer: every duplicate, no other."""
    rng = random.Random(3)
    pairs = [(f"{BASE}p/{rng.randrange(300_000)}", f"2024-01-{rng.randrange(1, 29):02d}")
             for _ in range(400_000)]  # fmt: skip
    first: dict[str, str] = {}
    for loc, lm in pairs:
        first.setdefault(loc, lm)
    with SitemapSetWriter(tmp_path, WriterOptions(base_url=BASE, fsync=False)) as writer:
        writer.add_all(pairs)
        seen = writer._seen
        assert seen is not None
        assert seen.mask.bit_length() > MIN_BITS  # the table grew while the writer filled it
        result = writer.commit()
    assert result.urls == len(first)
    assert result.duplicates == len(pairs) - len(first)
    written = [loc for part in result.files[:-1] for loc in locs(part)]
    assert written == list(first)  # first wins, in input order
    text = "".join(part.read_text() for part in result.files[:-1])
    assert text.count("<lastmod>") == len(first)
    assert all(f"<loc>{loc}</loc><lastmod>{lm}</lastmod>" in text for loc, lm in
               itertools.islice(first.items(), 0, None, 997))  # fmt: skip


def test_duplicates_are_written_once_first_wins(tmp_path: Path) -> None:
    entries = [
        UrlEntry(f"{BASE}a", lastmod="2024-01-01"),
        UrlEntry(f"{BASE}b"),
        UrlEntry(f"{BASE}a", lastmod="2024-02-02"),
        UrlEntry("https://EXAMPLE.com/a"),  # the same URI once normalised
    ]
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE))
    assert result.duplicates == 2
    assert locs(result.root) == [f"{BASE}a", f"{BASE}b"]
    assert "2024-01-01" in result.root.read_text()
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE, dedup=False))
    assert result.duplicates == 0
    assert len(locs(result.root)) == 4


def test_scope_is_enforced_and_reported(tmp_path: Path) -> None:
    base = "https://example.com/blog/"
    with pytest.raises(EntryError) as info:
        write_sitemaps(
            [UrlEntry("https://other.com/blog/x")], tmp_path, WriterOptions(base_url=base)
        )
    assert info.value.rule == "loc-other-host"
    with pytest.raises(EntryError) as info:
        write_sitemaps(
            [UrlEntry("https://example.com/shop/x")], tmp_path, WriterOptions(base_url=base)
        )
    assert info.value.rule == "loc-outside-directory"
    options = WriterOptions(base_url=base, allow_other_hosts=True)
    entries = [
        UrlEntry("https://example.com/blog/a"),
        UrlEntry("https://example.com:443/blog/b"),
        UrlEntry("https://other.com/x"),
        UrlEntry("http://example.com/blog/c"),
        UrlEntry("https://example.com/shop/x"),
    ]
    result = write_sitemaps(entries, tmp_path, options)
    assert result.urls == 5
    assert result.out_of_scope == {"loc-other-host": 2, "loc-outside-directory": 1}
    assert result.robots_line == "Sitemap: https://example.com/blog/sitemap.xml"


def test_skip_invalid_counts_reasons(tmp_path: Path) -> None:
    entries = [
        UrlEntry(f"{BASE}a"),
        UrlEntry("ftp://example.com/x"),
        UrlEntry(f"{BASE}b", lastmod="2024-13-01"),
        UrlEntry(f"{BASE}c", lastmod="2024-01"),
        UrlEntry(f"{BASE}d", changefreq="sometimes"),
        UrlEntry(f"{BASE}e", priority=1.5),
        UrlEntry(f"{BASE}f", lastmod="2024-01-01T10:00:00"),
        UrlEntry(f"{BASE}g", alternates=(Alternate("en_US", f"{BASE}g"),)),
        UrlEntry(f"{BASE}h", alternates=(Alternate("en", f"{BASE}other"),)),
        UrlEntry(f"{BASE}i", news=News("T", "English", "2024-01-01", "x")),
        UrlEntry(f"{BASE}j", videos=(Video(f"{BASE}t.jpg", "t", "d"),)),
        UrlEntry(f"{BASE}k", videos=(Video(f"{BASE}t.jpg", "t" * 101, "d", content_loc=BASE),)),
        UrlEntry(f"{BASE}l", videos=(Video(f"{BASE}t.jpg", "t", "d", content_loc=f"{BASE}l"),)),
    ]
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE, skip_invalid=True))
    # only the entry without a usable loc is refused; every page keeps its URL and loses
    # only the annotation that broke a rule
    assert result.urls == 12
    assert result.skipped == {"loc-not-absolute": 1}
    assert result.annotations_dropped == {
        "lastmod-invalid": 1,
        "lastmod-imprecise": 1,
        "changefreq-invalid": 1,
        "priority-invalid": 1,
        "lastmod-no-timezone": 1,
        "hreflang-code": 1,
        "hreflang-no-self": 1,
        "news-language": 1,
        "video-required": 1,
        "video-limits": 1,
        "video-same-as-page": 1,
    }
    assert len(result.annotations_examples) == 11
    assert f"hreflang-code: {BASE}g: " in result.annotations_examples[5]
    assert sorted(locs(result.root)) == sorted(e.loc for e in entries if e.loc.startswith(BASE))
    report = validate([str(result.root)], sitemap_url=f"{BASE}sitemap.xml")
    assert report.errors == 0, report.findings


def test_without_skip_invalid_a_broken_annotation_fails_the_entry(tmp_path: Path) -> None:
    with pytest.raises(EntryError) as info:
        write_sitemaps(
            [UrlEntry(f"{BASE}a", alternates=(Alternate("en-UK", f"{BASE}a"),))],
            tmp_path,
            WriterOptions(base_url=BASE),
        )
    assert info.value.rule == "hreflang-code"
    assert not list(tmp_path.iterdir())


def test_invalid_entry_leaves_writer_usable(tmp_path: Path) -> None:
    with SitemapSetWriter(tmp_path, WriterOptions(base_url=BASE)) as writer:
        writer.add(UrlEntry(f"{BASE}a"))
        with pytest.raises(EntryError):
            writer.add(UrlEntry(f"{BASE}b", lastmod="yesterday"))
        writer.add(UrlEntry(f"{BASE}b"))  # the failed entry was not remembered as seen
        result = writer.commit()
    assert locs(result.root) == [f"{BASE}a", f"{BASE}b"]


def test_split_without_base_url_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(LimitError, match="--base-url") as info:
        write_sitemaps(urls(3), tmp_path, WriterOptions(max_urls=2))
    assert info.value.limit == "index-needs-base-url"
    assert list(tmp_path.iterdir()) == []


def test_no_base_url_gives_a_hint_not_a_robots_line(tmp_path: Path) -> None:
    result = write_sitemaps(urls(2), tmp_path, WriterOptions())
    assert result.robots_line is None
    assert result.robots_hint is not None
    assert "--base-url" in result.robots_hint


def test_too_many_parts_fail_clearly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_SITEMAPS_PER_INDEX", 3)
    with pytest.raises(LimitError, match="indexes never nest"):
        write_sitemaps(urls(4), tmp_path, WriterOptions(base_url=BASE, max_urls=1))
    assert list(tmp_path.iterdir()) == []
    write_sitemaps(urls(3), tmp_path, WriterOptions(base_url=BASE, max_urls=1))


def test_gzip_set(tmp_path: Path, check_set: CheckSet) -> None:
    entries = [UrlEntry(f"{BASE}p/{i}", lastmod="2024-01-01") for i in range(25)]
    options = WriterOptions(base_url=BASE, gzip=True, max_urls=10)
    result = write_sitemaps(entries, tmp_path, options)
    names = [p.name for p in result.files]
    assert names == ["sitemap-1.xml.gz", "sitemap-2.xml.gz", "sitemap-3.xml.gz", "sitemap.xml.gz"]
    assert result.robots_line == "Sitemap: https://example.com/sitemap.xml.gz"
    check_set(result.files)
    assert locs(tmp_path / "sitemap.xml.gz")[0] == f"{BASE}sitemap-1.xml.gz"
    raw = sum(len(gzip.decompress(p.read_bytes())) for p in result.files)
    assert result.bytes == raw


def test_gzip_limits_count_uncompressed_bytes(tmp_path: Path) -> None:
    entries = entries_of_exact_size(10, 4_000)
    result = write_sitemaps(entries, tmp_path, WriterOptions(gzip=True, max_bytes=4_000))
    assert len(gzip.decompress(result.root.read_bytes())) == 4_000
    entries[0] = UrlEntry(entries[0].loc + "z")
    result = write_sitemaps(
        entries, tmp_path, WriterOptions(base_url=BASE, gzip=True, max_bytes=4_000)
    )
    assert result.is_index


def test_text_output(tmp_path: Path) -> None:
    entries = [UrlEntry(f"{BASE}a?x=1&y=2"), UrlEntry(f"{BASE}ü", images=(Image(f"{BASE}i.png"),))]
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE, text=True))
    assert result.root == tmp_path / "sitemap.txt"
    assert result.root.read_text() == f"{BASE}a?x=1&y=2\n{BASE}%C3%BC\n"
    result = write_sitemaps(urls(3), tmp_path, WriterOptions(base_url=BASE, text=True, max_urls=2))
    assert [p.name for p in result.files] == ["sitemap-1.txt", "sitemap-2.txt", "sitemap.xml"]
    assert not (tmp_path / "sitemap.txt").exists()
    assert locs(tmp_path / "sitemap.xml") == [f"{BASE}sitemap-1.txt", f"{BASE}sitemap-2.txt"]
    result = write_sitemaps(urls(2), tmp_path, WriterOptions(base_url=BASE, text=True, gzip=True))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".sitemapkit-manifest.json",
        "sitemap.txt.gz",
    ]
    assert gzip.decompress(result.root.read_bytes()) == f"{BASE}p/0\n{BASE}p/1\n".encode()


def test_index_lastmod_is_the_latest_of_each_part(tmp_path: Path, check_set: CheckSet) -> None:
    entries = [
        UrlEntry(f"{BASE}a", lastmod="2024-01-01"),
        UrlEntry(f"{BASE}b", lastmod="2024-03-01T00:00:00+01:00"),
        UrlEntry(f"{BASE}c"),
        UrlEntry(f"{BASE}d", lastmod="2023-01-01"),
    ]
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE, max_urls=2))
    index = read_xml(result.root)
    assert [el.text for el in index.iter(f"{SM}lastmod")] == [
        "2024-03-01T00:00:00+01:00",
        "2023-01-01",
    ]
    check_set(result.files)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def _failing(n: int, exc: BaseException) -> Iterator[UrlEntry]:
    yield from urls(n, start=1000)
    raise exc


@pytest.mark.parametrize("exc", [RuntimeError("disk on fire"), KeyboardInterrupt()])
def test_crash_mid_write_keeps_previous_set(tmp_path: Path, exc: BaseException) -> None:
    options = WriterOptions(base_url=BASE, max_urls=2, gzip=isinstance(exc, KeyboardInterrupt))
    write_sitemaps(urls(5), tmp_path, options)
    before = _snapshot(tmp_path)
    with pytest.raises(type(exc)):
        write_sitemaps(_failing(7, exc), tmp_path, options)
    assert _snapshot(tmp_path) == before
    assert no_temporaries(tmp_path)


def test_smaller_run_removes_stale_parts(tmp_path: Path, check_set: CheckSet) -> None:
    (tmp_path / "keep-me.xml").write_text("not ours")
    write_sitemaps(urls(7), tmp_path, WriterOptions(base_url=BASE, max_urls=2))
    assert len(list(tmp_path.glob("sitemap-*.xml"))) == 4
    result = write_sitemaps(urls(3), tmp_path, WriterOptions(base_url=BASE, max_urls=2))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".sitemapkit-manifest.json",
        "keep-me.xml",
        "sitemap-1.xml",
        "sitemap-2.xml",
        "sitemap.xml",
    ]
    check_set(result.files)
    result = write_sitemaps(urls(1), tmp_path, WriterOptions(base_url=BASE))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        ".sitemapkit-manifest.json",
        "keep-me.xml",
        "sitemap.xml",
    ]
    assert read_xml(result.root).tag == f"{SM}urlset"


def test_no_url_publishes_nothing_and_keeps_the_set_there(tmp_path: Path) -> None:
    """An empty ``<urlset>`` fails the sitemaps.org XSD (``url`` minOccurs=1): RULES.md's
    ``urlset-empty`` is only a warning when *reading* (Google tolerates one), but our
    writer never publishes a file that fails the schema.  It refuses, names the rule, and
    leaves the set already in the folder as it was (a site that turned every page noindex
    overnight keeps yesterday's sitemap until someone decides)."""
    write_sitemaps(["https://example.com/a"], tmp_path, WriterOptions())
    before = (tmp_path / "sitemap.xml").read_bytes()
    for options in (WriterOptions(), WriterOptions(gzip=True), WriterOptions(text=True)):
        with pytest.raises(EmptySetError, match="urlset-empty") as caught:
            write_sitemaps([], tmp_path, options)
        assert caught.value.limit == "urlset-empty"
    assert (tmp_path / "sitemap.xml").read_bytes() == before
    assert no_temporaries(tmp_path)
    fresh = tmp_path / "fresh"
    with pytest.raises(EmptySetError):
        write_sitemaps([], fresh, WriterOptions())
    assert not list(fresh.glob("sitemap*"))


def test_large_part_spills_to_disk_and_stays_exact(tmp_path: Path, check_set: CheckSet) -> None:
    entries = entries_of_exact_size(8_000, 10_485_760)  # > the 8 MiB in-memory part buffer
    result = write_sitemaps(entries, tmp_path, WriterOptions(max_bytes=10_485_760, fsync=False))
    assert result.root.stat().st_size == 10_485_760
    assert locs(result.root)[-1] == entries[-1].loc
    assert no_temporaries(tmp_path)
    check_set(result.files)


def test_options_are_checked() -> None:
    with pytest.raises(InputError):
        WriterOptions(max_urls=50_001)
    with pytest.raises(InputError):
        WriterOptions(max_bytes=52_428_801)
    with pytest.raises(InputError):
        WriterOptions(basename="../x")


def test_writer_is_single_use(tmp_path: Path) -> None:
    writer = SitemapSetWriter(tmp_path, WriterOptions())
    writer.add(UrlEntry(f"{BASE}a"))
    writer.commit()
    with pytest.raises(Exception, match="already"):
        writer.add(UrlEntry(f"{BASE}b"))


def test_add_and_add_all_write_the_same(tmp_path: Path) -> None:
    rng = random.Random(3)
    entries: list[EntryLike] = []
    for _ in range(3000):
        i = rng.randrange(2000)
        loc = rng.choice([f"{BASE}p/{i}", f"{BASE}p/{i}?q=ü&r='1'", f"https://other.com/{i}"])
        entries.append(
            UrlEntry(loc, lastmod=rng.choice([None, "2024-01-01", date(2024, 5, i % 28 + 1)]))
        )
    options = WriterOptions(base_url=BASE, max_urls=700, skip_invalid=True, fsync=False)
    a = write_sitemaps(entries, tmp_path / "a", options)
    with SitemapSetWriter(tmp_path / "b", options) as writer:
        for entry in entries:
            writer.add(entry)
        b = writer.commit()
    assert (a.urls, a.duplicates, a.skipped) == (b.urls, b.duplicates, b.skipped)
    for pa, pb in zip(a.files, b.files, strict=True):
        assert pa.read_bytes().replace(b"/a/", b"/b/") == pb.read_bytes()


async def test_async_api(tmp_path: Path) -> None:
    async def source() -> AsyncIterator[UrlEntry]:
        for entry in urls(5):
            await asyncio.sleep(0)
            yield entry

    result = await write_sitemaps_async(
        source(), tmp_path, WriterOptions(base_url=BASE, max_urls=2)
    )
    assert result.urls == 5
    assert result.is_index


def test_short_entry_forms(tmp_path: Path) -> None:
    entries: list[EntryLike] = [f"{BASE}a", (f"{BASE}b", "2024-01-01"), (f"{BASE}c", None)]
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE))
    assert locs(result.root) == [f"{BASE}a", f"{BASE}b", f"{BASE}c"]
    with pytest.raises(EntryError):
        write_sitemaps([(f"{BASE}a", "2024-01-01", "x")], tmp_path, WriterOptions())  # type: ignore[list-item]


def test_memory_stays_flat_without_dedup(tmp_path: Path) -> None:
    """Part bodies are dropped once on disk: peak Python memory does not grow with the set."""
    import tracemalloc

    def peak(n: int) -> int:
        tracemalloc.start()
        try:
            write_sitemaps(
                ((f"{BASE}p/{i}", "2024-01-01") for i in range(n)),
                tmp_path / str(n),
                WriterOptions(base_url=BASE, dedup=False, fsync=False, max_urls=2_000),
            )
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(10_000), peak(100_000)
    assert large < small * 1.5 + 1_000_000


def test_same_instant_in_two_offsets_keeps_each_offset(tmp_path: Path) -> None:
    from datetime import timedelta, timezone

    a = datetime(2024, 1, 1, 12, tzinfo=UTC)
    b = datetime(2024, 1, 1, 13, tzinfo=timezone(timedelta(hours=1)))
    assert a == b
    result = write_sitemaps([(f"{BASE}a", a), (f"{BASE}b", b)], tmp_path, WriterOptions())
    lastmods = [el.text for el in read_xml(result.root).iter(f"{SM}lastmod")]
    assert lastmods == ["2024-01-01T12:00:00Z", "2024-01-01T13:00:00+01:00"]


@pytest.mark.parametrize(
    ("max_urls", "max_bytes"), [(50_000, limits.MAX_BYTES_PER_FILE), (7, 2_000), (1000, 1_000)]
)
def test_add_plain_writes_what_add_all_writes(
    tmp_path: Path, max_urls: int, max_bytes: int
) -> None:
    """Bulk runs (split by count and by bytes, duplicates, escapes) equal entry by entry."""
    urls = [f"{BASE}p/{i % 45}" + ("?a=1&b='x'" if i % 3 else "") for i in range(120)]
    options = WriterOptions(base_url=BASE, max_urls=max_urls, max_bytes=max_bytes)
    with SitemapSetWriter(tmp_path / "bulk", options) as writer:
        writer.reserve(len(urls))
        for start in range(0, len(urls), 25):
            assert writer.add_plain(urls[start : start + 25])
        bulk = writer.commit()
    one = write_sitemaps(urls, tmp_path / "one", options)
    assert (bulk.urls, bulk.duplicates, bulk.bytes) == (one.urls, one.duplicates, one.bytes)
    for a, b in zip(bulk.files, one.files, strict=True):
        assert a.read_bytes() == b.read_bytes()


def test_add_plain_refuses_a_run_it_cannot_take_whole(tmp_path: Path) -> None:
    with SitemapSetWriter(tmp_path, WriterOptions(base_url=BASE)) as writer:
        for run in (
            [f"{BASE}a", "https://other.example/"],
            [f"{BASE}a", f"{BASE}caf\u00e9"],
            [f"{BASE}a", f"{BASE}%41"],
            [f"{BASE}{'x' * limits.MAX_LOC_LENGTH}"],
            [f"{BASE}a\n{BASE}b"],  # a newline inside one URL, not two URLs
            [f"{BASE}a", f"x{BASE}b", f"{BASE}c{BASE}"],  # the prefix counted mid-URL
            [f"{BASE}a", "", f"{BASE}b"],
        ):
            assert not writer.add_plain(run)
        assert writer.urls == 0
        assert writer.add_plain([])
    assert not SitemapSetWriter(tmp_path, WriterOptions()).add_plain([f"{BASE}a"])  # no base URL
