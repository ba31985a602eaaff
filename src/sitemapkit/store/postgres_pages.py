"""Pages' writes in the PostgreSQL store, kept and sent as one statement per table.

Why: a crawl writes each page as it goes (its row's ``UPDATE``, its links, the new
URLs it found), and on PostgreSQL each of those was a statement of its own: about
three a page, each one psycopg building its query (``PostgresQuery.convert``,
``dump`` of the ``UPDATE``'s 18 parameters), queueing it in the pipeline and reading
its answer, and each one a parse, plan and executor start on the server.  On the JDK
docs (~10,100 pages) that was about 2.5 s of a plain crawl's event loop, and server
CPU the crawl then waited for at its claims and commits.  Kept here until the store
next sends anything (or :data:`PAGES_MAX` writes are kept), the writes of many pages go
as a few ``unnest`` statements, the columns spelled as array literals
(:mod:`~sitemapkit.store.postgres_arrays`).

The order of the statements a batch sends (new URLs; the facts a re-crawled page
replaces, deleted; the pages' rows; their facts and links) is the order of one page's
calls, so it gives what the calls one by one gave, as long as no two calls touch one
row out of that order.  :class:`PageWrites` refuses a write that would (a URL kept
twice, a page finished twice or after its links): the store sends what it keeps first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from sitemapkit.store.base import UPDATED_COLUMNS, NewUrl, Outcome
from sitemapkit.store.postgres_arrays import (
    float_array,
    int_array,
    nullable_int_array,
    text_array,
)
from sitemapkit.store.sqlite import PAGE_FACTS, REJUDGE_STALE
from sitemapkit.urls import origin_of

if TYPE_CHECKING:
    import psycopg

#: Writes a store keeps before it sends them: few enough that the server works
#: through them while the crawl goes on (kept to the next claim, about 50 pages, the
#: claim waited for all of them), enough that a page costs a fraction of a statement.
PAGES_MAX = 32

#: New URLs with their ids (a one-writer store's, or the ones the server gave), or a
#: ``STALE`` one judged anew.
REPLAY_URLS = (
    "INSERT INTO urls(id, url, depth, found_from, state, reason, detail, loc, origin) "
    "SELECT * FROM unnest(%s::bigint[], %s::text[], %s::int[], %s::bigint[], %s::smallint[], "
    "%s::text[], %s::text[], %s::text[], %s::text[]) " + REJUDGE_STALE
)

#: The PostgreSQL type of each column a page's row sets (:data:`UPDATED_COLUMNS`).
_TYPES = {
    "status": "int",
    "content_type": "text",
    "title": "text",
    "canonical": "text",
    "indexable": "smallint",
    "reason": "text",
    "detail": "text",
    "lastmod": "text",
    "lastmod_source": "text",
    "fetched_at": "float8",
    "bytes": "bigint",
    "redirect_to": "text",
    "outlinks": "int",
    "etag": "text",
    "last_modified": "text",
}
#: Pages' rows, the columns of :meth:`Outcome.update_values` in its order (the
#: fingerprint twice: compared with the stored one, then stored).
_PAGE_COLUMNS = (
    *((name, _TYPES[name]) for name in UPDATED_COLUMNS),
    ("was", "text"),
    ("fingerprint", "text"),
    ("id", "bigint"),
)
_SET = ", ".join(f"{name} = v.{name}" for name in UPDATED_COLUMNS)
UPDATE_PAGES = (
    f"UPDATE urls u SET state = 2, {_SET}, fingerprint_run = CASE WHEN u.fingerprint IS NOT "
    "DISTINCT FROM v.was THEN u.fingerprint_run ELSE (SELECT MAX(id) FROM runs) END, "
    "fingerprint = v.fingerprint FROM unnest("
    + ", ".join(f"%s::{kind}[]" for _, kind in _PAGE_COLUMNS)
    + ") AS v("
    + ", ".join(name for name, _ in _PAGE_COLUMNS)
    + ") WHERE u.id = v.id"
)
_LINKS = (
    "INSERT INTO links(from_id, to_id, nofollow, kind) "
    "SELECT * FROM unnest(%s::bigint[], %s::bigint[], %s::smallint[], %s::text[])"
)
_ALTERNATES = (
    "INSERT INTO alternates(page_id, hreflang, href) "
    "SELECT * FROM unnest(%s::bigint[], %s::text[], %s::text[])"
)
_IMAGES = "INSERT INTO images(page_id, loc) SELECT * FROM unnest(%s::bigint[], %s::text[])"
_NOTES = (
    "INSERT INTO notes(page_id, code, message) "
    "SELECT * FROM unnest(%s::bigint[], %s::text[], %s::text[])"
)
_RENDER = (
    "INSERT INTO renders(page_id, status, why, links) VALUES (%s, %s, %s, %s) "
    "ON CONFLICT(page_id) DO UPDATE SET status = excluded.status, "
    "why = excluded.why, links = excluded.links"
)
_THUMBNAIL = (
    "INSERT INTO thumbnails(page_id, type, image) VALUES (%s, %s, %s) "
    "ON CONFLICT(page_id) DO UPDATE SET type = excluded.type, image = excluded.image"
)

#: Planned for its arguments every time (psycopg's ``prepare=False``): a join or an
#: ``= ANY`` on a table.  Prepared, PostgreSQL's cached generic plan for it, made
#: when the table was nearly empty, is a sequential scan kept as the table grows: a
#: lone fleet worker's page ``UPDATE`` took 1.2 ms for two rows (JDK docs, 6.6 s of
#: server time), its crawl 67-76 s against 49-58 s before the pages' writes were kept.
PLANNED = False

#: One statement, its parameters, and psycopg's ``prepare`` for it.
Statement = tuple[str, Sequence[object], bool | None]


def url_columns(rows: Sequence[NewUrl]) -> tuple[str, ...]:
    """``rows`` as the column arrays :data:`REPLAY_URLS` unnests after the ids."""
    return (
        text_array([n.url for n in rows]),
        int_array([n.depth for n in rows]),
        nullable_int_array([n.found_from for n in rows]),
        int_array([int(n.state) for n in rows]),
        text_array([n.reason for n in rows]),
        text_array([n.detail for n in rows]),
        text_array([n.loc for n in rows]),
        text_array([origin_of(n.url) for n in rows]),
    )


#: How a column of each type is spelled as an array literal (the others: integers).
_ENCODE: dict[str, Callable[[Sequence[Any]], str]] = {"text": text_array, "float8": float_array}


class PageWrites:
    """The pages' writes a store keeps (see the module): add them, then :meth:`step`."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._urls: list[tuple[int, NewUrl]] = []
        self._url_keys: set[str] = set()
        self._pages: list[tuple[int, Outcome]] = []
        self._page_ids: set[int] = set()
        #: Re-crawled pages: the facts their earlier fetch recorded go first.
        self._again: list[int] = []
        self._links: list[tuple[int, tuple[int, bool, str]]] = []
        self._link_from: set[int] = set()
        self._writes = 0

    def __len__(self) -> int:
        """How many writes are kept."""
        return self._writes

    def add_urls(self, rows: Sequence[tuple[int, NewUrl]]) -> bool:
        """Keep new URLs (with their ids); False (nothing kept) when one is kept already
        or is a page finished in this batch."""
        if any(n.url in self._url_keys or i in self._page_ids for i, n in rows):
            return False
        self._urls += rows
        self._url_keys.update(n.url for _, n in rows)
        self._writes += 1
        return True

    def finish(self, url_id: int, outcome: Outcome, *, again: bool) -> bool:
        """Keep a page's outcome (``again``: a re-crawl, its earlier facts replaced);
        False (nothing kept) when the page was finished or linked in this batch."""
        if url_id in self._page_ids or url_id in self._link_from:
            return False
        self._pages.append((url_id, outcome))
        self._page_ids.add(url_id)
        if again:
            self._again.append(url_id)
        self._writes += 1
        return True

    def add_links(self, from_id: int, links: Sequence[tuple[int, bool, str]]) -> bool:
        self._links += [(from_id, link) for link in links]
        self._link_from.add(from_id)
        self._writes += 1
        return True

    def statements(self) -> list[Statement]:
        """The statements that write what is kept, in their order (built once)."""
        out: list[Statement] = []
        if self._urls:
            rows = [n for _, n in self._urls]
            args = (int_array(i for i, _ in self._urls), *url_columns(rows))
            out.append((REPLAY_URLS, args, None))
        if self._again:
            ids = int_array(self._again)
            out += [
                (f"DELETE FROM {t} WHERE {c} = ANY(%s::bigint[])", (ids,), PLANNED)
                for t, c in PAGE_FACTS
            ]
        pages = self._pages
        if pages:
            columns = list(zip(*(o.update_values(i) for i, o in pages), strict=True))
            out.append(
                (
                    UPDATE_PAGES,
                    tuple(
                        _ENCODE.get(kind, nullable_int_array)(col)
                        for (_, kind), col in zip(_PAGE_COLUMNS, columns, strict=True)
                    ),
                    PLANNED,
                )
            )
        out += _facts(pages)
        if self._links:
            links = self._links
            out.append(
                (
                    _LINKS,
                    (
                        int_array(f for f, _ in links),
                        int_array(to_id for _, (to_id, _, _) in links),
                        int_array(1 if nofollow else 0 for _, (_, nofollow, _) in links),
                        text_array([kind for _, (_, _, kind) in links]),
                    ),
                    None,
                )
            )
        return out

    def step(self) -> Callable[[psycopg.Connection], None]:
        """What is kept as one replayable step of the store's batch; then nothing is kept."""
        statements = self.statements()
        self._reset()

        def run(conn: psycopg.Connection) -> None:
            for sql, args, prepare in statements:
                conn.execute(sql, args, prepare=prepare)

        return run


def _facts(pages: Sequence[tuple[int, Outcome]]) -> list[Statement]:
    """The alternates, images, notes, render and thumbnail of finished pages."""
    out: list[Statement] = []
    alternates = [(i, a) for i, o in pages for a in o.alternates]
    if alternates:
        out.append(
            (
                _ALTERNATES,
                (
                    int_array(i for i, _ in alternates),
                    text_array([a.hreflang for _, a in alternates]),
                    text_array([a.href for _, a in alternates]),
                ),
                None,
            )
        )
    images = [(i, loc) for i, o in pages for loc in o.images]
    if images:
        args = (int_array(i for i, _ in images), text_array([u for _, u in images]))
        out.append((_IMAGES, args, None))
    notes = [(i, note) for i, o in pages for note in o.notes]
    if notes:
        out.append(
            (
                _NOTES,
                (
                    int_array(i for i, _ in notes),
                    text_array([c for _, (c, _m) in notes]),
                    text_array([m for _, (_c, m) in notes]),
                ),
                None,
            )
        )
    for url_id, o in pages:
        if o.render is not None:
            render = (url_id, o.render, o.render_why, "\n".join(o.rendered_links))
            out.append((_RENDER, render, None))
        if o.thumbnail is not None:
            out.append((_THUMBNAIL, (url_id, o.thumbnail.type, o.thumbnail.image), None))
    return out
