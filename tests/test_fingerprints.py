"""The compact fingerprint set behaves like a set of URLs."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.fingerprints import MIN_BITS, SeenUrls


def test_first_add_wins_and_len_counts() -> None:
    seen = SeenUrls()
    assert seen.add("https://a.example/")
    assert not seen.add("https://a.example/")
    assert seen.add("https://a.example/b")
    assert len(seen) == 2
    assert "https://a.example/b" in seen
    assert "https://a.example/c" not in seen
    assert 5 not in seen


def test_many_urls_with_repeats() -> None:
    rng = random.Random(11)
    seen = SeenUrls()
    reference: set[str] = set()
    urls = [f"https://a.example/{rng.randrange(400_000)}" for _ in range(600_000)]
    for url in urls:
        assert seen.add(url) == (url not in reference)
        reference.add(url)
    assert len(seen) == len(reference)
    assert all(url in seen for url in urls[::997])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(max_size=20), max_size=300))
def test_behaves_like_a_set(items: list[str]) -> None:
    seen = SeenUrls()
    reference: set[str] = set()
    for item in items:
        assert seen.add(item) == (item not in reference)
        reference.add(item)
    assert len(seen) == len(reference)


def test_growth_from_the_smallest_table_stays_exact() -> None:
    """Every doubling re-inserts each entry from the hash its slot encodes."""
    seen = SeenUrls()
    bits = seen.mask.bit_length()
    reference: set[str] = set()
    rng = random.Random(5)
    for _ in range(120_000):
        url = f"https://a.example/{rng.randrange(90_000)}"
        assert seen.add(url) == (url not in reference)
        reference.add(url)
    assert seen.mask.bit_length() > bits + 2  # it grew several times
    assert len(seen) == len(reference)
    assert all(url in seen for url in reference)


def test_hashes_alike_but_for_their_low_bits_are_different() -> None:
    """The low byte is the slot's distance field: the home slot must still tell them apart."""
    seen = SeenUrls()
    base = 0x5A5A_5A5A_5A5A_5A00
    for low in range(256):
        assert seen.add_hash(base | low)
    for low in range(256):
        assert not seen.add_hash(base | low)
    assert seen.add_hash(base | (1 << MIN_BITS))  # differs only in a home bit above the byte
    assert seen.add_hash(-(base | 7))  # negative hashes are hashes too
    assert not seen.add_hash(-(base | 7))


def test_a_probe_run_too_long_for_the_distance_byte_spills_and_loses_nothing() -> None:
    """600 hashes with one home slot up to bit 32 (no doubling separates them): the run
    stops at 254 slots, the rest go to the spill set, and the table does not balloon."""
    seen = SeenUrls()
    hashes = [(i << 32) | 0x12345 for i in range(1, 601)]
    for h in hashes:
        assert seen.add_hash(h)
    assert seen.spill
    assert seen.mask.bit_length() == MIN_BITS
    assert all(seen.contains_hash(h) for h in hashes)
    assert not any(seen.add_hash(h) for h in hashes)
    assert len(seen) == 600
    more = [(i << 32) | 0x12345 for i in range(601, 900)]
    spilled = len(seen.spill)
    assert not seen.add_new([*more, hashes[-1]])  # refused: the spilled part is undone too
    assert len(seen.spill) == spilled
    assert not any(seen.contains_hash(h) for h in more)
    assert seen.add_new(more)
    assert len(seen) == 899
    for i in range(10_000):  # force doublings: the spilled ones come along
        seen.add_hash(hash(f"x{i}"))
    assert all(seen.contains_hash(h) for h in hashes + more)


def test_first_seen_drops_repeats_within_and_across_runs() -> None:
    seen = SeenUrls(expected=10)
    fresh, dups = seen.first_seen(["a", "b", "a", "c"])
    assert (fresh, dups) == (["a", "b", "c"], 1)
    fresh, dups = seen.first_seen([f"u{i}" for i in range(50_000)] + ["b", "u7"])
    assert (len(fresh), dups) == (50_000, 2)
    assert len(seen) == 50_003


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([f"u{i}" for i in range(40)]), max_size=30)))
def test_first_seen_agrees_with_a_set(runs: list[list[str]]) -> None:
    seen = SeenUrls()
    reference: set[str] = set()
    for run in runs:
        expected = [u for u in dict.fromkeys(run) if u not in reference]
        assert seen.first_seen(run) == (expected, len(run) - len(expected))
        reference.update(run)
    assert len(seen) == len(reference)


def test_add_new_is_all_or_nothing() -> None:
    """The validator's bulk path: a block with one known URL leaves the set as it was."""
    seen = SeenUrls()
    before = [hash(f"u{i}") for i in range(1000)]
    assert seen.add_new(before)
    fresh = [hash(f"v{i}") for i in range(500)]
    assert not seen.add_new([*fresh, before[10]])
    assert len(seen) == 1000
    # none of the fresh ones stayed; every old one is still there
    assert all(seen.add(f"v{i}") for i in range(500))
    assert not any(seen.add(f"u{i}") for i in range(1000))


def test_add_new_through_growth() -> None:
    """add_new makes room before it starts; blocks arrive while the table doubles."""
    seen = SeenUrls()
    first = [hash(f"https://example.com/{i}") for i in range(300_000)]
    for start in range(0, len(first), 10_000):
        assert seen.add_new(first[start : start + 10_000])
    assert len(seen) == 300_000
    assert all(seen.contains_hash(h) for h in first[::997])
    assert not seen.add_new([hash("https://example.com/new"), first[-1]])
    assert seen.add("https://example.com/new")
    assert not seen.add("https://example.com/299999")


def test_add_has_one_meaning_for_urls_and_hashes() -> None:
    seen = SeenUrls()
    assert seen.add("https://example.com/a")
    assert not seen.add("https://example.com/a")
    assert not seen.add_hash(hash("https://example.com/a"))
    assert seen.add_hash(hash("https://example.com/b"))
    assert "https://example.com/b" in seen


@pytest.mark.parametrize("expected", [0, 100_000])
def test_add_new_agrees_with_a_set_while_the_table_grows(expected: int) -> None:
    """Random blocks, some holding a known hash, against a plain set: a refused block
    leaves no slot behind, growing or not."""
    rnd = random.Random(expected)
    seen = SeenUrls(expected=expected)
    ref: set[int] = set()
    for step in range(1500):
        block = list({hash(f"u{rnd.randint(0, 200_000)}") for _ in range(rnd.randint(1, 300))})
        new = not any(h in ref for h in block)
        assert seen.add_new(block) is new
        if new:
            ref.update(block)
        if step % 250 == 0:
            assert all(seen.contains_hash(h) for h in ref)
    assert len(seen) == len(ref)
    assert all(seen.contains_hash(h) for h in ref)


class _Hashed(str):
    """A URL with a chosen hash: probe runs that real hashes would almost never make."""

    __slots__ = ("h",)

    def __new__(cls, text: str, h: int) -> _Hashed:
        obj = super().__new__(cls, text)
        obj.h = h
        return obj

    def __hash__(self) -> int:
        return self.h


def test_first_seen_spills_a_run_too_long_for_the_byte() -> None:
    """The writer's inlined loop takes the same spill path as add()."""
    urls = [_Hashed(f"u{i}", (i << 40) | 0x777) for i in range(1, 400)]
    seen = SeenUrls()
    fresh, dups = seen.first_seen([*urls, urls[5], urls[390]])
    assert (fresh, dups) == (urls, 2)
    assert seen.spill
    assert seen.first_seen(urls) == ([], len(urls))
    assert all(url in seen for url in urls)
