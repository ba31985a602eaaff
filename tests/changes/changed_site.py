"""A 40-page site on 127.0.0.1 that changes between two crawls (issue 12's quality test).

Between the runs, 10% of the pages change their text, 10% change only boilerplate (a
footer stamp, a CSRF token, an asset hash), some pages are removed (404 and no longer
linked), some added, one turns ``noindex`` and one changes its title.  The home page
links to every page, so losing and gaining links is a real change of its content.
"""

from __future__ import annotations

from pathlib import Path

from crawl.changing_site import ChangingSite
from sitemapkit.cli import main

PAGES = 40
TEXT = {f"/p{i}" for i in (3, 11, 19, 27)}  # 10% change their text
BOILER = {f"/p{i}" for i in (5, 13, 21, 29)}  # 10% change only boilerplate
REMOVED = {f"/p{i}" for i in (7, 15, 33)}  # 404 and unlinked
ADDED = {"/new-1", "/new-2", "/new-3"}
NOINDEX = "/p9"
RETITLED = "/p37"
NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def body(
    name: str,
    *,
    text: str = "",
    title: str = "",
    robots: str = "",
    stamp: str = "",
    build: str = "",
) -> str:
    meta = f'<meta name="robots" content="{robots}">' if robots else ""
    return (
        f"<!doctype html><html><head><title>{title or 'Page ' + name}</title>{meta}"
        f'<meta name="csrf-token" content="tok-{build or "a1"}">'
        f'<script src="/app.{build or "a1"}.js"></script></head>'
        f'<body><p>Text of {name}. {text}</p><a href="/">home</a>'
        f'<input type="hidden" name="csrf" value="tok-{build or "a1"}">'
        f"<footer>Generated at {stamp or '2024-01-01T00:00:00Z'}</footer></body></html>"
    )


def home(paths: list[str]) -> str:
    links = "".join(f'<a href="{p}">{p}</a> ' for p in paths)
    return f"<!doctype html><html><head><title>Home</title></head><body>{links}</body></html>"


def change(site: ChangingSite) -> None:
    for path in TEXT:
        site.pages[path] = body(path, text="Now with news.")
    for path in BOILER:
        site.pages[path] = body(path, stamp="2024-09-09T09:09:09Z", build="b2")
    for path in REMOVED:
        del site.pages[path]
    for path in ADDED:
        site.pages[path] = body(path)
    site.pages[NOINDEX] = body(NOINDEX, robots="noindex")
    site.pages[RETITLED] = body(RETITLED, title="A better title")
    linked = [p for p in site.pages if p != "/"]
    site.pages["/"] = home(linked)


def crawl(site: ChangingSite, db: Path, out: Path) -> None:
    """A re-crawl as a user runs it, ``--render never``: each page here (a script, one link,
    a line of text) looks like an application shell to ``auto``, and these tests are about
    changes, not rendering."""
    args = ["crawl", site.base + "/", "--db", str(db), "-o", str(out), "--no-map"]
    assert main([*args, "--render", "never"]) == 0


def expected() -> dict[str, set[str]]:
    """Each kind of change and the paths that have it."""
    return {
        "added": ADDED,
        "removed": REMOVED,
        "indexability": {NOINDEX},
        "title": {RETITLED},
        # the text group, the noindex page (robots directives count), the new title,
        # and the home page, whose links changed
        "content": TEXT | {NOINDEX, RETITLED, "/"},
    }
