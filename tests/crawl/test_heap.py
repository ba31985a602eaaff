"""trim_heap really returns a freed large allocation to the OS on glibc."""

import platform
from pathlib import Path

import pytest

from sitemapkit.crawl.heap import trim_heap


def _rss_kib() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * 4


@pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only"
)
def test_trim_returns_fragmented_heap() -> None:
    # Many small blocks (below the mmap threshold) stay in the heap after free.
    blocks = [bytearray(4000) for _ in range(20_000)]  # ~80 MB
    held = _rss_kib()
    del blocks
    assert trim_heap() is True
    assert _rss_kib() < held - 40_000
