"""The crawler's HTTP client: the one network seam, on one aiohttp ``ClientSession``.

Every request goes through :class:`Fetcher.get`, which never raises for what a
remote site does: a timeout, a refused connection, a 503 storm or a 2 GB page
all come back as a :class:`Response` whose ``error`` names the problem, so the
engine can record it as a decision instead of crashing.

* Redirects are *not* followed here (``allow_redirects=False``): the engine
  follows them itself so that every hop is recorded, scoped and loop-checked.
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
  aiohttp; what we cap is the decoded size, which is what a bomb inflates.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

import aiohttp
from multidict import CIMultiDictProxy
from yarl import URL

from sitemapkit.crawl.config import CrawlConfig

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


def make_session(config: CrawlConfig) -> aiohttp.ClientSession:
    """The session a crawl uses: pooled, per-host limited, no cookies, our User-Agent.

    Cookies are off on purpose: a sitemap lists what an anonymous visitor (and
    a search engine) sees, and session cookies make sites vary their links.
    """
    connector = aiohttp.TCPConnector(
        limit=max(config.concurrency, 1),
        limit_per_host=max(config.per_host, 1),
        ttl_dns_cache=300,
    )
    timeout = aiohttp.ClientTimeout(
        total=None, sock_connect=config.connect_timeout, sock_read=config.read_timeout
    )
    return aiohttp.ClientSession(
        connector=connector,
        timeout=timeout,
        headers={"User-Agent": config.user_agent, "Accept": "text/html,*/*;q=0.8"},
        cookie_jar=aiohttp.DummyCookieJar(),
        auto_decompress=True,
        raise_for_status=False,
    )


class Fetcher:
    """GET with retries, back-off, a byte cap and no redirect following."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
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
        target = URL(url, encoded=True)
        try:
            async with asyncio.timeout(self.total_timeout):
                async with self.session.get(target, allow_redirects=False, headers=headers) as resp:
                    return await self._read(url, resp, want_body, keep_bytes)
        except TimeoutError:
            return Response(url, None, _EMPTY_HEADERS, error="timeout", error_detail="timed out")
        except aiohttp.TooManyRedirects as exc:  # pragma: no cover - redirects are manual
            return _failed(url, "redirect-loop", str(exc))
        except aiohttp.ClientResponseError as exc:
            return _failed(url, "bad-response", f"malformed response: {exc.message}")
        except aiohttp.ClientConnectorCertificateError as exc:
            return _failed(url, "connection-error", connect_problem(exc), final=True)
        except aiohttp.ClientConnectorError as exc:
            return _failed(url, "connection-error", connect_problem(exc))
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            return _failed(url, "connection-error", str(exc) or type(exc).__name__)

    async def _read(
        self,
        url: str,
        resp: aiohttp.ClientResponse,
        want_body: Callable[[str | None], bool] | None,
        keep_bytes: int | None = None,
    ) -> Response:
        headers: CIMultiDictProxy[str] = resp.headers
        raw_type = headers.get("Content-Type")
        mime = raw_type.split(";", 1)[0].strip().lower() if raw_type else None
        charset = resp.charset if raw_type else None
        status = resp.status
        location: str | None = None
        if 300 <= status < 400:
            loc = headers.get("Location")
            if loc:
                try:
                    location = str(resp.url.join(URL(loc.strip())))
                except ValueError:
                    location = loc.strip()
            # Drain a small redirect body so the connection goes back to the pool.
            declared = resp.content_length
            if declared is None or declared <= _DRAIN_LIMIT:
                with contextlib.suppress(aiohttp.ClientError, asyncio.TimeoutError):
                    await resp.content.read(_DRAIN_LIMIT)
            return Response(url, status, headers, b"", mime, charset, location)
        if want_body is not None and not want_body(mime):
            return Response(url, status, headers, b"", mime, charset)
        declared = resp.content_length
        cap = self.max_body if keep_bytes is None else keep_bytes
        if keep_bytes is None and declared is not None and declared > cap:
            return Response(url, status, headers, b"", mime, charset, truncated=True)
        chunks: list[bytes] = []
        size = 0
        truncated = False
        async for chunk in resp.content.iter_chunked(65536):
            size += len(chunk)
            if size > cap:
                truncated = True
                if keep_bytes is not None:
                    chunks.append(chunk[: len(chunk) - (size - cap)])
                break
            chunks.append(chunk)
        return Response(url, status, headers, b"".join(chunks), mime, charset, truncated=truncated)


def one_line(text: str) -> str:
    """``text`` as one short line: aiohttp's parser errors span lines and draw a caret."""
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


def connect_problem(exc: aiohttp.ClientConnectorError) -> str:
    """What went wrong before any HTTP was spoken, in the words a site owner uses."""
    where = f"{exc.host}:{exc.port}"
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return f"DNS lookup failed for {exc.host}"
    if isinstance(exc, aiohttp.ClientSSLError):
        return f"TLS error with {where}: {exc.os_error}"
    if isinstance(exc.os_error, ConnectionRefusedError):
        return f"connection refused by {where}"
    reason = exc.os_error.strerror or str(exc.os_error) or type(exc.os_error).__name__
    return f"cannot connect to {where}: {reason}"


def _failed(url: str, error: str, detail: str, *, final: bool = False) -> Response:
    final = final or error in _FINAL_ERRORS
    return Response(
        url, None, _EMPTY_HEADERS, error=error, error_detail=one_line(detail), final=final
    )


def now() -> float:
    """Wall-clock seconds, the time recorded as ``fetched_at`` (never as lastmod)."""
    return time.time()
