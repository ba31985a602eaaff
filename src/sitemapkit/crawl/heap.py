"""Give memory back to the OS after parsing a very large page.

The HTML tree of a 6 MB page costs about 70 MB inside the parser (measured on
the JDK's ``class-use/String.html``).  glibc keeps those pages after the tree is
freed, so each huge page would lift the crawl's resident size for good;
``malloc_trim(0)`` returns them.  Elsewhere (musl, macOS) this is a no-op.

Only after big parses (:func:`trim_after`): a trim hands back pages the next parse
faults in again.  Trimming after every small parse cost 0.25 ms a JDK page with
four pages a trim (0.5 ms with one), a sixth of the parse, in fault handling.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Final

#: Bodies at least this large are followed by a trim (small pages reuse the heap well).
BIG_BODY: Final = 1 << 20


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    # ctypes is imported on the first big body only: most crawls never trim (issue 13).
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        func = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return None
    func.argtypes = [ctypes.c_size_t]
    func.restype = ctypes.c_int
    trim: Callable[[int], int] = func
    return trim


def trim_after(parsed: int) -> bool:
    """Trim after a parse of ``parsed`` body bytes at once, when that was big; ``True`` if done.

    The one rule for the crawl's process (``--workers 1``) and the parse processes
    (whose "at once" is a batch).
    """
    return parsed >= BIG_BODY and trim_heap()


def trim_heap() -> bool:
    """Return freed heap pages to the OS; ``True`` when the platform could do it."""
    func = _malloc_trim()
    if func is None:
        return False
    func(0)
    return True
