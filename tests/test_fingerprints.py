"""The compact fingerprint set behaves like a set of URLs."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.fingerprints import (
    BUCKET_BITS,
    BUCKETS,
    FP_BYTES,
    SPILL_REGION,
    SeenUrls,
    _find,
    fingerprint,
)


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


def test_growth_and_overflow_paths_stay_exact() -> None:
    """Tiny regions force every path: region full, spill arena, extra dict, in-place growth."""
    seen = SeenUrls(slots=1)
    reference: set[str] = set()
    rng = random.Random(5)
    urls = [f"https://a.example/{rng.randrange(300_000)}" for _ in range(400_000)]
    regions = {seen.region}
    for url in urls:
        assert seen.add(url) == (url not in reference)
        reference.add(url)
        regions.add(seen.region)
    assert len(seen) == len(reference)
    assert len(regions) > 3  # it grew several times
    assert all(url in seen for url in reference)
    assert sum(1 for i in range(2_000) if f"https://b.example/{i}" in seen) == 0
    # every stored fingerprint is counted exactly once across the three stores
    stored = (
        sum(_fill(seen, b) for b in range(BUCKETS))
        + sum(seen.spills)
        + sum(len(x) for x in seen.extra.values())
    )
    assert stored == len(seen) * FP_BYTES


def test_spill_extra_and_migration_back_on_growth() -> None:
    """A full region overflows to the spill arena, then the extra dict; growth moves it back."""
    seen = SeenUrls(slots=1)
    assert _add_at(seen, 7, bytes(FP_BYTES))
    seen.count = 1_000_000  # as if many URLs were elsewhere: no growth yet
    fps = [(i + 1).to_bytes(FP_BYTES, "little") for i in range(40)]
    for fp in fps:
        assert seen.add_full(7, fp)
    assert seen.spills[7] == SPILL_REGION
    assert len(seen.extra[7]) == 32 * FP_BYTES
    for fp in fps:
        assert not seen.add_full(7, fp)  # found in the spill arena or the extra dict
    seen._grow()
    assert seen.region > FP_BYTES
    assert not seen.extra or seen.spills[7] == SPILL_REGION
    stored = _fill(seen, 7) + seen.spills[7] + len(seen.extra.get(7, b""))
    assert stored == 41 * FP_BYTES
    for fp in [bytes(FP_BYTES), *fps]:
        full = _fill(seen, 7) >= seen.region
        assert (
            not seen.add_full(7, fp)
            if full
            else _find(seen.arena, fp, 7 * seen.region, seen.ends[7]) >= 0
        )


def _add_at(seen: SeenUrls, b: int, fp: bytes) -> bool:
    end = seen.ends[b]
    seen.arena[end : end + FP_BYTES] = fp
    seen.ends[b] = end + FP_BYTES
    seen.count += 1
    return True


def _fill(seen: SeenUrls, b: int) -> int:
    return seen.ends[b] - b * seen.region


def test_unaligned_match_is_not_a_hit() -> None:
    """A fingerprint that appears across two stored slots is not taken for a stored one."""
    seen = SeenUrls()
    a, b = bytes([1, 2, 3, 4, 5]), bytes([6, 7, 8, 9, 10])
    assert _add_at(seen, 3, a)
    assert _add_at(seen, 3, b)
    straddling = bytes([3, 4, 5, 6, 7])  # tail of a + head of b
    assert _find(seen.arena, straddling, 3 * seen.region, seen.ends[3]) == -1
    assert _find(seen.arena, b, 3 * seen.region, seen.ends[3]) >= 0


def test_fingerprint_uses_the_bits_above_the_bucket() -> None:
    h = (0xABCDEF0123 << BUCKET_BITS) | 0x1234
    assert fingerprint(h) == (0xABCDEF0123).to_bytes(FP_BYTES, "little")


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


def test_add_new_through_full_regions_and_growth() -> None:
    """add_new finds fingerprints in the overflow and survives the regions growing mid-call."""
    seen = SeenUrls(slots=1)
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


@pytest.mark.parametrize("slots", [1, 4])
def test_add_new_agrees_with_a_set_while_the_regions_grow(slots: int) -> None:
    """Random blocks, some holding a known hash, against a plain set (growth mid-block:
    a fingerprint must not be left in the overflow of a region that has room again)."""
    rnd = random.Random(slots)
    seen = SeenUrls(slots=slots)
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
