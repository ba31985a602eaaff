"""Where a visual map's pages come from: a crawl database, a sitemap, or a URL list.

The kind is decided by content, not by file name: SQLite's 16-byte magic means
a crawl database (read through the store seam, :mod:`sitemapkit.store`), gzip magic or a
leading ``<`` means a sitemap/index/feed, and an ``http(s)://`` SOURCE is
fetched by the sitemap reader (which follows indexes and gzip).  Anything else
is read as a URL list, one per line.  The store and the reader are imported
only when needed, so the URL-list path works without them.
"""

from __future__ import annotations

import base64
import importlib
import itertools
import json
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sitemapkit.errors import InputError
from sitemapkit.model import Finding, PageRecord, Severity
from sitemapkit.store.spec import SCHEMES as PG_SCHEMES
from sitemapkit.visual.tree import SiteTree

#: A sitemap entry or a listed URL: the URL and its lastmod text (``None`` = none).
UrlRow = tuple[str, str | None]

SQLITE_MAGIC = b"SQLite format 3\x00"
GZIP_MAGIC = b"\x1f\x8b"

#: Bad lines of a URL list reported one by one; the rest are only counted.
MAX_REPORTED = 20

#: One absolute http(s) URL with a host and no space, tab or NUL (a URL list's line).
_LISTED_URL = re.compile(r"https?://[^/ \t\x00][^ \t\x00]*", re.IGNORECASE)


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
    scheme = source.lower().partition("://")[0]
    if scheme in ("http", "https", *PG_SCHEMES):  # a crawl on a PostgreSQL server
        return "crawl" if scheme in PG_SCHEMES else "sitemap"
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


def rows_from_lines(lines: Iterator[str], name: str, report: SourceReport) -> Iterator[UrlRow]:
    """A URL list: one absolute http(s) URL a line; blank lines and ``#`` comments skipped."""
    good = _LISTED_URL.fullmatch
    for number, raw in enumerate(lines, 1):
        line = raw.strip().lstrip("\ufeff")
        if not line or line[0] == "#":
            continue
        if good(line) is None:
            shown = line if len(line) <= 80 else line[:77] + "..."
            report.bad(f"{name}:{number}: not an absolute http(s) URL: {shown!r}")
            continue
        yield line, None


def _list_rows(source: str, report: SourceReport) -> Iterator[UrlRow]:
    if source == "-":
        yield from rows_from_lines(iter(sys.stdin), "<stdin>", report)
        return
    with Path(source).open(encoding="utf-8-sig", errors="replace", newline=None) as fh:
        yield from rows_from_lines(fh, source, report)


def crawl_tree(source: str, records: Iterable[PageRecord] | None = None) -> SiteTree:
    """The map's tree of a crawl store, with the crawl's render mode and its thumbnails.

    ``records``: the store's page records when the caller is already reading them
    (``crawl`` writes its inventory from the same pass); by default they are read here.
    """
    from sitemapkit.store import iter_page_records, open_store

    tree = SiteTree.from_records(iter_page_records(source) if records is None else records)
    store = open_store(source, mode="read")
    try:
        config = json.loads(store.get_meta("config") or "{}")
        tree.render_mode = str(config.get("render") or "never")
        thumbnails = store.thumbnails()
        first = next(thumbnails, None)
        if first is not None:
            urls = tree.node_urls()
            nodes = {tree.overrides.get(i) or urls[i]: i for i, r in enumerate(tree.rows) if r >= 0}
            del urls
            for url, thumb in itertools.chain([first], thumbnails):
                node = nodes.get(url)
                if node is not None:
                    data = base64.b64encode(thumb.image).decode("ascii")
                    tree.thumbnails[node] = f"data:{thumb.type};base64,{data}"
    finally:
        store.close()
    return tree


def _check_crawl_db(source: str) -> None:
    """An SQLite file that is not one of our crawl stores is one clear line."""
    from sitemapkit.store import is_crawl_db

    if not is_crawl_db(source):
        raise InputError(f"{source}: is an SQLite file but not a sitemapkit crawl database")


def _crawl_records(source: str) -> Iterator[PageRecord]:
    """The crawl's records through the store protocol (each names the page it was found on)."""
    from sitemapkit.store import iter_page_records

    _check_crawl_db(source)
    return iter_page_records(source)


def _sitemap_rows(source: str, report: SourceReport) -> Iterator[UrlRow]:
    """The reader's ``(loc, lastmod)`` rows: no entry object per URL (half the reading time)."""
    try:
        reader = importlib.import_module("sitemapkit.read.reader")
    except ImportError as exc:
        raise InputError(
            f"{source}: is a sitemap, but this build has no sitemap reader "
            "(sitemapkit.read.reader)",
            value=source,
        ) from exc
    batches: Iterator[list[tuple[str, str]]] = reader.iter_dated_locs(source, log=report.findings)
    for batch in batches:
        yield from batch


def read_tree(source: str, report: SourceReport | None = None) -> SiteTree:
    """The map's tree of SOURCE; sitemaps and URL lists go in as rows (no record per URL)."""
    report = report if report is not None else SourceReport()
    kind = detect(source)
    report.kind = {"crawl": "crawl", "sitemap": "sitemap", "list": "URL list"}[kind]
    if kind == "crawl":
        _check_crawl_db(source)
        return crawl_tree(source)
    if kind == "sitemap":
        return SiteTree.from_urls(_sitemap_rows(source, report))
    return SiteTree.from_urls(_list_rows(source, report))


def iter_records(source: str, report: SourceReport | None = None) -> Iterator[PageRecord]:
    """The page records of SOURCE, whatever kind it is; ``report.kind`` says which."""
    report = report if report is not None else SourceReport()
    kind = detect(source)
    report.kind = {"crawl": "crawl", "sitemap": "sitemap", "list": "URL list"}[kind]
    if kind == "crawl":
        return _crawl_records(source)
    if kind == "sitemap":
        return _as_records(_sitemap_rows(source, report), "sitemap")
    return _as_records(_list_rows(source, report), None)


def _as_records(rows: Iterator[UrlRow], source: str | None) -> Iterator[PageRecord]:
    for url, lastmod in rows:
        yield PageRecord(
            url=url, lastmod=lastmod or None, lastmod_source=source if lastmod else None
        )
