"""Text shown to people: long values cut to a readable length, in one place.

A crawl meets URLs of thousands of characters (trap URLs, tracking blobs); a
summary line that prints one whole is a screenful of noise.  :func:`shorten`
keeps the start and the end (where the host and the distinguishing tail are)
and says how long the original was, so the user can still find it in the
inventory, which keeps every value whole.
"""

from __future__ import annotations

#: Characters a shortened value may take, the marker included.
SHOWN_MAX = 100


def shorten(text: str, limit: int = SHOWN_MAX) -> str:
    """``text`` whole when it fits in ``limit`` characters, else its head and tail."""
    if len(text) <= limit:
        return text
    marker = f"…[{len(text):,} chars]…"
    room = max(limit - len(marker), 2)
    head = room * 2 // 3
    return text[:head] + marker + text[len(text) - (room - head) :]
