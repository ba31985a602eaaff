"""Read any sitemap into :class:`~sitemapkit.model.UrlEntry` values, streaming.

The tolerant half of "tolerant reader, strict validator" (RULES.md, "Parsing
in the wild"): a missing or https namespace, old Google namespaces, BOMs,
leading junk, bad dates (kept as text), gzip with or without
``Content-Encoding``, text sitemaps, RSS 2.0/Atom feeds and robots.txt
``Sitemap:`` lines are all read, and each tolerance is noted (``tolerated-*``
info findings in the caller's ``log``).  Safety caps and unreadable children
are noted there too, under their ``limit-*`` / RULES.md codes.

Two doors: :func:`aiter_entries` (async, receives the caller's
``aiohttp.ClientSession`` — the crawler's seam) and :func:`iter_entries`
(sync, runs the same walk on a private event loop).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field, replace
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any, Final, TypeVar

from sitemapkit.limits import (
    IMAGE_NS,
    NEWS_NS,
    SITEMAP_NS,
    VIDEO_NS,
    XHTML_NS,
)
from sitemapkit.listing import Listing
from sitemapkit.model import (
    Alternate,
    Finding,
    Image,
    News,
    Severity,
    SitemapRef,
    UrlEntry,
    Video,
    VideoPlatform,
    VideoRestriction,
)
from sitemapkit.read.discover import discover_sitemaps
from sitemapkit.read.entries import all_plain, is_sitemap_entry, loc_problem, text_line_url
from sitemapkit.read.kinds import ATOM03_NS, Kind
from sitemapkit.read.source import ReadLimits
from sitemapkit.read.walk import TOLERATED_CORE_NS, Doc, Event, Walker
from sitemapkit.read.xmlstream import Item, LocRun, Node, Plain

if TYPE_CHECKING:
    import aiohttp

__all__ = [
    "ReadLimits",
    "SourcedEntry",
    "aiter_entries",
    "aiter_sourced",
    "discover_sitemaps",
    "iter_entries",
    "iter_locs",
    "iter_sourced",
]


@dataclass(frozen=True, slots=True)
class SourcedEntry:
    """An entry and where it was read: the sitemap (path or URL) and the line of its ``url``."""

    entry: UrlEntry
    sitemap: str
    line: int | None = None


# --- nodes -> values -----------------------------------------------------------------
def _text(node: Node | None) -> str | None:
    return None if node is None else node.text.strip()


def _yes(text: str | None) -> bool | None:
    if text is None:
        return None
    t = text.strip().lower()
    return True if t == "yes" else False if t == "no" else None


def _int(text: str | None) -> int | None:
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _float(text: str | None) -> float | None:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return None


def to_image(node: Node) -> Image:
    ns = node.ns
    return Image(
        loc=_text(node.child(ns, "loc")) or "",
        caption=_text(node.child(ns, "caption")),
        geo_location=_text(node.child(ns, "geo_location")),
        title=_text(node.child(ns, "title")),
        license=_text(node.child(ns, "license")),
    )


_VIDEO_TEXT = frozenset(
    {
        "thumbnail_loc",
        "title",
        "description",
        "content_loc",
        "player_loc",
        "expiration_date",
        "publication_date",
    }
)


def to_video(node: Node) -> Video:
    ns = node.ns
    values: dict[str, Any] = {}
    tags: list[str] = []
    for c in node.children:
        if c.ns != ns:
            continue
        text = c.text.strip()
        name = c.name
        if name in _VIDEO_TEXT:
            values.setdefault(name, text)
        elif name in ("duration", "view_count"):
            values.setdefault(name, _int(text))
        elif name == "rating":
            values.setdefault(name, _float(text))
        elif name == "tag":
            tags.append(text)
        elif name in ("family_friendly", "requires_subscription", "live"):
            values.setdefault(name, _yes(text))
        elif name == "uploader":
            values.setdefault("uploader", text)
            if "info" in c.attrs:
                values.setdefault("uploader_info", c.attrs["info"])
        elif name == "restriction":
            values.setdefault(
                "restriction",
                VideoRestriction(c.attrs.get("relationship", ""), tuple(text.split())),
            )
        elif name == "platform":
            values.setdefault(
                "platform", VideoPlatform(c.attrs.get("relationship", ""), tuple(text.split()))
            )
    values.setdefault("thumbnail_loc", "")
    values.setdefault("title", "")
    values.setdefault("description", "")
    return Video(tags=tuple(tags), **values)


def to_news(node: Node) -> News:
    ns = node.ns
    pub = node.child(ns, "publication")
    return News(
        publication_name=(_text(pub.child(ns, "name")) if pub else None) or "",
        publication_language=(_text(pub.child(ns, "language")) if pub else None) or "",
        publication_date=_text(node.child(ns, "publication_date")) or "",
        title=_text(node.child(ns, "title")) or "",
    )


_CORE_FIELDS: Final = frozenset({"loc", "lastmod", "changefreq", "priority"})


@dataclass
class _Extensions:
    """The extension children of one ``url`` node, gathered in document order."""

    images: list[Image] = field(default_factory=list)
    videos: list[Video] = field(default_factory=list)
    alternates: list[Alternate] = field(default_factory=list)
    news: News | None = None

    def take(self, c: Node) -> None:
        ns, name = c.ns, c.name
        if ns == IMAGE_NS and name == "image":
            self.images.append(to_image(c))
        elif ns == VIDEO_NS and name == "video":
            self.videos.append(to_video(c))
        elif ns == NEWS_NS and name == "news" and self.news is None:
            self.news = to_news(c)
        elif ns == XHTML_NS and name == "link":
            a = c.attrs
            if a.get("rel") == "alternate" and "hreflang" in a and "href" in a:
                self.alternates.append(Alternate(a["hreflang"].strip(), a["href"].strip()))


def to_url_entry(node: Node, core_ns: str) -> UrlEntry | None:
    """The :class:`UrlEntry` of a ``url`` node (values verbatim), or ``None`` without a loc.

    A core field's first non-empty value counts (an empty ``<loc/>`` before a real
    one does not hide it).
    """
    core: dict[str, str] = {}
    ext = _Extensions()
    for c in node.children:
        if c.ns in (core_ns, ""):
            if c.name in _CORE_FIELDS and not core.get(c.name):
                core[c.name] = c.text.strip()
        else:
            ext.take(c)
    loc = core.get("loc")
    if not loc:
        return None
    return UrlEntry(
        loc=loc,
        lastmod=core.get("lastmod") or None,
        changefreq=core.get("changefreq") or None,
        priority=core.get("priority") or None,
        images=tuple(ext.images),
        videos=tuple(ext.videos),
        news=ext.news,
        alternates=tuple(ext.alternates),
    )


def to_sitemap_ref(node: Node, core_ns: str) -> SitemapRef | None:
    loc = lastmod = None
    for c in node.children:
        if c.ns in (core_ns, ""):
            if c.name == "loc" and loc is None:
                loc = c.text.strip()
            elif c.name == "lastmod" and lastmod is None:
                lastmod = c.text.strip()
    return SitemapRef(loc, lastmod or None) if loc else None


def _rss_date(text: str | None) -> str | None:
    """An RSS ``pubDate`` (RFC 822) as a W3C datetime; a value that is not one, as written.

    A date without a zone (``05 Jan 17 13:34:55``) is no RFC 822 date: made into
    ``2017-01-05T13:34:55`` it became a lastmod with a time and no zone, which the W3C
    profile forbids and no reader can place; as written, the validator names it.
    """
    if not text:
        return None
    try:
        parsed = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return text
    return parsed.isoformat() if parsed.tzinfo is not None else text


def feed_link(node: Node) -> str | None:
    """The page URL of an RSS ``item`` or an Atom ``entry``."""
    if node.name == "entry":
        for c in node.children:
            if c.name == "link" and c.attrs.get("rel", "alternate") == "alternate":
                href = c.attrs.get("href", "").strip()
                if href:
                    return href
        return None
    link = node.child(node.ns, "link") or node.child("", "link")
    if link is not None and link.text.strip():
        return link.text.strip()
    guid = node.child(node.ns, "guid") or node.child("", "guid")
    if guid is not None and guid.attrs.get("isPermaLink", "true") != "false":
        text = guid.text.strip()
        if text.startswith(("http://", "https://")):
            return text
    return None


def to_feed_entry(node: Node) -> UrlEntry | None:
    link = feed_link(node)
    if link is None:
        return None
    if node.name == "entry":
        ns = node.ns
        names = ("modified", "issued") if ns == ATOM03_NS else ("updated", "published")
        lastmod = _text(node.child(ns, names[0])) or _text(node.child(ns, names[1]))
    else:
        lastmod = _rss_date(_text(node.child(node.ns, "pubDate") or node.child("", "pubDate")))
    return UrlEntry(loc=link, lastmod=lastmod or None)


# --- tolerances ------------------------------------------------------------------------
def tolerances(doc: Doc) -> list[Finding]:
    """Info notes for what the reader accepted although the protocol says otherwise."""
    notes: list[Finding] = []
    f = doc.facts

    def note(code: str, msg: str) -> None:
        notes.append(Finding(code, Severity.INFO, msg, doc.source))

    if doc.kind in ("urlset", "sitemapindex") and f.root_ns != SITEMAP_NS:
        what = "no namespace" if not f.root_ns else f'namespace "{f.root_ns}"'
        note("tolerated-namespace", f"read <{doc.kind}> with {what}")
    if f.bom:
        note("tolerated-bom", "read past a byte order mark")
    if f.leading_bytes:
        note("tolerated-leading-content", f"skipped {f.leading_bytes} bytes before <?xml")
    if doc.gzip:
        enc = doc.fetch.content_encoding if doc.fetch else ""
        note("tolerated-gzip", f"gunzipped the body (Content-Encoding: {enc or 'none'})")
    if doc.kind == "text":
        note("tolerated-text", "read as a text sitemap")
    if doc.kind in ("rss", "atom"):
        note("tolerated-feed", f"read as an {doc.kind.upper()} feed")
    return notes


# --- the walk -> entries ------------------------------------------------------------------
class _Out:
    """What one read gives besides entries: the caller's log, under the one listing cap."""

    def __init__(self, log: list[Finding] | None) -> None:
        self.log = log
        self.listing = Listing()

    def note(self, f: Finding) -> None:
        if self.log is not None and self.listing.take(f):
            self.log.append(f)

    def close(self) -> None:
        if self.log is not None:
            self.log.extend(self.listing.more())


def _keep(doc: Doc, loc: str, line: int | None, out: _Out) -> bool:
    """True when ``loc`` may be listed as a page; else its problem is noted (left out)."""
    problem = loc_problem(loc)
    if problem is None:
        return True
    out.note(Finding(problem[0], Severity.ERROR, problem[1], doc.source, line, None, loc[:200]))
    return False


def _blank(doc: Doc, line: int | None, out: _Out, *, empty: bool) -> None:
    """An entry without a usable loc is left out and said, with ``validate``'s codes (a
    ``<url>`` dropped without a word made ``urls`` exit 0 on a file ``validate`` fails)."""
    if empty:
        finding = Finding(
            "loc-not-absolute", Severity.ERROR, "loc is empty; left out", doc.source, line
        )
    else:
        message = "<url> has no <loc>; left out"
        finding = Finding("loc-missing", Severity.ERROR, message, doc.source, line)
    out.note(finding)


def _node_entry(doc: Doc, node: Node, out: _Out) -> UrlEntry | None:
    """The entry of a ``<url>`` node, or None (and its missing or empty loc noted)."""
    entry = to_url_entry(node, doc.core_ns)
    if entry is None:
        core = (doc.core_ns, "")
        empty = any(c.name == "loc" and c.ns in core for c in node.children)
        _blank(doc, node.line, out, empty=empty)
    return entry


def _plain_loc(doc: Doc, node: Plain, out: _Out) -> str | None:
    """The loc of a lean-lane ``<url>`` (it has a ``<loc>``); None for a ``<sitemap>``, or
    (noted) when the loc is empty."""
    if not node[0]:
        return None
    loc = node[1].strip()
    if not loc:
        _blank(doc, node[5], out, empty=True)
        return None
    return loc


def _plain_entry(doc: Doc, node: Plain, out: _Out) -> SourcedEntry | None:
    loc = _plain_loc(doc, node, out)
    if loc is None:
        return None
    lastmod, changefreq, priority = node[2], node[3], node[4]
    return SourcedEntry(
        UrlEntry(
            loc,
            (lastmod and lastmod.strip()) or None,
            (changefreq and changefreq.strip()) or None,
            (priority and priority.strip()) or None,
        ),
        doc.source,
        node[5],
    )


def _urlset(doc: Doc, nodes: list[Item], out: _Out) -> list[SourcedEntry]:
    core = doc.core_ns
    if core not in TOLERATED_CORE_NS:
        return []
    batch: list[SourcedEntry] = []
    for node in nodes:
        if isinstance(node, tuple):
            item = _plain_entry(doc, node, out)
        elif isinstance(node, Node) and is_sitemap_entry(node, "urlset", core):
            e = _node_entry(doc, node, out)
            item = None if e is None else SourcedEntry(e, doc.source, node.line)
        else:
            continue
        if item is not None:
            batch.append(item)
    return batch


def _text_lines(doc: Doc, nodes: list[Item], out: _Out) -> list[SourcedEntry]:
    batch: list[SourcedEntry] = []
    for node in nodes:
        assert isinstance(node, Node)
        loc = text_line_url(node.text)
        if loc is not None:
            batch.append(SourcedEntry(UrlEntry(loc), doc.source, node.line))
        else:
            t = node.text.strip()
            msg = f'"{t[:100]}" is not one absolute URL'
            out.note(Finding("text-line-invalid", Severity.ERROR, msg, doc.source, node.line, 1))
    return batch


def _feed(doc: Doc, nodes: list[Item], _out: _Out) -> list[SourcedEntry]:
    batch: list[SourcedEntry] = []
    for node in nodes:
        assert isinstance(node, Node)
        e = to_feed_entry(node)
        if e is not None:
            batch.append(SourcedEntry(e, doc.source, node.line))
    return batch


def _index_refs(doc: Doc, nodes: list[Item], _out: _Out) -> list[SourcedEntry]:
    """The sitemaps an index lists, as entries (``--no-follow``)."""
    batch: list[SourcedEntry] = []
    for node in nodes:
        if isinstance(node, tuple):
            ref = SitemapRef(node[1].strip(), node[2]) if not node[0] else None
            line = node[5]
        elif isinstance(node, Node) and is_sitemap_entry(node, "sitemapindex", doc.core_ns):
            ref = to_sitemap_ref(node, doc.core_ns)
            line = node.line
        else:  # strict-lane blocks come only to the validator
            continue
        if ref is not None and ref.loc:
            batch.append(SourcedEntry(UrlEntry(ref.loc, ref.lastmod), doc.source, line))
    return batch


_Reader = Callable[[Doc, list[Item], _Out], list[SourcedEntry]]
#: kind -> how its nodes become entries (an index gives entries only when not followed)
ENTRY_READERS: Final[dict[Kind, _Reader]] = {
    "urlset": _urlset,
    "text": _text_lines,
    "rss": _feed,
    "atom": _feed,
    "sitemapindex": _index_refs,
}


def _batch(doc: Doc, nodes: list[Item], out: _Out, follow: bool) -> list[SourcedEntry]:
    """The entries of one batch of nodes of ``doc``: non-web and over-long locs left out."""
    read = ENTRY_READERS.get(doc.kind) if doc.kind is not None else None
    if read is None or (doc.kind == "sitemapindex" and follow):
        return []
    batch = read(doc, nodes, out)
    if all_plain([b.entry.loc for b in batch]):
        return batch
    return [b for b in batch if _keep(doc, b.entry.loc, b.line, out)]


def _note(ev: Event, out: _Out) -> None:
    if ev.kind in ("finding", "unreadable", "skipped") and ev.finding is not None:
        out.note(ev.finding)
    elif ev.kind == "end":
        for f in tolerances(ev.doc):
            out.note(f)


async def _abatches(
    sources: list[str],
    *,
    session: aiohttp.ClientSession | None,
    limits: ReadLimits,
    sitemap_url: str | None,
    log: list[Finding] | None,
    follow: bool = True,
    lean: bool = True,
) -> AsyncGenerator[list[SourcedEntry], None]:
    walker = Walker(
        session=session, limits=limits, sitemap_url=sitemap_url, follow=follow, lean=lean
    )
    out = _Out(log)
    async for ev in walker.walk(sources):
        if ev.kind == "nodes":
            batch = _batch(ev.doc, ev.nodes, out, follow)
            if batch:
                yield batch
        else:
            _note(ev, out)
    out.close()


def _run_locs(doc: Doc, nodes: list[Item], out: _Out) -> list[str]:
    """The locs of a urlset batch from the loc lane (runs, plain tuples, nodes)."""
    core = doc.core_ns
    if core not in TOLERATED_CORE_NS:
        return []
    locs: list[str] = []
    add = locs.append
    for node in nodes:
        if isinstance(node, LocRun):  # the loc lane hands out only runs of plain locs
            locs.extend(node.locs)
        elif isinstance(node, tuple):
            loc = _plain_loc(doc, node, out)
            if loc is not None and _keep(doc, loc, node[5], out):
                add(loc)
        elif isinstance(node, Node) and is_sitemap_entry(node, "urlset", core):
            e = _node_entry(doc, node, out)
            if e is not None and _keep(doc, e.loc, node.line, out):
                add(e.loc)
    return locs


async def _alocs(
    sources: list[str], *, limits: ReadLimits, log: list[Finding] | None, follow: bool
) -> AsyncGenerator[list[str], None]:
    """Only the locs: what ``sitemapkit urls`` prints, without building an entry per URL."""
    walker = Walker(session=None, limits=limits, follow=follow, locs_only=True)
    out = _Out(log)
    async for ev in walker.walk(sources):
        if ev.kind != "nodes":
            _note(ev, out)
            continue
        doc = ev.doc
        if doc.kind == "urlset":
            locs = _run_locs(doc, ev.nodes, out)
        else:
            locs = [b.entry.loc for b in _batch(doc, ev.nodes, out, follow)]
        if locs:
            yield locs
    out.close()


def iter_locs(
    source: str,
    *,
    limits: ReadLimits | None = None,
    log: list[Finding] | None = None,
    follow: bool = True,
) -> Iterator[list[str]]:
    """Batches of loc strings of ``source`` (the fast path of ``sitemapkit urls``)."""
    yield from _run_sync(_alocs([source], limits=limits or ReadLimits(), log=log, follow=follow))


def _dated_rows(doc: Doc, nodes: list[Item], out: _Out, follow: bool) -> list[tuple[str, str]]:
    """``(loc, lastmod text or "")`` of one batch; plain urlset entries without an entry each."""
    if doc.kind != "urlset":
        return [(b.entry.loc, str(b.entry.lastmod or "")) for b in _batch(doc, nodes, out, follow)]
    core = doc.core_ns
    if core not in TOLERATED_CORE_NS:
        return []
    rows: list[tuple[str, str]] = []
    lines: list[int | None] = []
    for node in nodes:
        if isinstance(node, tuple):
            loc = _plain_loc(doc, node, out)
            if loc is not None:
                rows.append((loc, (node[2] or "").strip()))
                lines.append(node[5])
        elif isinstance(node, Node) and is_sitemap_entry(node, "urlset", core):
            e = _node_entry(doc, node, out)
            if e is not None:
                rows.append((e.loc, str(e.lastmod or "")))
                lines.append(node.line)
    if all_plain([r[0] for r in rows]):
        return rows
    return [r for r, line in zip(rows, lines, strict=True) if _keep(doc, r[0], line, out)]


async def _adated(
    sources: list[str], *, limits: ReadLimits, log: list[Finding] | None
) -> AsyncGenerator[list[tuple[str, str]], None]:
    walker = Walker(session=None, limits=limits, follow=True, lean=True)
    out = _Out(log)
    async for ev in walker.walk(sources):
        if ev.kind != "nodes":
            _note(ev, out)
            continue
        rows = _dated_rows(ev.doc, ev.nodes, out, True)
        if rows:
            yield rows
    out.close()


def iter_dated_locs(
    source: str, *, limits: ReadLimits | None = None, log: list[Finding] | None = None
) -> Iterator[list[tuple[str, str]]]:
    """Batches of ``(loc, lastmod text or "")``: what the visual map needs, ~2x faster than
    :func:`iter_entries` (no entry objects); the same entries, findings and caps."""
    yield from _run_sync(_adated([source], limits=limits or ReadLimits(), log=log))


def _limits(limits: ReadLimits | None, caps: dict[str, Any]) -> ReadLimits:
    lim = limits or ReadLimits()
    return replace(lim, **caps) if caps else lim


async def aiter_sourced(
    source: str,
    *,
    session: aiohttp.ClientSession | None,
    limits: ReadLimits | None = None,
    sitemap_url: str | None = None,
    log: list[Finding] | None = None,
    follow: bool = True,
    **caps: Any,
) -> AsyncIterator[SourcedEntry]:
    """Like :func:`aiter_entries`, with the sitemap and line each entry came from."""
    async for batch in _abatches(
        [source],
        session=session,
        limits=_limits(limits, caps),
        sitemap_url=sitemap_url,
        log=log,
        follow=follow,
    ):
        for item in batch:
            yield item


async def aiter_entries(
    source: str,
    *,
    session: aiohttp.ClientSession | None,
    limits: ReadLimits | None = None,
    log: list[Finding] | None = None,
    **caps: Any,
) -> AsyncIterator[UrlEntry]:
    """Every URL entry of ``source`` (file, ``-``, sitemap/robots.txt/home URL), streaming.

    Network reads go through ``session`` (the caller's; ``None`` makes a private
    one).  Indexes are followed under the caps in ``limits``/``caps``
    (``max_download_bytes``, ``max_decompressed_bytes``, ``max_index_depth``,
    ``max_sitemaps``, ``timeout``).  Problems and tolerances go to ``log``.
    """
    async for batch in _abatches(
        [source], session=session, limits=_limits(limits, caps), sitemap_url=None, log=log
    ):
        for item in batch:
            yield item.entry


def iter_sourced(
    source: str,
    *,
    limits: ReadLimits | None = None,
    sitemap_url: str | None = None,
    log: list[Finding] | None = None,
    follow: bool = True,
    **caps: Any,
) -> Iterator[SourcedEntry]:
    """Sync :func:`aiter_sourced` on a private event loop (not from inside a running loop)."""
    agen = _abatches(
        [source],
        session=None,
        limits=_limits(limits, caps),
        sitemap_url=sitemap_url,
        log=log,
        follow=follow,
    )
    for batch in _run_sync(agen):
        yield from batch


T = TypeVar("T")


def _run_sync(agen: AsyncGenerator[T, None]) -> Iterator[T]:
    """Step an async generator on a private event loop, one item (a batch) at a time."""
    loop = asyncio.new_event_loop()
    try:
        while True:
            try:
                item = loop.run_until_complete(agen.__anext__())
            except StopAsyncIteration:
                return
            yield item
    finally:
        loop.run_until_complete(agen.aclose())
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


def iter_entries(
    source: str,
    *,
    limits: ReadLimits | None = None,
    log: list[Finding] | None = None,
    **caps: Any,
) -> Iterator[UrlEntry]:
    """Every URL entry of ``source``; the sync door (see :func:`aiter_entries`)."""
    for item in iter_sourced(source, limits=limits, log=log, **caps):
        yield item.entry
