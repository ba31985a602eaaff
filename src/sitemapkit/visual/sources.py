"""Where a visual map's pages come from: a crawl database, a sitemap, or a URL list.

The kind is decided by content, not by file name: SQLite's 16-byte magic means
a crawl database (read through the store seam, :mod:`sitemapkit.store`), gzip magic or a
leading ``<`` means a sitemap/index/feed, and an ``http(s)://`` SOURCE is
fetched by the sitemap reader (which follows indexes and gzip).  Anything else
is read as a URL list, one per line.  The store and the reader are imported
only when needed, so the URL-list path works without them.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from sitemapkit.errors import InputError
from sitemapkit.model import Finding, PageRecord, Severity, UrlEntry

SQLITE_MAGIC = b"SQLite format 3\x00"
GZIP_MAGIC = b"\x1f\x8b"

#: Bad lines of a URL list reported one by one; the rest are only counted.
MAX_REPORTED = 20


@dataclass(slots=True)
class SourceReport:
    """What reading a source skipped, so the CLI can say it and exit 1."""

    kind: str = ""
    bad_lines: int = 0
    messages: list[str] = field(default_factory=list)
    #: what the sitemap reader found wrong (fetch failures, limits, bad XML)
    findings: list[Finding] = field(default_factory=list)

    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity is Severity.ERROR]

    def bad(self, message: str) -> None:
        self.bad_lines += 1
        if len(self.messages) < MAX_REPORTED:
            self.messages.append(message)


def detect(source: str) -> str:
    """``"crawl"``, ``"sitemap"`` or ``"list"`` for a SOURCE argument (``-`` is stdin)."""
    if source == "-":
        return "list"
    if source.lower().startswith(("http://", "https://")):
        return "sitemap"
    path = Path(source)
    try:
        with path.open("rb") as fh:
            head = fh.read(512)
    except OSError as exc:
        raise InputError(f"{source}: cannot read: {exc.strerror or exc}", value=source) from exc
    if head.startswith(SQLITE_MAGIC):
        return "crawl"
    if head.startswith(GZIP_MAGIC):
        return "sitemap"
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text.startswith(b"<"):
        return "sitemap"
    return "list"


def _lastmod_text(value: date | datetime | str | None) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def records_from_entries(entries: Iterator[UrlEntry]) -> Iterator[PageRecord]:
    """Sitemap entries as page records: only the URL and lastmod are known."""
    for entry in entries:
        lastmod = _lastmod_text(entry.lastmod)
        yield PageRecord(
            url=entry.loc,
            lastmod=lastmod,
            lastmod_source="sitemap" if lastmod else None,
        )


def records_from_lines(
    lines: Iterator[str], name: str, report: SourceReport
) -> Iterator[PageRecord]:
    """A URL list: one absolute http(s) URL a line; blank lines and ``#`` comments skipped."""
    for number, raw in enumerate(lines, 1):
        line = raw.strip().lstrip("\ufeff")
        if not line or line.startswith("#"):
            continue
        lower = line.lower()
        scheme_ok = lower.startswith(("http://", "https://"))
        host = line.split("://", 1)[1].split("/", 1)[0] if scheme_ok else ""
        if not scheme_ok or not host or any(c in line for c in " \t\x00"):
            shown = line if len(line) <= 80 else line[:77] + "..."
            report.bad(f"{name}:{number}: not an absolute http(s) URL: {shown!r}")
            continue
        yield PageRecord(url=line)


def _list_records(source: str, report: SourceReport) -> Iterator[PageRecord]:
    if source == "-":
        yield from records_from_lines(iter(sys.stdin), "<stdin>", report)
        return
    with Path(source).open(encoding="utf-8-sig", errors="replace", newline=None) as fh:
        yield from records_from_lines(fh, source, report)


def _crawl_records(source: str) -> Iterator[PageRecord]:
    """The crawl's records through the store protocol (each names the page it was found on)."""
    from sitemapkit.store import is_crawl_db, iter_page_records

    if not is_crawl_db(source):
        raise InputError(f"{source}: is an SQLite file but not a sitemapkit crawl database")
    return iter_page_records(source)


def _sitemap_records(source: str, report: SourceReport) -> Iterator[PageRecord]:
    try:
        reader = importlib.import_module("sitemapkit.read.reader")
    except ImportError as exc:
        raise InputError(
            f"{source}: is a sitemap, but this build has no sitemap reader "
            "(sitemapkit.read.reader)",
            value=source,
        ) from exc
    entries: Iterator[UrlEntry] = reader.iter_entries(source, log=report.findings)
    yield from records_from_entries(entries)


def iter_records(source: str, report: SourceReport | None = None) -> Iterator[PageRecord]:
    """The page records of SOURCE, whatever kind it is; ``report.kind`` says which."""
    report = report if report is not None else SourceReport()
    kind = detect(source)
    report.kind = {"crawl": "crawl", "sitemap": "sitemap", "list": "URL list"}[kind]
    if kind == "crawl":
        return _crawl_records(source)
    if kind == "sitemap":
        return _sitemap_records(source, report)
    return _list_records(source, report)
