"""Trap limits: each code, the pattern shapes, bounded counters and the resume state."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.crawl.traps import (
    TrapGuard,
    TrapLimits,
    is_calendar_pattern,
    pattern_key,
    query_signature,
    redirect_problem,
    repeated_segment,
    saved_counts,
)

H = "https://example.com"


@pytest.mark.parametrize(
    ("url", "key"),
    [
        (f"{H}/calendar/2026/11", "example.com/calendar/{year}/{n}"),
        (f"{H}/blog/post-123/", "example.com/blog/post-{n}/"),
        (f"{H}/archive/2024-05-01", "example.com/archive/{date}"),
        (f"{H}/u/550e8400-e29b-41d4-a716-446655440000", "example.com/u/{id}"),
        (f"{H}/c/5f2b9a7e1c3d4b6a", "example.com/c/{id}"),
        (f"{H}/shop?sort=price&color=red&color=blue", "example.com/shop?color&sort"),
        (f"{H}/about/", "example.com/about/"),
    ],
)
def test_pattern_key(url: str, key: str) -> None:
    assert pattern_key(url) == key


def test_calendar_shapes() -> None:
    assert is_calendar_pattern(pattern_key(f"{H}/events/2026/11"))
    assert is_calendar_pattern(pattern_key(f"{H}/events/2026/11/30/"))
    assert is_calendar_pattern(pattern_key(f"{H}/day/2026-11-30"))
    assert is_calendar_pattern(pattern_key(f"{H}/events"), "month=2026-11")
    assert not is_calendar_pattern(pattern_key(f"{H}/news/2024/05/12345.html"))
    assert not is_calendar_pattern(pattern_key(f"{H}/product/2024"))
    assert not is_calendar_pattern(pattern_key(f"{H}/page/3"))


def test_query_signature() -> None:
    assert query_signature("b=2&a=1&a=3&&c") == "a&b&c"
    assert query_signature("") == ""


def test_repeated_segment() -> None:
    assert repeated_segment("/a/b/a/b/a/b") == "a"
    assert repeated_segment("/x/x/x/") == "x"
    assert repeated_segment("/a/b/a/b") is None
    assert repeated_segment("/2024/01/01/") is None
    assert repeated_segment("/a//b///c") is None
    assert repeated_segment("/a/a/", max_repeats=2) == "a"


def test_redirect_problem() -> None:
    assert redirect_problem([f"{H}/a", f"{H}/b"]) is None
    assert redirect_problem([f"{H}/a", f"{H}/b", f"{H}/a"]) == "redirect-loop"
    assert redirect_problem([f"{H}/a", f"{H}/a"]) == "redirect-loop"
    eleven = [f"{H}/{i}" for i in range(12)]  # 11 redirects
    assert redirect_problem(eleven) == "redirect-chain"
    assert redirect_problem(eleven[:11]) is None  # exactly 10 is allowed
    assert redirect_problem(eleven[:4], max_redirects=2) == "redirect-chain"


def test_depth_and_length_limits() -> None:
    guard = TrapGuard(TrapLimits(max_depth=3, max_url_length=40))
    assert guard.check(f"{H}/ok", 3) is None
    assert guard.check(f"{H}/deep", 4) == "trap-depth"
    assert guard.check(f"{H}/" + "x" * 40, 0) == "trap-url-length"
    assert guard.hits() == {"trap-depth": 1, "trap-url-length": 1}
    assert guard.examples()["trap-depth"] == [f"{H}/deep"]


def test_default_url_length_is_the_sitemap_limit() -> None:
    guard = TrapGuard()
    base = f"{H}/"
    assert guard.check(base + "a" * (2047 - len(base)), 1) is None
    assert guard.check(base + "a" * (2048 - len(base)), 1) == "trap-url-length"


def test_calendar_stops_at_its_limit_but_numbered_products_do_not() -> None:
    guard = TrapGuard(TrapLimits(max_calendar_urls=12))
    months = [f"{H}/calendar/{2026 + m // 12}/{m % 12 + 1}" for m in range(20)]
    verdicts = [guard.check(u, i) for i, u in enumerate(months)]
    assert verdicts == [None] * 12 + ["trap-pattern"] * 8
    assert guard.trapped_patterns() == {"example.com/calendar/{year}/{n}": months[12:17]}
    products = [guard.check(f"{H}/product/{i}", 2) for i in range(20_000)]
    assert products == [None] * 20_000


def test_facet_combinations_are_capped_per_path() -> None:
    guard = TrapGuard(TrapLimits(max_facet_variants=10))
    colours = ["red", "blue", "green", "black"]
    sizes = ["s", "m", "l", "xl"]
    verdicts = [guard.check(f"{H}/shoes?color={c}&size={s}", 2) for c in colours for s in sizes]
    assert verdicts.count(None) == 10
    assert verdicts.count("trap-pattern") == 6
    # single-parameter pages (pagination) are not facets
    assert all(guard.check(f"{H}/shoes?page={i}", 2) is None for i in range(100))
    assert "example.com/shoes?{facets}" in guard.trapped_patterns()


def test_general_pattern_limit() -> None:
    guard = TrapGuard(TrapLimits(max_pattern_urls=3))
    verdicts = [guard.check(f"{H}/item/{i}", 1) for i in range(5)]
    assert verdicts == [None, None, None, "trap-pattern", "trap-pattern"]


def test_repeated_segment_trap() -> None:
    guard = TrapGuard()
    assert guard.check(f"{H}/shop/lamps/lamps/", 2) is None
    assert guard.check(f"{H}/shop/lamps/lamps/lamps/", 3) == "trap-repeated-segment"


def test_counters_are_bounded() -> None:
    guard = TrapGuard(TrapLimits(max_tracked_keys=100))
    names = [a + b + c for a in "abcdefghij" for b in "klmnopqrst" for c in "uvwxyzabcd"]
    for name in names:
        assert guard.check(f"{H}/section-{name}/page", 1) is None
    state = guard.to_state()
    assert len(state["patterns"]) == 100
    assert guard.untracked == 900


def test_state_round_trip_through_json_keeps_counts() -> None:
    limits = TrapLimits(max_calendar_urls=5)
    guard = TrapGuard(limits)
    for m in range(1, 4):
        assert guard.check(f"{H}/cal/2026/{m}", m) is None
    guard.check(f"{H}/x/x/x", 1)
    restored = TrapGuard.from_state(json.loads(json.dumps(guard.to_state())), limits)
    assert restored.to_state() == guard.to_state()
    assert [restored.check(f"{H}/cal/2026/{m}", m) for m in range(4, 8)] == [
        None,
        None,
        "trap-pattern",
        "trap-pattern",
    ]
    assert restored.hits()["trap-repeated-segment"] == 1


def test_unknown_state_version_starts_fresh() -> None:
    guard = TrapGuard.from_state({"version": 999, "patterns": {"x": 5}})
    assert guard.to_state()["patterns"] == {}


def test_guard_redirect_records_examples() -> None:
    guard = TrapGuard()
    assert guard.redirect([f"{H}/a", f"{H}/b", f"{H}/a"]) == "redirect-loop"
    assert guard.examples() == {"redirect-loop": [f"{H}/a"]}


# --- properties ---------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=60), st.integers(-5, 100)), max_size=30))
def test_guard_never_raises_and_state_round_trips(calls: list[tuple[str, int]]) -> None:
    guard = TrapGuard(TrapLimits(max_calendar_urls=2, max_pattern_urls=3, max_facet_variants=2))
    for text, depth in calls:
        verdict = guard.check(H + "/" + text, depth)
        assert verdict is None or verdict.startswith("trap-")
    state = json.loads(json.dumps(guard.to_state()))
    assert TrapGuard.from_state(state, guard.limits).to_state() == guard.to_state()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "2026", "11", "x-1"]), max_size=12))
def test_admitted_count_per_pattern_never_exceeds_its_limit(segments: list[str]) -> None:
    limits = TrapLimits(max_calendar_urls=2, max_pattern_urls=3)
    guard = TrapGuard(limits)
    admitted: dict[str, int] = {}
    for i in range(len(segments) + 1):
        url = f"{H}/" + "/".join(segments[:i]) + f"/{i}"
        if guard.check(url, 1) is None:
            key = pattern_key(url)
            admitted[key] = admitted.get(key, 0) + 1
    for key, count in admitted.items():
        assert count <= limits.max_pattern_urls, key


def test_a_carried_over_count_stops_what_it_stopped_and_admitted_urls_keep_their_place() -> None:
    """A re-crawl judges against the last run's counts (TrapGuard.carry_over)."""
    limits = TrapLimits(max_facet_variants=2)
    last = TrapGuard(limits)
    urls = [f"http://h/s?a={i}&b=1" for i in range(3)]
    assert [last.check(u, 1) for u in urls] == [None, None, "trap-pattern"]
    assert last.take_tally() == [("pattern", "h/s?a&b"), ("facet", "h/s")] * 2  # for the store
    guard = TrapGuard(limits)
    guard.carry_over(saved_counts(last.to_state()))
    # met in the other order: the stopped one is stopped, the admitted ones admitted
    assert guard.check(urls[2], 1) == "trap-pattern"
    assert guard.check(urls[1], 1, admitted_before=True) is None
    assert guard.check(urls[0], 1, admitted_before=True) is None
    assert guard.to_state()["facets"] == {"h/s": 2}  # what the next run carries over
