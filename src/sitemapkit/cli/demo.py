"""``sitemapkit demo``: the README's main job, with nothing to set up.

Serves the bundled demo site (Northwind Lamps: a few dozen pages with the
usual pitfalls — robots rules, noindex, canonicals, redirects and loops,
a calendar trap, faceted filters, non-ASCII paths, a slow page) on
127.0.0.1, crawls it with the default, polite settings plus ``--images``, and
writes into ``--out``: the sitemap set, the crawl database and the inventory.
The result is checked against the demo's published expected results, so the
summary says plainly whether the crawl got every page right.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sitemapkit.cli.crawl import DB_NAME, Progress, Terminated, run_crawl, summary_lines
from sitemapkit.cli.crawl_output import publish_crawl, published_lines
from sitemapkit.cli.status import ExitStatus
from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.engine import CrawlResult
from sitemapkit.store import iter_page_records, open_store


def check_expected(base: str, db: Path, sitemap_urls: set[str]) -> list[str]:
    """Differences between this crawl and the demo's expected results (empty: all right)."""
    from sitemapkit.demo import expected

    problems: list[str] = []
    want = expected.sitemap_urls(base)
    problems.extend(f"missing from the sitemap: {u}" for u in sorted(want - sitemap_urls))
    problems.extend(f"wrongly in the sitemap: {u}" for u in sorted(sitemap_urls - want))
    reasons = {r.url: r.reason for r in iter_page_records(db)}
    for url, reason in sorted(expected.excluded(base).items()):
        if reasons.get(url) != reason:
            problems.append(f"{url}: expected {reason}, got {reasons.get(url)}")
    return problems


def _sitemap_locs(out_dir: Path) -> set[str]:
    from sitemapkit.read.reader import iter_entries

    return {entry.loc for entry in iter_entries(str(out_dir / "sitemap.xml"))}


@click.command("demo")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("out"),
    show_default=True,
    help="Folder for the sitemap, crawl database and inventory.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=0, help="Demo server port.")
@click.option(
    "--thumbnails/--no-thumbnails",
    default=None,
    help="Pictures of the pages on the map (default: when sitemapkit[render] and Chromium "
    "are installed).",
)
@click.pass_context
def demo(ctx: click.Context, out_dir: Path, port: int, thumbnails: bool | None) -> None:
    """Serve the bundled demo site on 127.0.0.1, crawl it, write its sitemap and inventory."""
    from sitemapkit.demo.server import serve_demo
    from sitemapkit.render.browser import check_available, unavailable

    if thumbnails:
        check_available()  # asked for: a missing piece is one line (cli.main), exit 1
    elif thumbnails is None:
        # the [render] extra is optional: the demo works without it, and says what it skips
        why_not = unavailable()
        thumbnails = why_not is None
        if why_not is not None:
            click.echo(f"note: no page thumbnails on the map: {why_not}", err=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    db = out_dir / DB_NAME
    with serve_demo("127.0.0.1", port) as base:
        click.echo(f"demo site served at {base}")
        config = CrawlConfig(base, images=True, thumbnails=thumbnails)
        store = open_store(db, mode="replace")  # locked: a second demo into --out stops
        try:
            result: CrawlResult = run_crawl(config, store, progress=Progress(sys.stderr))
            done = publish_crawl(
                store, db, out_dir, base_url=base, images=True, title="Northwind Lamps (demo)"
            )
        except (KeyboardInterrupt, Terminated) as stop:
            click.echo("sitemapkit: interrupted", err=True)
            terminated = isinstance(stop, Terminated)
            ctx.exit(ExitStatus.TERMINATED if terminated else ExitStatus.INTERRUPTED)
        finally:
            store.close()
        problems = check_expected(base, db, _sitemap_locs(out_dir))
        from sitemapkit.audit.showcase import audit_demo

        audited = audit_demo(base, db, out_dir)  # the planted sitemap faults, audit.html
    for line in summary_lines(result, done.sitemap, done.page_notes):
        click.echo(line)
    for line in published_lines(done, db):
        click.echo(line)
    for note in done.notes:
        click.echo(f"note: {note}", err=True)
    for line in audited.lines:
        click.echo(line)
    click.echo(f"wrote {audited.report}")
    problems.extend(audited.problems)
    if problems:
        click.echo(f"the crawl differs from the demo's expected result in {len(problems)} ways:")
        for problem in problems[:20]:
            click.echo(f"  {problem}")
        ctx.exit(ExitStatus.ERROR)
    click.echo(
        "checked against the demo's expected result: every URL, reason and audit finding matches"
    )
    ctx.exit(ExitStatus.OK if result.start_ok else ExitStatus.ERROR)
