"""The crawler's HTTP client: the one network seam, on our lean HTTP/1.1 client.

Every request goes through :class:`Fetcher.get`, which never raises for what a
remote site does: a timeout, a refused connection, a 503 storm or a 2 GB page
all come back as a :class:`Response` whose ``error`` names the problem, so the
engine can record it as a decision instead of crashing.

* Redirects are *not* followed here: the engine follows them itself so that
  every hop is recorded, scoped and loop-checked.
* 429 and 503 are retried with back-off, honouring ``Retry-After`` (seconds or
  an HTTP date) up to a cap; network errors are retried the same way.  A response
  that breaks HTTP itself (``Content-Length: -5``) is not retried: it would break
  the same way again.
* Every ``error_detail`` is one line that says what failed in words a site owner
  knows (``connection refused by host:port``, ``DNS lookup failed for host``, ``TLS
  error``, ``timed out``): the crawl tells the user exactly this.
* Bodies are streamed and cut at ``max_body`` bytes; bodies the caller does not
  want (images, PDFs) are never downloaded.
* gzip/deflate (and br when the brotli module is installed) are decoded by
  :mod:`~sitemapkit.crawl.http1`; what we cap is the decoded size, which is what a
  bomb inflates.

The wire is :class:`~sitemapkit.crawl.httpclient.HttpClient` (aiohttp cost 124-156 us
of CPU per request here and a tenth of a small crawl's time to import; see
bench/fetch_bench.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import urljoin

from sitemapkit.crawl.config import CrawlConfig
from sitemapkit.crawl.httpclient import (
    BadResponseError,
    ConnectError,
    HttpClient,
    HttpError,
    Reply,
)

#: Status codes worth asking again: the server told us to come back later.
RETRY_STATUSES = frozenset({429, 503})
_EMPTY_HEADERS: Mapping[str, str] = {}
#: Redirect bodies up to this size are read (and dropped) to keep the connection alive.
_DRAIN_LIMIT = 64 * 1024
#: Errors that asking again cannot mend (a response that breaks HTTP).
_FINAL_ERRORS = frozenset({"bad-response"})  # a cut body is no error: Response.truncated
#: Characters of an error detail kept (a hostile server chooses what its errors echo).
_DETAIL_MAX = 300


@dataclass(slots=True)
class Response:
    """One HTTP exchange as the engine sees it (or why there was none)."""

    url: str
    status: int | None
    headers: Mapping[str, str]
    body: bytes = b""
    #: Lower-case MIME type without parameters (``text/html``), if the server sent one.
    content_type: str | None = None
    charset: str | None = None
    #: The raw ``Location`` header of a 3xx, resolved against ``url``.
    location: str | None = None
    #: The body was longer than the cap and was cut.
    truncated: bool = False
    #: Set when no usable response came back: ``timeout``, ``connection-error`` ...
    error: str | None = None
    error_detail: str | None = None
    attempts: int = 1
    #: Asking again cannot help (a certificate the client does not trust): no retry.
    final: bool = False

    @property
    def is_redirect(self) -> bool:
        return self.status is not None and 300 <= self.status < 400 and self.location is not None


def retry_after_seconds(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delta-seconds or HTTP-date), or None."""
    if not value:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    current = datetime.now(UTC).timestamp() if now is None else now
    return max(0.0, when.timestamp() - current)


def make_session(config: CrawlConfig) -> HttpClient:
    """The client a crawl uses: pooled, per-host limited, no cookies, our User-Agent.

    Cookies are never kept on purpose: a sitemap lists what an anonymous visitor (and
    a search engine) sees, and session cookies make sites vary their links.
    """
    return HttpClient(
        limit=max(config.concurrency, 1),
        limit_per_host=max(config.per_host, 1),
        connect_timeout=config.connect_timeout,
        read_timeout=config.read_timeout,
        headers={"User-Agent": config.user_agent, "Accept": "text/html,*/*;q=0.8"},
    )


class Fetcher:
    """GET with retries, back-off, a byte cap and no redirect following."""

    def __init__(
        self,
        session: HttpClient,
        *,
        max_body: int,
        retries: int = 3,
        max_retry_wait: float = 60.0,
        backoff_base: float = 1.0,
        total_timeout: float | None = None,
    ) -> None:
        self.session = session
        self.max_body = max_body
        self.retries = retries
        self.max_retry_wait = max_retry_wait
        self.backoff_base = backoff_base
        self.total_timeout = total_timeout
        self.requests = 0
        self.retried = 0

    async def get(
        self,
        url: str,
        *,
        want_body: Callable[[str | None], bool] | None = None,
        headers: Mapping[str, str] | None = None,
        keep_bytes: int | None = None,
    ) -> Response:
        """Fetch ``url`` once (plus retries); ``want_body(mime)`` says whether to read the body.

        ``headers`` are sent with the request (a re-crawl's ``If-None-Match`` ...).
        ``keep_bytes``: read at most this much and keep it even when the body is larger
        (robots.txt: RFC 9309 says parse the first 500 KiB of a bigger file, not none of it).
        """
        attempt = 0
        while True:
            attempt += 1
            response = await self._once(url, want_body, headers, keep_bytes)
            response.attempts = attempt
            if attempt > self.retries:
                return response
            wait: float | None = None
            if response.status in RETRY_STATUSES:
                wait = retry_after_seconds(response.headers.get("Retry-After"))
                if wait is None:
                    wait = self.backoff_base * (2 ** (attempt - 1))
            elif response.error is not None and not response.final:
                wait = self.backoff_base * (2 ** (attempt - 1))
            if wait is None:
                return response
            if wait > self.max_retry_wait:
                return response
            self.retried += 1
            await asyncio.sleep(wait)

    async def _once(
        self,
        url: str,
        want_body: Callable[[str | None], bool] | None,
        headers: Mapping[str, str] | None = None,
        keep_bytes: int | None = None,
    ) -> Response:
        self.requests += 1
        deadline = None
        if self.total_timeout is not None:
            deadline = asyncio.get_running_loop().time() + self.total_timeout
        try:
            reply = await self.session.send("GET", url, headers, deadline=deadline)
            try:
                return await self._read(url, reply, want_body, keep_bytes)
            finally:
                reply.close()
        except TimeoutError:
            return Response(url, None, _EMPTY_HEADERS, error="timeout", error_detail="timed out")
        except ConnectError as exc:
            return _failed(url, "connection-error", str(exc), final=exc.final)
        except BadResponseError as exc:
            return _failed(url, "bad-response", f"malformed response: {exc}")
        except (HttpError, OSError, ValueError) as exc:
            return _failed(url, "connection-error", str(exc) or type(exc).__name__)

    async def _read(
        self,
        url: str,
        reply: Reply,
        want_body: Callable[[str | None], bool] | None,
        keep_bytes: int | None = None,
    ) -> Response:
        headers = reply.headers
        raw_type = headers.first.get("content-type")
        mime, charset = _media_type(raw_type)
        status = reply.status
        if 300 <= status < 400:
            loc = headers.first.get("location")
            location: str | None = None
            if loc:
                try:
                    location = urljoin(url, loc.strip())
                except ValueError:
                    location = loc.strip()
            # Drain a small redirect body so the connection goes back to the pool.
            declared = reply.content_length
            if declared is None or declared <= _DRAIN_LIMIT:
                with contextlib.suppress(HttpError, TimeoutError):
                    await reply.read(_DRAIN_LIMIT)
            return Response(url, status, headers, b"", mime, charset, location)
        if want_body is not None and not want_body(mime):
            reply.skip()
            return Response(url, status, headers, b"", mime, charset)
        declared = reply.content_length
        cap = self.max_body if keep_bytes is None else keep_bytes
        if keep_bytes is None and declared is not None and declared > cap:
            return Response(url, status, headers, b"", mime, charset, truncated=True)
        body, truncated = await reply.read(cap, keep_cut=keep_bytes is not None)
        return Response(url, status, headers, body, mime, charset, truncated=truncated)


def _media_type(raw_type: str | None) -> tuple[str | None, str | None]:
    """``(mime, charset)`` of a ``Content-Type``: the type lower-cased, the charset as sent."""
    if not raw_type:
        return None, None
    mime, _, params = raw_type.partition(";")
    charset = None
    while params:
        param, _, params = params.partition(";")
        name, _, value = param.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip("\"'") or None
            break
    return mime.strip().lower(), charset


def one_line(text: str) -> str:
    """``text`` as one short line (parser errors may span lines and draw a caret)."""
    parts = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or not line.strip("^~ "):
            continue
        if line.startswith(("b'", 'b"')) and line.endswith(line[1]):
            line = line[2:-1]  # the offending header line, as bytes repr
        parts.append(line)
    joined = " ".join(parts).replace("\x1b", "")
    return joined if len(joined) <= _DETAIL_MAX else joined[: _DETAIL_MAX - 3] + "..."


def _failed(url: str, error: str, detail: str, *, final: bool = False) -> Response:
    final = final or error in _FINAL_ERRORS
    return Response(
        url, None, _EMPTY_HEADERS, error=error, error_detail=one_line(detail), final=final
    )


def now() -> float:
    """Wall-clock seconds, the time recorded as ``fetched_at`` (never as lastmod)."""
    return time.time()
