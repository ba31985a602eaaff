"""The floor: the least a Python crawler can do per page (bench only, not a product).

``python floor_crawl.py START_URL OUT.txt [--text]``: one keep-alive HTTP/1.1
connection (``http.client``), robots.txt read once (``urllib.robotparser``), every
``a[href]`` of each HTML page parsed with selectolax's Lexbor (sitemapkit's own parser),
joined with ``urljoin``, the fragment dropped, kept when under the start's folder and
unseen. No URL normalisation, no canonical/noindex/redirect judgement, no store, no
resume, no politeness beyond one connection, no sitemap: every page found is written to
OUT.txt. ``--text`` also collapses each page's visible text, as a content fingerprint
needs.  What it costs is what any Python crawler on this parser pays before doing
anything a sitemap tool must do.
"""

from __future__ import annotations

import http.client
import sys
import urllib.robotparser
from urllib.parse import urldefrag, urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser


def main() -> int:
    start, out = sys.argv[1], sys.argv[2]
    text = "--text" in sys.argv[3:]
    parts = urlsplit(start)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port or 80, timeout=30)
    origin = f"{parts.scheme}://{parts.netloc}"

    def get(path: str) -> tuple[int, str, bytes]:
        conn.request("GET", path, headers={"User-Agent": "floor"})
        response = conn.getresponse()
        return response.status, response.getheader("content-type") or "", response.read()

    robots = urllib.robotparser.RobotFileParser()
    status, _, body = get("/robots.txt")
    robots.parse(body.decode("utf-8", "replace").splitlines() if status == 200 else [])
    folder = start.rsplit("/", 1)[0] + "/"
    seen, todo, pages = {start}, [start], []
    while todo:
        url = todo.pop()
        if not robots.can_fetch("floor", url):
            continue
        path = url[len(origin) :] or "/"
        status, content_type, body = get(path)
        if status != 200 or "html" not in content_type:
            continue
        pages.append(url)
        tree = LexborHTMLParser(body)
        for node in tree.css("a[href]"):
            link = urldefrag(urljoin(url, node.attributes["href"] or ""))[0]
            if link.startswith(folder) and link not in seen:
                seen.add(link)
                todo.append(link)
        if text and tree.body is not None:
            " ".join(tree.body.text(separator=" ").split()).encode()
    with open(out, "w", encoding="utf-8") as fh:
        fh.writelines(page + "\n" for page in pages)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
