"""``sitemapkit demo``: the README's main job, with nothing to set up.

Serves the bundled demo site (Northwind Lamps: a few dozen pages with the
usual pitfalls — robots rules, noindex, canonicals, redirects and loops,
a calendar trap, faceted filters, non-ASCII paths, a slow page) on
127.0.0.1, crawls it with the default, polite settings plus ``--images``, and
writes into ``--out``: the sitemap set, the crawl database and the inventory.
The result is checked against the demo's published expected results, so the
summary says plainly whether the crawl got every page right.

Rendering is the crawl's default (``--render auto``) here too, and optional: with
``sitemapkit[render]`` and Chromium installed the lamp finder (``/app/``, built by
scripts) is rendered and its pages are expected in the sitemap; without them the
crawl says what is missing in one line and the expected answer is the unrendered one.
Either way the answer is checked.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from sitemapkit.cli.crawl import DB_NAME, Progress, Terminated, run_crawl, summary_lines
from sitemapkit.cli.crawl_output import publish_crawl, published_lines
from sitemapkit.cli.status import ExitStatus
from sitemapkit.crawl.config import DEFAULT_RENDER, CrawlConfig
from sitemapkit.crawl.engine import CrawlResult
from sitemapkit.store import iter_page_records, open_store

#: Seconds before the demo's page that never settles (``/app/live.html``) is cut: the
#: crawl's default (15 s) would be most of the demo's time.
DEMO_RENDER_TIMEOUT = 8.0


def check_expected(
    base: str, db: Path, sitemap_urls: set[str], rendered: bool = False
) -> list[str]:
    """Differences between this crawl and the demo's expected results (empty: all right).

    ``rendered``: the crawl could render, so the lamp finder's pages are expected too,
    and its endless page cut; otherwise its shell is expected as ``render-unavailable``.
    """
    from sitemapkit.demo import expected

    problems: list[str] = []
    want = expected.sitemap_urls(base, rendered)
    problems.extend(f"missing from the sitemap: {u}" for u in sorted(want - sitemap_urls))
    problems.extend(f"wrongly in the sitemap: {u}" for u in sorted(sitemap_urls - want))
    records = {r.url: r for r in iter_page_records(db)}
    for url, reason in sorted(expected.excluded(base, rendered).items()):
        got = records[url].reason if url in records else None
        if got != reason:
            problems.append(f"{url}: expected {reason}, got {got}")
    statuses = (
        dict.fromkeys(expected.RENDER_TIMEOUT_PATHS, "render-timeout")
        if rendered
        else {"/app/": "render-unavailable"}
    )
    for path, status in sorted(statuses.items()):
        url = expected.absolute(base, path)
        got = records[url].extra.get("render") if url in records else None
        if got != status:
            problems.append(f"{url}: expected render status {status}, got {got}")
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
        config = CrawlConfig(
            base,
            images=True,
            thumbnails=thumbnails,
            render=DEFAULT_RENDER,
            render_optional=True,
            render_timeout=DEMO_RENDER_TIMEOUT,
        )
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
        rendered = result.render_missing is None
        problems = check_expected(base, db, _sitemap_locs(out_dir), rendered)
        from sitemapkit.audit.showcase import audit_demo

        audited = audit_demo(base, db, out_dir, rendered)  # the planted faults, audit.html
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
