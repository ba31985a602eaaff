"""``sitemapkit build``: write a sitemap set from a URL list, CSV or JSON Lines.

Bad lines are the user's to fix, so by default nothing is published when
any line is bad: every bad line is reported as ``FILE:LINE: reason`` (the
first 20, then a count) and the exit status is 1.  ``--skip-invalid``
publishes the good lines and reports what was skipped.
"""

from __future__ import annotations

import functools
import heapq
import json
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import click

from sitemapkit import limits
from sitemapkit.cli.outdir import OUT_FOLDER
from sitemapkit.cli.status import ExitStatus
from sitemapkit.errors import EntryError, InputError, LimitError, SitemapkitError
from sitemapkit.write.inputs import FORMATS, Item, Source, TextSource, open_input, open_source
from sitemapkit.write.writer import SitemapSetWriter, WriteResult, WriterOptions

#: Bad lines shown in full before the rest are only counted.
SHOWN_ERRORS = 20


class _Progress:
    """A progress bar on stderr, only when it is a terminal and the input size is known."""

    def __init__(self, stream: IO[bytes], enabled: bool) -> None:
        self._bar: Any = None
        self._stream = stream
        self._pos = 0
        if not enabled:
            return
        try:
            size = os.fstat(stream.fileno()).st_size
        except (OSError, ValueError, AttributeError):
            size = 0
        if size > 1_000_000:
            self._bar = click.progressbar(
                length=size, label="building", file=sys.stderr, show_eta=True
            )
            self._bar.__enter__()

    def tick(self) -> None:
        if self._bar is None:
            return
        try:
            pos = self._stream.tell()
        except OSError:
            return
        self._bar.update(pos - self._pos)
        self._pos = pos

    def close(self) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)
            self._bar = None


def _fmt(n: int) -> str:
    return f"{n:,}"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _summary(result: WriteResult, errors_skipped: int) -> list[str]:
    kind = (
        f"a sitemap index and {result.parts} parts"
        if result.is_index
        else f"{len(result.files)} file"
    )
    out = [
        f"wrote {kind} to {result.root.parent}/: {_count(result.urls, 'URL')}, "
        f"{_count(result.bytes, 'byte')} (uncompressed)"
    ]
    out.extend(f"  {path}" for path in result.files)
    if result.duplicates:
        out.append(f"duplicates: {_fmt(result.duplicates)} (each URL written once, first wins)")
    if result.dropped_chars:
        out.append(f"dropped characters XML 1.0 forbids: {_fmt(result.dropped_chars)}")
    if result.skipped:
        reasons = ", ".join(f"{k}: {_fmt(v)}" for k, v in sorted(result.skipped.items()))
        out.append(f"skipped: {_fmt(sum(result.skipped.values()))} ({reasons})")
        out.extend(f"  {example}" for example in result.skipped_examples)
        del errors_skipped
    if result.annotations_dropped:
        dropped = result.annotations_dropped
        reasons = ", ".join(f"{k}: {_fmt(v)}" for k, v in sorted(dropped.items()))
        out.append(
            f"annotations left out (the pages were written without them): "
            f"{_fmt(sum(dropped.values()))} ({reasons})"
        )
        out.extend(f"  {example}" for example in result.annotations_examples)
    if result.out_of_scope:
        reasons = ", ".join(f"{k}: {_fmt(v)}" for k, v in sorted(result.out_of_scope.items()))
        out.append(f"written outside the base URL's scope (--allow-other-hosts): {reasons}")
    out.extend(f"warning: {w}" for w in result.warnings)
    if result.robots_line:
        out.append(f"add to robots.txt:\n{result.robots_line}")
    elif result.robots_hint:
        out.append(f"robots.txt: {result.robots_hint}")
    return out


def _result_json(result: WriteResult) -> dict[str, Any]:
    return {
        "root": str(result.root),
        "is_index": result.is_index,
        "files": [str(p) for p in result.files],
        "urls": result.urls,
        "bytes": result.bytes,
        "duplicates": result.duplicates,
        "dropped_chars": result.dropped_chars,
        "skipped": result.skipped,
        "skipped_examples": result.skipped_examples,
        "annotations_dropped": result.annotations_dropped,
        "annotations_examples": result.annotations_examples,
        "out_of_scope": result.out_of_scope,
        "warnings": result.warnings,
        "robots_line": result.robots_line,
        "robots_hint": result.robots_hint,
    }


@click.command("build")
@click.argument("input_name", metavar="INPUT")
@click.option(
    "-o",
    "--out",
    "out_dir",
    required=True,
    type=OUT_FOLDER,
    help="Output folder (created if missing).",
)
@click.option(
    "--base-url",
    help="URL the files will be served from, e.g. https://example.com/; "
    "relative URLs of INPUT are resolved against it.",
)
@click.option("--gzip", "use_gzip", is_flag=True, help="Write .xml.gz files (limits on raw bytes).")
@click.option("--text", "use_text", is_flag=True, help="Write text sitemaps (one URL per line).")
@click.option(
    "--max-urls",
    type=click.IntRange(1, limits.MAX_ENTRIES_PER_FILE),
    default=limits.MAX_ENTRIES_PER_FILE,
    show_default=True,
    help="URLs per file.",
)
@click.option(
    "--max-bytes",
    type=click.IntRange(1024, limits.MAX_BYTES_PER_FILE),
    default=limits.MAX_BYTES_PER_FILE,
    show_default=True,
    help="Uncompressed bytes per file (10485760 for engines with the old limit).",
)
@click.option(
    "--allow-other-hosts", is_flag=True, help="Write URLs outside --base-url's scope too."
)
@click.option("--skip-invalid", is_flag=True, help="Write the good lines; report the bad ones.")
@click.option(
    "--no-dedup", is_flag=True, help="Keep duplicate URLs (saves ~9 bytes/URL of memory)."
)
@click.option(
    "--xsl", metavar="URL", help="XSL stylesheet for browsers: an <?xml-stylesheet?> line."
)
@click.option("--input-format", type=click.Choice(FORMATS), help="Default: detected.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Summary format.",
)
@click.pass_context
def build(
    ctx: click.Context,
    input_name: str,
    out_dir: Path,
    base_url: str | None,
    use_gzip: bool,
    use_text: bool,
    max_urls: int,
    max_bytes: int,
    allow_other_hosts: bool,
    skip_invalid: bool,
    no_dedup: bool,
    xsl: str | None,
    input_format: str | None,
    output_format: str,
) -> int:
    """Write a sitemap set from INPUT (a URL list, CSV or JSON Lines; - for stdin).

    sitemap.xml is the entry point: a urlset, or an index of sitemap-N.xml
    parts when the URLs do not fit in one file (that needs --base-url).
    """
    try:
        options = WriterOptions(
            base_url=base_url,
            max_urls=max_urls,
            max_bytes=max_bytes,
            gzip=use_gzip,
            text=use_text,
            allow_other_hosts=allow_other_hosts,
            skip_invalid=skip_invalid,
            dedup=not no_dedup,
            xsl=xsl,
        )
    except InputError as exc:
        raise click.UsageError(str(exc)) from exc
    try:
        stream = open_input(input_name)
    except InputError as exc:
        click.echo(f"sitemapkit build: {exc}", err=True)
        ctx.exit(ExitStatus.USAGE)
    display = "<stdin>" if input_name == "-" else input_name
    bad = _BadLines(display, skip_invalid)
    try:
        progress = _Progress(stream, sys.stderr.isatty() and input_name != "-")
        try:
            with SitemapSetWriter(out_dir, options) as writer:
                bad.writer = writer
                source = open_source(
                    stream, display, input_format, bad.report, on_block=progress.tick
                )
                _write_all(writer, source, bad)
                if bad.count:
                    writer.abort()
                    result = None
                else:
                    result = writer.commit()
                    result.warnings.extend(_left_out(source))
        finally:
            progress.close()
    except LimitError as exc:
        click.echo(f"sitemapkit build: {exc}", err=True)
        ctx.exit(ExitStatus.USAGE if exc.limit == "index-needs-base-url" else 1)
    except EntryError as exc:  # a set rule over the whole input (hreflang reciprocity)
        click.echo(f"sitemapkit build: {exc}", err=True)
        ctx.exit(ExitStatus.ERROR)
    except InputError as exc:  # the input cannot be read at all (bad CSV header ...)
        click.echo(f"sitemapkit build: {exc}", err=True)
        ctx.exit(ExitStatus.USAGE)
    except SitemapkitError as exc:
        click.echo(f"sitemapkit build: {exc}", err=True)
        ctx.exit(ExitStatus.ERROR)
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    if result is None:
        for message in bad.shown:
            click.echo(message, err=True)
        if bad.count > len(bad.shown):
            click.echo(f"... and {_fmt(bad.count - len(bad.shown))} more bad lines", err=True)
        click.echo(
            f"sitemapkit build: {_fmt(bad.count)} bad line(s); nothing was written "
            "(fix them, or use --skip-invalid to write the rest)",
            err=True,
        )
        ctx.exit(ExitStatus.ERROR)
    if output_format == "json":
        click.echo(json.dumps(_result_json(result), indent=2))
    else:
        for line in _summary(result, 0):
            click.echo(line)
    ctx.exit(ExitStatus.OK)


def _left_out(source: Source) -> list[str]:
    """The warning for sitemap.js fields read and not written (Google retired them)."""
    counts = getattr(source, "left_out", None)
    if not counts:
        return []
    fields = ", ".join(f"{name} ({_fmt(n)})" for name, n in sorted(counts.items()))
    return [f"sitemap.js fields Google no longer reads were left out: {fields}"]


class _BadLines:
    """Where bad lines go: the first few shown and all counted, or skipped (``--skip-invalid``).

    Reports may come slightly out of order (a block's unreadable lines are
    found before the writer refuses an earlier line), so the lowest line
    numbers are kept, and shown sorted.
    """

    def __init__(self, display: str, skip_invalid: bool) -> None:
        self.display = display
        self.skip_invalid = skip_invalid
        self.writer: SitemapSetWriter | None = None
        self._first: list[tuple[int, str]] = []
        self.count = 0

    def report(self, line: int, error: InputError) -> None:
        message = f"{self.display}:{line}: {error}"
        if self.skip_invalid and self.writer is not None:
            self.writer.skip(error.rule or "entry-invalid", message)
            return
        self.count += 1
        self._first.append((line, message))
        if len(self._first) > 4 * SHOWN_ERRORS:
            self._first = heapq.nsmallest(SHOWN_ERRORS, self._first)

    @property
    def shown(self) -> list[str]:
        return [message for _, message in heapq.nsmallest(SHOWN_ERRORS, self._first)]


def _write_all(writer: SitemapSetWriter, source: Source, bad: _BadLines) -> None:
    """Feed the whole source through the writer's batched path.

    A URL list goes by runs of lines (:meth:`SitemapSetWriter.add_plain`); a
    run that cannot go in bulk, and CSV and JSON Lines, go through
    :meth:`SitemapSetWriter.add_all`.
    """
    if isinstance(source, TextSource):
        size = _input_size(source)
        for urls in source.runs():
            if size and urls:  # the first run tells the typical line length
                writer.reserve(size * len(urls) // max(1, source.bytes_read))
                size = 0
            if not writer.add_plain(urls):
                _feed(writer, source.replay(urls), source, bad)
    else:
        _feed(writer, iter(source), source, bad)


def _input_size(source: Source) -> int:
    """The input's size in bytes when it is a regular file, else 0."""
    try:
        info = os.fstat(source.stream.fileno())
    except (OSError, ValueError, AttributeError):
        return 0
    return info.st_size if stat.S_ISREG(info.st_mode) else 0


def _origin(display: str, source: Source) -> str:
    return f"{display}:{source.line}"


def _feed(
    writer: SitemapSetWriter, entries: Iterator[Item], source: Source, bad: _BadLines
) -> None:
    """:meth:`SitemapSetWriter.add_all` over ``entries``, reporting each entry it refuses.

    The writer raises for an entry it refuses; that entry's line is the
    source's current line.  It is reported and the same iterator is handed
    back, so the batch goes on from the next entry.
    """
    origin = functools.partial(_origin, bad.display, source)
    while True:
        try:
            writer.add_all(entries, origin)
        except InputError as exc:
            bad.report(source.line, exc)
        else:
            return
