"""``sitemapkit build``: write a sitemap set from a URL list, CSV or JSON Lines.

Bad lines are the user's to fix, so by default nothing is published when
any line is bad: every bad line is reported as ``FILE:LINE: reason`` (the
first 20, then a count) and the exit status is 1.  ``--skip-invalid``
publishes the good lines and reports what was skipped.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import click

from sitemapkit import limits
from sitemapkit.cli.status import ExitStatus
from sitemapkit.errors import EntryError, InputError, LimitError, SitemapkitError
from sitemapkit.model import UrlEntry
from sitemapkit.write.inputs import FORMATS, open_input, read_entries
from sitemapkit.write.writer import SitemapSetWriter, WriteResult, WriterOptions

#: Bad lines shown in full before the rest are only counted.
SHOWN_ERRORS = 20
#: Lines between two progress-bar updates.
_PROGRESS_EVERY = 8192


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
    type=click.Path(file_okay=False, path_type=Path),
    help="Output folder (created if missing).",
)
@click.option("--base-url", help="URL the files will be served from, e.g. https://example.com/.")
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
        )
    except InputError as exc:
        raise click.UsageError(str(exc)) from exc
    try:
        stream = open_input(input_name)
    except InputError as exc:
        click.echo(f"sitemapkit build: {exc}", err=True)
        ctx.exit(ExitStatus.USAGE)
    display = "<stdin>" if input_name == "-" else input_name
    errors: list[str] = []
    error_count = 0
    try:
        progress = _Progress(stream, sys.stderr.isatty() and input_name != "-")
        try:
            with SitemapSetWriter(out_dir, options) as writer:
                parsed = read_entries(stream, display, input_format)
                for number, item in _numbered(parsed, progress):
                    error: InputError | None = None
                    if isinstance(item, UrlEntry):
                        try:
                            writer.add(item, f"{display}:{number}")
                        except InputError as exc:
                            error = exc
                    else:
                        error = item
                    if error is None:
                        continue
                    message = f"{display}:{number}: {error}"
                    if skip_invalid:
                        writer.skip(error.rule or "entry-invalid", message)
                        continue
                    error_count += 1
                    if len(errors) < SHOWN_ERRORS:
                        errors.append(message)
                if error_count:
                    writer.abort()
                    result = None
                else:
                    result = writer.commit()
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
        for message in errors:
            click.echo(message, err=True)
        if error_count > len(errors):
            click.echo(f"... and {_fmt(error_count - len(errors))} more bad lines", err=True)
        click.echo(
            f"sitemapkit build: {_fmt(error_count)} bad line(s); nothing was written "
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


def _numbered(
    parsed: Iterator[tuple[int, UrlEntry | InputError]], progress: _Progress
) -> Iterator[tuple[int, UrlEntry | InputError]]:
    for i, item in enumerate(parsed):
        if i % _PROGRESS_EVERY == 0:
            progress.tick()
        yield item
