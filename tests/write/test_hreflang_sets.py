"""The writer applies the hreflang set rules it can know before it publishes.

Self-link, conflicts and reciprocity within the set: with ``skip_invalid`` the page is
written without the broken alternates (counted by code); without it the build fails
naming them.  Whatever is written, the validator finds no error in it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sitemapdata.xmlread import locs, read_xml
from sitemapkit import limits
from sitemapkit.errors import EntryError
from sitemapkit.model import Alternate, UrlEntry
from sitemapkit.validate.validator import validate
from sitemapkit.write.writer import WriterOptions, write_sitemaps

BASE = "https://example.com/"
XHTML = f"{{{limits.XHTML_NS}}}link"


def _alts(*pairs: tuple[str, str]) -> tuple[Alternate, ...]:
    return tuple(Alternate(code, href) for code, href in pairs)


def _links(root: Path) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for url in read_xml(root):
        loc = url.findtext(f"{{{limits.SITEMAP_NS}}}loc") or ""
        out[loc] = [link.get("hreflang") or "" for link in url.iter(XHTML)]
    return out


def _errors(root: Path) -> list[str]:
    report = validate([str(root)], sitemap_url=f"{BASE}sitemap.xml")
    return [f"{f.code}: {f.message}" for f in report.findings if f.severity.name == "ERROR"]


def test_not_reciprocal_alternates_are_dropped_and_the_page_kept(tmp_path: Path) -> None:
    en, de = f"{BASE}en", f"{BASE}de"
    entries = [
        UrlEntry(en, alternates=_alts(("en", en), ("de", de))),
        UrlEntry(de, alternates=_alts(("de", de))),  # does not list en back
        UrlEntry(f"{BASE}fr", alternates=_alts(("fr", f"{BASE}fr"), ("en", f"{BASE}gone"))),
        UrlEntry(f"{BASE}plain"),
    ]
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE, skip_invalid=True))
    assert result.urls == 4
    assert sorted(locs(result.root)) == sorted(e.loc for e in entries)
    assert result.skipped == {}
    assert result.annotations_dropped == {"hreflang-not-reciprocal": 2}
    links = _links(result.root)
    assert links[en] == []
    assert links[f"{BASE}fr"] == []
    assert links[de] == ["de"]  # lists only itself: nothing to be reciprocal with
    assert _errors(result.root) == []


def test_not_reciprocal_alternates_fail_the_build_without_skip_invalid(tmp_path: Path) -> None:
    (tmp_path / "sitemap.xml").write_text("previous")
    entries = [
        UrlEntry(f"{BASE}en", alternates=_alts(("en", f"{BASE}en"), ("de", f"{BASE}de"))),
        UrlEntry(f"{BASE}de", alternates=_alts(("de", f"{BASE}de"))),
    ]
    with pytest.raises(EntryError) as info:
        write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE))
    assert info.value.rule == "hreflang-not-reciprocal"
    assert f'"{BASE}en" lists "{BASE}de"' in str(info.value)
    assert (tmp_path / "sitemap.xml").read_text() == "previous"


def test_bad_codes_and_conflicts_lose_only_those_links(tmp_path: Path) -> None:
    a, b = f"{BASE}a", f"{BASE}b"
    # both pages carry the same broken links, so once they are dropped the sets still agree
    alts = _alts(("en", a), ("de", b), ("en-UK", a), ("zz", b), ("en", f"{BASE}c"))
    entries = [UrlEntry(a, alternates=alts), UrlEntry(b, alternates=alts)]
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE, skip_invalid=True))
    assert result.annotations_dropped == {"hreflang-code": 4, "hreflang-conflict": 2}
    assert _links(result.root) == {a: ["en", "de"], b: ["en", "de"]}
    assert _errors(result.root) == []


def test_no_self_link_drops_the_alternates_not_the_page(tmp_path: Path) -> None:
    a = f"{BASE}a"
    entries = [UrlEntry(a, alternates=_alts(("en-UK", a), ("de", f"{BASE}b")))]
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE, skip_invalid=True))
    assert locs(result.root) == [a]
    assert result.annotations_dropped == {"hreflang-code": 1, "hreflang-no-self": 1}
    assert _errors(result.root) == []


def test_an_alternate_on_another_host_is_written(tmp_path: Path) -> None:
    en, jp = f"{BASE}en", "https://example.jp/ja"
    entries = [UrlEntry(en, alternates=_alts(("en", en), ("ja", jp)))]
    result = write_sitemaps(entries, tmp_path, WriterOptions(base_url=BASE))
    assert _links(result.root) == {en: ["en", "ja"]}
    report = validate([str(result.root)], sitemap_url=f"{BASE}sitemap.xml")
    assert report.errors == 0, report.findings
    assert any("other hosts" in key for key in report.skipped)


def test_pages_with_alternates_keep_their_part_limits(tmp_path: Path) -> None:
    """Held pages are placed at commit through the same split as every other entry."""
    pages = [f"{BASE}p{i}" for i in range(7)]
    alts = _alts(
        *(
            (f"en-{c}", p)
            for c, p in zip(("GB", "US", "AU", "CA", "IE", "NZ", "IN"), pages, strict=True)
        )
    )
    entries = [UrlEntry(p, alternates=alts) for p in pages] + [
        UrlEntry(f"{BASE}z{i}") for i in range(5)
    ]
    options = WriterOptions(base_url=BASE, max_urls=5, fsync=False)
    result = write_sitemaps(entries, tmp_path, options)
    assert result.urls == 12
    assert result.parts == 3
    written = [loc for part in result.files[:-1] for loc in locs(part)]
    assert sorted(written) == sorted(e.loc for e in entries)
    assert _errors(result.root) == []
