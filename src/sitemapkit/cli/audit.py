"""``sitemapkit audit URL``: does the sitemap a site publishes tell the truth about it?

One command, one pass: crawl the site (with the ``crawl`` options that shape a crawl,
:data:`CRAWL_OPTIONS`: limits, politeness, scope, ``--render`` and ``--workers``), find and
validate its sitemaps, fetch the listed URLs the crawl did not reach, and
report each finding with a stable code and its evidence.  ``--db`` of an
earlier crawl audits offline against it; with ``--sitemap FILE`` too, no
network is used at all.

Exit 0 when nothing at or above ``--fail-on`` was found, 1 otherwise, 2 on
usage errors or when the site cannot be reached at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from sitemapkit.cli.dbspec import DB_SPEC, DbSpec, shown
from sitemapkit.cli.status import ExitStatus

#: Report forms and the file each is written to under ``-o DIR``.
FORMATS: dict[str, str] = {
    "text": "audit.txt",
    "json": "audit.json",
    "csv": "audit.csv",
    "sarif": "audit.sarif",
    "junit": "audit-junit.xml",
    "html": "audit.html",
}
#: ``crawl`` options the audit takes as they are (same names, same help).
CRAWL_OPTIONS = (
    "max_pages",
    "max_depth",
    "max_duration",
    "concurrency",
    "per_host",
    "rate",
    "user_agent",
    "ignore_robots",
    "follow_nofollow",
    "subdomains",
    "allow_host",
    "include",
    "exclude",
    "query",
    "render",
    "render_timeout",
    "render_concurrency",
    "workers",
)
FAIL_LEVELS = {"error": {"error"}, "warning": {"error", "warning"}, "never": set()}


def _writers(fail_on: str) -> dict[str, Callable[[Any, Any, Any], None]]:
    from sitemapkit.audit import machine, page, report

    def junit(result: Any, store: Any, out: Any) -> None:
        machine.write_junit(result, store, out, frozenset(FAIL_LEVELS[fail_on]))

    return {
        "text": report.write_text,
        "json": report.write_json,
        "csv": machine.write_csv,
        "sarif": machine.write_sarif,
        "junit": junit,
        "html": page.write_html,
    }


def crawl_config(url: str, knobs: dict[str, Any], render: tuple[str, bool]) -> Any:
    """The :class:`CrawlConfig` of the audit's crawl, from the ``crawl`` options.

    ``render`` is ``--render`` resolved by :func:`sitemapkit.cli.crawl.render_mode` (the
    mode, and whether it is optional), as ``crawl`` resolves it: the audit of a site
    built by scripts sees what the crawl of it sees.
    """
    from sitemapkit.crawl.config import CrawlConfig
    from sitemapkit.crawl.parsepool import default_workers
    from sitemapkit.errors import InputError

    mode, optional = render
    workers = knobs["workers"]
    config = CrawlConfig(
        start_url=url,
        subdomains=knobs["subdomains"],
        allow_hosts=tuple(knobs["allow_host"]),
        include=tuple(knobs["include"]),
        exclude=tuple(knobs["exclude"]),
        max_depth=knobs["max_depth"],
        max_pages=knobs["max_pages"],
        max_duration=knobs["max_duration"],
        concurrency=knobs["concurrency"],
        per_host=knobs["per_host"],
        rate=knobs["rate"],
        respect_robots=not knobs["ignore_robots"],
        follow_nofollow=knobs["follow_nofollow"],
        query=knobs["query"],
        render=mode,
        render_optional=optional,
        render_timeout=knobs["render_timeout"],
        render_concurrency=knobs["render_concurrency"],
        workers=workers if workers is not None else default_workers(),
    )
    if knobs["user_agent"]:
        config.user_agent = knobs["user_agent"]
    try:
        return config.validate()
    except InputError as exc:
        raise click.UsageError(str(exc)) from exc


@contextlib.contextmanager
def _store_path(db: DbSpec | None, out_dir: Path | None) -> Iterator[DbSpec]:
    if db is not None:
        yield db
    elif out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        path = out_dir / "crawl.sqlite"
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        yield path
    else:
        with tempfile.TemporaryDirectory(prefix="sitemapkit-audit-") as tmp:
            yield Path(tmp) / "crawl.sqlite"


def _plan(
    url: str | None,
    sitemaps: Sequence[str],
    db: DbSpec,
    now: str | None,
    knobs: dict[str, Any],
    render: tuple[str, bool] | None,
) -> tuple[Any, bool]:
    """The audit plan, and whether it may use the network."""
    from sitemapkit.audit.run import AuditPlan
    from sitemapkit.cli.validate import _parse_now
    from sitemapkit.read.walk import is_url
    from sitemapkit.store import is_crawl_db, store_exists

    for source in sitemaps:
        if not is_url(source) and not Path(source).is_file():
            raise click.UsageError(f"--sitemap {source}: no such file (give a file or a URL)")
    moment = _parse_now(now)
    if store_exists(db):
        if not is_crawl_db(db):
            raise click.UsageError(f"--db {shown(db)}: not a sitemapkit crawl database")
        offline_only = bool(sitemaps) and not any(is_url(s) for s in sitemaps)
        plan = AuditPlan(db=db, site=url, sitemaps=tuple(sitemaps), now=moment)
        return plan, not offline_only
    if url is None:
        raise click.UsageError("missing URL (the site to audit), or --db of an earlier crawl")
    assert render is not None  # resolved by audit() for every audit that crawls
    config = crawl_config(url, knobs, render)
    return AuditPlan(db=db, site=url, sitemaps=tuple(sitemaps), crawl=config, now=moment), True


def _emit(result: Any, fmt: str | None, out_dir: Path | None, fail_on: str) -> None:
    from sitemapkit.fileio import atomic_open
    from sitemapkit.store import open_audit_store

    writers = _writers(fail_on)
    store = open_audit_store(result.db, mode="read")
    try:
        if out_dir is None:
            writers[fmt or "text"](result, store, sys.stdout)
            return
        writers["text"](result, store, sys.stdout)
        out_dir.mkdir(parents=True, exist_ok=True)
        chosen = [fmt] if fmt is not None else [f for f in FORMATS if f != "text"]
        for name in chosen:
            target = out_dir / FORMATS[name]
            with atomic_open(target, "w", what="the audit report") as fh:
                writers[name](result, store, fh)
            click.echo(f"wrote {target}")
    finally:
        store.close()


@click.command("audit")
@click.argument("url", required=False)
@click.option(
    "-o",
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder for the reports (audit.json, .csv, .sarif, -junit.xml, .html).",
)
@click.option(
    "--sitemap",
    "sitemaps",
    multiple=True,
    help="A sitemap URL or file to audit (repeatable; default: the site's own).",
)
@click.option(
    "--db",
    type=DB_SPEC,
    help="An earlier crawl to audit against offline (or where to keep this audit's crawl): "
    "a file or postgresql://...",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(list(FORMATS)),
    default=None,
    help="Report form (stdout, or the one file written under -o).",
)
@click.option(
    "--fail-on",
    type=click.Choice(list(FAIL_LEVELS)),
    default="error",
    show_default=True,
    help="Exit 1 when a finding at or above this severity is found.",
)
@click.option("--now", "now", default=None, help="The moment dates are judged against (ISO 8601).")
@click.pass_context
def audit(
    ctx: click.Context,
    /,
    url: str | None,
    out_dir: Path | None,
    sitemaps: tuple[str, ...],
    db: DbSpec | None,
    fmt: str | None,
    fail_on: str,
    now: str | None,
    **knobs: Any,
) -> None:
    """Audit URL against its own sitemaps: every listed URL's fate, every finding coded."""
    from sitemapkit.audit.run import run_audit
    from sitemapkit.cli.crawl import Progress, render_mode
    from sitemapkit.errors import StoreError
    from sitemapkit.render.report import render_lines
    from sitemapkit.store import store_exists

    if db is None and url is None:
        raise click.UsageError("missing URL (the site to audit), or --db of an earlier crawl")
    # Resolved before -o is touched, as crawl does: an asked-for browser that is missing is
    # one line and the folder's earlier crawl stays.  An offline audit renders nothing.
    crawls = db is None or not store_exists(db)
    render = render_mode(knobs["render"]) if crawls else None
    with _store_path(db, out_dir) as path:
        plan, network = _plan(url, sitemaps, path, now, knobs, render)
        progress = Progress(sys.stderr)
        plan.progress = progress if progress.enabled else None
        try:
            result = asyncio.run(run_audit(plan, network=network))
        except StoreError as exc:
            raise click.UsageError(str(exc)) from exc
        finally:
            progress.done()
        if result.unreachable is not None:
            click.echo(f"sitemapkit: error: {result.unreachable}", err=True)
            ctx.exit(ExitStatus.USAGE)
        for line in render_lines(result.rendered, result.render_missing):
            click.echo(f"note: {line}", err=True)  # stderr: stdout may be a machine form
        _emit(result, fmt, out_dir, fail_on)
    failed = bool(result.worst() & FAIL_LEVELS[fail_on])
    ctx.exit(ExitStatus.ERROR if failed else ExitStatus.OK)


def _borrow_crawl_options() -> None:
    """Take the ``crawl`` command's own option objects: one definition, same help."""
    from sitemapkit.cli.crawl import crawl

    audit.params.extend(p for p in crawl.params if p.name in CRAWL_OPTIONS)


_borrow_crawl_options()
