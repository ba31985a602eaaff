"""A small website that changes between crawls, served on 127.0.0.1 (re-crawl tests).

Pages are a dict the test edits between runs.  Each answer carries an ``ETag``
(a hash of the body) and a ``Last-Modified`` date the test sets; the server
answers ``304 Not Modified`` to a matching ``If-None-Match`` or an
``If-Modified-Since`` not older than the page, as nginx does for static files.
It counts requests, 304s and body bytes per path so tests can see what a
re-crawl downloaded.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.utils import format_datetime, parsedate_to_datetime

from aiohttp import web

from crawl.fixture_site import serve_handler

#: 2024-01-01T00:00:00Z, the pages' default Last-Modified.
EPOCH = 1_704_067_200.0


@dataclass
class ChangingSite:
    """Path -> HTML, and what the crawls asked of it."""

    pages: dict[str, str] = field(default_factory=dict)
    modified: dict[str, float] = field(default_factory=dict)
    #: False: a server that ignores validators (always 200).
    conditional: bool = True
    #: False: no ETag header, so Last-Modified is the only validator.
    etags: bool = True
    #: False: no Last-Modified header (a dynamic page).
    last_modified: bool = True
    hits: Counter[str] = field(default_factory=Counter)
    not_modified: Counter[str] = field(default_factory=Counter)
    body_bytes: int = 0
    port: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reset_counts(self) -> None:
        self.hits.clear()
        self.not_modified.clear()
        self.body_bytes = 0

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        self.hits[path] += 1
        if path == "/robots.txt":
            return web.Response(text="User-agent: *\nAllow: /\n", content_type="text/plain")
        html = self.pages.get(path)
        if html is None:
            return web.Response(status=404, text="gone", content_type="text/plain")
        body = html.encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:16] + '"'
        stamp = self.modified.get(path, EPOCH)
        headers = {"Last-Modified": _http_date(stamp)} if self.last_modified else {}
        if self.etags:
            headers["ETag"] = etag
        if self.conditional and _fresh(request, etag, stamp):
            self.not_modified[path] += 1
            return web.Response(status=304, headers=headers)
        self.body_bytes += len(body)
        return web.Response(body=body, content_type="text/html", charset="utf-8", headers=headers)


def _http_date(stamp: float) -> str:
    from datetime import UTC, datetime

    return format_datetime(datetime.fromtimestamp(stamp, UTC), usegmt=True)


def _fresh(request: web.Request, etag: str, stamp: float) -> bool:
    """RFC 9110 13.2.2: If-None-Match decides when present, else If-Modified-Since."""
    match = request.headers.get("If-None-Match")
    if match is not None:
        return etag in [tag.strip() for tag in match.split(",")] or match.strip() == "*"
    since = request.headers.get("If-Modified-Since")
    if since is None:
        return False
    try:
        return int(stamp) <= parsedate_to_datetime(since).timestamp()
    except (TypeError, ValueError):
        return False


def page(title: str, *hrefs: str, text: str = "") -> str:
    """An HTML page titled ``title`` linking to ``hrefs``."""
    links = "".join(f'<a href="{h}">{h}</a> ' for h in hrefs)
    return (
        f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title></head>"
        f"<body><h1>{title}</h1><p>{text}</p>{links}</body></html>"
    )


@contextmanager
def serve_changing(site: ChangingSite) -> Iterator[ChangingSite]:
    """Serve ``site`` on 127.0.0.1 in a background thread; yield it with its port set."""

    with serve_handler(site.handle) as port:
        site.port = port
        yield site
