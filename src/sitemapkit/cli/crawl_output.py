"""What a finished crawl publishes, for ``crawl`` and ``demo`` alike: one path, not two.

A crawl's answer is three files beside its database: the sitemap set, the
inventory (every URL with its fate) and the visual map (``site-map.html``).
They are written here from the stored crawl, so ``sitemapkit crawl`` and
``sitemapkit demo`` print and publish exactly the same things.

Two guards stand before the sitemap is replaced, because a nightly job that
publishes during an outage must not wipe a good sitemap:

* a crawl whose start URL failed publishes nothing (the caller checks
  :attr:`CrawlResult.start_ok` first);
* a crawl that would publish fewer than half the URLs of the set already in the
  folder stops before publishing (:class:`ShrinkError`) unless allowed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from shlex import quote
from typing import TYPE_CHECKING

from sitemapkit.errors import SitemapkitError
from sitemapkit.fileio import atomic_open
from sitemapkit.store.spec import shown
from sitemapkit.write.writer import SitemapSetWriter, WriteResult, WriterOptions

if TYPE_CHECKING:
    from sitemapkit.cli.dbspec import DbSpec
    from sitemapkit.rulebook import Problem
    from sitemapkit.store.base import CrawlStore
    from sitemapkit.visual.tree import SiteTree

INVENTORY_NAME = "inventory.csv"
MAP_NAME = "site-map.html"
#: A new set with fewer URLs than this share of the published one needs ``--allow-shrink``.
SHRINK_RATIO = 0.5


class ShrinkError(SitemapkitError):
    """The crawl found far fewer pages than the published sitemap lists: not published."""


@dataclass(slots=True)
class Published:
    """What :func:`publish_crawl` wrote."""

    sitemap: WriteResult
    inventory: Path | None = None
    inventory_rows: int = 0
    visual_map: Path | None = None
    notes: list[str] = field(default_factory=list)
    #: Pages with notes (``links-capped``, annotations left out), per code, with an example.
    page_notes: dict[str, tuple[int, str]] = field(default_factory=dict)


def published_urls(out_dir: Path) -> tuple[Path, int] | None:
    """The sitemap set already in ``out_dir`` (its root) and how many URLs it lists.

    Read with the package's own reader; an index's parts are read from their
    local copies beside it.  ``None`` when there is no set, or it cannot be read
    (then there is nothing to protect).
    """
    for name in ("sitemap.xml", "sitemap.xml.gz"):
        root = out_dir / name
        if root.is_file():
            from sitemapkit.read.reader import iter_locs  # only when there is a set to read

            try:
                return root, sum(len(batch) for batch in iter_locs(str(root)))
            except (SitemapkitError, OSError):
                return None
    return None


def check_shrink(out_dir: Path, new_urls: int) -> None:
    """Raise :class:`ShrinkError` when ``new_urls`` is under half of the published set."""
    found = published_urls(out_dir)
    if found is None:
        return
    root, old = found
    if old and new_urls < old * SHRINK_RATIO:
        raise ShrinkError(
            f"this crawl found {new_urls:,} pages, under half of the {old:,} URLs in {root}: "
            "nothing published (the site may be partly down); --allow-shrink publishes it anyway"
        )


class _NotingWriter(SitemapSetWriter):
    """The set writer, keeping each page's left-out annotations for the store."""

    def __init__(self, out_dir: Path, options: WriterOptions) -> None:
        super().__init__(out_dir, options)
        #: ``(url, code, message)`` of every annotation left out of a written page.
        self.left: list[tuple[str, str, str]] = []

    def left_out(self, uri: str, problems: list[Problem], origin: str | None = None) -> None:
        super().left_out(uri, problems, origin)
        self.left.extend((uri, rule, message) for rule, message in problems)


def write_sitemap_set(
    store: CrawlStore,
    out_dir: Path,
    *,
    base_url: str | None,
    gzip: bool,
    images: bool,
    other_hosts: bool,
) -> WriteResult:
    """Write the crawl's sitemap set into ``out_dir`` (published atomically by the writer).

    Every indexable page is listed: the writer runs with ``skip_invalid``, so a
    page whose annotations break a rule (hreflang alternates that leave the page
    out, or that another page does not return) is written without them.  What
    was left out of which page is recorded on that page in the store, so
    ``--why``, the inventory and the summary show it.
    """
    from sitemapkit.crawl.engine import sitemap_entries
    from sitemapkit.crawl.stamp import build_stamp

    options = WriterOptions(
        base_url=base_url, gzip=gzip, allow_other_hosts=other_hosts, skip_invalid=True
    )
    stamp = build_stamp(store)
    writer = _NotingWriter(out_dir, options)
    with writer:
        omit = stamp.values if stamp is not None else ()
        writer.add_all(sitemap_entries(store, images=images, omit_lastmod=omit))
        result = writer.commit()
    if stamp is not None:
        result.warnings.append(stamp.note())
    store.add_notes(writer.left)
    store.commit()
    return result


def draw_visual_map(db: DbSpec, out_dir: Path, *, title: str | None = None) -> Path:
    """Draw ``out_dir/site-map.html`` from the crawl in ``db``.

    The map is drawn from the stored crawl, not from the engine's memory, so
    it shows exactly what ``sitemapkit visualize crawl.sqlite`` would.
    """
    from sitemapkit.visual.sources import crawl_tree

    return _write_map(crawl_tree(str(db)), out_dir, title)


def _write_map(tree: SiteTree, out_dir: Path, title: str | None) -> Path:
    from sitemapkit.visual.page import write_visual_map

    return write_visual_map(tree, out_dir / MAP_NAME, title=title, source_kind="crawl")


def publish_crawl(
    store: CrawlStore,
    db: DbSpec,
    out_dir: Path,
    *,
    base_url: str | None,
    gzip: bool = False,
    images: bool = False,
    other_hosts: bool = False,
    inventory: bool = True,
    visual_map: bool = True,
    title: str | None = None,
) -> Published:
    """Write the sitemap set from ``store``, then the inventory and the visual map.

    The inventory and the map are read from ``db`` (the same crawl, committed),
    exactly as ``sitemapkit inventory`` and ``sitemapkit visualize`` read it, in
    one pass that feeds both (reading the records was a third of their cost).
    """
    written = write_sitemap_set(
        store, out_dir, base_url=base_url, gzip=gzip, images=images, other_hosts=other_hosts
    )
    done = Published(written, notes=list(written.warnings), page_notes=store.note_counts())
    if not inventory:
        if visual_map:
            done.visual_map = draw_visual_map(db, out_dir, title=title)
        return done
    from sitemapkit.cli.inventory import InventoryWriter
    from sitemapkit.store import iter_page_records
    from sitemapkit.visual.sources import crawl_tree

    done.inventory = out_dir / INVENTORY_NAME
    records = iter_page_records(db)
    tree = None
    with atomic_open(done.inventory, "w", what="the inventory") as fh:
        rows = InventoryWriter(fh, "csv")
        if visual_map:  # the map's tree is built from the rows as they are written
            tree = crawl_tree(str(db), rows.passing(records))
        else:
            for record in records:
                rows.write(record)
            rows.flush()
    done.inventory_rows = rows.rows
    if tree is not None:
        done.visual_map = _write_map(tree, out_dir, title)
    return done


def empty_hint(db: DbSpec) -> str:
    """Where to look when a crawl has no page to list (:class:`EmptySetError`)."""
    command = f"sitemapkit inventory {quote(shown(db))}"
    return f"no crawled page is indexable: {command} shows each page's fate"


def published_lines(done: Published, db: DbSpec) -> list[str]:
    """The lines that tell the user where everything went."""
    result = done.sitemap
    files = ", ".join(str(f) for f in result.files)
    plural = "" if result.urls == 1 else "s"
    lines = [f"sitemap:    {files} ({result.urls:,} URL{plural})"]
    if done.inventory is not None:
        lines.append(f"inventory:  {done.inventory} ({done.inventory_rows:,} URLs with their fate)")
    if done.visual_map is not None:
        lines.append(f"visual map: {done.visual_map}")
    lines.append(
        f"crawl db:   {shown(db)} (try: sitemapkit crawl --db {quote(shown(db))} --why URL)"
    )
    if result.robots_line:
        lines.append(f"robots.txt line: {result.robots_line}")
    return lines
