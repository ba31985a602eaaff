"""HTTP/1.1 on one connection: the bytes a response is made of, read under caps.

Why our own: the crawl's fetch path is its parent process's hottest network code,
and aiohttp cost 124-156 us of CPU per request there (a bare asyncio keep-alive
client: 18-20 us) plus a tenth of a small crawl's run time just to import.  A
crawler asks one thing of HTTP: GET a page, read at most N bytes of it.  This
module does that on an :class:`asyncio.Protocol` (cheaper than streams: one
buffer, one wake-up per arrival, no reader/writer objects) and nothing else.

What a real server may send is handled as RFC 9112 says: Content-Length,
chunked (extensions ignored, trailers read and dropped) and close-delimited
bodies; HTTP/1.0 and ``Connection: close``; 1xx heads skipped; no body after
HEAD, 204 and 304.  What a hostile one may send is capped: the head's bytes and
header lines (:data:`~sitemapkit.limits.MAX_RESPONSE_HEAD_BYTES`), the chunk-size
line, silence (the read timeout, between arrivals), and the decoded body (the
caller's cap, applied while inflating, so a gzip bomb never fills the memory).
"""

from __future__ import annotations

import asyncio
import re
import zlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from sitemapkit.crawl.headers import NAMES, NAMES_MAX, Headers
from sitemapkit.limits import MAX_CHUNK_LINE_BYTES, MAX_RESPONSE_HEAD_BYTES, MAX_RESPONSE_HEADERS

#: Bytes buffered before the socket is paused (a body is consumed as it arrives).
_PAUSE_AT = 1024 * 1024
#: Bytes one read of the socket may bring.
_RECV_BLOCK = 64 * 1024
#: The blank line that ends a head (servers that send bare LF exist): ``\r?\n\r?\n``,
#: searched for from its first LF (see :func:`head_end`).
_HEAD_END = re.compile(rb"\n\r?\n")
#: An HTTP token (a header name): RFC 9110 5.6.2.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: One well-formed header line: a token, a colon, the value without its white space.
_FIELD = re.compile(
    r"^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*((?:[^\r\n]*[^\r\n \t])?)[ \t]*\r?$", re.MULTILINE
)
_HEX = frozenset("0123456789abcdefABCDEF")
#: Optional white space around a header value.
_OWS = " \t"


class HttpError(Exception):
    """Something went wrong on the wire; the subclasses say whether asking again helps."""


class BadResponseError(HttpError):
    """The server's bytes break HTTP/1.1: asking again would break the same way."""


class DisconnectError(HttpError):
    """The connection ended before the response did."""

    def __init__(self, message: str, *, stale: bool = False) -> None:
        super().__init__(message)
        #: No byte of the response arrived: a pooled connection the server had closed.
        self.stale = stale


class ConnectError(HttpError):
    """No connection: the one-line reason a site owner knows, and whether it is final."""

    def __init__(self, detail: str, *, final: bool = False) -> None:
        super().__init__(detail)
        self.final = final


def _lower_name(name: str) -> str:
    """``name`` in lower case, or :class:`BadResponseError` when it is no HTTP token."""
    low = NAMES.get(name)
    if low is not None:
        return low
    if _TOKEN.fullmatch(name) is None:
        raise BadResponseError(f"invalid header name {name[:60]!r}")
    low = name.lower()
    if len(NAMES) < NAMES_MAX:
        NAMES[name] = low
    return low


def parse_fields(lines: list[str]) -> list[tuple[str, str]]:
    """Header (or trailer) lines as ``(name, value)`` pairs; obsolete folding joined."""
    if len(lines) > MAX_RESPONSE_HEADERS:
        raise BadResponseError(f"more than {MAX_RESPONSE_HEADERS} header lines")
    fields: list[tuple[str, str]] = []
    for raw in lines:
        line = raw[:-1] if raw.endswith("\r") else raw
        if line[:1] in (" ", "\t"):
            if not fields:
                raise BadResponseError("a folded line before the first header")
            name, value = fields[-1]
            fields[-1] = (name, value + " " + line.strip(_OWS))
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise BadResponseError(f"header line without a colon: {line[:60]!r}")
        _lower_name(name)
        fields.append((name, value.strip(_OWS)))
    return fields


def parse_head(head: bytes) -> tuple[int, bool, Headers]:
    """``(status, is HTTP/1.1, headers)`` of a response head (without its blank line).

    The common head (every line a token, a colon and a value) is read by one regex
    pass; a head with anything else (folded lines, bad names) goes line by line.
    """
    text = head.decode("latin-1")
    cut = text.find("\n")
    status_line = (text if cut < 0 else text[:cut]).rstrip("\r")
    version, _, rest = status_line.partition(" ")
    code = rest[:3]
    if (
        version not in ("HTTP/1.1", "HTTP/1.0")
        or not (code.isdigit() and code.isascii())
        or rest[3:4] not in ("", " ")
    ):
        raise BadResponseError(f"invalid status line {status_line[:80]!r}")
    if cut < 0:
        return int(code), version == "HTTP/1.1", Headers([])
    fields = _FIELD.findall(text, cut + 1)
    lines = text.count("\n", cut + 1) + 1
    if len(fields) != lines or lines > MAX_RESPONSE_HEADERS:
        fields = parse_fields(text[cut + 1 :].split("\n"))
    return int(code), version == "HTTP/1.1", Headers(fields)


class Connection(asyncio.BufferedProtocol):
    """One TCP (or TLS) connection: received bytes in one buffer, one waiter at a time.

    A :class:`~asyncio.BufferedProtocol`: the transport reads into our 64 KiB block with
    ``recv_into``.  A plain ``Protocol`` gets ``sock.recv(256 KiB)``, a fresh 256 KiB
    allocation per read that cost ~16 us more than the read itself on this machine.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, read_timeout: float) -> None:
        self.loop = loop
        self.read_timeout = read_timeout
        self.transport: asyncio.Transport | None = None
        self.buf = bytearray()
        self.eof = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.paused = False
        #: Bytes received since the current request was sent (0: nothing came back).
        self.got = 0
        #: Loop time it went back to the pool (for the idle cut).
        self.idle_since = 0.0
        #: Loop time by which the current exchange must be over (None: no total limit).
        self.deadline: float | None = None
        self._block = memoryview(bytearray(_RECV_BLOCK))
        #: Loop time the current wait for bytes times out at (see :meth:`fill`).
        self._expiry = 0.0
        #: The one read timer, armed at or before :attr:`_expiry` (None: not armed).
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def get_buffer(self, sizehint: int) -> memoryview:
        return self._block

    def buffer_updated(self, nbytes: int) -> None:
        self.buf += self._block[:nbytes]
        self.got += nbytes
        if len(self.buf) > _PAUSE_AT and not self.paused and self.transport is not None:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake()
        self._disarm()

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    @property
    def usable(self) -> bool:
        """Can carry another request: open, and nothing unasked-for came in."""
        transport = self.transport
        return (
            not self.eof and not self.buf and transport is not None and not transport.is_closing()
        )

    def send(self, data: bytes) -> None:
        assert self.transport is not None
        self.got = 0
        self.transport.write(data)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
        self.eof = True
        self._disarm()

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    async def fill(self) -> None:
        """Wait for more bytes or the end: :class:`TimeoutError` after ``read_timeout`` of
        silence, or at the exchange's :attr:`deadline`.

        One timer per connection, not one per wait: a wait only moves :attr:`_expiry`
        on, and the timer, when it comes due, times the wait out or sets itself again
        for the expiry it finds (a timer made and cancelled for every wait cost ~2 us).
        """
        if self.eof:
            return
        if self.paused and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()
        loop = self.loop
        now = loop.time()
        expiry = now + self.read_timeout
        deadline = self.deadline
        if deadline is not None and deadline < expiry:
            if deadline <= now:
                raise TimeoutError
            expiry = deadline
        self._expiry = expiry
        timer = self._timer
        if timer is None or timer.when() > expiry:
            if timer is not None:
                timer.cancel()
            self._timer = loop.call_at(expiry, self._due)
        waiter = loop.create_future()
        self.waiter = waiter
        try:
            await waiter
        finally:
            self.waiter = None

    def _due(self) -> None:
        """The read timer came due: time the wait out if its expiry is this one, else
        set the timer for the later expiry (none when nobody waits)."""
        when = self._timer.when() if self._timer is not None else self._expiry
        self._timer = None
        waiter = self.waiter
        if waiter is None or waiter.done():
            return
        if self._expiry <= when:
            waiter.set_exception(TimeoutError())
        else:
            self._timer = self.loop.call_at(self._expiry, self._due)

    def ended(self) -> DisconnectError:
        """The error for a connection that ended too early."""
        why = f": {self.error}" if self.error else ""
        return DisconnectError(f"server closed the connection{why}", stale=self.got == 0)


def head_end(buf: bytearray, start: int) -> tuple[int, int] | None:
    r"""Where the first ``\r?\n\r?\n`` at or after ``start`` begins and ends, or None.

    The pattern is searched for from its first LF, the one byte it cannot lack: a regex
    that begins with a literal is scanned for that byte in C, where one that begins with
    an optional ``\r`` is tried at every position (~3 us for nginx's 280-byte head,
    against ~0.2).  The CR before that LF, when there is one after ``start``, is the
    blank line's first byte.
    """
    found = _HEAD_END.search(buf, start)
    if found is None:
        return None
    begin = found.start()
    if begin > start and buf[begin - 1] == 13:  # b"\r"
        begin -= 1
    return begin, found.end()


async def read_head(conn: Connection) -> tuple[int, bool, Headers]:
    """The next response head on ``conn`` (1xx interim heads are skipped)."""
    buf = conn.buf
    # Bytes already searched for the blank line: a head that trickles in is not searched
    # from its start again at every arrival (64 KiB in 1-byte packets: no quadratic work).
    seen = 0
    while True:
        end = head_end(buf, max(0, seen - 3)) if buf else None
        if end is None:
            if len(buf) > MAX_RESPONSE_HEAD_BYTES:
                raise BadResponseError(f"response head over {MAX_RESPONSE_HEAD_BYTES} bytes")
            if conn.eof:
                raise conn.ended()
            seen = len(buf)
            await conn.fill()
            continue
        if end[0] > MAX_RESPONSE_HEAD_BYTES:
            raise BadResponseError(f"response head over {MAX_RESPONSE_HEAD_BYTES} bytes")
        head = bytes(buf[: end[0]])
        del buf[: end[1]]
        seen = 0
        status, is11, headers = parse_head(head)
        if status == 101:
            raise BadResponseError("101 Switching Protocols to a request that asked for none")
        if status >= 200 or status < 100:
            return status, is11, headers


def take(buf: bytearray, most: int) -> bytes:
    """Up to ``most`` bytes off the front of ``buf``, copied once (a slice copies twice)."""
    if most >= len(buf):
        part = bytes(buf)
        buf.clear()
        return part
    part = bytes(memoryview(buf)[:most])
    del buf[:most]
    return part


#: Body framings: nothing, ``Content-Length`` bytes, chunked, until the server closes.
NONE, LENGTH, CHUNKED, CLOSE = range(4)


def content_length(headers: Headers) -> int | None:
    """The declared body length, or :class:`BadResponseError` for one that is not a number."""
    value = headers.first.get("content-length")
    if value is None:
        return None
    if value.isdigit() and value.isascii() and not headers.repeated:
        return int(value)
    values = headers.getall("Content-Length")
    found: set[str] = set()
    for value in values:
        for part in value.split(","):
            text = part.strip(" \t")
            if not (text.isdigit() and text.isascii()):
                raise BadResponseError(
                    f"Invalid character in Content-Length: Content-Length: {value}"
                )
            found.add(text.lstrip("0") or "0")
    if len(found) > 1:
        raise BadResponseError(f"conflicting Content-Length values: {', '.join(values)}")
    return int(found.pop())


def framing(head_only: bool, status: int, headers: Headers) -> tuple[int, int]:
    """``(framing, length)`` of the body that follows a head (RFC 9112 6.3)."""
    if head_only or status in (204, 304) or status < 200:
        return NONE, 0
    coding = headers.first.get("transfer-encoding")
    if coding is not None:
        codings = [c.strip(" \t").lower() for c in coding.split(",")]
        if codings[-1] != "chunked":
            return CLOSE, 0
        if any(c not in ("chunked", "identity", "") for c in codings[:-1]):
            raise BadResponseError(f"unsupported Transfer-Encoding: {coding[:60]}")
        return CHUNKED, 0
    length = content_length(headers)
    if length is None:
        return CLOSE, 0
    return LENGTH, length


def keeps_alive(is11: bool, headers: Headers) -> bool:
    """Whether the connection may carry another request after this response."""
    value = headers.first.get("connection")
    if value is None:
        return is11
    tokens = value.lower()
    if "close" in tokens:
        return False
    return is11 or "keep-alive" in tokens


async def raw_body(conn: Connection, kind: int, length: int) -> AsyncGenerator[bytes, None]:
    """The body's bytes as they arrive, still content-encoded."""
    if kind == LENGTH:
        async for part in _sized(conn, length):
            yield part
    elif kind == CHUNKED:
        async for part in _chunked(conn):
            yield part
    elif kind == CLOSE:
        buf = conn.buf
        while True:
            if buf:
                yield take(buf, len(buf))
            elif conn.eof:
                return
            else:
                await conn.fill()


async def _sized(conn: Connection, length: int) -> AsyncIterator[bytes]:
    buf = conn.buf
    left = length
    while left:
        if not buf:
            if conn.eof:
                raise DisconnectError(f"server closed the connection {left} bytes before the end")
            await conn.fill()
            continue
        part = take(buf, left)
        left -= len(part)
        yield part


async def _line(conn: Connection, what: str) -> bytes:
    """One line (without its CRLF) of a chunked body's framing."""
    buf = conn.buf
    while True:
        end = buf.find(b"\n")
        if end >= 0:
            line = bytes(buf[:end]).rstrip(b"\r")
            del buf[: end + 1]
            return line
        if len(buf) > MAX_CHUNK_LINE_BYTES:
            raise BadResponseError(f"{what} over {MAX_CHUNK_LINE_BYTES} bytes")
        if conn.eof:
            raise DisconnectError(f"server closed the connection inside the chunked body ({what})")
        await conn.fill()


async def _chunked(conn: Connection) -> AsyncIterator[bytes]:
    while True:
        line = await _line(conn, "chunk-size line")
        size_text = line.split(b";", 1)[0].strip(b" \t").decode("latin-1")
        if not size_text or any(c not in _HEX for c in size_text) or len(size_text) > 15:
            raise BadResponseError(f"invalid chunk size {line[:40].decode('latin-1')!r}")
        size = int(size_text, 16)
        if size == 0:
            break
        async for part in _sized(conn, size):
            yield part
        if await _line(conn, "chunk end") != b"":
            raise BadResponseError("chunk data longer than its size")
    trailers: list[str] = []
    while line := await _line(conn, "trailer line"):
        trailers.append(line.decode("latin-1"))
        if len(trailers) > MAX_RESPONSE_HEADERS:
            raise BadResponseError(f"more than {MAX_RESPONSE_HEADERS} trailer lines")
    parse_fields(trailers)  # read and checked; a crawler has no use for their values


class Decoder:
    """Undoes a ``Content-Encoding`` while never producing more than it is asked for."""

    def __init__(self, encoding: str) -> None:
        self.encoding = encoding
        self._zlib: Any = None
        self._brotli: Any = None
        if encoding in ("gzip", "x-gzip"):
            self._zlib = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._zlib = None  # zlib-wrapped or raw: decided by the first bytes
        elif encoding == "br":
            import brotli  # type: ignore[import-not-found]  # only when Accept-Encoding said br

            self._brotli = brotli.Decompressor()

    def decode(self, data: bytes, most: int) -> bytes:
        """Up to ``most`` bytes decoded from ``data`` (more means the caller's cap is hit)."""
        try:
            if self._brotli is not None:
                return bytes(self._brotli.process(data))
            if self._zlib is None:
                raw = len(data) > 1 and (
                    (data[0] & 0x0F) != 8 or (data[0] * 256 + data[1]) % 31 != 0
                )
                self._zlib = zlib.decompressobj(-zlib.MAX_WBITS if raw else zlib.MAX_WBITS)
            out: bytes = self._zlib.decompress(data, most)
            return out
        except Exception as exc:  # zlib.error, and brotli.error has no stable import path
            raise BadResponseError(
                f"cannot decode Content-Encoding {self.encoding}: {exc}"
            ) from exc


def decoder_for(headers: Headers, accepted: frozenset[str]) -> Decoder | None:
    """The decoder a response's ``Content-Encoding`` needs (None: the bytes are the body)."""
    value = headers.first.get("content-encoding")
    if value is None:
        return None
    encoding = value.strip(" \t").lower()
    if encoding not in accepted:
        return None  # identity, or a coding we never asked for: passed on as it came
    return Decoder(encoding)
