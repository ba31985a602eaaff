"""The compact fingerprint set behaves like a set of URLs."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from sitemapkit.sitemap.dedup import SeenUrls


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
