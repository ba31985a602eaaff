"""The redirect chains being followed, as both stores keep them (``?`` placeholders).

Why in the store: a chain is judged as a whole (a loop, or more than
``limits.MAX_REDIRECTS`` redirects, marks every hop), but its hops are fetched and
recorded one at a time, a commit apart.  A process killed between two hops leaves
the next hop ``CLAIMED``; put back in the queue, it used to start a chain of its own,
so the hops already recorded kept ``redirect`` where an uninterrupted crawl says
``redirect-chain`` or ``redirect-loop``.  So each hop a chain claims gets a row
here, written in the batch that claims it (the same transaction as the hop before
it): whoever takes the hop up again, after ``--resume`` or from a dead fleet worker,
reads the hops before it (:data:`BEFORE`) and goes on with the same chain.

Rows live for a run: a URL is claimed once per run, so a row is only ever read for
the chain that wrote it; :meth:`CrawlStore.start_run` empties the table
(:data:`FORGET`).  The chain's first hop has no row (it came from the queue).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sitemapkit.store.base import Claimed

#: The table, one text for both stores: ids are SQLite's ``INTEGER`` (the key then names
#: the row) and PostgreSQL's ``BIGINT``, as the ``urls`` ids they hold.
_TABLE = """
    CREATE TABLE chain_hops (
        url_id {id} PRIMARY KEY,
        start_id {id} NOT NULL,
        hop INTEGER NOT NULL
    );
    CREATE INDEX chain_hops_start ON chain_hops(start_id, hop);
"""
#: SQLite's table (migration 15); PostgreSQL's is :data:`PG_SCHEMA` (its migration 4).
SCHEMA = _TABLE.format(id="INTEGER")
PG_SCHEMA = _TABLE.format(id="BIGINT")

#: ``url_id`` is hop ``hop`` (1: the first redirect's target) of the chain from ``start_id``.
ADD = (
    "INSERT INTO chain_hops(url_id, start_id, hop) VALUES (?, ?, ?) "
    "ON CONFLICT(url_id) DO UPDATE SET start_id = excluded.start_id, hop = excluded.hop"
)
#: A new run follows its chains afresh.
FORGET = "DELETE FROM chain_hops"
#: The hops before the one given (its id twice), first hop first: ``hop, id, url, depth, loc``.
BEFORE = (
    "SELECT 0, u.id, u.url, u.depth, u.loc FROM chain_hops h "
    "JOIN urls u ON u.id = h.start_id WHERE h.url_id = ? "
    "UNION ALL "
    "SELECT o.hop, u.id, u.url, u.depth, u.loc FROM chain_hops h "
    "JOIN chain_hops o ON o.start_id = h.start_id AND o.hop < h.hop "
    "JOIN urls u ON u.id = o.url_id WHERE h.url_id = ? "
    "ORDER BY 1"
)


def before_args(url_id: int) -> tuple[int, int]:
    """The parameters of :data:`BEFORE` for the hop ``url_id``."""
    return (url_id, url_id)


def hops(rows: Iterable[Sequence[Any]]) -> list[Claimed]:
    """The rows of :data:`BEFORE` as the engine's chain items."""
    return [Claimed(int(i), str(url), int(depth), loc) for _, i, url, depth, loc in rows]
