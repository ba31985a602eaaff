"""``sitemapkit crawl URL -o OUTDIR``: crawl a site politely and write its sitemap set.

The crawl state lives in a store (``--db``, by default the SQLite file
``OUTDIR/crawl.sqlite``) so that ``--resume`` can continue an interrupted crawl,
``--why URL`` can explain one URL's fate, and ``sitemapkit inventory`` can
export everything seen.  The store is locked from before it is opened (or
replaced) until the sitemap set is written: a second crawl into the same
``--db`` or ``-o`` stops with one line and exit 1, touching nothing.  A store
that fails mid-crawl (disk full) stops the crawl with one line and exit 1,
publishes nothing, and leaves a crawl that ``--resume`` continues.

What is published, and the guards before it (a failed start or a set shrunk by
half publishes nothing), live in :mod:`sitemapkit.cli.crawl_output`, shared with
``demo``.  SIGTERM is handled like Ctrl-C: the crawl is saved, exit 143.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from shlex import quote
from typing import TYPE_CHECKING, TextIO, cast

import click
from click.core import ParameterSource

from sitemapkit.cli.crawl_output import (
    ShrinkError,
    check_shrink,
    empty_hint,
    publish_crawl,
    published_lines,
)
from sitemapkit.cli.dbspec import DB_SPEC, DbSpec, shown
from sitemapkit.cli.display import shorten
from sitemapkit.cli.outdir import OUT_FOLDER
from sitemapkit.cli.status import ExitStatus
from sitemapkit.crawl.config import (
    DEFAULT_CONCURRENCY,
    DEFAULT_PER_HOST,
    DEFAULT_RENDER,
    DEFAULT_RENDER_CONCURRENCY,
    DEFAULT_RENDER_TIMEOUT,
    LEASE_META,
    LEASE_TTL,
    CrawlConfig,
)
from sitemapkit.crawl.engine import Crawler, CrawlResult, CrawlStats
from sitemapkit.crawl.parsepool import MAX_WORKERS, default_workers
from sitemapkit.errors import (
    EmptySetError,
    InputError,
    StoreError,
    StoreRefusedError,
    StoreWriteError,
)
from sitemapkit.store import is_crawl_db, open_store
from sitemapkit.store.base import CrawlStore, OpenMode

if TYPE_CHECKING:
    from sitemapkit.indexnow.submit import Settings
    from sitemapkit.store.rows import Explanation
    from sitemapkit.write.writer import WriteResult

DB_NAME = "crawl.sqlite"


class Progress:
    """One self-overwriting status line on stderr, drawn only when stderr is a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self._width = 0

    def __call__(self, stats: CrawlStats) -> None:
        if not self.enabled:
            return
        line = (
            f"crawled {stats.fetched:,} · in sitemap {stats.in_sitemap:,} · "
            f"queued {stats.frontier + stats.queued:,} · active {stats.active} · "
            f"{stats.rate:,.1f}/s · errors {stats.errors:,}"
        )
        pad = max(0, self._width - len(line))
        self.stream.write("\r" + line + " " * pad)
        self.stream.flush()
        self._width = len(line)

    def done(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()


class Terminated(Exception):  # noqa: N818 - a signal, like KeyboardInterrupt
    """SIGTERM stopped the crawl; it was saved as after Ctrl-C."""


async def _run(crawler: Crawler, resume: bool) -> CrawlResult:
    """Run the crawl; SIGTERM cancels it cleanly (saved, then :class:`Terminated`)."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    signals: list[int] = []

    def on_term() -> None:
        signals.append(signal.SIGTERM)
        if task is not None:
            task.cancel()

    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGTERM, on_term)
    try:
        return await crawler.run(resume=resume)
    except asyncio.CancelledError:
        if signals:
            raise Terminated from None
        raise
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)


def run_crawl(
    config: CrawlConfig,
    store: CrawlStore,
    *,
    resume: bool = False,
    progress: Progress | None = None,
    fleet: float | None = None,
) -> CrawlResult:
    """Run one crawl (or resume one) into ``store``, which the caller opened and closes.

    ``fleet``: the store is shared and this process is the fleet's first worker
    (``sitemapkit worker --db`` processes join it), with leases of that many seconds;
    it returns when the crawl is done.
    """
    # The objects made before the crawl (imports, click, the config) live to the end:
    # frozen, the collector's full passes skip them (on the PostgreSQL manual its CPU
    # went 47-56 -> 33-34 ms); unfrozen after, so a longer-lived caller keeps them.
    gc.freeze()
    try:
        draw = progress if progress is not None and progress.enabled else None
        crawler: Crawler
        if fleet is not None:
            from sitemapkit.crawl.fleet import FleetCrawler
            from sitemapkit.store.base import FleetStore

            # open_store(shared=True) opened it as one (see the crawl command below).
            crawler = FleetCrawler(config, cast(FleetStore, store), lease=fleet, progress=draw)
        else:
            crawler = Crawler(config, store, progress=draw)
        return asyncio.run(_run(crawler, resume))
    finally:
        gc.unfreeze()
        if progress is not None:
            progress.done()


def default_base_url(store: CrawlStore) -> str | None:
    site = store.get_meta("site_origin") or store.get_meta("start_url")
    if not site:
        return None
    scheme, _, rest = site.partition("://")
    return f"{scheme}://{rest.split('/', 1)[0]}/"


def summary_lines(
    result: CrawlResult,
    written: WriteResult | None,
    page_notes: dict[str, tuple[int, str]] | None = None,
) -> list[str]:
    """The crawl summary; the sitemap count is what the writer wrote, when it wrote."""
    stats = result.stats
    counts = result.counts
    elapsed = stats.elapsed
    listed = written.urls if written is not None else counts.get("indexable", 0)
    lines = [
        f"crawled {stats.fetched:,} URLs in {elapsed:.1f} s "
        f"({stats.fetched / elapsed if elapsed > 0 else 0:,.1f}/s); "
        f"{listed:,} pages in the sitemap",
    ]
    excluded = sorted(result.reasons.items(), key=lambda kv: (-kv[1], kv[0]))
    if excluded:
        lines.append(
            "not in the sitemap: " + ", ".join(f"{reason} {n:,}" for reason, n in excluded)
        )
    if result.rendered:
        from sitemapkit.render.report import render_lines

        lines.extend(render_lines(result.rendered, result.render_missing))
    for code, urls in sorted(result.trap_examples.items()):
        if urls:
            lines.append(f"  {code}, e.g. " + ", ".join(shorten(u) for u in urls[:3]))
    if page_notes:
        lines.append(
            "noted on pages (--why URL says more): "
            + ", ".join(f"{code} {n:,}" for code, (n, _) in page_notes.items())
        )
        lines.extend(f"  {code}, e.g. {shorten(url)}" for code, (_, url) in page_notes.items())
    if written is not None and written.skipped:
        lines.append(
            "left out by the writer: "
            + ", ".join(f"{code} {n:,}" for code, n in sorted(written.skipped.items()))
        )
        lines.extend(f"  {shorten(example, 160)}" for example in written.skipped_examples[:3])
    if result.stopped_by:
        lines.append(
            f"stopped by {result.stopped_by}: {counts.get('queued', 0):,} URLs left in the queue"
        )
    return lines


def find_explanation(store: CrawlStore, url: str) -> tuple[str, Explanation | None]:
    """``url`` (a ``/path`` is taken on the crawled site's origin) and what ``store`` knows
    of it, asked as given and normalised (``--why`` and the app's Why panel)."""
    from sitemapkit.crawl.urlnorm import normalize

    if url.startswith("/"):
        site = default_base_url(store)
        url = (site or "").rstrip("/") + url
    candidates = [url]
    norm = normalize(url)
    if norm is not None and norm != url:
        candidates.append(norm)
    for candidate in candidates:
        info = store.explain(candidate)
        if info is not None:
            return url, info
    return url, None


def explain(db: DbSpec, url: str, out: TextIO) -> int:
    """Print what the crawl in ``db`` knows about ``url``; 1 when it never saw it.

    The store is opened read-only, without the lock: ``--why`` works while a
    crawl is still writing.
    """
    if not is_crawl_db(db):
        click.echo(f"sitemapkit: error: {shown(db)}: not a sitemapkit crawl database", err=True)
        return ExitStatus.USAGE
    store = open_store(db, mode="read")
    try:
        url, info = find_explanation(store, url)
        history = [] if info is None else store.url_history(info.record.url)
    finally:
        store.close()
    if info is None:
        out.write(f"{url}: never seen by this crawl\n")
        return ExitStatus.ERROR
    rec = info.record
    verdict = "in the sitemap" if rec.indexable else f"not in the sitemap: {rec.reason}"
    out.write(f"{rec.url}\n")
    out.write(f"  decision:   {verdict}\n")
    if info.detail:
        out.write(f"  detail:     {info.detail}\n")
    out.write(f"  status:     {rec.status if rec.status is not None else 'not fetched'}\n")
    if rec.content_type:
        out.write(f"  type:       {rec.content_type}\n")
    out.write(f"  depth:      {rec.depth}\n")
    if info.found_from:
        how = f" ({info.found_how})" if info.found_how else ""
        out.write(f"  found on:   {info.found_from}{how}\n")
    else:
        out.write("  found on:   (start URL / seed)\n")
    out.write(f"  inlinks:    {rec.inlinks}\n")
    if rec.title:
        out.write(f"  title:      {rec.title}\n")
    if rec.canonical:
        out.write(f"  canonical:  {rec.canonical}\n")
    if rec.lastmod:
        out.write(f"  lastmod:    {rec.lastmod} (from {rec.lastmod_source})\n")
    for note in rec.extra.get("notes", "").splitlines():
        out.write(f"  note:       {note}\n")
    if "render" in rec.extra:
        out.write(f"  rendered:   {rec.extra['render']} ({rec.extra['render_why']})\n")
        only = rec.extra["rendered_links"].split()
        out.write(f"  links only after rendering: {len(only)}\n")
        out.writelines(f"    {link}\n" for link in only)
    if info.fetched_at is not None:  # a 304 counts: the page was seen then
        seen = datetime.fromtimestamp(int(info.fetched_at), UTC).strftime("%Y-%m-%d %H:%M:%S")
        out.write(f"  last seen:  {seen} UTC\n")
    if history:  # first seen, what changed in which run, gone (issue 12)
        from sitemapkit.changes.compare import timeline

        out.write("  history:\n")
        out.writelines(f"    {line}\n" for line in timeline(history))
    if info.redirect_chain:
        out.write("  redirects:\n")
        for hop_url, status in info.redirect_chain:
            out.write(f"    {status if status is not None else '   '} {hop_url}\n")
    return ExitStatus.OK


def resume_hint(message: str, db: DbSpec, out_dir: Path) -> None:
    """One stderr line: what stopped the crawl, and the command that continues it."""
    command = f"sitemapkit crawl --resume --db {quote(shown(db))} -o {out_dir}"
    click.echo(f"sitemapkit: {message} with `{command}`", err=True)


def render_mode(render: str | None, *, thumbnails: bool = False) -> tuple[str, bool]:
    """``--render`` as given -> the crawl's mode, and whether it is optional.

    Not given, the mode is :data:`DEFAULT_RENDER` and optional: without Playwright or
    Chromium the crawl goes on unrendered and its summary says so in one line.  Asked
    for (or ``--thumbnails``), a missing piece is :class:`RenderUnavailableError` here, one
    line before any file is made, not a surprise half-way through the crawl.  ``crawl``
    and ``audit`` both resolve ``--render`` with it.
    """
    optional = render is None
    mode = render or DEFAULT_RENDER
    if (mode != "never" and not optional) or thumbnails:
        from sitemapkit.render.browser import check_available

        check_available()
    return mode, optional


def _check(config: CrawlConfig) -> None:
    try:
        config.validate()
    except InputError as exc:
        raise click.UsageError(str(exc)) from exc


def _fleet_lease(db: DbSpec) -> float | None:
    """The lease of the fleet crawl stored in ``db``; None for a crawl run alone.

    Why ``--resume`` asks: a fleet's trap counters and claims live in the store's fleet
    tables, so a fleet's crawl resumed alone (as the interrupted lead's own hint said)
    counted its traps from zero and fetched its trapped URLs (the demo, Ctrl-C then
    ``--resume``: 52 pages in the sitemap for 50, 181 fetched for 136).
    """
    if not is_crawl_db(db):
        return None
    try:
        store = open_store(db, mode="read")
    except StoreError:
        return None  # the open that follows says what is wrong
    try:
        lease = store.get_meta(LEASE_META)
    finally:
        store.close()
    return float(lease) if lease else None


def _resumed_config(
    store: CrawlStore,
    db: DbSpec,
    url: str | None,
    max_pages: int | None,
    max_duration: float | None,
    workers: int | None = None,
) -> CrawlConfig:
    """The stored crawl's config; limits and ``--workers`` may change on resume, scope and
    rules stay."""
    stored = store.get_meta("config")
    if stored is None:
        raise click.UsageError(f"--resume: {shown(db)} holds no crawl to resume")
    config = CrawlConfig.from_json(stored)
    if url is not None and url.rstrip("/") != config.start_url.rstrip("/"):
        raise click.UsageError(
            f"--resume: {shown(db)} holds a crawl of {config.start_url}, not {url}"
        )
    if max_pages is not None:
        config.max_pages = max_pages
    if max_duration is not None:
        config.max_duration = max_duration
    if workers is not None:
        config.workers = workers
    _check(config)
    return config


@click.command("crawl")
@click.argument("url", required=False)
@click.option(
    "-o",
    "--out",
    "out_dir",
    type=OUT_FOLDER,
    help="Folder for the sitemap set.",
)
@click.option(
    "--db",
    type=DB_SPEC,
    help=f"Crawl state: a file (default OUTDIR/{DB_NAME}) or postgresql://...; keep it to resume.",
)
@click.option("--resume", is_flag=True, help="Continue the crawl stored in --db.")
@click.option("--base-url", help="Where the sitemap set will be served (default: site root).")
@click.option("--gzip", is_flag=True, help="Write .xml.gz files.")
@click.option(
    "--max-pages", type=click.IntRange(min=1), help="Stop after N URLs taken from the queue."
)
@click.option("--max-depth", type=click.IntRange(min=0), help="Do not follow links deeper.")
@click.option(
    "--max-duration",
    type=click.FloatRange(min=0),
    help="Stop after S seconds, cutting requests in flight (they count as not-crawled).",
)
@click.option(
    "--concurrency", type=click.IntRange(min=1), default=DEFAULT_CONCURRENCY, show_default=True
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    help="Processes that parse pages while one process fetches and stores "
    f"(default: the number of cores, at most {MAX_WORKERS}; 1: all in one process; "
    "a resumed crawl keeps its own).",
)
@click.option(
    "--per-host",
    type=click.IntRange(min=1),
    default=DEFAULT_PER_HOST,
    show_default=True,
    help="Connections per host.",
)
@click.option(
    "--rate", type=click.FloatRange(min=0, min_open=True), help="Requests per second per host."
)
@click.option("--user-agent", help="User-Agent header (robots.txt is matched on its token).")
@click.option("--ignore-robots", is_flag=True, help="Do not read robots.txt.")
@click.option("--follow-nofollow", is_flag=True, help="Follow rel=nofollow links too.")
@click.option("--subdomains", is_flag=True, help="Treat subdomains of the start host as the site.")
@click.option("--allow-host", multiple=True, help="Another host that is part of the site.")
@click.option("--include", multiple=True, help="Only URLs matching this regex (repeatable).")
@click.option("--exclude", multiple=True, help="Skip URLs matching this regex (repeatable).")
@click.option(
    "--query",
    type=click.Choice(["sort", "keep", "drop"]),
    default="sort",
    show_default=True,
    help="Query strings: sort (parameter order does not make another page; URLs are "
    "listed as the site spells them), keep (each order is its own page), or drop.",
)
@click.option("--images", is_flag=True, help="Add image:image entries for page images.")
@click.option(
    "--seed-from-sitemaps",
    is_flag=True,
    help="Also queue the URLs of the site's own sitemaps (from robots.txt).",
)
@click.option(
    "--render",
    type=click.Choice(["never", "auto", "always"]),
    default=None,
    help="Run pages' scripts in Chromium (needs sitemapkit[render]): auto renders "
    "application shells and the sections where scripts write links.  [default: auto; "
    "without sitemapkit[render] or Chromium the crawl goes on unrendered and says so]",
)
@click.option(
    "--render-timeout",
    type=click.FloatRange(min=0, min_open=True),
    default=DEFAULT_RENDER_TIMEOUT,
    show_default=True,
    help="Seconds before a page that never settles is cut (recorded as render-timeout).",
)
@click.option(
    "--render-concurrency",
    type=click.IntRange(min=1),
    default=DEFAULT_RENDER_CONCURRENCY,
    show_default=True,
    help="Pages rendered at once.",
)
@click.option(
    "--thumbnails",
    is_flag=True,
    help="Store a small picture of each indexable page's first screen for the map "
    "(renders pages --render did not; needs sitemapkit[render]).",
)
@click.option("--no-inventory", is_flag=True, help="Do not write OUTDIR/inventory.csv.")
@click.option("--no-map", is_flag=True, help="Do not draw OUTDIR/site-map.html.")
@click.option(
    "--allow-shrink",
    is_flag=True,
    help="Publish even when the crawl found under half the URLs of the set in OUTDIR.",
)
@click.option(
    "--fleet",
    is_flag=True,
    help="Let `sitemapkit worker --db` processes join this crawl (hosts leased, politeness "
    "for the whole fleet); the sitemap set is written when the last URL is done.",
)
@click.option(
    "--lease",
    type=click.FloatRange(min=1),
    default=LEASE_TTL,
    show_default=True,
    help="With --fleet: seconds a dead worker's hosts and URLs stay locked before the "
    "others take them over.",
)
@click.option("--why", "why_url", help="Explain one URL's (or /path's) fate in --db, then exit.")
@click.option(
    "--indexnow",
    "indexnow_key",
    metavar="KEY",
    help="After a finished run, submit what changed to IndexNow with this key.",
)
@click.option("--indexnow-key-location", help="Where the key file is served (with --indexnow).")
@click.option("--indexnow-endpoint", help="The IndexNow endpoint (with --indexnow).")
@click.pass_context
def crawl(
    ctx: click.Context,
    url: str | None,
    out_dir: Path | None,
    db: DbSpec | None,
    resume: bool,
    base_url: str | None,
    gzip: bool,
    max_pages: int | None,
    max_depth: int | None,
    max_duration: float | None,
    concurrency: int,
    workers: int | None,
    per_host: int,
    rate: float | None,
    user_agent: str | None,
    ignore_robots: bool,
    follow_nofollow: bool,
    subdomains: bool,
    allow_host: Sequence[str],
    include: Sequence[str],
    exclude: Sequence[str],
    query: str,
    images: bool,
    seed_from_sitemaps: bool,
    render: str | None,
    render_timeout: float,
    render_concurrency: int,
    thumbnails: bool,
    no_inventory: bool,
    no_map: bool,
    allow_shrink: bool,
    fleet: bool,
    lease: float,
    why_url: str | None,
    indexnow_key: str | None,
    indexnow_key_location: str | None,
    indexnow_endpoint: str | None,
) -> None:
    """Crawl URL politely and write its sitemap set into OUTDIR."""
    submission = _indexnow_settings(indexnow_key, indexnow_key_location, indexnow_endpoint)
    if why_url is not None:
        if db is None:
            raise click.UsageError("--why needs --db FILE (the crawl to ask)")
        ctx.exit(explain(db, why_url, sys.stdout))
    if out_dir is None:
        raise click.UsageError("missing -o/--out OUTDIR")
    explicit_db = db is not None
    if submission is not None and not explicit_db:
        # Without --db each crawl replaces OUTDIR's store, and the submission log with it.
        raise click.UsageError("--indexnow needs --db FILE: the submission log lives in it")
    db = db if db is not None else out_dir / DB_NAME
    render, render_optional = render_mode(render, thumbnails=thumbnails)
    if not resume:
        if url is None:
            raise click.UsageError("missing URL (the site to crawl)")
        config = CrawlConfig(
            start_url=url,
            subdomains=subdomains,
            allow_hosts=tuple(allow_host),
            include=tuple(include),
            exclude=tuple(exclude),
            max_depth=max_depth,
            max_pages=max_pages,
            max_duration=max_duration,
            concurrency=concurrency,
            workers=workers if workers is not None else default_workers(),
            per_host=per_host,
            rate=rate,
            respect_robots=not ignore_robots,
            follow_nofollow=follow_nofollow,
            query=query,
            images=images,
            seed_from_sitemaps=seed_from_sitemaps,
            render=render,
            render_optional=render_optional,
            render_timeout=render_timeout,
            render_concurrency=render_concurrency,
            thumbnails=thumbnails,
        )
        if user_agent:
            config.user_agent = user_agent
        _check(config)
    outputs = Outputs(base_url, gzip, not no_inventory, not no_map, allow_shrink)
    out_dir.mkdir(parents=True, exist_ok=True)
    if isinstance(db, Path) and db.parent != Path():
        db.parent.mkdir(parents=True, exist_ok=True)
    # Locked from here to the end; without --db an earlier crawl in OUTDIR is replaced, with
    # --db a finished crawl of the same site gets a new run (history kept).
    mode: OpenMode = "resume" if resume else "replace"
    if resume and not fleet:  # a fleet's crawl resumes as one, with its lease unless given
        stored = _fleet_lease(db)
        if stored is not None:
            fleet = True
            if ctx.get_parameter_source("lease") is ParameterSource.DEFAULT:
                lease = stored
    if explicit_db and not resume:
        mode = "open" if is_crawl_db(db) else "new"
    try:
        store = open_store(db, mode=mode, shared=fleet)
    except (StoreRefusedError, StoreWriteError):
        raise  # in use, newer, unreachable, unwritable: one line, exit 1 (cli.main)
    except StoreError as exc:
        raise click.UsageError(f"--resume: {exc}" if resume else str(exc)) from exc
    try:
        if resume:
            config = _resumed_config(store, db, url, max_pages, max_duration, workers)
        progress = Progress(sys.stderr)
        try:
            result = run_crawl(
                config, store, resume=resume, progress=progress, fleet=lease if fleet else None
            )
        except (KeyboardInterrupt, Terminated) as stop:
            how = "terminated" if isinstance(stop, Terminated) else "interrupted"
            resume_hint(f"{how}; the crawl is saved in {shown(db)}: continue it", db, out_dir)
            terminated = isinstance(stop, Terminated)
            ctx.exit(ExitStatus.TERMINATED if terminated else ExitStatus.INTERRUPTED)
        except StoreWriteError as exc:
            resume_hint(f"error: {exc}; nothing was published; once fixed, continue", db, out_dir)
            ctx.exit(ExitStatus.ERROR)
        except StoreError as exc:
            raise click.UsageError(str(exc)) from exc
        code = _publish(result, store, db, out_dir, config, outputs)
        if submission is not None and code == ExitStatus.OK:
            from sitemapkit.cli.indexnow import submit_store

            code = submit_store(store, submission)
    finally:
        store.close()
    ctx.exit(code)


def _indexnow_settings(
    key: str | None, key_location: str | None, endpoint: str | None
) -> Settings | None:
    """``--indexnow``'s settings, checked before anything is crawled (None: not asked).

    IndexNow's modules are imported only when asked: a crawl without ``--indexnow``
    does not load them (``tests/cli/test_imports.py``).
    """
    if key is None:
        if key_location is not None or endpoint is not None:
            raise click.UsageError(
                "--indexnow-key-location and --indexnow-endpoint need --indexnow"
            )
        return None
    from sitemapkit.cli.indexnow import check_settings
    from sitemapkit.indexnow.protocol import DEFAULT_ENDPOINT
    from sitemapkit.indexnow.submit import Settings

    settings = Settings(key=key, endpoint=endpoint or DEFAULT_ENDPOINT, key_location=key_location)
    check_settings(settings, "--indexnow")
    return settings


@dataclass(frozen=True, slots=True)
class Outputs:
    """What ``crawl`` publishes besides the sitemap set, and where the set is served."""

    base_url: str | None
    gzip: bool
    inventory: bool
    visual_map: bool
    allow_shrink: bool


def _publish(
    result: CrawlResult,
    store: CrawlStore,
    db: DbSpec,
    out_dir: Path,
    config: CrawlConfig,
    opts: Outputs,
) -> int:
    """Publish a crawl's outputs unless the start failed or the set would shrink by half."""
    if not result.start_ok:
        for line in summary_lines(result, None):
            click.echo(line)
        click.echo(
            f"sitemapkit: error: the start URL {shorten(result.start_url)} failed: "
            f"{result.start_problem}; nothing published in {out_dir}",
            err=True,
        )
        return ExitStatus.ERROR
    if not opts.allow_shrink:
        try:
            check_shrink(out_dir, result.counts.get("indexable", 0))
        except ShrinkError as exc:
            for line in summary_lines(result, None):
                click.echo(line)
            click.echo(f"sitemapkit: error: {exc}", err=True)
            return ExitStatus.ERROR
    try:
        done = publish_crawl(
            store,
            db,
            out_dir,
            base_url=opts.base_url or default_base_url(store),
            gzip=opts.gzip,
            images=config.images,
            other_hosts=bool(config.subdomains or config.allow_hosts),
            inventory=opts.inventory,
            visual_map=opts.visual_map,
        )
    except EmptySetError as exc:  # every page noindex, canonicalised elsewhere or failed
        for line in summary_lines(result, None):
            click.echo(line)
        click.echo(f"sitemapkit: error: {exc} ({empty_hint(db)})", err=True)
        return ExitStatus.ERROR
    for line in summary_lines(result, done.sitemap, done.page_notes):
        click.echo(line)
    for line in published_lines(done, db):
        click.echo(line)
    for note in done.notes:
        click.echo(f"note: {note}", err=True)
    return ExitStatus.OK
