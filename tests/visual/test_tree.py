"""The site tree on its own: shape, counts, collapse, depth tree, hostile input."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from sitemapkit.model import PageRecord
from sitemapkit.visual.payload import build_payload, node_urls
from sitemapkit.visual.tree import Kind, SiteTree, join_url, natural_key, split_url

from .shop import DEEP_URL, HOME, SCRIPT_TITLE, shop_records


def build(*urls: str, **kw: object) -> SiteTree:
    return SiteTree.from_records(PageRecord(u, **kw) for u in urls)  # type: ignore[arg-type]


def find(tree: SiteTree, url: str) -> int:
    hits = [n.index for n in tree.nodes if n.record is not None and n.record.url == url]
    assert len(hits) == 1, url
    return hits[0]


def path_of(tree: SiteTree, i: int) -> list[str]:
    out = []
    while i >= 0:
        out.append(tree.nodes[i].segment)
        i = tree.nodes[i].parent
    return out[::-1]


def test_host_is_root_and_sections_hang_under_it() -> None:
    tree = build("https://x.example/", "https://x.example/a/", "https://x.example/a/b")
    root = tree.nodes[tree.root]
    assert root.kind is Kind.HOST
    assert root.record is not None
    assert root.record.url == "https://x.example/"
    assert path_of(tree, find(tree, "https://x.example/a/b")) == ["https://x.example", "a", "b"]
    assert tree.page_total == 3


def test_missing_folders_become_virtual_nodes() -> None:
    tree = build("https://x.example/a/b/c/page")
    kinds = [tree.nodes[i].kind for i, _ in tree.walk()]
    assert kinds == [Kind.HOST, Kind.FOLDER, Kind.FOLDER, Kind.FOLDER, Kind.PAGE]
    assert tree.nodes[tree.root].record is None  # home page never seen
    assert tree.page_total == 1


def test_page_that_is_also_a_folder_holds_its_children() -> None:
    tree = build("https://x.example/blog", "https://x.example/blog/post-1")
    blog = find(tree, "https://x.example/blog")
    assert tree.nodes[blog].kind is Kind.PAGE
    assert [tree.nodes[c].segment for c in tree.nodes[blog].children] == ["post-1"]
    assert tree.nodes[blog].pages == 2


def test_both_slash_forms_of_one_url_are_kept() -> None:
    tree = build("https://x.example/blog", "https://x.example/blog/", "https://x.example/blog")
    assert tree.page_total == 2
    assert tree.duplicates == 1
    assert {n.record.url for n in tree.nodes if n.record} == {
        "https://x.example/blog",
        "https://x.example/blog/",
    }


def test_query_strings_hang_under_their_path() -> None:
    tree = build("https://x.example/search", "https://x.example/search?q=a&p=2")
    q = find(tree, "https://x.example/search?q=a&p=2")
    assert tree.nodes[q].is_query
    assert tree.nodes[q].segment == "?q=a&p=2"
    assert tree.nodes[tree.nodes[q].parent].record is not None
    assert tree.nodes[q].label == "?q=a&p=2"


def test_several_hosts_get_a_site_root() -> None:
    tree = build("https://a.example/", "https://b.example/x", "http://a.example/")
    assert tree.nodes[tree.root].kind is Kind.SITE
    hosts = sorted(tree.nodes[c].segment for c in tree.nodes[tree.root].children)
    assert hosts == ["http://a.example", "https://a.example", "https://b.example"]


def test_children_are_sorted_biggest_first_then_by_name() -> None:
    urls = [
        "https://x.example/z/1",
        "https://x.example/z/2",
        "https://x.example/a",
        "https://x.example/m",
    ]
    tree = build(*urls)
    assert [tree.nodes[c].segment for c in tree.nodes[tree.root].children] == ["z", "a", "m"]
    # stored in pre-order: a parent always comes before its children
    assert all(n.parent < n.index for n in tree.nodes if n.parent >= 0)


def test_counts_children_descendants_pages() -> None:
    tree = SiteTree.from_records(shop_records(catalog=30))
    products = find(tree, f"{HOME}products/")
    assert len(tree.nodes[products].children) == 4
    # 4 subsections x (1 + 4 items) + the "?colour=red" query page
    assert tree.nodes[products].pages == 1 + 4 * 5 + 1
    assert tree.descendants(products) == 4 * 5 + 1
    assert tree.page_total == len(shop_records(catalog=30))


def test_big_branches_collapse_into_more_groups() -> None:
    tree = SiteTree.from_records(shop_records(catalog=1200))
    catalog = next(n.index for n in tree.nodes if n.segment == "catalog")
    shown, more = tree.visible_children(catalog, max_children=50)
    assert len(shown) == 50
    assert more is not None
    assert len(more.hidden) == 1150
    assert more.label == "+1150 more"
    assert more.pages == 1150
    assert set(shown).isdisjoint(more.hidden)
    small, none = tree.visible_children(find(tree, f"{HOME}blog/"), max_children=50)
    assert none is None
    assert len(small) == 3


def test_depth_tree_follows_found_from() -> None:
    tree = SiteTree.from_records(shop_records(catalog=5))
    assert tree.has_depth_tree
    assert tree.nodes[tree.depth_root].record is not None
    deep = find(tree, DEEP_URL)
    parent = tree.nodes[deep].depth_parent
    assert tree.nodes[parent].record is not None
    assert tree.nodes[parent].record.url == f"{HOME}help/guides/setup/advanced/"
    # the catalog is linked from the home page: depth 1 under the root
    p0 = find(tree, f"{HOME}catalog/p0000")
    assert tree.nodes[p0].depth_parent == tree.depth_root
    assert tree.nodes[tree.depth_root].depth_pages == tree.page_total


def test_depth_tree_derives_parents_when_the_crawl_did_not_record_them() -> None:
    recs = [
        PageRecord("https://x.example/", depth=0),
        PageRecord("https://x.example/a/", depth=1),
        PageRecord("https://x.example/a/b", depth=2),
        PageRecord("https://x.example/z/orphan", depth=3),
    ]
    tree = SiteTree.from_records(recs)
    b = find(tree, "https://x.example/a/b")
    assert tree.nodes[b].depth_parent == find(tree, "https://x.example/a/")
    orphan = tree.nodes[find(tree, "https://x.example/z/orphan")]
    # nearest path ancestor with a page is the home page (depth 0 < 3)
    assert orphan.depth_parent == tree.depth_root


def test_depth_tree_survives_found_from_cycles_and_unknown_parents() -> None:
    recs = [
        PageRecord("https://x.example/", depth=0),
        PageRecord("https://y.example/a", depth=2, extra={"found_from": "https://y.example/b"}),
        PageRecord("https://y.example/b", depth=2, extra={"found_from": "https://y.example/a"}),
        PageRecord("https://y.example/c", depth=4, extra={"found_from": "https://nowhere/"}),
    ]
    tree = SiteTree.from_records(recs)
    groups = [n for n in tree.nodes if n.kind is Kind.DEPTH_GROUP]
    assert [g.segment for g in groups] == ["depth 4"]
    # every page is reachable from the depth root exactly once
    seen = [i for i, _ in tree.walk("depth")]
    assert len(seen) == len(set(seen))
    assert {tree.nodes[i].record.url for i in seen if tree.nodes[i].record} == {r.url for r in recs}


def test_no_depth_tree_without_depths() -> None:
    tree = build("https://x.example/", "https://x.example/a")
    assert not tree.has_depth_tree
    assert list(tree.walk("depth")) == []
    assert "q" not in build_payload(tree, title="t", source_kind="list", max_children=5)


def test_colour_counts_per_mode() -> None:
    tree = SiteTree.from_records(shop_records(catalog=10))
    now = datetime(2026, 11, 22, tzinfo=UTC)
    status = tree.color_counts("status", now)
    assert status["3xx"] == 4
    assert status["4xx"] == 4
    assert status["5xx"] == 1
    assert sum(status.values()) == tree.page_total
    index = tree.color_counts("indexability", now)
    assert index["excluded: noindex"] == 1
    assert index["excluded: canonicalised-to"] == 1
    assert index["excluded: http-404"] == 4
    sections = tree.color_counts("section", now)
    assert sections["catalog"] == 10
    assert sections["/"] == 1
    depth = tree.color_counts("depth", now)
    assert depth["0"] == 1
    ages = tree.color_counts("lastmod", now)
    assert ages["30-90 days"] > 0
    assert ages["> 1 year"] > 0


def test_hostile_titles_are_kept_as_text_with_whitespace_folded() -> None:
    tree = build("https://x.example/a", title=f"  {SCRIPT_TITLE}\n\t end ")
    node = tree.nodes[find(tree, "https://x.example/a")]
    assert node.label == f"{SCRIPT_TITLE} end"


def test_blank_title_falls_back_to_the_last_segment() -> None:
    tree = build("https://x.example/docs/intro", title="   ")
    assert tree.nodes[find(tree, "https://x.example/docs/intro")].label == "intro"


def test_non_http_urls_do_not_break_the_tree() -> None:
    tree = build("mailto:someone@x.example", "https://x.example/", "javascript:alert(1)")
    assert tree.page_total == 3
    payload = build_payload(tree, title="t", source_kind="list", max_children=5)
    assert set(payload["u"].values()) == {"mailto:someone@x.example", "javascript:alert(1)"}


def test_split_url_lowercases_the_origin_only() -> None:
    got = split_url("HTTPS://X.Example/A/B/?Q=1#f")
    assert got == ("https://x.example", ["A", "B"], True, "Q=1")


segment = st.text(alphabet="abcXYZ09-._~%!$'()*+,;=:@é", min_size=0, max_size=6)


@given(
    host=st.sampled_from(["https://x.example", "http://a.b.example:8080"]),
    segs=st.lists(segment, max_size=5),
    trailing=st.booleans(),
    query=st.none() | st.text(alphabet="a=&b1?/", max_size=8),
)
def test_urls_are_rebuilt_exactly_or_stored(
    host: str, segs: list[str], trailing: bool, query: str | None
) -> None:
    url = join_url(host, segs, trailing, query)
    tree = build(url, f"{host}/other")
    payload = build_payload(tree, title="t", source_kind="list", max_children=5)
    rebuilt = node_urls(tree)
    i = find(tree, url)
    assert payload["u"].get(str(i), rebuilt[i]) == url
    # no fragment, no second form of the same URL: the page rebuilds it, nothing stored
    assert rebuilt[i] == url
    assert str(i) not in payload["u"]


def test_synthetic_roots_have_a_name() -> None:
    tree = build("https://a.example/", "https://b.example/")
    assert tree.nodes[tree.root].label == "all hosts"


def test_natural_order_of_names() -> None:
    names = ["page-10", "page-2", "Page-1", "a", "b10c2", "b10c10", "", "10", "9"]
    assert sorted(names, key=natural_key) == [
        "", "9", "10", "a", "b10c2", "b10c10", "Page-1", "page-2", "page-10"
    ]  # fmt: skip


def test_sections_with_several_hosts_favour_the_main_one() -> None:
    tree = build(
        "https://main.example/",
        "https://main.example/shop/a",
        "https://main.example/shop/b",
        "https://main.example/blog/x",
        "https://other.example/shop/z",
    )
    assert tree.nodes[tree.primary_host].segment == "https://main.example"
    sections = tree.color_counts("section")
    assert sections == {"/": 1, "shop": 2, "blog": 1, "other.example": 1}


def test_percent_encoded_segments_read_decoded() -> None:
    tree = build("https://x.example/caf%C3%A9/menu", "https://x.example/%ZZbad")
    cafe = tree.nodes[find(tree, "https://x.example/caf%C3%A9/menu")].parent
    assert tree.nodes[cafe].label == "café"
    assert tree.nodes[find(tree, "https://x.example/%ZZbad")].label == "%ZZbad"


def test_colour_counts_under_one_branch() -> None:
    tree = SiteTree.from_records(shop_records(catalog=10))
    products = find(tree, f"{HOME}products/")
    status = tree.color_counts("status", under=products)
    assert status == {"2xx": 1 + 4 + 4 * 2 + 1, "3xx": 4, "4xx": 4}
    assert sum(status.values()) == tree.nodes[products].pages
    assert tree.color_counts("section", under=products) == {"products": 22}
