"""The map at scale: the builder's fast lane, the compact payload, deflated data, memory.

The fast lane (a URL whose folder is already known is placed with two dict
lookups) must place every URL exactly where the segment-by-segment walk does;
the payload's child counts must give back the tree's parents as the page
rebuilds them; deflated data must be the same JSON; and a big tree must not
cost an object per node again.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
import tracemalloc
import zlib
from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.model import PageRecord
from sitemapkit.visual.builder import Builder
from sitemapkit.visual.page import render_html
from sitemapkit.visual.payload import build_payload, pack, script_safe_json
from sitemapkit.visual.tree import PAGE, SiteTree, natural_key

HOSTS = ["https://x.example", "HTTPS://X.example", "http://y.example:8080"]
segment = st.sampled_from(["a", "b", "B", "a1", "a10", "a2", "", "caf%C3%A9", "p-2", "p-10"])
url_text = st.builds(
    lambda host, segs, trailing, query, frag: (
        host + "".join("/" + s for s in segs) + ("/" if trailing else "") + query + frag
    ),
    st.sampled_from(HOSTS),
    st.lists(segment, max_size=4),
    st.booleans(),
    st.sampled_from(["", "", "?q=1", "?q=1/"]),
    st.sampled_from(["", "", "#top"]),
)


def _slow_tree(urls: list[str]) -> SiteTree:
    """The same URLs, every one through the segment walk (the fast lane is never taken)."""
    builder = Builder()
    builder.heads = _NoHeads()
    builder.add_urls((u, None) for u in urls)
    return builder.finish()


class _NoHeads(dict[str, object]):
    """A folder cache that never holds anything: every URL takes the slow lane."""

    def __contains__(self, key: object) -> bool:
        return False

    def __setitem__(self, key: str, value: object) -> None:
        pass


@given(st.lists(url_text, max_size=30))
@settings(max_examples=300, deadline=None)
def test_fast_lane_places_every_url_where_the_walk_does(urls: list[str]) -> None:
    fast = SiteTree.from_urls((u, None) for u in urls)
    slow = _slow_tree(urls)
    assert fast.segments == slow.segments
    assert list(fast.parents) == list(slow.parents)
    assert fast.kinds == slow.kinds
    assert fast.overrides == slow.overrides
    assert fast.duplicates == slow.duplicates == len(urls) - len(set(urls))
    # every URL is one page, and that page gives back exactly that URL
    pages = [i for i, r in enumerate(fast.rows) if r >= 0]
    assert sorted(fast.url(i) for i in pages) == sorted(set(urls))
    assert fast.page_total == len(set(urls))
    assert all(fast.kinds[i] & PAGE for i in pages)


@given(st.lists(url_text, min_size=1, max_size=30))
@settings(max_examples=100, deadline=None)
def test_tree_is_in_preorder_with_children_biggest_first(urls: list[str]) -> None:
    tree = SiteTree.from_urls((u, None) for u in urls)
    assert [i for i, _ in tree.walk()] == list(range(tree.path_size))
    for i in range(tree.path_size):
        kids = tree.children(i)
        assert all(tree.parents[c] == i for c in kids)
        assert tree.counts[i] == (tree.rows[i] >= 0) + sum(tree.counts[c] for c in kids)
        counts = [tree.counts[c] for c in kids]
        assert counts == sorted(counts, reverse=True)


def test_urls_and_records_make_the_same_tree() -> None:
    urls = [f"https://x.example/s{i % 7}/p{i}" for i in range(500)] + ["https://x.example/"]
    a = SiteTree.from_urls((u, "2026-10-01") for u in urls)
    b = SiteTree.from_records(
        PageRecord(u, lastmod="2026-10-01", lastmod_source="sitemap") for u in urls
    )
    assert (a.segments, a.parents, a.kinds) == (b.segments, b.parents, b.kinds)
    for key in ("l", "ls"):
        assert [a.strings[i] for i in a.column(key) or []] == [
            b.strings[i] for i in b.column(key) or []
        ]
    assert a.record(5) == b.record(5)


def _reference_natural_key(text: str) -> tuple[str | int, ...]:
    parts: list[str | int] = list(re.split(r"(\d+)", text.lower()))
    if len(parts) > 1:
        parts[1::2] = [int(p) for p in parts[1::2]]
    return tuple(parts)


@given(st.text(alphabet="ab-AB019٣", max_size=12))
@settings(deadline=None)
def test_natural_key_shortcuts_agree_with_the_general_rule(text: str) -> None:
    assert natural_key(text) == _reference_natural_key(text)


def parents_from_child_counts(counts: list[int], total: int) -> list[int]:
    """What ``app.js`` does with ``n``: a stack of (node, children still to come)."""
    parents = [-1] * total
    stack: list[list[int]] = []
    for i, n in enumerate(counts):
        while stack and stack[-1][1] == 0:
            stack.pop()
        if stack:
            parents[i] = stack[-1][0]
            stack[-1][1] -= 1
        if n:
            stack.append([i, n])
    return parents


def test_child_counts_give_back_the_parents() -> None:
    from .shop import shop_records

    stray = PageRecord("https://cdn.example/x", depth=4, extra={"found_from": "https://nowhere/"})
    tree = SiteTree.from_records([*shop_records(catalog=120), stray])  # "depth 4" group
    payload = build_payload(tree, title="t", source_kind="crawl", max_children=50)
    assert len(payload["n"]) == tree.path_size < len(tree.segments)  # depth groups after
    assert parents_from_child_counts(payload["n"], len(tree.segments)) == list(tree.parents)
    assert "p" not in payload


def test_fields_no_page_has_are_left_out_and_dates_are_a_table() -> None:
    urls = [(f"https://x.example/p{i}", "2026-10-0" + str(1 + i % 3)) for i in range(30)]
    payload = build_payload(
        SiteTree.from_urls(urls), title="t", source_kind="sitemap", max_children=50
    )
    assert set(payload) & {"t", "h", "d", "x", "r", "i", "o", "c", "q"} == set()
    strings = payload["S"]
    assert {strings[i] for i in payload["l"] if i} == {"2026-10-01", "2026-10-02", "2026-10-03"}
    assert {strings[i] for i in payload["ls"] if i} == {"sitemap"}


def test_packed_data_is_the_same_json_in_safe_characters() -> None:
    value = {"t": ["</script><!-- \u2028 é \udcff"], "n": [1, 0]}
    text = script_safe_json(value)
    packed = pack(text)
    assert re.fullmatch(r"[A-Za-z0-9+/=]+", packed)
    raw = zlib.decompress(base64.b64decode(packed)).decode("utf-8")
    assert json.loads(raw)["n"] == [1, 0]
    assert json.loads(raw)["t"][0].startswith("</script><!-- \u2028 é ")


def test_big_data_goes_to_the_page_deflated() -> None:
    tree = SiteTree.from_urls((f"https://x.example/p{i}", None) for i in range(300))
    when = datetime(2026, 11, 24, tzinfo=UTC)
    plain = render_html(tree, title="t", generated=when)
    packed = render_html(tree, title="t", generated=when, pack_over=1000)
    assert '<script id="sitemap-data" type="application/json">' in plain
    m = re.search(r'data-encoding="deflate">([^<]*)</script>', packed)
    assert m is not None
    body = zlib.decompress(base64.b64decode(m.group(1))).decode("utf-8")
    plain_body = re.search(r'type="application/json">(.*?)</script>', plain, re.S)
    assert plain_body is not None
    assert json.loads(body) == json.loads(plain_body.group(1))
    assert packed.count("<script") == 2
    assert packed.count("</script>") == 2


def test_a_big_tree_costs_no_object_per_node() -> None:
    """200,000 URLs: the old tree (a node object, two lists and a record each) took ~230 MB."""
    urls = [
        f"https://www.big-retailer.example/s-{i % 20}/c-{(i // 20) % 50}/item-{i}-a-slug"
        for i in range(200_000)
    ]
    tracemalloc.start()
    try:
        tree = SiteTree.from_urls((u, "2026-10-01") for u in urls)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert tree.page_total == 200_000
    assert peak < 80 * 1024 * 1024, peak


def test_dated_locs_are_the_entries_the_reader_gives() -> None:
    """The map reads sitemaps as (loc, lastmod) rows: the same URLs, dates and findings."""
    from pathlib import Path

    from sitemapkit.read.reader import iter_dated_locs, iter_entries

    fixtures = Path(__file__).resolve().parents[1] / "sitemapdata" / "fixtures"
    names = ["good/urlset.xml", "good/urlset.xml.gz", "good/image.xml", "good/rss.xml",
             "good/atom.xml", "good/text.txt", "good/hreflang.xml", "bad/loc-not-absolute.xml",
             "bad/lastmod-invalid.xml", "bad/loc-whitespace.xml"]  # fmt: skip
    for name in names:
        source = str(fixtures / name)
        want_log: list[object] = []
        got_log: list[object] = []
        want = [(e.loc, str(e.lastmod or "")) for e in iter_entries(source, log=want_log)]
        got = [row for batch in iter_dated_locs(source, log=got_log) for row in batch]  # type: ignore[arg-type]
        assert got == want, name
        assert got_log == want_log, name
        assert want, name


@given(st.lists(st.text(alphabet="ab-A019٣", max_size=6), max_size=8))
@settings(max_examples=500, deadline=None)
def test_order_check_agrees_with_the_natural_key(names: list[str]) -> None:
    from sitemapkit.visual.builder import in_natural_order

    low = [n.lower() for n in names]
    want = all(natural_key(a) <= natural_key(b) for a, b in itertools.pairwise(low))
    assert in_natural_order(low) == want
    # and sorted names always pass
    assert in_natural_order(sorted(low, key=natural_key))
