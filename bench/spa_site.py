"""The rendering benchmark's websites, served on 127.0.0.1 by aiohttp in their own process.

``--kind spa``: a single-page application of ``--pages`` pages.  Every page is the
same shell (an empty ``<div id=root>``, a style sheet, a web font, a 150 KB hero
picture and an analytics script from another host name that answers after
200 ms, as real sites have); ``/static/app.js`` fetches ``/api/links/<path>`` and
builds the page's links: page *i* (``/`` is 0, else ``/p/<i>``) links home and to
pages 4i+1 .. 4i+4.  Nothing is reachable without running scripts.

``--kind mixed``: ``--pages`` pages in sections of 100 (``/s<k>/`` and its pages
``/s<k>/p<j>``), server-rendered, except one section in ten, whose index and
pages get their onward links from a script (the raw HTML links only home and
up).  Every page carries a small script, so a renderer cannot tell by that.

``/urls.txt`` lists every page URL (what a correct crawl must find).
"""

from __future__ import annotations

import argparse
import asyncio

from aiohttp import web

HERO = b"\xff\xd8\xff\xe0" + b"\x00" * 150_000
APP_JS = """
fetch('/api/links' + location.pathname).then(r => r.json()).then(links => {
  const root = document.getElementById('root');
  const nav = document.createElement('nav');
  for (const href of links) {
    const a = document.createElement('a'); a.href = href; a.textContent = href;
    nav.appendChild(a);
  }
  root.appendChild(nav);
});
"""
SHELL = (
    "<!doctype html><html><head><meta charset=utf-8><title>App</title>"
    "<link rel=stylesheet href=/static/site.css>"
    "<style>@font-face{{font-family:f;src:url(/static/f.woff2)}}body{{font-family:f}}</style>"
    "<script async src='http://localhost:{port}/analytics.js'></script></head>"
    "<body><img src=/static/hero.jpg alt=''><div id=root></div>"
    "<script src=/static/app.js></script></body></html>"
)
TRACK_JS = "<script>window.dataLayer = [['page', location.pathname]];</script>"
MORE_JS = (
    "<div id=more></div><script>fetch('/api/links' + location.pathname).then(r => r.json())"
    ".then(l => { document.getElementById('more').innerHTML = "
    "l.map(h => `<a href='${h}'>${h}</a>`).join(' '); });</script>"
)


def spa_path(i: int) -> str:
    return "/" if i == 0 else f"/p/{i}"


class Site:
    def __init__(self, kind: str, pages: int, port: int) -> None:
        self.kind, self.pages, self.port = kind, pages, port
        self.sections = max(1, (pages - 1) // 100)

    def urls(self) -> list[str]:
        if self.kind == "spa":
            return [spa_path(i) for i in range(self.pages)]
        out = ["/"]
        for k in range(self.sections):
            out.append(f"/s{k}/")
            out.extend(f"/s{k}/p{j}" for j in range(99))
        return out

    def js_section(self, k: int) -> bool:
        return k % 10 == 0

    # -- the single-page application ------------------------------------------------
    def spa_links(self, path: str) -> list[str] | None:
        i = 0 if path == "/" else int(path.rsplit("/", 1)[1]) if path.startswith("/p/") else -1
        if not 0 <= i < self.pages:
            return None
        return ["/", *(spa_path(c) for c in range(4 * i + 1, 4 * i + 5) if c < self.pages)]

    # -- the mixed site -------------------------------------------------------------
    def mixed_links(self, path: str) -> tuple[list[str], list[str]] | None:
        """(links in the raw HTML, links a script adds) of ``path``."""
        if path == "/":
            return [f"/s{k}/" for k in range(self.sections)], []
        parts = path.strip("/").split("/")
        if not parts[0].startswith("s") or not parts[0][1:].isdigit():
            return None
        k = int(parts[0][1:])
        if k >= self.sections:
            return None
        if len(parts) == 1:
            onward = [f"/s{k}/p{j}" for j in range(99)]
        elif parts[1].startswith("p") and parts[1][1:].isdigit() and int(parts[1][1:]) < 99:
            j = int(parts[1][1:])
            onward = [f"/s{k}/p{(j + 1) % 99}", f"/s{k}/p{(j + 7) % 99}"]
        else:
            return None
        up = ["/", f"/s{k}/"]
        return (up, onward) if self.js_section(k) else ([*up, *onward], [])

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        if path == "/urls.txt":
            base = f"http://127.0.0.1:{self.port}"
            return web.Response(text="".join(f"{base}{u}\n" for u in self.urls()))
        if path == "/robots.txt":
            return web.Response(text="User-agent: *\nDisallow: /private/\n")
        if path == "/static/app.js":
            return web.Response(text=APP_JS, content_type="application/javascript")
        if path == "/static/hero.jpg":
            return web.Response(body=HERO, content_type="image/jpeg")
        if path == "/static/site.css":
            return web.Response(text="body{margin:0}" * 200, content_type="text/css")
        if path == "/static/f.woff2":
            return web.Response(body=b"\0" * 40_000, content_type="font/woff2")
        if path == "/analytics.js":
            await asyncio.sleep(0.2)
            return web.Response(text="window.ga = 1;", content_type="application/javascript")
        if path.startswith("/api/links"):
            target = path[len("/api/links") :] or "/"
            if self.kind == "spa":
                found = self.spa_links(target)
                return web.json_response(found) if found is not None else web.json_response([])
            mixed = self.mixed_links(target)
            return web.json_response(mixed[1] if mixed else [])
        if self.kind == "spa":
            if self.spa_links(path) is None:
                raise web.HTTPNotFound()
            return web.Response(text=SHELL.format(port=self.port), content_type="text/html")
        mixed = self.mixed_links(path)
        if mixed is None:
            raise web.HTTPNotFound()
        raw, scripted = mixed
        links = " ".join(f"<a href='{h}'>{h}</a>" for h in raw)
        body = (
            f"<!doctype html><html><head><meta charset=utf-8><title>{path}</title></head><body>"
            f"<h1>{path}</h1><p>{'Some words on the page. ' * 12}</p><nav>{links}</nav>"
            f"{MORE_JS if scripted else ''}{TRACK_JS}</body></html>"
        )
        return web.Response(text=body, content_type="text/html")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--kind", choices=("spa", "mixed"), required=True)
    ap.add_argument("--pages", type=int, default=500)
    ap.add_argument("--port", type=int, required=True)
    args = ap.parse_args()
    site = Site(args.kind, args.pages, args.port)
    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", site.handle)
    web.run_app(app, host="127.0.0.1", port=args.port, print=None, access_log=None)


if __name__ == "__main__":
    main()
