"""A raw-socket HTTP/1.1 server on 127.0.0.1 for what aiohttp's server refuses to send.

``Content-Length: -5`` and a body that trickles one byte a second are what
hostile or broken servers do; a real framework will not produce them, so this
server writes the bytes itself.  Each route is either fixed response bytes or a
function that writes to the socket (and may take as long as it likes).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Route = bytes | Callable[[socket.socket, threading.Event], None]


def response(body: bytes, *, status: str = "200 OK", headers: str = "") -> bytes:
    """A well-formed response with ``body`` (``headers`` are extra CRLF-ended lines)."""
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {len(body)}\r\n"
        f"Connection: close\r\n{headers}\r\n"
    ).encode() + body


def trickle(sock: socket.socket, stop: threading.Event) -> None:
    """A 200 page whose body arrives at one byte a second, for an hour."""
    sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 3600\r\n\r\n")
    for _ in range(3600):
        if stop.wait(1.0):
            return
        sock.sendall(b"x")


class RawServer:
    """Routes by path; counts requests per path in :attr:`hits`."""

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.hits: Counter[str] = Counter()
        self.stop = threading.Event()
        self.port = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _serve(self, sock: socket.socket) -> None:
        with sock, contextlib.suppress(OSError):
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(4096)
                if not chunk:
                    return
                data += chunk
            path = data.split(b" ", 2)[1].decode("latin-1")
            self.hits[path] += 1
            route = self.routes.get(path, response(b"not here", status="404 Not Found"))
            if callable(route):
                route(sock, self.stop)
            else:
                sock.sendall(route)


@contextmanager
def listening(
    accepted: Callable[[socket.socket], None],
    stop: threading.Event,
    *,
    family: int = socket.AF_INET,
) -> Iterator[tuple[str, int]]:
    """A listener on an ephemeral loopback port; yields (host, port).

    A thread accepts until ``stop`` is set (it looks every 0.2 s) and hands each new socket
    (30 s timeout) to ``accepted``, which starts whatever serves it; at the end ``stop`` is
    set, the thread joined and the listener closed.  One accept loop for this server and
    ``tests/crawl/wire_server.py``.
    """
    host = "127.0.0.1" if family == socket.AF_INET else "::1"
    listener = socket.socket(family)
    listener.bind((host, 0))
    listener.listen(64)
    listener.settimeout(0.2)  # so that the loop sees the stop event

    def accept() -> None:
        while not stop.is_set():
            try:
                sock, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            sock.settimeout(30)
            accepted(sock)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield host, int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join(5)
        listener.close()


@contextmanager
def serve_raw(routes: dict[str, Route]) -> Iterator[RawServer]:
    server = RawServer(routes)

    def accepted(sock: socket.socket) -> None:
        threading.Thread(target=server._serve, args=(sock,), daemon=True).start()

    with listening(accepted, server.stop) as (_, server.port):
        yield server


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (connections are refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
