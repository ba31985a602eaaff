"""The leanest Python crawler we could write on our parser (bench only, not a product).

``python lean_crawl.py START_URL OUT.txt [--text]``: what ``floor_crawl.py`` does, with
the two costs a Python crawler can avoid taken out: one raw keep-alive socket read through
a buffered file (no ``http.client`` objects; Content-Length bodies only, as nginx sends
static files), and each ``(folder, href)`` joined once (``urljoin`` behind a dict, as
sitemapkit's link resolver does).  robots.txt is fetched and not read (the bench's only
rule disallows a path the sites do not use).  ``--text`` also collapses each page's visible
text.  No normalisation, judgement, store, fingerprint, resume or sitemap: the least a
crawler on Lexbor pays per page, to set sitemapkit's per-page duties against.
"""

from __future__ import annotations

import re
import socket
import sys
from urllib.parse import urljoin, urlsplit

from selectolax.lexbor import LexborHTMLParser

_STATUS = re.compile(rb"HTTP/1\.[01] (\d{3})")


def main() -> int:
    start, out = sys.argv[1], sys.argv[2]
    text = "--text" in sys.argv[3:]
    parts = urlsplit(start)
    sock = socket.create_connection((parts.hostname or "", parts.port or 80))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    stream = sock.makefile("rb", buffering=1 << 16)
    origin = f"{parts.scheme}://{parts.netloc}"
    request = "GET {} HTTP/1.1\r\nHost: " + parts.netloc + "\r\nUser-Agent: lean\r\n\r\n"

    def get(path: str) -> tuple[int, bytes, bytes]:
        sock.sendall(request.format(path).encode())
        head = _STATUS.match(stream.readline())
        status = int(head.group(1)) if head else 0
        length, ctype = 0, b""
        while (line := stream.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            name = name.lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"content-type":
                ctype = value
        return status, ctype, stream.read(length)

    get("/robots.txt")
    folder = start.rsplit("/", 1)[0] + "/"
    seen, todo, pages = {start}, [start], []
    joined: dict[tuple[str, str], str] = {}
    while todo:
        url = todo.pop()
        status, ctype, body = get(url[len(origin) :] or "/")
        if status != 200 or b"html" not in ctype:
            continue
        pages.append(url)
        tree = LexborHTMLParser(body)
        base = url.rsplit("/", 1)[0]
        for node in tree.css("a[href]"):
            href = node.attributes["href"] or ""
            link = joined.get((base, href))
            if link is None:
                link = joined[base, href] = urljoin(url, href).split("#", 1)[0]
            if link not in seen and link.startswith(folder):
                seen.add(link)
                todo.append(link)
        if text and tree.body is not None:
            " ".join(tree.body.text(separator=" ", skip_empty=True).split()).encode()
    with open(out, "w", encoding="utf-8") as fh:
        fh.writelines(page + "\n" for page in pages)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
