"""The tree as compact JSON for the page, and the escaping that makes it safe to inline.

Why columnar arrays with one-letter keys: a 100,000-page site must fit in
25 MB and parse fast.  One array per field costs a comma per value instead of
a key per value, repeated strings (reasons, content types) go through a string
table, and a page's full URL is rebuilt in the browser from its path segments
(:func:`node_url`, mirrored by ``nodeUrl`` in ``app.js``) and only stored when
the rebuild would differ.

Keys (every array has one value per node, in the tree's pre-order):

==== =============================================================
p    parent in the path tree (-1 for the root and depth-only nodes)
q    parent in the crawl-depth tree (-1 = not in it); absent if no crawl
k    kind (:class:`~sitemapkit.visual.tree.Kind`) + 8 trailing slash + 16 query + 32 page
s    path segment / "?query" / origin
t    title ("" = none)
h    HTTP status (0 = unknown)
d    crawl depth (-1 = unknown)
x    indexable: 1 yes, 0 no, 2 unknown
r    reason excluded, index into S (0 = none)
i, o inlinks, outlinks
l    lastmod text ("" = none); ls its source, index into S
c    content type, index into S
u    {node: url} where the rebuilt URL differs; cn canonical, rd redirect target
==== =============================================================
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from sitemapkit.visual.tree import Kind, SiteTree

#: Bump when the JSON shape changes; the page refuses data it does not know.
FORMAT_VERSION = 1

#: Longest title carried to the page: a hostile page can have a megabyte of title.
MAX_TITLE = 500

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
    base: list[str] = [""] * len(tree.nodes)
    urls: list[str] = [""] * len(tree.nodes)
    for node in tree.nodes:  # pre-order: parents first (depth groups have no parent)
        if node.kind is Kind.HOST:
            b = node.segment
        elif node.parent < 0:
            b = ""
        elif node.is_query:
            b = base[node.parent]
        else:
            b = base[node.parent] + "/" + node.segment
        base[node.index] = b
        url = b + ("/" if node.trailing_slash else "")
        if node.is_query:
            url += node.segment
        urls[node.index] = url
    return urls


class _Strings:
    """A string table: index 0 is "no value"."""

    def __init__(self) -> None:
        self.items: list[str] = [""]
        self._index: dict[str, int] = {"": 0}

    def __call__(self, value: str | None) -> int:
        if not value:
            return 0
        i = self._index.get(value)
        if i is None:
            i = self._index[value] = len(self.items)
            self.items.append(value)
        return i


def build_payload(
    tree: SiteTree,
    *,
    title: str,
    source_kind: str,
    max_children: int,
    generated: datetime | None = None,
    urls: list[str] | None = None,
) -> dict[str, Any]:
    """Everything the page needs, as plain JSON values (``urls``: :func:`node_urls`, if known)."""
    generated = generated or datetime.now(UTC)
    strings = _Strings()
    n = len(tree.nodes)
    p = [0] * n
    k = [0] * n
    s = [""] * n
    t = [""] * n
    h = [0] * n
    d = [-1] * n
    x = [2] * n
    r = [0] * n
    ins = [0] * n
    outs = [0] * n
    lm = [""] * n
    ls = [0] * n
    ct = [0] * n
    u: dict[str, str] = {}
    cn: dict[str, str] = {}
    rd: dict[str, str] = {}
    rebuilt = urls if urls is not None else node_urls(tree)
    for node in tree.nodes:
        i = node.index
        p[i] = node.parent
        k[i] = (
            int(node.kind)
            | (8 if node.trailing_slash else 0)
            | (16 if node.is_query else 0)
            | (32 if node.record is not None else 0)
        )
        s[i] = node.segment
        rec = node.record
        if rec is None:
            continue
        if rebuilt[i] != rec.url:
            u[str(i)] = rec.url
        if rec.title:
            title_text = " ".join(rec.title.split())
            if len(title_text) > MAX_TITLE:
                title_text = title_text[: MAX_TITLE - 1] + "\u2026"
            t[i] = title_text
        h[i] = rec.status or 0
        d[i] = rec.depth if rec.depth is not None else -1
        x[i] = 2 if rec.indexable is None else int(rec.indexable)
        r[i] = strings(rec.reason)
        ins[i] = rec.inlinks
        outs[i] = rec.outlinks
        lm[i] = rec.lastmod or ""
        ls[i] = strings(rec.lastmod_source)
        ct[i] = strings(rec.content_type)
        if rec.canonical and rec.canonical != rec.url:
            cn[str(i)] = rec.canonical
        if rec.redirect_to:
            rd[str(i)] = rec.redirect_to
    payload: dict[str, Any] = {
        "v": FORMAT_VERSION,
        "title": title,
        "source": source_kind,
        "generated": generated.isoformat(timespec="seconds"),
        "max": max_children,
        "pages": tree.page_total,
        "dupes": tree.duplicates,
        "ph": tree.primary_host,
        "S": strings.items,
        "p": p,
        "k": k,
        "s": s,
        "t": t,
        "h": h,
        "d": d,
        "x": x,
        "r": r,
        "i": ins,
        "o": outs,
        "l": lm,
        "ls": ls,
        "c": ct,
        "u": u,
        "cn": cn,
        "rd": rd,
    }
    if tree.has_depth_tree:
        payload["q"] = [node.depth_parent for node in tree.nodes]
        payload["qr"] = tree.depth_root
    return payload
