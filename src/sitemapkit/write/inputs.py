"""Reading ``sitemapkit build`` inputs: URL lists, CSV and JSON Lines.

A source (:func:`open_source`) is an iterable of what the writer's batched
:meth:`~sitemapkit.write.writer.SitemapSetWriter.add_all` takes (a URL, a
``(url, lastmod)`` pair, or a :class:`UrlEntry`), so a million-line list
costs one pass through the writer's fast loop, not a call per line.  Where
each entry came from stays known: :attr:`Source.line` is the line of the
entry last handed out (the writer's error for it is reported as
``FILE:LINE``), and a bad line is handed to ``on_error(line, error)`` at its
place in the input, then reading goes on.  An input that cannot be read at
all (a CSV without a ``loc`` column, unknown columns) raises
:class:`InputError` from :func:`open_source`, before anything is written.

Formats:

- ``txt``: one URL per line; blank lines and lines starting with ``#`` are skipped.
- ``csv``: a header names the columns: ``loc`` (or ``url``), ``lastmod``,
  ``changefreq``, ``priority``, and those ``sitemapkit urls --format csv`` prints:
  ``images`` (locs separated by spaces), ``alternates`` (``hreflang=href`` separated by
  spaces), ``sitemap`` (where it was read; ignored); ``videos`` and ``news`` hold only a
  count and a title there, so a row with either is an error that points to JSON Lines.
  Unknown columns are refused (a typo such as ``last_modified`` would otherwise drop
  data).  A row is one line: a quoted field that does not close on its line is an error
  there (one stray ``"`` must not swallow the rest of the file).
- ``jsonl``: one JSON object per line with the whole model
  (:mod:`sitemapkit.write.jsonmodel`); a bare JSON string is a ``loc``.

Every format reads lines through :class:`~sitemapkit.write.lines.Lines`: a
line over :data:`~sitemapkit.limits.MAX_INPUT_LINE_BYTES` is an error at its
line as soon as the cap is passed, in flat memory.
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Final, cast

from sitemapkit import limits
from sitemapkit.errors import InputError
from sitemapkit.model import Image, UrlEntry
from sitemapkit.write.jsonmodel import alternates_from_cell, entry_from_json
from sitemapkit.write.lines import BLOCK, Lines, LongLine

FORMATS: Final = ("txt", "csv", "jsonl")
_EXTENSIONS: Final = {
    ".txt": "txt",
    ".lst": "txt",
    ".list": "txt",
    ".csv": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
_CSV_FIELDS: Final = ("loc", "lastmod", "changefreq", "priority")
#: The other columns of ``sitemapkit urls --format csv``, read back (see the module doc).
_CSV_URLS_FIELDS: Final = ("images", "videos", "news", "alternates", "sitemap")
_CSV_ALIASES: Final = {"url": "loc"}
_BOM: Final = b"\xef\xbb\xbf"
#: ASCII bytes ``str.isspace`` counts as whitespace, ``\n`` aside.
_ASCII_SPACES: Final = (b" ", b"\t", b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", b"\x1f")

#: What a source yields: the forms the writer's batched path takes.
Item = str | tuple[str, str] | UrlEntry
#: Called with ``(line, error)`` for a bad line, at its place in the input.
OnError = Callable[[int, InputError], None]
Parsed = tuple[int, UrlEntry | InputError]


def open_input(name: str) -> IO[bytes]:
    """The byte stream for ``name`` (``-`` is stdin); a missing file raises InputError.

    A gzip-compressed input (``urls.txt.gz``, by its magic bytes, not its name) is read as
    the text it holds: before, every line of it was "not UTF-8".
    """
    stream = sys.stdin.buffer if name == "-" else _open_file(name)
    peek = getattr(stream, "peek", None)
    if peek is not None and peek(2)[:2] == _GZIP_MAGIC:
        return cast(IO[bytes], _GzipInput(stream, name))
    return stream


_GZIP_MAGIC: Final = b"\x1f\x8b"


def _open_file(name: str) -> IO[bytes]:
    try:
        return Path(name).open("rb")
    except OSError as exc:
        raise InputError(f"{name}: cannot open: {exc.strerror or exc}") from exc


class _GzipInput(gzip.GzipFile):
    """A gzip-compressed input; one that does not decompress is one clear error."""

    def __init__(self, raw: IO[bytes], name: str) -> None:
        super().__init__(fileobj=raw, mode="rb")
        self._raw = raw
        self._input_name = "<stdin>" if name == "-" else name

    def read(self, size: int | None = -1) -> bytes:
        try:
            return super().read(size)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(
                f"{self._input_name}: does not decompress as gzip ({exc})", rule="gzip-invalid"
            ) from exc

    def tell(self) -> int:
        """The compressed bytes read: what a progress bar measures against the file size."""
        return self._raw.tell()

    def close(self) -> None:
        super().close()
        if self._raw is not sys.stdin.buffer:
            self._raw.close()


def detect_format(name: str, first_line: bytes) -> str:
    """Guess the format from the file name, else from the first meaningful line."""
    if name != "-":
        suffix = Path(name).suffix.lower()
        if suffix in _EXTENSIONS:
            return _EXTENSIONS[suffix]
    head = first_line.lstrip(_BOM).strip()
    if head.startswith((b"{", b'"')):
        return "jsonl"
    columns = {c.strip().strip('"').lower() for c in head.decode("utf-8", "replace").split(",")}
    if "," in head.decode("utf-8", "replace") and columns & {"loc", "url"}:
        return "csv"
    return "txt"


def _first_line(head: bytes) -> bytes | None:
    """The first complete line that is neither blank nor a ``#`` comment, if ``head`` has one."""
    for line in head.split(b"\n")[:-1]:
        if line.strip() and not line.lstrip(_BOM).startswith(b"#"):
            return line
    return None


def _sniff(stream: IO[bytes], name: str) -> tuple[str, bytes]:
    """The format, and the bytes read to find it (they are replayed: stdin cannot seek)."""
    head = b""
    while (first := _first_line(head)) is None and len(head) <= limits.MAX_INPUT_LINE_BYTES:
        block = stream.read(BLOCK)
        if not block:
            first = head.rsplit(b"\n", 1)[-1]  # the last line has no line break
            break
        head += block
    return detect_format(name, first or b""), head


class Source:
    """An input as the items :meth:`~sitemapkit.write.writer.SitemapSetWriter.add_all` takes."""

    def __init__(self, lines: Lines, name: str, on_error: OnError) -> None:
        self._lines = lines
        self.name = name
        self._on_error = on_error
        self._line = 0

    @property
    def line(self) -> int:
        """The line of the entry handed out last."""
        return self._line

    @property
    def stream(self) -> IO[bytes]:
        return self._lines.stream

    @property
    def bytes_read(self) -> int:
        return self._lines.bytes_read

    def __iter__(self) -> Iterator[Item]:
        raise NotImplementedError

    def _long(self, long: LongLine) -> None:
        self._on_error(long.number, InputError(long.message(), rule="line-too-long"))

    def _decoded(self) -> Iterator[tuple[int, str]]:
        """``(line, text)`` for every line (a run decoded at once); bad lines reported."""
        for run in self._lines.runs():
            if isinstance(run, LongLine):
                self._long(run)
                continue
            number, body = run
            try:
                yield from enumerate(body.decode("utf-8").split("\n"), number)
                continue
            except UnicodeDecodeError:
                pass
            for line, raw in enumerate(body.split(b"\n"), number):
                try:
                    yield line, raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    error = InputError(f"not UTF-8 ({exc.reason})", rule="encoding-not-utf8")
                    self._on_error(line, error)


class TextSource(Source):
    """One URL per line; blanks and ``#`` comments skipped.

    :meth:`runs` hands out the URLs of a block of lines as one list: a block
    whose lines are all plain (ASCII, no whitespace, no blank or comment line)
    is decoded and split in one call.  :meth:`replay` then hands out a run's
    URLs one by one; the line of the URL being handed out is read off the
    list iterator's position instead of being counted per URL.
    """

    def __init__(self, lines: Lines, name: str, on_error: OnError) -> None:
        super().__init__(lines, name, on_error)
        self._run: Iterator[str] | None = None
        self._run_len = 0
        self._first = 0  # the line of a plain run's first URL
        self._numbers: list[int] | None = None  # the line of each URL of a mixed run

    @property
    def line(self) -> int:
        run = self._run
        if run is None:
            return self._line
        left: int = run.__length_hint__()  # type: ignore[attr-defined]
        index = self._run_len - left - 1
        return self._numbers[index] if self._numbers is not None else self._first + index

    def runs(self) -> Iterator[list[str]]:
        """The URLs of each block of lines, in order; bad lines reported on the way."""
        for run in self._lines.runs():
            if isinstance(run, LongLine):
                self._long(run)
                continue
            number, body = run
            if b"\r" in body:
                body = body.replace(b"\r\n", b"\n")  # same line count; a lone \r is for _slow
            if _plain_run(body):
                self._first, self._numbers = number, None
                yield body.decode("ascii").split("\n")
            else:
                urls, self._numbers = self._slow(number, body)
                yield urls

    def replay(self, urls: list[str]) -> Iterator[str]:
        """The URLs of the run :meth:`runs` just handed out, with :attr:`line` kept true."""
        self._run_len = len(urls)
        self._run = iter(urls)
        yield from self._run
        self._run = None

    def __iter__(self) -> Iterator[str]:
        for urls in self.runs():
            yield from self.replay(urls)

    def _slow(self, first: int, body: bytes) -> tuple[list[str], list[int]]:
        """Line by line: whitespace, blanks, comments, other encodings (the exact rules)."""
        urls: list[str] = []
        numbers: list[int] = []
        for number, raw in enumerate(body.split(b"\n"), first):
            try:
                line = raw.decode("utf-8").strip()
            except UnicodeDecodeError as exc:
                error = InputError(f"not UTF-8 ({exc.reason})", rule="encoding-not-utf8")
                self._on_error(number, error)
                continue
            if not line or line.startswith("#"):
                continue
            if any(c.isspace() for c in line):
                self._on_error(
                    number,
                    InputError(
                        "one URL per line, without spaces (write a space in a URL as %20)",
                        rule="text-line-invalid",
                        value=line,
                    ),
                )
                continue
            urls.append(line)
            numbers.append(number)
        return urls, numbers


def _plain_run(body: bytes) -> bool:
    """True when every line of ``body`` is ASCII, not blank, not a comment, without whitespace."""
    return (
        body.isascii()
        and bool(body)
        and not body.startswith((b"#", b"\n"))
        and not body.endswith(b"\n")
        and b"\n\n" not in body
        and (b"#" not in body or b"\n#" not in body)  # memchr first: '#' is rare in URLs
        and not any(space in body for space in _ASCII_SPACES)
    )


class CsvSource(Source):
    """CSV whose header names ``loc`` (or ``url``), ``lastmod``, ``changefreq``, ``priority``."""

    def __init__(self, lines: Lines, name: str, on_error: OnError) -> None:
        super().__init__(lines, name, on_error)
        self._rows = self._cells()
        header: list[str] = []
        number = 0
        while not "".join(header).strip() or header[0].lstrip().startswith("#"):
            item = next(self._rows, None)
            if item is None:
                self.columns: list[str] = []
                return
            number, header = item
        self.columns = columns = [
            _CSV_ALIASES.get(c.strip().lower(), c.strip().lower()) for c in header
        ]
        unknown = [c for c in columns if c not in _CSV_FIELDS + _CSV_URLS_FIELDS]
        if "loc" not in columns or unknown:
            raise InputError(
                f"{name}:{number}: the CSV header must name the columns "
                f"{', '.join(_CSV_FIELDS)} (loc required)"
                + (f"; unknown: {', '.join(unknown)}" if unknown else "")
            )

    def _cells(self) -> Iterator[tuple[int, list[str]]]:
        """``(line, cells)`` for every line that parses as one CSV row; errors reported."""
        for number, text in self._decoded():
            line = text.removesuffix("\r")
            if '"' not in line:
                yield number, line.split(",")
                continue
            try:
                yield number, next(csv.reader((line,), strict=True), [])
            except csv.Error as exc:
                self._on_error(number, _csv_error(exc))

    def __iter__(self) -> Iterator[Item]:
        width = len(self.columns)
        at = {column: i for i, column in enumerate(self.columns)}
        i_loc, i_lastmod = at["loc"], at.get("lastmod")
        hints = [at[c] for c in ("changefreq", "priority", "images", "alternates") if c in at]
        lossy = [(c, at[c]) for c in ("videos", "news") if c in at]
        for number, row in self._rows:
            if len(row) != width or not row[i_loc].strip():
                if not "".join(row).strip():
                    continue  # a blank row
                if len(row) != width:
                    message = f"{len(row)} fields where the header has {width}"
                    self._on_error(number, InputError(message, rule="csv-invalid"))
                else:
                    self._on_error(number, InputError("loc is empty", rule="loc-missing"))
                continue
            if lossy and (held := [c for c, i in lossy if row[i].strip()]):
                message = (
                    f"{' and '.join(held)} cannot be rebuilt from CSV (it holds a summary); "
                    "use `sitemapkit urls --format jsonl`"
                )
                self._on_error(number, InputError(message, rule="csv-invalid"))
                continue
            self._line = number
            loc = row[i_loc].strip()
            lastmod = None if i_lastmod is None else (row[i_lastmod].strip() or None)
            if not hints or not any(row[i].strip() for i in hints):
                yield loc if lastmod is None else (loc, lastmod)
                continue
            try:
                entry = _csv_entry(loc, lastmod, row, at)
            except InputError as exc:
                self._on_error(number, exc)
                continue
            yield entry


def _csv_entry(loc: str, lastmod: str | None, row: list[str], at: dict[str, int]) -> UrlEntry:
    """The entry of a CSV row with more than ``loc`` and ``lastmod``."""

    def cell(column: str) -> str | None:
        return row[at[column]].strip() or None if column in at else None

    return UrlEntry(
        loc,
        lastmod=lastmod,
        changefreq=cell("changefreq"),
        priority=cell("priority"),
        images=tuple(Image(src) for src in (cell("images") or "").split()),
        alternates=alternates_from_cell(cell("alternates") or ""),
    )


def _csv_error(exc: csv.Error) -> InputError:
    if "unexpected end of data" in str(exc):
        return InputError(
            'a quoted field does not end on its line (a stray "?); a row is one line',
            rule="csv-invalid",
        )
    return InputError(f"bad CSV: {exc}", rule="csv-invalid")


class JsonlSource(Source):
    """One JSON object (the whole model) or JSON string (a loc) per line.

    ``left_out`` counts the sitemap.js fields that were read and not written
    (:data:`sitemapkit.write.sitemapjs.RETIRED`), so the caller can say so.
    """

    def __init__(self, lines: Lines, name: str, on_error: OnError) -> None:
        super().__init__(lines, name, on_error)
        self.left_out: Counter[str] = Counter()

    def __iter__(self) -> Iterator[Item]:
        for item in self._lines.lines():
            if isinstance(item, LongLine):
                self._long(item)
                continue
            number, raw = item
            if not raw.strip():
                continue
            try:
                value = json.loads(raw)
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                self._on_error(number, InputError(f"not a JSON value: {exc}", rule="jsonl-invalid"))
                continue
            self._line = number
            if type(value) is dict and 0 < len(value) <= 2:  # {"loc"} or {"loc", "lastmod"}
                loc, lastmod = value.get("loc"), value.get("lastmod")
                if type(loc) is str and len(value) == 1:
                    yield loc
                    continue
                if type(loc) is str and type(lastmod) is str:
                    yield loc, lastmod
                    continue
            try:
                left_out: list[str] = []
                entry: Item = value if isinstance(value, str) else entry_from_json(value, left_out)
            except InputError as exc:
                self._on_error(number, exc)
                continue
            self.left_out.update(left_out)
            yield entry


_SOURCES: Final[dict[str, type[Source]]] = {
    "txt": TextSource,
    "csv": CsvSource,
    "jsonl": JsonlSource,
}


def open_source(
    stream: IO[bytes],
    name: str,
    fmt: str | None,
    on_error: OnError,
    *,
    on_block: Callable[[], None] | None = None,
) -> Source:
    """The source for ``stream`` in format ``fmt`` (``None``: from the name, else the first line).

    Works on unseekable streams (stdin): the bytes read to detect the format
    are replayed, so line numbers stay true.
    """
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r}; use one of {', '.join(FORMATS)}")
    head = b""
    if fmt is None:
        suffix = Path(name).suffix.lower() if name != "-" else ""
        fmt = _EXTENSIONS.get(suffix)
        if fmt is None:
            fmt, head = _sniff(stream, name)
    return _SOURCES[fmt](Lines(stream, head, on_block=on_block), name, on_error)


def as_entry(item: Item) -> UrlEntry:
    """The :class:`UrlEntry` a source item stands for."""
    if isinstance(item, UrlEntry):
        return item
    if isinstance(item, str):
        return UrlEntry(item)
    return UrlEntry(item[0], lastmod=item[1])


def read_entries(stream: IO[bytes], name: str, fmt: str | None = None) -> Iterator[Parsed]:
    """Every meaningful line as ``(line, entry_or_error)``, in input order (one at a time)."""
    pending: list[Parsed] = []
    source = open_source(stream, name, fmt, lambda n, e: pending.append((n, e)))

    def parsed() -> Iterator[Parsed]:
        # A text block's bad lines are reported before its good ones are handed out:
        # hand each error out just before the first entry that follows it.
        for item in source:
            line = source.line
            if pending:
                yield from (p for p in pending if p[0] < line)
                pending[:] = [p for p in pending if p[0] > line]
            yield line, as_entry(item)
        yield from pending

    return parsed()
