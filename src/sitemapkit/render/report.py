"""What the crawl summary says about rendering: one line for what was rendered, one for what
could not be.

Kept apart from :mod:`.renderer` so the summary imports no browser code, and in one
place so that ``crawl`` and ``demo`` say it the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

from sitemapkit.render.renderer import UNAVAILABLE

__all__ = ["render_lines"]


def render_lines(counts: Mapping[str, int], missing: str | None) -> list[str]:
    """The summary lines for a crawl's render ``counts`` (status -> pages) and ``missing``.

    Pages that needed rendering when it was not installed get ONE line naming the
    missing piece and its install command (``missing``), not one per page: each page
    carries its own ``render-unavailable`` status for ``--why``, the inventory and the map.
    """
    lines: list[str] = []
    done = {status: n for status, n in counts.items() if status != UNAVAILABLE and n}
    if done:
        lines.append(
            f"rendered {sum(done.values()):,} pages: "
            + ", ".join(f"{status} {n:,}" for status, n in sorted(done.items()))
        )
    skipped = counts.get(UNAVAILABLE, 0)
    if skipped:
        lines.append(
            f"not rendered: {skipped:,} {'page looks' if skipped == 1 else 'pages look'} "
            "built by scripts, but "
            f"{missing or 'rendering is unavailable'}"
        )
    return lines
