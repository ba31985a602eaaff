"""One self-contained HTML file: inlined CSS and JS, the tree as JSON, a noscript list.

Why one file with nothing external: the map must open from a laptop on a
train and as an e-mail attachment.  Why a strict CSP with hashes instead of
``'unsafe-inline'``: titles and URLs come from the web, and even if an escape
were ever missed, a script the page did not ship has no hash and cannot run.
The data travels in ``<script type="application/json">`` (never executed) and
every ``<``, ``>`` and ``&`` in it is written as a ``\\u`` escape
(:func:`~sitemapkit.visual.payload.script_safe_json`).
"""

from __future__ import annotations

import base64
import hashlib
import html
import sys
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from sitemapkit.fileio import atomic_open
from sitemapkit.model import PageRecord
from sitemapkit.visual.payload import PACK_OVER, build_payload, encode_data
from sitemapkit.visual.tree import (
    DEFAULT_MAX_CHILDREN,
    MAX_TITLE,
    ColorMode,
    SiteTree,
    paused_gc,
)

#: Entries in the ``<noscript>`` list; past it the list says how many it left out.
NOSCRIPT_CAP = 2000

VIEWS = ("path", "depth")
LAYOUTS = ("horizontal", "vertical", "radial")
COLORS = tuple(m.value for m in ColorMode)


#: The map's script and style, shipped as files beside this module (the package is
#: installed unpacked, as ``app/server.py`` also assumes).  Read as plain files: going
#: through ``importlib.resources`` cost 21 ms of CPU per process (zipfile and its readers
#: imported) for two reads, a sixth of what publishing a 1,169-page crawl costs.
ASSETS = Path(__file__).with_name("assets")


@cache
def _asset(name: str) -> str:
    text = (ASSETS / name).read_text("utf-8")
    if "</script" in text.lower() or "</style" in text.lower():
        raise RuntimeError(f"asset {name} contains a closing tag and cannot be inlined")
    return text


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


def content_security_policy(script: str, style: str) -> str:
    """Nothing from anywhere, except the one script and one style this page ships.

    ``img-src data: blob:`` lets the PNG export draw the SVG through an image.
    """
    return (
        "default-src 'none'; "
        f"script-src '{_sha256(script)}'; "
        f"style-src '{_sha256(style)}'; "
        "img-src data: blob:; "
        "base-uri 'none'; form-action 'none'"
    )


def page_head(esc_title: str, script: str, style: str, style_attrs: str = "") -> str:
    """The document start of every self-contained page (the map, the audit report): the CSP
    that allows exactly ``script`` and ``style`` by hash, no referrer, and the inline style.
    ``esc_title`` is already HTML-escaped."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{content_security_policy(script, style)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="generator" content="sitemapkit">
<title>{esc_title}</title>
<link rel="icon" href="data:,">
<style{style_attrs}>{style}</style>
</head>
"""


def _option(value: str, text: str, chosen: str) -> str:
    sel = " selected" if value == chosen else ""
    return f'<option value="{value}"{sel}>{text}</option>'


def _noscript_items(tree: SiteTree, max_children: int) -> Iterator[tuple[int, int, int]]:
    """``(node, level, hidden)`` in pre-order; ``hidden > 0`` is a "+N more" entry."""
    if tree.root < 0:
        return
    stack: list[tuple[int, int, int]] = [(tree.root, 0, 0)]
    while stack:
        i, level, hidden = stack.pop()
        yield i, level, hidden
        if hidden:
            continue
        shown, more = tree.visible_children(i, max_children)
        if more is not None:
            stack.append((i, level + 1, len(more.hidden)))
        stack.extend((c, level + 1, 0) for c in reversed(shown))


def noscript_list(
    tree: SiteTree,
    cap: int = NOSCRIPT_CAP,
    max_children: int = DEFAULT_MAX_CHILDREN,
) -> str:
    """The path tree as nested ``<ul>``, every text escaped, at most ``cap`` entries.

    Big branches fold into "... and N more" like the interactive map, so the
    list shows the shape of the whole site instead of the first 2,000 URLs.
    """
    out: list[str] = []
    written = 0
    prev_level = -1
    for i, level, hidden in _noscript_items(tree, max_children):
        if written >= cap:
            break
        if level > prev_level:
            out.append("<ul>" * (level - prev_level))
        else:
            out.append("</li>" + "</ul></li>" * (prev_level - level))
        written += 1
        prev_level = level
        if hidden:
            out.append(f"<li>&hellip; and {hidden:,} more")
            continue
        node = tree.nodes[i]
        text = node.label
        label = html.escape(text if len(text) <= MAX_TITLE else text[: MAX_TITLE - 1] + "\u2026")
        url = tree.url(i)
        page = tree.rows[i] >= 0
        if page and url.lower().startswith(("http://", "https://")):
            out.append(
                f'<li><a href="{html.escape(url, quote=True)}" rel="noopener noreferrer">'
                f"{label}</a>"
            )
        else:
            out.append(f"<li>{label}")
        status = tree.value("h", i)
        if page and status:
            out.append(f" ({status})")
    if prev_level >= 0:
        out.append("</li>" + "</ul></li>" * prev_level + "</ul>")
    if written >= cap:
        out.append(
            f"<p>&hellip; the list stops at {cap:,} entries: "
            "enable JavaScript to explore all of them.</p>"
        )
    return "".join(out)


def hosts_text(tree: SiteTree) -> str:
    """ "3 hosts", or "1 host + 64 only linked" when a crawl's map has an External links group."""
    external = tree.external_hosts
    site = tree.host_count - external
    text = f"{site:,} host{'s' if site != 1 else ''}"
    return f"{text} + {external:,} only linked" if external else text


def render_html(
    tree: SiteTree,
    *,
    title: str = "Site map",
    source_kind: str = "crawl",
    max_children: int = DEFAULT_MAX_CHILDREN,
    view: str = "path",
    layout: str = "horizontal",
    color: str = "section",
    generated: datetime | None = None,
    pack_over: int = PACK_OVER,
) -> str:
    """The whole page as text.  Options pick what the page shows first; users switch later.

    Data longer than ``pack_over`` characters is sent deflated (see :func:`pack`).
    """
    if view not in VIEWS or layout not in LAYOUTS or color not in COLORS:
        raise ValueError(f"unknown view/layout/color: {view!r} {layout!r} {color!r}")
    if view == "depth" and not tree.has_depth_tree:
        view = "path"
    diffed = "g" in tree.cols  # the change colours only mean something on a --diff map
    if color == ColorMode.CHANGE and not diffed:
        color = "section"
    generated = generated or datetime.now(UTC)
    payload = build_payload(
        tree, title=title, source_kind=source_kind, max_children=max_children, generated=generated
    )
    data, packed = encode_data(payload, pack_over)
    del payload
    if packed:
        data_tag = (
            '<script id="sitemap-data" type="application/octet-stream" data-encoding="deflate">'
        )
    else:
        data_tag = '<script id="sitemap-data" type="application/json">'
    script = _asset("app.js")
    style = _asset("app.css")
    esc_title = html.escape(title)
    stats = (
        f"{tree.page_total:,} pages &middot; {html.escape(hosts_text(tree))} "
        f"&middot; from a {html.escape(source_kind)} &middot; "
        f"{html.escape(generated.strftime('%Y-%m-%d %H:%M UTC'))}"
    )
    views = _option("path", "by URL path", view)
    if tree.has_depth_tree:
        views += _option("depth", "by crawl depth", view)
    layouts = "".join(_option(v, v, layout) for v in LAYOUTS)
    colors = "".join(_option(v, v, color) for v in COLORS if diffed or v != ColorMode.CHANGE)
    return (
        page_head(esc_title, script, style, ' id="app-style"')
        + f"""<body>
<header><h1>{esc_title}</h1><span class="stats">{stats}</span></header>
<div class="toolbar" role="toolbar" aria-label="Map controls">
<span class="group"><label>View <select id="view">{views}</select></label>
<label>Layout <select id="layout">{layouts}</select></label>
<label>Colour <select id="color">{colors}</select></label></span>
<span class="group"><label>Search <input id="search" type="search"
 placeholder="title or URL, Enter for next" autocomplete="off"></label></span>
<span class="group"><button id="fit" type="button">Fit</button>
<button id="expand-all" type="button">Expand all</button>
<button id="collapse-all" type="button">Collapse all</button>
<label>to depth <input id="depth-n" type="number" min="0" max="99" value="2"></label>
<button id="expand-depth" type="button">Expand</button></span>
<span class="group"><button id="export-svg" type="button">SVG</button>
<button id="export-png" type="button">PNG</button>
<button id="export-json" type="button">JSON</button></span>
</div>
<main>
<div id="stage">
<svg id="map" role="tree" tabindex="0" aria-label="Site map: arrow keys move, Enter expands,
 Space shows details, + and - zoom, 0 fits"><g id="viewport"></g></svg>
<div id="status" role="status" aria-live="polite"></div>
</div>
<aside>
<section id="legend" aria-label="Legend"><h2>Legend</h2><ul></ul>
<p class="hint">Counts are pages. Click a colour to highlight it.</p></section>
<section id="results" aria-label="Search results"></section>
<section id="details" aria-live="polite"><h2>Details</h2>
<p class="hint">Click a node (or press Space) for its details; click the round knob,
double-click the node or press Enter to expand it.</p></section>
</aside>
</main>
<noscript>{noscript_list(tree, max_children=max_children)}</noscript>
{data_tag}{data}</script>
<script>{script}</script>
</body>
</html>
"""
    )


def write_visual_map(
    records: Iterable[PageRecord] | SiteTree,
    out: Path,
    *,
    title: str | None = None,
    source_kind: str = "crawl",
    max_children: int = DEFAULT_MAX_CHILDREN,
    view: str = "path",
    layout: str = "horizontal",
    color: str = "section",
) -> Path:
    """Build the tree from ``records`` (or take a built one) and publish the page at ``out``.

    The tree is dropped before the garbage collector resumes, so it never
    scans the hundreds of thousands of objects a big site makes.
    """
    with paused_gc():
        result = _publish(
            records, out, title, source_kind, max_children, view, layout, color, False
        )
        assert result is not None  # only None when refuse_empty
        path = result[0]
        del result
    return path


def publish_visual_map(
    records: Iterable[PageRecord] | SiteTree,
    out: Path,
    *,
    title: str | None = None,
    source_kind: str = "crawl",
    max_children: int = DEFAULT_MAX_CHILDREN,
    view: str = "path",
    layout: str = "horizontal",
    color: str = "section",
    refuse_empty: bool = False,
) -> tuple[Path, SiteTree, int] | None:
    """:func:`write_visual_map` that also returns the tree and the byte size (for the CLI).

    The file appears complete or not at all (temporary name in the same folder,
    then a rename), so a browser never opens half a map.  With ``refuse_empty``
    nothing is written for a source without pages and ``None`` comes back.
    """
    with paused_gc():
        return _publish(records, out, title, source_kind, max_children, view, layout, color,
                        refuse_empty)  # fmt: skip


def _publish(
    records: Iterable[PageRecord] | SiteTree,
    out: Path,
    title: str | None,
    source_kind: str,
    max_children: int,
    view: str,
    layout: str,
    color: str,
    refuse_empty: bool,
) -> tuple[Path, SiteTree, int] | None:
    tree = records if isinstance(records, SiteTree) else SiteTree.from_records(records)
    if refuse_empty and tree.page_total == 0:
        return None
    if title is None:
        main = tree.primary_host
        title = (
            "Site map of " + tree.segments[main].split("://", 1)[-1] if main >= 0 else "Site map"
        )
    text = render_html(
        tree,
        title=title,
        source_kind=source_kind,
        max_children=max_children,
        view=view,
        layout=layout,
        color=color,
    )
    data = text.encode("utf-8", errors="replace")
    out = Path(out)
    if str(out) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return out, tree, len(data)
    with atomic_open(out, "wb", what="the visual map") as fh:
        fh.write(data)
    return out, tree, len(data)
