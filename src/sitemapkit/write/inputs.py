"""Reading ``sitemapkit build`` inputs: URL lists, CSV and JSON Lines.

Each reader yields ``(line_number, UrlEntry)`` for a good line and
``(line_number, InputError)`` for a bad one, so the caller can report every
bad line as ``FILE:LINE: reason`` and still see the rest.  An input that
cannot be read at all (missing file, CSV without a ``loc`` column, unknown
columns) raises :class:`InputError` before anything is yielded.

Formats:

- ``txt``: one URL per line; blank lines and lines starting with ``#`` are skipped.
- ``csv``: a header names the columns: ``loc`` (or ``url``), ``lastmod``,
  ``changefreq``, ``priority``.  Unknown columns are refused, because a typo
  (``last_modified``) would otherwise drop data silently.
- ``jsonl``: one JSON object per line with the whole model, extensions
  included (see :func:`entry_from_json`); a bare JSON string is a ``loc``.
"""

from __future__ import annotations

import csv
import itertools
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Final

from sitemapkit.errors import InputError
from sitemapkit.model import (
    Alternate,
    Image,
    News,
    UrlEntry,
    Video,
    VideoPlatform,
    VideoRestriction,
)

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
_CSV_ALIASES: Final = {"url": "loc"}

Parsed = tuple[int, UrlEntry | InputError]
_BOM: Final = b"\xef\xbb\xbf"


def open_input(name: str) -> IO[bytes]:
    """The byte stream for ``name`` (``-`` is stdin); a missing file raises InputError."""
    if name == "-":
        return sys.stdin.buffer
    try:
        return Path(name).open("rb")
    except OSError as exc:
        raise InputError(f"{name}: cannot open: {exc.strerror or exc}") from exc


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


def read_entries(stream: IO[bytes], name: str, fmt: str | None = None) -> Iterator[Parsed]:
    """Yield ``(line, entry_or_error)`` for every meaningful line of ``stream``.

    Works on unseekable streams (stdin): the lines read to detect the format
    are replayed, so line numbers stay true.
    """
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown input format {fmt!r}; use one of {', '.join(FORMATS)}")
    lines = iter(stream)
    head: list[bytes] = []
    first = b""
    if fmt is None:
        for raw in lines:
            head.append(raw)
            if raw.strip() and not raw.lstrip(_BOM).startswith(b"#"):
                first = raw
                break
        fmt = detect_format(name, first)
    return _READERS[fmt](itertools.chain(head, lines), name, 1)


def _decode(raw: bytes, number: int) -> str:
    if number == 1 and raw.startswith(_BOM):
        raw = raw[3:]
    return raw.decode("utf-8")


def read_text(lines: Iterable[bytes], name: str, start: int = 1) -> Iterator[Parsed]:
    """One URL per line; blanks and ``#`` comments skipped."""
    del name  # every reader takes the name; only CSV's header errors need it
    for number, raw in enumerate(lines, start):
        try:
            line = _decode(raw, number).strip()
        except UnicodeDecodeError as exc:
            yield number, InputError(f"not UTF-8 ({exc.reason})", rule="encoding-not-utf8")
            continue
        if not line or line.startswith("#"):
            continue
        if any(c.isspace() for c in line):
            yield (
                number,
                InputError(
                    "one URL per line, without spaces (write a space in a URL as %20)",
                    rule="text-line-invalid",
                    value=line,
                ),
            )
            continue
        yield number, UrlEntry(line)


def read_csv(lines: Iterable[bytes], name: str, start: int = 1) -> Iterator[Parsed]:
    """CSV whose header names ``loc`` (or ``url``), ``lastmod``, ``changefreq``, ``priority``."""
    numbered = _CsvLines(lines, start)
    reader = csv.reader(numbered)
    header: list[str] = []
    try:
        while not header or header[0].lstrip().startswith("#"):
            header = next(reader)
    except StopIteration:
        return
    except (UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"{name}:{numbered.number}: cannot read the CSV header: {exc}") from exc
    columns = [_CSV_ALIASES.get(c.strip().lower(), c.strip().lower()) for c in header]
    unknown = [c for c in columns if c not in _CSV_FIELDS]
    if "loc" not in columns or unknown:
        raise InputError(
            f"{name}:{numbered.number}: the CSV header must name the columns "
            f"{', '.join(_CSV_FIELDS)} (loc required)"
            + (f"; unknown: {', '.join(unknown)}" if unknown else "")
        )
    while True:
        numbered.row_start = numbered.number + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except UnicodeDecodeError as exc:
            yield numbered.number, InputError(f"not UTF-8 ({exc.reason})", rule="encoding-not-utf8")
            continue
        except csv.Error as exc:
            yield numbered.number, InputError(f"bad CSV: {exc}", rule="csv-invalid")
            continue
        number = numbered.row_start
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(columns):
            yield (
                number,
                InputError(
                    f"{len(row)} fields where the header has {len(columns)}", rule="csv-invalid"
                ),
            )
            continue
        values = {c: (v.strip() or None) for c, v in zip(columns, row, strict=True)}
        loc = values.get("loc")
        if loc is None:
            yield number, InputError("loc is empty", rule="loc-missing")
            continue
        yield (
            number,
            UrlEntry(
                loc,
                lastmod=values.get("lastmod"),
                changefreq=values.get("changefreq"),
                priority=values.get("priority"),
            ),
        )


class _CsvLines:
    """Decode lines one by one for :mod:`csv`, remembering where each row started."""

    def __init__(self, lines: Iterable[bytes], start: int) -> None:
        self._lines = iter(lines)
        self.number = start - 1
        self.row_start = start

    def __iter__(self) -> _CsvLines:
        return self

    def __next__(self) -> str:
        raw = next(self._lines)
        self.number += 1
        return _decode(raw, self.number)


def read_jsonl(lines: Iterable[bytes], name: str, start: int = 1) -> Iterator[Parsed]:
    """One JSON object (the whole model) or JSON string (a loc) per line."""
    del name
    for number, raw in enumerate(lines, start):
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            yield number, InputError(f"not a JSON value: {exc}", rule="jsonl-invalid")
            continue
        try:
            yield number, entry_from_json(value)
        except InputError as exc:
            yield number, exc


def _str(obj: dict[str, Any], key: str, required: bool = False) -> str | None:
    value = obj.get(key)
    if value is None:
        if required:
            raise InputError(f'"{key}" is required', rule="jsonl-invalid")
        return None
    if not isinstance(value, str):
        raise InputError(
            f'"{key}" must be a string, not {type(value).__name__}', rule="jsonl-invalid"
        )
    return value


def _req(obj: dict[str, Any], key: str) -> str:
    value = _str(obj, key, required=True)
    assert value is not None
    return value


def _int(obj: dict[str, Any], key: str) -> int | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f'"{key}" must be a whole number', rule="jsonl-invalid")
    return value


def _bool(obj: dict[str, Any], key: str) -> bool | None:
    value = obj.get(key)
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("yes", "no"):
        return value.lower() == "yes"
    raise InputError(f'"{key}" must be true/false or "yes"/"no"', rule="jsonl-invalid")


def _object(value: object, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InputError(f"{what} must be a JSON object", rule="jsonl-invalid")
    return value


def _list(obj: dict[str, Any], key: str) -> list[Any]:
    value = obj.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise InputError(f'"{key}" must be a JSON array', rule="jsonl-invalid")
    return value


def _only(obj: dict[str, Any], allowed: Iterable[str], what: str) -> None:
    unknown = sorted(set(obj) - set(allowed))
    if unknown:
        raise InputError(f"unknown {what} field(s): {', '.join(unknown)}", rule="jsonl-invalid")


def _words(value: object, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise InputError(f'"{key}" must be a string or an array of strings', rule="jsonl-invalid")


_ENTRY_KEYS: Final = (
    "loc", "lastmod", "changefreq", "priority", "images", "videos", "news", "alternates",
)  # fmt: skip
_VIDEO_KEYS: Final = tuple(Video.__dataclass_fields__)
_IMAGE_KEYS: Final = tuple(Image.__dataclass_fields__)


def entry_from_json(value: object) -> UrlEntry:
    """A :class:`UrlEntry` from a decoded JSON Lines value; unknown keys are errors."""
    if isinstance(value, str):
        return UrlEntry(value)
    obj = _object(value, "a line")
    _only(obj, _ENTRY_KEYS, "entry")
    priority = obj.get("priority")
    if priority is not None and (
        isinstance(priority, bool) or not isinstance(priority, (int, float, str))
    ):
        raise InputError('"priority" must be a number', rule="priority-invalid")
    images = []
    for item in _list(obj, "images"):
        image = _object(item, "an image")
        _only(image, _IMAGE_KEYS, "image")
        images.append(
            Image(
                _req(image, "loc"),
                caption=_str(image, "caption"),
                geo_location=_str(image, "geo_location"),
                title=_str(image, "title"),
                license=_str(image, "license"),
            )
        )
    videos = [_video(_object(item, "a video")) for item in _list(obj, "videos")]
    news = None
    if obj.get("news") is not None:
        n = _object(obj["news"], '"news"')
        _only(
            n,
            (
                "publication_name",
                "publication_language",
                "publication_date",
                "title",
                "name",
                "language",
            ),
            "news",
        )
        news = News(
            publication_name=_str(n, "publication_name") or _req(n, "name"),
            publication_language=_str(n, "publication_language") or _req(n, "language"),
            publication_date=_req(n, "publication_date"),
            title=_req(n, "title"),
        )
    alternates = []
    for item in _list(obj, "alternates"):
        alt = _object(item, "an alternate")
        _only(alt, ("hreflang", "href"), "alternate")
        alternates.append(Alternate(_req(alt, "hreflang"), _req(alt, "href")))
    return UrlEntry(
        _req(obj, "loc"),
        lastmod=_str(obj, "lastmod"),
        changefreq=_str(obj, "changefreq"),
        priority=priority,
        images=tuple(images),
        videos=tuple(videos),
        news=news,
        alternates=tuple(alternates),
    )


def _video(v: dict[str, Any]) -> Video:
    _only(v, _VIDEO_KEYS, "video")
    restriction = platform = None
    if v.get("restriction") is not None:
        r = _object(v["restriction"], '"restriction"')
        _only(r, ("relationship", "countries"), "restriction")
        restriction = VideoRestriction(
            _req(r, "relationship"), _words(r.get("countries"), "countries")
        )
    if v.get("platform") is not None:
        p = _object(v["platform"], '"platform"')
        _only(p, ("relationship", "platforms"), "platform")
        platform = VideoPlatform(_req(p, "relationship"), _words(p.get("platforms"), "platforms"))
    rating = v.get("rating")
    if rating is not None and (isinstance(rating, bool) or not isinstance(rating, (int, float))):
        raise InputError('"rating" must be a number', rule="video-limits")
    return Video(
        thumbnail_loc=_req(v, "thumbnail_loc"),
        title=_req(v, "title"),
        description=_req(v, "description"),
        content_loc=_str(v, "content_loc"),
        player_loc=_str(v, "player_loc"),
        duration=_int(v, "duration"),
        expiration_date=_str(v, "expiration_date"),
        rating=None if rating is None else float(rating),
        view_count=_int(v, "view_count"),
        publication_date=_str(v, "publication_date"),
        tags=_words(v.get("tags"), "tags") if not isinstance(v.get("tags"), str) else (v["tags"],),
        family_friendly=_bool(v, "family_friendly"),
        restriction=restriction,
        requires_subscription=_bool(v, "requires_subscription"),
        uploader=_str(v, "uploader"),
        uploader_info=_str(v, "uploader_info"),
        platform=platform,
        live=_bool(v, "live"),
    )


_READERS: Final = {"txt": read_text, "csv": read_csv, "jsonl": read_jsonl}


def entry_to_json(entry: UrlEntry) -> str:
    """The JSON Lines form of ``entry`` (what :func:`entry_from_json` reads back)."""
    return json.dumps(_to_plain(entry), ensure_ascii=False)


def _to_plain(value: object) -> object:
    from dataclasses import fields, is_dataclass
    from datetime import date

    if is_dataclass(value) and not isinstance(value, type):
        out: dict[str, object] = {}
        for f in fields(value):
            v = getattr(value, f.name)
            if v is None or v == ():
                continue
            out[f.name] = _to_plain(v)
        return out
    if isinstance(value, tuple):
        return [_to_plain(v) for v in value]
    if isinstance(value, date):
        return value.isoformat()
    return value
