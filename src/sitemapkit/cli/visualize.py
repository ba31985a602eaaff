"""``sitemapkit visualize SOURCE -o site-map.html``: the interactive visual sitemap.

SOURCE is a crawl database, a sitemap file/URL/index, or a URL list (see
:mod:`sitemapkit.visual.sources`).  Exit 0 when the map was written, 1 when it
was written but input lines were skipped (or there was nothing to draw), 2
when SOURCE cannot be read or an option is wrong.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from sitemapkit.cli.status import ExitStatus
from sitemapkit.errors import FetchError, InputError, PublishError, SitemapkitError, StoreError
from sitemapkit.visual.page import COLORS, LAYOUTS, VIEWS, hosts_text, publish_visual_map
from sitemapkit.visual.sources import MAX_REPORTED, SourceReport, read_tree
from sitemapkit.visual.tree import DEFAULT_MAX_CHILDREN, SiteTree, paused_gc


def _size(n: int) -> str:
    return f"{n / 1_048_576:.1f} MB" if n >= 1_048_576 else f"{max(1, round(n / 1024))} KB"


@click.command("visualize")
@click.argument("source")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("site-map.html"),
    show_default=True,
    help='The HTML file to write (one self-contained page); "-" writes to stdout.',
)
@click.option("--title", help="Page title (default: 'Site map of HOST').")
@click.option(
    "--view",
    type=click.Choice(VIEWS),
    default="path",
    show_default=True,
    help="Tree shown first: by URL path, or by crawl depth (crawls only).",
)
@click.option("--layout", type=click.Choice(LAYOUTS), default="horizontal", show_default=True)
@click.option(
    "--color",
    "color",
    type=click.Choice(COLORS),
    default="section",
    show_default=True,
    help="What node colours mean at first.",
)
@click.option(
    "--max-children",
    type=click.IntRange(min=1, max=100_000),
    default=DEFAULT_MAX_CHILDREN,
    show_default=True,
    help='Children shown per node before the rest fold into "+N more".',
)
@click.option(
    "--diff",
    "diff_runs",
    is_flag=False,
    flag_value="last",
    default=None,
    metavar="[RUN_A[..RUN_B]]",
    help="Colour a crawl store's pages by change since RUN_A (default: the run before "
    "the last): new, gone, changed, same. RUN_B, if given, must be the last run.",
)
@click.pass_context
def visualize(
    ctx: click.Context,
    source: str,
    output: Path,
    title: str | None,
    view: str,
    layout: str,
    color: str,
    max_children: int,
    diff_runs: str | None,
) -> int:
    """Draw an interactive visual sitemap of SOURCE as one HTML file.

    SOURCE is a crawl database (from `sitemapkit crawl`), a sitemap or sitemap
    index (file, .gz or URL), or a text file with one URL a line ("-" = stdin).
    """
    # ~10 small objects per page and no garbage cycles that matter: the cyclic
    # collector would only rescan them (about a tenth of a 100,000-page run).
    # The tree is freed by reference counting when _run returns, before the
    # collector is back on, so it never scans it.
    tree: SiteTree | None = None
    if diff_runs is not None:
        tree = _diff_tree(source, diff_runs)
        if tree is None:
            ctx.exit(ExitStatus.USAGE)
        if color == "section":  # the point of --diff, unless another colour was asked for
            color = "change"
    with paused_gc():
        code = _run(ctx, source, output, title, view, layout, color, max_children, tree)
    ctx.exit(code)


def _diff_runs(spec: str) -> tuple[int | None, int | None]:
    """``last`` (the flag alone), ``A`` or ``A..B`` as run numbers."""
    if spec == "last":
        return None, None
    first, dots, second = spec.partition("..")
    if not first.isdigit() or (dots and not second.isdigit()):
        raise click.UsageError(f"--diff {spec!r}: give RUN_A or RUN_A..RUN_B (run numbers)")
    return int(first), int(second) if dots else None


def _diff_tree(source: str, spec: str) -> SiteTree | None:
    """The store's last run coloured by change (``None`` after saying why not)."""
    from sitemapkit.changes.mapped import diff_records

    try:
        run_a, run_b = _diff_runs(spec)
        before, after, records = diff_records(source, run_a, run_b)
        with paused_gc():
            tree = SiteTree.from_records(records)
    except click.UsageError as exc:
        click.echo(f"sitemapkit: error: {exc.format_message()}", err=True)
        return None
    except (InputError, StoreError) as exc:
        click.echo(f"sitemapkit: error: {exc}", err=True)
        return None
    click.echo(f"changes from run {before.run.id} to run {after.run.id}", err=True)
    return tree


def _run(
    ctx: click.Context,
    source: str,
    output: Path,
    title: str | None,
    view: str,
    layout: str,
    color: str,
    max_children: int,
    tree: SiteTree | None = None,
) -> int:
    started = time.perf_counter()
    report = SourceReport(kind="crawl" if tree is not None else "")
    try:
        result = publish_visual_map(
            read_tree(source, report) if tree is None else tree,
            output,
            title=title,
            source_kind=report.kind,
            max_children=max_children,
            view=view,
            layout=layout,
            color=color,
            refuse_empty=True,
        )
    except PublishError as exc:
        click.echo(f"sitemapkit: error: {exc}", err=True)
        return ExitStatus.ERROR
    except (InputError, FetchError, OSError) as exc:
        click.echo(f"sitemapkit: error: {exc}", err=True)
        return ExitStatus.USAGE
    except SitemapkitError as exc:
        if ctx.find_root().obj and ctx.find_root().obj.get("traceback"):
            raise
        click.echo(f"sitemapkit: error: {source}: {exc}", err=True)
        return ExitStatus.USAGE
    for message in report.messages:
        click.echo(f"sitemapkit: {message}", err=True)
    if report.bad_lines > len(report.messages):
        click.echo(
            f"sitemapkit: ... and {report.bad_lines - len(report.messages):,} more bad lines",
            err=True,
        )
    problems = report.errors()
    for finding in problems[:MAX_REPORTED]:
        click.echo(f"sitemapkit: {finding.render()}", err=True)
    if result is None:
        click.echo(f"sitemapkit: error: {source}: no URLs to draw; nothing written", err=True)
        # nothing readable at all is "unreadable input"; an empty list is a finding
        return ExitStatus.USAGE if problems else ExitStatus.ERROR
    path, tree, size = result
    if view == "depth" and not tree.has_depth_tree:
        click.echo(
            f"sitemapkit: note: {source} has no crawl depths; the map opens by URL path",
            err=True,
        )
    plural = "s" if report.bad_lines != 1 else ""
    skipped = f", {report.bad_lines:,} bad line{plural} skipped" if report.bad_lines else ""
    dplural = "s" if tree.duplicates != 1 else ""
    dupes = f", {tree.duplicates:,} duplicate{dplural} merged" if tree.duplicates else ""
    where = "<stdout>" if str(path) == "-" else str(path)
    click.echo(
        f"wrote {where}: {tree.page_total:,} page{'s' if tree.page_total != 1 else ''}, "
        f"{hosts_text(tree)}, "
        f"{_size(size)}, from a {report.kind}{skipped}{dupes} "
        f"in {time.perf_counter() - started:.1f} s",
        err=str(path) == "-",  # the page itself is on stdout
    )
    return ExitStatus.ERROR if report.bad_lines or problems else ExitStatus.OK
