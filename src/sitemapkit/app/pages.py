"""The Pages view's data: the inventory, filtered, searched, sorted and paged on the server.

The records come from the store the way ``sitemapkit inventory`` reads them
(one truth for every column); they are kept in memory per site until the
store changes on disk, so scrolling a 100,000-row table asks for one slice at
a time without reading the store again.  Filters are exact (reason, status
class, section) plus one case-insensitive substring search over URL and title.
"""

from __future__ import annotations

import io
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any

from sitemapkit.cli.inventory import write_inventory
from sitemapkit.errors import InputError
from sitemapkit.model import PageRecord
from sitemapkit.store import iter_page_records
from sitemapkit.visual.tree import paused_gc
from sitemapkit.visual.urlparts import split_url

ROW_FIELDS = (
    "url", "status", "depth", "title", "reason", "indexable", "inlinks", "outlinks",
    "lastmod", "content_type", "canonical", "redirect_to", "section",
)  # fmt: skip
SORTS: dict[str, Callable[[PageRecord], Any]] = {
    "url": lambda r: r.url,
    "status": lambda r: (r.status is None, r.status or 0),
    "depth": lambda r: (r.depth is None, r.depth or 0),
    "title": lambda r: (r.title is None, (r.title or "").casefold()),
    "reason": lambda r: r.reason or "",
    "inlinks": lambda r: r.inlinks,
    "outlinks": lambda r: r.outlinks,
    "lastmod": lambda r: (r.lastmod is None, r.lastmod or ""),
}
MAX_LIMIT = 1000
STATUS_CLASSES = ("2xx", "3xx", "4xx", "5xx", "none")


@lru_cache(maxsize=1 << 18)
def section_of(url: str) -> str:
    """The first path segment of ``url`` (``""`` for the home page), as the map groups it."""
    _, segments, _, _ = split_url(url)
    return segments[0] if segments else ""


def status_class(status: int | None) -> str:
    return "none" if status is None else f"{status // 100}xx"


def row(record: PageRecord) -> dict[str, Any]:
    """One row of API.md's Pages table."""
    return {
        "url": record.url,
        "status": record.status,
        "depth": record.depth,
        "title": record.title,
        "reason": record.reason,
        "indexable": bool(record.indexable),
        "inlinks": record.inlinks,
        "outlinks": record.outlinks,
        "lastmod": record.lastmod,
        "content_type": record.content_type,
        "canonical": record.canonical,
        "redirect_to": record.redirect_to,
        "section": section_of(record.url),
    }


@dataclass(frozen=True, slots=True)
class Query:
    """What the Pages view asks for (query string of ``/pages``), checked."""

    offset: int = 0
    limit: int = 100
    sort: str | None = None
    descending: bool = False
    q: str = ""
    reason: str | None = None
    status: str | None = None
    section: str | None = None

    @classmethod
    def from_params(cls, params: Mapping[str, str]) -> Query:
        try:
            offset = int(params.get("offset", "0"))
            limit = int(params.get("limit", "100"))
        except ValueError as exc:
            raise InputError(f"offset and limit are whole numbers ({exc})") from exc
        if offset < 0 or not 1 <= limit <= MAX_LIMIT:
            raise InputError(f"offset >= 0 and limit 1..{MAX_LIMIT}, not {offset}, {limit}")
        sort = params.get("sort") or None
        if sort is not None and sort not in SORTS:
            raise InputError(f"sort: one of {', '.join(SORTS)}, not {sort!r}")
        order = params.get("order", "asc")
        if order not in ("asc", "desc"):
            raise InputError(f"order: asc or desc, not {order!r}")
        status = params.get("status") or None
        if status is not None and status not in STATUS_CLASSES and not status.isdigit():
            raise InputError(f"status: a number or one of {', '.join(STATUS_CLASSES)}")
        return cls(offset, limit, sort, order == "desc", params.get("q", "").casefold(),
                   params.get("reason") or None, status, params.get("section"))  # fmt: skip

    def keep(self, record: PageRecord) -> bool:
        if self.reason is not None:
            if self.reason == "indexable" and not record.indexable:
                return False
            if self.reason not in ("indexable", record.reason):
                return False
        if self.status is not None:
            if self.status.isdigit():
                if record.status != int(self.status):
                    return False
            elif status_class(record.status) != self.status:
                return False
        if self.section is not None and section_of(record.url) != self.section:
            return False
        return (
            not self.q
            or self.q in record.url.casefold()
            or (record.title is not None and self.q in record.title.casefold())
        )

    def select(self, records: Iterable[PageRecord]) -> list[PageRecord]:
        """Every matching record, in the asked order (discovery order by default).

        Unfiltered and unsorted, a list comes back as it is (not a copy): the table's
        first screen and its scrolling ask that, and a Python step per row of 100,000
        on every request was most of a warm answer on a busy machine.  Never change it.
        """
        filtered = self.reason or self.status or self.section is not None or self.q
        if not filtered and isinstance(records, list):
            chosen = records
        else:
            chosen = [r for r in records if self.keep(r)]
        if self.sort is not None:
            return sorted(chosen, key=SORTS[self.sort], reverse=self.descending)
        return chosen[::-1] if self.descending else chosen


def facets(records: Iterable[PageRecord]) -> dict[str, dict[str, int]]:
    """Counts for the filter menus: reasons (``indexable`` for pages in the sitemap),
    status classes, sections."""
    reasons: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    sections: Counter[str] = Counter()
    for r in records:
        reasons["indexable" if r.indexable else (r.reason or "unknown")] += 1
        statuses[status_class(r.status)] += 1
        sections[section_of(r.url)] += 1
    return {
        "reasons": dict(reasons.most_common()),
        "statuses": dict(sorted(statuses.items())),
        "sections": dict(sections.most_common(200)),
    }


def store_stamp(db: Path) -> tuple[int, ...]:
    """Time and size of the store and its WAL: equal stamps, same contents (a cache key).

    An empty WAL counts as none: every reader that opens the store makes one (a new
    time), and a stamp taken while another view reads would never match again.
    """
    marks: list[int] = []
    for suffix in ("", "-wal"):
        try:
            st = Path(str(db) + suffix).stat()
        except OSError:
            st = None
        marks += [st.st_mtime_ns, st.st_size] if st is not None and st.st_size else [0, 0]
    return tuple(marks)


class PageCache:
    """The records of each site's store, read again only when the store changed."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loading: dict[Path, threading.Lock] = {}
        self._cache: dict[Path, tuple[tuple[int, ...], list[PageRecord], dict[str, Any]]] = {}

    def peek(self, db: Path) -> tuple[list[PageRecord], dict[str, Any]] | None:
        """What :meth:`get` would return without reading, or ``None`` when it would read."""
        stamp = store_stamp(db)
        with self._lock:
            hit = self._cache.get(db)
        return (hit[1], hit[2]) if hit is not None and hit[0] == stamp else None

    def get(self, db: Path) -> tuple[list[PageRecord], dict[str, Any]]:
        """The records (discovery order) and their facets (in a worker thread: it may read)."""
        hit = self.peek(db)
        if hit is not None:
            return hit
        stamp = store_stamp(db)
        with self._lock:
            loading = self._loading.setdefault(db, threading.Lock())
        with loading:  # two tabs asking at once: one read, the other waits for it
            with self._lock:
                done = self._cache.get(db)
                if done is not None and done[0] == stamp:
                    return done[1], done[2]
            with paused_gc():  # 100,000 records and no cycle among them: nothing to scan
                records = list(iter_page_records(db))
                found = facets(records)
            with self._lock:
                self._cache[db] = (stamp, records, found)
        return records, found


#: Rows a first screen (or the Progress view's first look) may read straight from the
#: store's head instead of loading the whole table.
FIRST_ROWS = 5000


def first_slice(db: Path, query: Query) -> dict[str, Any] | None:
    """The first rows of the table in discovery order, read from the store's head.

    Why: loading every record of a 100,000-page store takes seconds, and the
    first screen of an unfiltered, unsorted table is the first rows by id
    (``page_records`` streams them in that order, so only they are read) and
    the number of URLs.  ``facets`` is ``None``: the menus come with the next
    answer, from the whole table.  ``None`` for any other query.
    """
    plain = Query(offset=query.offset, limit=query.limit)
    if query != plain or query.offset + query.limit > FIRST_ROWS:
        return None
    from sitemapkit.store import open_store

    store = open_store(db, mode="read")
    try:
        head = list(islice(store.page_records(), query.offset + query.limit))
        seen = store.counts()["seen"]
    finally:
        store.close()
    return {
        "total": seen,
        "all": seen,
        "offset": query.offset,
        "rows": [row(r) for r in head[query.offset :]],
        "facets": None,
    }


def page_slice(records: list[PageRecord], found: dict[str, Any], query: Query) -> dict[str, Any]:
    chosen = query.select(records)
    part = chosen[query.offset : query.offset + query.limit]
    return {
        "total": len(chosen),
        "all": len(records),
        "offset": query.offset,
        "rows": [row(r) for r in part],
        "facets": found,
    }


def compact(records: list[PageRecord], query: Query) -> dict[str, Any]:
    """Every matching row as arrays (a client-side virtualised table of 100,000 rows)."""
    return {
        "columns": list(ROW_FIELDS),
        "rows": [list(row(r).values()) for r in query.select(records)],
    }


def csv_text(records: list[PageRecord], query: Query) -> str:
    """The matching rows as ``sitemapkit inventory`` writes them."""
    out = io.StringIO()
    write_inventory(iter(query.select(records)), out, "csv")
    return out.getvalue()
