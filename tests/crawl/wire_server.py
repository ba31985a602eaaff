"""A raw-socket HTTP/1.1 server on 127.0.0.1 that keeps connections open.

tests/cli/raw_http.py answers one request per connection; the lean client's pool,
its stale-connection retry and its body framings need a server that reads request
after request on one connection and writes whatever bytes a test chooses (hostile
ones included).  Each connection runs ``handler(conn)`` in its own thread.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from cli.raw_http import listening


class WireConn:
    """One accepted connection: read request heads, write raw bytes."""

    def __init__(
        self, sock: socket.socket, index: int, stop: threading.Event, heads: list[bytes]
    ) -> None:
        self.heads = heads
        self.sock = sock
        self.index = index
        self.stop = stop
        self._data = b""

    def request(self) -> bytes | None:
        """The next request head (without its blank line), or None when the client closed."""
        while b"\r\n\r\n" not in self._data:
            try:
                chunk = self.sock.recv(65536)
            except OSError:
                return None
            if not chunk:
                return None
            self._data += chunk
        head, _, self._data = self._data.partition(b"\r\n\r\n")
        self.heads.append(head)
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                size = int(line.split(b":", 1)[1])
                while len(self._data) < size:
                    self._data += self.sock.recv(65536)
                self._data = self._data[size:]
        return head

    def send(self, data: bytes) -> bool:
        """Write ``data``; False when the client has gone."""
        try:
            self.sock.sendall(data)
        except OSError:
            return False
        return True


Handler = Callable[[WireConn], None]


class WireServer:
    """Counts connections and the most open at once; keeps every request head."""

    def __init__(self, handler: Handler) -> None:
        self.handler = handler
        self.stop = threading.Event()
        self.port = 0
        self.host = "127.0.0.1"
        self.connections = 0
        self.open = 0
        self.most_open = 0
        self.heads: list[bytes] = []
        self._lock = threading.Lock()

    def heads_lower(self) -> list[bytes]:
        return [head.lower() for head in self.heads]

    @property
    def base(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def _run(self, sock: socket.socket, index: int) -> None:
        with self._lock:
            self.open += 1
            self.most_open = max(self.most_open, self.open)
        try:
            with sock, contextlib.suppress(OSError):
                self.handler(WireConn(sock, index, self.stop, self.heads))
        finally:
            with self._lock:
                self.open -= 1

    def _accepted(self, sock: socket.socket) -> None:
        """Number the connection in accept order and serve it on a thread of its own."""
        with self._lock:
            index = self.connections
            self.connections += 1
        threading.Thread(target=self._run, args=(sock, index), daemon=True).start()


@contextmanager
def serve_wire(handler: Handler, *, family: int = socket.AF_INET) -> Iterator[WireServer]:
    server = WireServer(handler)
    with listening(server._accepted, server.stop, family=family) as (server.host, server.port):
        yield server


def answering(reply: Callable[[bytes, WireConn, int], bytes | None]) -> Handler:
    """A handler that answers each request with ``reply(head, conn, n)`` (n: the request's
    number on its connection, from 0) and closes without answering when it returns None."""

    def handler(conn: WireConn) -> None:
        n = 0
        while (head := conn.request()) is not None:
            answer = reply(head, conn, n)
            if answer is None or not conn.send(answer):
                return
            n += 1

    return handler


def ok(body: bytes, *, extra: str = "", status: str = "200 OK") -> bytes:
    """A keep-alive response with a Content-Length."""
    return (
        f"HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {len(body)}\r\n"
        f"{extra}\r\n"
    ).encode() + body


def path_of(head: bytes) -> str:
    return head.split(b" ", 2)[1].decode("latin-1")
