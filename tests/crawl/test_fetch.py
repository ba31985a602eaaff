"""The HTTP client: retries, Retry-After, byte caps, manual redirects, errors as values."""

from __future__ import annotations

import asyncio
import gzip
import shutil
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from sitemapkit.crawl.config import DEFAULT_USER_AGENT, CrawlConfig
from sitemapkit.crawl.fetch import Fetcher, make_session, retry_after_seconds
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


async def fetcher_for(**kw: object) -> tuple[aiohttp.ClientSession, Fetcher]:
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
