"""The HTTP client: retries, Retry-After, byte caps, manual redirects, errors as values."""

from __future__ import annotations

import asyncio
import gzip
import re
import shutil
import socket
import ssl
import tracemalloc
import zlib
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer
from hypothesis import given, settings
from hypothesis import strategies as st

from crawl.wire_server import WireConn, answering, ok, path_of, serve_wire
from sitemapkit.crawl.config import DEFAULT_USER_AGENT, CrawlConfig
from sitemapkit.crawl.fetch import Fetcher, make_session, retry_after_seconds
from sitemapkit.crawl.http1 import BadResponseError, head_end, parse_fields, parse_head
from sitemapkit.crawl.httpclient import HttpClient, split_url
from tls_site import https_site, make_certificates

ServerFactory = Callable[[web.Application], Awaitable[TestServer]]


def test_retry_after_forms() -> None:
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412470.0) == 10.0
    assert retry_after_seconds("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412490.0) == 0.0
    assert retry_after_seconds("soon") is None
    assert retry_after_seconds(None) is None


async def _app(
    routes: dict[str, Callable[[web.Request], Awaitable[web.StreamResponse]]],
) -> web.Application:
    app = web.Application()
    for path, handler in routes.items():
        app.router.add_get(path, handler)
    return app


async def fetcher_for(**kw: object) -> tuple[HttpClient, Fetcher]:
    config = CrawlConfig("http://127.0.0.1/", read_timeout=float(kw.pop("read_timeout", 5.0)))  # type: ignore[arg-type]
    session = make_session(config)
    opts: dict[str, object] = {"max_body": 1000, "retries": 3, "backoff_base": 0.01}
    opts.update(kw)
    return session, Fetcher(session, **opts)  # type: ignore[arg-type]


async def test_429_is_retried_after_retry_after(aiohttp_server: ServerFactory) -> None:
    calls = {"n": 0}

    async def busy(request: web.Request) -> web.Response:
        calls["n"] += 1
        if calls["n"] == 1:
            return web.Response(status=429, headers={"Retry-After": "0"})
        assert request.headers["User-Agent"] == DEFAULT_USER_AGENT
        return web.Response(text="<html>ok</html>", content_type="text/html")

    server = await aiohttp_server(await _app({"/": busy}))
    session, fetcher = await fetcher_for()
    async with session:
        resp = await fetcher.get(str(server.make_url("/")))
    assert (resp.status, resp.attempts, resp.body) == (200, 2, b"<html>ok</html>")
    assert resp.content_type == "text/html"


async def test_503_gives_up_after_the_retries(aiohttp_server: ServerFactory) -> None:
    calls = {"n": 0}

    async def down(request: web.Request) -> web.Response:
        calls["n"] += 1
        return web.Response(status=503)

    server = await aiohttp_server(await _app({"/": down}))
    session, fetcher = await fetcher_for(retries=2)
    async with session:
        resp = await fetcher.get(str(server.make_url("/")))
    assert (resp.status, calls["n"]) == (503, 3)


async def test_too_long_retry_after_is_not_waited_for(aiohttp_server: ServerFactory) -> None:
    async def later(request: web.Request) -> web.Response:
        return web.Response(status=429, headers={"Retry-After": "3600"})

    server = await aiohttp_server(await _app({"/": later}))
    session, fetcher = await fetcher_for(max_retry_wait=5)
    async with session:
        resp = await fetcher.get(str(server.make_url("/")))
    assert (resp.status, resp.attempts) == (429, 1)


async def test_body_cap_by_length_and_by_stream(aiohttp_server: ServerFactory) -> None:
    async def big(request: web.Request) -> web.Response:
        return web.Response(body=b"x" * 5000, content_type="text/html")

    async def streamed(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "text/html"})
        resp.enable_chunked_encoding()
        await resp.prepare(request)
        for _ in range(50):
            await resp.write(b"y" * 100)
        await resp.write_eof()
        return resp

    async def small(request: web.Request) -> web.Response:
        return web.Response(body=b"z" * 900, content_type="text/html")

    server = await aiohttp_server(await _app({"/big": big, "/stream": streamed, "/small": small}))
    session, fetcher = await fetcher_for()
    async with session:
        by_length = await fetcher.get(str(server.make_url("/big")))
        by_stream = await fetcher.get(str(server.make_url("/stream")))
        fits = await fetcher.get(str(server.make_url("/small")))
    assert by_length.truncated
    assert by_length.body == b""
    assert by_stream.truncated
    assert len(by_stream.body) <= 1000
    assert not fits.truncated
    assert len(fits.body) == 900


async def test_gzip_is_decoded_and_capped_after_decoding(aiohttp_server: ServerFactory) -> None:
    async def zipped(request: web.Request) -> web.Response:
        data = gzip.compress(b"<html>" + b" " * 100_000 + b"</html>")
        return web.Response(
            body=data, headers={"Content-Encoding": "gzip", "Content-Type": "text/html"}
        )

    server = await aiohttp_server(await _app({"/": zipped}))
    session, fetcher = await fetcher_for(max_body=200_000)
    async with session:
        resp = await fetcher.get(str(server.make_url("/")))
    assert resp.body.startswith(b"<html>")
    assert len(resp.body) == 100_013
    session, fetcher = await fetcher_for(max_body=1000)
    async with session:
        bomb = await fetcher.get(str(server.make_url("/")))
    assert bomb.truncated


async def test_redirects_are_not_followed_and_bodies_can_be_skipped(
    aiohttp_server: ServerFactory,
) -> None:
    async def moved(request: web.Request) -> web.Response:
        return web.Response(status=301, headers={"Location": "../b?x=1"})

    async def pdf(request: web.Request) -> web.Response:
        return web.Response(body=b"%PDF" * 100, content_type="application/pdf")

    server = await aiohttp_server(await _app({"/a/c": moved, "/f.pdf": pdf}))
    session, fetcher = await fetcher_for()
    async with session:
        resp = await fetcher.get(str(server.make_url("/a/c")))
        skipped = await fetcher.get(
            str(server.make_url("/f.pdf")), want_body=lambda mime: mime == "text/html"
        )
    assert resp.is_redirect
    assert resp.status == 301
    assert resp.location == str(server.make_url("/b?x=1"))
    assert (skipped.status, skipped.body, skipped.content_type) == (200, b"", "application/pdf")


async def test_network_failures_are_values() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    session, fetcher = await fetcher_for(retries=1)
    async with session:
        refused = await fetcher.get(f"http://127.0.0.1:{port}/")
    assert refused.status is None
    assert refused.error == "connection-error"
    assert refused.attempts == 2


async def test_slow_responses_time_out(aiohttp_server: ServerFactory) -> None:
    async def slow(request: web.Request) -> web.Response:
        await asyncio.sleep(2)
        return web.Response(text="late")

    server = await aiohttp_server(await _app({"/": slow}))
    session, fetcher = await fetcher_for(retries=0, read_timeout=0.2)
    async with session:
        resp = await fetcher.get(str(server.make_url("/")))
    assert resp.error == "timeout"


@pytest.mark.parametrize("value", ["0", "1"])
def test_retry_after_digits(value: str) -> None:
    assert retry_after_seconds(value) == float(value)


async def test_what_failed_is_said_in_one_line() -> None:
    """The detail names the failure a site owner knows: refused, DNS, with host and port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    session, fetcher = await fetcher_for(retries=0)
    async with session:
        refused = await fetcher.get(f"http://127.0.0.1:{port}/")
        unknown = await fetcher.get("http://no-such-host.invalid/")
    assert (refused.error, refused.error_detail) == (
        "connection-error",
        f"connection refused by 127.0.0.1:{port}",
    )
    assert unknown.error == "connection-error"
    assert unknown.error_detail == "DNS lookup failed for no-such-host.invalid"


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
async def test_a_certificate_the_client_does_not_trust_is_not_asked_again(tmp_path: Path) -> None:
    """Retrying cannot make an untrusted certificate trusted: one request, not four
    (three back-offs cost a bad-certificate URL about ten seconds at the defaults)."""
    _ca, cert, key = make_certificates(tmp_path)
    with https_site(cert, key) as base:
        session, fetcher = await fetcher_for(backoff_base=0.5)
        async with session:
            resp = await fetcher.get(base + "/")
    assert resp.error == "connection-error"
    assert "certificate verify failed" in (resp.error_detail or "")
    assert (resp.attempts, fetcher.requests, fetcher.retried) == (1, 1, 0)


# -- the lean client against raw servers that send what frameworks will not -----------------


def _fetcher(**kw: object) -> tuple[HttpClient, Fetcher]:
    config = CrawlConfig(
        "http://127.0.0.1/",
        read_timeout=float(kw.pop("read_timeout", 5.0)),  # type: ignore[arg-type]
        per_host=int(kw.pop("per_host", 8)),  # type: ignore[call-overload]
    )
    client = make_session(config)
    opts: dict[str, object] = {"max_body": 100_000, "retries": 2, "backoff_base": 0.01}
    opts.update(kw)
    return client, Fetcher(client, **opts)  # type: ignore[arg-type]


async def test_chunked_with_extensions_and_trailers_on_one_kept_alive_connection() -> None:
    chunked = (
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=ISO-8859-1\r\n"
        b"Transfer-Encoding: chunked\r\nTrailer: X-Sum\r\n\r\n"
        b'6;name=value;quoted="a;b"\r\n<html>\r\n'
        b"7\r\n</html>\r\n"
        b"0;last\r\nX-Sum: 13\r\nX-Other: y\r\n\r\n"
    )
    with serve_wire(answering(lambda head, conn, n: chunked)) as server:
        client, fetcher = _fetcher()
        async with client:
            first = await fetcher.get(server.base + "/a")
            second = await fetcher.get(server.base + "/b")
    assert (first.status, first.body, second.body) == (200, b"<html></html>", b"<html></html>")
    assert (first.content_type, first.charset) == ("text/html", "ISO-8859-1")
    assert server.connections == 1  # the trailers were read: the connection stayed usable


@pytest.mark.parametrize(
    "framing",
    [
        b"Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",  # not hex
        b"Transfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n",  # negative
        b"Transfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n",  # data longer than its size
        b"Transfer-Encoding: chunked\r\n\r\n" + b"1" * 5000 + b"\r\n",  # endless size line
        b"Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello",  # two lengths
        b"Bad Name: x\r\nContent-Length: 0\r\n\r\n",  # no header token
    ],
)
async def test_broken_framing_is_a_bad_response_and_not_asked_again(framing: bytes) -> None:
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n" + framing
    with serve_wire(answering(lambda head, conn, n: answer)) as server:
        client, fetcher = _fetcher()
        async with client:
            resp = await fetcher.get(server.base + "/")
    assert resp.error == "bad-response", resp.error_detail
    assert (resp.final, resp.attempts, len(server.heads) <= 1) == (True, 1, True)
    assert "\n" not in (resp.error_detail or "")


async def test_a_pooled_connection_the_server_dropped_is_retried_once_on_a_fresh_one() -> None:
    """The server answers two requests per connection, then reads the third and hangs up
    without a word (an idle timeout racing our request): the page still comes back."""
    asked: list[str] = []

    def reply(head: bytes, conn: WireConn, n: int) -> bytes | None:
        asked.append(path_of(head))
        return None if n == 2 else ok(f"page {path_of(head)}".encode())

    with serve_wire(answering(reply)) as server:
        client, fetcher = _fetcher(retries=0)
        async with client:
            pages = [await fetcher.get(f"{server.base}/{i}") for i in range(5)]
    assert [p.body for p in pages] == [f"page /{i}".encode() for i in range(5)]
    assert all(p.attempts == 1 for p in pages)
    # /2 and /4 twice: each third request dropped, then sent on a fresh connection
    assert asked == ["/0", "/1", "/2", "/2", "/3", "/4", "/4"]
    assert server.connections == 3


async def test_a_premature_close_mid_body_is_a_connection_error_and_retried() -> None:
    def reply(head: bytes, conn: WireConn, n: int) -> bytes | None:
        conn.send(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1000\r\n\r\n")
        conn.send(b"x" * 500)
        return None

    with serve_wire(answering(reply)) as server:
        client, fetcher = _fetcher(retries=1)
        async with client:
            resp = await fetcher.get(server.base + "/")
    assert (resp.status, resp.error, resp.attempts) == (None, "connection-error", 2)
    assert "500 bytes before the end" in (resp.error_detail or "")
    assert server.connections == 2


async def test_endless_headers_and_a_huge_header_line_are_bad_responses() -> None:
    def endless(conn: WireConn) -> None:
        conn.request()
        conn.send(b"HTTP/1.1 200 OK\r\n")
        for i in range(1_000_000):
            if not conn.send(f"X-Header-{i}: {'v' * 40}\r\n".encode()):
                return

    def one_line(conn: WireConn) -> None:
        conn.request()
        conn.send(b"HTTP/1.1 200 OK\r\nX-Huge: ")
        block = b"a" * 65536
        for _ in range(16384):  # 1 GiB, if anyone read it
            if not conn.send(block):
                return

    for handler in (endless, one_line):
        with serve_wire(handler) as server:
            client, fetcher = _fetcher(retries=0)
            async with client:
                resp = await fetcher.get(server.base + "/")
        assert resp.error == "bad-response"
        assert "response head over 65536 bytes" in (resp.error_detail or "")


async def test_too_many_header_lines_are_a_bad_response() -> None:
    lines = "".join(f"X-{i}: v\r\n" for i in range(300))
    answer = f"HTTP/1.1 200 OK\r\n{lines}Content-Length: 0\r\n\r\n".encode()
    with serve_wire(answering(lambda head, conn, n: answer)) as server:
        client, fetcher = _fetcher()
        async with client:
            resp = await fetcher.get(server.base + "/")
    assert (resp.error, resp.error_detail) == (
        "bad-response",
        "malformed response: more than 256 header lines",
    )


async def test_slow_loris_headers_hit_the_total_timeout() -> None:
    """One header byte at a time, each within the read timeout: only the total cuts it."""

    def loris(conn: WireConn) -> None:
        conn.request()
        conn.send(b"HTTP/1.1 200 OK\r\n")
        while not conn.stop.wait(0.05):
            if not conn.send(b"X"):
                return

    with serve_wire(loris) as server:
        client, fetcher = _fetcher(retries=0, total_timeout=0.5)
        async with client:
            resp = await fetcher.get(server.base + "/")
    assert (resp.error, resp.error_detail) == ("timeout", "timed out")


async def test_silence_after_the_head_hits_the_read_timeout() -> None:
    def stall(conn: WireConn) -> None:
        conn.request()
        conn.send(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc")
        conn.stop.wait(30)

    with serve_wire(stall) as server:
        client, fetcher = _fetcher(retries=0, read_timeout=0.2)
        async with client:
            resp = await fetcher.get(server.base + "/")
    assert resp.error == "timeout"


async def test_a_body_that_trickles_within_the_read_timeout_is_read_whole() -> None:
    """Each byte comes before the read timeout, the whole body well after it: the read
    timer, due at the first wait's expiry, is set again for the later one."""

    def trickle(conn: WireConn) -> None:
        conn.request()
        conn.send(b"HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n")
        for byte in b"twelve bytes":
            if conn.stop.wait(0.05) or not conn.send(bytes([byte])):
                return

    with serve_wire(trickle) as server:
        client, fetcher = _fetcher(retries=0, read_timeout=0.2)
        async with client:
            resp = await fetcher.get(server.base + "/")
    assert (resp.error, resp.body) == (None, b"twelve bytes")


async def test_a_kept_alive_connection_times_out_again_after_idling_past_its_timer() -> None:
    """The read timer comes due while the connection idles in the pool (nobody waits):
    the next request on that connection still times out when the server goes silent."""

    def reply(head: bytes, conn: WireConn, n: int) -> bytes | None:
        if n == 1:
            conn.stop.wait(30)
            return None
        return ok(b"first")

    with serve_wire(answering(reply)) as server:
        client, fetcher = _fetcher(retries=0, read_timeout=0.2)
        async with client:
            first = await fetcher.get(server.base + "/a")
            await asyncio.sleep(0.3)
            second = await fetcher.get(server.base + "/b")
    assert (first.body, second.error, server.connections) == (b"first", "timeout", 1)


def _bomb(decoded: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = b"\0" * (1 << 20)
    parts = [packer.compress(block) for _ in range(decoded >> 20)]
    return b"".join([*parts, packer.flush()])


async def test_a_gzip_bomb_is_cut_at_the_cap_while_inflating() -> None:
    """200 MiB of zeros in ~200 KB of gzip: the client never holds more than the cap."""
    bomb = _bomb(200 << 20)
    answer = ok(bomb, extra="Content-Encoding: gzip\r\n")
    with serve_wire(answering(lambda head, conn, n: answer)) as server:
        client, fetcher = _fetcher(max_body=1 << 20)
        async with client:
            tracemalloc.start()
            resp = await fetcher.get(server.base + "/")
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
    assert resp.truncated
    assert len(resp.body) <= 1 << 20
    assert peak < 16 << 20  # the cap plus the compressed bytes, not 200 MiB


@pytest.mark.parametrize("wbits", [zlib.MAX_WBITS, -zlib.MAX_WBITS])
async def test_deflate_zlib_wrapped_or_raw_is_decoded(wbits: int) -> None:
    page = b"<html>" + b"deflated " * 1000 + b"</html>"
    packer = zlib.compressobj(6, zlib.DEFLATED, wbits)
    answer = ok(packer.compress(page) + packer.flush(), extra="Content-Encoding: deflate\r\n")
    with serve_wire(answering(lambda head, conn, n: answer)) as server:
        client, fetcher = _fetcher()
        async with client:
            resp = await fetcher.get(server.base + "/")
    assert resp.body == page
    assert b"accept-encoding: gzip, deflate" in server.heads_lower()[0]


async def test_a_corrupt_gzip_body_is_a_bad_response() -> None:
    answer = ok(b"\x1f\x8b\x08\x00garbage-here", extra="Content-Encoding: gzip\r\n")
    with serve_wire(answering(lambda head, conn, n: answer)) as server:
        client, fetcher = _fetcher()
        async with client:
            resp = await fetcher.get(server.base + "/")
    assert resp.error == "bad-response"
    assert "cannot decode Content-Encoding gzip" in (resp.error_detail or "")


async def test_interim_heads_no_body_statuses_and_connection_close() -> None:
    """1xx heads are skipped; 204 and 304 carry no body even if bytes follow the head
    on a kept connection; ``Connection: close`` and HTTP/1.0 bodies end with the socket."""

    def reply(head: bytes, conn: WireConn, n: int) -> bytes | None:
        path = path_of(head)
        if path == "/early":
            return (
                b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </s.css>\r\n\r\n"
                + ok(b"after hints")
            )
        if path == "/empty":
            return b"HTTP/1.1 204 No Content\r\n\r\n"
        if path == "/same":
            return b'HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\n\r\n'
        if path == "/bye":
            conn.send(b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil close")
            return None
        conn.send(b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\nold server")
        return None

    with serve_wire(answering(reply)) as server:
        client, fetcher = _fetcher(retries=0)
        async with client:
            got = [
                await fetcher.get(server.base + p, headers={"If-None-Match": '"v1"'})
                for p in ("/early", "/empty", "/same", "/bye", "/old", "/early")
            ]
    assert [(r.status, r.body) for r in got] == [
        (200, b"after hints"),
        (204, b""),
        (304, b""),
        (200, b"until close"),
        (200, b"old server"),
        (200, b"after hints"),
    ]
    assert got[2].headers.get("etag") == '"v1"'
    assert server.connections == 3  # /bye and the HTTP/1.0 page each ended theirs


async def test_http10_keep_alive_and_a_body_not_wanted() -> None:
    def reply(head: bytes, conn: WireConn, n: int) -> bytes | None:
        if path_of(head) == "/big.pdf":
            return ok(b"%PDF-1.7\n").replace(b"text/html", b"application/pdf")
        return b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 4\r\n\r\nkept"

    with serve_wire(answering(reply)) as server:
        client, fetcher = _fetcher()
        async with client:
            first = await fetcher.get(server.base + "/")
            pdf = await fetcher.get(server.base + "/big.pdf", want_body=lambda m: m == "text/html")
            last = await fetcher.get(server.base + "/")
    assert (first.body, pdf.body, pdf.content_type, last.body) == (
        b"kept",
        b"",
        "application/pdf",
        b"kept",
    )
    assert server.connections == 1  # the skipped body had all arrived: connection kept


async def test_the_request_says_who_we_are_and_refuses_header_injection() -> None:
    with serve_wire(answering(lambda head, conn, n: ok(b"hi"))) as server:
        client, fetcher = _fetcher(retries=0)
        async with client:
            await fetcher.get(server.base + "/p%C3%A4ge?q=1#frag", headers={"X-Test": "1"})
            bad = await fetcher.get(server.base + "/", headers={"If-None-Match": 'a"\r\nX-Evil: 1'})
    lines = server.heads[0].decode().split("\r\n")
    assert lines[0] == "GET /p%C3%A4ge?q=1 HTTP/1.1"
    assert f"Host: 127.0.0.1:{server.port}" in lines
    assert f"User-Agent: {DEFAULT_USER_AGENT}" in lines
    assert "Accept: text/html,*/*;q=0.8" in lines
    assert "X-Test: 1" in lines
    assert bad.error == "connection-error"
    assert "newline" in (bad.error_detail or "")
    assert len(server.heads) == 1


async def test_connections_per_host_never_exceed_the_limit() -> None:
    """Twelve requests at once, two connections allowed: the server sees at most two."""

    def reply(head: bytes, conn: WireConn, n: int) -> bytes | None:
        conn.stop.wait(0.02)
        return ok(b"slow")

    with serve_wire(answering(reply)) as server:
        client, fetcher = _fetcher(per_host=2)
        async with client:
            got = await asyncio.gather(*(fetcher.get(f"{server.base}/{i}") for i in range(12)))
    assert all(r.body == b"slow" for r in got)
    assert server.most_open <= 2
    assert server.connections <= 2


def _has_ipv6() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _has_ipv6(), reason="no IPv6 loopback on this machine")
async def test_an_ipv6_literal() -> None:
    with serve_wire(answering(lambda head, conn, n: ok(b"six")), family=socket.AF_INET6) as server:
        client, fetcher = _fetcher()
        async with client:
            resp = await fetcher.get(server.base + "/")
    assert resp.body == b"six"
    assert f"Host: [::1]:{server.port}".encode() in server.heads[0]


def test_idna_hosts_and_targets_are_sent_as_ascii() -> None:
    target = split_url("http://Bücher.example/a b/ä?x=ü#frag")
    assert (target.host, target.port) == ("xn--bcher-kva.example", 80)
    assert target.host_header == "xn--bcher-kva.example"
    assert target.path == "/a%20b/%C3%A4?x=%C3%BC"
    v6 = split_url("https://[::1]:8443")
    assert (v6.host, v6.port, v6.path, v6.host_header) == ("::1", 8443, "/", "[::1]:8443")


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command")
async def test_tls_with_a_trusted_ca_and_the_hostname_checked(tmp_path: Path) -> None:
    ca, cert, key = make_certificates(tmp_path)
    trust = ssl.create_default_context(cafile=str(ca))
    with https_site(cert, key) as base:
        client = HttpClient(ssl_context=trust)
        fetcher = Fetcher(client, max_body=10_000, retries=0)
        async with client:
            page = await fetcher.get(base + "/")
            other_name = await fetcher.get(base.replace("127.0.0.1", "localhost") + "/")
    assert (page.status, page.body) == (200, b"<html><head><title>Safe</title></head></html>")
    assert other_name.error == "connection-error"
    assert other_name.error_detail is not None
    assert other_name.error_detail.startswith("TLS error with localhost:")
    assert "mismatch" in other_name.error_detail
    assert other_name.final


def test_heads_are_read_as_rfc_9112_says() -> None:
    """The one-pass reading of a common head equals the line-by-line one, and what it
    cannot read (folding, LF-only lines, repeated names) goes the slow way right."""
    status, is11, headers = parse_head(
        b"HTTP/1.0 404 Not Found\r\nA: b  \r\nEmpty:\r\nX-Robots-Tag: noindex\t\r\n"
        b"Folded: one\r\n  two\r\nx-robots-tag: nofollow\nLast: z"
    )
    assert (status, is11) == (404, False)
    assert list(headers.items()) == [
        ("A", "b"),
        ("Empty", ""),
        ("X-Robots-Tag", "noindex"),
        ("Folded", "one two"),
        ("x-robots-tag", "nofollow"),
        ("Last", "z"),
    ]
    assert headers["x-robots-TAG"] == "noindex"
    assert headers.getall("X-Robots-Tag") == ["noindex", "nofollow"]
    assert "folded" in headers
    assert "nope" not in headers
    for broken in (b"HTTP/2 200 OK", b"HTTP/1.1 20 OK", b"ICY 200 OK", b"HTTP/1.1 200 OK\r\n x"):
        with pytest.raises(BadResponseError):
            parse_head(broken)


@settings(max_examples=1000, deadline=None)
@given(st.binary(max_size=40).map(lambda b: bytes(b"\r\n:a"[x % 4] for x in b)), st.data())
def test_the_head_end_is_where_the_blank_line_pattern_matches(
    raw: bytes, data: st.DataObject
) -> None:
    """``head_end`` searches from the LF; it finds what ``\\r?\\n\\r?\\n`` finds, from any start."""
    start = data.draw(st.integers(0, len(raw)))
    found = re.compile(rb"\r?\n\r?\n").search(raw, start)
    assert head_end(bytearray(raw), start) == (None if found is None else found.span())


_head_bits = st.text("aZ-:; \t\r\x7f", max_size=6)
#: Header lines: mostly a name, a colon and a value; some anything.
_head_line = st.one_of(
    st.builds("{}:{}{}".format, st.text("aZ-", min_size=1, max_size=4), _head_bits, _head_bits),
    st.text("aZ-:; \t\r\x7f", max_size=12),
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(_head_line, max_size=6), st.sampled_from(["\r\n", "\n"]))
def test_the_one_pass_head_lane_equals_the_line_by_line_one(lines: list[str], eol: str) -> None:
    """Whatever the one regex pass accepts it reads as ``parse_fields`` reads the same
    lines; what it refuses goes to ``parse_fields`` itself: the same headers or error."""
    text = eol.join(["HTTP/1.1 200 OK", *lines])
    slow: list[tuple[str, str]] | None
    try:
        slow = parse_fields(text.split("\n")[1:]) if lines else []
    except BadResponseError:
        slow = None
    try:
        fast: list[tuple[str, str]] | None = list(parse_head(text.encode("latin-1"))[2].items())
    except BadResponseError:
        fast = None
    assert fast == slow


async def test_the_pool_limit_closes_an_idle_connection_of_another_origin() -> None:
    """One connection in all (``--concurrency 1``): asking a second origin closes the first
    origin's idle connection instead of waiting for it forever."""
    with (
        serve_wire(answering(lambda head, conn, n: ok(b"a"))) as first,
        serve_wire(answering(lambda head, conn, n: ok(b"b"))) as second,
    ):
        client = HttpClient(limit=1, limit_per_host=1)
        fetcher = Fetcher(client, max_body=100, retries=0, total_timeout=5.0)
        async with client:
            got = [await fetcher.get(base + "/") for base in (first.base, second.base, first.base)]
    assert [r.body for r in got] == [b"a", b"b", b"a"]
    assert (first.connections, second.connections) == (2, 1)


async def test_a_head_request_has_no_body_and_keeps_the_connection() -> None:
    def reply(head: bytes, conn: WireConn, n: int) -> bytes | None:
        if head.startswith(b"HEAD"):
            return b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5000\r\n\r\n"
        return ok(b"after head")

    with serve_wire(answering(reply)) as server:
        async with HttpClient() as client:
            head = await client.send("HEAD", server.base + "/")
            body, cut = await head.read(100)
            after = await client.send("GET", server.base + "/")
            after_body, _ = await after.read(100)
    assert (head.status, head.content_length, body, cut) == (200, None, b"", False)
    assert after_body == b"after head"
    assert server.connections == 1
