"""An IndexNow endpoint stand-in on 127.0.0.1 that enforces the protocol.

What a real endpoint (https://www.indexnow.org/documentation) checks, checked here
independently of sitemapkit's own code so that a client bug shows as a refusal:

* the method is ``POST`` (else 405) and the content type is
  ``application/json; charset=utf-8`` (else 400); the body is a JSON object with
  ``host``, ``key``, ``keyLocation`` and a non-empty ``urlList`` (else 400);
* the key is 8-128 of ``[A-Za-z0-9-]`` (else 422); the list holds at most 10,000 URLs
  (else 422); every URL and the key location are on ``host`` (else 422);
* the key file is fetched from ``keyLocation`` (over the network, from the site's
  server) and its body, stripped, must be the key (else 403).

Then it answers what the test configured, in order (``answers``; 200 once they run
out), a 429 with ``Retry-After``; every request that passed is kept in ``accepted``
(when answered 200/202) or ``refused``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import aiohttp
from aiohttp import web

from crawl.fixture_site import serve_handler

_KEY = re.compile(r"[A-Za-z0-9-]{8,128}")


@dataclass
class Received:
    host: str
    key: str
    key_location: str
    urls: list[str]
    content_type: str


@dataclass
class StandIn:
    #: Status codes to answer, one per valid request, in order (then 200).
    answers: list[int] = field(default_factory=list)
    retry_after: str = "1"
    accepted: list[Received] = field(default_factory=list)
    refused: list[tuple[int, str]] = field(default_factory=list)
    port: int = 0

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}/indexnow"

    def accepted_urls(self) -> list[str]:
        return [url for request in self.accepted for url in request.urls]

    def _refuse(self, status: int, why: str) -> web.Response:
        self.refused.append((status, why))
        return web.Response(status=status, text=why)

    async def handle(self, request: web.Request) -> web.Response:
        if request.method != "POST":
            return self._refuse(405, "POST only")
        ctype = request.headers.get("Content-Type", "")
        if ctype.replace(" ", "").lower() != "application/json;charset=utf-8":
            return self._refuse(400, f"content type {ctype!r}")
        try:
            data = json.loads((await request.read()).decode("utf-8"))
            host, key = str(data["host"]), str(data["key"])
            location, urls = str(data["keyLocation"]), [str(u) for u in data["urlList"]]
        except (ValueError, KeyError, TypeError) as exc:
            return self._refuse(400, f"bad JSON: {exc}")
        if not urls:
            return self._refuse(400, "empty urlList")
        problem = _protocol_problem(host, key, location, urls)
        if problem is not None:
            return self._refuse(422, problem)
        if not await _key_file_holds(location, key):
            return self._refuse(403, "key file does not hold the key")
        status = self.answers.pop(0) if self.answers else 200
        got = Received(host, key, location, urls, ctype)
        if status in (200, 202):
            self.accepted.append(got)
            return web.Response(status=status)
        headers = {"Retry-After": self.retry_after} if status == 429 else {}
        self.refused.append((status, "configured"))
        return web.Response(status=status, text=f"configured {status}", headers=headers)


def _protocol_problem(host: str, key: str, location: str, urls: list[str]) -> str | None:
    if not _KEY.fullmatch(key):
        return "key format"
    if len(urls) > 10_000:
        return f"{len(urls)} URLs, over 10,000"
    off = [u for u in [location, *urls] if (urlsplit(u).hostname or "") != host]
    if off:
        return f"not on host {host}: {off[0]}"
    return None


async def _key_file_holds(location: str, key: str) -> bool:
    async with aiohttp.ClientSession() as session:
        try:
            async with session.get(location, allow_redirects=False) as resp:
                body = await resp.read()
                return resp.status == 200 and body.decode("utf-8", "replace").strip() == key
        except aiohttp.ClientError:
            return False


@contextmanager
def serve_standin(standin: StandIn | None = None) -> Iterator[StandIn]:
    """Serve a :class:`StandIn` on 127.0.0.1 in a background thread; yield it."""
    endpoint = standin if standin is not None else StandIn()

    with serve_handler(endpoint.handle, path="/indexnow", method="*") as port:
        endpoint.port = port
        yield endpoint
