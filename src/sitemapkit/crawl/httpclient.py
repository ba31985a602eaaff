"""The crawl's HTTP client: keep-alive connections pooled per (scheme, host, port).

:class:`HttpClient` is what ``make_session`` returns and the :class:`~sitemapkit.
crawl.fetch.Fetcher` (and IndexNow's POST) speak through; :mod:`~sitemapkit.crawl.
http1` reads the bytes.  What it adds to the wire:

* A pool per origin whose size is the politeness limit (``--per-host``): the
  server never sees more connections from us than that, idle ones included; the
  whole pool holds at most ``--concurrency`` (an idle connection elsewhere is
  closed to make room).  Idle connections are used newest first and dropped after
  :data:`IDLE_KEEP` seconds (servers close them about then).
* A pooled connection the server closed while it idled shows up as a response
  of zero bytes: an idempotent request (GET, HEAD) is sent once more on a fresh
  connection, as browsers do; anything else is an error.
* Connect errors in words (refused by host:port, DNS lookup failed for host, TLS
  error) and a connect timeout; TLS through one default context made on the first
  ``https`` URL (the CA bundle is read then, not at start-up), with SNI and the
  hostname check of :func:`ssl.create_default_context`.
* Request targets and hosts through :func:`sitemapkit.urls.iri_to_uri`, the one
  IRI-to-URI rule (IDNA hosts, escapes); IPv6 literals keep their brackets.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import importlib.util
import re
import socket
import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sitemapkit.crawl.headers import Headers
from sitemapkit.crawl.http1 import (
    CLOSE,
    LENGTH,
    NONE,
    BadResponseError,
    ConnectError,
    Connection,
    Decoder,
    DisconnectError,
    HttpError,
    decoder_for,
    framing,
    keeps_alive,
    raw_body,
    read_head,
    take,
)
from sitemapkit.urls import PLAIN_CLASS, PLAIN_HOST, has_bad_escape, iri_to_uri

#: Seconds an idle pooled connection is kept (aiohttp's keep-alive timeout, too).
IDLE_KEEP = 15.0
#: Seconds a DNS answer is reused (aiohttp's ``ttl_dns_cache`` of the crawl, too).
DNS_TTL = 300.0
#: Methods that may be sent again when a pooled connection turns out closed (RFC 9110 9.2.2).
IDEMPOTENT = frozenset({"GET", "HEAD"})
_DEFAULT_PORTS = {"http": 80, "https": 443}
_URL = re.compile(r"(https?)://([^/?#]*)([^#]*)", re.IGNORECASE)
#: A URL :func:`iri_to_uri` would return as it is (plain host, optional port, escaped
#: path): the crawl's common case, split without the call.
_PLAIN_URL = re.compile(
    rf"(https?)://({PLAIN_HOST})(?::([0-9]{{1,5}}))?(/[{PLAIN_CLASS}%]*)(?:#.*)?"
)
_UNSAFE_HEADER = re.compile(r"[\r\n\0]")


def accepted_encodings() -> frozenset[str]:
    """Content codings we can undo: gzip and deflate; br when the brotli module is there."""
    names = {"gzip", "x-gzip", "deflate"}
    if importlib.util.find_spec("brotli") is not None:
        names.add("br")
    return frozenset(names)


class Target:
    """Where a request goes: the pool key, the address and the request line's parts.

    A plain slotted class with the key made once: one is made per request, and a frozen
    dataclass's ``__init__`` (``object.__setattr__`` per field) cost 0.41 us against 0.12.
    """

    __slots__ = ("host", "host_header", "key", "path", "port", "scheme")

    def __init__(self, scheme: str, host: str, port: int, path: str, host_header: str) -> None:
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
        self.host_header = host_header
        #: The pool's key: one origin.
        self.key = (scheme, host, port)

    def __repr__(self) -> str:
        return f"Target({self.scheme!r}, {self.host!r}, {self.port!r}, {self.path!r})"

    @property
    def where(self) -> str:
        """``host:port`` as error messages say it (an IPv6 literal in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def split_url(url: str) -> Target:
    """``url`` as a :class:`Target`; :class:`ValueError` when it is no http(s) URL."""
    plain = _PLAIN_URL.fullmatch(url)
    if plain is not None and not ("%" in url and has_bad_escape(plain.group(4))):
        scheme, host, port_text, path = plain.groups()
        port = int(port_text) if port_text else _DEFAULT_PORTS[scheme]
        shown = host if port == _DEFAULT_PORTS[scheme] else f"{host}:{port}"
        return Target(scheme, host, port, path, shown)
    uri = iri_to_uri(url)
    m = _URL.match(uri)
    if m is None:  # pragma: no cover - iri_to_uri only returns http(s) URIs
        raise ValueError(f"not an http(s) URL: {url}")
    scheme = m.group(1).lower()
    authority = m.group(2).rpartition("@")[2]  # user info is not sent
    if authority.startswith("["):
        host, _, rest = authority[1:].partition("]")
        port_text = rest[1:] if rest.startswith(":") else ""
    else:
        host, _, port_text = authority.partition(":")
    if port_text and not (port_text.isdigit() and port_text.isascii()):
        raise ValueError(f"invalid port in {url}")
    port = int(port_text) if port_text else _DEFAULT_PORTS[scheme]
    path = m.group(3) or "/"
    if path[0] == "?":
        path = "/" + path
    shown = authority.rpartition("@")[2]
    if port == _DEFAULT_PORTS[scheme]:
        shown = f"[{host}]" if ":" in host else host
    return Target(scheme, host.lower(), port, path, shown)


@dataclass(slots=True)
class _Pool:
    """One origin's connections: the idle ones and how many are open in all."""

    idle: list[Connection]
    open: int
    waiters: collections.deque[asyncio.Future[None]]


class HttpClient:
    """Pooled HTTP/1.1 for one crawl (or one command); close it (``async with``) when done."""

    def __init__(
        self,
        *,
        limit: int = 100,
        limit_per_host: int = 8,
        connect_timeout: float = 10.0,
        read_timeout: float = 30.0,
        headers: Mapping[str, str] | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        """``ssl_context``: another trust store than the system's (tests: a throwaway CA)."""
        self.limit = max(limit, 1)
        self.limit_per_host = max(limit_per_host, 1)
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.accepted = accepted_encodings()
        order = [c for c in ("gzip", "deflate", "br") if c in self.accepted]
        self._defaults = {"Accept-Encoding": ", ".join(order), **(headers or {})}
        self._fixed = "".join(f"{k}: {_safe(v)}\r\n" for k, v in self._defaults.items())
        self._pools: dict[tuple[str, str, int], _Pool] = {}
        self._open = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._dns: dict[tuple[str, int], tuple[float, list[tuple[int, Any]]]] = {}
        self._ssl = ssl_context
        self.closed = False

    async def __aenter__(self) -> HttpClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close every idle connection; the busy ones close when their replies end."""
        self.closed = True
        for pool in self._pools.values():
            for conn in pool.idle:
                conn.close()
            pool.open -= len(pool.idle)
            self._open -= len(pool.idle)
            pool.idle.clear()

    # -- requests -------------------------------------------------------------------------
    async def send(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str] | None = None,
        body: bytes | None = None,
        *,
        deadline: float | None = None,
    ) -> Reply:
        """Send one request and read its response head; the body is read from the reply.

        ``deadline`` (loop time): the whole exchange, body included, ends by then or
        raises :class:`TimeoutError` (the crawl's total timeout).
        """
        target = split_url(url)
        data = self._request(method, target, headers, body)
        conn, reused = await self._acquire(target, deadline)
        try:
            conn.deadline = deadline
            conn.send(data)
            try:
                status, is11, got = await read_head(conn)
            except DisconnectError as exc:
                if not (reused and exc.stale and method in IDEMPOTENT):
                    raise
                conn.close()
                conn = await self._connect(target, deadline)  # the same slot, a fresh one
                conn.deadline = deadline
                conn.send(data)
                status, is11, got = await read_head(conn)
            kind, length = framing(method == "HEAD", status, got)
            decoder = decoder_for(got, self.accepted) if kind != NONE else None
        except BaseException:
            self._release(target.key, conn, reusable=False)
            raise
        keep = keeps_alive(is11, got)
        return Reply(self, target, conn, status, got, kind, length, keep, decoder)

    def _request(
        self, method: str, target: Target, headers: Mapping[str, str] | None, body: bytes | None
    ) -> bytes:
        fixed = self._fixed
        extra = ""
        if headers:
            own = {k.lower() for k in headers}
            if own & {k.lower() for k in self._defaults}:
                fixed = "".join(
                    f"{k}: {_safe(v)}\r\n"
                    for k, v in self._defaults.items()
                    if k.lower() not in own
                )
            extra = "".join(f"{k}: {_safe(v)}\r\n" for k, v in headers.items())
        if body is not None:
            extra += f"Content-Length: {len(body)}\r\n"
        head = (
            f"{method} {target.path} HTTP/1.1\r\nHost: {target.host_header}\r\n{fixed}{extra}\r\n"
        )
        data = head.encode("utf-8")
        return data if body is None else data + body

    # -- the pool -------------------------------------------------------------------------
    async def _acquire(self, target: Target, deadline: float | None) -> tuple[Connection, bool]:
        """A connection to ``target``'s origin (reused when one idles) and whether it was."""
        if self.closed:
            raise HttpError("the HTTP client is closed")
        pool = self._pools.get(target.key)
        if pool is None:
            pool = self._pools[target.key] = _Pool([], 0, collections.deque())
        while True:
            while pool.idle:
                conn = pool.idle.pop()
                if conn.usable and conn.loop.time() - conn.idle_since < IDLE_KEEP:
                    return conn, True
                conn.close()
                self._forget(pool)
            if pool.open < self.limit_per_host and (self._open < self.limit or self._evict()):
                pool.open += 1
                self._open += 1
                try:
                    return await self._connect(target, deadline), False
                except BaseException:
                    self._forget(pool)
                    raise
            queue = pool.waiters if pool.open >= self.limit_per_host else self._waiters
            async with asyncio.timeout_at(deadline):
                await _wait_turn(asyncio.get_running_loop(), queue)

    def _evict(self) -> bool:
        """Close one idle connection of any origin to make room; False if none idles."""
        for pool in self._pools.values():
            if pool.idle:
                pool.idle.pop(0).close()
                self._forget(pool)
                return True
        return False

    def _forget(self, pool: _Pool) -> None:
        """One of ``pool``'s connections is gone: its slot is free for a waiter."""
        pool.open -= 1
        self._open -= 1
        _wake_one(pool.waiters)
        _wake_one(self._waiters)

    def _release(self, key: tuple[str, str, int], conn: Connection, *, reusable: bool) -> None:
        pool = self._pools[key]
        conn.deadline = None
        if reusable and conn.usable and not self.closed:
            conn.idle_since = conn.loop.time()
            pool.idle.append(conn)
            if pool.waiters:
                _wake_one(pool.waiters)
            if self._waiters:
                _wake_one(self._waiters)
            return
        conn.close()
        self._forget(pool)

    # -- connecting -----------------------------------------------------------------------
    async def _connect(self, target: Target, deadline: float | None = None) -> Connection:
        loop = asyncio.get_running_loop()
        context = self._context() if target.scheme == "https" else None
        until = loop.time() + self.connect_timeout
        async with asyncio.timeout_at(until if deadline is None else min(until, deadline)):
            addresses = await self._resolve(loop, target)
            problem: OSError | None = None
            for family, address in addresses:
                try:
                    _, conn = await loop.create_connection(
                        lambda: Connection(loop, self.read_timeout),
                        address[0],
                        address[1],
                        family=family,
                        ssl=context,
                        server_hostname=target.host if context is not None else None,
                    )
                except ssl.SSLCertVerificationError as exc:
                    raise ConnectError(f"TLS error with {target.where}: {exc}", final=True) from exc
                except ssl.SSLError as exc:
                    raise ConnectError(f"TLS error with {target.where}: {exc}") from exc
                except OSError as exc:
                    problem = exc
                    continue
                return conn
        raise ConnectError(_connect_reason(problem, target.where))

    async def _resolve(
        self, loop: asyncio.AbstractEventLoop, target: Target
    ) -> list[tuple[int, Any]]:
        """The addresses of ``target.host`` (a literal at once; names cached for DNS_TTL)."""
        host, port = target.host, target.port
        for family in (socket.AF_INET, socket.AF_INET6):
            with contextlib.suppress(OSError):
                socket.inet_pton(family, host)
                return [(family, (host, port))]
        now = loop.time()
        cached = self._dns.get((host, port))
        if cached is not None and now - cached[0] < DNS_TTL:
            return cached[1]
        try:
            infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (socket.gaierror, UnicodeError) as exc:
            raise ConnectError(f"DNS lookup failed for {host}") from exc
        found: list[tuple[int, Any]] = [(info[0], info[4]) for info in infos]
        if not found:
            raise ConnectError(f"DNS lookup failed for {host}")
        self._dns[(host, port)] = (now, found)
        return found

    def _context(self) -> ssl.SSLContext:
        if self._ssl is None:
            from sitemapkit.tls import client_context

            self._ssl = client_context()
        return self._ssl


class Reply:
    """A response whose head has arrived; its body is read (or skipped) once."""

    __slots__ = (
        "_client",
        "_decoder",
        "_done",
        "_keep",
        "_kind",
        "_length",
        "_target",
        "_wire",
        "headers",
        "status",
    )

    def __init__(
        self,
        client: HttpClient,
        target: Target,
        conn: Connection,
        status: int,
        headers: Headers,
        kind: int,
        length: int,
        keep: bool,
        decoder: Decoder | None,
    ) -> None:
        self._client = client
        self._target = target
        self._wire = conn
        self.status = status
        self.headers = headers
        self._kind = kind
        self._length = length
        self._keep = keep
        self._decoder = decoder
        self._done = False

    @property
    def content_length(self) -> int | None:
        """The declared (still encoded) body length, when the server declared one."""
        return self._length if self._kind == LENGTH else None

    async def read(self, cap: int, *, keep_cut: bool = False) -> tuple[bytes, bool]:
        """``(body, cut)``: the decoded body, at most ``cap`` bytes of it.

        When the body is longer, ``cut`` is True and the body is the first ``cap``
        bytes (``keep_cut``) or what came before the arrival that crossed the cap.
        """
        conn = self._wire
        buf = conn.buf
        if self._kind == NONE:
            self._finish(True)
            return b"", False
        if (
            self._kind == LENGTH
            and self._decoder is None
            and len(buf) >= self._length
            and self._length <= cap
        ):  # the common page: all of it is here already
            body = take(buf, self._length)
            self._finish(True)
            return body, False
        return await self._stream(cap, keep_cut)

    async def _stream(self, cap: int, keep_cut: bool) -> tuple[bytes, bool]:
        chunks: list[bytes] = []
        size = 0
        decoder = self._decoder
        async with contextlib.aclosing(raw_body(self._wire, self._kind, self._length)) as parts:
            async for raw in parts:
                part = decoder.decode(raw, cap - size + 1) if decoder is not None else raw
                size += len(part)
                if size > cap:
                    if keep_cut:
                        chunks.append(part[: len(part) - (size - cap)])
                    self.close()
                    return b"".join(chunks), True
                chunks.append(part)
        self._finish(self._kind != CLOSE)
        return b"".join(chunks), False

    def skip(self) -> None:
        """The body is not wanted: keep the connection only when the body is all here."""
        conn = self._wire
        if self._kind == LENGTH and not self._done and len(conn.buf) >= self._length:
            del conn.buf[: self._length]
            self._finish(True)
        elif self._kind == NONE:
            self._finish(True)
        self.close()

    def close(self) -> None:
        """Give the connection back if the body was read, else close it."""
        if not self._done:
            self._done = True
            self._client._release(self._target.key, self._wire, reusable=False)

    def _finish(self, clean: bool) -> None:
        if not self._done:
            self._done = True
            self._client._release(self._target.key, self._wire, reusable=clean and self._keep)


async def _wait_turn(
    loop: asyncio.AbstractEventLoop, queue: collections.deque[asyncio.Future[None]]
) -> None:
    """Wait until a slot may be free (woken by :func:`_wake_one`)."""
    waiter: asyncio.Future[None] = loop.create_future()
    queue.append(waiter)
    try:
        await waiter
    except BaseException:
        if waiter.done() and not waiter.cancelled():
            _wake_one(queue)  # the turn we were given goes to the next in line
        else:
            with contextlib.suppress(ValueError):
                queue.remove(waiter)
        raise


def _wake_one(queue: collections.deque[asyncio.Future[None]]) -> None:
    while queue:
        waiter = queue.popleft()
        if not waiter.done():
            waiter.set_result(None)
            return


def _safe(value: str) -> str:
    """A request header value, refused when it could end the header early (injection)."""
    if _UNSAFE_HEADER.search(value):
        raise ValueError(f"newline or NUL in a request header value: {value[:60]!r}")
    return value


def _connect_reason(problem: OSError | None, where: str) -> str:
    """What went wrong before any HTTP was spoken, in the words a site owner uses."""
    if isinstance(problem, ConnectionRefusedError):
        return f"connection refused by {where}"
    if problem is None:
        return f"cannot connect to {where}"
    reason = problem.strerror or str(problem) or type(problem).__name__
    return f"cannot connect to {where}: {reason}"


__all__ = [
    "BadResponseError",
    "ConnectError",
    "DisconnectError",
    "HttpClient",
    "HttpError",
    "Reply",
]
