"""The walk over a sitemap source: files, URLs, robots.txt, indexes followed recursively.

Why one walker for both the reader and the validator: following an index
(depth cap, cycle detection, the cap on sitemaps followed, gzip, text and feed
formats) must behave the same whether the caller wants URLs or findings.  The
walker emits :class:`Event` values in document order, in batches of nodes, so
neither consumer ever holds a whole file.

Local index files whose children are siblings on disk (what ``sitemapkit
build`` writes) are read from disk: a child URL whose file name exists next to
the index is opened there instead of fetched.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Final
from urllib.parse import unquote, urlsplit

from sitemapkit.errors import InputError
from sitemapkit.limits import MAX_ROBOTS_BYTES, MAX_RUN_BYTES, SITEMAP_NS
from sitemapkit.model import Finding, Severity
from sitemapkit.read.discover import discover, read_capped
from sitemapkit.read.kinds import Kind
from sitemapkit.read.robots import parse_robots_sitemaps
from sitemapkit.read.source import (
    Decoder,
    FetchInfo,
    ReadLimits,
    SourceProblem,
    fetch_chunks,
    iter_file_chunks,
)
from sitemapkit.read.xmlstream import (
    Item,
    LaneFactory,
    Node,
    ParseProblem,
    XmlFacts,
    XmlStreamParser,
)
from sitemapkit.urls import Scope

if TYPE_CHECKING:
    import aiohttp

#: Namespaces a tolerant reader accepts for urlset/sitemapindex (old Google ones, https form).
TOLERATED_CORE_NS: Final = frozenset(
    {
        SITEMAP_NS,
        "",
        "https://www.sitemaps.org/schemas/sitemap/0.9",
        "http://www.google.com/schemas/sitemap/0.84",
        "http://www.google.com/schemas/sitemap/0.9",
        "http://www.google.com/schemas/sitemap/0.90",
    }
)


@dataclass(slots=True)
class Doc:
    """One sitemap file being read: where it is, how we got there, what it turned out to be."""

    source: str  # what the user sees: a path or a URL
    url: str | None  # the sitemap's own URL when known (scope rules)
    path: str | None = None  # local file, or "-" for stdin
    depth: int = 0
    parent: Doc | None = None
    parent_line: int | None = None
    kind: Kind | None = None
    facts: XmlFacts = field(default_factory=XmlFacts)
    gzip: bool = False
    fetch: FetchInfo | None = None
    errors: int = 0  # set by consumers (validator) to report index-child-invalid
    children: list[tuple[str, int]] = field(default_factory=list)
    #: reading stopped early (malformed, cap hit): rules after that point did not run
    stopped: bool = False
    #: the user named this URL (a start for the address rule), not a page or an index
    given: bool = False

    @property
    def core_ns(self) -> str:
        return self.facts.root_ns or ""


@dataclass(slots=True)
class Event:
    """``start`` / ``nodes`` / ``end`` of a doc, a ``finding`` on it, ``unreadable``, or
    ``skipped``: a finding about a child the walk did not read (on another host)."""

    kind: str
    doc: Doc
    #: Nodes; plain entries as :data:`Plain` tuples when the walker is lean, strict-lane
    #: :class:`~sitemapkit.read.lanes.Block` values when it has a lane factory
    nodes: list[Item] = field(default_factory=list)
    finding: Finding | None = None


def is_url(text: str) -> bool:
    return text.startswith(("http://", "https://")) and "://" in text[:8]


#: Codes of a top-level source that could not be read at all (the CLI's exit 2).
UNREADABLE_CODES: Final = frozenset(
    {"file-unreadable", "sitemap-not-found", "fetch-failed", "limit-timeout"}
)


def is_unreadable(f: Finding) -> bool:
    """True for the finding of a SOURCE that yielded nothing (not a child of an index)."""
    return f.code in UNREADABLE_CODES or f.code.startswith("http-")


def source_unreadable(f: Finding, source: str) -> bool:
    """True when ``f`` says ``source``, the file or URL the user named, yielded nothing.

    That is exit 2.  A sitemap that robots.txt or a home page led to and that fails is
    an error finding on it (exit 1, as for an index's child): the SOURCE itself was read,
    and its other sitemaps are listed.
    """
    return f.source == source and is_unreadable(f)


@dataclass
class _Reading:
    """What :meth:`SitemapWalker._read` learns while it parses (read again on a problem)."""

    parser: XmlStreamParser | TextParser | None = None
    got_bytes: bool = False


def _unreachable(p: SourceProblem) -> bool:
    """A problem that means no byte of the file could be had (not a file cut short)."""
    return p.code.startswith("http-") or p.code in {"fetch-failed", "limit-timeout"}


def _is_home(url: str) -> bool:
    parts = urlsplit(url)
    return parts.path in ("", "/") and not parts.query


def _finding(
    doc: Doc,
    code: str,
    sev: Severity,
    msg: str,
    line: int | None = None,
    col: int | None = None,
    url: str | None = None,
) -> Finding:
    return Finding(code, sev, msg, doc.source, line, col, url)


class TextParser:
    """Text sitemaps: one URL per line, UTF-8; lines come out as ``line`` nodes.

    A line longer than :data:`~sitemapkit.limits.MAX_RUN_BYTES` is dropped as soon as
    the cap is passed (skipped up to its line end, noted in :attr:`problems`): holding
    it would cost memory, and joining chunk to growing tail, time, both without bound.
    """

    def __init__(self, max_line: int = MAX_RUN_BYTES) -> None:
        self._tail = b""
        self._lineno = 0
        self._skipping = False
        self.max_line = max_line
        self.out: list[Item] = []
        #: (code, message, line) of lines refused, for the walker to report
        self.problems: list[tuple[str, str, int]] = []
        self.entries = 0

    def feed(self, data: bytes, final: bool = False) -> None:
        if self._skipping:
            nl = data.find(b"\n")
            if nl < 0:
                return
            data, self._skipping = data[nl + 1 :], False
        data = self._tail + data  # the tail is under the cap: each copy is bounded
        lines = data.split(b"\n")
        tail = b"" if final else lines.pop()
        for raw in lines:
            self._lineno += 1
            if len(raw) > self.max_line:
                self._refuse()
                continue
            if self._lineno == 1:
                raw = raw.removeprefix(b"\xef\xbb\xbf")
            text = raw.decode("utf-8", "replace").rstrip("\r")
            if not text.strip():
                continue
            node = Node("", "line", {}, self._lineno, 1)
            node.text = text
            self.out.append(node)
            self.entries += 1
        if len(tail) > self.max_line:
            self._lineno += 1
            self._refuse()
            tail, self._skipping = b"", True
        self._tail = tail

    def _refuse(self) -> None:
        self.problems.append(
            (
                "limit-run-bytes",
                f"line longer than {self.max_line:,} bytes skipped (limit max-run-bytes)",
                self._lineno,
            )
        )


class Walker:
    """Reads sources in order and follows indexes; one instance per run."""

    def __init__(
        self,
        *,
        session: aiohttp.ClientSession | None = None,
        limits: ReadLimits | None = None,
        sitemap_url: str | None = None,
        follow: bool = True,
        lean: bool = False,
        locs_only: bool = False,
        strict: Callable[[Doc], LaneFactory | None] | None = None,
    ) -> None:
        self.lean = lean or locs_only
        #: the validator's strict lane, per document (see :mod:`sitemapkit.read.lanes`)
        self.strict = strict
        self.locs_only = locs_only
        self.limits = limits or ReadLimits()
        self.sitemap_url = sitemap_url
        self.follow = follow
        self._session = session
        self._own_session: aiohttp.ClientSession | None = None
        self.followed = 0
        #: the address rule of this run (see :mod:`sitemapkit.addresses`)
        self.guard = self.limits.guard()
        self._visited: set[str] = set()
        self.tops: list[Doc] = []

    async def _get_session(self) -> aiohttp.ClientSession:
        if self._session is not None:
            return self._session
        if self._own_session is None:
            import aiohttp

            self._own_session = aiohttp.ClientSession()
        return self._own_session

    async def aclose(self) -> None:
        if self._own_session is not None:
            await self._own_session.close()
            self._own_session = None

    # --- sources ---------------------------------------------------------------------
    async def walk(self, sources: list[str]) -> AsyncIterator[Event]:
        try:
            for source in sources:
                async for ev in self._walk_source(source):
                    yield ev
        finally:
            await self.aclose()

    async def _walk_source(self, source: str) -> AsyncIterator[Event]:
        if not is_url(source) and Path(source).name == "robots.txt":
            async for ev in self._local_robots(source):
                yield ev
            return
        if not is_url(source):
            url = self.sitemap_url
            if url is not None and url.endswith("/") and source != "-":
                url += Path(source).name
            doc = Doc(source=source, url=url, path=source)
            self.tops.append(doc)
            async for ev in self._read(doc):
                yield ev
            return
        if urlsplit(source).path.lower().endswith("/robots.txt") or _is_home(source):
            async for ev in self._walk_discovered(source):
                yield ev
            return
        doc = Doc(source=source, url=source, given=True)
        self.tops.append(doc)
        async for ev in self._read(doc):
            yield ev

    async def _walk_discovered(self, source: str) -> AsyncIterator[Event]:
        """The sitemaps a robots.txt names, or those a home page leads to."""
        session = await self._get_session()
        robots_doc = Doc(source=source, url=source, kind="robots")
        if _is_home(source):
            urls, findings = await discover(source, session, self.limits, self.guard)
        else:
            urls, findings = await self._robots(source, session)
        for f in findings:
            yield Event("finding", Doc(source=f.source, url=f.source, kind="robots"), finding=f)
        if not urls:
            yield Event(
                "unreadable",
                robots_doc,
                finding=_finding(
                    robots_doc,
                    "sitemap-not-found",
                    Severity.ERROR,
                    "no sitemap found (robots.txt and well-known paths)",
                ),
            )
            return
        for url in urls:
            doc = Doc(source=url, url=url)
            self.tops.append(doc)
            async for ev in self._read(doc):
                yield ev

    async def _local_robots(self, path: str) -> AsyncIterator[Event]:
        base = self.sitemap_url or "http://localhost/"
        with Path(path).open("rb") as fh:
            robots = parse_robots_sitemaps(fh.read(MAX_ROBOTS_BYTES + 1), base)
        rdoc = Doc(source=path, url=None, path=path, kind="robots")
        for f in robots.findings:
            yield Event(
                "finding",
                rdoc,
                finding=Finding(f.code, f.severity, f.message, path, f.line, f.column, f.url),
            )
        if not robots.findings and not robots.urls:
            yield Event(
                "unreadable",
                rdoc,
                finding=_finding(
                    rdoc, "sitemap-not-found", Severity.ERROR, "robots.txt names no sitemap"
                ),
            )
        # a relative value resolves against the robots.txt URL, known only from --sitemap-url
        urls = robots.urls if self.sitemap_url or not robots.findings else ()
        for url in urls:
            doc = Doc(source=url, url=url)
            self.tops.append(doc)
            async for ev in self._read(doc):
                yield ev

    async def _robots(
        self, url: str, session: aiohttp.ClientSession
    ) -> tuple[list[str], list[Finding]]:
        try:
            body = await read_capped(session, url, self.limits, MAX_ROBOTS_BYTES, self.guard)
        except SourceProblem as p:
            return [], [Finding("fetch-failed", Severity.ERROR, p.message, url)]
        robots = parse_robots_sitemaps(body, url)
        return list(robots.urls), list(robots.findings)

    # --- one document ----------------------------------------------------------------
    def _key(self, doc: Doc) -> str:
        if doc.path is not None:
            return "file:" + str(Path(doc.path).resolve()) if doc.path != "-" else "-"
        return doc.url or doc.source

    async def _chunks(self, doc: Doc) -> AsyncGenerator[bytes, None]:
        if doc.path is not None:
            for chunk in _file_chunks(doc.path):
                yield chunk
            return
        assert doc.url is not None
        session = await self._get_session()
        doc.fetch = FetchInfo(doc.url)
        fetched = fetch_chunks(
            session, doc.url, self.limits, doc.fetch, self.guard, start=doc.given
        )
        async for chunk in fetched:
            yield chunk

    async def _read(self, doc: Doc) -> AsyncIterator[Event]:
        self._visited.add(self._key(doc))
        yield Event("start", doc)
        decoder = Decoder(self.limits.max_decompressed_bytes)
        st = _Reading()
        try:
            async with aclosing(self._parse(doc, decoder, st)) as events:
                async for ev in events:
                    yield ev
        except OSError as exc:
            yield self._missing(doc, f"cannot be read: {exc.strerror or exc}", "file-unreadable")
            return
        except SourceProblem as p:
            if not st.got_bytes and _unreachable(p):
                yield self._missing(doc, p.message, p.code)
                return
            doc.stopped = True
            yield Event("finding", doc, finding=_finding(doc, p.code, Severity.ERROR, p.message))
        except ParseProblem as p:
            for ev in self._stopped(doc, st.parser, p):
                yield ev
        self._settle(doc, st.parser, decoder)
        yield Event("end", doc)
        if doc.kind == "sitemapindex" and self.follow:
            async for ev in self._follow(doc):
                yield ev

    async def _parse(self, doc: Doc, decoder: Decoder, st: _Reading) -> AsyncGenerator[Event, None]:
        """Fetch, decode and parse ``doc``, choosing the parser from its first bytes."""
        head = b""
        async with aclosing(self._chunks(doc)) as chunks:
            async for raw in chunks:
                st.got_bytes = True
                for data in decoder.feed(raw):
                    if st.parser is None:
                        head += data
                        st.parser = self._choose(doc, head, final=False)
                        if st.parser is None:
                            continue
                        data, head = head, b""
                        doc.gzip = bool(decoder.gzip)
                    st.parser.feed(data)
                    for ev in self._drain(doc, st.parser):
                        yield ev
        data = decoder.finish()
        if st.parser is None:
            st.parser = self._choose(doc, head + data, final=True)
            data = head + data
            doc.gzip = bool(decoder.gzip)
        assert st.parser is not None
        st.parser.feed(data, True)
        for ev in self._drain(doc, st.parser):
            yield ev

    def _stopped(
        self, doc: Doc, parser: XmlStreamParser | TextParser | None, p: ParseProblem
    ) -> list[Event]:
        """What a parse that stopped at ``p`` still has to say: its last nodes, then ``p``."""
        doc.stopped = True
        events = self._drain(doc, parser) if parser is not None else []
        f = _finding(doc, p.code, Severity.ERROR, p.message, p.line, p.col)
        events.append(Event("finding", doc, finding=f))
        return events

    @staticmethod
    def _settle(doc: Doc, parser: XmlStreamParser | TextParser | None, decoder: Decoder) -> None:
        """Take the parser's facts into ``doc`` and name its kind."""
        if isinstance(parser, TextParser):
            doc.facts.entries = parser.entries
            doc.facts.byte_size = decoder.out_bytes
        elif parser is not None:
            doc.facts = parser.facts
        _set_kind(doc)

    def _drain(self, doc: Doc, parser: XmlStreamParser | TextParser) -> list[Event]:
        """The events of what ``parser`` has finished: its nodes, then lines it refused."""
        events: list[Event] = []
        if parser.out:
            nodes, parser.out = parser.out, []
            self._collect_children(doc, nodes)
            events.append(Event("nodes", doc, nodes))
        if isinstance(parser, TextParser) and parser.problems:
            for code, msg, line in parser.problems:
                f = _finding(doc, code, Severity.ERROR, msg, line, 1)
                events.append(Event("finding", doc, finding=f))
            parser.problems.clear()
        return events

    def _missing(self, doc: Doc, reason: str, code: str) -> Event:
        if doc.parent is not None:
            parent = doc.parent
            f = _finding(
                parent,
                "index-child-missing",
                Severity.ERROR,
                f'listed sitemap "{doc.source}" {reason}',
                doc.parent_line,
                None,
                doc.source,
            )
            return Event("finding", parent, finding=f)
        return Event("unreadable", doc, finding=_finding(doc, code, Severity.ERROR, reason))

    def _choose(self, doc: Doc, head: bytes, final: bool) -> XmlStreamParser | TextParser | None:
        """Pick XML or text from the first non-blank byte (after a BOM)."""
        body = head.removeprefix(b"\xef\xbb\xbf").lstrip()
        if not body and not final:
            return None
        if body.startswith(b"<") or not body or head.startswith((b"\xff\xfe", b"\xfe\xff")):
            xml = self._xml(doc)
            doc.facts = xml.facts
            return xml
        # Leading junk before an XML declaration is still XML (xml-leading-content).
        if b"<?xml" in head[:4096]:
            xml = self._xml(doc)
            doc.facts = xml.facts
            return xml
        doc.kind = "text"
        return TextParser()

    def _xml(self, doc: Doc) -> XmlStreamParser:
        strict = self.strict(doc) if self.strict is not None else None
        return XmlStreamParser(lean=self.lean, locs_only=self.locs_only, strict=strict)

    def _collect_children(self, doc: Doc, nodes: list[Item]) -> None:
        _set_kind(doc)
        if doc.kind != "sitemapindex":
            return
        ns = doc.core_ns
        for node in nodes:
            if isinstance(node, tuple):
                if not node[0]:
                    doc.children.append((node[1].strip(), node[5]))
                continue
            if not isinstance(node, Node) or node.name != "sitemap":
                continue
            for c in node.children:
                if c.name == "loc" and (c.ns in (ns, "")):
                    doc.children.append((c.text.strip(), node.line))
                    break

    async def _follow(self, doc: Doc) -> AsyncIterator[Event]:
        ancestors: set[str] = set()
        d: Doc | None = doc
        while d is not None:
            ancestors.add(self._key(d))
            if d.url:
                ancestors.add(d.url)
            d = d.parent
        children, doc.children = doc.children, []
        scope = self._index_scope(doc)
        for loc, line in children:
            if not is_url(loc):  # a relative or javascript: child: said, never guessed at
                message = f'"{loc[:200]}" is not an http(s) URL; not fetched'
                yield Event(
                    "skipped",
                    doc,
                    finding=_finding(
                        doc, "loc-not-absolute", Severity.ERROR, message, line, None, loc
                    ),
                )
                continue
            if scope is not None and scope.check(loc) == "loc-other-host":
                yield Event(
                    "skipped",
                    doc,
                    finding=_finding(
                        doc,
                        "loc-other-host",
                        Severity.ERROR,
                        f'"{loc[:200]}" is on another host than the index; '
                        "not fetched (--allow-other-hosts to follow)",
                        line,
                        None,
                        loc,
                    ),
                )
                continue
            child = Doc(source=loc, url=loc, depth=doc.depth + 1, parent=doc, parent_line=line)
            local = self._local_sibling(doc, loc)
            if local is not None:
                child.path = local
                child.source = local
            key = self._key(child)
            if key in ancestors or loc in ancestors:
                yield Event(
                    "finding",
                    doc,
                    finding=_finding(
                        doc,
                        "index-cycle",
                        Severity.ERROR,
                        f'"{loc}" lists itself (directly or through its children)',
                        line,
                        None,
                        loc,
                    ),
                )
                continue
            if key in self._visited:
                continue
            if child.depth > self.limits.max_index_depth:
                yield Event(
                    "finding",
                    doc,
                    finding=_finding(
                        doc,
                        "limit-index-depth",
                        Severity.ERROR,
                        f'"{loc}" is {child.depth} indexes deep, over '
                        f"{self.limits.max_index_depth} (limit max-index-depth)",
                        line,
                        None,
                        loc,
                    ),
                )
                continue
            if self.followed >= self.limits.max_sitemaps:
                yield Event(
                    "finding",
                    doc,
                    finding=_finding(
                        doc,
                        "limit-sitemaps-followed",
                        Severity.ERROR,
                        f"stopped after following {self.followed:,} sitemaps (limit max-sitemaps)",
                        line,
                        None,
                        loc,
                    ),
                )
                return
            self.followed += 1
            async for ev in self._read(child):
                yield ev

    def _index_scope(self, doc: Doc) -> Scope | None:
        """The origin an index's children must share, or None (any: allowed or unknown).

        The index's own URL after redirects is its origin (http -> https moves are common).
        """
        if self.limits.allow_other_hosts or doc.url is None:
            return None
        url = doc.fetch.final_url if doc.fetch is not None and doc.fetch.final_url else doc.url
        try:
            return Scope.of(url)
        except (InputError, KeyError, ValueError):
            return None

    @staticmethod
    def _local_sibling(doc: Doc, loc: str) -> str | None:
        if doc.path is None or doc.path == "-":
            return None
        name = PurePosixPath(unquote(urlsplit(loc).path)).name
        if not name:
            return None
        candidate = Path(doc.path).parent / name
        return str(candidate) if candidate.is_file() else None


def _set_kind(doc: Doc) -> None:
    if doc.kind is None:
        doc.kind = doc.facts.kind


def _file_chunks(path: str) -> Iterator[bytes]:
    return iter_file_chunks(path)
