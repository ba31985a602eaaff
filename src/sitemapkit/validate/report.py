"""What a validation run found, checked and could not check."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from sitemapkit.model import Finding, Severity


@dataclass(slots=True)
class ValidationReport:
    """What a validation run found, and what it checked and could not check."""

    findings: list[Finding] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    sitemaps: list[str] = field(default_factory=list)
    entries: int = 0
    unreadable: bool = False
    #: source -> root element (urlset / sitemapindex) of each XML file read
    roots: dict[str, str] = field(default_factory=dict)

    def count(self, sev: Severity) -> int:
        return sum(f.omitted or 1 for f in self.findings if f.severity is sev)  # "N more" is N

    @property
    def errors(self) -> int:
        return self.count(Severity.ERROR)

    @property
    def warnings(self) -> int:
        return self.count(Severity.WARNING)

    @property
    def infos(self) -> int:
        return self.count(Severity.INFO)


CHECKS: Final = (
    "xml (well-formed, no DOCTYPE, UTF-8, declaration)",
    "file (root, namespace, counts, bytes, gzip)",
    "url/loc (children, order, absolute, length, escaping, duplicates, origins)",
    "lastmod/changefreq/priority",
    "index (nesting, children fetched, cycles)",
    "image, video, news, hreflang extensions",
    "text sitemaps, RSS/Atom feeds, robots.txt Sitemap lines",
)
