"""The one cap on findings listed per file and code, for every command that lists findings.

Why: ``urls`` printed one stderr line per bad text line (337,043 lines for an
11 MB file) while ``validate`` listed 1,000 and summed up the rest.  Both now
keep a :class:`Listing`: the first :data:`~sitemapkit.limits.MAX_LISTED_FINDINGS`
of a (file, code) are listed, the others only counted, and :meth:`Listing.more`
gives one "... and N more" finding per capped pair.
"""

from __future__ import annotations

from sitemapkit.limits import MAX_LISTED_FINDINGS
from sitemapkit.model import Finding
from sitemapkit.rulebook.codes import severity


class Listing:
    """Counts findings per (source, code) and says which ones are still listed."""

    def __init__(self, cap: int = MAX_LISTED_FINDINGS) -> None:
        self.cap = cap
        self._counts: dict[tuple[str, str], int] = {}

    def take(self, f: Finding) -> bool:
        """Count ``f``; True when it is still to be listed."""
        key = (f.source, f.code)
        n = self._counts[key] = self._counts.get(key, 0) + 1
        return n <= self.cap

    def more(self) -> list[Finding]:
        """One finding per (source, code) over the cap, saying how many were not listed."""
        return [
            Finding(
                code,
                severity(code),
                f"and {n - self.cap:,} more {code} findings in this file "
                f"(only the first {self.cap:,} are listed)",
                source,
                omitted=n - self.cap,
            )
            for (source, code), n in self._counts.items()
            if n > self.cap
        ]
