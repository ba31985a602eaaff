"""``sitemapkit urls SOURCE``: print every URL of any sitemap, streaming.

Output goes out in batches as the entries are read, so a million-URL index
prints its first line at once and never sits in memory.  Problems met on the
way (an unreadable child, a cap hit) go to stderr as one line each and make
the exit status 1; a SOURCE that cannot be read at all is exit 2.
"""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Iterable
from typing import Any, TextIO

import click

from sitemapkit.cli.readcaps import check_source, read_limit_options, read_limits
from sitemapkit.cli.status import ExitStatus
from sitemapkit.model import Finding, Severity, UrlEntry
from sitemapkit.read.reader import SourcedEntry, iter_locs, iter_sourced
from sitemapkit.read.walk import source_unreadable
from sitemapkit.terminal import json_for_terminals, lines_for_people
from sitemapkit.write.jsonmodel import alternates_cell, plain

_FIELDS = (
    "loc",
    "lastmod",
    "changefreq",
    "priority",
    "images",
    "videos",
    "news",
    "alternates",
    "sitemap",
)


def _entry_dict(item: SourcedEntry) -> dict[str, Any]:
    e: UrlEntry = item.entry
    d: dict[str, Any] = {"loc": e.loc}
    if e.lastmod is not None:
        d["lastmod"] = str(e.lastmod)
    if e.changefreq is not None:
        d["changefreq"] = str(e.changefreq)
    if e.priority is not None:
        d["priority"] = str(e.priority)
    if e.images:
        d["images"] = [i.loc for i in e.images]
    if e.videos:  # whole, as build reads them back
        d["videos"] = [plain(v) for v in e.videos]
    if e.news is not None:
        d["news"] = {
            "title": e.news.title,
            "publication_date": str(e.news.publication_date),
            "name": e.news.publication_name,
            "language": e.news.publication_language,
        }
    if e.alternates:
        d["alternates"] = {a.hreflang: a.href for a in e.alternates}
    d["sitemap"] = item.sitemap
    return d


def _write_jsonl(items: Iterable[SourcedEntry], out: TextIO) -> int:
    n = 0
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    buf: list[str] = []
    for item in items:
        buf.append(dumps(_entry_dict(item)))
        n += 1
        if len(buf) >= 2048:
            out.write(json_for_terminals("\n".join(buf)) + "\n")
            buf.clear()
    if buf:
        out.write(json_for_terminals("\n".join(buf)) + "\n")
    return n


def _write_csv(items: Iterable[SourcedEntry], out: TextIO) -> int:
    n = 0
    sio = io.StringIO()
    w = csv.writer(sio, lineterminator="\n")
    w.writerow(
        [
            "loc",
            "lastmod",
            "changefreq",
            "priority",
            "images",
            "videos",
            "news",
            "alternates",
            "sitemap",
        ]
    )
    for item in items:
        e = item.entry
        w.writerow(
            [
                e.loc,
                "" if e.lastmod is None else str(e.lastmod),
                e.changefreq or "",
                "" if e.priority is None else str(e.priority),
                " ".join(i.loc for i in e.images),
                len(e.videos) or "",
                e.news.title if e.news else "",
                alternates_cell(e.alternates),
                item.sitemap,
            ]
        )
        n += 1
        if n % 2048 == 0:
            out.write(sio.getvalue())
            sio.seek(0)
            sio.truncate()
    out.write(sio.getvalue())
    return n


@click.command("urls")
@click.argument("source")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "csv", "jsonl"]),
    default="text",
    show_default=True,
    help="Output format (jsonl/csv carry lastmod, extensions, sitemap).",
)
@click.option(
    "--no-follow", is_flag=True, help="Print an index's sitemap URLs instead of following."
)
@read_limit_options
@click.option("-q", "--quiet", is_flag=True, help="Do not print problems to stderr.")
@click.pass_context
def urls(
    ctx: click.Context,
    source: str,
    fmt: str,
    no_follow: bool,
    max_download_bytes: int,
    max_decompressed_bytes: int,
    max_depth: int,
    max_sitemaps: int,
    timeout: float,
    allow_other_hosts: bool,
    allow_private: bool,
    quiet: bool,
) -> int:
    """Print every URL of SOURCE: a sitemap file, '-', a sitemap, robots.txt or home URL."""
    source = check_source(source)
    lim = read_limits(
        max_download_bytes,
        max_decompressed_bytes,
        max_depth,
        max_sitemaps,
        timeout,
        allow_other_hosts,
        allow_private,
    )
    log: list[Finding] = []
    out = sys.stdout
    if fmt == "text":
        # Only locs are printed: the reader's fast path builds no entry objects.
        for batch in iter_locs(source, limits=lim, log=log, follow=not no_follow):
            out.write(lines_for_people(batch))
            out.write("\n")
    else:
        items = iter_sourced(source, limits=lim, log=log, follow=not no_follow)
        writer = _write_csv if fmt == "csv" else _write_jsonl
        writer(items, out)
    out.flush()
    problems = [f for f in log if f.severity is not Severity.INFO]
    if not quiet:
        for f in problems:
            click.echo(f"sitemapkit: {f.render()}", err=True)
    if any(source_unreadable(f, source) for f in problems):
        return ctx.exit(ExitStatus.USAGE)
    return ctx.exit(
        ExitStatus.ERROR if any(f.severity is Severity.ERROR for f in problems) else ExitStatus.OK
    )
