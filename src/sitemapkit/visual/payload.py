"""The tree as compact JSON for the page, and the escaping that makes it safe to inline.

Why columnar arrays with one-letter keys: a million-page site must fit in
30 MB and parse fast.  One array per field costs a comma per value instead of
a key per value, a field no page has is left out, repeated strings (dates,
reasons, content types) go through a string table, the tree's shape is one
child count per node, and a page's full URL is rebuilt in the browser from its
path segments (``nodeUrl`` in ``app.js``) and only stored when the rebuild
would differ.

Keys (every array has one value per node, in the tree's pre-order):

==== =============================================================
n    children in the path tree, for its nodes in pre-order (the first
     ``len(n)`` nodes); the rest are depth-tree groups outside it
q    parent in the crawl-depth tree (-1 = not in it); absent if no crawl
k    kind (:class:`~sitemapkit.visual.tree.Kind`) + 8 trailing slash + 16 query + 32 page
s    path segment / "?query" / origin
t    title ("" = none)                      \
h    HTTP status (0 = unknown)               |
d    crawl depth (-1 = unknown)              |  each left out
x    indexable: 1 yes, 0 no, 2 unknown       |  when no page
r    reason excluded, index into S (0 = none) > has a value
i, o inlinks, outlinks                       |  (the page uses
l    lastmod, index into S; ls its source    |  the default)
c    content type, index into S             /
g    change (visualize --diff): new/gone/changed/same, index into S; gw what changed
u    {node: url} where the rebuilt URL differs; cn canonical, rd redirect target
rn   {node: [status, why, links only rendering found (count), the first
     :data:`MAX_RENDERED_LINKS` of them...]} for rendered pages; rm the crawl's
     ``--render`` mode (details: "not rendered, and why")
th   {node: "data:image/jpeg;base64,..."}: the page's first screen (``--thumbnails``)
w    {node: pages below it that the data does not hold}: the app's first screen of a
     big map (:mod:`~sitemapkit.visual.preview`); never in a ``visualize`` file
==== =============================================================

Past :data:`PACK_OVER` bytes the JSON is sent deflated and in base64
(:func:`pack`): a million URLs' JSON shrinks ~6x, so the page stays small and
the browser parses a short HTML text and inflates natively.
"""

from __future__ import annotations

import base64
import itertools
import json
import zlib
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from sitemapkit.visual.tree import COLUMN_DEFAULTS, MAX_TITLE, SiteTree

__all__ = [
    "FORMAT_VERSION",
    "MAX_TITLE",
    "PACK_OVER",
    "build_payload",
    "encode_data",
    "pack",
    "script_safe_json",
]

#: Bump when the JSON shape changes; the page refuses data it does not know.
FORMAT_VERSION = 2

#: Links only rendering found, listed per page in the details (the count is always given).
MAX_RENDERED_LINKS = 20

#: JSON longer than this (characters) goes to the page deflated (:func:`pack`).
PACK_OVER = 4_000_000

#: zlib level for :func:`pack`: level 1 is ~4x faster than 6 and ~15% bigger.
PACK_LEVEL = 1

#: (character, its JSON escape); applied with str.replace, which is ~30x faster
#: than str.translate with multi-character targets on a 14 MB non-ASCII text.
_SCRIPT_ESCAPES = (
    ("<", "\\u003c"),
    (">", "\\u003e"),
    ("&", "\\u0026"),
    ("\u2028", "\\u2028"),
    ("\u2029", "\\u2029"),
)


def script_safe_json(value: Any) -> str:
    """JSON that can sit inside ``<script type="application/json">`` whatever it holds.

    ``<``, ``>`` and ``&`` only ever occur inside JSON strings, where ``\\u003c``
    means the same character, so a title of ``</script><script>...`` cannot end
    the element; U+2028/2029 are escaped for old JavaScript parsers.
    """
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for char, escape in _SCRIPT_ESCAPES:
        if char in text:
            text = text.replace(char, escape)
    return text


def node_urls(tree: SiteTree) -> list[str]:
    """The URL the page rebuilds for each node from its segments (see ``nodeUrl`` in JS)."""
    return tree.node_urls()


def child_counts(tree: SiteTree) -> list[int]:
    """Children per node of the path tree (its nodes come first, in pre-order)."""
    return [len(k) if k else 0 for k in tree.kids[: tree.path_size]]


def build_payload(
    tree: SiteTree,
    *,
    title: str,
    source_kind: str,
    max_children: int,
    generated: datetime | None = None,
) -> dict[str, Any]:
    """Everything the page needs, as plain JSON values."""
    generated = generated or datetime.now(UTC)
    payload: dict[str, Any] = {
        "v": FORMAT_VERSION,
        "title": title,
        "source": source_kind,
        "generated": generated.isoformat(timespec="seconds"),
        "max": max_children,
        "pages": tree.page_total,
        "dupes": tree.duplicates,
        "ph": tree.primary_host,
        "S": tree.strings,
        "n": child_counts(tree),
        "k": list(tree.kinds),
        "s": tree.segments,
    }
    for key in COLUMN_DEFAULTS:
        col = tree.column(key)
        if col is not None:
            payload[key] = col
    rows = tree.rows
    by_node = (
        {r: i for i, r in enumerate(rows) if r >= 0}
        if tree.canonical or tree.redirect or tree.rendered
        else {}
    )
    payload["u"] = {str(i): u for i, u in tree.overrides.items()}
    payload["cn"] = {str(by_node[r]): u for r, u in tree.canonical.items()}
    payload["rd"] = {str(by_node[r]): u for r, u in tree.redirect.items()}
    if tree.rendered:
        payload["rn"] = {
            str(by_node[r]): [status, why, len(links), *links[:MAX_RENDERED_LINKS]]
            for r, (status, why, links) in tree.rendered.items()
        }
    if tree.render_mode is not None:
        payload["rm"] = tree.render_mode
    if tree.thumbnails:
        payload["th"] = {str(i): url for i, url in tree.thumbnails.items()}
    if tree.cut:
        payload["w"] = {str(i): n for i, n in tree.cut.items()}
    if tree.has_depth_tree:
        payload["q"] = tree.depth_parents
        payload["qr"] = tree.depth_root
    return payload


def pack(text: str) -> str:
    """``text`` (script-safe JSON) deflated and in base64: only ``A-Za-z0-9+/=``, safe anywhere.

    The page inflates it with the browser's ``DecompressionStream("deflate")``.
    """
    return _pack_pieces([text])


def _pack_pieces(pieces: Iterable[str]) -> str:
    deflate = zlib.compressobj(PACK_LEVEL)
    out = [deflate.compress(p.encode("utf-8", errors="replace")) for p in pieces]
    out.append(deflate.flush())
    return base64.b64encode(b"".join(out)).decode("ascii")


def _pieces(payload: dict[str, Any]) -> Iterator[str]:
    """The payload's script-safe JSON one key at a time (the same text as a whole dump)."""
    yield "{"
    for n, (key, value) in enumerate(payload.items()):
        yield ("," if n else "") + script_safe_json(key) + ":"
        yield script_safe_json(value)
    yield "}"


def encode_data(payload: dict[str, Any], pack_over: int = PACK_OVER) -> tuple[str, bool]:
    """The text of the page's data element, and whether it is packed (:func:`pack`).

    Built one key at a time: a million-URL payload is never one 35 MB JSON
    string; past ``pack_over`` characters the rest streams into the deflater.
    """
    pieces = _pieces(payload)
    head: list[str] = []
    size = 0
    for piece in pieces:
        head.append(piece)
        size += len(piece)
        if size > pack_over:
            return _pack_pieces(itertools.chain(head, pieces)), True
    return "".join(head), False
