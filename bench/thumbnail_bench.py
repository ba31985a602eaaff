"""Map size with thumbnails (issue 14: a 1,000-page map with thumbnails under 25 MB).

Serves a generated shop of ``--pages`` styled pages on 127.0.0.1 (a coloured
header, a grid of product cards with text, a same-site picture and a style
sheet, as real first screens have), crawls it with ``sitemapkit crawl
--thumbnails`` (no ``--render``: every indexable page is rendered for its
picture only) as a whole CLI process, and reports the map's size, the bytes a
thumbnail adds per page, the crawl's wall time and the peak RSS of its whole
process tree.  Nothing is asserted; the figures go to the README.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import shutil
import sqlite3
import sys

from aiohttp import web

import _common as c

STYLE = (
    "body{font:16px sans-serif;margin:0;color:#222}"
    "header{background:linear-gradient(90deg,#123e6b,#2f7fbf);color:#fff;padding:24px 32px}"
    "nav a{color:#dfefff;margin-right:12px}"
    "main{display:grid;grid-template-columns:repeat(3,1fr);gap:16px;padding:24px 32px}"
    ".card{border:1px solid #ccc;border-radius:6px;padding:12px;background:#f6f8fa}"
    ".card img{width:100%;height:120px;object-fit:cover}"
)
SVG = (
    "<svg xmlns='http://www.w3.org/2000/svg' width='400' height='240'>"
    "<rect width='400' height='240' fill='#e8b04a'/><circle cx='200' cy='120' r='80' "
    "fill='#fff3c4'/><rect x='40' y='190' width='320' height='20' fill='#7a4e12'/></svg>"
)


def page(n: int, pages: int) -> str:
    cards = "".join(
        f"<div class=card><img src=/img/lamp.svg alt=''><h2>Lamp {n}.{k}</h2>"
        f"<p>{'Warm light for reading, brass and oak. ' * 3}</p></div>"
        for k in range(6)
    )
    links = " ".join(
        f"<a href=/p/{m}>page {m}</a>" for m in range(4 * n + 1, 4 * n + 5) if m < pages
    )
    return (
        f"<!doctype html><html><head><meta charset=utf-8><title>Lamp shop page {n}</title>"
        f"<link rel=stylesheet href=/static/site.css></head><body><header><h1>Northwind "
        f"Lamps, page {n}</h1><nav><a href=/p/0>home</a> {links}</nav></header>"
        f"<main>{cards}</main></body></html>"
    )


def serve(pages: int, port: int) -> None:
    async def handle(request: web.Request) -> web.Response:
        if request.path == "/static/site.css":
            return web.Response(text=STYLE, content_type="text/css")
        if request.path == "/img/lamp.svg":
            return web.Response(text=SVG, content_type="image/svg+xml")
        if request.path == "/":
            raise web.HTTPFound("/p/0")
        m = re.fullmatch(r"/p/(\d+)", request.path)
        if m is None or int(m[1]) >= pages:
            raise web.HTTPNotFound()
        return web.Response(text=page(int(m[1]), pages), content_type="text/html")

    app = web.Application()
    app.router.add_get("/{tail:.*}", handle)
    web.run_app(app, host="127.0.0.1", port=port, print=None, access_log=None)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--pages", type=int, default=1000)
    ap.add_argument("--serve", type=int, help=argparse.SUPPRESS)  # the site's own process
    args = ap.parse_args()
    if args.serve:
        asyncio.set_event_loop(asyncio.new_event_loop())
        serve(args.pages, args.serve)
        return 0
    work = c.SCRATCH / "thumbnails"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    port = c.free_port()
    site = [sys.executable, __file__, "--pages", str(args.pages), "--serve", str(port)]
    with c.background(site, port, work / "site.log"):
        out = work / "out"
        cmd = [c.our_cli(), "crawl", f"http://127.0.0.1:{port}/", "-o", out, "--thumbnails"]
        m = c.run_measured("crawl --thumbnails", cmd, stderr=work / "err.txt", check=True)
    with sqlite3.connect(out / "crawl.sqlite") as db:
        n, total = db.execute("SELECT COUNT(*), SUM(LENGTH(image)) FROM thumbnails").fetchone()
    size = (out / "site-map.html").stat().st_size
    print(c.machine_note())
    print(
        c.table(
            [
                "pages",
                "thumbnails",
                "avg JPEG bytes",
                "map bytes",
                "map bytes/page",
                "crawl s",
                "peak MB",
            ],
            [
                [
                    args.pages,
                    n,
                    round(total / n),
                    size,
                    round(size / args.pages),
                    f"{m.wall_s:.1f}",
                    f"{m.peak_mb:.0f}",
                ]
            ],
            title="crawl --thumbnails of a generated shop",
        )
    )
    target = 25_000_000 * args.pages / 1000
    print(f"map {size / 1e6:.1f} MB for {args.pages:,} pages (target < {target / 1e6:.0f} MB): "
          f"{c.verdict(size < target)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
