"""Streaming sitemap-set writer: split by count AND bytes, index, gzip, atomic publish.

Entries arrive one at a time from any (async) iterable; memory stays bounded
by one part's body (spilled to a temporary file past a few MB) plus the
duplicate fingerprints (:mod:`sitemapkit.fingerprints`, 10.7-21 bytes per URL).

A part's namespace declarations must precede its body, yet which extensions a
part uses is only known once it is complete.  So each part's body is
collected first (already rendered and UTF-8 encoded, in batches) and the head
is written when the part closes, declaring exactly the extensions that part
uses.  Byte limits are exact: the size of the head for the namespaces used so
far plus the body plus the tail is tracked per entry, so a part may land on
``max_bytes`` exactly but never one byte over.

Every file is written under a temporary name in the output folder; only when
the whole set is complete is it published (:mod:`sitemapkit.write.publish`:
parts, then the root, with signals deferred; then the files of an earlier
run that its manifest lists and the new set lacks are removed).  An exception
or Ctrl-C before :meth:`SitemapSetWriter.commit` publishes leaves the
previous set untouched and no temporary file behind.

Naming: one part → ``sitemap.xml`` is the urlset.  Several → ``sitemap.xml``
is an index of ``sitemap-1.xml`` ... (absolute URLs under ``base_url``).
With ``gzip`` every file, the index too, gets ``.gz`` (``sitemap.xml.gz`` is
the stable entry point).  With ``text`` the parts are ``.txt`` (one URL per
line; extensions cannot be expressed and are left out) and, when split, the
index is still ``sitemap.xml``; with both, ``.txt.gz``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gzip
import os
import re
import threading
from collections.abc import AsyncIterable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final, cast

from sitemapkit import limits
from sitemapkit.errors import EmptySetError, EntryError, InputError, LimitError, PublishError
from sitemapkit.fingerprints import SeenUrls
from sitemapkit.model import LastMod, UrlEntry
from sitemapkit.rulebook import Problem
from sitemapkit.rulebook.hreflang import Pairs, set_failures
from sitemapkit.urls import NOT_PLAIN_PATH, PLAIN_URI, Scope, not_plain_uri
from sitemapkit.write import render
from sitemapkit.write.publish import publish_set
from sitemapkit.write.relative import absolute_entry, is_relative

#: A bare URL's line is these plus the URL (:func:`render.url_line` without lastmod).
_URL_OPEN, _URL_CLOSE = render.url_line("\0", None).split("\0")
_URL_BETWEEN: Final = _URL_CLOSE + _URL_OPEN
_LINE_EXTRA: Final = len(_URL_OPEN) + len(_URL_CLOSE)
#: The ASCII characters NOT_PLAIN_PATH lets through, for a C-speed check of a run.
_PLAIN_BYTES: Final = bytes(c for c in range(128) if NOT_PLAIN_PATH(chr(c)) is None)
#: Rendered lines are joined and encoded this many at a time.
_BATCH: Final = 4096
_BATCH_MASK: Final = _BATCH - 1
#: A part's body stays in memory up to this size, then spills to a temporary file.
_SPILL_BYTES: Final = 8 * 1024 * 1024
#: How many skipped entries are kept as examples.
_EXAMPLES: Final = 20
#: Lastmod types the fast path looks up by value.  Not datetime: two aware datetimes
#: of the same instant in different offsets are equal, yet are written differently.
_LASTMOD_TYPES: Final = frozenset({str, date})

#: What :meth:`SitemapSetWriter.add` takes: an entry, a bare URL, or a ``(url, lastmod)``
#: pair.  The two short forms are the common case and skip building a dataclass
#: (a frozen dataclass costs ~1 µs to create, as much as writing the entry).
EntryLike = UrlEntry | str | tuple[str, LastMod | None]


@dataclass
class WriterOptions:
    """How a set is written.  Limits default to the protocol's; lower ones are allowed."""

    #: Where the files will be served (a directory URL); needed for an index and robots.txt.
    base_url: str | None = None
    max_urls: int = limits.MAX_ENTRIES_PER_FILE
    max_bytes: int = limits.MAX_BYTES_PER_FILE
    max_news: int = limits.MAX_NEWS_PER_FILE
    gzip: bool = False
    text: bool = False
    allow_other_hosts: bool = False
    skip_invalid: bool = False
    basename: str = "sitemap"
    #: Write each URL once (first wins).  Off saves ~9 bytes per URL of memory.
    dedup: bool = True
    #: gzip level: 6 is zlib's default balance of speed and size.
    gzip_level: int = 6
    #: fsync files and the folder before publishing (survives power loss, costs time).
    fsync: bool = True
    #: Give each index entry the latest lastmod of its part.
    index_lastmod: bool = True
    #: An XSL stylesheet's URL: every XML file gets an ``<?xml-stylesheet?>`` line for it,
    #: so a browser shows the files as a page (counted in ``max_bytes`` like the rest).
    xsl: str | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.max_urls <= limits.MAX_ENTRIES_PER_FILE:
            raise InputError(
                f"max_urls {self.max_urls} must be 1 to {limits.MAX_ENTRIES_PER_FILE}",
                rule="too-many-entries",
            )
        if not 1 <= self.max_news <= limits.MAX_NEWS_PER_FILE:
            raise InputError(
                f"max_news {self.max_news} must be 1 to {limits.MAX_NEWS_PER_FILE}",
                rule="news-too-many",
            )
        if self.xsl is not None and (not self.xsl or render.drop_forbidden(self.xsl)[1]):
            raise InputError(f"xsl {self.xsl!r} must be a URL without control characters")
        smallest = len(render.urlset_head(15, self.xsl)) + len(render.URLSET_TAIL) + 64
        if not smallest <= self.max_bytes <= limits.MAX_BYTES_PER_FILE:
            raise InputError(
                f"max_bytes {self.max_bytes} must be {smallest} to {limits.MAX_BYTES_PER_FILE}",
                rule="file-too-large",
            )
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", self.basename):
            raise InputError(f'basename "{self.basename}" must be a plain file name')
        if not 0 <= self.gzip_level <= 9:
            raise InputError(f"gzip_level {self.gzip_level} must be 0 to 9")


@dataclass
class WriteResult:
    """What a committed set holds, and what was left out and why."""

    #: Every published file, root last.
    files: list[Path]
    #: The entry point: ``sitemap.xml`` (or ``.xml.gz`` / ``.txt``).
    root: Path
    #: True when the root is a sitemap index.
    is_index: bool
    urls: int
    #: Uncompressed bytes of all files, index included.
    bytes: int
    duplicates: int
    #: Characters XML 1.0 forbids, dropped from values.
    dropped_chars: int
    #: Entries refused, by RULES.md code.
    skipped: dict[str, int] = field(default_factory=dict)
    #: The first refused entries, as ``reason: message`` lines.
    skipped_examples: list[str] = field(default_factory=list)
    #: Annotations (lastmod, hints, images, videos, news, alternates) left out of pages
    #: that were written (``skip_invalid``), by RULES.md code.
    annotations_dropped: dict[str, int] = field(default_factory=dict)
    #: The first of them, as ``reason: url: message`` lines.
    annotations_examples: list[str] = field(default_factory=list)
    #: URLs outside the base URL's scope that were written (``allow_other_hosts``).
    out_of_scope: dict[str, int] = field(default_factory=dict)
    #: The exact robots.txt line, or ``None`` without a base URL.
    robots_line: str | None = None
    #: What to do to get ``robots_line`` when it is ``None``.
    robots_hint: str | None = None
    #: Set-level notes (an empty urlset ...).
    warnings: list[str] = field(default_factory=list)

    @property
    def parts(self) -> int:
        return len(self.files) - 1 if self.is_index else len(self.files)


class _Job(threading.Thread):
    """Run one function on a thread now; :meth:`result` joins and re-raises its error.

    (A thread per part instead of ``concurrent.futures``, which costs ~2.5 MB
    of RSS to import for what is one join per 50,000 URLs.)
    """

    def __init__(self, func: Callable[..., None], *args: object) -> None:
        super().__init__(name="sitemap-write", daemon=True)
        self._func, self._args = func, args
        self._error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self._func(*self._args)
        except BaseException as exc:  # noqa: BLE001 - handed to the caller by result()
            self._error = exc
        finally:
            self._args = ()  # drop the part's body as soon as it is on disk

    def result(self) -> None:
        self.join()
        if self._error is not None:
            raise self._error


@dataclass(slots=True)
class _Deferred:
    """A page with alternates, checked but not yet placed (see :meth:`SitemapSetWriter.commit`)."""

    entry: UrlEntry
    uri: str
    lastmod: str | None
    key: float
    links: render.Links
    origin: str | None


@dataclass(slots=True)
class _Closed:
    temp: Path
    count: int
    size: int
    lastmod: str | None
    job: _Job | None = None


def _directory_url(base_url: str) -> str:
    uri, _ = render.clean_url(base_url, "base_url")
    if not uri.endswith("/"):
        last = uri.rsplit("/", 1)[1]
        uri = uri[: uri.rindex("/") + 1] if "." in last else uri + "/"
    if "?" in uri:
        raise InputError(f'base_url "{base_url}" must not have a query', value=base_url)
    return uri


class SitemapSetWriter:
    """Write one sitemap set into ``out_dir``; publish it with :meth:`commit`.

    Use as a context manager: leaving the block by an exception (Ctrl-C
    included) calls :meth:`abort`, which removes every temporary file.
    """

    def __init__(self, out_dir: str | os.PathLike[str], options: WriterOptions | None = None):
        self.options = opts = options or WriterOptions()
        self.out_dir = Path(out_dir)
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise PublishError(
                f"cannot create output folder {self.out_dir}: {exc.strerror or exc}"
            ) from exc
        self._token = os.urandom(4).hex()  # not `secrets`: it pulls in OpenSSL (~5 MB RSS)
        self._temps: list[Path] = []
        self._closed: list[_Closed] = []
        self._done = False
        self._dir_url = _directory_url(opts.base_url) if opts.base_url else None
        self._scope = Scope.of(self._dir_url) if self._dir_url else None
        self._prefix = (self._scope.origin + self._scope.directory) if self._scope else None
        self._seen: SeenUrls | None = SeenUrls() if opts.dedup else None
        self._lm_cache: dict[object, tuple[str, float]] = {}
        # counters
        self.urls = 0
        self.duplicates = 0
        self.dropped = 0
        self.skipped: dict[str, int] = {}
        self.skipped_examples: list[str] = []
        self.annotations_dropped: dict[str, int] = {}
        self.annotations_examples: list[str] = []
        self.out_of_scope: dict[str, int] = {}
        # pages with alternates wait for commit: reciprocity needs the whole set
        self._deferred: list[_Deferred] = []
        self._pages: dict[str, Pairs] = {}
        self._defer = not opts.text
        self._warnings: list[str] = []
        self._origin: str | None = None
        self._bytes_total = 0
        # the open part
        self._text = opts.text
        self._ext = (".txt" if opts.text else ".xml") + (".gz" if opts.gzip else "")
        self._tail_len = 0 if opts.text else len(render.URLSET_TAIL)
        self._head_lens = [
            0 if opts.text else len(render.urlset_head(ns, opts.xsl).encode()) for ns in range(16)
        ]
        self._new_part()

    # -- context manager -------------------------------------------------------------
    def __enter__(self) -> SitemapSetWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is not None or not self._done:
            self.abort()

    # -- parts -----------------------------------------------------------------------
    def _new_part(self) -> None:
        self._lines: list[str] = []
        self._chunks: list[bytes] = []
        self._spill: IO[bytes] | None = None
        self._buffered = 0
        self._count = 0
        self._news = 0
        self._ns = 0
        self._body = 0  # exact UTF-8 bytes of the body so far (lines included)
        self._max_key = float("-inf")
        self._max_lastmod: str | None = None

    def _flush_lines(self) -> None:
        if not self._lines:
            return
        data = "".join(self._lines).encode("utf-8")
        self._lines.clear()
        if self._spill is not None:
            self._spill.write(data)
            return
        self._chunks.append(data)
        self._buffered += len(data)
        if self._buffered > _SPILL_BYTES:
            name = f".{self.options.basename}.{self._token}.{len(self._closed)}.body.tmp"
            self._temps.append(self.out_dir / name)
            try:
                # closed by _write_file, or by abort() if this fails
                self._spill = spill = (self.out_dir / name).open("w+b")
                for chunk in self._chunks:
                    spill.write(chunk)
            except OSError as exc:
                reason = exc.strerror or exc
                raise PublishError(f"cannot write in {self.out_dir}: {reason}") from exc
            self._chunks = []

    def _close_part(self) -> None:
        """Turn the open part into a complete temporary file (compressed in a thread)."""
        self._flush_lines()
        temp = self.out_dir / f".{self.options.basename}.{self._token}.{len(self._closed)}.tmp"
        self._temps.append(temp)
        head = b"" if self._text else render.urlset_head(self._ns, self.options.xsl).encode()
        tail = b"" if self._text else render.URLSET_TAIL.encode()
        size = len(head) + self._body + len(tail)
        chunks, spill = self._chunks, self._spill
        closed = _Closed(temp, self._count, size, self._max_lastmod)
        # zlib and file writes release the GIL: finish this part on the other core
        # while the next one renders.
        if self._closed and self._closed[-1].job is not None:
            self._closed[-1].job.result()  # at most one part waits: memory stays flat
        closed.job = _Job(self._write_file, temp, head, chunks, spill, tail)
        self._closed.append(closed)
        self._bytes_total += size
        self._new_part()

    def _write_file(
        self, temp: Path, head: bytes, chunks: list[bytes], spill: IO[bytes] | None, tail: bytes
    ) -> None:
        try:
            with temp.open("wb") as raw:
                out: gzip.GzipFile | IO[bytes]
                if self.options.gzip:
                    out = gzip.GzipFile(
                        filename="", mode="wb", fileobj=raw,
                        compresslevel=self.options.gzip_level, mtime=0,
                    )  # fmt: skip
                else:
                    out = raw
                out.write(head)
                for chunk in chunks:
                    out.write(chunk)
                if spill is not None:
                    spill.seek(0)
                    while block := spill.read(1 << 20):
                        out.write(block)
                out.write(tail)
                if out is not raw:
                    out.close()
                raw.flush()
                if self.options.fsync:
                    os.fsync(raw.fileno())
        except OSError as exc:
            raise PublishError(f"cannot write in {temp.parent}: {exc.strerror or exc}") from exc
        finally:
            if spill is not None:
                spill.close()
                Path(spill.name).unlink(missing_ok=True)

    # -- adding ----------------------------------------------------------------------
    def _lastmod(self, value: object) -> tuple[str, float]:
        if not isinstance(value, (str, date)):
            raise InputError(f"lastmod {value!r} is not a date, datetime or string", value=value)
        key: object = (value, value.utcoffset()) if isinstance(value, datetime) else value
        cached = self._lm_cache.get(key)
        if cached is None:
            text = render.lastmod_text(value)
            cached = (text, render.lastmod_key(text))
            if len(self._lm_cache) > 4096:
                self._lm_cache.clear()
            self._lm_cache[key] = cached
        return cached

    def add(self, entry: EntryLike, origin: str | None = None) -> bool:
        """Add one entry; ``True`` if it will be written, ``False`` for a duplicate/skip.

        An invalid entry raises :class:`EntryError` (with its RULES.md code as
        ``rule``) and leaves the writer as it was, unless ``skip_invalid`` is
        set: then an entry whose loc is unusable is counted under its rule and
        ``False`` is returned, and a page with broken annotations is written
        without them (see :attr:`WriteResult.annotations_dropped`).  ``origin``
        (``file:line``) starts the examples that name this entry.
        """
        self._origin = origin
        try:
            return self._add(entry)
        except InputError as exc:
            rule = exc.rule or "entry-invalid"
            if not self.options.skip_invalid:
                if isinstance(exc, EntryError):
                    raise
                raise EntryError(str(exc), rule=rule, value=exc.value) from exc
            self.skip(rule, f"{origin}: {exc}" if origin else str(exc))
            return False

    def skip(self, rule: str, message: str) -> None:
        """Count an entry refused before it reached the writer (e.g. a bad input line)."""
        self.skipped[rule] = self.skipped.get(rule, 0) + 1
        if len(self.skipped_examples) < _EXAMPLES:
            self.skipped_examples.append(f"{rule}: {message}")

    def left_out(self, uri: str, problems: list[Problem], origin: str | None = None) -> None:
        """Count annotations left out of a page that is written (``skip_invalid``)."""
        where = f"{origin}: {uri}" if origin else uri
        for rule, message in problems:
            self.annotations_dropped[rule] = self.annotations_dropped.get(rule, 0) + 1
            if len(self.annotations_examples) < _EXAMPLES:
                self.annotations_examples.append(f"{rule}: {where}: {message}")

    def _add(self, entry: EntryLike) -> bool:
        if self._done:
            raise PublishError("this writer was already committed or aborted")
        if not isinstance(entry, UrlEntry):
            entry = _as_entry(entry)
        if self._dir_url is not None:
            entry = absolute_entry(entry, self._dir_url)
        elif isinstance(entry.loc, str) and is_relative(entry.loc):
            raise InputError(
                f'"{entry.loc[:200]}" is a relative URL: give --base-url to resolve it against',
                rule="loc-not-absolute",
                value=entry.loc,
            )
        loc = entry.loc
        if PLAIN_URI(loc) is not None and len(loc) < limits.MAX_LOC_LENGTH:
            uri, dropped = loc, 0
        else:
            uri, dropped = render.clean_url(loc)
        self._check_scope(uri, loc)
        left_out: list[Problem] = []
        entry, lastmod, key = self._entry_lastmod(entry, left_out)
        line, ns, news, links, more = self._render(entry, uri, lastmod, left_out)
        dropped += more
        size = len(line) if line.isascii() else len(line.encode("utf-8"))
        opts = self.options
        if self._head_lens[ns] + size + self._tail_len > opts.max_bytes:
            raise InputError(
                f"{uri} alone makes a file of more than {opts.max_bytes} bytes",
                rule="file-too-large",
                value=loc,
            )
        # Everything is valid: from here on the entry is accepted (or a duplicate).
        seen = self._seen
        if seen is not None and not seen.add(uri):
            self.duplicates += 1
            return False
        self.dropped += dropped
        if left_out:
            self.left_out(uri, left_out, self._origin)
        if links and self._defer:
            self._deferred.append(_Deferred(entry, uri, lastmod, key, links, self._origin))
            self._pages[uri] = render.pairs_of(links)
            if len(self._deferred) >= limits.MAX_HREFLANG_PAGES:
                self._give_up_reciprocity()
            return True
        self._place(line, size, ns, news, key, lastmod)
        return True

    def _entry_lastmod(
        self, entry: UrlEntry, left_out: list[Problem]
    ) -> tuple[UrlEntry, str | None, float]:
        """The written lastmod and its sort key; a broken one is left out when lenient."""
        if entry.lastmod is None:
            return entry, None, float("-inf")
        try:
            lastmod, key = self._lastmod(entry.lastmod)
        except InputError as exc:
            if not self.options.skip_invalid:
                raise
            left_out.append((exc.rule or "lastmod-invalid", str(exc)))
            return dataclasses.replace(entry, lastmod=None), None, float("-inf")
        return entry, lastmod, key

    def _render(
        self, entry: UrlEntry, uri: str, lastmod: str | None, left_out: list[Problem]
    ) -> tuple[str, int, int, render.Links | None, int]:
        """The entry's line, namespaces, news count, checked alternates and dropped chars."""
        if self._text:
            return render.text_line(uri), 0, 0, None, 0
        if (
            not entry.images
            and not entry.videos
            and entry.news is None
            and not entry.alternates
            and entry.changefreq is None
            and entry.priority is None
        ):
            return render.url_line(uri, lastmod), 0, 0, None, 0
        lenient = self.options.skip_invalid
        links: render.Links | None = None
        if entry.alternates:
            links, problems = render.check_alternates(entry.alternates, uri, lenient)
            left_out.extend(problems)
        rendered = render.render_url(entry, uri, lastmod, lenient=lenient, links=links)
        left_out.extend(rendered.left_out)
        return rendered.text, rendered.namespaces, rendered.news, links, rendered.dropped

    def _check_scope(self, uri: str, loc: str) -> None:
        prefix = self._prefix
        if prefix is None or uri.startswith(prefix):
            return
        assert self._scope is not None
        code = self._scope.check(uri)
        if code is None:
            return
        if not self.options.allow_other_hosts:
            raise InputError(
                f"{uri} is outside {self._dir_url} ({code}); "
                "use --allow-other-hosts to write it anyway",
                rule=code,
                value=loc,
            )
        self.out_of_scope[code] = self.out_of_scope.get(code, 0) + 1

    def _place(
        self, line: str, size: int, ns: int, news: int, key: float, lastmod: str | None
    ) -> None:
        """Append one accepted, rendered entry to the open part (closing it when full)."""
        opts = self.options
        part_ns = self._ns | ns
        if (
            self._count + 1 > opts.max_urls
            or self._news + news > opts.max_news
            or self._head_lens[part_ns] + self._body + size + self._tail_len > opts.max_bytes
        ):
            if self._dir_url is None:
                raise LimitError(
                    "the set needs more than one file, so sitemap.xml must be an index with "
                    "absolute URLs: give the URL the files will be served from (--base-url)",
                    limit="index-needs-base-url",
                )
            if len(self._closed) + 2 > limits.MAX_SITEMAPS_PER_INDEX:
                raise LimitError(
                    f"the set needs more than {limits.MAX_SITEMAPS_PER_INDEX} files, the most "
                    "one sitemap index may list (indexes never nest); split the input into "
                    "several sets",
                    limit="index-entries",
                )
            self._close_part()
            part_ns = ns
        self._ns = part_ns
        self._count += 1
        self._news += news
        self._body += size
        if key > self._max_key:
            self._max_key = key
            self._max_lastmod = lastmod
        lines = self._lines
        lines.append(line)
        if len(lines) >= _BATCH:
            self._flush_lines()
        self.urls += 1

    # -- the set's hreflang rules ----------------------------------------------------
    def _give_up_reciprocity(self) -> None:
        """Too many pages with alternates to hold: write them as they are, as they come."""
        self._defer = False
        self._warnings.append(
            f"more than {limits.MAX_HREFLANG_PAGES:,} pages carry hreflang alternates: their "
            "reciprocity was not checked (the validator does not check it either)"
        )
        self._place_deferred({})

    def _place_deferred(self, failed: dict[str, Problem]) -> None:
        """Write the held pages in their order; the ``failed`` ones without alternates."""
        deferred, self._deferred, self._pages = self._deferred, [], {}
        lenient = self.options.skip_invalid
        for d in deferred:
            problem = failed.get(d.uri)
            links: render.Links = d.links
            if problem is not None:
                self.left_out(d.uri, [problem], d.origin)
                links = []
            rendered = render.render_url(d.entry, d.uri, d.lastmod, lenient=lenient, links=links)
            line = rendered.text
            size = len(line) if line.isascii() else len(line.encode("utf-8"))
            self._place(line, size, rendered.namespaces, rendered.news, d.key, d.lastmod)

    def _settle_hreflang(self) -> None:
        """Apply reciprocity over the whole set, then write the held pages.

        Without ``skip_invalid`` a page whose alternates do not list it back fails
        the build, naming the pages; with it, such pages are written without their
        alternates (counted under ``hreflang-not-reciprocal``).
        """
        failed = set_failures(self._pages)
        if failed and not self.options.skip_invalid:
            shown = "; ".join(msg for _, msg in list(failed.values())[:5])
            more = f" (and {len(failed) - 5:,} more)" if len(failed) > 5 else ""
            raise EntryError(
                f"{len(failed):,} page(s) have hreflang alternates that do not list them back: "
                f"{shown}{more}; fix the alternates, or write those pages without them "
                "(skip_invalid, --skip-invalid)",
                rule="hreflang-not-reciprocal",
            )
        self._place_deferred(failed)

    def add_all(  # noqa: C901, PLR0912, PLR0915 - one inlined hot loop, on purpose
        self, entries: Iterable[EntryLike], origin: Callable[[], str] | None = None
    ) -> None:
        """Add every entry (see :meth:`add`), fast.

        The common entry (a plain in-scope URL, a lastmod seen before, room
        in the open part, no extension) is handled inline here with local
        variables; anything else (and every decision with a side effect:
        a duplicate, a full part, an error) goes through :meth:`add`, with
        ``origin()`` (where the entry came from) as its ``origin``.
        """
        add: Callable[[EntryLike], bool] = self.add
        if origin is not None:
            add = lambda entry: self.add(entry, origin())  # noqa: E731 - the hot loop's local

        if self._text or self._done:
            for entry in cast("Iterable[Any]", entries):
                add(entry)
            return
        prefix = self._prefix
        bad_char: Callable[[str, int], object]
        if prefix is None:
            prefix = ""
            bad_char = not_plain_uri
        else:
            bad_char = cast("Callable[[str, int], object]", NOT_PLAIN_PATH)
        plen = len(prefix)
        max_loc = limits.MAX_LOC_LENGTH
        lm_cache = self._lm_cache
        seen = self._seen
        seen_add = seen.add if seen is not None else None
        url_line = render.url_line
        max_urls = self.options.max_urls
        max_body = self.options.max_bytes - self._tail_len
        head_lens = self._head_lens
        count, body, urls = self._count, self._body, self.urls
        max_key, lines = self._max_key, self._lines
        room = max_body - head_lens[self._ns]  # body bytes the open part can still take
        try:
            for entry in cast("Iterable[Any]", entries):
                line = None
                kind = type(entry)
                loc: Any = None
                if kind is tuple:
                    try:
                        loc, lm = entry
                    except ValueError:
                        loc = None
                elif kind is str:
                    loc, lm = entry, None
                elif (
                    kind is UrlEntry
                    and not entry.images
                    and not entry.videos
                    and entry.news is None
                    and not entry.alternates
                    and entry.changefreq is None
                    and entry.priority is None
                ):
                    loc, lm = entry.loc, entry.lastmod
                if (
                    type(loc) is str
                    and loc.startswith(prefix)
                    and len(loc) < max_loc
                    and bad_char(loc, plen) is None
                ):
                    if lm is None:
                        cached = None
                        line = url_line(loc, None)
                    else:
                        cached = lm_cache.get(lm) if type(lm) in _LASTMOD_TYPES else None
                        if cached is not None:
                            line = url_line(loc, cached[0])
                    if line is not None:
                        size = len(line)
                        if count >= max_urls or body + size > room:
                            line = None
                        elif seen_add is not None and not seen_add(loc):
                            line = None  # a duplicate: add() counts it
                if line is None:
                    self._count, self._body, self.urls, self._max_key = count, body, urls, max_key
                    add(entry)
                    count, body, urls = self._count, self._body, self.urls
                    max_key, lines = self._max_key, self._lines
                    room = max_body - head_lens[self._ns]
                    continue
                count += 1
                body += size
                urls += 1
                if cached is not None and cached[1] > max_key:
                    max_key = cached[1]
                    self._max_lastmod = cached[0]
                lines.append(line)
                if not count & _BATCH_MASK:
                    self._flush_lines()
        finally:
            self._count, self._body, self.urls, self._max_key = count, body, urls, max_key

    def reserve(self, urls: int) -> None:
        """Size the duplicate check for about ``urls`` URLs (a hint; before the first add).

        Growing the table as it fills costs a pass over it each time; a caller
        that knows the input size (``build`` reading a file) saves those.
        """
        if self._seen is not None and self._seen.count == 0 and self.urls == 0:
            self._seen = SeenUrls(expected=urls)

    def add_plain(self, urls: list[str]) -> bool:
        """Add a run of bare URLs in bulk; ``False`` (and nothing done) if it cannot.

        This is the batched path of ``sitemapkit build`` for URL lists.  The run
        is taken only when every URL would take :meth:`add_all`'s fast path (in
        the base URL's scope, plain characters, short enough), which is checked
        on the whole run in a few C-level passes; then only the duplicate check
        is per URL and each part's lines are rendered by one ``join``.  On
        ``False`` the caller feeds the run through :meth:`add_all` instead, which
        refuses (and so lets the caller report) each bad URL by itself.
        """
        prefix = self._prefix
        if self._text or self._done or prefix is None or not urls:
            return not urls and not self._done
        # A character class holds for a run iff for each URL; joined by newlines (not
        # plain, so the class check still sees each one), "every URL starts with the
        # prefix" is two C-level scans: one newline-prefix per URL after the first.
        joined = "\n".join(urls)
        gaps = len(urls) - 1
        longest = max(map(len, urls))
        if (
            longest >= limits.MAX_LOC_LENGTH
            or not joined.isascii()
            or joined.encode("ascii").translate(None, _PLAIN_BYTES) != b"\n" * gaps
            or not joined.startswith(prefix)
            or joined.count("\n" + prefix) != gaps
        ):
            return False
        escapes = 4 * joined.count("&") + 5 * joined.count("'")  # &amp; &apos;
        del joined
        opts = self.options
        alone = longest * (6 if escapes else 1) + _LINE_EXTRA
        if self._head_lens[15] + alone + self._tail_len > opts.max_bytes:
            return False  # a URL alone might not fit in a part: add_all says which
        done = 0
        while done < len(urls):
            take = min(len(urls) - done, opts.max_urls - self._count)
            if take <= 0:
                self.add(urls[done])  # the part is full: add() starts the next one
                done += 1
                continue
            piece = urls[done : done + take]
            upper = sum(map(len, piece)) + _LINE_EXTRA * take + escapes
            room = opts.max_bytes - self._tail_len - self._head_lens[self._ns] - self._body
            if upper > room:
                self.add_all(piece)  # near a byte limit: entry by entry
            else:
                self._add_rendered(piece)
            done += take
        return True

    def _add_rendered(self, piece: list[str]) -> None:
        """Append ``piece`` (checked, known to fit the open part) less its duplicates."""
        if self._seen is not None:
            piece, duplicates = self._seen.first_seen(piece)
            self.duplicates += duplicates
        if not piece:
            return
        body = _URL_OPEN + _URL_BETWEEN.join(piece) + _URL_CLOSE
        if "&" in body or "'" in body:
            body = render.escape_uri(body)  # the tags hold neither
        self._flush_lines()
        self._lines.append(body)
        self._count += len(piece)
        self._body += len(body)  # ASCII: characters are bytes
        self.urls += len(piece)
        self._flush_lines()

    # -- publishing ------------------------------------------------------------------
    def _final_name(self, i: int, parts: int) -> str:
        if parts == 1:
            return f"{self.options.basename}{self._ext}"
        return f"{self.options.basename}-{i + 1}{self._ext}"

    def commit(self) -> WriteResult:
        """Finish the last part, write the index if needed, and publish the whole set.

        With no URL at all nothing is published (:class:`EmptySetError`): an empty
        ``<urlset>`` fails the sitemaps.org XSD, and a set already in the folder stays.
        """
        if self._done:
            raise PublishError("this writer was already committed or aborted")
        if self._deferred:
            self._settle_hreflang()
        if self.urls == 0:
            self.abort()
            refused = ""
            if self.skipped:  # --skip-invalid refused every entry: say which rules did
                counts = ", ".join(f"{rule}: {n:,}" for rule, n in sorted(self.skipped.items()))
                refused = f" (every entry was skipped: {counts}; first: {self.skipped_examples[0]})"
            raise EmptySetError(
                f"nothing written to {self.out_dir}: there is no URL to list{refused}, and an "
                "empty <urlset> fails the sitemaps.org schema (urlset-empty); any set already "
                "there is left as it was"
            )
        warnings = list(self._warnings)
        if self._count or not self._closed:
            self._close_part()
        for closed in self._closed:
            if closed.job is not None:
                closed.job.result()
        parts = len(self._closed)
        names = [self._final_name(i, parts) for i in range(parts)]
        moves = [(c.temp, self.out_dir / n) for c, n in zip(self._closed, names, strict=True)]
        total = self._bytes_total
        root_name = names[0]
        if parts > 1:
            root_name, size, temp = self._write_index(names)
            total += size
            moves.append((temp, self.out_dir / root_name))
        warnings.extend(self._publish(moves))
        self._done = True
        root = self.out_dir / root_name
        robots_line = robots_hint = None
        if self._dir_url is not None:
            robots_line = f"Sitemap: {self._dir_url}{root_name}"
        else:
            robots_hint = (
                f"give --base-url (where {root_name} will be served) to get the robots.txt line"
            )
        return WriteResult(
            files=[dst for _, dst in moves],
            root=root,
            is_index=parts > 1,
            urls=self.urls,
            bytes=total,
            duplicates=self.duplicates,
            dropped_chars=self.dropped,
            skipped=dict(self.skipped),
            skipped_examples=list(self.skipped_examples),
            annotations_dropped=dict(self.annotations_dropped),
            annotations_examples=list(self.annotations_examples),
            out_of_scope=dict(self.out_of_scope),
            robots_line=robots_line,
            robots_hint=robots_hint,
            warnings=warnings,
        )

    def _write_index(self, names: list[str]) -> tuple[str, int, Path]:
        assert self._dir_url is not None
        gz = self.options.gzip
        root_name = f"{self.options.basename}.xml" + (".gz" if gz else "")
        lines = [render.index_head(self.options.xsl)]
        for closed, name in zip(self._closed, names, strict=True):
            lastmod = closed.lastmod if self.options.index_lastmod else None
            lines.append(render.sitemap_entry(self._dir_url + name, lastmod))
        lines.append(render.INDEX_TAIL)
        data = "".join(lines).encode("utf-8")
        if len(data) > self.options.max_bytes:
            raise LimitError(
                f"the index of {len(names)} files would be {len(data)} bytes, over the "
                f"{self.options.max_bytes}-byte limit; use a shorter base URL or fewer files",
                limit="file-too-large",
            )
        temp = self.out_dir / f".{self.options.basename}.{self._token}.index.tmp"
        self._temps.append(temp)
        self._write_file(temp, b"", [data], None, b"")
        return root_name, len(data), temp

    def _publish(self, moves: list[tuple[Path, Path]]) -> list[str]:
        """Switch the folder to the new set (see :mod:`sitemapkit.write.publish`)."""
        base = re.escape(self.options.basename)
        warnings = publish_set(
            self.out_dir,
            moves,
            basename=self.options.basename,
            stale_pattern=re.compile(rf"{base}(?:-\d+)?\.(?:xml|txt)(?:\.gz)?"),
            fsync=self.options.fsync,
        )
        self._temps.clear()
        return warnings

    def abort(self) -> None:
        """Drop everything written so far; the previous set stays as it was."""
        if self._done:
            return
        self._done = True
        for closed in self._closed:
            if closed.job is not None:
                closed.job.join()
        if self._spill is not None:
            self._spill.close()
        for temp in self._temps:
            # OSError, not only FileNotFoundError: on a read-only or vanished folder the
            # cleanup fails too, and its error must not hide the one that stopped the run.
            with contextlib.suppress(OSError):
                temp.unlink()
        self._temps.clear()


def _as_entry(entry: object) -> UrlEntry:
    if isinstance(entry, str):
        return UrlEntry(entry)
    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str):
        return UrlEntry(entry[0], lastmod=entry[1])
    raise InputError(
        f"{entry!r} is not a UrlEntry, a URL or a (URL, lastmod) pair", rule="loc-missing"
    )


def write_sitemaps(
    entries: Iterable[EntryLike],
    out_dir: str | os.PathLike[str],
    options: WriterOptions | None = None,
) -> WriteResult:
    """Write ``entries`` as a sitemap set in ``out_dir`` and publish it atomically."""
    with SitemapSetWriter(out_dir, options) as writer:
        writer.add_all(entries)
        return writer.commit()


async def write_sitemaps_async(
    entries: AsyncIterable[EntryLike],
    out_dir: str | os.PathLike[str],
    options: WriterOptions | None = None,
) -> WriteResult:
    """:func:`write_sitemaps` for an async source (a crawl); file I/O stays short and local."""
    import asyncio

    with SitemapSetWriter(out_dir, options) as writer:
        async for entry in entries:
            writer.add(entry)
        return await asyncio.to_thread(writer.commit)
