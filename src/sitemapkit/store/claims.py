"""What every store's claims share (SQLite and PostgreSQL, alone and fleet).

* The columns a claimed URL is read with, in :class:`~sitemapkit.store.base.Claimed`'s
  order, and the rows made into ``Claimed`` values: four claim statements spelt them.
* One depth at a time (``--max-depth``): :func:`level_clause`.

Why one depth at a time: a URL's depth is the one it is first seen at.  Were a deeper
page fetched while a shallower one is in flight (a slow page, many tasks, another
worker), a URL both link would take the deeper page's depth, so ``--max-depth`` (or the
trap guard's depth limit) could leave out a page within reach, and the depths, and so
the crawl, would hang on fetch order.  A claim therefore takes no URL deeper than the
shallowest URL claimed and not through: each depth is then the length of the shortest
link path, whatever ``--concurrency``, ``--workers`` or the number of fleet processes.

A page leaves the claimed state in the transaction that stores its links, so no
process sees a level through before its links are in.  It costs one wait for the
level's last page per level (9% of the demo crawl, 14 levels deep), a level of many
hosts waits for its slowest host, and in a fleet a dead worker's claimed URLs hold the
next level back until its leases expire: so only a crawl whose pages depend on their
depth (``--max-depth``) takes a level at a time; the others keep a URL's first depth.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from sitemapkit.store.base import Claimed

#: A claimed URL's columns (``id``, ``url``, ``depth``, then the rest as ``Claimed`` has them).
_COLUMNS: Final = (
    "id",
    "url",
    "depth",
    "loc",
    "etag",
    "last_modified",
    "fingerprint",
    "lastmod",
    "lastmod_source",
)


def claim_columns(alias: str = "") -> str:
    """The columns for a claim's ``SELECT`` or ``RETURNING`` (each ``alias.``-qualified)."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(prefix + column for column in _COLUMNS)


def claimed(rows: Iterable[Sequence[Any]]) -> list[Claimed]:
    """Rows read with :func:`claim_columns`, as ``Claimed`` values in their order."""
    return [Claimed(int(r[0]), str(r[1]), int(r[2]), *r[3:]) for r in rows]


#: No URL claimed (or queued): any depth (the stores' INTEGER depth never reaches it).
_ANY_DEPTH: Final = 2**31 - 1
#: ``AND``-ed into a claim's ``WHERE``: no deeper than the shallowest URL claimed, nor than
#: the shallowest queued (a claim with nothing in flight takes one level, not the next
#: one's URLs too).  Each bound is a subquery of its own, run once per statement through a
#: partial index (the claimed URLs; the queue's first entry), so the queue's index is read
#: up to the bound and no further: a level's last claims do not scan the deeper levels.
CLAIMABLE_DEPTH: Final = (
    f"depth <= (SELECT COALESCE(MIN(depth), {_ANY_DEPTH}) FROM urls WHERE state = 1) "
    f"AND depth <= (SELECT COALESCE(MIN(depth), {_ANY_DEPTH}) FROM urls WHERE state = 0)"
)


def level_clause(one_level: bool) -> str:
    """What a claim's ``WHERE`` gets: the rule when the crawl takes a level at a time."""
    return f" AND {CLAIMABLE_DEPTH}" if one_level else ""
